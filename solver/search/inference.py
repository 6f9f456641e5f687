"""Inference: worlds weighted by what the opponent did this round (issue 24).

R20 rules hands out (a sacrifice floors the hand); everything else the
opponent did in the open this round — which cards it discarded face up and
how many (R7/R8), which card it dueled (R9) — is evidence too: a player who
keeps all its cards probably holds a good hand.  A *model* of how a player
chooses gives each of those actions a probability given the hand it held
then, and a world (an opponent hand consistent with the view, RULES §5) is
weighted by the likelihood of the observed actions under the model, times
its R20 prior weight.  This is a search choice, not a rule (RULES §5): the
worlds are the same, only their weights change.

Models (`MODELS`, swappable: `model_of(name)`):

- `uniform` (also `off`): every action equally likely whatever the hand —
  the likelihood is the same for every world, so the weights are R20's
  alone, exactly as before inference.  The searches are then given the
  plain `HandSampler`, so their answers are bit for bit the ones without
  inference (tests/test_inference.py).
- `policy` (`policy:T` for a temperature T, default `DEFAULT_TEMPERATURE`):
  the engine's own fast static policy (`tacocat.search.decisions.static_score`,
  which pre-ranks discards and models the opponent's reply) as a softmax:
  a discard set D from the dealt hand H0, among all legal discards, has
  probability proportional to exp(score(H0 - D, D) / T), the static score
  of the hand kept plus the expected score of the |D| cards drawn; a duel
  card j from hand H, proportional to exp(j / (T * DUEL_SCALE)) over H's
  distinct ranks (the static policy duels its highest card), or uniform
  (`DUEL_SCALE` None, the default: the fit to pimc_classic's duels).  T -> 0
  is the static policy itself, T -> infinity the uniform model.  T = 1 is
  the best of 0.25 .. 8 on 140 replacements of `pimc_classic` at level-5
  budgets (log-likelihood a decision: -2.33 at T = 1, -2.58 at 0.5, -2.69
  at 2, -3.45 at 8).
- room for a model fitted to recorded games: `register_model(name,
  factory)` with an object of the `PlayerModel` shape.

The likelihood of a world.  The sampler proposes the opponent's current
hand H.  Its hand after the replacement is H_post = H + its duel cards +
the cards it played this round; its dealt hand was H0 = (H_post - S) + D
for the unknown set S of the |D| cards it drew — by the symmetry of the
shuffle every |D|-card subset of H_post is a priori equally likely to be
S, so  L(H) = mean over S of P(D | H0) * prod over duels P(j_i | hand_i).
For the static softmax, P(D | H0) = prod_{c in D} x_c / Z(H0, cap) with
x_c = exp((e - |c - 6.5|) / T) (e the deck's mean |rank - 6.5|), and Z the
sum of the same product over every legal discard of H0 (at most `cap`
cards, R7), a small polynomial over ranks; the numerator is the same in
every world, so only Z varies.

Weighted enumeration where the hands are few (`enumerate`), importance
weights on uniformly sampled worlds where not (`weight`); the effective
sample size (sum w)^2 / sum w^2 of the worlds a search used is reported
(`ess`)."""

from __future__ import annotations

import bisect
import math
import random
from math import comb
from typing import Callable, Protocol, Sequence

from tacocat.core.exact import packed
from tacocat.errors import TacocatError
from tacocat.rules.cards import Hand, counts, hand
from tacocat.rules.events import DealEvent, DuelEvent, PlayEvent, ReplaceEvent
from tacocat.rules.ruleset import Arrow
from tacocat.rules.views import View
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler

DEFAULT_TEMPERATURE = 1.0
DUEL_SCALE: float | None = None
"""The duel card's temperature is T * DUEL_SCALE; None: a duel card says
nothing of the hand beyond the card itself (every card equally likely).
Fitted on 150 duels of `pimc_classic` at level-5 budgets (results/strength_whole.md):
the search bots duel by a mixed strategy, and the log-likelihood of their
duel cards rises toward the uniform model's as the scale grows (-2.20 a
duel at T * DUEL_SCALE = 3, -1.67 at 24), so the default reads no more
into a duel than the card it removes from the hand."""
OFF = ("off", "uniform")
SIR_POOL = 256
"""Replacement worlds (a hand and a draw pile) are drawn from the weighted
posterior by resampling a pool of this many uniform deals."""


