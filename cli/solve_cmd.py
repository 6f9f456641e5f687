"""`tacocat solve`: exact answers in the play phase (R10–R17).

- every card known (`--hands P0 P1`, or JSON Lines with `--json`): the value,
  each legal move's value and a principal variation (`tacocat.core.exact`);
- an exact endgame (`--hand` and what you have seen): every opponent hand
  enumerated with its exact probability and solved with both hands known,
  each move's exact win/draw/loss odds, and lines of play for the best move
  (`tacocat.search.endgame`).

Parses flags or JSON Lines, calls the solver, formats."""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TextIO

import click

from tacocat.cli.backend import cluster_options
from tacocat.cli.position_options import position_options
from tacocat.cli.search_options import search_options
from tacocat.cli.terminal import (
    CliError,
    Progress,
    describe_view,
    format_action,
    format_hint,
    friendly_errors,
    parse_board,
    require_decision,
    view_from_flags,
)
from tacocat.core.exact import DEFAULT_UTILITIES, PVStep, Solver, SolveResult, position_from_dict, result_to_dict
from tacocat.errors import NotationError, RecordError, TacocatError
from tacocat.players.cluster import Cluster, Stopped, check_reachable, ordered, run_tasks, stop_on_sigterm
from tacocat.rules.cards import format_cards, parse_cards
from tacocat.rules.files import loads_json
from tacocat.rules.play import PlayPosition
from tacocat.rules.ruleset import Ruleset, load_ruleset
from tacocat.rules.views import View
from tacocat.search.endgame import DEFAULT_LINES, DEFAULT_MAX_HANDS, EndgameResult, EnumerationTooLarge, solve_endgame
from tacocat.search.hint import EXACT_LIMIT


def parse_utilities(text: str | None) -> tuple:
    """'1 0 -1' or '1,0.5,0' -> three numbers (ints where written as ints)."""
    if text is None:
        return DEFAULT_UTILITIES
    tokens = [t for t in re.split(r"[\s,]+", text.strip().strip("[]")) if t]
    values: list[float | int] = []
    for t in tokens:
        try:
            values.append(int(t))
        except ValueError:
            try:
                values.append(float(t))
            except ValueError:
                raise NotationError(
                    f'--utilities: {t!r} is not a number; expected three numbers win draw loss, e.g. "1 0 -1"'
                ) from None
    if len(values) != 3:
        raise NotationError(
            f"--utilities: expected three numbers (player 0's worth of win, draw, loss), got {len(values)}"
        )
    return tuple(values)


def error_dict(exc: TacocatError) -> dict:
    """The JSON form of a user error: stable code, message, rule."""
    return {"code": exc.code, "message": str(exc), "rule": exc.rule}


def _value_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:+}" if isinstance(value, (int, float)) and value != 0 else str(value)


def _verb(name: str, verb: str) -> str:
    return f"{name} {verb}" if name == "you" else f"{name} {verb}s"


def line_of_play(
    steps: Sequence[PVStep], showdown: tuple[int, int] | None, names: tuple[str, str], order: tuple[int, int] = (0, 1)
) -> str:
    """A line of play as one readable line: tricks separated by "; ", each
    "X attacks C, Y answers D (beats|sacrifice)", then the showdown.
    `names[p]` names player p ("you" takes the plain verb); `showdown`
    holds player 0's and player 1's last cards, shown in the player order
    `order`."""
    parts: list[str] = []
    trick = ""
    for step in steps:
        player, cards, beats = step.player, step.cards, step.beats
        if beats is None:
            if trick:
                parts.append(trick)
            trick = f"{_verb(names[player], 'attack')} {format_cards(cards)}"
        else:
            answer = f"{_verb(names[player], 'answer')} {format_cards(cards)} ({'beats' if beats else 'sacrifice'})"
            parts.append(f"{trick}, {answer}" if trick else answer)
            trick = ""
    if trick:
        parts.append(trick)
    if showdown is not None:
        first, second = order
        a, b = showdown[first], showdown[second]
        if a == b:
            verdict = "drawn round"
        else:
            winner = names[first] if a < b else names[second]
            verdict = _verb(winner, "win")
        parts.append(f"showdown {a} v {b}: {verdict}")
    return "; ".join(parts)


def format_result(result: SolveResult) -> str:
    """The human form: position, value, every move's value, the line of play."""
    pos = result.position
    lines = [str(pos)]
    u = result.utilities
    outcome = {"win": "player 0 wins the round", "draw": "the round is drawn", "loss": "player 1 wins the round"}
    tail = f" ({outcome[result.outcome]} under best play)" if result.outcome else ""
    lines.append(
        f"value {_value_text(result.value)}{tail}   [player 0's utilities: win {u[0]}, draw {u[1]}, loss {u[2]}]"
    )
    if result.moves is not None:
        lines += _moves_lines(result)
    if result.pv or result.showdown:
        lines += _pv_lines(result)
    t = result.tt
    rate = f" ({100 * t.hit_rate:.0f}%)" if t.probes else ""
    lines.append(
        f"{result.nodes} nodes in {1000 * result.seconds:.2f} ms; table: {t.probes} probes, {t.hits} hits{rate}, "
        f"{t.stores} stores, {t.entries} entries"
    )
    return "\n".join(lines)


