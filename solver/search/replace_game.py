"""The replacement (R7/R8) as a game: my discard, the draws and the
opponent's replacement solved as the imperfect-information subgame they
are (issue 34, deliverable 2).

`tacocat.search.decisions.replace_eval` ranks my discards against an
opponent who replies by a fixed policy, so its reply never reacts to what
my discard shows and my discard's cost of showing my hand is invisible.
Here, from my replace decision, a depth-limited subgame is built and
solved:

- chance deals a pair of types (my hand M, the opponent's hand O): the
  opponent's types are its hands consistent with my view (RULES §5, R20:
  the search's sampler, listed with their probabilities when few, else a
  seeded sample), mine are my real hand and the hands the opponent cannot
  tell from it (the public pool's card subsets; listed when few, else
  sampled), each pair weighing its joint probability, as in the Bayesian
  duel (`tacocat.search.duel_game`, whose type lists this module reuses);
- I choose a discard for M (its best `candidates` by the static score and
  keeping every card, as `replace_eval` pre-cuts them); my information set
  is my hand alone: the opponent's hand and the draw pile are not in it;
- my draw is chance; then, if the opponent still replaces, its reply is a
  strategy of the solve with its own information sets: under R7 (one
  arrow) it sees my discard face up and is capped at its count, under R8
  (two arrows) it chooses at the same time without seeing it; its replies
  are its best `replies` discards by the static score, keeping every card
  and the static policy's own discard (`static_discard`); then its draw;
- a leaf is the round after both replacements, both hands known: the
  duel's matrix game in that world (`tacocat.search.decisions.world_duel`)
  followed by the perfect-information play phase, where the hands are
  small (at most `DUEL_LEAF_CARDS`); on larger hands both duel their
  highest card (`duel_then_play`, the classic search's leaf; a world duel
  there costs one play solve per pair of cards).

The draws are exact chance nodes (every multiset of the pile with its
probability) when the pile is small; else each pair of types carries one
sampled order of the draw pile, shared by every discard of mine and every
reply of the opponent (common random numbers).

The game is solved by CFR+ (`tacocat.search.round_exploitability.solve`:
the whole-round solver's, which works on any tree in its array form),
anytime: the tree is built opponent type by opponent type until
`BUILD_SHARE` of a time budget (or the types run out), then the
iterations run until the time, `iterations` or `target` exploitability.
The answer is my real hand's average strategy (`discard_mix`) and each of
its discards' value against the opponent's average strategy, with what was
solved: the types on each side, the tree's size, the iterations and the
exploitability within the subgame (what both sides' best responses gain).

What it leaves out: the duel in a leaf is played as if both hands were
known (no duel information sets; `tacocat.search.duel_game` is the duel
decision's own game); the play phase is perfect-information; a leaf has
one continuation value; my types meet only the opponent hands compatible
with my real hand (the knowledge-limited cut, as in the Bayesian duel).
Where my hands are sampled, my other hands keep `OTHER_CANDIDATES`
discards: a discard that only my real hand keeps is met by a reply that
knows my hand, a pessimistic bias.  And where the opponent's hands are
sampled (the standard deck), a game under a 20 ms budget holds 2 to 7 of
them, where `replace_eval` deals hundreds: results/replace_game.md
measures what that costs.

`guided_replace` (the option `replace=guided`) uses the game as a
correction to the static search instead: the static search's best
discards, each scored by its static value plus its game value less the
static evaluation on the game's own worlds (results/replace_game.md: at
20 ms it measures weaker than the static search too)."""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Sequence, TypedDict, Unpack, cast

import numpy as np

from tacocat.errors import TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand, counts, hand, remove
from tacocat.rules.game import REPLACE, View
from tacocat.rules.play import goes_to_showdown, showdown
from tacocat.search import round_exploitability as rx
from tacocat.search.budget import Budget
from tacocat.search.decisions import (
    DEFAULT_CANDIDATES,
    MIN_STAGE_DEALS,
    _opponent_cap,
    _ranked_discards,
    duel_then_play,
    replace_eval,
    static_discard,
    world_duel,
)
from tacocat.search.duel_game import (
    SubgameResult,
    _count_multisets,
    _count_rows,
    _my_types,
    _OpponentTypes,
    opponent_given,
    start_subgame,
)
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.search.pimc import PerfectSolver, rank_moves
from tacocat.search.results import MoveEval, PlayResult
from tacocat.search.round_game import CHANCE, TERMINAL, TreeArrays, add_iset, draw_outcomes, freeze_tree
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler, WorldSampler, rng_from

