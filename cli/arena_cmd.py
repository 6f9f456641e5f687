"""`tacocat arena`: bots against bots in duplicate format
(`tacocat.players.match.run_match`), every pairing of the bots named, with a
results table and 95% confidence intervals."""

from __future__ import annotations

import inspect
import itertools
import json

import click

from tacocat.cli.notation import CliError, friendly_errors, progress_bar, write_json
from tacocat.players.bots import BOTS


def _fmt(x, spec: str = ".3f") -> str:
    return format(x, spec) if isinstance(x, (int, float)) else "-"


def _ci(ci) -> str:
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        return f"[{_fmt(ci[0], '+.3f')}, {_fmt(ci[1], '+.3f')}]"
    if isinstance(ci, (int, float)):
        return f"±{ci:.3f}"
    return "-"


@click.command(name="arena")
@click.argument("bots", nargs=-1, metavar="BOT BOT [BOT...]")
@click.option("--mode", type=click.Choice(["game", "play"]), default="game", show_default=True,
              help="game: whole games; play: the play phase alone, from dealt positions.")
@click.option("--deals", type=click.IntRange(1), default=100, show_default=True, help="Deals per pairing (each played twice, seats swapped).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals: the same seed gives every pairing the same deals.")
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True, help="Processes playing in parallel.")
@click.option("--time", "time_ms", type=click.IntRange(1), default=None, help="Search time of the search bots, milliseconds per move.")
@click.option("--iterations", type=click.IntRange(1), default=None, help="Search budget of the search bots per move.")
@click.option("--json", "as_json", is_flag=True, help="Print per-pairing results as JSON (a, b, deals, score, ci95, ...) instead of the table.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None, help="Also write the JSON results to this file.")
@friendly_errors
def command(bots, mode, deals, seed, workers, time_ms, iterations, as_json, out_path):
    """Play bots against each other in duplicate format.

    Every deal is played twice with the seats swapped, so luck of the cards
    cancels out.  The score is bot A's mean result against bot B (+1 won,
    0 drawn, -1 lost), with a 95% confidence interval over the deals; 0
    means equal strength.  --mode game plays whole games (scored by the
    game's winner); --mode play plays the play phase alone from 8-card
    deals (scored by the round's showdown).  With more than two bots every
    pairing is played.

    \b
    Examples:
      tacocat arena heuristic random --deals 200
      tacocat arena pimc heuristic random --mode play --deals 500 --workers 4 --time 50
      tacocat arena pimc ismcts --deals 100 --seed 1 --json > results.json"""
    if len(bots) < 2:
        raise CliError(f"name at least two bots, e.g. tacocat arena heuristic random; known bots: {', '.join(sorted(BOTS))}")
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise CliError(f"unknown bot(s) {', '.join(unknown)}; expected some of {', '.join(sorted(BOTS))}")
    if len(set(bots)) != len(bots):
        raise CliError(f"a bot is named twice in {' '.join(bots)}; name each bot once")
    try:
        from tacocat.players.match import run_match, standings
    except ImportError as exc:
        raise CliError(f"the match runner is not available in this installation ({exc})") from None
    budget = {}
    if time_ms is not None:
        budget["time_ms"] = time_ms
    if iterations is not None:
        budget["iterations"] = iterations
    results = []
    pairs = list(itertools.combinations(bots, 2))
    for a, b in pairs:
        with progress_bar(f"{a} vs {b}", deals) as bar:
            last = [0]

            def progress(done, total, bar=bar, last=last):
                if total and bar.length != total:
                    bar.length = total
                bar.update(done - last[0])
                last[0] = done

            result = run_match(a, b, deals=deals, seed=seed, mode=mode, budget=budget or None,
                               workers=workers, progress=progress)
        results.append(result.to_dict())
        if out_path:  # after every pairing: a crash loses at most the one running
            write_json(out_path, {"mode": mode, "seed": seed, "deals": deals, "budget": budget, "results": results})
    if as_json:
        click.echo(json.dumps(results))
        return
    unit = "games" if mode == "game" else "play phases"
    click.echo(f"duplicate {unit}, {deals} deals a pairing (each played twice, seats swapped), seed {seed}")
    width = max(len(x) for x in bots) + 2
    click.echo(f"  {'A':<{width}}{'B':<{width}}{'deals':>6}  {'A won':>6} {'drawn':>6} {'lost':>6}  "
               f"{'score A':>8}  {'95% CI':<18}  {'points A':>8}")
    for r in results:
        click.echo(
            f"  {str(r.get('a')):<{width}}{str(r.get('b')):<{width}}{r.get('deals', deals):>6}  "
            f"{r.get('wins', '-'):>6} {r.get('draws', '-'):>6} {r.get('losses', '-'):>6}  "
            f"{_fmt(r.get('score'), '+.3f'):>8}  {_ci(r.get('ci95')):<18}  {_fmt(r.get('points')):>8}"
        )
    if len(bots) > 2:
        click.echo("standing (mean score against the others):")
        for bot, mean in standings(results, bots).items():
            click.echo(f"  {bot:<{width}}{mean:+.3f}")
    click.echo("score: A's mean result (+1 won, 0 drawn, -1 lost) per deal over both seatings; 0 = equal;")
    click.echo("an interval that excludes 0 is a clear difference; points = (score + 1) / 2 (win 1, draw 1/2)")


command.help = inspect.cleandoc(command.help or "") + "\n\nKnown bots: " + ", ".join(sorted(BOTS))