class PlayerModel(Protocol):
    """How a player chooses, as probabilities of its public actions."""

    name: str

    def discard_likelihoods(self, dealt: Sequence[Hand], discard: Hand, cap: int) -> list[float]:
        """P(discard | dealt hand, at most `cap` cards) for each dealt hand,
        up to a factor common to all of them."""
        ...

    def count_likelihood(self, dealt: tuple[int, ...], cap: int) -> float:
        """`discard_likelihoods` of the observed discard for one dealt hand
        given as rank counts (index 0 unused): the form the sampler calls."""
        ...

    def duel_likelihood(self, held: Hand, card: int) -> float:
        """P(dueling `card` | holding `held`)."""
        ...


class StaticSoftmax:
    """The static policy as a softmax at temperature T (module docstring)."""

    def __init__(self, temperature: float = DEFAULT_TEMPERATURE, deck: Sequence[int] | None = None) -> None:
        if not (isinstance(temperature, (int, float)) and 0 < temperature < 1e6):
            raise TacocatError(f"inference policy: the temperature must be a positive number, got {temperature!r}")
        self.temperature = float(temperature)
        self.duel_scale = DUEL_SCALE
        self.name = "policy" if self.temperature == DEFAULT_TEMPERATURE else f"policy:{self.temperature:g}"
        cards = list(deck) if deck else list(range(1, 13))
        e = sum(abs(r - 6.5) for r in cards) / len(cards)
        self.x = [0.0] + [math.exp((e - abs(r - 6.5)) / self.temperature) for r in range(1, 13)]
        self._z: dict[tuple, float] = {}
        self._zc: dict[tuple, float] = {}
        self._g: dict[tuple, float] = {}
        self._tables: dict[tuple, tuple[list[Hand], list[float]]] = {}

    def _partition(self, rank_counts: Sequence[int], cap: int) -> float:
        """Z of a dealt hand given as rank counts (index 0 unused): the sum
        over its sub-multisets of at most `cap` cards of prod x, built as a
        polynomial in the discard's size."""
        poly = [1.0] + [0.0] * cap
        for r in range(1, 13):
            m = rank_counts[r]
            if not m:
                continue
            xr = self.x[r]
            new = poly[:]
            for s in range(cap + 1):
                p = poly[s]
                if p:
                    for t in range(1, min(m, cap - s) + 1):
                        p *= xr
                        new[s + t] += p
            poly = new
        return sum(poly)

    def _z_of(self, dealt: Hand, cap: int) -> float:
        key = (dealt, cap)
        z = self._z.get(key)
        if z is None:
            z = self._z[key] = self._partition(counts(dealt), cap)
        return z

    def discard_likelihoods(self, dealt: Sequence[Hand], discard: Hand, cap: int) -> list[float]:
        return [1.0 / self._z_of(h, cap) for h in dealt]

    def rank_factor(self, rank: int, m: int) -> float:
        """1 / (1 + x + ... + x^m) for x = x_rank: with no binding cap, 1/Z of
        a dealt hand is the product of these over its ranks (m cards each)."""
        key = (rank, m)
        f = self._g.get(key)
        if f is None:
            x = self.x[rank]
            f = self._g[key] = 1.0 / sum(x**t for t in range(m + 1))
        return f

    def count_likelihood(self, dealt: tuple[int, ...], cap: int) -> float:
        """`discard_likelihoods` of one dealt hand given as rank counts
        (index 0 unused), up to the common factor: 1 / Z(dealt, cap)."""
        key = (dealt, cap)
        z = self._zc.get(key)
        if z is None:
            z = self._zc[key] = 1.0 / self._partition(dealt, cap)
        return z

    def discard_table(self, dealt: Hand, cap: int) -> tuple[list[Hand], list[float]]:
        """Every legal discard of `dealt` (at most `cap` cards, R7/R8) and the
        running sum of their probabilities under the softmax, for drawing
        the opponent's reply in the round search (`sample_discard`)."""
        key = (dealt, cap)
        table = self._tables.get(key)
        if table is None:
            c = counts(dealt)
            opts: list[tuple[Hand, float]] = [((), 1.0)]
            for r in range(1, 13):
                if not c[r]:
                    continue
                grown = []
                for d, w in opts:
                    for t in range(1, min(c[r], cap - len(d)) + 1):
                        grown.append((d + (r,) * t, w * self.x[r] ** t))
                opts += grown
            acc, run = [], 0.0
            for _, w in opts:
                run += w
                acc.append(run)
            if len(self._tables) > 100_000:
                self._tables.clear()
            table = self._tables[key] = ([d for d, _ in opts], acc)
        return table

    def sample_discard(self, dealt: Hand, cap: int, u: float) -> Hand:
        """The discard at quantile `u` in [0, 1) of P(D | dealt, cap): the
        same `u` gives the same reply, so candidates compared on a world
        meet the same opponent (common random numbers)."""
        discards, acc = self.discard_table(dealt, cap)
        return discards[min(bisect.bisect_right(acc, u * acc[-1]), len(acc) - 1)]

    def duel_likelihood(self, held: Hand, card: int) -> float:
        if self.duel_scale is None:
            return 1.0
        beta = 1.0 / (self.temperature * self.duel_scale)
        ranks = set(held)
        top = max(ranks)
        return math.exp(beta * (card - top)) / sum(math.exp(beta * (r - top)) for r in ranks)


