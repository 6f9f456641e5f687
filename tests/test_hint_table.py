"""Hint tables ranked by what the search knows (issue 35, item 1): the
engine's pick first, then the moves the search carried furthest; the moves
it dropped early summarised in one line (`--all` lists them); no margin
printed from a handful of deals."""

from __future__ import annotations

import json
import re

from cli_output import output_of
from helpers import run_cli as run

from tacocat.cli.play_cmd import parse_hint_args
from tacocat.cli.terminal import format_hint
from tacocat.protocol.session import EngineSession
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.cards import parse_cards
from tacocat.rules.views import build_view
from tacocat.search.hint import HintResult
from tacocat.search.ranking import CARRIED_SHARE, FEW_SAMPLES, margin_of, rank_answer, rank_moves
from tacocat.search.results import MoveEval

# The issue's replacement: by value, eight one-deal rows at "100 % win" came
# first and the engine's pick, replace 4 on 1,104 deals, only on the best: line.
ISSUE_REPLACE = ["hint", "--phase", "replace", "--board", "cat=4 covered=1,2,3", "--hand", "1 2 4 5 6 7 9 11 11"]
ROW = re.compile(r"^\s*(\d+)\s+(replace [\w ]+?)\s+[\d.]+%.*\s(\d+)$", re.M)


def table_rows(text: str) -> list[tuple[str, int]]:
    """(move, n) of every row of a printed replacement table, in order."""
    return [(m.group(2), int(m.group(3))) for m in ROW.finditer(text)]


def assert_no_thin_row_above_a_thicker(rows: list[tuple[str, int]]) -> None:
    pick = rows[0][1]
    for i, (move, n) in enumerate(rows):
        if n < CARRIED_SHARE * pick:
            later = [(m, k) for m, k in rows[i + 1 :] if k > n]
            assert not later, f"{move} on {n} deals ranks above {later[0]}"


def test_issue_replacement_hint_puts_the_pick_first():
    out = output_of(run(ISSUE_REPLACE + ["--top", "8"]))
    rows = table_rows(out)
    assert 3 <= len(rows) <= 8, out
    best = re.search(r"^best: (.*?)(?: \(|$)", out, re.M).group(1)
    assert rows[0][0] == best == "replace 4", out
    assert rows[0][1] == max(n for _, n in rows)
    assert_no_thin_row_above_a_thicker(rows)
    # the one-deal rows are no longer ranked, only counted
    assert all(n >= CARRIED_SHARE * rows[0][1] for _, n in rows), rows
    assert re.search(r"^\d+ more dropped after 1–\d+ deals: ", out, re.M), out
    assert "(--all lists them)" in out


def test_issue_replacement_hint_with_all_lists_every_move_in_deal_order():
    out = output_of(run(ISSUE_REPLACE + ["--all"]))
    rows = table_rows(out)
    data = json.loads(output_of(run(ISSUE_REPLACE + ["--json"])))
    assert len(rows) == len(data["moves"]) > 300
    assert rows[0][0] == "replace 4"
    assert_no_thin_row_above_a_thicker(rows)
    counts = [n for _, n in rows[1:]]
    assert counts == sorted(counts, reverse=True)
    assert "more dropped after" not in out
    # no margin from a handful of deals: two equal deals are a standard error of 0, not ±0.000
    for line in out.splitlines():
        m = re.match(r"^\s*\d+\s+replace .*?%\s+[+-]\d\.\d{3}\s+(\S+)\s.*\s(\d+)$", line)
        if m and int(m.group(2)) < FEW_SAMPLES:
            assert m.group(1) == "-", line


def test_json_says_how_far_the_search_carried_each_move():
    data = json.loads(output_of(run(ISSUE_REPLACE + ["--json"])))
    moves = data["moves"]
    assert data["best"] == moves[0]
    assert all(isinstance(m["visits"], int) and m["visits"] >= 1 for m in moves)
    visits = [m["visits"] for m in moves]
    assert visits == sorted(visits, reverse=True) and visits[0] > 10 * visits[-1]
    # the wire answer ranks in its own order, as the board shows it
    assert [m["cards"] for m in rank_answer(data).ranked] == [m["cards"] for m in moves]


