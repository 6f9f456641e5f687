"""`tacocat arena`: bots against bots in duplicate format
(`tacocat.players.match.run_match`), every pairing of the bots named, with a
results table, 95% confidence intervals, Elo and an optional SPRT; on this
machine or a Ray cluster (`tacocat.cli.backend`); `--out` saves every deal
as it finishes and a rerun resumes from it."""

from __future__ import annotations

import inspect
import itertools
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import click

from tacocat.cli.backend import cluster_options
from tacocat.cli.option_table import file_option, ranged_option
from tacocat.cli.search_options import CLOCK_HELP, search_options
from tacocat.cli.terminal import CliError, friendly_errors, progress_bar
from tacocat.players.bots import BOTS
from tacocat.players.cluster import Cluster, Stopped, check_reachable, stop_on_sigterm
from tacocat.players.match import Mode, parse_bot, run_match, standings
from tacocat.players.stats import SPRT
from tacocat.rules.files import read_json, write_json
from tacocat.rules.ruleset import STANDARD, load_ruleset

SAVE_EVERY = 0.5
"""Seconds between two saves of --out while deals finish."""


def _fmt(x, spec: str = ".3f") -> str:
    return format(x, spec) if isinstance(x, (int, float)) else "-"


def _ci(ci, spec: str = "+.3f", unbounded: tuple[str, str] = ("-", "-")) -> str:
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        lo = _fmt(ci[0], spec) if ci[0] is not None else unbounded[0]
        hi = _fmt(ci[1], spec) if ci[1] is not None else unbounded[1]
        return f"[{lo}, {hi}]"
    if isinstance(ci, (int, float)):
        return f"±{ci:.3f}"
    return "-"


def _elo(r) -> str:
    e = r.get("elo")
    text = _fmt(e, "+.0f") if e is not None else ("+inf" if r.get("score", 0) > 0 else "-inf")
    return f"{text} {_ci(r.get('elo_ci95'), '+.0f', ('-inf', '+inf'))}"


def _key(a: str, b: str) -> str:
    return f"{a} vs {b}"


def _label(a: str, b: str, live) -> str:
    """The progress bar's label: the running score, its interval, Elo and LLR."""
    if live is None:
        return _key(a, b)
    text = f"{_key(a, b)} {live.score:+.3f} [{live.ci95[0]:+.3f}, {live.ci95[1]:+.3f}] Elo {_fmt(live.elo, '+.0f')}"
    if live.sprt is not None:
        lo, hi = live.sprt["bounds"]
        text += f" LLR {live.sprt['llr']:+.2f} ({lo:+.2f}, {hi:+.2f})"
    return text


def _resume(out_path: str, header: dict) -> dict[str, dict[int, tuple[int, int]]]:
    """Deals already played by an earlier run with the same deals (mode,
    seed, budget), by pairing; nothing if the file does not exist."""
    if not out_path or not os.path.exists(out_path):
        return {}
    saved = read_json(out_path, "--out file")
    if not isinstance(saved, dict) or not isinstance(saved.get("outcomes"), dict):
        raise CliError(f"--out {out_path!r} is not a tacocat arena file (no 'outcomes'); give a new file name")
    for key in ("mode", "seed", "budget", "rules"):
        if saved.get(key) != header[key]:
            raise CliError(
                f"--out {out_path!r} holds a run with {key} {saved.get(key)!r}, not {header[key]!r}: "
                "give the same flags to resume it, or a new file name"
            )
    known: dict[str, dict[int, tuple[int, int]]] = {}
    try:
        for pairing, rows in saved["outcomes"].items():
            known[pairing] = {int(d): (int(x), int(y)) for d, x, y in rows}
    except (TypeError, ValueError):
        raise CliError(f"--out {out_path!r}: 'outcomes' must map 'A vs B' to [deal, first, second] rows") from None
    return known


def _resume_luck(out_path: str) -> dict[str, dict[int, tuple[float, float]]]:
    """A's luck corrections of the saved deals (mode game), by pairing, from
    the --out file `_resume` accepted.  A file written before the luck was
    saved has none: its deals count with correction 0 (still unbiased; the
    JSON's luck_adjusted.deals_without_luck says how many)."""
    if not out_path or not os.path.exists(out_path):
        return {}
    saved = read_json(out_path, "--out file").get("luck") or {}
    try:
        return {k: {int(d): (float(x), float(y)) for d, x, y in rows} for k, rows in saved.items()}
    except (TypeError, ValueError, AttributeError):
        raise CliError(f"--out {out_path!r}: 'luck' must map 'A vs B' to [deal, first, second] rows") from None


