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


def test_budget_or_keywords_not_both_and_no_unknown_keyword():
    with pytest.raises(TacocatError, match="not both"):
        hint(VIEW, Budget(samples=10), iterations=10)
    with pytest.raises(TacocatError, match="unknown argument"):
        pimc_play(VIEW, sample=10)
    with pytest.raises(TacocatError, match="same budget"):
        pimc_play(VIEW, samples=10, iterations=20)


@pytest.mark.parametrize(
    "search, kw",
    [
        (pimc_play, {"samples": 40, "seed": 3}),
        (ismcts_play, {"iterations": 500, "seed": 3}),
    ],
)
def test_the_old_keywords_and_the_budget_run_the_same_search(search, kw):
    old = search(VIEW, **kw)
    new = search(VIEW, Budget(samples=kw.get("samples", kw.get("iterations")), seed=3))
    assert old.moves == new.moves and old.worlds == new.worlds


def test_exact_play_still_takes_the_hand_limit_as_budget():
    assert exact_play(VIEW, budget=3) is None and exact_play(VIEW, max_hands=3) is None
    full = exact_play(VIEW, budget=None)
    assert full.exact and exact_play(VIEW, Budget(seed=0), max_hands=None).moves == full.moves


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
    r = hint(VIEW, iterations=20)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.method = "exact"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.moves[0].value = 1.0  # type: ignore[misc]
    assert isinstance(r.moves, tuple) and isinstance(r.search.moves, tuple)
    duel = duel_eval(build_view(hand=(2, 4, 8, 9, 12, 12, 6), phase=DUEL), samples=30, exact_budget=-1)
    assert abs(sum(m.probability for m in duel.mixed) - 1) < 1e-9 and duel.game_value is not None
    rep = replace_eval(build_view(hand=(2, 2, 3, 5, 8, 9, 11), phase=REPLACE), samples=300)
    assert rep.evaluations >= 300 and rep.candidates > 1
    ism = ismcts_play(VIEW, iterations=300)
    assert ism.iterations == 300 and ism.nodes > 1