def _moves_lines(result: SolveResult) -> list[str]:
    """Every move of the player to move, with its value, the best starred."""
    pos = result.position
    mover = pos.to_move
    if not result.moves:
        return ["no moves: both hold one card, showdown (R17)"]
    what = f"answers of P{mover} to {format_cards(pos.table)}" if pos.table else f"attacks of P{mover}"
    lines = [f"{what} (value for player 0; * best for P{mover}):"]
    width = max(len(format_cards(m.cards)) for m in result.moves) + (10 if pos.table else 0)
    for m in result.moves:
        label = format_cards(m.cards)
        if m.beats is not None:
            label += " beat" if m.beats else " sacrifice"
        star = "*" if m.value == result.value else " "
        lines.append(f"  {star} {label:<{width}}  {_value_text(m.value)}")
    return lines


def _pv_lines(result: SolveResult) -> list[str]:
    """The principal variation trick by trick, its showdown, and the line of play."""
    pos = result.position
    lines = ["principal variation:"]
    trick: list[str] = [f"(P{pos.attacker} attacked {format_cards(pos.table)})"] if pos.table else []
    n = 0
    for step in result.pv:
        trick.append(str(step))
        if step.beats is not None:
            n += 1
            lines.append(f"  {n}. " + ", ".join(trick))
            trick = []
    if trick:
        lines.append(f"  {n + 1}. " + ", ".join(trick))
    if result.showdown:
        a, b = result.showdown
        verdict = "P0 wins (lower card)" if a < b else "P1 wins (lower card)" if a > b else "drawn round"
        lines.append(f"  showdown: P0 {a}, P1 {b}: {verdict} (R17)")
    table = [PVStep(pos.attacker, pos.table, None)] if pos.table else []
    lines.append("  line: " + line_of_play(table + list(result.pv), result.showdown, ("P0", "P1")))
    return lines


def _solve_line(
    number: int, line: str, rules: Ruleset, utilities: tuple | None, solver: Solver, value_only: bool
) -> dict:
    """The JSON result of one input line (an error object for a bad one)."""
    try:
        try:
            data = loads_json(line)
        except ValueError as exc:
            raise RecordError(
                f"line {number} is not valid JSON ({exc}); expected one position object per line"
            ) from None
        if utilities is not None and isinstance(data, dict) and data.get("utilities") is None:
            data = dict(data, utilities=list(utilities))
        position, utils = position_from_dict(data, rules)
        return result_to_dict(solver.solve(position, utils, moves=not value_only))
    except TacocatError as exc:
        return {"error": error_dict(exc), "line": number}


def _json_lines(stream: TextIO, rules: Ruleset, utilities: tuple | None, solver: Solver, value_only: bool) -> int:
    """Solve one position per line; print one JSON object per line; return
    how many lines failed."""
    failed = 0
    with Progress("solving positions", total=_lines_in(stream)) as progress:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            out = _solve_line(number, line, rules, utilities, solver, value_only)
            failed += "error" in out
            with progress.paused():
                click.echo(json.dumps(out))
            progress.update(1)
    return failed


def _lines_in(stream: TextIO) -> int | None:
    """The positions (non-blank lines) of a file, read once ahead for the
    progress bar's total; None for a stream that cannot be read twice (stdin)."""
    try:
        if not stream.seekable():
            return None
        start = stream.tell()
        total = sum(1 for line in stream if line.strip())
        stream.seek(start)
    except (OSError, ValueError):
        return None
    return total or None


_WORKER_SOLVER: dict = {}


def _solve_task(item) -> tuple[bool, str]:
    """One line on a worker (`tacocat.players.cluster.run_tasks`): (failed,
    the JSON text), encoded there so that the driver only prints; one
    solver a worker process."""
    number, line, rules, utilities, tt_mb, value_only = item
    if _WORKER_SOLVER.get("tt_mb") != tt_mb:
        _WORKER_SOLVER.update(tt_mb=tt_mb, solver=Solver(tt_mb, keep_tt=False))
    out = _solve_line(number, line, rules, utilities, _WORKER_SOLVER["solver"], value_only)
    return "error" in out, json.dumps(out)


def _json_lines_on(
    cluster: Cluster, stream: TextIO, rules: Ruleset, utilities: tuple | None, tt_mb: float, value_only: bool
) -> int:
    """`_json_lines` on a backend: the lines are solved in batches by
    workers and printed in input order as soon as each is ready.  Ctrl-C
    or SIGTERM stops after the lines printed so far (exit 130 / 143)."""
    items = [
        (number, line, rules, utilities, tt_mb, value_only) for number, line in enumerate(stream, 1) if line.strip()
    ]
    failed = 0
    try:
        with (
            stop_on_sigterm(),
            Progress("solving positions", total=len(items)) as progress,
            contextlib.closing(run_tasks(_solve_task, items, cluster)) as results,
        ):
            for _, (bad, text) in ordered(results):
                failed += bad
                with progress.paused():
                    click.echo(text)
                progress.update(1)
    except KeyboardInterrupt as exc:
        click.echo("stopped: the lines printed so far are complete", err=True)
        sys.exit(143 if isinstance(exc, Stopped) else 130)
    return failed


