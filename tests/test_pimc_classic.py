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


def test_the_classic_search_refuses_the_choices_it_does_not_offer():
    from tacocat.players.reference import classic_search
    from tacocat.rules.views import build_view
    from tacocat.search.budget import Budget
    from tacocat.search.hint import Knobs

    duel = build_view(hand=(2, 4, 8, 9, 12, 12, 6), phase="duel")
    for knobs, said in (
        (Knobs(inference="policy"), "inference 'policy' is not offered"),
        (Knobs(round_search=True), "round_search is not offered"),
        (Knobs(duel="bayes"), "its duel is the matrix game"),
        (Knobs(replace="game"), "its replacement the static search"),
    ):
        with pytest.raises(TacocatError, match=said):
            classic_search(duel, Budget(samples=4, seed=1), knobs)
    assert classic_search(duel, Budget(samples=4, seed=1), Knobs(inference="uniform")).inference == "off"


def test_a_classic_search_whose_time_is_gone_still_gets_its_millisecond(monkeypatch):
    import time

    from tacocat.players import reference
    from tacocat.rules.views import build_view
    from tacocat.search import hint as hint_module
    from tacocat.search.budget import Budget
    from tacocat.search.pimc import MIN_SAMPLES

    attack = build_view(hand=(2, 3, 5, 7, 8, 9, 10, 12), opponent=8)
    handed = []
    for module in (reference, hint_module):
        real = module.pimc_play

        def spy(view, budget, *args, _real=real, **kw):
            handed.append((budget.time_ms, kw["minimum"], kw["partial"]))
            return _real(view, budget, *args, **kw)

        monkeypatch.setattr(module, "pimc_play", spy)
    gone = time.perf_counter() - 10.0  # the budget's time ran out ten seconds ago
    reference.classic_search(attack, Budget(time_ms=5, seed=1, start=gone))
    hint_module.hint(attack, Budget(time_ms=5, seed=1, start=gone), method="pimc")
    assert handed == [
        (reference.LEAST_MS, MIN_SAMPLES, False),  # the 1 ms floor, the fixed minimum, the clock between worlds
        (hint_module.LEAST_LEFT_MS, 1, True),  # the other bots: what is left, a minimum scaled with the budget
    ]
