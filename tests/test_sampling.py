"""Worlds consistent with a view (RULES §5): uniform over card subsets of
the unseen pool, reproducible, exact enumeration with multiplicities, and
blind to the true hidden hand."""

import random
from collections import Counter
from fractions import Fraction
from math import comb

import pytest
from positions import play_view

from tacocat.core.exact import packed
from tacocat.errors import TacocatError
from tacocat.rules.cards import counts, hand
from tacocat.rules.game import GameState
from tacocat.rules.views import build_view
from tacocat.search.budget import Budget
from tacocat.search.decisions import KnownHandSampler
from tacocat.search.inference import InferenceSampler, StaticSoftmax
from tacocat.search.pimc import exact_play, pimc_play
from tacocat.search.sampling import HandSampler, WorldSampler


def test_samples_come_from_the_pool_with_the_right_size_and_are_seeded():
    v = play_view([1, 4, 7, 9, 12], [2, 2, 3], 5)
    s = HandSampler(v)
    a, b = s.samples(50, seed=7), s.samples(50, seed=7)
    assert a == b and a != s.samples(50, seed=8)
    pool = Counter(v.unseen_pool)
    for h in a:
        assert len(h) == 5 and list(h) == sorted(h)
        assert all(Counter(h)[r] <= pool[r] for r in h)


def test_enumeration_counts_and_probabilities_are_exact():
    # 38 - 3 own - 20 seen = 15 unseen cards, with repeated ranks
    v = play_view([1, 5, 9], [2, 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8, 8, 9, 10, 10, 11, 11, 12, 12], 3)
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
    s = HandSampler(play_view([1, 4, 7, 9, 12], [], 5))
    assert s.count() > 100
    assert s.enumerate(100) is None
    assert s.enumerate(s.count()) is not None


def test_sample_frequencies_match_the_multiplicity_weights():
    v = play_view([1, 12], [2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 1, 4, 5, 6, 7], 2)
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


# ------------------------------------------------------ the sampler protocol
PLAY_VIEW = build_view(hand=(2, 4, 6, 9, 11, 12), seen=(1, 3), opponent=5, attacker=0, table=(8,), player=1)
"""A play-phase answer: a few hundred opponent hands, enumerable."""
PROTOCOL = ("sample", "sample_packed", "enumerate", "enumerate_packed", "deal")


class Recording:
    """A custom sampler, no `HandSampler`: R20's worlds (delegated to one)
    through every method of the protocol, recording which a search calls."""

    def __init__(self, view):
        self.inner = HandSampler(view)
        self.calls = Counter()

    def __getattr__(self, name):
        if name not in PROTOCOL:
            raise AttributeError(name)
        method = getattr(self.inner, name)

        def call(*args):
            self.calls[name] += 1
            return method(*args)

        return call


class Plain(WorldSampler):
    """A custom sampler that writes only the hand methods and `deal`, and
    inherits the packed ones from the protocol."""

    def __init__(self, view):
        self.inner = HandSampler(view)

    def sample(self, rng):
        return self.inner.sample(rng)

    def enumerate(self, budget=None):
        return self.inner.enumerate(budget)

    def deal(self, rng):
        return self.inner.deal(rng)


def test_every_sampler_has_the_whole_protocol():
    known = KnownHandSampler((5, 7, 8, 10, 12), PLAY_VIEW.unseen_pool)
    model = InferenceSampler(PLAY_VIEW, StaticSoftmax())
    for sampler in (HandSampler(PLAY_VIEW), model, known, Plain(PLAY_VIEW)):
        for name in PROTOCOL:
            assert callable(getattr(sampler, name)), (type(sampler).__name__, name)
        a, b = random.Random(3), random.Random(3)
        assert sampler.sample_packed(a) == packed(sampler.sample(b))  # the same draws
        listed, packed_list = sampler.enumerate(None), sampler.enumerate_packed(None)
        assert packed_list == [(packed(h), p) for h, p in listed]
        opp, pile = sampler.deal(random.Random(1))
        assert hand(list(opp) + list(pile)) == PLAY_VIEW.unseen_pool


def test_a_custom_sampler_is_searched_through_its_packed_methods():
    """PIMC and the exact search ask any sampler for packed worlds (no fast
    path kept for `HandSampler`): a custom one is as fast, and gives the
    same odds as the default sampler from the same seed."""
    custom = Recording(PLAY_VIEW)
    got = pimc_play(PLAY_VIEW, Budget(samples=60, seed=4), sampler=custom)
    assert custom.calls["sample_packed"] > 0 and custom.calls["sample"] == 0
    assert got.moves == pimc_play(PLAY_VIEW, Budget(samples=60, seed=4)).moves
    custom.calls.clear()
    got = exact_play(PLAY_VIEW, Budget(seed=2), sampler=custom, max_hands=None)
    assert custom.calls == Counter(enumerate_packed=1)
    assert got is not None and got.moves == exact_play(PLAY_VIEW, Budget(seed=2), max_hands=None).moves


def test_a_sampler_without_packed_methods_inherits_them():
    plain = Plain(PLAY_VIEW)
    assert type(plain).sample_packed is WorldSampler.sample_packed
    assert pimc_play(PLAY_VIEW, Budget(samples=40, seed=7), sampler=plain).moves == (
        pimc_play(PLAY_VIEW, Budget(samples=40, seed=7)).moves
    )
    full = exact_play(PLAY_VIEW, sampler=plain, max_hands=None)
    assert full is not None and full.moves == exact_play(PLAY_VIEW, max_hands=None).moves
