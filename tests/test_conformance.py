"""Every vector in ../shared/conformance against the reference engine."""

import pytest
from conftest import load_cases

from tacocat.rules.board import Board
from tacocat.rules.play import PlayPosition, answers, attacks, move_values, play_value
from tacocat.rules.ruleset import STANDARD

ATTACKS = load_cases("attacks")
ANSWERS = load_cases("answers")
BOARD = load_cases("board")
PLAY_VALUES = load_cases("play_values")


def test_vector_counts():
    assert (len(ATTACKS), len(ANSWERS), len(BOARD), len(PLAY_VALUES)) == (150, 200, 100, 200)


@pytest.mark.parametrize("case", ATTACKS, ids=lambda c: " ".join(map(str, c["hand"])))
def test_attacks(case):
    assert [list(a) for a in attacks(case["hand"])] == case["attacks"]


@pytest.mark.parametrize("case", ANSWERS, ids=lambda c: f"{c['attack']} vs {c['hand']}")
def test_answers(case):
    got = [{"cards": list(cards), "beats": beats} for cards, beats in answers(case["attack"], case["hand"])]
    assert got == case["answers"]


@pytest.mark.parametrize("case", BOARD, ids=lambda c: f"cat{c['cat']}-{c['covered']}-w{c['round_winner']}")
def test_board(case):
    board = Board(case["cat"], frozenset(case["covered"]))
    assert board.hand_size(STANDARD) == case["hand_size"]
    assert board.first_replacer(STANDARD) == case["first_replacer"]
    after = board.after_round(case["round_winner"])
    assert after.cat == case["new_cat"]
    assert sorted(after.covered) == case["new_covered"]
    assert after.winner == case["game_winner"]


def _play_case(case: dict):
    """A play-value vector; the seven-card ones (seconds each in the reference
    minimax) run in the slow set, which CI runs."""
    big = max(len(h) for h in case["hands"]) >= 7
    ident = f"{case['hands']}-a{case['attacker']}-t{case['table']}"
    return pytest.param(case, id=ident, marks=[pytest.mark.slow] if big else [])


@pytest.mark.parametrize("case", [_play_case(c) for c in PLAY_VALUES])
def test_play_values(case):
    pos = PlayPosition(tuple(map(tuple, case["hands"])), case["attacker"], tuple(case["table"]))
    assert play_value(pos) == case["value"]
    got = []
    for cards, beats, value in move_values(pos):
        move = {"cards": list(cards)}
        if beats is not None:
            move["beats"] = beats
        move["value"] = value
        got.append(move)
    assert got == case["moves"]