MODELS: dict[str, Callable[..., PlayerModel]] = {"policy": StaticSoftmax}
"""Inference models by name (besides `off`/`uniform`, which weight nothing)."""


def register_model(name: str, factory: Callable[..., PlayerModel]) -> None:
    """Offer another model (e.g. one fitted to recorded games) by name."""
    if not name or ":" in name or name in OFF:
        raise TacocatError(f"inference model name {name!r} is taken or malformed")
    MODELS[name] = factory


def check_inference(name: str | None) -> str:
    """The canonical name of an inference option, or a one-line error."""
    if name is None:
        return "off"
    if not isinstance(name, str):
        raise TacocatError(f"inference must be a model name, got {name!r}")
    base, _, arg = name.partition(":")
    if base in OFF and not arg:
        return "uniform" if base == "uniform" else "off"
    if base not in MODELS:
        raise TacocatError(
            f"inference {name!r} unknown; expected off, uniform or one of "
            f"{', '.join(sorted(MODELS))} (policy:T for a temperature T)"
        )
    if arg:
        try:
            t = float(arg)
        except ValueError:
            raise TacocatError(f"inference {name!r}: the temperature after ':' must be a number") from None
        model_of(name, t)  # validates
    return name


_MODELS_MADE: dict[tuple, PlayerModel] = {}


def model_of(name: str, temperature: float | None = None, rules=None) -> PlayerModel:
    """The model named `name` ("policy", "policy:0.5", a registered one).
    Models are kept (their caches of dealt hands serve every later search)."""
    base, _, arg = name.partition(":")
    factory = MODELS[base]
    t = temperature if temperature is not None else (float(arg) if arg else DEFAULT_TEMPERATURE)
    deck = tuple(rules.deck_cards()) if rules is not None else None
    key = (base, t, deck, id(factory))
    model = _MODELS_MADE.get(key)
    if model is None or len(getattr(model, "_zc", ())) > 500_000:
        model = _MODELS_MADE[key] = factory(t, deck)
    return model