def format_endgame(result: EndgameResult) -> str:
    """The human form of an exact endgame: the view, every move's exact
    odds, and lines of play for the best move."""
    view = result.view
    names = ["", ""]
    names[view.player], names[1 - view.player] = "you", "the opponent"
    out = [describe_view(view, names)]
    out.append(
        f"exact: all {result.hands} possible opponent hands enumerated (RULES §5, R20), each weighted by its exact "
        f"probability and solved with both hands known, {result.seconds:.2f} s"
    )
    table = format_hint(result.result).splitlines()
    out.extend(table[1:] if table and table[0].startswith("method:") else table)
    if list(result.result.utilities) == [1.0, 0.0, -1.0]:
        out.append(
            "scoring: the round alone, solve's default for an endgame; tacocat hint scores the game by "
            "default (the same odds, other values): --score game ranks as hint does"
        )
    best = result.best.action
    n = result.best_hands
    out.append(
        f"{format_action(best)} against the {result.hands} hands: wins vs {n['win']}, draws vs {n['draw']}, "
        f"loses vs {n['loss']}"
    )
    if result.lines:
        out.append(f"principal variation: {format_action(best)}, then both play perfectly with every card known:")
        short = ["", ""]
        short[view.player], short[1 - view.player] = "you", "opponent"
        order = (view.player, 1 - view.player)
        for line in result.lines:
            mine, theirs = line.showdown
            showdown = (mine, theirs) if view.player == 0 else (theirs, mine)
            p = float(line.probability)
            out.append(
                f"  vs {format_cards(line.opponent)} (p={p:.3g}): "
                + line_of_play(line.steps, showdown, (short[0], short[1]), order)
            )
    return "\n".join(out)


