"""The duel (R9) as a Bayesian game: each player's duel card depends on its own hand.

`tacocat.search.decisions.duel_eval` solves the duel as one matrix game
whose cells average the worlds, so the opponent plays one mix for all the
hands it may hold and nothing models that its choice depends on what it
believes I hold (issue 34).  Here the duel is the game it is, cut down to
types that can be listed or sampled:

- the opponent's types are its hands consistent with my view (RULES §5,
  R20), from the search's sampler: every hand with its probability when
  they are few (`WorldSampler.enumerate`), else a seeded sample, each
  draw weighing 1 (times an inference sampler's importance weight);
- my types are my real hand and the hands the opponent cannot tell from
  it.  Before the play nothing of my hand is public beyond my discards and
  how many I drew, and under the shuffle (R6) those say nothing of which
  cards I kept: from the opponent's side my hand is a card subset of the
  *public pool* (deck - face-up cards, which includes my hand's cards)
  less its own hand.  So the joint deal is a pair of disjoint card subsets
  of the public pool, the pair (M, O) weighing
  prod_r C(pub_r, m_r) C(pub_r - m_r, o_r) card pairs.  My other types are
  every such hand when they are few, else a seeded sample of the public
  pool's card subsets, my real hand counting as one more draw;
- a pair of types weighs its joint probability: w(M, O) = pi(M) P(O | M)
  * lambda(O), with pi(M) the public pool's probability of M (enumerated)
  or its count among the draws (sampled), P(O | M) the chance the
  opponent holds O given that I hold M (zero when together they use a
  rank more often than the public pool holds it) and lambda(O) =
  omega(O) / P(O | my real hand) the correction for having drawn the
  opponent's types given my real hand (omega is the sampler's weight).
  My real hand's pairs weigh exactly the sampler's worlds, as in
  `duel_eval`; for R20's own sampler the enumerated game is the exact
  joint deal restricted to the opponent hands my view allows;
- a cell (my type, my card, its type, its card) is the round after the
  duel with both hands known (`tacocat.search.decisions.cell_outcome`: the
  perfect-information play phase, a tie approximated by both dueling
  their highest card, as in `duel_eval`);
- one simultaneous move per type, so the sequence form is the normal form
  per type: my payoff is x' P y with x my cards' probabilities per type
  and y the opponent's, P the pair-weighted cells.  It is solved by
  predictive CFR+ (`solve_bayesian`) in numpy, anytime: the cells come
  first (between opponent types the clock and the stop are read), the
  iterations get the rest of the time.

The answer is my real hand's mixed strategy against the opponent's
average strategy, the game's value and the exploitability of the average
strategies within the game (what each side gains by a best response).

What it leaves out: the opponent's hands that my real hand rules out are
not types, so my other types meet only the opponent hands compatible with
my real hand (the knowledge-limited cut of Zhang & Sandholm 2021); every
opponent type's belief about my hand is the public one, exact when my
types are enumerated."""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass
from math import comb
from typing import Any, ClassVar, Iterator, Sequence

import numpy as np

from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand, counts, hand
from tacocat.rules.game import DUEL, View
from tacocat.search.budget import WALL, Budget, Clock, budget_of
from tacocat.search.decisions import MIN_DUEL_WORLDS, cell_outcome
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.search.pimc import PerfectSolver, rank_moves
from tacocat.search.results import MixedMove, MoveEval, PlayResult
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler, WorldSampler, rng_from

DEFAULT_OPPONENT_TYPES = 200
"""Sampled opponent hands when they are too many to list and the budget gives no count."""
DEFAULT_MY_TYPES = 12
"""Sampled hands of mine besides the real one (about 70 % of them meet any
given opponent hand in the standard deck's duels)."""
EXACT_PAIRS = 40_000
"""My types are listed when (my hands) x (opponent hands) is at most this."""
DEFAULT_ITERATIONS = 2000
"""Iterations at most (the target usually ends them sooner)."""
MIN_ITERATIONS = 40
"""Iterations run even when the time is out or a stop is set."""
DEFAULT_TARGET = 1e-4
"""The iterations stop once the exploitability is at most this."""
CHECK_EVERY = 20
"""Iterations between two exploitability checks."""
CELL_SHARE = 0.8
"""Share of a time budget the cells may take; the iterations get the rest."""