DEFAULT_EVALUATIONS = 6000
"""Leaves of a game on sampled opponent hands when the budget gives no
count: `budget.samples` counts leaves, as `replace_eval`'s counts (discard,
deal) evaluations (`tacocat.search.decisions.DEFAULT_REPLACE_EVALS`), so
that equal samples cost about the same."""
DEFAULT_MY_TYPES = 3
"""Sampled hands of mine besides the real one when mine are too many to list."""
OTHER_CANDIDATES = 4
"""My discards in the game for my sampled other hands (listed ones keep
`candidates`): they are there so that the opponent's reply cannot read my
real hand, and each costs a subtree per opponent type."""
GAME_CANDIDATES = 12
"""My discards in a hint's or a bot's game at most (the static score's
best; fewer when the caller names fewer): each is a subtree for every pair
of types, where the static search ranks all of them by sequential halving."""
DEFAULT_REPLIES = 4
"""The opponent's discards in the game per hand and cap: its best by the
static score (keeping every card and the static policy's discard added)."""
DUEL_LEAF_CARDS = 5
"""A leaf's duel is the world's matrix game up to this many cards a hand;
above, both duel their highest card."""
EXACT_DRAWS = 40
"""The draws are exact chance nodes when the pile holds at most this many
distinct multisets of a hand's size."""
MAX_NODES = 400_000
"""The tree stops growing (no more opponent types) past this many nodes."""
DEFAULT_ITERATIONS = 400
DEFAULT_TARGET = 1e-3
"""CFR+ stops at this exploitability (the mean of the two sides' gains)."""
MIN_ITERATIONS = 20
"""Iterations run even when the time is out."""
CHECK_EVERY = 25
"""CFR+ iterations between two exploitability checks (two best responses each)."""
MIN_TYPES = 2
"""Opponent types built even when the time is out."""
BUILD_SHARE = 0.6
"""Share of a time budget the tree's building may take."""
MIX_FLOOR = 0.02
"""A discard my average strategy plays less often than this is left out of
the mix a bot samples (CFR's averages keep a little of every action)."""


# ------------------------------------------------------------------ the tree


@dataclass
class ReplaceGame(TreeArrays):
    """The subgame in `tacocat.search.round_game.RoundGame`'s array form (so
    `tacocat.search.round_exploitability` solves it and finds its best
    responses).  Player 0 is me (the view's player), 1 the opponent; a
    terminal's `utility` is mine, `leaf_wdl` its win/draw/loss
    probabilities.  An information set's key is ("me", my hand) or
    ("opponent", its hand, my discard when it saw it)."""

    keys: list[tuple] = field(default_factory=list)
    iset_player: list[int] = field(default_factory=list)
    iset_actions: list[tuple[Action, ...]] = field(default_factory=list)
    iset_offset: list[int] = field(default_factory=list)
    my_hands: list[Hand] = field(default_factory=list)
    opp_hands: list[Hand] = field(default_factory=list)
    pairs: int = 0
    exact_draws: bool = False
    my_exact: bool = False
    opp_exact: bool = False
    duel_leaves: bool = False
    """The leaves' duel is the world's matrix game (else both duel their highest card)."""
    leaf_solves: int = 0
    """Distinct pairs of hands whose round was solved for a leaf."""
    real_worlds: list[tuple[int, Hand, Any, float]] = field(default_factory=list)
    """My real hand's subtrees: (its node, the opponent's hand, its draws
    (`_Draws`), its chance weight), the worlds the static search's
    evaluation replays (`guided_replace`)."""

    def __post_init__(self) -> None:
        self._index: dict[tuple, int] = {}
        self._kind: list[int] = []
        self._depth: list[int] = []
        self._iset: list[int] = []
        self._util: list[float] = []
        self._wdl: list[tuple[float, float, float]] = []
        self._ep: list[int] = []
        self._ec: list[int] = []
        self._eprob: list[float] = []
        self._eslot: list[int] = []
        self.slots = 0
        self.leaf_count = 0

    def node(self, kind: int, depth: int, iset: int = -1, leaf: tuple[float, np.ndarray] | None = None) -> int:
        self.leaf_count += kind == TERMINAL
        self._kind.append(kind)
        self._depth.append(depth)
        self._iset.append(iset)
        self._util.append(0.0 if leaf is None else leaf[0])
        self._wdl.append((0.0, 0.0, 0.0) if leaf is None else (float(leaf[1][0]), float(leaf[1][1]), float(leaf[1][2])))
        return len(self._kind) - 1

    def edge(self, parent: int, child: int, prob: float, slot: int = -1) -> None:
        self._ep.append(parent)
        self._ec.append(child)
        self._eprob.append(prob)
        self._eslot.append(slot)

    def iset(self, key: tuple, player: int, actions: tuple[Action, ...]) -> int:
        return add_iset(self, key, player, actions)

    def iset_index(self, key: tuple) -> int | None:
        return self._index.get(key)

    @property
    def size(self) -> int:
        return len(self._kind) if hasattr(self, "_kind") else len(self.kind)

    def finish(self) -> None:
        """The arrays `round_exploitability` reads; the root's chance made a distribution."""
        self.leaf_wdl = np.array(self._wdl, dtype=np.float64).reshape(len(self._wdl), 3)
        del self._wdl
        freeze_tree(self)
        root = self.edge_parent == 0
        total = self.edge_prob[root].sum()
        if total <= 0:  # pragma: no cover - my real hand meets every opponent type
            raise TacocatError("the replacement's game has no pair of compatible hands")
        self.edge_prob[root] /= total

    @property
    def nodes(self) -> int:
        return len(self.kind)

    def counts(self) -> dict[str, int]:
        p = np.array(self.iset_player, dtype=np.int8)
        return {
            "nodes": int(self.nodes),
            "leaves": int(np.sum(self.kind == TERMINAL)),
            "my_sets": int(np.sum(p == 0)),
            "opponent_sets": int(np.sum(p == 1)),
            "slots": int(self.slots),
        }