def observations(view: View) -> tuple[Hand | None, int, list[int], list[int]]:
    """The opponent's public actions this round: its discard (None if it has
    not replaced), its cap, its duel cards in order and the cards it has
    played since (attacks and answers)."""
    o = 1 - view.player
    discard: Hand | None = None
    mine = 0
    n = len(view.hand)  # a view built without its history: no observation needs it
    duels: list[int] = []
    played: list[int] = []
    for e in view.history:
        if isinstance(e, DealEvent):
            n = e.hand_size
        elif isinstance(e, ReplaceEvent):
            if e.player == o:
                discard = hand(e.cards)
            else:
                mine = len(e.cards)
        elif isinstance(e, DuelEvent):
            duels.append(e.cards[o])
        elif isinstance(e, PlayEvent) and e.player == o:
            played.extend(e.cards)
    if view.first_replacer in (Arrow.BOTH, (Arrow.P0, Arrow.P1)[o]):
        cap = n
    else:
        cap = mine  # R7: the second replacer discards at most the first's count
    return discard, cap, duels, played


def _rank_product(factor: Callable[[int, int], float], pc: list[int], dc: list[int], ranks: list[int], k: int) -> float:
    """The discard's likelihood summed over the cards drawn when no cap
    binds (R8, or the first replacer): Z(H0) is a product over ranks, so
    the sum over S is the z^k coefficient of a product of per-rank
    polynomials: sum_t C(pc_r, t) / g_r(pc_r - t + dc_r) z^t."""
    poly = [1.0] + [0.0] * k
    for r in ranks:
        terms = [comb(pc[r], t) * factor(r, pc[r] - t + dc[r]) for t in range(min(pc[r], k) + 1)]
        poly = _times(poly, terms, k)
    # ranks the hand after the replacement lacks: only discarded cards, t = 0
    for r in range(1, 13):
        if dc[r] and not pc[r]:
            poly = [x * factor(r, dc[r]) for x in poly]
    return poly[k]


def _times(poly: list[float], terms: list[float], k: int) -> list[float]:
    """The product of two polynomials, up to z^k."""
    new = [0.0] * (k + 1)
    for a, pa in enumerate(poly):
        if pa:
            for t, q in enumerate(terms):
                if a + t > k:
                    break
                new[a + t] += pa * q
    return new