@click.command(name="arena")
@click.argument("bots", nargs=-1, metavar="BOT BOT [BOT...]")
@click.option(
    "--mode",
    type=click.Choice([Mode.GAME.value, Mode.PLAY.value]),
    default="game",
    show_default=True,
    help="game: whole games; play: the play phase alone, from dealt positions.",
)
@ranged_option(
    "--deals",
    click.IntRange(1),
    100,
    "Deals per pairing (each played twice, seats swapped); with --sprt the most to play.",
)
@search_options(seed="Seed of the deals: the same seed gives every pairing the same deals.")
@click.option(
    "--rules", "rules_path", default=None, help="Ruleset file (.json or .toml) of --mode game; standard by default."
)
@cluster_options
@search_options(
    time="Search time of the search bots, milliseconds per move.",
    iterations="Search budget of the search bots per move.",
    clock=CLOCK_HELP + " A match counts CPU by default.",
)
@click.option(
    "--sprt",
    "sprt_text",
    default=None,
    metavar="elo0=0,elo1=10,alpha=0.05,beta=0.05",
    help="Sequential test of each pairing (fishtest's form, normalized Elo): stop as soon as H0 "
    "(A is at most elo0 stronger) or H1 (at least elo1) is accepted.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print per-pairing results as JSON (a, b, deals, score, ci95, elo, ...) instead of the table.",
)
@file_option(
    "--out",
    "out_path",
    help="Save the results and every finished deal to this file as they finish (atomically); "
    "if it exists, resume: deals already in it are not played again.",
)
@friendly_errors
def command(
    bots,
    mode,
    deals,
    seed,
    rules_path,
    workers,
    cluster,
    batch,
    time_ms,
    iterations,
    clock,
    sprt_text,
    as_json,
    out_path,
):
    """Play bots against each other in duplicate format.

    Every deal is played twice with the seats swapped, so luck of the cards
    cancels out.  The score is bot A's mean result against bot B (+1 won,
    0 drawn, -1 lost), with a 95% confidence interval over the deals; 0
    means equal strength.  Beside it, A's Elo difference with its 95%
    interval (from the per-deal pair scores: the pentanomial, whose
    draw-only cells a game-mode match fills only with drawn games; see
    docs/cluster.md).  --mode game plays whole games (scored by the game's
    winner; a game that reaches the ruleset's max_deals deals without a
    winner is drawn, RULES §8; --rules FILE plays another ruleset);
    --mode play plays the play phase alone from 8-card deals (scored by
    the round's showdown).  With more
    than two bots every pairing is played.  A bot may carry its own budget:
    pimc@samples=50,seed=2.

    --sprt stops a pairing as soon as the sequential probability ratio test
    decides: H1 (A is at least elo1 normalized Elo stronger) or H0 (at most
    elo0), with error rates alpha and beta; the progress bar shows the
    running score, interval and log-likelihood ratio (LLR).

    Luck-adjusted: beside the raw score, each pairing gets the score with
    each game's luck of the cards (every deal and replacement draw, valued
    by a fixed reference fitted offline) subtracted, a correction of mean 0
    that leaves the expected score as it is (--mode game; in --mode play
    it equals the raw score).  Its interval is narrower between close bots
    (variance ratio, raw over adjusted, about 1.2-1.5 here) and can be wider
    in a lopsided pairing, whose results hardly depend on the cards (ratio
    below 1).  In --mode game --sprt tests the adjusted scores.

    What repeats: with counts (--iterations, or a bot's samples=...) the
    same seed gives the same numbers bit for bit on every backend and any
    number of workers.  With --time it cannot: a search stops when its
    clock says so, so the moves vary from run to run.  --clock cpu (the
    default) counts each bot's own CPU time, so a budget buys the same
    work on an idle or a loaded machine and two runs agree within their
    intervals; --clock wall counts elapsed time, which a busy machine
    shrinks.  Each side's real CPU and wall think time per decision is
    printed with the table.  Ctrl-C or SIGTERM stops cleanly: the table so far is printed
    and saved to --out; running the same command again resumes.

    \b
    Examples:
      tacocat arena heuristic random --deals 200
      tacocat arena pimc heuristic random --mode play --deals 40 --workers 2 --time 5
      tacocat arena pimc random --mode play --deals 2000 --time 2 --sprt elo0=0,elo1=10,alpha=0.05,beta=0.05
      tacocat arena pimc ismcts --deals 1000 --cluster ray --workers 8 --out run.json
      tacocat arena pimc ismcts --deals 4 --seed 1 --time 5 --json > results.json"""
    _check_bots(bots)
    if rules_path is not None and mode != Mode.GAME:
        raise CliError("--rules applies to --mode game; --mode play deals 8 cards from the standard deck")
    rules = load_ruleset(rules_path)
    backend = Cluster.parse(cluster, workers, batch)
    if backend.address:
        check_reachable(backend.address)
    sprt = SPRT.parse(sprt_text) if sprt_text is not None else None
    budget = _budget(bots, time_ms, iterations, clock)
    header = {
        "mode": mode,
        "seed": seed,
        "deals": deals,
        "budget": budget,
        "rules": None if rules == STANDARD else rules.to_dict(),
        "sprt": sprt.to_dict() if sprt else None,
        "backend": backend.describe(),
    }
    known = _resume(out_path, header)
    if known:
        click.echo(f"resuming from {out_path}: {sum(len(v) for v in known.values())} deals already played", err=True)
    known_luck = _resume_luck(out_path) if known else {}
    arena = _Arena(header, out_path, _rows_of(known), _rows_of(known_luck))
    match = {
        "deals": deals,
        "seed": seed,
        "mode": mode,
        "budget": budget or None,
        "cluster": backend,
        "sprt": sprt,
        "rules": None if rules == STANDARD else rules,
    }
    stopped = arena.play(list(itertools.combinations(bots, 2)), match, known, known_luck)
    arena.save(force=True)
    if stopped:
        click.echo(
            f"{stopped}: {len(arena.results)} pairing(s) shown, partial ones marked; "
            + (f"saved to {out_path}, run the same command to resume" if out_path else "give --out FILE to keep them"),
            err=True,
        )
    if as_json:
        click.echo(json.dumps(arena.results))
    else:
        _table(arena.results, bots, mode, deals, seed, sprt, rules)
    if stopped:
        sys.exit(143 if stopped == "terminated" else 130)


