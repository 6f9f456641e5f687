"""Worlds consistent with a view (RULES §5): uniform over card subsets of
the unseen pool, reproducible, exact enumeration with multiplicities, and
blind to the true hidden hand."""

import random
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

from tacocat.errors import TacocatError
from tacocat.rules.cards import counts
from tacocat.rules.game import GameState, View
from tacocat.search.sampling import HandSampler


def view(hand, seen, opp, attacker=0, table=(), player=0):
    return View.from_dict(
        {
            "player": player,
            "hand": list(hand),
            "seen": list(seen),
            "opponent_hand_size": opp,
            "attacker": attacker,
            "table": list(table),
        }
    )


def test_samples_come_from_the_pool_with_the_right_size_and_are_seeded():
    v = view([1, 4, 7, 9, 12], [2, 2, 3], 5)
    s = HandSampler(v)
    a, b = s.samples(50, seed=7), s.samples(50, seed=7)
    assert a == b and a != s.samples(50, seed=8)
    pool = Counter(v.unseen_pool)
    for h in a:
        assert len(h) == 5 and list(h) == sorted(h)
        assert all(Counter(h)[r] <= pool[r] for r in h)


def test_enumeration_counts_and_probabilities_are_exact():
    # 38 - 3 own - 20 seen = 15 unseen cards, with repeated ranks
    v = view([1, 5, 9], [2, 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8, 8, 9, 10, 10, 11, 11, 12, 12], 3)
    s = HandSampler(v)
    worlds = s.enumerate(None)
    assert len(worlds) == s.count()
    assert abs(sum(p for _, p in worlds) - 1.0) < 1e-12
    total = comb(len(s.pool), 3)
    pc = counts(s.pool)
    for h, p in worlds:
        c = counts(h)
        mult = 1
        for r in range(1, 13):
            mult *= comb(pc[r], c[r])
        assert p == pytest.approx(mult / total)
        assert s.probability(h) == Fraction(mult, total)
    assert len(set(h for h, _ in worlds)) == len(worlds)


def test_enumeration_respects_the_budget():
    s = HandSampler(view([1, 4, 7, 9, 12], [], 5))
    assert s.count() > 100
    assert s.enumerate(100) is None
    assert s.enumerate(s.count()) is not None


def test_sample_frequencies_match_the_multiplicity_weights():
    v = view([1, 12], [2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 1, 4, 5, 6, 7], 2)
    s = HandSampler(v)
    exact = dict(s.enumerate(None))
    n = 20000
    freq = Counter(s.samples(n, seed=3))
    for h, p in exact.items():
        sd = (p * (1 - p) / n) ** 0.5
        assert abs(freq[h] / n - p) < 5 * sd + 1e-9, (h, freq[h] / n, p)


def test_the_sampler_never_depends_on_the_true_hidden_hand():
    # Two games whose only difference is which unseen cards the opponent holds
    # give player 0 the same view, hence the same samples from the same seed.
    state = GameState.new(seed=11)
    other = state.clone()
    opp, pile = list(other.hands[1]), list(other.draw_pile)
    # swap three of the opponent's cards with three draw-pile cards
    for i in range(3):
        opp[i], pile[i] = pile[i], opp[i]
    other.hands[1] = tuple(sorted(opp))
    other.draw_pile = pile
    assert other.hands[1] != state.hands[1]
    va, vb = state.view(0), other.view(0)
    sa, sb = HandSampler(va), HandSampler(vb)
    assert sa.samples(200, seed=5) == sb.samples(200, seed=5)
    assert sa.enumerate(None if sa.count() < 10**6 else 10) == sb.enumerate(None if sb.count() < 10**6 else 10)
    rng_a, rng_b = random.Random(1), random.Random(1)
    assert sa.deal(rng_a) == sb.deal(rng_b)


def test_bad_input_is_rejected():
    with pytest.raises(TacocatError):
        HandSampler({"hand": [1]})
