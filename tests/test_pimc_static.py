"""`pimc_static` is `pimc` as it played before the duel was solved as a
Bayesian game (issue 34, deliverable 3): the games in
tests/pimc_static_reference.json were recorded from that `pimc`
(tests/pimc_static_reference.py says how); `pimc_static` replays them,
seeded whole games under sample budgets, and must choose every action the
same whatever `pimc`'s defaults become."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacocat.errors import TacocatError
from tacocat.players.bots import SEAT_BOTS, make_bot, play_game
from tacocat.rules.ruleset import STANDARD, Ruleset

REFERENCE = json.loads(Path(__file__).with_name("pimc_static_reference.json").read_text())["games"]


@pytest.mark.parametrize("game", REFERENCE, ids=lambda g: f"{g['case']}-{g['seed']}")
def test_pimc_static_plays_the_recorded_games(game):
    rules = STANDARD if game["rules"] is None else Ruleset.from_dict(game["rules"])
    seed, budget = game["seed"], game["budget"]
    bots = (make_bot("pimc_static", seed=seed, **budget), make_bot("pimc_static", seed=seed + 1000, **budget))
    assert [dict(a) for a in play_game(bots, seed, rules).actions] == game["actions"]


def test_pimc_static_is_a_seat_bot_that_keeps_its_matrix_duel():
    assert "pimc_static" in SEAT_BOTS and make_bot("pimc_static").name == "pimc_static"
    with pytest.raises(TacocatError, match="pimc_static: its duel is the matrix game"):
        make_bot("pimc_static", duel="bayes")


def test_the_bayesian_duel_is_asked_for_by_the_declared_option():
    from tacocat.rules.game import GameState
    from tacocat.search.budget import Budget
    from tacocat.search.hint import Knobs, hint

    state, step = GameState.new(STANDARD, 3), 0
    while state.phase != "duel":
        for p in state.acting_players():
            state.apply(p, state.legal_actions(p)[0])
        step += 1
        assert step < 50
    view = state.view(0)
    bayes = hint(view, Budget(samples=12, seed=1), knobs=Knobs(duel="bayes"))
    assert bayes.subgame is not None and bayes.subgame.opponent_types >= 1
    assert bayes.to_dict()["subgame"]["solved"] == "bayesian duel"
    assert abs(sum(m.probability for m in bayes.mixed) - 1) < 1e-9
    assert hint(view, Budget(samples=12, seed=1)).subgame is None  # the matrix duel, as before
    bot = make_bot("pimc", duel="bayes", duel_samples=12, seed=2)
    import random

    assert bot.choose(view, random.Random(0)) in view.legal_actions()