def _check_bots(bots: Sequence[str]) -> None:
    """At least two bots, each known, each spec readable, none named twice."""
    if len(bots) < 2:
        raise CliError(
            f"name at least two bots, e.g. tacocat arena heuristic random; known bots: {', '.join(sorted(BOTS))}"
        )
    unknown = [b for b in bots if b.partition("@")[0] not in BOTS]
    if unknown:
        raise CliError(f"unknown bot(s) {', '.join(unknown)}; expected some of {', '.join(sorted(BOTS))}")
    for b in bots:
        parse_bot(b)
    if len(set(bots)) != len(bots):
        raise CliError(f"a bot is named twice in {' '.join(bots)}; name each bot once")


def _budget(bots: Sequence[str], time_ms: float | None, iterations: int | None, clock: str) -> dict:
    """Every bot's budget of the flags; a clock only with a time."""
    budget: dict = {}
    if time_ms is not None:
        budget["time_ms"] = time_ms
    if time_ms is not None or any("time_ms" in parse_bot(b)[1] for b in bots):
        budget["clock"] = clock  # a count needs no clock: count runs resume as before
    if iterations is not None:
        budget["iterations"] = iterations
    return budget


def _rows_of(known: dict[str, dict[int, tuple]]) -> dict[str, list[list]]:
    """Finished deals by pairing as the --out file's rows: [deal, first, second]."""
    return {k: [[d, x, y] for d, (x, y) in sorted(v.items())] for k, v in known.items()}


