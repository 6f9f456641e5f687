"""The typed search budget, the one dispatcher (a bot runs the search
`hint` runs at its budget) and immutable search results."""

from __future__ import annotations

import dataclasses
import random

import pytest

from tacocat.errors import TacocatError
from tacocat.players.bots import make_bot
from tacocat.rules.game import DUEL, PLAY, REPLACE, GameState
from tacocat.rules.views import build_view
from tacocat.search.budget import Budget
from tacocat.search.decisions import duel_eval, replace_eval, sample_mixed
from tacocat.search.hint import Knobs, hint
from tacocat.search.ismcts import ismcts_play
from tacocat.search.pimc import exact_play, pimc_play

VIEW = build_view(hand=(2, 4, 6, 9, 11, 12), seen=(1, 3), opponent=5, attacker=0, table=(8,), player=1)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"samples": 0}, "iterations must be a positive integer"),
        ({"samples": True}, "iterations must be a positive integer"),
        ({"time_ms": -1}, "time_ms must be a positive number"),
        ({"seed": 1.5}, "seed must be an integer"),
        ({"stop": "now"}, "stop must be a threading.Event"),
        ({"progress": 3}, "progress must be callable"),
    ],
)
def test_a_bad_budget_is_refused_naming_the_field(kwargs, fragment):
    with pytest.raises(TacocatError, match=fragment):
        Budget(**kwargs)


@pytest.mark.parametrize("search", [hint, pimc_play, exact_play, ismcts_play, duel_eval, replace_eval])
def test_a_search_takes_its_budget_one_way(search):
    """The keywords a search took before `Budget` are gone: passing one is
    an error, not a budget silently ignored."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'samples'"):
        search(VIEW, samples=10)
    with pytest.raises(TacocatError, match="budget must be a Budget"):
        search(VIEW, 10)


def test_no_budget_is_the_default_budget():
    assert pimc_play(VIEW).moves == pimc_play(VIEW, Budget()).moves
    assert ismcts_play(VIEW, Budget(samples=500, seed=3)).moves == ismcts_play(VIEW, Budget(samples=500, seed=3)).moves


def test_exact_play_takes_the_hand_limit_as_max_hands_only():
    assert exact_play(VIEW, max_hands=3) is None
    assert exact_play(VIEW) is None  # more hands than DEFAULT_EXACT_BUDGET
    full = exact_play(VIEW, max_hands=None)
    assert full is not None and full.exact
    unlimited = exact_play(VIEW, Budget(seed=0), max_hands=None)
    assert unlimited is not None and unlimited.moves == full.moves


def decision_views(kinds=(REPLACE, DUEL, PLAY), per_kind=3):
    found = {k: [] for k in kinds}
    for seed in range(60):
        rng = random.Random(seed)
        state = GameState.new(seed=seed)
        for _ in range(200):
            if state.over:
                break
            for p in state.acting_players():
                v = state.view(p)
                if (
                    v.decision
                    and state.phase in found
                    and len(found[state.phase]) < per_kind
                    and len(v.legal_actions()) > 1
                ):
                    found[state.phase].append(v)
            p = rng.choice(state.acting_players())
            state.apply(p, rng.choice(state.legal_actions(p)))
        if all(len(v) >= per_kind for v in found.values()):
            break
    return [v for vs in found.values() for v in vs]


@pytest.mark.parametrize("name", ["pimc", "ismcts"])
def test_a_bot_plays_what_hint_ranks_first_at_the_same_budget(name):
    budget = dict(samples=30, iterations=800, replace_samples=150, duel_samples=10, candidates=12)
    for view in decision_views():
        bot = make_bot(name, **budget)
        mine = random.Random(7)
        seed = mine.getrandbits(62) ^ bot.seed
        chosen = bot.choose(view, random.Random(7))
        knobs = Knobs(duel_samples=10, duel_exact_budget=-1, replace_samples=150, candidates=12)
        result = hint(
            view,
            Budget(samples=30 if name == "pimc" else 800, seed=seed),
            method="auto" if name == "pimc" else "ismcts",
            exact_budget=300,
            knobs=knobs,
        )
        if view.decision == DUEL:
            assert chosen == sample_mixed(result.mixed, mine)
        else:
            assert chosen == result.action, (view.decision, chosen, result.action)


def test_search_results_are_immutable():
    r = hint(VIEW, Budget(samples=20))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.method = "exact"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.moves[0].value = 1.0  # type: ignore[misc]
    assert isinstance(r.moves, tuple) and isinstance(r.search.moves, tuple)
    duel = duel_eval(build_view(hand=(2, 4, 8, 9, 12, 12, 6), phase=DUEL), Budget(samples=30), exact_budget=-1)
    assert abs(sum(m.probability for m in duel.mixed) - 1) < 1e-9 and duel.game_value is not None
    rep = replace_eval(build_view(hand=(2, 2, 3, 5, 8, 9, 11), phase=REPLACE), Budget(samples=300))
    assert rep.evaluations >= 300 and rep.candidates > 1
    ism = ismcts_play(VIEW, Budget(samples=300))
    assert ism.iterations == 300 and ism.nodes > 1
