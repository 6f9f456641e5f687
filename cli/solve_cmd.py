"""`tacocat solve`: the exact value of a play-phase position with every card
known (R10–R17), each legal move's value and a principal variation.  Parses
flags or JSON Lines, calls `solver.solve`, formats."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

import click

from solver.cards import format_cards, parse_cards
from solver.errors import NotationError, RecordError, TacocatError
from solver.play import PlayPosition
from solver.rules import Ruleset, load_ruleset
from solver.solve import DEFAULT_UTILITIES, SolveResult, Solver, position_from_dict, result_to_dict


class SolveCliError(click.ClickException):
    """A user error shown as one line `error: ...` with exit status 2 (the
    form `cli.main.main` gives a TacocatError, also under CliRunner)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


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
                raise NotationError(f"--utilities: {t!r} is not a number; expected three numbers win draw loss, e.g. \"1 0 -1\"") from None
    if len(values) != 3:
        raise NotationError(f"--utilities: expected three numbers (player 0's worth of win, draw, loss), got {len(values)}")
    return tuple(values)


def error_dict(exc: TacocatError) -> dict:
    """The JSON form of a user error: stable code, message, rule."""
    return {"code": exc.code, "message": str(exc), "rule": exc.rule}


def _value_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:+}" if isinstance(value, (int, float)) and value != 0 else str(value)


def format_result(result: SolveResult) -> str:
    """The human form: position, value, every move's value, the line of play."""
    pos = result.position
    lines = [str(pos)]
    u = result.utilities
    outcome = {"win": "player 0 wins the round", "draw": "the round is drawn", "loss": "player 1 wins the round"}
    tail = f" ({outcome[result.outcome]} under best play)" if result.outcome else ""
    lines.append(f"value {_value_text(result.value)}{tail}   [player 0's utilities: win {u[0]}, draw {u[1]}, loss {u[2]}]")
    if result.moves is not None:
        mover = pos.to_move
        if not result.moves:
            lines.append("no moves: both hold one card, showdown (R17)")
        else:
            what = f"answers of P{mover} to {format_cards(pos.table)}" if pos.table else f"attacks of P{mover}"
            lines.append(f"{what} (value for player 0; * best for P{mover}):")
            width = max(len(format_cards(m.cards)) for m in result.moves) + (10 if pos.table else 0)
            for m in result.moves:
                label = format_cards(m.cards)
                if m.beats is not None:
                    label += " beat" if m.beats else " sacrifice"
                star = "*" if m.value == result.value else " "
                lines.append(f"  {star} {label:<{width}}  {_value_text(m.value)}")
    if result.pv or result.showdown:
        lines.append("principal variation:")
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
    t = result.tt
    rate = f" ({100 * t.hit_rate:.0f}%)" if t.probes else ""
    lines.append(
        f"{result.nodes} nodes in {1000 * result.seconds:.2f} ms; table: {t.probes} probes, {t.hits} hits{rate}, "
        f"{t.stores} stores, {t.entries} entries"
    )
    return "\n".join(lines)


def _json_lines(stream: TextIO, rules: Ruleset, utilities: tuple | None, solver: Solver, value_only: bool) -> int:
    """Solve one position per line; print one JSON object per line; return
    how many lines failed."""
    failed = 0
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            try:
                data = json.loads(line)
            except ValueError as exc:
                raise RecordError(f"line {number} is not valid JSON ({exc}); expected one position object per line") from None
            if utilities is not None and isinstance(data, dict) and data.get("utilities") is None:
                data = dict(data, utilities=list(utilities))
            position, utils = position_from_dict(data, rules)
            out = result_to_dict(solver.solve(position, utils, moves=not value_only))
        except TacocatError as exc:
            failed += 1
            out = {"error": error_dict(exc), "line": number}
        click.echo(json.dumps(out))
    return failed