EPILOG = """\b
Examples: every card known (--hands)
  # player 0 attacks; who wins with best play, and what does each attack give?
  tacocat solve --hands "2 5 7 9 11 12" "1 3 8 8 10 12" --attacker 0
  # player 0 laid 8 8 and still holds 2 5 7 9; player 1 must answer
  tacocat solve --hands "2 5 7 9" "1 3 8 10 11 12" --attacker 0 --table "8 8"
  # a drawn round is worth half a win to player 0
  tacocat solve --hands "3 9" "4 8" --attacker 1 --utilities "1 0.5 0"
  # JSON Lines: one position per line in, one result per line out
  echo '{"hands": [[2, 9], [3, 8]], "attacker": 0, "table": []}' | tacocat solve --json
  # a file of such lines (here two positions), the results in input order
  printf '%s\\n' '{"hands": [[2, 9], [3, 8]], "attacker": 0}' '{"hands": [[3, 9], [4, 8]], "attacker": 1}' > cases.jsonl
  tacocat solve --json cases.jsonl > results.jsonl
  tacocat solve --json cases.jsonl --workers 2 > results.jsonl
  tacocat solve --json cases.jsonl --cluster ray --workers 8 > results.jsonl

\b
Examples: exact endgame (--hand: only your cards and what you have seen)
  # I attack with 2 9 10; 1 3 5 7 were seen; the opponent holds 3 cards
  tacocat solve --hand "2 9 10" --seen "1 3 5 7" --opponent 3 --attacker 0
  # player 1 attacked with an 8; I am player 0 and must answer
  tacocat solve --hand "2 9 10" --seen "1 3 5 7" --opponent 2 --attacker 1 --table 8
  # I am player 1; score by the game equity of the board; JSON out
  tacocat solve --hand "4 6 11" --seen "2 2 9" --player 1 --attacker 1 \\
      --board "cat=2 covered=3" --score game --json
  # five lines of play, a bigger enumeration budget
  tacocat solve --hand "1 4 6 9 12" --seen "3 3" --lines 5 --max-hands 50000

\b
Examples: equilibrium endgame (--equilibrium: hidden hands to the end)
  # three cards each, 15 unseen: under a second
  tacocat solve --equilibrium --hand "2 9 10" --seen "1 1 3 3 3 4 4 5 5 6 6 7 7 8 8 9 11 11 12 12"
  # four cards each, 24 unseen: about half a second (2 s with 34 unseen);
  # stderr shows the tree's size, then each CFR check's exploitability
  tacocat solve --equilibrium --hand "2 5 9 11" --seen "1 1 3 3 3 4 4 4 12 12"
  # stop after 5 s, or at a looser exploitability, with the answer so far
  # (for bigger endgames: this one is solved before either)
  tacocat solve --equilibrium --hand "2 5 9 11" --seen "1 1 3 3 3 4 4 4 12 12" --time 5000
  tacocat solve --equilibrium --hand "2 5 9 11" --seen "1 1 3 3 3 4 4 4 12 12" --exploitability 0.01

\b
Every card known (--hands):
  --hands gives player 0's cards, then player 1's.  Without --table both
  hold the same number and the attacker is to attack (R10).  With --table
  the attacker has laid those cards (they are not in its hand any more)
  and the other player is to answer (R12).
Values are player 0's: +1 win, 0 drawn round, -1 loss by default; player 1
minimises.  A move's value is the position's value after it.  In the
principal variation "sacrifices with" marks an answer where at least one
card does not beat (the attacker wins the trick, R13); the "line:" row
reads the same variation as one line of play.
JSON input keys: hands, attacker, table, optional utilities and rules (the
conformance-case shape); output keys: value, outcome, moves (cards, beats on
answers, value), pv, showdown, nodes, seconds, tt.  A bad line gives
{"error": {"code", "message", "rule"}, "line": N}; the rest still run, and
the exit status is 2 if any line failed.  --workers N solves the lines in N
local processes, --cluster ray (or a Ray address) on a Ray cluster; the
output is the same, in input order (only "seconds" differs).

\b
Exact endgame (--hand):
  Give your hand, the face-up cards of this round (--seen: replacement
  discards, duel cards, earlier attacks and answers; not the --table),
  the opponent's hand size now (--opponent; default: what the rules
  imply), who attacks (--attacker; default the opponent with --table,
  else you) and which player you are (--player, default 0).  Every hand
  the opponent can hold (RULES section 5) is enumerated with its exact
  probability and solved with both hands known; each move gets its exact
  win/draw/loss odds and expected value, from your side: +1 won, 0 drawn,
  -1 lost by default (--utilities "W D L" gives your own worth, --score
  game the game equity of the board --board "cat=N covered=A,B" each
  outcome leads to).  "Exact" assumes both play perfectly after the move,
  as if every card were known.  More than --max-hands possible hands
  (default 20000, at most 200000) is refused: use tacocat hint, which
  samples.  The principal variation plays the best move against the most
  likely opponent hands (at least one per outcome the best move can have,
  --lines of them) and shows each line of play.  --json prints one object:
  method, exact, hands, moves (kind, cards, beats on answers, win, draw,
  loss, value, game_win), best, best_hands, pv (opponent, probability,
  fraction, steps, showdown as [yours, theirs], outcome).

\b
Equilibrium endgame (--equilibrium --hand):
  The same flags as the exact endgame, solved as the round is really
  played: neither side sees the other's cards to the end (CFR to an
  exploitability of --exploitability, default 0.001, or until --time).
  Hands of at most 6 cards; the public tree of every hand and move must
  fit in memory, which in practice means up to 4 or 5 cards a hand, fewer
  the more cards are unseen.  On stderr a progress line says when the
  tree is built (its size) and then each check's exploitability; the
  answer goes to stdout.  --history (R20) narrows both hands."""


ENDGAME_ONLY = ("--seen", "--history", "--opponent", "--player", "--board", "--max-hands", "--lines", "--score")


