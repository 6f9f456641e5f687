"""`pimc_classic` is today's PIMC kept as the reference (issue 24,
deliverable 5): it plays exactly as `pimc` did at commit 36be87b.  The
games in tests/pimc_classic_reference.json were recorded from that code
(tests/pimc_classic_reference.py says how); here `pimc_classic` replays
them, seeded whole games under sample budgets, and must choose every
action the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacocat.errors import TacocatError
from tacocat.players.bots import BOTS, SEAT_BOTS, make_bot, play_game
from tacocat.rules.ruleset import STANDARD, Ruleset

REFERENCE = json.loads(Path(__file__).with_name("pimc_classic_reference.json").read_text())["games"]


def replay(game: dict) -> list[dict]:
    rules = STANDARD if game["rules"] is None else Ruleset.from_dict(game["rules"])
    seed, budget = game["seed"], game["budget"]
    bots = (make_bot("pimc_classic", seed=seed, **budget), make_bot("pimc_classic", seed=seed + 1000, **budget))
    return [dict(a) for a in play_game(bots, seed, rules).actions]


def test_reference_covers_every_decision_kind():
    kinds = {a["kind"] for g in REFERENCE for a in g["actions"]}
    assert kinds == {"replace", "duel", "attack", "answer"}
    assert len(REFERENCE) >= 10


@pytest.mark.parametrize("game", REFERENCE, ids=lambda g: f"{g['case']}-{g['seed']}")
def test_pimc_classic_plays_the_recorded_games(game):
    assert replay(game) == game["actions"]


def test_pimc_classic_is_a_seat_bot_named_for_itself():
    assert "pimc_classic" in BOTS
    assert "pimc_classic" in SEAT_BOTS
    assert make_bot("pimc_classic", samples=4).name == "pimc_classic"


def test_pimc_classic_refuses_inference_in_one_line():
    with pytest.raises(TacocatError, match="pimc_classic: inference 'policy'"):
        make_bot("pimc_classic", inference="policy")
