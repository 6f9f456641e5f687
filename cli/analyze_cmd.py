"""`tacocat analyze`: replay a game record, evaluate every decision with the
engine (`tacocat.players.analysis.analyze`), draw the game's equity decision
by decision (a sparkline here, a PNG with --plot) and list the costly
decisions on the game-win percentage scale."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import click

from tacocat.cli.option_table import file_option, ranged_option
from tacocat.cli.search_options import search_options
from tacocat.cli.terminal import CliError, counted, format_action, friendly_errors, interrupt_sets, progress_bar
from tacocat.rules.cards import format_cards
from tacocat.rules.files import read_json
from tacocat.rules.game import GameRecord

BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_BLOCKS = "_.-~=*#@"


def _pct(equity: float) -> float:
    """Game equity (2 G - 1) as a game-win percentage."""
    return 50.0 * (equity + 1.0)


def sparkline(values: list[float], breaks: set[int], unicode: bool = True) -> str:
    """One character per value in 0..100, '|' before each index in `breaks`."""
    blocks = BLOCKS if unicode else ASCII_BLOCKS
    out = []
    for i, v in enumerate(values):
        if i in breaks and i:
            out.append("|")
        out.append(blocks[min(len(blocks) - 1, max(0, int(v / 100.0 * len(blocks))))])
    return "".join(out)


def _can_print(text: str) -> bool:
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def viewer_of(players: tuple[int, ...], humans: list[int]) -> int:
    """Whose side the curve is drawn from: the human, else the one player
    reviewed, else player 0."""
    if len(humans) == 1:
        return humans[0]
    return players[0] if len(players) == 1 else 0


def plot_curve(result, viewer: int, names: dict[int, str], path: str, title: str) -> None:
    """The equity curve as a PNG: game-win % of `viewer` after every
    searched decision, round starts as vertical lines, costly decisions
    marked with their cost in points."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CliError("--plot needs matplotlib: pip install 'tacocat[plot]'") from None
    fig, _ = curve_figure(result, viewer, names, title)
    try:
        fig.savefig(path, format="png")
    except OSError as exc:
        raise CliError(f"--plot: cannot write {path!r}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


def curve_figure(result, viewer: int, names: dict[int, str], title: str):
    """`plot_curve`'s picture as a matplotlib figure, with the cost labels
    it placed (matplotlib must be importable)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = []
    points = result.curve
    xs = [c.index for c in points]
    ys = [_pct(c.for_player(viewer)) if result.utilities == "game" else c.for_player(viewer) for c in points]
    fig, ax = plt.subplots(figsize=(10, 4.2), dpi=110)
    ax.plot(xs, ys, color="#3465a4", linewidth=1.6, marker=".", markersize=4, label=f"{names[viewer]}")
    for c in points:
        if c.kind == "deal":
            ax.axvline(c.index, color="#999999", linestyle=":", linewidth=0.9)
            ax.text(
                c.index + 0.3,
                101 if result.utilities == "game" else 1.02,
                f"round {c.round}",
                fontsize=7,
                color="#666666",
                va="bottom",
            )
    by_index = {c.index: c for c in points if c.kind == "decision"}
    for p, colour, dy in ((viewer, "#cc0000", -12), (1 - viewer, "#f57900", 7)):
        costly = [d for d in result.costly(p) if (d.index + 1) in by_index]
        if not costly:
            continue
        cx = [d.index + 1 for d in costly]
        cy = [
            _pct(by_index[x].for_player(viewer)) if result.utilities == "game" else by_index[x].for_player(viewer)
            for x in cx
        ]
        ax.scatter(cx, cy, color=colour, zorder=3, s=30, label=f"costly decision of {names[p]}")
        for d, x, y in zip(costly, cx, cy):
            pts = result.points(d.cost)
            label = f"-{pts:.1f}" if pts is not None else f"-{d.cost:.2f}"
            labels.append(
                ax.annotate(
                    label, (x, y), textcoords="offset points", xytext=(0, dy), ha="center", fontsize=7, color=colour
                )
            )
    if result.utilities == "game":
        ax.set_ylim(-3, 108)
        ax.axhline(50, color="#cccccc", linewidth=0.8)
        ax.set_ylabel(f"game-win chance of {names[viewer]} (%)")
    else:
        ax.set_ylim(-1.1, 1.15)
        ax.set_ylabel(f"round value of {names[viewer]} (+1 won, -1 lost)")
    ax.set_xlabel("actions played")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower left", fontsize=8, framealpha=0.85)
    ax.grid(axis="y", color="#eeeeee")
    fig.tight_layout()
    _spread_labels(fig, labels)
    return fig, labels


def _spread_labels(fig, labels, step: float = 8.0, tries: int = 12) -> None:
    """Move each cost label further from its point (down below it, up above
    it) until it overlaps no label placed before it: decisions a few
    actions apart, or both players' at one moment, print their costs on
    top of each other otherwise."""
    renderer = fig.canvas.get_renderer()
    placed: list = []
    for label in sorted(labels, key=lambda a: a.xy[0]):
        dx, dy = label.xyann
        away = step if dy >= 0 else -step
        for _ in range(tries):
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed):
                break
            dy += away
            label.xyann = (dx, dy)
        placed.append(label.get_window_extent(renderer))


@click.command(name="analyze")
@click.argument("game", metavar="GAME.json")
@click.option(
    "--player",
    type=click.Choice(["0", "1", "both"]),
    default="both",
    show_default=True,
    help="Whose decisions to review.",
)
@ranged_option("--top", click.IntRange(1), 10, "List the N costliest decisions.")
@search_options(
    time="Search time per decision, milliseconds.",
    iterations="Search budget per decision (sampled deals or iterations).",
    seed="Seed of the searches (decision i uses SEED+i).",
    method="Search method, as in tacocat hint.",
    score="Value of a move: game equity of the board the round leads to, or the round alone (+1/0/-1).",
)
@file_option(
    "--plot", "plot_path", help="Draw the equity curve into this PNG file (needs the 'plot' extra: matplotlib)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the whole analysis as one JSON object.")
@friendly_errors
def command(game, player, top, time_ms, iterations, seed, method, score, plot_path, as_json):
    """Where a recorded game was won and lost, decision by decision.

    Replays GAME.json (a record saved by `tacocat play --save`, or any
    record with format "tacocat-record"), asks the engine about every
    decision the chosen player(s) made, and shows:

    \b
    - the game's equity after every searched decision, as a sparkline
      (and as a picture with --plot FILE.png): the chance of winning the
      game as the deciding player saw it, one character per decision, '|'
      where a new round was dealt;
    - each costly decision (a better move existed, its cost beyond the
      noise of both values: larger than their two 95% margins together;
      a value on fewer than 10 deals has none): what was played, the better
      move, the game-win chance after each, the cost in game-win percentage
      points, and whether the move played was the engine's own pick with a
      third or a tenth of the search;
    - one line per player: the points given away over how many costly
      decisions.

    Values come from what the deciding player knew then (their information
    set).  On the game scale (the default) equity is 2 x game-win chance -
    1, so a cost of 0.1 equity is 5 game-win points; --score round scores
    the round alone (+1/0/-1).  Forced moves are skipped.

    \b
    Examples:
      tacocat analyze game.json
      tacocat analyze game.json --plot game.png
      tacocat analyze game.json --player 0 --top 5 --time 200
      tacocat analyze game.json --iterations 200 --json > review.json"""
    data = read_json(game, "game record")
    record = GameRecord.from_dict(data)
    players = (0, 1) if player == "both" else (int(player),)
    names, humans = _names_of(data)
    record.replay()  # a broken record fails here, before the progress bar
    _check_installed(plot_path)
    stop = threading.Event()
    result = _analysed(
        record, players, stop, iterations=iterations, time_ms=time_ms, seed=seed, method=method, score=score
    )
    viewer = viewer_of(players, humans)
    winner = _outcome(result, names)
    if plot_path is not None:
        title = f"seed {result.seed}: {names[0]} vs {names[1]}, {counted(len(result.rounds), 'round')}, {winner}"
        plot_curve(result, viewer, names, plot_path, title)
    if as_json:
        out = result.to_dict(top)
        out["names"] = {str(k): v for k, v in names.items()}
        out["viewer"] = viewer
        click.echo(json.dumps(out))
        return
    game_scale = score == "game"
    you = {p: ("you" if p in humans and len(humans) == 1 else names[p]) for p in (0, 1)}
    _header(result, names, players, winner, _todo(record, players) if stop.is_set() else None)
    _curve_lines(result, viewer, names, game_scale)
    for p in players:
        click.echo(_given_away(result, p, you[p], game_scale))
    _costliest_lines(result, top, names, len(players) > 1, game_scale)
    unknown = result.unknown()
    if unknown:
        click.echo(
            f"\n{counted(len(unknown), 'decision')} not scored "
            "(the move played was not among the engine's candidates): "
            + ", ".join(f"action {d.index + 1}" for d in unknown[:10])
        )
    if plot_path is not None:
        click.echo(f"\nequity curve drawn in {Path(plot_path)}")


def _names_of(data: dict) -> tuple[dict[int, str], list[int]]:
    """Each player's name as the record's "players" gives it ("P0 (human)"),
    and the human seats."""
    names = {0: "player 0", 1: "player 1"}
    humans: list[int] = []
    if isinstance(data.get("players"), dict):
        for k, v in data["players"].items():
            if k in ("0", "1"):
                names[int(k)] = f"P{k} ({v})"
                if v == "human":
                    humans.append(int(k))
    return names, humans


def _check_installed(plot_path: str | None) -> None:
    """What the analysis needs, before it starts: the hint engine, and matplotlib for --plot."""
    if plot_path is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise CliError("--plot needs matplotlib: pip install 'tacocat[plot]'") from None
    try:
        import tacocat.search.hint  # noqa: F401
    except ImportError as exc:
        raise CliError(f"the hint engine is not available in this installation ({exc})") from None


def _analysed(record: GameRecord, players: tuple[int, ...], stop: threading.Event, *, score: str, **budget):
    """`tacocat.players.analysis.analyze` under a progress bar of the
    decisions to review; Ctrl-C sets `stop`, which cuts the decision being
    searched short and ends the review there."""
    from tacocat.players.analysis import analyze

    todo = _todo(record, players)
    with interrupt_sets(stop), progress_bar("analysing", todo) as bar:
        last = [0]

        def progress(done: int, total: int) -> None:
            bar.update(done - last[0])
            last[0] = done

        return analyze(record, players=players, utilities=score, progress=progress, stop=stop, **budget)


def _todo(record: GameRecord, players: tuple[int, ...]) -> int:
    """The decisions of `players` in the record, forced ones included."""
    return sum(1 for a in record.actions if isinstance(a, dict) and a.get("player") in players)


def _header(result, names: dict[int, str], players: tuple[int, ...], winner: str, stopped_of: int | None) -> None:
    """The game, what was reviewed, and (`stopped_of`: the decisions there
    were) where Ctrl-C stopped the review."""
    searched = [d for d in result.decisions if not d.forced]
    methods = sorted({d.method for d in searched if d.method})
    click.echo(
        f"game from seed {result.seed}: {counted(result.actions, 'action')}, "
        f"{counted(len(result.rounds), 'round')}, {winner}"
    )
    click.echo(
        f"reviewed {counted(len(result.decisions), 'decision')} of {' and '.join(names[p] for p in players)} "
        f"({len(searched)} searched, the rest forced; method {', '.join(methods) or '-'})"
    )
    if stopped_of is not None:
        click.echo(
            f"stopped by Ctrl-C: {len(result.decisions)} of {counted(stopped_of, 'decision')} reviewed "
            "(the last one on less search than asked)"
        )


def _outcome(result, names: dict[int, str]) -> str:
    if result.winner is not None:
        return f"won by {names[result.winner]}"
    if result.drawn:
        return f"drawn game (max_deals {result.max_deals} reached, RULES §8)"
    return "unfinished"


def _given_away(result, p: int, who: str, game_scale: bool) -> str:
    """One line for player `p`: what its costly decisions gave away."""
    costly = result.costly(p)
    given = sum(d.cost or 0.0 for d in costly)
    decisions = f"{len(costly)} costly decision{'s' if len(costly) != 1 else ''}"
    if not game_scale:
        return f"{who} gave away {given:.3f} in round value (+1 won, -1 lost) over {decisions}"
    line = f"{who} gave away {result.points(given):.1f} game-win points over {decisions}"
    noise = sum(d.cost or 0.0 for d in result.decisions if d.player == p and d.cost and not d.significant)
    if noise:
        line += f" (and {result.points(noise):.1f} more within the sampling noise)"
    own = sum(1 for d in costly if d.pick_at is not None)
    if own:
        line += f"; {own} of them the engine's own pick with less search"
    return line


def _costliest_lines(result, top: int, names: dict[int, str], both: bool, game_scale: bool) -> None:
    """The `top` costliest decisions, two lines each."""
    rows = result.costliest(top)
    if not rows:
        click.echo("no decision cost anything: every move played was the engine's best.")
        return
    unit = "game-win chance after the move; cost in game-win points" if game_scale else "round value, +1 won, -1 lost"
    click.echo(f"\ncostliest decisions ({unit}):")
    for rank, d in enumerate(rows, 1):
        who = f" by {names[d.player]}" if both else ""
        ctx = f"hand {format_cards(d.hand)}" + (f", answering {format_cards(d.table)}" if d.table else "")
        click.echo(f"{rank:3}. action {d.index + 1}, round {d.round}, {d.decision}{who}: {ctx}")
        click.echo(_cost_line(result, d, game_scale))


def _cost_line(result, d, game_scale: bool) -> str:
    """What was played, the better move, their values and the cost, with
    whether the cost is beyond the noise."""
    if d.significant:
        flag = "" if d.pick_at is None else f"  ({pick_text(d.pick_at)})"
    elif d.margin is None:
        flag = "  (too few samples to be sure)"
    else:
        flag = "  (within the sampling noise of the two values)"
    better = format_action(d.best.action) if d.best else "-"
    if game_scale:
        points = result.points(d.margin)
        margin = f" ±{_small(points, 1)}" if points is not None and not d.exact else ""
        return (
            f"     played {format_action(d.played)} ({_win(d.played_value)}), "
            f"better {better} ({_win(d.best_value)}): "
            f"cost {result.points(d.cost):.1f} points{margin}{flag}"
        )
    margin = f" ±{_small(d.margin, 3)}" if d.margin is not None and not d.exact else ""
    return (
        f"     played {format_action(d.played)} ({_value(d.played_value)}), "
        f"better {better} ({_value(d.best_value)}): cost {d.cost:.3f}{margin}{flag}"
    )


SHARES = {1 / 3: "a third", 1 / 10: "a tenth"}


def pick_text(pick_at: dict) -> str:
    """Why a costly decision may be forgiven: the engine picked it too, with less search."""
    share = next((name for s, name in SHARES.items() if abs(s - pick_at["share"]) < 1e-3), f"{pick_at['share']:.0%}")
    return f"the engine's own pick with {share} of this search ({pick_at['samples']} samples)"


def _small(x: float, digits: int) -> str:
    """A margin to `digits` decimals; one that rounds to 0 (an equilibrium's
    exploitability) says it is below the last digit rather than exactly 0."""
    least = 10.0**-digits
    return f"{x:.{digits}f}" if x >= least / 2 else f"<{least:.{digits}f}"


def _value(x) -> str:
    return f"{x:+.3f}" if isinstance(x, (int, float)) else "?"


def _win(x) -> str:
    return f"{_pct(x):.1f}%" if isinstance(x, (int, float)) else "?"


def _curve_lines(result, viewer: int, names: dict[int, str], game_scale: bool) -> None:
    """The sparkline of the equity curve and its range."""
    points = [c for c in result.curve if c.kind != "end"]
    if not points:
        return
    values: list[float] = []
    breaks: set[int] = set()
    for c in points:
        if c.kind == "deal":
            breaks.add(len(values))
        v = c.for_player(viewer)
        values.append(_pct(v) if game_scale else 50.0 * (v + 1.0))
    line = sparkline(values, breaks)
    if not _can_print(line):
        line = sparkline(values, breaks, unicode=False)
    end = result.curve[-1]
    if game_scale:
        click.echo(f"equity of {names[viewer]}, game-win % after every searched decision ('|' a new deal):")
        tail = (
            f"  {values[-1]:.0f}% -> {_pct(end.for_player(viewer)):.0f}%"
            if end.kind == "end"
            else f"  {values[-1]:.0f}%"
        )
        click.echo(f"  {values[0]:.0f}% {line}{tail}   (low {min(values):.0f}%, high {max(values):.0f}%)")
    else:
        click.echo(f"round value of {names[viewer]} after every searched decision ('|' a new deal; low -1, high +1):")
        click.echo(f"  {line}")