@click.command(name="solve", epilog=EPILOG)
@click.option(
    "--hands",
    nargs=2,
    default=None,
    metavar="P0 P1",
    help='Every card known: player 0\'s hand, then player 1\'s, e.g. "2 5 9" "3 8 11".',
)
@position_options(
    hand='Exact endgame: only your hand, e.g. "2 9 10"; the opponent\'s is enumerated.',
    seen="Endgame: every face-up card of this round not on the table.",
    history='Endgame: this round\'s attacks and answers so far, e.g. "p1 attacks 11; p0 answers 6 sacrifice" '
    "(R20: only opponent hands consistent with it are enumerated).",
    opponent="Endgame: cards in the opponent's hand now (default: what the rules imply).",
    attacker="Who attacks this trick (with --table: who laid it).  "
    "--hands: default 0; --hand: default the opponent with --table, else you.",
    table='An attack on the table that the other player must answer, e.g. "8 8".',
    player="Endgame: which player you are (default 0).",
    board='Endgame: the board, "cat=3 covered=2,4" (default: cat on the centre, nothing covered).',
)
@click.option(
    "--max-hands",
    type=int,
    default=None,
    help="Endgame: refuse to enumerate more possible opponent hands than this "
    f"(default {DEFAULT_MAX_HANDS}, at most {EXACT_LIMIT}).",
)
@click.option(
    "--lines",
    "pv_lines",
    type=int,
    default=None,
    help=f"Endgame: opponent hands shown in the principal variation (default {DEFAULT_LINES}).",
)
@click.option(
    "--score",
    type=click.Choice(["round", "game"]),
    default=None,
    help="Endgame: round = +1/0/-1 for the round (default); game = the game equity of the board it leads to.",
)
@click.option(
    "--utilities",
    default=None,
    metavar='"W D L"',
    help='The worth of a won, drawn, lost round: player 0\'s with --hands, yours with --hand (default "1 0 -1").',
)
@click.option(
    "--rules",
    "rules_path",
    default=None,
    help="Ruleset file (.json or .toml) for the deck counts (R1); standard by default.",
)
@click.option(
    "--json",
    "json_path",
    is_flag=False,
    flag_value="-",
    default=None,
    metavar="[FILE|-]",
    help="--hands: read positions as JSON Lines from FILE (or stdin: '-' or no value), "
    "write one JSON result per line.  --hand: print the answer as one JSON object.",
)
@click.option(
    "--value-only",
    is_flag=True,
    help="--hands: skip every move's value (faster): the value and the principal variation only.",
)
@click.option(
    "--tt-mb",
    type=click.FloatRange(min=0.001),
    default=1,
    show_default=True,
    help="--hands: transposition table size in MB.",
)
@click.option(
    "--equilibrium",
    is_flag=True,
    help="--hand: solve the endgame as really played, hidden hands and all (CFR to an equilibrium), "
    "instead of the double-dummy average; --history gives each hand's floor (R20).",
)
@click.option(
    "--exploitability",
    "target",
    type=click.FloatRange(min=0),
    default=None,
    help="--equilibrium: stop at this exploitability, in utility units (default 0.001).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 16),
    default=None,
    help="--equilibrium: threads the solve runs on (default: every core this process may use); "
    "the answer is the same on any number.",
)
@search_options(
    time={
        "type": click.FloatRange(min=1),  # the equilibrium solve takes any time, not whole ms
        "help": "--equilibrium: stop after this many milliseconds (the best answer so far is printed).",
    }
)
@cluster_options
@friendly_errors
def command(
    hands,
    hand,
    seen,
    history,
    opponent,
    attacker,
    table,
    player,
    board_text,
    max_hands,
    pv_lines,
    score,
    utilities,
    rules_path,
    json_path,
    value_only,
    tt_mb,
    workers=1,
    cluster=None,
    batch=0,
    equilibrium=False,
    target=None,
    time_ms=None,
    threads=None,
):
    """Solve a play-phase position exactly: every card known, or an endgame.

    \b
    Two modes:
      --hands P0 P1   every card known: the value for player 0, every legal
                      move's value and a principal variation to the showdown
                      (alpha-beta with a transposition table, R10-R17);
      --hand H        an exact endgame: only your hand and the cards you have
                      seen; every opponent hand is enumerated with its exact
                      probability and solved with both hands known, giving
                      each move's exact win/draw/loss odds, and lines of play
                      for the best move against the likeliest opponent hands.
    """
    if hands is not None and hand is not None:
        raise CliError(
            "give either --hands P0 P1 (every card known) or --hand (your cards; the opponent's "
            "are enumerated), not both"
        )
    rules = load_ruleset(rules_path)
    _check_equilibrium_budget(hand, equilibrium, target, time_ms, threads)
    endgame = EndgameFlags(hand, seen, history, opponent, attacker, table, player, board_text, score, utilities, rules)
    if equilibrium:
        _check_equilibrium_flags(hand, max_hands, pv_lines, value_only)
        _equilibrium(endgame, json_path, target, time_ms, threads)
        return
    if (workers, cluster, batch) != (1, None, 0) and (json_path is None or hand is not None):
        raise CliError(
            "--workers, --cluster and --batch spread a batch of positions: give them with --hands "
            "positions as JSON Lines (--json FILE)"
        )
    if hand is not None:
        _endgame(endgame, json_path, max_hands, pv_lines, value_only)
        return
    endgame_values = (seen, history, opponent, player, board_text, max_hands, pv_lines, score)
    given = [name for name, value in zip(ENDGAME_ONLY, endgame_values, strict=True) if value is not None]
    if given:
        raise CliError(
            f"{', '.join(given)}: only for an exact endgame; give --hand (your cards) instead of --hands, or drop them"
        )
    utils = parse_utilities(utilities) if utilities is not None else None
    solver = Solver(tt_mb, keep_tt=False)
    backend = Cluster.parse(cluster, workers, batch)
    if backend.address:
        check_reachable(backend.address)
    if json_path is not None:
        _check_batch_flags(hands, attacker, table)

        def batch_lines(stream: TextIO) -> int:
            if backend == Cluster():
                return _json_lines(stream, rules, utils, solver, value_only)
            return _json_lines_on(backend, stream, rules, utils, tt_mb, value_only)

        if _positions_read(json_path, batch_lines):
            sys.exit(2)
        return
    if hands is None:
        raise CliError(
            'give both hands, e.g. --hands "2 5 9" "3 8 11" --attacker 0 (or --json to read JSON Lines), '
            'or only yours for an exact endgame, e.g. --hand "2 9 10" --seen "1 3"; see tacocat solve --help'
        )
    h0 = parse_cards(hands[0], "--hands (player 0)")
    h1 = parse_cards(hands[1], "--hands (player 1)")
    position = PlayPosition((h0, h1), 0 if attacker is None else attacker, parse_cards(table, "--table"), rules)
    result = solver.solve(position, utils or DEFAULT_UTILITIES, moves=not value_only)
    click.echo(format_result(result))