class _Draws:
    """The draw pile of one pair of types: its counts (exact chance) or one
    sampled order (the last card drawn first, as `replace_eval` draws)."""

    def __init__(self, exact: bool, pile: tuple[int, ...] | list[int]) -> None:
        self.exact, self.pile = exact, pile

    def outcomes(self, pile: Any, sizes: Sequence[int]) -> list[tuple[tuple[Hand, ...], float, Any]]:
        """Each way to draw `sizes` cards in turn: (the multisets, probability, the pile left)."""
        if not self.exact:
            got = []
            rest = list(pile)
            for k in sizes:
                drawn = rest[len(rest) - k :] if k else []
                rest = rest[: len(rest) - k]
                got.append(hand(drawn))
            return [(tuple(got), 1.0, rest)]
        return list(draw_outcomes(pile, sizes))


@functools.lru_cache(maxsize=4096)
def _my_discards(cards: Hand, cap: int, pool: Hand, candidates: int | None) -> tuple[Action, ...]:
    """My discards in the game: `replace_eval`'s pre-cut (the static score's
    best `candidates`, keeping every card added)."""
    ranked = _ranked_discards(cards, cap, pool)
    n = len(ranked) if candidates is None else min(max(1, candidates), len(ranked))
    kept = ranked[:n]
    if () not in kept:
        kept.append(())
    return tuple(Action(REPLACE, d) for d in kept)


@functools.lru_cache(maxsize=4096)
def _replies(cards: Hand, cap: int, pool: Hand, replies: int | None) -> tuple[Action, ...]:
    """The opponent's discards in the game: the static score's best `replies`,
    keeping every card and the static policy's own discard added (a
    function of its information set: its hand, its cap, what it sees)."""
    ranked = _ranked_discards(cards, cap, pool)
    n = len(ranked) if replies is None else min(max(1, replies), len(ranked))
    kept = ranked[:n]
    for extra in ((), static_discard(cards, cap, pool)):
        if extra not in kept:
            kept.append(extra)
    return tuple(Action(REPLACE, d) for d in kept)


class _Leaves:
    """A leaf's value by the pair of hands after the replacements, cached."""

    def __init__(self, utilities: Sequence[float], solver: PerfectSolver, duel: bool) -> None:
        self.utilities, self.solver, self.duel = utilities, solver, duel
        self.cache: dict[tuple[Hand, Hand], tuple[float, np.ndarray]] = {}

    def __call__(self, me: Hand, opp: Hand) -> tuple[float, np.ndarray]:
        got = self.cache.get((me, opp))
        if got is None:
            if self.duel and not goes_to_showdown(len(me) - 1):
                got = world_duel(me, opp, self.utilities, self.solver)
            else:
                o = showdown((me, opp)) if goes_to_showdown(len(me)) else duel_then_play(me, opp, self.solver)
                probs = np.zeros(3)
                probs[1 - o] = 1.0
                got = (float(self.utilities[1 - o]), probs)
            self.cache[(me, opp)] = got
        return got


@dataclass
class _Shape:
    """What the view says about the replacement left to play."""

    cap: int
    order: str
    """"first": I replace, then the opponent (R7); "both": together (R8);
    "last": the opponent replaced already (R7)."""
    opp_cap: Any


def _shape(view: View) -> _Shape:
    cap = len(view.hand) if view.replace_cap is None else view.replace_cap
    opp_cap = _opponent_cap(view)
    order = "last" if opp_cap is None else ("both" if view.first_replacer == "both" else "first")
    return _Shape(cap, order, opp_cap)


def _pair_subtree(
    game: ReplaceGame,
    shape: _Shape,
    me: Hand,
    opp: Hand,
    draws: _Draws,
    pub: Hand,
    leaves: _Leaves,
    candidates: int | None,
    replies: int | None,
    real: bool,
    real_discards: tuple[Action, ...] | None = None,
) -> int:
    """One pair of types' subtree (module docstring), its root at depth 1;
    `real`: my real hand (my sampled other hands keep fewer discards);
    `real_discards`: my real hand's discards when the caller names them."""
    if real and real_discards is not None:
        mine = real_discards
    else:
        mine = _my_discards(me, shape.cap, remove(pub, me), candidates if real or game.my_exact else OTHER_CANDIDATES)
    i = game.iset(("me", me), 0, mine)
    node, off = game.node(0, 1, i), game.iset_offset[i]
    for a_i, act in enumerate(mine):
        d = act.cards
        kept = remove(me, d)
        if shape.order == "both":
            child = _simultaneous(game, shape, kept, d, opp, draws, pub, leaves, replies)
        else:
            child = game.node(CHANCE, 2)
            for (s,), p, pile in draws.outcomes(draws.pile, (len(d),)):
                me2 = hand(kept + s)
                if shape.order == "last":
                    grand = game.node(TERMINAL, 3, leaf=leaves(me2, opp))
                else:
                    grand = _reply(game, shape, me2, d, opp, draws, pile, pub, leaves, replies)
                game.edge(child, grand, p)
        game.edge(node, child, 1.0, off + a_i)
    return node