# ---------------------------------------------------------------- the types


def sub_multisets(pool: Sequence[int], size: int) -> Iterator[tuple[Hand, int]]:
    """Every distinct hand of `size` cards from `pool` with the number of
    card subsets that form it."""
    c = counts(pool)
    ranks = [r for r in range(1, 13) if c[r]]
    room = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        room[i] = room[i + 1] + c[ranks[i]]

    def rec(i: int, left: int, cards: tuple[int, ...], mult: int) -> Iterator[tuple[Hand, int]]:
        if left == 0:
            yield hand(cards), mult
            return
        if i == len(ranks) or room[i] < left:
            return
        r = ranks[i]
        for t in range(min(c[r], left), -1, -1):
            yield from rec(i + 1, left - t, cards + (r,) * t, mult * comb(c[r], t))

    yield from rec(0, size, (), 1)


def _count_multisets(pool: Sequence[int], size: int, limit: int) -> int:
    """How many distinct hands of `size` cards `pool` holds (stops counting past `limit`)."""
    c = counts(pool)
    ways = [1] + [0] * size
    for r in range(1, 13):
        if not c[r]:
            continue
        new = [0] * (size + 1)
        for k, w in enumerate(ways):
            if w:
                for t in range(min(c[r], size - k) + 1):
                    new[k + t] += w
        ways = new
        if ways[size] > limit:
            return ways[size]
    return ways[size]


_COMB = np.array([[comb(n, k) for k in range(13)] for n in range(13)], dtype=float)
"""C(n, k) for the rank counts a deck may hold (RULES §8: at most 8 a rank)."""


def _count_rows(hands: Sequence[Hand]) -> np.ndarray:
    return np.array([counts(h)[1:] for h in hands], dtype=np.intp).reshape(len(hands), 12)