class InferenceSampler(HandSampler):
    """A `HandSampler` whose worlds carry the likelihood of the opponent's
    observed actions under `model` (module docstring): `weight(hand)` for
    importance weights on sampled hands, `enumerate` weighted and
    renormalised, `deal` resampled from a weighted pool.  `ess()` is the
    effective sample size of the weights handed out so far."""

    def __init__(self, view: View, model: PlayerModel) -> None:
        super().__init__(view)
        self.model = model
        self.discard, self.cap, self.duels, self.played = observations(view)
        self.active = self.discard is not None or bool(self.duels)
        self._w: dict[Hand, float] = {}
        self.sum_w = 0.0
        self.sum_w2 = 0.0
        self.used = 0
        self._enum_ess: float | None = None
        self._drawn = 0
        self._pool: list[tuple[Hand, list[int]]] = []
        self._pool_w: list[float] = []

    # ------------------------------------------------------------ weights
    def likelihood(self, opp: Hand) -> float:
        """L(opp): the probability of the opponent's observed actions this
        round if it holds `opp` now (up to a factor common to every hand)."""
        w = self._w.get(opp)
        if w is not None:
            return w
        post = list(opp) + self.duels + self.played
        w = self._duels_likelihood(post) if self.duels else 1.0
        if self.discard is not None:
            w *= self._replace_likelihood(post)
        self._w[opp] = w
        return w

    def _duels_likelihood(self, post: list[int]) -> float:
        """The probability of the opponent's duel cards (R9), each from the
        hand it held then."""
        w = 1.0
        held = list(post)
        for j in self.duels:
            w *= self.model.duel_likelihood(hand(held), j)
            held.remove(j)
        return w

    def _replace_likelihood(self, post: list[int]) -> float:
        """The probability of the opponent's discard (R7-R8) given `post`,
        its hand after the replacement: the sum over the cards it drew."""
        assert self.discard is not None
        k = len(self.discard)
        pc = [0] * 13
        for c in post:
            pc[c] += 1
        dc = [0] * 13
        for c in self.discard:
            dc[c] += 1
        ranks = [r for r in range(1, 13) if pc[r]]
        factor = getattr(self.model, "rank_factor", None)
        if factor is not None and self.cap >= len(post):
            return _rank_product(factor, pc, dc, ranks, k) / comb(len(post), k)
        return self._drawn_sum(pc, dc, ranks, k) / comb(len(post), k)

    def _drawn_sum(self, pc: list[int], dc: list[int], ranks: list[int], k: int) -> float:
        """The model's likelihood summed over every sub-multiset S of the
        hand with k cards (the cards drawn), weighted by its card-subset count."""
        z_of = self.model.count_likelihood
        total = 0.0
        stack = [(0, k, 1, pc[:])]
        while stack:
            i, left, m, dealt = stack.pop()
            if left == 0:
                total += m * z_of(tuple(a + b for a, b in zip(dealt, dc)), self.cap)
                continue
            if i == len(ranks):
                continue
            r = ranks[i]
            for t in range(min(pc[r], left) + 1):
                if t:
                    nd = dealt[:]
                    nd[r] -= t
                else:
                    nd = dealt
                stack.append((i + 1, left - t, m * comb(pc[r], t), nd))
        return total

    def weight(self, opp: Hand) -> float:
        """The importance weight of a uniformly sampled hand (counted in `ess`)."""
        w = self.likelihood(opp)
        self.sum_w += w
        self.sum_w2 += w * w
        self.used += 1
        return w

    def ess(self) -> float | None:
        """Effective sample size of the weights handed out: (sum w)^2 / sum w^2."""
        if self._enum_ess is not None:
            return self._enum_ess
        if not self.used or self.sum_w2 <= 0:
            return None
        return self.sum_w * self.sum_w / self.sum_w2

    # --------------------------------------------------------- enumeration
    def enumerate(self, budget: int | None = DEFAULT_EXACT_BUDGET) -> list[tuple[Hand, float]] | None:
        listed = super().enumerate(budget)
        if listed is None or not self.active:
            return listed
        ws = [p * self.likelihood(h) for h, p in listed]
        total = sum(ws)
        if total <= 0:  # the model rules every hand out: fall back on R20's weights
            return listed
        out = [(h, w / total) for (h, _), w in zip(listed, ws, strict=True)]
        # against R20's weights: the hands' number times the efficiency 1 / sum(post^2 / prior)
        # (the number of hands itself when the model changes nothing)
        self._enum_ess = len(out) / sum(w * w / p for (_, w), (_, p) in zip(out, listed, strict=True))
        return out

    def enumerate_packed(self, budget: int | None = DEFAULT_EXACT_BUDGET) -> list[tuple[int, float]] | None:
        if not self.active:
            return super().enumerate_packed(budget)
        listed = self.enumerate(budget)
        return None if listed is None else [(packed(h), p) for h, p in listed]

    # ------------------------------------------------------ replacement
    def deal(self, rng: random.Random) -> tuple[Hand, list[int]]:
        """A deal drawn from the weighted posterior: sampling-importance-
        resampling from a pool of `SIR_POOL` uniform deals (redrawn as it
        is used up)."""
        if not self.active:
            return super().deal(rng)
        if not self._pool or self._drawn >= SIR_POOL:
            self._drawn = 0
            self._pool = [super(InferenceSampler, self).deal(rng) for _ in range(SIR_POOL)]
            self._pool_w = [self.weight(h) for h, _ in self._pool]
        self._drawn += 1
        i = rng.choices(range(len(self._pool)), weights=self._pool_w)[0]
        h, pile = self._pool[i]
        return h, pile[:]


def inference_sampler(view: View, name: str | None) -> HandSampler:
    """The sampler a search uses under inference option `name`: the plain
    `HandSampler` (R20's weights) for off/uniform or when the opponent has
    done nothing this round to read; else an `InferenceSampler`."""
    name = check_inference(name)
    if name in OFF:
        return HandSampler(view)
    s = InferenceSampler(view, model_of(name, rules=view.rules))
    return s if s.active else HandSampler(view)