def _reply(game, shape, me2, d, opp, draws, pile, pub, leaves, replies) -> int:
    """R7: the opponent's reply, seeing my discard `d` (depth 3), its draw and the leaves."""
    cap = shape.opp_cap(len(d))
    acts = _replies(opp, cap, remove(remove(pub, opp), d), replies)
    i = game.iset(("opponent", opp, d), 1, acts)
    node, off = game.node(1, 3, i), game.iset_offset[i]
    for e_i, act in enumerate(acts):
        e = act.cards
        kept = remove(opp, e)
        chance = game.node(CHANCE, 4)
        for (t,), p, _ in draws.outcomes(pile, (len(e),)):
            game.edge(chance, game.node(TERMINAL, 5, leaf=leaves(me2, hand(kept + t))), p)
        game.edge(node, chance, 1.0, off + e_i)
    return node


def _simultaneous(game, shape, kept, d, opp, draws, pub, leaves, replies) -> int:
    """R8: the opponent's discard chosen without seeing mine (depth 2), both draws and the leaves."""
    acts = _replies(opp, shape.opp_cap(len(d)), remove(pub, opp), replies)
    i = game.iset(("opponent", opp), 1, acts)
    node, off = game.node(1, 2, i), game.iset_offset[i]
    for e_i, act in enumerate(acts):
        e = act.cards
        okept = remove(opp, e)
        chance = game.node(CHANCE, 3)
        for (s, t), p, _ in draws.outcomes(draws.pile, (len(d), len(e))):
            game.edge(chance, game.node(TERMINAL, 4, leaf=leaves(hand(kept + s), hand(okept + t))), p)
        game.edge(node, chance, 1.0, off + e_i)
    return node


def build_replace_game(
    view: View,
    budget: Budget,
    solver: PerfectSolver,
    sampler: WorldSampler,
    *,
    utilities: Sequence[float] = ROUND_UTILITIES,
    my_types: int = DEFAULT_MY_TYPES,
    exact_budget: int | None = DEFAULT_EXACT_BUDGET,
    candidates: int | None = DEFAULT_CANDIDATES,
    replies: int | None = DEFAULT_REPLIES,
    minimum: int = MIN_TYPES,
    deadline: float | None = None,
    start: float | None = None,
    max_nodes: int = MAX_NODES,
    real_discards: tuple[Action, ...] | None = None,
    piles: int = 1,
    within: bool = False,
) -> ReplaceGame:
    """The subgame at `view` (module docstring).  The opponent's types from
    `sampler` (listed when at most `exact_budget`; else drawn until the
    tree has `budget.samples` leaves, or `DEFAULT_EVALUATIONS` with no
    count and no time), mine listed when few (as the Bayesian duel lists
    them), else `my_types` draws besides my real hand.
    The tree grows opponent type by opponent type; `deadline` (on the
    budget's clock), a stop or `max_nodes` ends it once `minimum` are in.
    `real_discards`: my real hand's discards (default: the static score's
    best `candidates`); `piles`: sampled orders of the draw pile a pair of
    types carries when the draws are sampled, each weighing 1/piles (with
    one, the opponent's reply knows its own draw in every world it tells
    apart); `within`: the clock is read between pairs of types too, so that
    past `deadline` the opponent type in progress keeps the pairs built (my
    real hand's first)."""
    b = budget
    t0 = b.now() if start is None else start
    evaluations = b.samples if b.samples is not None else (DEFAULT_EVALUATIONS if b.time_ms is None else None)
    n = 100_000  # sampled opponent types: as many as the evaluations or the time allow
    opp_rng = rng_from(b.seed)
    my_rng = random.Random(f"replace_game my types {b.seed}")
    pile_rng = random.Random(f"replace_game piles {b.seed}")
    opponents = _OpponentTypes(sampler, exact_budget, n, opp_rng)
    shape = _shape(view)
    if shape.order == "last":
        # the opponent replaced already: nothing in the game reads my hand, so my other hands change nothing
        mine, prior, my_exact = [view.hand], np.ones(1), True
    else:
        n_opp = len(opponents) if opponents.exact else n
        mine, prior, my_exact = _my_types(view, my_rng, n_opp, my_types, exact_budget)
    pub = hand(view.unseen_pool + view.hand)
    pub_counts = np.array(counts(pub)[1:], dtype=np.intp)
    my_counts = _count_rows(mine)
    game = ReplaceGame(my_exact=my_exact, duel_leaves=len(view.hand) <= DUEL_LEAF_CARDS)
    leaves = _Leaves(utilities, solver, game.duel_leaves)
    root = game.node(CHANCE, 0)
    seen: set[Hand] = set()
    used = 0
    for bi, (opp, omega) in enumerate(opponents):
        if b.ends(bi, t0, deadline, minimum) or (bi >= minimum and game.size >= max_nodes):
            break
        if not opponents.exact and bi >= minimum and evaluations is not None and game.leaf_count >= evaluations:
            break  # sampled types: as many leaves as the static search's (discard, deal) evaluations
        given = opponent_given(pub_counts, my_counts, _count_rows([opp]))[:, 0]
        if given[0] <= 0:
            raise TacocatError(f"the sampler's hand {opp} is not compatible with my hand {view.hand}")
        w = prior * given * (omega / given[0])
        for a in np.flatnonzero(w > 0):
            if within and a > 0 and b.out(deadline):
                break
            me = mine[a]
            left = remove(remove(pub, me), opp)
            if bi == 0 and a == 0:
                # exact draws when the pile is small (decided once, on the real pair)
                sizes = [shape.cap] + ([shape.opp_cap(shape.cap)] if shape.opp_cap else [])
                game.exact_draws = all(_count_multisets(left, k, EXACT_DRAWS) <= EXACT_DRAWS for k in sizes)
            if game.exact_draws:
                worlds = [_Draws(True, tuple(counts(left)[1:]))]
            else:
                worlds = []
                for _ in range(max(1, piles)):
                    order = list(left)
                    pile_rng.shuffle(order)
                    worlds.append(_Draws(False, order))
            for draws in worlds:
                child = _pair_subtree(
                    game, shape, me, opp, draws, pub, leaves, candidates, replies, a == 0, real_discards
                )
                weight = float(w[a]) / len(worlds)
                game.edge(root, child, weight)
                if a == 0:
                    game.real_worlds.append((child, opp, draws, weight))
            game.pairs += 1
            seen.add(me)
        game.opp_hands.append(opp)
        used += 1
    game.my_hands = [h for h in mine if h in seen]
    game.opp_exact = opponents.exact and used == len(opponents)
    game.leaf_solves = len(leaves.cache)
    game.finish()
    return game