def _check_equilibrium_budget(hand, equilibrium: bool, target, time_ms, threads) -> None:
    """The equilibrium's budget only with --equilibrium; --tt-mb not with --hand."""
    if not equilibrium and (target is not None or time_ms is not None or threads is not None):
        flag = "--time" if time_ms is not None else "--exploitability" if target is not None else "--threads"
        raise CliError(f"{flag} budgets --equilibrium: add --equilibrium (with --hand), or drop {flag}")
    if (
        hand is not None
        and click.get_current_context().get_parameter_source("tt_mb") != click.core.ParameterSource.DEFAULT
    ):
        raise CliError(
            "--tt-mb sizes the table of --hands (every card known); --hand enumerates hands with its "
            "own tables: drop --tt-mb"
        )


def _check_equilibrium_flags(hand, max_hands, pv_lines, value_only: bool) -> None:
    """--equilibrium solves your endgame: --hand, none of the double-dummy flags."""
    if hand is None:
        raise CliError(
            "--equilibrium solves an endgame from your side: give --hand (your cards), e.g. "
            '--equilibrium --hand "2 9 10" --seen "1 3"'
        )
    if max_hands is not None or pv_lines is not None or value_only:
        raise CliError("--max-hands, --lines and --value-only belong to the double-dummy endgame, not --equilibrium")


def _check_batch_flags(hands, attacker, table) -> None:
    """--json positions carry their own hands, attacker and table."""
    if hands is not None:
        raise CliError("give positions either with --hands or with --json, not both")
    given = [name for name, value in (("--attacker", attacker), ("--table", table)) if value not in (None, "")]
    if given:
        raise CliError(
            f"{' and '.join(given)} {'belongs' if len(given) == 1 else 'belong'} to --hands; "
            "each JSON Lines position carries its own "
            f"(keys attacker, table): drop {', '.join(given)}"
        )