EPILOG = """\b
Examples:
  # player 0 attacks; who wins with best play, and what does each attack give?
  tacocat solve --hands "2 5 7 9 11 12" "1 3 8 8 10 12" --attacker 0
  # player 0 laid 8 8 and still holds 2 5 7 9; player 1 must answer
  tacocat solve --hands "2 5 7 9" "1 3 8 10 11 12" --attacker 0 --table "8 8"
  # a drawn round is worth half a win to player 0
  tacocat solve --hands "3 9" "4 8" --attacker 1 --utilities "1 0.5 0"
  # JSON Lines: one position per line in, one result per line out
  echo '{"hands": [[2, 9], [3, 8]], "attacker": 0, "table": []}' | tacocat solve --json
  tacocat solve --json cases.jsonl > results.jsonl

\b
Positions:
  --hands gives player 0's cards, then player 1's.  Without --table both
  hold the same number and the attacker is to attack (R10).  With --table
  the attacker has laid those cards (they are not in its hand any more)
  and the other player is to answer (R12).
Values are player 0's: +1 win, 0 drawn round, -1 loss by default; player 1
minimises.  A move's value is the position's value after it.  In the
principal variation "sacrifices with" marks an answer where at least one
card does not beat (the attacker wins the trick, R13).
JSON input keys: hands, attacker, table, optional utilities and rules (the
conformance-case shape); output keys: value, outcome, moves (cards, beats on
answers, value), pv, showdown, nodes, seconds, tt.  A bad line gives
{"error": {"code", "message", "rule"}, "line": N}; the rest still run, and
the exit status is 2 if any line failed."""


@click.command(name="solve", epilog=EPILOG)
@click.option("--hands", nargs=2, default=None, metavar="P0 P1",
              help='Both hands in plain notation: player 0\'s, then player 1\'s, e.g. "2 5 9" "3 8 11".')
@click.option("--attacker", type=click.IntRange(0, 1), default=0, show_default=True,
              help="Who attacks this trick (with --table: who laid it).")
@click.option("--table", default="", help='An attack on the table that the other player must answer, e.g. "8 8".')
@click.option("--utilities", default=None, metavar='"W D L"',
              help='Player 0\'s worth of a won, drawn, lost round (default "1 0 -1").')
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml) for the deck counts (R1); standard by default.")
@click.option("--json", "json_path", is_flag=False, flag_value="-", default=None, metavar="[FILE|-]",
              help="Read positions as JSON Lines from FILE (or stdin: '-' or no value); write one JSON result per line.")
@click.option("--value-only", is_flag=True, help="Skip every move's value (faster): the value and the principal variation only.")
@click.option("--tt-mb", type=click.FloatRange(min=0.001), default=1, show_default=True,
              help="Transposition table size in MB.")
def command(hands, attacker, table, utilities, rules_path, json_path, value_only, tt_mb):
    """Solve a play-phase position with every card known, exactly.

    Searches the whole attack/defend tree (R10-R17) with alpha-beta and a
    transposition table, prints the value for player 0, every legal move's
    value and a principal variation down to the showdown.
    """
    try:
        rules = load_ruleset(rules_path)
        utils = parse_utilities(utilities) if utilities is not None else None
        solver = Solver(tt_mb, keep_tt=False)
        if json_path is not None:
            if hands is not None:
                raise SolveCliError("give positions either with --hands or with --json, not both")
            if json_path == "-":
                failed = _json_lines(sys.stdin, rules, utils, solver, value_only)
            else:
                try:
                    with open(json_path, encoding="utf-8") as stream:
                        failed = _json_lines(stream, rules, utils, solver, value_only)
                except OSError as exc:
                    raise RecordError(f"cannot read positions file {json_path!r}: {exc.strerror or exc}") from None
                except UnicodeDecodeError:
                    raise RecordError(f"positions file {json_path!r} is not a text file; expected JSON Lines") from None
            if failed:
                sys.exit(2)
            return
        if hands is None:
            raise SolveCliError('give both hands, e.g. --hands "2 5 9" "3 8 11" --attacker 0 (or --json to read JSON Lines); see tacocat solve --help')
        h0 = parse_cards(hands[0], "--hands (player 0)")
        h1 = parse_cards(hands[1], "--hands (player 1)")
        position = PlayPosition((h0, h1), attacker, parse_cards(table, "--table"), rules)
        result = solver.solve(position, utils or DEFAULT_UTILITIES, moves=not value_only)
    except TacocatError as exc:
        raise SolveCliError(str(exc)) from None
    click.echo(format_result(result))