@dataclass
class _Arena:
    """One run of the arena: its header (what a resumed --out file must
    agree with), every finished deal's outcome and luck by pairing, the
    pairings' results, and the file they are saved to."""

    header: dict
    out_path: str | None
    outcomes: dict[str, list[list]]
    luck: dict[str, list[list]]
    results: list[dict] = field(default_factory=list)
    saved_at: float = 0.0

    def save(self, force: bool = False) -> None:
        if self.out_path and (force or time.monotonic() - self.saved_at >= SAVE_EVERY):
            data = dict(self.header, results=self.results, outcomes=self.outcomes, luck=self.luck)
            write_json(self.out_path, data)
            self.saved_at = time.monotonic()

    def play(self, pairs: list[tuple[str, str]], match: dict, known: dict, known_luck: dict) -> str | None:
        """Every pairing in turn: None when all finished, else why the run
        stopped (Ctrl-C: "interrupted", SIGTERM: "terminated")."""
        try:
            with stop_on_sigterm():
                for a, b in pairs:
                    stopped = self.pairing(a, b, match, known.get(_key(a, b)), known_luck.get(_key(a, b)))
                    if stopped:
                        return stopped
        except KeyboardInterrupt as exc:  # between two pairings
            return "terminated" if isinstance(exc, Stopped) else "interrupted"
        return None

    def pairing(self, a: str, b: str, match: dict, known: Any, known_luck: Any) -> str | None:
        """One pairing played (its deals already known skipped), its deals
        saved as they finish: None, or why it stopped."""
        key = _key(a, b)
        rows = self.outcomes.setdefault(key, [])
        luck_rows = self.luck.setdefault(key, [])
        with progress_bar(key, match["deals"]) as bar:
            last = [0]

            def progress(done, total, live):
                bar.label = _label(a, b, live)
                bar.update(done - last[0])
                last[0] = done

            def on_deal(d, x, y, extra):
                rows.append([d, x, y])
                if match["mode"] == Mode.GAME:  # in mode play the luck cancels within the deal
                    luck_rows.append([d, *extra["luck"]])
                self.save()

            result = run_match(a, b, known=known, known_luck=known_luck, on_deal=on_deal, progress=progress, **match)
        rows.sort()
        luck_rows.sort()
        if result.retried:
            click.echo(f"{key}: {result.retried} batch(es) rerun after a worker died", err=True)
        if result.stopped in ("interrupted", "terminated"):
            if result.deals:
                self.results.append(dict(result.to_dict(), partial=True))
            return result.stopped
        self.results.append(result.to_dict())
        self.save(force=True)
        return None


SPENDS = (0.8, 1.2)
"""A bot whose mean CPU time a searched decision lies outside these shares
of its time budget is said not to spend it, or to overrun it."""


def _think_lines(results: list[dict]) -> list[str]:
    """Each side's real think time a searched decision (CPU and wall), and
    which side does not spend its time budget (a count caps it) or overruns it."""
    lines = []
    for r in results:
        think = r.get("think") or {}
        if not any((think.get(side) or {}).get("decisions") for side in ("a", "b")):
            continue
        parts, notes = [], []
        for side in ("a", "b"):
            spec, t = r.get(side, "?"), think.get(side) or {}
            if not t.get("decisions"):
                continue
            parts.append(f"{spec} {t['cpu_ms']:.1f} / {t['wall_ms']:.1f}")
            ms, clock = t.get("time_ms"), t.get("clock")
            if ms is None:  # no time budget, or a bot that does not search
                continue
            spent = (t["cpu_ms"] if clock == "cpu" else t["wall_ms"]) / ms
            if spent < SPENDS[0]:
                notes.append(
                    f"{spec} spends {spent:.0%} of its {ms:g} ms {clock} budget "
                    "(a count or an exact answer ends its search first)"
                )
            elif spent > SPENDS[1]:
                notes.append(f"{spec} overruns its {ms:g} ms {clock} budget ({spent:.0%})")
        lines.append(f"  think ms a searched decision (CPU / wall), {r.get('a')} vs {r.get('b')}: " + ", ".join(parts))
        lines.extend(f"    {n}" for n in notes)
    return lines


def _tested(r: dict, mode: str) -> dict:
    """The scores a pairing's SPRT tested: the luck-adjusted ones in mode game."""
    return (r.get("luck_adjusted") or r) if mode == Mode.GAME else r


def _luck_line(adj: dict, width: int) -> str:
    """A pairing's second row: the luck-adjusted score under the raw one's
    columns, and how many times smaller its per-deal variance is."""
    score = adj.get("score")
    points = (score + 1) / 2 if isinstance(score, (int, float)) else None
    ratio = adj.get("variance_ratio")
    return (
        f"  {'':<{2 * width}}{'luck-adjusted':>28}  {_fmt(score, '+.3f'):>8}  {_ci(adj.get('ci95')):<18}  "
        f"{_fmt(points):>8}  {_elo(adj):<20}  variance ratio {_fmt(ratio, '.2f')}"
    )