def opponent_given(pub: np.ndarray, mine: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """prod_r C(pub_r - m_r, o_r) for every row of `mine` (my hands' rank
    counts) and of `opp`: proportional to P(opponent holds O | I hold M)
    (the common denominator C(|pub| - n, n) left out), 0 where together
    they hold a rank more often than the public pool `pub`."""
    left = pub[None, :] - mine  # (A, 12), never negative: my hands come from the pool
    # rows with left < opp get C(left, o) = 0 from the table (k > n)
    return _COMB[left[:, None, :], opp[None, :, :]].prod(axis=2)


@dataclass
class BayesianDuel:
    """The duel's Bayesian game as built (module docstring).  Type 0 of
    mine is my real hand.  `weight[a, b]` is the pair's joint weight (0:
    incompatible), `cells[(a, b)]` the pair's outcome indices (0 my win,
    1 draw, 2 my loss) by (my card, its card) over each hand's distinct
    cards in increasing order; only pairs of positive weight have cells,
    and only for the opponent types `used`."""

    my_hands: list[Hand]
    opp_hands: list[Hand]
    weight: np.ndarray
    cells: dict[tuple[int, int], np.ndarray]
    used: int
    my_exact: bool
    opp_exact: bool

    @property
    def my_cards(self) -> list[tuple[int, ...]]:
        return [tuple(sorted(set(h))) for h in self.my_hands]

    @property
    def opp_cards(self) -> list[tuple[int, ...]]:
        return [tuple(sorted(set(h))) for h in self.opp_hands[: self.used]]

    def payoff(self, utilities: Sequence[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(P, my segment starts, the opponent's segment starts): P[s, t]
        the pair weight times my utility, over my sequences s (a type's
        card) and the opponent's t, normalised by the total weight so that
        x' P y is my expected utility over the joint deal."""
        u = np.asarray(utilities, dtype=float)
        mine = self.my_cards
        theirs = self.opp_cards
        ms = np.cumsum([0] + [len(c) for c in mine])
        os_ = np.cumsum([0] + [len(c) for c in theirs])
        p = np.zeros((int(ms[-1]), int(os_[-1])))
        total = 0.0
        for (a, b), idx in self.cells.items():
            w = self.weight[a, b]
            total += w
            p[ms[a] : ms[a + 1], os_[b] : os_[b + 1]] = w * u[idx]
        if total <= 0:  # pragma: no cover - my real hand meets every opponent type
            raise TacocatError("the duel's game has no pair of compatible hands")
        return p / total, ms[:-1], os_[:-1]


def _my_types(view: View, rng: random.Random, n_opp: int, my_types: int, exact_budget: int | None):
    """My hands (the real one first) with their prior weights pi, and
    whether they are every hand the opponent cannot tell from mine."""
    pub = hand(view.unseen_pool + view.hand)
    n = len(view.hand)
    limit = EXACT_PAIRS // max(1, n_opp)
    if exact_budget is not None:
        limit = min(limit, exact_budget)
    if my_types > 0 and (exact_budget is None or exact_budget >= 0):
        if _count_multisets(pub, n, limit) <= limit:
            listed = list(sub_multisets(pub, n))
            total = comb(len(pub), n)
            hands = [h for h, _ in listed]
            prior = [m / total for _, m in listed]
            k = hands.index(view.hand)
            order = [k] + [i for i in range(len(hands)) if i != k]
            return [hands[i] for i in order], np.array([prior[i] for i in order]), True
    # the real hand is one draw of the public pool's card subsets; equal hands merge
    drawn: dict[Hand, float] = {view.hand: 1.0}
    cards = list(pub)
    for _ in range(my_types):
        h = hand(rng.sample(cards, n))
        drawn[h] = drawn.get(h, 0.0) + 1.0
    return list(drawn), np.array(list(drawn.values())), False


class _OpponentTypes:
    """The opponent's types, listed or drawn lazily (a time budget may stop early)."""

    def __init__(self, sampler: WorldSampler, exact_budget: int | None, n: int, rng: random.Random) -> None:
        listed = sampler.enumerate(exact_budget) if exact_budget is None or exact_budget >= 0 else None
        self.listed = listed
        self.exact = listed is not None
        self.sampler, self.n, self.rng = sampler, (len(listed) if listed is not None else n), rng

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[tuple[Hand, float]]:
        if self.listed is not None:
            yield from self.listed
            return
        weigh = getattr(self.sampler, "weight", None) if getattr(self.sampler, "active", False) else None
        for _ in range(self.n):
            h = self.sampler.sample(self.rng)
            yield h, (1.0 if weigh is None else weigh(h))


def build_duel_game(
    view: View,
    budget: Budget,
    solver: PerfectSolver,
    sampler: WorldSampler,
    *,
    my_types: int = DEFAULT_MY_TYPES,
    exact_budget: int | None = DEFAULT_EXACT_BUDGET,
    minimum: int = MIN_DUEL_WORLDS,
    deadline: float | None = None,
    start: float | None = None,
) -> BayesianDuel:
    """The duel's game at `view` (module docstring): the opponent's types
    from `sampler` (listed when at most `exact_budget`, a negative budget:
    always sampled, `budget.samples` of them or `DEFAULT_OPPONENT_TYPES`),
    mine listed when the pairs fit `EXACT_PAIRS` and `exact_budget`, else
    `my_types` draws besides my real hand.  The cells are solved opponent
    type by opponent type; `deadline` (on the budget's clock) or a stop
    ends them once `minimum` opponent types are in."""
    b = budget
    t0 = b.now() if start is None else start
    n_default = DEFAULT_OPPONENT_TYPES if b.time_ms is None else 100_000
    n = b.samples if b.samples is not None else n_default
    opp_rng = rng_from(b.seed)  # the same worlds as duel_eval's from the same seed
    my_rng = random.Random(f"duel_game my types {b.seed}")
    opponents = _OpponentTypes(sampler, exact_budget, n, opp_rng)
    mine, prior, my_exact = _my_types(view, my_rng, len(opponents) if opponents.exact else n, my_types, exact_budget)
    pub = np.array(counts(view.unseen_pool + view.hand)[1:], dtype=np.intp)
    my_counts = _count_rows(mine)
    opp_hands: list[Hand] = []
    weights: list[np.ndarray] = []
    cells: dict[tuple[int, int], np.ndarray] = {}
    mine_cards = [sorted(set(h)) for h in mine]
    for bi, (opp, omega) in enumerate(opponents):
        if b.ends(bi, t0, deadline, minimum):
            break
        given = opponent_given(pub, my_counts, _count_rows([opp]))[:, 0]
        if given[0] <= 0:
            raise TacocatError(f"the sampler's hand {opp} is not compatible with my hand {view.hand}")
        w = prior * given * (omega / given[0])
        theirs = sorted(set(opp))
        for a in np.flatnonzero(w > 0):
            me = mine[a]
            cells[(int(a), bi)] = np.array(
                [[1 - cell_outcome(me, opp, i, j, solver) for j in theirs] for i in mine_cards[a]],
                dtype=np.intp,
            )
        opp_hands.append(opp)
        weights.append(w)
    used = len(opp_hands)
    weight = np.stack(weights, axis=1) if weights else np.zeros((len(mine), 0))
    # a hand of mine that meets none of the opponent's types plays no part (my real hand meets them all)
    live = [a for a in range(len(mine)) if a == 0 or weight[a].sum() > 0]
    at = {a: k for k, a in enumerate(live)}
    cells = {(at[a], bi): idx for (a, bi), idx in cells.items()}
    mine, weight = [mine[a] for a in live], weight[live]
    return BayesianDuel(mine, opp_hands, weight, cells, used, my_exact, opponents.exact and used == len(opponents))


# ------------------------------------------------------------------ solving


@dataclass(frozen=True)
class Solved:
    """Average strategies of a solved Bayesian game and their exploitability."""

    x: np.ndarray
    """My sequences' probabilities (each type's cards sum to 1)."""
    y: np.ndarray
    value: float
    """x' P y."""
    my_gain: float
    """What a best response of mine to y gains over `value`."""
    opponent_gain: float
    """What the opponent's best response to x gains over `value` (x's exploitability)."""
    iterations: int

    @property
    def exploitability(self) -> float:
        """Both gains together: 0 exactly at an equilibrium."""
        return self.my_gain + self.opponent_gain


def _normalised(r: np.ndarray, starts: np.ndarray, seg: np.ndarray, size: np.ndarray) -> np.ndarray:
    s = np.add.reduceat(r, starts)
    pos = s > 0
    out = np.where(pos[seg], r / np.where(pos, s, 1.0)[seg], 1.0 / size[seg])
    return out


def gains(p: np.ndarray, ms: np.ndarray, os_: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(x' P y, my best response's gain against y, the opponent's against x)."""
    g = p @ y
    h = x @ p
    value = float(x @ g)
    mine = float(np.maximum.reduceat(g, ms).sum())
    theirs = float(np.minimum.reduceat(h, os_).sum())
    return value, max(0.0, mine - value), max(0.0, value - theirs)


def solve_bayesian(
    p: np.ndarray,
    my_starts: np.ndarray,
    opp_starts: np.ndarray,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    target: float = DEFAULT_TARGET,
    deadline: float | None = None,
    stop: threading.Event | None = None,
    clock: Clock = WALL,
    minimum: int = MIN_ITERATIONS,
) -> Solved:
    """Predictive CFR+ (Farina, Kroer & Sandholm 2021) on the game x' P y,
    x (mine, maximising) and y (the opponent's, minimising) a distribution
    per segment (`my_starts`, `opp_starts`: each type's first sequence):
    regret matching+ on the regrets plus the last instantaneous regret as
    the prediction, alternating updates, averages weighted by t^2 (on the
    duel's games it needs 2 to 10 times fewer iterations than CFR+ for the
    same exploitability).  Runs `iterations` at most, ends once the
    exploitability of the averages is at most `target` (checked every
    `CHECK_EVERY`), or, after `minimum`, at `deadline` or a stop.
    Deterministic: no randomness, and the clock only cuts."""
    sx, sy = p.shape
    ms, os_ = np.asarray(my_starts, dtype=np.intp), np.asarray(opp_starts, dtype=np.intp)
    mseg = np.repeat(np.arange(len(ms)), np.diff(np.append(ms, sx)))
    oseg = np.repeat(np.arange(len(os_)), np.diff(np.append(os_, sy)))
    msize, osize = np.bincount(mseg).astype(float), np.bincount(oseg).astype(float)
    rx, ry = np.zeros(sx), np.zeros(sy)
    x, y = 1.0 / msize[mseg], 1.0 / osize[oseg]
    ax, ay = np.zeros(sx), np.zeros(sy)
    t = 0
    result = None
    while t < iterations:
        t += 1
        g = p @ y
        r = g - np.add.reduceat(x * g, ms)[mseg]
        rx = np.maximum(rx + r, 0.0)
        x = _normalised(np.maximum(rx + r, 0.0), ms, mseg, msize)
        ax += t * t * x
        h = x @ p
        r = np.add.reduceat(y * h, os_)[oseg] - h
        ry = np.maximum(ry + r, 0.0)
        y = _normalised(np.maximum(ry + r, 0.0), os_, oseg, osize)
        ay += t * t * y
        cut = t >= minimum and (
            (stop is not None and stop.is_set()) or (deadline is not None and clock.now() >= deadline)
        )
        if t % CHECK_EVERY == 0 or cut or t == iterations:
            xb = ax / np.add.reduceat(ax, ms)[mseg]
            yb = ay / np.add.reduceat(ay, os_)[oseg]
            value, mine, theirs = gains(p, ms, os_, xb, yb)
            result = Solved(xb, yb, value, mine, theirs, t)
            if cut or mine + theirs <= target:
                break
    if result is None:  # iterations < 1: the uniform strategies
        value, mine, theirs = gains(p, ms, os_, x, y)
        result = Solved(x, y, value, mine, theirs, 0)
    return result


# ------------------------------------------------------------------ the API


@dataclass(frozen=True)
class SubgameResult(PlayResult):
    """A `PlayResult` of a decision solved as a game over both players'
    hands (the Bayesian duel, the replacement game): what the game was."""

    my_types: int = 0
    """My hands in the game, the real one included."""
    opponent_types: int = 0
    """The opponent's hands in the game (those whose subtrees or cells were solved)."""
    pairs: int = 0
    """Compatible (my hand, its hand) pairs."""
    exploitability: float = 0.0
    """What both sides' best responses gain together against the average strategies (the game's units)."""
    my_gain: float = 0.0
    opponent_gain: float = 0.0
    """What the opponent gains by a best response to my average strategy."""

    solved: ClassVar[str] = "subgame"
    """What kind of game it was, in the hint's words."""

    def subgame_dict(self) -> dict[str, Any]:
        """What the game was, as a hint's `subgame` says it."""
        return {
            "solved": self.solved,
            "my_types": self.my_types,
            "opponent_types": self.opponent_types,
            "pairs": self.pairs,
            "iterations": self.iterations,
            "exploitability": self.exploitability,
        }


def start_subgame(
    view: View, budget: Budget | None, decision: str, where: str, rule: str, round_search: bool
) -> Budget:
    """The budget of a subgame search `where` at `view`'s `decision`
    (`rule`: the rules it plays), after the checks each such search begins
    with: `round_search` is the static searches' (refused), the view a
    `View` at that decision."""
    if round_search:
        raise TacocatError(
            f"{where}: round_search is the static search's (the game solves the opponent's choice itself)"
        )
    b = budget_of(budget, where)
    if not isinstance(view, View):
        raise TacocatError(f"expected a View, got {type(view).__name__}")
    if view.decision != decision:
        raise PositionError(f"player {view.player} has no {decision} decision here (decision {view.decision})", rule)
    return b


@dataclass(frozen=True)
class DuelGameResult(SubgameResult):
    """A `SubgameResult` (moves, mixed, game_value: my real hand's value, and
    opponent_mix: the opponent's duel cards as my real hand meets them)
    with the whole game's value and how exact its types are."""

    whole_value: float = 0.0
    """The game's value over the joint deal of both hands."""
    real_gain: float = 0.0
    """What my real hand would gain by a best response (its value units)."""
    my_exact: bool = False
    opponent_exact: bool = False

    solved: ClassVar[str] = "bayesian duel"


def duel_game(
    view: View,
    budget: Budget | None = None,
    *,
    utilities: Sequence[float] = ROUND_UTILITIES,
    solver: PerfectSolver | None = None,
    sampler: WorldSampler | None = None,
    my_types: int = DEFAULT_MY_TYPES,
    exact_budget: int | None = DEFAULT_EXACT_BUDGET,
    minimum: int = MIN_DUEL_WORLDS,
    iterations: int = DEFAULT_ITERATIONS,
    target: float = DEFAULT_TARGET,
    partial: bool = True,
    round_search: bool = False,
) -> DuelGameResult:
    """R9 solved as a Bayesian game (module docstring) at my duel
    decision.  `budget.samples` counts the sampled opponent types
    (default `DEFAULT_OPPONENT_TYPES`; listed instead when at most
    `exact_budget`, a negative budget: always sampled); `budget.time_ms`
    ends the cells at `CELL_SHARE` of it (after `minimum` opponent types)
    and the iterations at its end (after `MIN_ITERATIONS`); `budget.seed`
    draws both sides' types.  `my_types`: my hands drawn besides the real
    one when they are not listed (0: my real hand alone, as if the
    opponent saw it).  `utilities` are mine of (win, draw, loss)
    (`tacocat.search.gamevalue.round_utilities`).  `partial` is accepted
    for `duel_eval`'s callers: the clock is read between opponent types
    whatever it says.  `round_search` (the cells' play searched over the
    worlds) is not a cell this game has."""
    b = start_subgame(view, budget, DUEL, "duel_game", "R9", round_search)
    t0 = b.now()
    solver = solver or PerfectSolver(view.rules)
    sampler = sampler or HandSampler(view)
    deadline = b.deadline(t0)
    cell_deadline = None if deadline is None or b.time_ms is None else deadline - (1 - CELL_SHARE) * b.time_ms / 1000
    game = build_duel_game(
        view, b, solver, sampler, my_types=my_types, exact_budget=exact_budget, minimum=minimum, deadline=cell_deadline
    )
    p, ms, os_ = game.payoff(utilities)
    solved = solve_bayesian(
        p, ms, os_, iterations=iterations, target=target, deadline=deadline, stop=b.stop, clock=b.clock
    )
    return _answer(view, game, solved, utilities, b, t0)


def _answer(
    view: View, game: BayesianDuel, solved: Solved, utilities: Sequence[float], b: Budget, t0: float
) -> DuelGameResult:
    """My real hand's moves, mix and value from the solved game."""
    u = np.asarray(utilities, dtype=float)
    cards = game.my_cards[0]
    theirs = game.opp_cards
    os_ = np.cumsum([0] + [len(c) for c in theirs])
    k = len(cards)
    # my real hand's pairs: per opponent type, each of my cards' odds against its average mix
    wdl = np.zeros((k, 3))
    per_type = np.zeros((game.used, k))
    seen = np.zeros(game.used)
    opp_mix: dict[int, float] = {}
    for bi in range(game.used):
        idx = game.cells.get((0, bi))
        if idx is None:  # pragma: no cover - my real hand meets every opponent type
            continue
        w = game.weight[0, bi]
        yb = solved.y[os_[bi] : os_[bi + 1]]
        for t in range(3):
            wdl[:, t] += w * ((idx == t) @ yb)
        per_type[bi] = u[idx] @ yb
        seen[bi] = w
        for c, q in zip(theirs[bi], yb, strict=True):
            opp_mix[c] = opp_mix.get(c, 0.0) + w * float(q)
    total = seen.sum()
    wdl /= total
    values = seen @ per_type / total
    x0 = solved.x[:k]
    sampled = not game.opp_exact
    moves = []
    for i, r in enumerate(cards):
        stderr = None
        if sampled and game.used > 1:
            var = float(seen @ (per_type[:, i] - values[i]) ** 2 / total)
            stderr = math.sqrt(var / (game.used - 1))
        win, draw, loss = wdl[i].tolist()
        moves.append(MoveEval(Action("duel", (r,)), win, draw, loss, float(values[i]), stderr))
    prob = {r: float(q) for r, q in zip(cards, x0, strict=True)}
    moves = rank_moves(moves)
    moves.sort(key=lambda m: (-round(m.value, 9), -prob[m.action.cards[0]]))
    real = float(x0 @ values)
    return DuelGameResult(
        tuple(moves),
        game.used,
        game.my_exact and game.opp_exact,
        b.now() - t0,
        b.stopped(),
        mixed=tuple(MixedMove(r, prob[r]) for r in cards),
        game_value=real,
        opponent_mix=tuple(MixedMove(c, opp_mix[c] / total) for c in sorted(opp_mix)),
        iterations=solved.iterations,
        my_types=len(game.my_hands),
        opponent_types=game.used,
        pairs=len(game.cells),
        whole_value=solved.value,
        exploitability=solved.exploitability,
        my_gain=solved.my_gain,
        opponent_gain=solved.opponent_gain,
        real_gain=max(0.0, float(values.max()) - real),
        my_exact=game.my_exact,
        opponent_exact=game.opp_exact,
    )