def test_protocol_hint_top_keeps_the_ranking_the_board_shows():
    # the web board asks for the top 8 and shows them in the answer's order
    view = build_view(
        hand=parse_cards("1 2 4 5 6 7 9 11 11"), phase="replace", board=Board.parse("cat=4 covered=1,2,3")
    )
    r = EngineSession().handle({"id": 1, "cmd": "hint", "view": view.to_dict(), "top": 8, "seed": 0})
    assert r["ok"], r
    moves = r["result"]["moves"]
    assert len(moves) == 8 and moves[0] == r["result"]["best"]
    assert moves[0]["cards"] == [4]
    visits = [m["visits"] for m in moves]
    assert visits == sorted(visits, reverse=True)


def move(cards, value, visits, stderr=None, win=0.5):
    return MoveEval(Action("replace", tuple(cards)), win, 0.0, 1 - win, value, stderr=stderr, visits=visits)


def result_of(*moves):
    return HintResult("pimc", False, "replace", moves, seconds=0.0, utilities=(1.0, 0.0, -1.0))


def rows_of(text):
    return [line.split()[1:3] for line in text.splitlines() if re.match(r"\s*\d+\s+replace", line)]


def test_a_margin_on_two_deals_is_not_printed_as_zero():
    result = result_of(move([4], 0.3, 400, 0.02), move([5], 0.2, 200, 0.03), move([6], 1.0, 2, 0.0, win=1.0))
    assert margin_of(result.moves[2], result) is None
    text = format_hint(result, show_all=True)
    assert "0.000" not in text
    six = next(line for line in text.splitlines() if "replace 6" in line)
    assert re.search(r"\+1\.000\s+-\s", six), six
    assert f"rows without a margin rest on fewer than {FEW_SAMPLES} deals" in text


def test_dropped_moves_are_one_line_saying_whether_any_reaches_the_pick():
    pick, runner = move([4], 0.3, 1000, 0.01), move([5], 0.2, 500, 0.02)
    # on 60 deals at -0.5 with a margin of ±0.1: far below the pick
    far = result_of(pick, runner, move([6], -0.5, 60, 0.05), move([7], -0.6, 40, 0.05))
    text = format_hint(far)
    assert rows_of(text) == [["replace", "4"], ["replace", "5"]]
    assert "2 more dropped after 40–60 deals: none within reach of the pick (--all lists them)" in text
    assert rows_of(format_hint(far, show_all=True)) == [["replace", n] for n in ("4", "5", "6", "7")]
    # one deal won: no margin of its own, and the widest spread one deal allows reaches the pick
    near = result_of(pick, runner, move([6], -0.5, 60, 0.05), move([1, 11], 1.0, 1, win=1.0))
    assert (
        "2 more dropped after 1–60 deals: 1 of them not ruled out on so few deals, e.g. replace 1 11 at +1.000 on 1"
        in format_hint(near)
    )
    assert rank_moves(near).within_reach == [near.moves[3]]
    # the wire form ranks the same
    wire = near.to_dict()
    assert rank_answer(wire).within_reach == [wire["moves"][3]]


def test_the_pick_is_row_one_even_when_a_thinner_move_values_higher():
    # the table before issue 35 put replace 3 (+0.6 on 40 deals) first, the pick only on the best: line
    result = result_of(
        move([4], 0.5, 400, 0.02), move([3], 0.6, 40, 0.08), move([2], 0.5, 90, 0.05), move([], 0.5, 400, 0.02)
    )
    lines = format_hint(result).splitlines()
    assert rows_of("\n".join(lines)) == [["replace", "4"], ["replace", "none"], ["replace", "2"], ["replace", "3"]]
    assert lines[-1] == "best: replace 4 (the engine's pick, on 400 deals)"


def test_play_prompt_hint_takes_all():
    assert parse_hint_args([]) == (8, None, False)
    assert parse_hint_args(["--all"]) == (None, None, True)
    assert parse_hint_args(["--all", "--top", "3", "--time", "50"]) == (3, 50, True)


def test_play_prompt_hint_is_the_same_table():
    # the replacement of seed 1's first round: the engine's own count budget, the same rows every run
    out = output_of(run(["play", "--opponent", "heuristic", "--seed", "1"], "hint\nhint --all\nquit\n"))
    first, second = out.split("best: ")[:2]
    short, every = table_rows(first), table_rows(second)
    assert short and short[0][0] == out.split("best: ")[1].split(" (")[0].strip()
    assert_no_thin_row_above_a_thicker(every)
    assert len(every) > len(short) and every[: len(short)] == short
