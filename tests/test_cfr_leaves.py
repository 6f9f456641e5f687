"""The CFR core's leaves (issue 22): the last answers and the attacks with
two cards each that `keep_lower` plays in place are valued in closed form
(`_cfr.Engine._last_answer`, `_last_single`, `_last_attack`: the defender's
hands grouped by the cards they play, a one-card attack's showdowns fused
into one).  Held here to the whole tree, where every such answer is a
child and every showdown a node of its own: on seeded random profiles (not
only solved ones, whose ties might hide a wrong term), the best responses
and the profile's values must be the same."""

from __future__ import annotations

import random

import pytest
from test_equilibrium_keep_lower import _completed_weights

from tacocat.players.exploitability import endgames
from tacocat.search.equilibrium import build, keep_lower


def _random_weights(engine, seed: int) -> list[float]:
    """One seeded weight per sequence: a fifth of them 0 (so some hands and
    whole subtrees are never reached), the rest spread over (0, 1)."""
    rng = random.Random(seed)
    return [0.0 if rng.random() < 0.2 else rng.random() ** 3 for _ in range(engine.stats()["sequences"])]


def _measures(engine) -> list[float]:
    b0, b1 = engine.best_response()
    v0, _q0 = engine.values(0)
    v1, _q1 = engine.values(1)
    return [b0, b1, v0, v1]


# 2 cards: the one-card attacks at the root's children; 3 cards: two-card (pair) attacks answered in place too,
# and the one-card attacks answered from three cards with the attacks with two cards each below them
@pytest.mark.parametrize("k,i", [(2, 0), (2, 1), (2, 3), (3, 0), (3, 2), (3, 4)])
def test_leaves_played_in_place_value_a_random_profile_as_the_whole_tree_does(k, i):
    eg = endgames(k, i + 1)[i]
    assert keep_lower(eg)
    kept = build(eg, keep_lower_answers=True)
    full = build(eg)
    kinds = {kept.node(n)[0] for n in range(kept.node_count())}
    assert 3 in kinds  # a last answer is played in place (KIND_LAST)
    if k == 3:
        # so is a one-card attack answered from three cards (KIND_ANSWER_THREE), with the attack with two cards
        # each after it (`_last_attack`, no node of its own here)
        assert 5 in kinds
    for seed in range(2):
        kept.set_strategy(_random_weights(kept, 100 * k + 10 * i + seed))
        full.set_strategy(_completed_weights(full, kept))
        got, want = _measures(kept), _measures(full)
        for g, w in zip(got, want):
            assert abs(g - w) <= 1e-9 * max(1.0, abs(w)), (got, want)
