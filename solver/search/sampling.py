"""Worlds consistent with what a player knows (RULES §5).

A player's information set fixes their own hand and every face-up card; the
opponent's hand is then some sub-multiset of the *unseen pool* of the right
size, and the rest of the pool is the draw pile.  Every sampler here reads a
`View` only — never a `GameState` — so it cannot peek at the true hidden
hand.

Weights.  The deck's cards are distinct objects that merely share ranks, and
the shuffle makes every *card subset* of the pool equally likely to be the
opponent's hand.  A multiset hand with k_r cards of rank r therefore has
probability  prod_r C(pool_r, k_r) / C(|pool|, n).  `HandSampler.sample`
draws card subsets uniformly (so multisets come with exactly these weights);
`HandSampler.enumerate` lists every distinct multiset with its exact weight.

History (R20).  The round's attacks and answers rule hands out: a hand is
consistent when replaying the history with it is legal, and that is
exactly a floor (`tacocat.rules.history.hand_floor`: every card at least
the opponent's highest forced sacrifice).  The consistent card subsets are
then exactly the card subsets of the *opponent pool* — the unseen cards of
rank at least the floor — so drawing uniformly from it, and weighting a
multiset by prod_r C(opp_pool_r, k_r) / C(|opp_pool|, n), is the
information set of R20 with its weights; the cards below the floor can
only be in the draw pile.

The sampler is swappable: searches take any object with the `WorldSampler`
shape — `sample(rng)` and `enumerate(budget)` for hands, `sample_packed` and
`enumerate_packed` for the same in the core's packed form (what PIMC hands
the core, so no search converts hands per world), `deal(rng)` for a hand
with the draw pile (the replacement) — e.g. one that weights hands by a
model of the opponent's earlier choices (`tacocat.search.inference`).  A
sampler that subclasses `WorldSampler` inherits packed methods built on
`sample` and `enumerate`; one that packs faster overrides them, and every
search then uses its own (there is no fast path reserved to `HandSampler`)."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb
from typing import Iterator, Protocol, Sequence

from tacocat.core.exact import packed, sub_hands
from tacocat.errors import PositionError, TacocatError
from tacocat.rules.cards import Hand, counts, hand
from tacocat.rules.history import hand_floor
from tacocat.rules.views import View

DEFAULT_EXACT_BUDGET = 2000
"""Enumerate opponent hands exactly when there are at most this many
distinct ones (`hint(method="auto")`)."""


class WorldSampler(Protocol):
    """What a search needs from a world sampler (module docstring).  The
    packed methods have default bodies, inherited by a class that names
    `WorldSampler` as its base: the same hands as `sample` / `enumerate`,
    packed one by one."""

    def sample(self, rng: random.Random) -> Hand:
        """One opponent hand."""
        ...

    def sample_packed(self, rng: random.Random) -> int:
        """`sample(rng)` packed for the core (`tacocat.core.exact.packed`):
        the same hand from the same draws of `rng`."""
        return packed(self.sample(rng))

    def enumerate(self, budget: int | None = None) -> list[tuple[Hand, float]] | None:
        """Every distinct opponent hand with its probability, or None when
        there are more than `budget`."""
        ...

    def enumerate_packed(self, budget: int | None = None) -> list[tuple[int, float]] | None:
        """`enumerate(budget)` with the hands packed for the core (same
        hands, order and weights)."""
        listed = self.enumerate(budget)
        return None if listed is None else [(packed(h), p) for h, p in listed]

    def deal(self, rng: random.Random) -> tuple[Hand, list[int]]:
        """An opponent hand and the draw pile (the rest of the unseen pool)
        in a random order, drawn from the end (the replacement's worlds)."""
        ...

    active: bool = False
    """Whether `weight` weighs the sampled hands (False: R20's uniform
    worlds, every hand weighing 1, and the searches skip the call)."""

    def weight(self, opp: Hand) -> float:
        """The importance weight of a sampled hand (an inference sampler's
        likelihood of the opponent's observed choices)."""
        return 1.0


def world_hands(view: View, opp: Hand) -> tuple[Hand, Hand]:
    """Both hands of the world in which the opponent holds `opp`, player 0's
    first (the order the perfect-information solvers take)."""
    return (view.hand, opp) if view.player == 0 else (opp, view.hand)


def rng_from(seed: int | random.Random) -> random.Random:
    """A `random.Random` from an int seed (or the generator itself)."""
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TacocatError(f"seed must be an integer, got {seed!r}")
    return random.Random(seed)


class HandSampler(WorldSampler):
    """Opponent hands drawn uniformly from the consistent card subsets of a
    view's unseen pool (R20, module docstring).

    `pool` is the unseen pool (deck - own hand - face-up cards, RULES §5),
    `floor` the least rank the opponent may hold after the round's history,
    `opp_pool` the pool's cards of rank >= floor (the opponent's hand is a
    card subset of it) and `size` the opponent's hand size."""

    def __init__(self, view: View) -> None:
        if not isinstance(view, View):
            raise TacocatError(f"a sampler needs a View (a player's information set), got {type(view).__name__}")
        self.pool: Hand = view.unseen_pool
        self.size: int = view.opponent_hand_size
        self.floor: int = hand_floor(view.play_history, 1 - view.player)
        self.opp_pool: Hand = tuple(c for c in self.pool if c >= self.floor)
        if not 0 <= self.size <= len(self.opp_pool):
            raise PositionError(
                f"opponent_hand_size {self.size} impossible with {len(self.opp_pool)} unseen cards"
                + (f" of rank {self.floor} or more (its sacrifices, R20)" if self.floor > 1 else ""),
                "R20" if self.floor > 1 else "R1",
            )
        self.pool_counts = counts(self.opp_pool)
        self._cards = list(self.opp_pool)
        self._below = [c for c in self.pool if c < self.floor]

    # ----------------------------------------------------------- sampling
    def sample(self, rng: random.Random) -> Hand:
        """A uniformly random card subset of the opponent pool, as a sorted hand."""
        return hand(rng.sample(self._cards, self.size))

    def sample_packed(self, rng: random.Random) -> int:
        """`sample` packed for the core (the same draw from the same RNG)."""
        return packed(rng.sample(self._cards, self.size))

    def deal(self, rng: random.Random) -> tuple[Hand, list[int]]:
        """An opponent hand and the draw pile in a random order (drawing
        from the end, as `GameState` does): the hand a uniform card subset
        of the opponent pool, the pile the rest of the unseen pool."""
        cards = self._cards[:]
        rng.shuffle(cards)
        if not self._below:  # no floor: the same draws as an unconditioned shuffle
            return hand(cards[: self.size]), cards[self.size :]
        pile = cards[self.size :] + self._below
        rng.shuffle(pile)
        return hand(cards[: self.size]), pile

    def samples(self, n: int, seed: int | random.Random = 0) -> list[Hand]:
        """`n` sampled opponent hands from `seed` (an int or a generator)."""
        rng = rng_from(seed)
        return [self.sample(rng) for _ in range(n)]

    # -------------------------------------------------------- enumeration
    def count(self) -> int:
        """How many distinct opponent hands (multisets) there are."""
        # ways[k] = number of distinct multisets of size k over ranks so far
        ways = [1] + [0] * self.size
        for r in range(1, 13):
            c = self.pool_counts[r]
            if not c:
                continue
            new = [0] * (self.size + 1)
            for k, w in enumerate(ways):
                if w:
                    for t in range(min(c, self.size - k) + 1):
                        new[k + t] += w
            ways = new
        return ways[self.size]

    def probability(self, opp: Sequence[int]) -> Fraction:
        """Exact probability that the opponent holds the multiset `opp`."""
        c = counts(opp)
        if len(opp) != self.size:
            return Fraction(0)
        num = 1
        for r in range(1, 13):
            num *= comb(self.pool_counts[r], c[r])
        return Fraction(num, comb(len(self.opp_pool), self.size))

    def iter_hands(self) -> Iterator[tuple[Hand, int]]:
        """Every distinct consistent opponent hand with its multiplicity (the
        number of card subsets that form it, R20); multiplicities sum to
        C(|opp_pool|, n)."""
        ranks = [r for r in range(1, 13) if self.pool_counts[r]]
        # the most cards the ranks from index i on can still supply
        room = [0] * (len(ranks) + 1)
        for i in range(len(ranks) - 1, -1, -1):
            room[i] = room[i + 1] + self.pool_counts[ranks[i]]

        def rec(i: int, left: int, cards: tuple, mult: int):
            if left == 0:
                yield cards, mult
                return
            if i == len(ranks) or room[i] < left:
                return
            r = ranks[i]
            c = self.pool_counts[r]
            for t in range(min(c, left), -1, -1):
                yield from rec(i + 1, left - t, cards + (r,) * t, mult * comb(c, t))

        for cards, mult in rec(0, self.size, (), 1):
            yield hand(cards), mult

    def _within(self, budget: int | None) -> bool:
        """At most `budget` distinct hands (None: no limit); every view has
        at least one, so a budget below 1 needs no count."""
        return budget is None or (budget >= 1 and self.count() <= budget)

    def enumerate_packed(self, budget: int | None = DEFAULT_EXACT_BUDGET) -> list[tuple[int, float]] | None:
        """`enumerate` with the hands packed for the core, listed by the
        core (`tacocat.core.exact.sub_hands`, same hands, order and weights)."""
        if not self._within(budget):
            return None
        total = comb(len(self.opp_pool), self.size)
        return [(h, m / total) for h, m in sub_hands(self.opp_pool, self.size)]

    def enumerate(self, budget: int | None = DEFAULT_EXACT_BUDGET) -> list[tuple[Hand, float]] | None:
        """Every distinct opponent hand with its exact probability, or None
        when there are more than `budget` of them (None budget: no limit)."""
        if not self._within(budget):
            return None
        total = comb(len(self.opp_pool), self.size)
        return [(h, m / total) for h, m in self.iter_hands()]