# ------------------------------------------------------------------ the API


@dataclass(frozen=True)
class ReplaceGameResult(SubgameResult):
    """A `SubgameResult` (each of my real hand's discards with its value
    against the opponent's average strategy) with my real hand's mix and
    the tree's size."""

    discard_mix: tuple[tuple[Hand, float], ...] = ()
    """My real hand's average strategy: (discard, probability), likeliest first."""
    leaves: int = 0
    my_sets: int = 0
    opponent_sets: int = 0
    opponent_replies: bool = False
    """Whether the opponent's replacement is in the game (it had not replaced yet)."""
    exact_draws: bool = False
    duel_leaves: bool = False

    solved: ClassVar[str] = "replacement game"

    def subgame_dict(self) -> dict[str, Any]:
        """What the game was, as a hint's `subgame` says it: its size and my
        real hand's mix (its discards above `MIX_FLOOR`)."""
        d = super().subgame_dict()
        exploitability = d.pop("exploitability")
        iterations = d.pop("iterations")
        d.update(nodes=self.nodes, leaves=self.leaves, opponent_replies=self.opponent_replies)
        d.update(iterations=iterations, exploitability=exploitability)
        d["mix"] = [{"cards": list(c), "probability": p} for c, p in self.discard_mix if p >= MIX_FLOOR]
        return d


class GameOptions(TypedDict, total=False):
    """The options `replace_game` and `guided_replace` share, each optional
    (the defaults: `_DEFAULTS`): `utilities` mine of (win, draw, loss);
    `solver` the perfect-information solver; `sampler` the opponent's
    hands (RULES §5, R20; an inference sampler weights them); `my_types`
    my hands drawn besides the real one when they are not listed;
    `exact_budget` the opponent's hands listed up to this many (negative:
    always sampled); `candidates` my discards (the static score's best,
    as `replace_eval`), `replies` the opponent's; `minimum` opponent types
    built whatever the clock; `iterations` and `target` (exploitability)
    end CFR+.  `partial` and `min_stage_deals` are `replace_eval`'s (the
    game reads the clock between opponent types whatever they say; the
    guided search hands them to its static part); `round_search` is
    refused (the game solves the reply itself)."""

    utilities: Sequence[float]
    solver: PerfectSolver | None
    sampler: WorldSampler | None
    my_types: int
    exact_budget: int | None
    candidates: int | None
    replies: int | None
    minimum: int
    iterations: int
    target: float
    partial: bool
    round_search: bool
    min_stage_deals: int | None


