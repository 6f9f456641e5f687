"""`hint --method auto` and the equilibrium at 4 and 5 cards (issue 36,
deliverable 5): with a time budget of at least `AUTO_ESTIMATE_MIN_MS`, an
endgame of up to five cards a hand is solved as an equilibrium when its
size estimate says the solve ends within the budget, and the answer says
so (`auto_estimate`, the method's words); otherwise, and for explicit
methods, nothing changes."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli as run

from tacocat.rules.views import View
from tacocat.search import equilibrium
from tacocat.search.equilibrium import AUTO_ESTIMATE_MIN_MS, auto_estimate, small_enough


@pytest.fixture(autouse=True)
def not_a_server(monkeypatch):
    """No `SolveSlots` of earlier tests in this process (their caps would bind auto's estimate)."""
    monkeypatch.setattr(equilibrium, "_serving_cap", [])


# 4 cards each, 12 cards face up: a tree of ~0.3 M sequences (a fraction of a second)
FOUR = {
    "player": 0,
    "hand": [3, 6, 7, 11],
    "seen": [1, 1, 2, 2, 3, 5, 5, 8, 9, 9, 12, 12],
    "opponent_hand_size": 4,
    "attacker": 0,
    "table": [],
}


FIVE = {  # issue 36's command: ~100 M sequences, minutes of CPU
    "player": 0,
    "hand": [2, 5, 7, 9, 11],
    "seen": [1, 3, 8, 12],
    "opponent_hand_size": 5,
    "attacker": 0,
    "table": [],
}


@pytest.mark.slow
def test_auto_solves_a_four_card_equilibrium_within_the_budget_and_says_why():
    d = json.loads(
        run(["hint", "--view", "-", "--json", "--time", "10000", "--score", "round"], stdin=json.dumps(FOUR)).stdout
    )
    assert d["method"] == "equilibrium" and d["exploitability"] <= 1e-3
    guess = d["auto_estimate"]
    assert guess["fits"] and guess["budget_ms"] == 10000 and 0 < guess["seconds"] < 10
    assert "chosen by method auto: a 4-card endgame" in d["method_words"]
    # an explicit method has no estimate to report
    explicit = json.loads(
        run(
            ["hint", "--view", "-", "--json", "--time", "10000", "--score", "round", "--method", "equilibrium"],
            stdin=json.dumps(FOUR),
        ).stdout
    )
    assert "auto_estimate" not in explicit and "chosen by method auto" not in explicit["method_words"]
    assert explicit["strategy"] == d["strategy"]


def test_auto_keeps_its_other_methods_under_the_estimates_minimum_budget():
    view = View.from_dict(FOUR)
    assert not small_enough(view, AUTO_ESTIMATE_MIN_MS - 1)
    assert not small_enough(view)  # no time budget: no estimate to hold it to
    assert small_enough(view, cards=4)  # asked for by cards, as before
    d = json.loads(run(["hint", "--view", "-", "--json", "--time", "1000"], stdin=json.dumps(FOUR)).stdout)
    assert d["method"] != "equilibrium"


@pytest.mark.slow
def test_a_five_card_solve_longer_than_the_budget_is_not_chosen():
    view = View.from_dict(FIVE)
    assert not small_enough(view, AUTO_ESTIMATE_MIN_MS)
    guess = auto_estimate(view, 3_600_000)
    assert guess["fits"] and guess["seconds"] > AUTO_ESTIMATE_MIN_MS / 1000  # an hour is enough, 5 s is not


def test_in_a_server_auto_holds_an_estimated_endgame_to_the_slots_cap():
    view = View.from_dict(FOUR)
    assert small_enough(view, 10_000)
    equilibrium.SolveSlots(max_bytes=1_000_000)  # a server's slots, 1 MB each: the 6 MB tree does not fit
    assert not small_enough(view, 10_000)
