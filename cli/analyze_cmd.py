"""`tacocat analyze`: replay a game record, evaluate every decision with the
engine (`tacocat.players.analysis.analyze`) and list the costliest ones."""

from __future__ import annotations

import json

import click

from tacocat.cli.notation import METHODS, CliError, format_action, friendly_errors, progress_bar, read_json
from tacocat.rules.cards import format_cards
from tacocat.rules.game import GameRecord


def _value(x) -> str:
    return f"{x:+.3f}" if isinstance(x, (int, float)) else "?"


@click.command(name="analyze")
@click.argument("game", metavar="GAME.json")
@click.option("--player", type=click.Choice(["0", "1", "both"]), default="both", show_default=True, help="Whose decisions to review.")
@click.option("--top", type=click.IntRange(1), default=10, show_default=True, help="List the N costliest decisions.")
@click.option("--time", "time_ms", type=click.IntRange(1), default=None, help="Search time per decision, milliseconds.")
@click.option("--iterations", type=click.IntRange(1), default=None, help="Search budget per decision (sampled deals or iterations).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the searches (decision i uses SEED+i).")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True, help="Search method, as in tacocat hint.")
@click.option("--score", type=click.Choice(["game", "round"]), default="game", show_default=True,
              help="Value of a move: game equity of the board the round leads to, or the round alone (+1/0/-1).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole analysis as one JSON object.")
@friendly_errors
def command(game, player, top, time_ms, iterations, seed, method, score, as_json):
    """Find the decisions of a game that cost the most expected value.

    Replays GAME.json (a record saved by `tacocat play --save`, or any
    record with format "tacocat-record"), asks the engine about every
    decision the chosen player(s) made, and lists those where a better move
    existed: what was played, the better move, both values (from what the
    player knew then; game equity by default, see --score) and the cost,
    with a 95% margin when the values were sampled.  Forced moves are
    skipped.

    \b
    Examples:
      tacocat analyze game.json
      tacocat analyze game.json --player 0 --top 5 --time 500
      tacocat analyze game.json --iterations 200 --json > review.json"""
    from tacocat.players.analysis import analyze

    data = read_json(game, "game record")
    record = GameRecord.from_dict(data)
    players = (0, 1) if player == "both" else (int(player),)
    names = {0: "player 0", 1: "player 1"}
    if isinstance(data.get("players"), dict):
        for k, v in data["players"].items():
            if k in ("0", "1"):
                names[int(k)] = f"P{k} ({v})"
    record.replay()  # a broken record fails here, before the progress bar
    try:
        import tacocat.search.hint  # noqa: F401
    except ImportError as exc:
        raise CliError(f"the hint engine is not available in this installation ({exc})") from None
    todo = sum(1 for a in record.actions if isinstance(a, dict) and a.get("player") in players)
    with progress_bar("analysing", todo) as bar:
        last = [0]

        def progress(done: int, total: int) -> None:
            bar.update(done - last[0])
            last[0] = done

        result = analyze(record, players=players, iterations=iterations, time_ms=time_ms, seed=seed,
                         method=method, utilities=score, progress=progress)
    if as_json:
        out = result.to_dict(top)
        out["names"] = {str(k): v for k, v in names.items()}
        click.echo(json.dumps(out))
        return
    winner = "unfinished" if result.winner is None else f"won by {names[result.winner]}"
    searched = [d for d in result.decisions if not d.forced]
    methods = sorted({d.method for d in searched if d.method})
    click.echo(
        f"game from seed {result.seed}: {result.actions} actions, {len(result.rounds)} rounds, {winner}"
    )
    click.echo(
        f"reviewed {len(result.decisions)} decisions of {' and '.join(names[p] for p in players)} "
        f"({len(searched)} searched, the rest forced; method {', '.join(methods) or '-'})"
    )
    for p in players:
        n = sum(1 for d in result.decisions if d.player == p and d.significant)
        click.echo(f"  {names[p]}: expected value given away {result.total_cost(p):.3f} in all; {n} clear mistakes")
    rows = result.costliest(top)
    if not rows:
        click.echo("no decision cost anything: every move played was the engine's best.")
    else:
        unit = "game equity, +1 = game won" if score == "game" else "+1 round won, -1 lost"
        click.echo(f"\ncostliest decisions (value: {unit}):")
        for rank, d in enumerate(rows, 1):
            margin = f" ±{d.margin:.3f}" if d.margin is not None and not d.exact else ""
            if d.significant:
                flag = ""
            elif d.margin is None or d.best_stderr is None or d.played_stderr is None:
                flag = "  (too few samples to be sure)"
            else:
                flag = "  (within the sampling noise)"
            who = names[d.player] if len(players) > 1 else ""
            ctx = f"hand {format_cards(d.hand)}" + (f", answering {format_cards(d.table)}" if d.table else "")
            click.echo(f"{rank:3}. action {d.index + 1}, round {d.round}, {d.decision}{' by ' + who if who else ''}: {ctx}")
            click.echo(
                f"     played {format_action(d.played)} ({_value(d.played_value)}), "
                f"better {format_action(d.best or {})} ({_value(d.best_value)}): cost {d.cost:.3f}{margin}{flag}"
            )
    unknown = result.unknown()
    if unknown:
        click.echo(
            f"\n{len(unknown)} decision(s) not scored (the move played was not among the engine's candidates): "
            + ", ".join(f"action {d.index + 1}" for d in unknown[:10])
        )