_DEFAULTS: dict[str, Any] = {
    "utilities": ROUND_UTILITIES,
    "solver": None,
    "sampler": None,
    "my_types": DEFAULT_MY_TYPES,
    "exact_budget": DEFAULT_EXACT_BUDGET,
    "candidates": DEFAULT_CANDIDATES,
    "replies": DEFAULT_REPLIES,
    "minimum": MIN_TYPES,
    "iterations": DEFAULT_ITERATIONS,
    "target": DEFAULT_TARGET,
    "partial": True,
    "round_search": False,
    "min_stage_deals": None,
}


def _started(view: View, budget: Budget | None, where: str, options: GameOptions) -> tuple[Budget, float, dict]:
    """A replacement game's budget, its start and its options (defaults filled, the solver and sampler made)."""
    unknown = set(options) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"{where}() got unexpected keyword arguments {sorted(unknown)}")
    o = {**_DEFAULTS, **options}
    b = start_subgame(view, budget, REPLACE, where, "R7-R8", o["round_search"])
    t0 = b.now()
    o["solver"] = o["solver"] or PerfectSolver(view.rules)
    o["sampler"] = o["sampler"] or HandSampler(view)
    return b, t0, o


def _solved(
    view: View,
    b: Budget,
    t0: float,
    o: dict,
    build_end: float | None,
    real_discards: tuple[Action, ...] | None = None,
    piles: int = 1,
    within: bool = False,
) -> tuple[ReplaceGame, ReplaceGameResult]:
    """The game built until `build_end` and solved by CFR+ until the budget's end."""
    game = build_replace_game(
        view,
        b,
        o["solver"],
        o["sampler"],
        utilities=o["utilities"],
        my_types=o["my_types"],
        exact_budget=o["exact_budget"],
        candidates=o["candidates"],
        replies=o["replies"],
        minimum=o["minimum"],
        deadline=build_end,
        start=t0,
        real_discards=real_discards,
        piles=piles,
        within=within,
    )
    deadline = b.deadline(t0)

    def until(done: int) -> bool:
        return done >= MIN_ITERATIONS and b.out(deadline)

    tree = cast(Any, game)  # the round solver's array form (`ReplaceGame`'s docstring)
    sol = rx.solve(
        tree, iterations=o["iterations"], target=o["target"], check_every=CHECK_EVERY, until=until, measure=False
    )
    return game, _answer(view, game, sol, b, t0)


def replace_game(view: View, budget: Budget | None = None, **options: Unpack[GameOptions]) -> ReplaceGameResult:
    """R7/R8 solved as a game (module docstring) at my replace decision.
    `budget.samples` counts the leaves of a game on sampled opponent types
    (as `replace_eval` counts its evaluations; the types are listed instead
    when at most `exact_budget`, a negative budget: always sampled);
    `budget.time_ms` ends the tree's growth at `BUILD_SHARE` of it (after
    `minimum` opponent types) and the iterations at its end (after
    `MIN_ITERATIONS`); `budget.seed` draws the types and the piles.  The
    options: `GameOptions`."""
    b, t0, o = _started(view, budget, "replace_game", options)
    deadline = b.deadline(t0)
    build_end = None if deadline is None or b.time_ms is None else deadline - (1 - BUILD_SHARE) * b.time_ms / 1000
    return _solved(view, b, t0, o, build_end)[1]


GUIDED_KEEP = 3
"""My discards the guided replacement's game compares: the static search's best."""
GUIDED_STATIC_SHARE = 0.5
"""Share of a time budget the guided replacement's static search takes."""
GUIDED_PILES = 2
"""Sampled pile orders a pair of types carries in the guided replacement's game."""


@dataclass(frozen=True)
class GuidedReplaceResult(ReplaceGameResult):
    """A `ReplaceGameResult` whose moves are the static search's best
    discards scored by its value plus the game's correction, the one played
    first (`discard_mix` is that pure choice; `game_mix` the game's own)."""

    game_mix: tuple[tuple[Hand, float], ...] = ()
    """My real hand's average strategy in the game (among the kept discards)."""
    static_values: tuple[tuple[Hand, float], ...] = ()
    """The kept discards' values by the static search (its deals)."""
    corrections: tuple[tuple[Hand, float], ...] = ()
    """The game's value less the static evaluation on the game's own worlds, per kept discard."""
    static_evaluations: int = 0
    static_deals: int = 0

    @property
    def guided(self) -> dict:
        """What the guided search did, as a hint's `subgame` tells it."""
        correction = dict(self.corrections)
        return {
            "static_evaluations": self.static_evaluations,
            "static_deals": self.static_deals,
            "kept": [
                {"cards": list(d), "static": v, "correction": correction.get(d), "score": v + correction.get(d, 0.0)}
                for d, v in self.static_values
            ],
            "game_mix": [{"cards": list(d), "probability": p} for d, p in self.game_mix],
        }

    def subgame_dict(self) -> dict[str, Any]:
        return {**super().subgame_dict(), "guided": self.guided}