def _table(results: list[dict], bots, mode: str, deals: int, seed: int, sprt: SPRT | None, rules=STANDARD) -> None:
    unit = "games" if mode == Mode.GAME else "play phases"
    click.echo(
        f"duplicate {unit}, {deals} deals a pairing (each played twice, seats swapped), seed {seed}"
        + (f", ruleset {rules.name} (max_deals {rules.max_deals})" if rules != STANDARD else "")
    )
    width = max(len(x) for x in bots) + 2
    click.echo(
        f"  {'A':<{width}}{'B':<{width}}{'deals':>6}  {'A won':>6} {'drawn':>6} {'lost':>6}  "
        f"{'score A':>8}  {'95% CI':<18}  {'points A':>8}  {'Elo A [95% CI]':<20}"
    )
    for r in results:
        click.echo(_pairing_row(r, width, deals))
        if mode == Mode.GAME and r.get("luck_adjusted"):
            click.echo(_luck_line(r["luck_adjusted"], width))
    if any(r.get("partial") for r in results):
        click.echo("  * stopped before the end: the deals finished so far")
    for line in _think_lines(results):
        click.echo(line)
    if sprt is not None:
        for line in _sprt_lines(results, sprt, mode):
            click.echo(line)
    if len(bots) > 2 and results:
        click.echo("standing (mean score against the others):")
        for bot, mean in standings(results, bots).items():
            click.echo(f"  {bot:<{width}}{mean:+.3f}")
    if mode == Mode.GAME and any(r.get("draws") for r in results):
        click.echo(f"drawn: games that reached max_deals ({rules.max_deals}) deals without a winner (RULES §8)")
    for line in _legend(mode):
        click.echo(line)


def _pairing_row(r: dict, width: int, deals: int) -> str:
    """A pairing's row: its bots, deals (* when stopped early), results, score, interval, points and Elo."""
    mark = "*" if r.get("partial") else ""
    return (
        f"  {str(r.get('a')):<{width}}{str(r.get('b')):<{width}}{str(r.get('deals', deals)) + mark:>6}  "
        f"{r.get('wins', '-'):>6} {r.get('draws', '-'):>6} {r.get('losses', '-'):>6}  "
        f"{_fmt(r.get('score'), '+.3f'):>8}  {_ci(r.get('ci95')):<18}  {_fmt(r.get('points')):>8}  {_elo(r):<20}"
    )


def _sprt_lines(results: list[dict], sprt: SPRT, mode: str) -> list[str]:
    """The SPRT's bounds, and each pairing's verdict."""
    lo, hi = sprt.bounds
    on = ", on the luck-adjusted scores" if mode == Mode.GAME else ""
    lines = [f"SPRT {sprt} (normalized Elo of A over B{on}), LLR bounds ({lo:+.2f}, {hi:+.2f}):"]
    verdicts = {
        "H1": f"H1 accepted: A is at least {sprt.elo1:g} stronger",
        "H0": f"H0 accepted: A is at most {sprt.elo0:g} stronger",
    }
    for r in results:
        test = r.get("sprt") or {}
        text = verdicts.get(str(test.get("verdict")), "undecided")
        lines.append(
            f"  {r['a']} vs {r['b']}: {text} after {r['deals']} deals, LLR {_fmt(test.get('llr'), '+.2f')}, "
            f"normalized Elo {_fmt(_tested(r, mode).get('nelo'), '+.0f')}"
        )
    return lines


def _legend(mode: str) -> list[str]:
    """What the table's columns mean."""
    lines = [
        "score: A's mean result (+1 won, 0 drawn, -1 lost) per deal over both seatings; 0 = equal;",
        "an interval that excludes 0 is a clear difference; points = (score + 1) / 2 (win 1, draw 1/2);",
        "Elo: the logistic Elo difference of the points, interval from the per-deal pair scores",
    ]
    if mode == Mode.GAME:
        return lines + [
            "luck-adjusted: each game's result less its luck of the cards (every deal and replacement draw",
            "valued by a fixed reference; mean 0, so the same expected score with less noise);",
            "variance ratio: raw over adjusted per-deal variance (how many times fewer deals it needs)",
        ]
    return lines + ["luck-adjusted = raw in --mode play: the deal, its only luck, is the same in both seatings"]


command.help = inspect.cleandoc(command.help or "") + "\n\nKnown bots: " + ", ".join(sorted(BOTS))
