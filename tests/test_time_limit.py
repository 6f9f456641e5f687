"""A time budget is a limit, not a floor (issue 24, deliverable 4): the
searches' minimum samples scale with the budget (`scaled_minimum`), so a
1 ms budget no longer buys 30 worlds first; `pimc_classic` keeps the fixed
floors.  The think times themselves are a benchmark (results/think_time.md),
not a timed test: these tests count worlds, which a loaded machine only
lowers."""

from __future__ import annotations

import pytest

from tacocat.players.reference import classic_search
from tacocat.rules.views import build_view
from tacocat.search.budget import Budget, scaled_minimum
from tacocat.search.decisions import solve_matrix_game, solve_matrix_game_fast
from tacocat.search.hint import Knobs, hint
from tacocat.search.pimc import MIN_SAMPLES

ATTACK = build_view(hand=(2, 3, 5, 7, 8, 9, 10, 12), opponent=8)
DUEL = build_view(hand=(2, 4, 8, 9, 12, 12, 6), phase="duel")


@pytest.mark.parametrize(
    "ms, want", [(None, 30), (0.01, 1), (1, 1), (3.4, 1), (10, 3), (20, 6), (99, 29), (100, 30), (5000, 30)]
)
def test_the_minimum_sample_scales_with_the_budget(ms, want):
    assert scaled_minimum(MIN_SAMPLES, ms) == want


def test_a_1ms_play_search_no_longer_solves_30_worlds_first():
    new = hint(ATTACK, Budget(time_ms=1, seed=1), method="pimc")
    old = classic_search(ATTACK, Budget(time_ms=1, seed=1))
    assert old.samples >= MIN_SAMPLES
    assert 1 <= new.samples < MIN_SAMPLES


def test_a_1ms_duel_reads_the_clock_within_its_first_world():
    new = hint(DUEL, Budget(time_ms=1, seed=1), method="pimc", knobs=Knobs(duel_exact_budget=-1))
    old = classic_search(DUEL, Budget(time_ms=1, seed=1))  # pimc_classic's duel always samples
    assert old.search.worlds >= MIN_SAMPLES
    assert new.search.worlds < MIN_SAMPLES
    assert sum(m.probability for m in new.mixed) == pytest.approx(1.0)


def test_a_sample_budget_is_untouched_by_the_time_limit_change():
    for view in (ATTACK, DUEL):
        a = hint(view, Budget(samples=40, seed=2), method="pimc").to_dict()
        b = classic_search(view, Budget(samples=40, seed=2)).to_dict()
        a.pop("seconds"), b.pop("seconds")
        assert a == b


def test_the_quick_matrix_solve_is_near_the_linear_program():
    import numpy as np

    rng = np.random.RandomState(0)
    for _ in range(10):
        a = rng.rand(5, 6) * 2 - 1
        _, _, v = solve_matrix_game(a)
        x, y, _ = solve_matrix_game_fast(a, 0.0)  # no time left: regret matching
        # neither side can gain more than 0.1 by deviating from the quick strategies
        assert (x @ a).min() > v - 0.1 and (a @ y).max() < v + 0.1
    saddle = np.array([[0.2, 0.5], [0.1, 0.0]])  # (0, 0) is a saddle point: taken without the program
    x, y, v = solve_matrix_game_fast(saddle, 1.0)
    assert list(x) == [1.0, 0.0] and list(y) == [1.0, 0.0] and v == 0.2