def guided_replace(
    view: View,
    budget: Budget | None = None,
    *,
    keep: int = GUIDED_KEEP,
    static_share: float = GUIDED_STATIC_SHARE,
    piles: int = GUIDED_PILES,
    **options: Unpack[GameOptions],
) -> GuidedReplaceResult:
    """The replacement ranked by the static search and corrected by the game
    (issue 34, a control variate): `replace_eval` ranks my discards on its
    deals in `static_share` of a time budget; its best `keep` are my real
    hand's discards in the game (`build_replace_game`, each pair of types
    carrying `piles` pile orders), solved in the rest.  On each of the
    game's worlds (an opponent hand and its draws) my real hand's discards
    are also evaluated as the static search evaluates them (the opponent's
    static reply, both duel their highest card), and a discard's
    correction is its game value less that evaluation, over the same
    worlds with the same weights: what the opponent's reply as a strategy
    (and the world's duel at small hands) changes.  A discard's score is
    its static value (hundreds of deals) plus its correction (common
    worlds, so less noisy than the game's value alone); the best score is
    played.  Where every world is in the game (the opponent's hands
    listed, the draws exact chance: small rulesets) the game's own values
    score the discards.  The game holds one opponent type at least (its
    pairs cut by the clock) and is skipped when the static search leaves
    no time or a single discard (the static answer, no correction).  A count budget (`budget.samples`) is spent whole
    by each part.  The options: `GameOptions`."""
    b, t0, o = _started(view, budget, "guided_replace", options)
    begun = t0 if b.start is None else b.start
    static_budget = b if b.time_ms is None else b.with_(time_ms=b.time_ms * static_share, start=begun)
    static = replace_eval(
        view,
        static_budget,
        candidates=o["candidates"],
        min_stage_deals=MIN_STAGE_DEALS if o["min_stage_deals"] is None else o["min_stage_deals"],
        utilities=o["utilities"],
        solver=o["solver"],
        sampler=o["sampler"],
        partial=o["partial"],
    )
    kept = tuple(m.action for m in static.moves[: max(1, keep)])
    build_end = None
    if b.time_ms is not None:
        build_end = begun + (static_share + (1 - static_share) * BUILD_SHARE) * b.time_ms / 1000
    if len(kept) == 1 or b.out(build_end):
        return _static_only(static, b, t0)  # nothing to choose, or no time left for the game
    # the game is a correction: one opponent type at least (not MIN_TYPES), the clock read between pairs
    o["minimum"] = options.get("minimum", 1)
    game, solved = _solved(view, b, t0, o, build_end, kept, piles, within=True)
    return _guided(view, static, solved, game, o["utilities"], o["solver"])


def _static_only(static: PlayResult, b: Budget, t0: float) -> GuidedReplaceResult:
    """The static search's answer as the guided one when the game did not run (no correction)."""
    best = static.moves[0].action.cards
    return GuidedReplaceResult(
        static.moves,
        static.worlds,
        False,
        b.now() - t0,
        b.stopped(),
        evaluations=static.evaluations,
        candidates=static.candidates,
        discard_mix=((best, 1.0),),
        static_values=((best, static.moves[0].value),),
        static_evaluations=static.evaluations or 0,
        static_deals=static.worlds,
    )


def _guided(
    view: View,
    static: PlayResult,
    solved: ReplaceGameResult,
    game: ReplaceGame,
    utilities: Sequence[float],
    solver: PerfectSolver,
) -> GuidedReplaceResult:
    """The kept discards scored (static value + correction), the best first."""
    static_value = {m.action.cards: m.value for m in static.moves}
    game_value = {m.action.cards: m.value for m in solved.moves}
    opp_cap = _opponent_cap(view)
    correction: dict[Hand, float] = {}
    if game.opp_exact and game.exact_draws:  # every world of mine is in the game: its values are the round's
        score = dict(game_value)
    else:
        total = sum(w for *_, w in game.real_worlds)
        for d in game_value:
            same = sum(
                w * _static_value(view, d, opp, draws, opp_cap, utilities, solver)
                for _, opp, draws, w in game.real_worlds
            )
            correction[d] = game_value[d] - same / total
        score = {d: static_value[d] + correction[d] for d in game_value}
    rank = {m.action.cards: i for i, m in enumerate(static.moves)}
    order = sorted(score, key=rank.__getitem__)  # the static search's ranking
    moves = sorted(
        (replace(m, value=score[m.action.cards]) for m in solved.moves),
        key=lambda m: (-round(m.value, 9), rank[m.action.cards]),
    )
    chosen = moves[0].action.cards
    rest = tuple(m for m in static.moves if m.action.cards not in score)
    return GuidedReplaceResult(
        **{
            **{f.name: getattr(solved, f.name) for f in fields(solved)},
            "moves": tuple(moves) + rest,
            "seconds": solved.seconds,
            "discard_mix": ((chosen, 1.0),),
            "candidates": static.candidates,
        },
        game_mix=solved.discard_mix,
        static_values=tuple((d, static_value[d]) for d in order),
        corrections=tuple((d, correction[d]) for d in order if d in correction),
        static_evaluations=static.evaluations or 0,
        static_deals=static.worlds,
    )