def _positions_read(json_path: str, batch_lines: Callable[[TextIO], int]) -> int:
    """The positions of --json (a file, or "-" for stdin) solved: how many lines failed."""
    if json_path == "-":
        return batch_lines(sys.stdin)
    try:
        with open(json_path, encoding="utf-8") as stream:
            return batch_lines(stream)
    except OSError as exc:
        raise RecordError(f"cannot read positions file {json_path!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"positions file {json_path!r} is not a text file; expected JSON Lines") from None


@dataclass(frozen=True)
class EndgameFlags:
    """The flags that say an endgame position from your side, shared by the
    exact (`--hand`) and the equilibrium (`--equilibrium --hand`) solves."""

    hand: str
    seen: str | None
    history: str | None
    opponent: int | None
    attacker: int | None
    table: str
    player: int | None
    board_text: str | None
    score: str | None
    utilities: str | None
    rules: Ruleset

    def utility(self) -> tuple | str:
        """--utilities "W D L" parsed, else the --score word (round by default)."""
        if self.utilities is not None and self.score is not None:
            raise CliError('give either --utilities "W D L" or --score, not both')
        return parse_utilities(self.utilities) if self.utilities is not None else (self.score or "round")

    def view(self) -> View:
        """The view these flags describe; refused unless it is a decision."""
        view = view_from_flags(
            hand=self.hand,
            seen=self.seen,
            table=self.table,
            opponent=self.opponent,
            attacker=self.attacker,
            player=0 if self.player is None else self.player,
            board=parse_board(self.board_text),
            rules=self.rules,
            history=self.history,
        )
        require_decision(view)
        return view


def _endgame(endgame: EndgameFlags, json_path, max_hands, pv_lines, value_only) -> None:
    """Parse the endgame flags, call `tacocat.search.endgame.solve_endgame`, print."""
    if json_path is not None and json_path != "-":
        raise CliError(
            f"with --hand, --json prints the answer as JSON and reads no file (got {json_path!r}); give --json alone"
        )
    if value_only:
        raise CliError("--value-only applies to --hands (every card known); an endgame lists every move's odds")
    if max_hands is None:
        max_hands = DEFAULT_MAX_HANDS
    elif not 1 <= max_hands <= EXACT_LIMIT:
        raise CliError(f"--max-hands must be 1..{EXACT_LIMIT}, got {max_hands}")
    if pv_lines is None:
        pv_lines = DEFAULT_LINES
    elif pv_lines < 0:
        raise CliError(f"--lines must be 0 or more, got {pv_lines}")
    util = endgame.utility()
    view = endgame.view()
    try:
        with Progress("enumerating opponent hands") as progress:
            result = solve_endgame(view, max_hands=max_hands, utilities=util, lines=pv_lines, progress=progress)
    except EnumerationTooLarge as exc:
        raise CliError(
            f"the opponent may hold {exc.hands} distinct hands, more than --max-hands {exc.budget}: raise --max-hands "
            f"(at most {EXACT_LIMIT}) or sample with tacocat hint and the same flags"
        ) from None
    if json_path is not None:
        click.echo(json.dumps(result.to_dict()))
        return
    click.echo(format_endgame(result))


class EquilibriumProgress:
    """`solve --equilibrium`'s progress on stderr (a `Progress`), as the
    `info` callback of `tacocat.search.equilibrium.solve`: sizing and
    building the tree (its size said in a line of its own once built),
    then each CFR check's exploitability against the target, with the
    fraction done and the time left that the checks so far predict
    (`equilibrium_time_left`).  On a terminal a bar is redrawn five times a
    second, so a 5-card solve's long first iterations show the clock
    running; elsewhere (a pipe, a log) a line every few seconds."""

    def __init__(self, target: float, time_ms: float | None = None) -> None:
        self.target = target
        self.time_ms = time_ms
        self.built_s: float | None = None
        self.checks: list[tuple[int, float, float]] = []
        """(iterations, seconds, exploitability) of each check so far."""
        self.hand_checks: list[tuple[int, float, float]] = []
        """(iterations, seconds, the asking hand's regret) of each check of the hand alone so far."""
        self.progress = Progress("equilibrium")
        # Sizing may end in a refusal (over the memory cap), one error line:
        # a pipe hears nothing until the estimate has accepted the tree.
        self.progress.quiet_when_piped = True
        self.progress.report(note="sizing the endgame's public tree (every hand, every move)")

    def __call__(self, info: dict) -> None:
        if info.get("stage") == "sized":
            self.progress.quiet_when_piped = False
            self.progress.report(note="building the endgame's public tree (every hand, every move)")
            return
        if info.get("stage") == "built":
            self.built_s = float(info["seconds"])
            self.progress.say(
                f"tree built: {info['nodes']:,} public nodes, {info['sequences']:,} sequences, "
                f"{info['bytes'] / 1e6:.1f} MB in {info['seconds']:.1f} s; CFR to exploitability "
                f"{self.target:g} ..."
            )
            note = "first CFR iterations"
        elif info.get("stage") == "hand":
            self.hand_checks.append((int(info["iterations"]), float(info["seconds"]), float(info["hand_regret"])))
            note = (
                f"CFR: {info['iterations']} iterations, your hand's regret {info['hand_regret']:.2g} "
                f"(target {self.target:g})"
            )
        else:
            self.checks.append((int(info["iterations"]), float(info["seconds"]), float(info["exploitability"])))
            note = (
                f"CFR: {info['iterations']} iterations, exploitability {info['exploitability']:.2g} "
                f"(target {self.target:g})"
            )
        if self.hand_checks and (not self.checks or self.hand_checks[-1][0] > self.checks[-1][0]):
            # the hand's regret leads: its crossing, then one check of the exploitability
            left = equilibrium_time_left(self.built_s or 0.0, self.hand_checks, self.target, after=1.5)
        else:
            left = equilibrium_time_left(self.built_s or 0.0, self.checks, self.target)
        elapsed = self.progress.elapsed()
        if self.time_ms is not None:
            budget_left = max(self.time_ms / 1000.0 - elapsed, 0.0)
            left = budget_left if left is None else min(left, budget_left)
        self.progress.report(left_s=left, note=note)

    def reporting(self) -> None:
        """The solve is over; its moves' values for the asking hand are read:
        two or three traversals, about an iteration (3 s after iterations of
        2.9 s on a 5-card endgame of 14 M sequences)."""
        checks = self.checks
        per = None
        if len(checks) >= 2:
            per = (checks[-1][1] - checks[-2][1]) / max(checks[-1][0] - checks[-2][0] + 1, 1)
        self.progress.report(left_s=per, note="the strategy's values for your hand")

    def __enter__(self) -> "EquilibriumProgress":
        self.progress.open()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.close()


FIRST_CHUNK_PER_BUILD = 6.0
"""Before the first check, the first CFR iterations and that check are
guessed at this many times the build's seconds: measured 6.5x on a 4-card
endgame (34 unseen) and 5.3x on the 5-card one of issue 35."""


def equilibrium_time_left(
    built_s: float, checks: list[tuple[int, float, float]], target: float, after: float | None = None
) -> float | None:
    """Seconds an equilibrium solve still needs, as its checks so far
    predict, counted from the last of them (the build before any): the
    power law through the last two checks (`CONVERGENCE_SLOPE` from one)
    gives the iteration that reaches `target` (at most 64 times the
    iterations so far: a flat stretch would predict forever); the asking hand's regret
    is taken to need two strides more (an eighth of the iterations each,
    as the solve plans them) and each of the three checks left about an
    iteration; the seconds per
    iteration are the last stride's, its check included.  `after`: the
    iterations' worth still needed past the crossing instead (the checks
    of the asking hand's regret alone: one exploitability check).  Before
    the first check, `FIRST_CHUNK_PER_BUILD` times the build.  None when
    nothing is known yet."""
    from tacocat.search.equilibrium import CONVERGENCE_SLOPE, FIRST_CHECK

    if not checks:
        return FIRST_CHUNK_PER_BUILD * built_s if built_s > 0 else None
    t, seconds, e = checks[-1]
    t0, s0, e0 = checks[-2] if len(checks) >= 2 else (0, built_s, math.inf)
    per = (seconds - s0) / max(t - t0 + 1, 1)  # +1: the check after the stride costs about an iteration
    slope = math.log(e0 / e) / math.log(t / t0) if t0 > 0 and e0 > e > 0 else CONVERGENCE_SLOPE
    reach = t
    if e > target > 0 and slope > 0:
        reach = max(t, min(t * (e / target) ** (1.0 / slope), 64.0 * max(t, FIRST_CHECK)))
    if after is not None:
        return per * ((reach - t) + after)
    return per * ((reach - t) + 2.0 * max(2.0, reach / 8.0) + 3.0)


def _equilibrium(endgame: EndgameFlags, json_path, target, time_ms, threads=None) -> None:
    """Parse the endgame flags, call `tacocat.search.equilibrium.solve`, print."""
    from tacocat.search.equilibrium import (
        DEFAULT_TARGET,
        MAX_CARDS,
        METHOD_WORDS,
        PURIFY_BELOW,
        EndgameTooLarge,
        endgame_from_view,
        machine_threads,
        purified,
        report,
        solve,
    )
    from tacocat.search.gamevalue import round_utilities

    if json_path is not None and json_path != "-":
        raise CliError(f"with --equilibrium, --json prints the answer as JSON and reads no file (got {json_path!r})")
    util_spec = endgame.utility()
    view = endgame.view()
    most = max(len(view.hand), view.opponent_hand_size)
    if most > MAX_CARDS:
        raise CliError(
            f"--equilibrium solves hands of at most {MAX_CARDS} cards (a limit of the solver, not a rule), "
            f"and a hand here holds {most}: drop --equilibrium for the exact double-dummy endgame "
            f"(the same flags), or ask tacocat hint"
        )
    util = round_utilities(view.board, view.player, endgame.rules, util_spec)
    eg = endgame_from_view(view, util)  # its history (R20 floors) comes with the view
    goal = DEFAULT_TARGET if target is None else target
    try:
        with EquilibriumProgress(goal, time_ms) as info:
            r = solve(
                eg,
                target=goal,
                time_ms=time_ms,
                info=info,
                hand_of=(view.player, view.hand),
                threads=machine_threads() if threads is None else threads,
            )
            info.reporting()  # seconds on a 5-card tree: the bar stays up
            out = report(r, view.player, view.hand, util)
            moves = r.hand_report(view.player, view.hand)[1]
    except EndgameTooLarge as exc:
        raise CliError(
            f"{exc.message.split(';')[0]} (the solver's memory bound, not a rule): drop --equilibrium for "
            f"the exact double-dummy endgame with the same flags, or solve a later position with fewer "
            f"cards in each hand (every face-up card in --seen or --history shrinks it too)"
        ) from None
    hand_value = out["hand_value"]
    if json_path is not None:
        click.echo(json.dumps(out))
        return
    kind = "answers" if view.table else "attacks"
    lines = [
        f"method: {METHOD_WORDS['equilibrium']}",
        f"your hand {format_cards(view.hand)}: value {hand_value:+.4f}   [your utilities: win {util[0]:g}, "
        f"draw {util[1]:g}, loss {util[2]:g}]",
        f"endgame value for you over every deal the public history allows: {out['value']:+.4f}",
        f"exploitability {r.exploitability:.2g} after {r.iterations} iterations, {r.seconds:.2f} s "
        f"on {r.threads} thread{'s' if r.threads != 1 else ''} "
        f"({r.nodes} public nodes, {r.sequences} sequences, {r.memory_bytes / 1e6:.1f} MB)"
        + ("  [stopped before the target]" if r.stopped else ""),
        (
            f"your hand's own regret {out['hand_regret']:.2g} (what a best response with {format_cards(view.hand)} "
            "would gain over this strategy)"
            if out["hand_regret"] is not None
            else "your hand's own regret: not measured (the time budget ended inside an iteration)"
        ),
        f"your {kind} (equilibrium probability, then your value after it, win/draw/loss):",
    ]
    width = max(len(format_action(m.action)) for m in moves)
    for m in purified(moves):  # probabilities under PURIFY_BELOW are noise at this exploitability
        lines.append(
            f"  {format_action(m.action):<{width}}  {m.probability:6.1%}  {m.value:+.4f}   "
            f"{m.win:.1%} / {m.draw:.1%} / {m.loss:.1%}"
        )
    lines.append(f"(moves played with less than {PURIFY_BELOW:.1%} are shown as 0%; --json keeps the exact mix)")
    lines.append(
        "(a mixed strategy: play each move with its probability; the other player's hand stays hidden "
        "to the end, and the endgame assumes nothing about how play got here beyond R20 consistency)"
    )
    click.echo("\n".join(lines))
