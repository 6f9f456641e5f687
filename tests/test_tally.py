"""The batched fast path of the hidden-hand searches against a plain one.

`exact_play` and `pimc_play` hand the core whole batches of worlds
(`Solver.tally_worlds`, hands listed by `core.exact.sub_hands`); here a plain
loop lists the hands in Python (`HandSampler.iter_hands`), solves each world
on its own (`Solver.outcomes`) and averages in Python.  Both must give the
same odds on every play-phase decision of seeded random games: 329 (exact)
and 214 (PIMC) positions in the default loop; in the slow run about 3,000
and 4,800 in CI, 12,000 and 19,000 under TACOCAT_DEEP=1."""

from __future__ import annotations

import math
import random

import pytest
from helpers import deep
from hypothesis import given, settings
from hypothesis import strategies as st

from tacocat.core.exact import packed, sub_hands
from tacocat.rules.cards import hand
from tacocat.rules.game import PLAY, GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.rules.views import View
from tacocat.search import pimc
from tacocat.search.budget import Budget
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.search.sampling import HandSampler, rng_from, world_hands


def play_views(n_games: int, seed: int):
    """Every play-phase decision of `n_games` seeded random games, as the
    deciding player's view."""
    for g in range(n_games):
        rng = random.Random(f"{seed}/{g}")
        state = GameState.new(STANDARD, rng.getrandbits(32))
        for _ in range(400):
            if state.over:
                break
            acting = state.acting_players()
            if state.phase == PLAY and len(acting) == 1:
                yield View.of(state, acting[0])
            p = rng.choice(acting)
            state.apply(p, rng.choice(state.legal_actions(p)))


def plain_average(view: View, worlds: list[tuple[tuple, float]], solver) -> dict:
    """Per move (cards, beats): win, draw and loss weight, mean and mean
    square of the round utility, world by world in Python."""
    u = ROUND_UTILITIES
    sums: dict = {}
    total = 0.0
    for opp, w in worlds:
        for cards, beats, o in solver.outcomes(world_hands(view, opp), view.attacker, view.table):
            k = 1 - (o if view.player == 0 else -o)
            s = sums.setdefault((cards, beats), [0.0] * 5)
            s[k] += w
            s[3] += w * u[k]
            s[4] += w * u[k] * u[k]
        total += w
    return {key: [x / total for x in s] for key, s in sums.items()}


def key(move):
    return move.action.cards, move.action.beats if move.action.kind == "answer" else None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 12), max_size=30), st.integers(0, 12))
def test_the_core_lists_the_same_hands_in_the_same_order_as_the_plain_enumeration(pool, size):
    size = min(size, len(pool))
    plain = []

    class Pool(HandSampler):  # a sampler over an arbitrary pool, without a view
        def __init__(self):
            self.opp_pool, self.size = hand(pool), size
            self.pool_counts = [0] * 13
            for c in pool:
                self.pool_counts[c] += 1

    s = Pool()
    plain = [(packed(h), m) for h, m in s.iter_hands()]
    assert sub_hands(hand(pool), size) == plain
    assert sum(m for _, m in plain) == math.comb(len(pool), size)


@pytest.mark.parametrize("games", [10, pytest.param(deep(100, 400), marks=pytest.mark.slow, id="many")])
def test_exact_play_equals_the_plain_world_by_world_average(games):
    solver = pimc.PerfectSolver(STANDARD)
    views = moves = 0
    for view in play_views(games, seed=5):
        s = HandSampler(view)
        if s.count() > 400:
            continue
        want = plain_average(view, [(h, m / math.comb(len(s.opp_pool), s.size)) for h, m in s.iter_hands()], solver)
        got = pimc.exact_play(view, max_hands=None, solver=solver)
        assert got.exact and got.worlds == s.count()
        assert {key(m) for m in got.moves} == set(want)
        for m in got.moves:
            w = want[key(m)]
            assert (m.win, m.draw, m.loss, m.value) == pytest.approx(w[:4], abs=1e-12)
        best = max(w[3] for w in want.values())
        assert got.moves[0].value == pytest.approx(best, abs=1e-12)
        views += 1
        moves += len(got.moves)
    assert views >= 10 * games and moves > views


@pytest.mark.parametrize("games", [5, pytest.param(deep(100, 400), marks=pytest.mark.slow, id="many")])
def test_pimc_play_equals_the_plain_average_of_the_same_sampled_worlds(games):
    solver = pimc.PerfectSolver(STANDARD)
    views = 0
    for i, view in enumerate(play_views(games, seed=6)):
        n = 1 + i % 70  # below and above the first batches' sizes
        rng = rng_from(i)
        drawn = [HandSampler(view).sample(rng) for _ in range(n)]
        want = plain_average(view, [(h, 1.0) for h in drawn], solver)
        got = pimc.pimc_play(view, Budget(samples=n, seed=i), solver=solver)
        assert got.worlds == n
        for m in got.moves:
            w = want[key(m)]
            assert (m.win, m.draw, m.loss, m.value) == pytest.approx(w[:4], abs=1e-12)
            var = max(w[4] - w[3] ** 2, 0.0)
            if n > 1:
                assert m.stderr == pytest.approx(math.sqrt(var / (n - 1)), abs=1e-12)
            else:
                assert m.stderr is None
        views += 1
    assert views >= 10 * games


def test_the_core_refuses_a_player_who_is_not_to_move():
    solver = pimc.PerfectSolver(STANDARD)
    from array import array

    acc = array("d", bytes(8 * 50))
    with pytest.raises(ValueError, match="not the one to move"):
        solver.tally_worlds(1, (2, 5, 9), 0, (), [packed((3, 4, 7))], [1.0], ROUND_UTILITIES, acc, 0.0)
    with pytest.raises(ValueError, match="needed"):
        solver.tally_worlds(0, (2, 5, 9), 0, (), [packed((3, 4, 7))], [1.0], ROUND_UTILITIES, array("d", [0.0]), 0.0)