def _static_value(view: View, d: Hand, opp: Hand, draws: _Draws, opp_cap, utilities: Sequence[float], solver) -> float:
    """My discard `d`'s value on one world of the game (the opponent's hand
    and its draws) as `replace_eval` evaluates a deal: the opponent's static
    reply, both duel their highest card (`decisions._replace_outcome`, its
    expectation where the draws are exact chance)."""
    kept = remove(view.hand, d)
    e = static_discard(opp, opp_cap(len(d)), view.unseen_pool) if opp_cap is not None else ()
    value = 0.0
    for got, p, _ in draws.outcomes(draws.pile, (len(d), len(e)) if e else (len(d),)):
        o = hand(remove(opp, e) + got[1]) if e else opp
        value += p * utilities[1 - duel_then_play(hand(kept + got[0]), o, solver)]
    return value


def _answer(view: View, game: ReplaceGame, sol: rx.Solution, b: Budget, t0: float) -> ReplaceGameResult:
    """My real hand's discards, mix and values from the solved game."""
    tree = cast(Any, game)
    sigma = sol.strategy
    hi, _ = rx.best_response(tree, sigma, 0)
    lo, _ = rx.best_response(tree, sigma, 1)
    value = rx.expected_value(tree, sigma)
    real = game.iset_index(("me", view.hand))
    assert real is not None  # my real hand meets every opponent type
    acts = game.iset_actions[real]
    off = game.iset_offset[real]
    v = rx.values(tree, sigma)
    wdl = [rx.values(tree, sigma, game.leaf_wdl[:, t]) for t in range(3)]
    # my real hand's nodes (depth 1) and their chance weights; each action's child
    nodes = np.nonzero((game.node_iset == real) & (game.kind == 0))[0]
    root_edges = np.nonzero(game.edge_parent == 0)[0]
    weight_of = dict(zip(game.edge_child[root_edges].tolist(), game.edge_prob[root_edges].tolist(), strict=True))
    w = np.array([weight_of[int(n)] for n in nodes])
    child = np.zeros((len(nodes), len(acts)), dtype=np.int64)
    at = {int(n): k for k, n in enumerate(nodes)}
    dec = np.nonzero(np.isin(game.edge_parent, nodes) & (game.edge_slot >= 0))[0]
    for e in dec:
        child[at[int(game.edge_parent[e])], int(game.edge_slot[e]) - off] = game.edge_child[e]
    total = w.sum()
    moves = []
    sampled = not (game.opp_exact and game.my_exact and game.exact_draws)
    for k, act in enumerate(acts):
        vals = v[child[:, k]]
        mean = float(w @ vals / total)
        stderr = None
        if sampled and len(nodes) > 1:
            var = float(w @ (vals - mean) ** 2 / total)
            stderr = math.sqrt(var / (len(nodes) - 1))
        win, draw, loss = (float(w @ x[child[:, k]] / total) for x in wdl)
        moves.append(MoveEval(act, win, draw, loss, mean, stderr, visits=len(nodes)))
    prob = {act.cards: float(p) for act, p in zip(acts, sigma[off : off + len(acts)], strict=True)}
    moves = rank_moves(moves)
    moves.sort(key=lambda m: (-round(m.value, 9), -prob[m.action.cards], len(m.action.cards)))
    mix = tuple(sorted(prob.items(), key=lambda t: (-t[1], len(t[0]), t[0])))
    sizes = game.counts()
    return ReplaceGameResult(
        tuple(moves),
        game.pairs,
        not sampled,
        b.now() - t0,
        b.stopped(),
        game_value=value,
        iterations=sol.iterations,
        nodes=sizes["nodes"],
        evaluations=game.leaf_solves,
        candidates=len(acts),
        discard_mix=mix,
        my_types=len(game.my_hands),
        opponent_types=len(game.opp_hands),
        pairs=game.pairs,
        leaves=sizes["leaves"],
        my_sets=sizes["my_sets"],
        opponent_sets=sizes["opponent_sets"],
        exploitability=max(0.0, hi - lo),
        my_gain=max(0.0, hi - value),
        opponent_gain=max(0.0, value - lo),
        opponent_replies=sizes["opponent_sets"] > 0,
        exact_draws=game.exact_draws,
        duel_leaves=game.duel_leaves,
    )


def sample_discard(result: PlayResult | None, rng: random.Random) -> Action:
    """A discard drawn from my real hand's mix (`ReplaceGameResult`) with a
    seeded RNG (the discards played less often than `MIX_FLOOR` left out)."""
    if not isinstance(result, ReplaceGameResult) or not result.discard_mix:
        raise TacocatError("a discard is drawn from a replacement game's mix")
    mix = [(d, p) for d, p in result.discard_mix if p >= MIX_FLOOR] or list(result.discard_mix[:1])
    total = sum(p for _, p in mix)
    r = rng.random() * total
    acc = 0.0
    for d, p in mix:
        acc += p
        if r < acc:
            return Action(REPLACE, d)
    return Action(REPLACE, mix[0][0])
