"""Perfect-information Monte Carlo for play-phase decisions (attack, answer),
and its exact form.

For each world (an opponent hand consistent with the view, RULES §5) the
play-phase position is solved exactly with both hands known, every root
move at once; per move the round outcomes (win / drawn round / loss, from
the asking player's side) are tallied with the world's weight:

- `exact_play`: every distinct opponent hand with its exact probability
  (`HandSampler.enumerate`), so the odds are exact *given* that the rest of
  the round is played with both hands known (the usual PIMC/double-dummy
  assumption — it is exact when the opponent's hand is the only unknown and
  both sides play perfectly afterwards);
- `pimc_play`: sampled hands, equal weights, with a standard error.

One `PerfectSolver` (and its transposition table) serves every world of a
search; positions repeat across worlds, so it pays to keep it.  The worlds
go to the core in batches (`Solver.tally_worlds`), which solves and tallies
them in C: no Python runs per world, so a 4-card endgame's enumeration
costs what its solves cost (`results/bench_tally.md`).  `tests/test_tally.py`
binds this to a plain world-by-world average."""

from __future__ import annotations

import math
import random
from array import array
from typing import Any, Callable, Iterator, Mapping, Sequence, TypedDict, Unpack

from tacocat.core.exact import Solver, packed
from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand
from tacocat.rules.events import PLAY_DECISIONS, Decision
from tacocat.rules.game import PLAY
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.rules.views import View
from tacocat.search.budget import WALL, Budget, Clock, budget_of
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.search.results import MoveEval, PlayResult
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler, WorldSampler, rng_from

DEFAULT_SAMPLES = 200
"""Worlds per decision when neither samples nor time is given (a bot's
budget; `tacocat.search.hint` spends a time budget instead)."""
MIN_SAMPLES = 30
"""Worlds a sampled search takes before a time limit or a stop may end it,
so that no ranking rests on one deal (milliseconds)."""


def rank_moves(moves: list[MoveEval]) -> list[MoveEval]:
    """Best first: expected utility, then win probability, then fewer losses;
    ties keep the legal-move order."""
    order = {id(m): i for i, m in enumerate(moves)}
    return sorted(moves, key=lambda m: (-round(m.value, 12), -round(m.win, 12), round(m.loss, 12), order[id(m)]))


# ----------------------------------------------------------------- solver


class PerfectSolver(Solver):
    """The perfect-information solver behind every hidden-hand search: the
    exact core's one Python wrapper (`tacocat.core.exact.Solver`), with its
    transposition table kept across the worlds of a search (positions
    repeat across worlds).  `move_outcomes` / `outcome` give player 0's
    round outcome (+1 / 0 / -1).  One instance per thread."""

    def __init__(self, rules: Ruleset = STANDARD, tt_entries: int = 1 << 20) -> None:
        super().__init__(keep_tt=True, tt_entries=tt_entries)
        self.rules = rules

    move_outcomes = Solver.outcomes


# ------------------------------------------------------------- aggregation


class _Tally:
    """Weighted outcome counts per move, summed by the core
    (`Solver.tally_worlds`) a batch of worlds at a time."""

    def __init__(self, view: View, utilities: Sequence[float], actions: Sequence[Action] | None = None) -> None:
        self.view = view
        self.actions = view.legal_actions() if actions is None else list(actions)
        self.index = {(a.cards, a.beats if a.kind == Decision.ANSWER else None): i for i, a in enumerate(self.actions)}
        self.u = tuple(float(x) for x in utilities)
        # five doubles per root move (win, draw, loss weight; sum w*u, w*u*u), in the core's move order
        self.acc = array("d", bytes(8 * 5 * max(1, len(self.actions))))
        self.core_moves: list[int] | None = None  # index into `actions` of the core's i-th move
        self.weight = 0.0
        self.worlds = 0

    def add_worlds(self, solver: Solver, opponents: Sequence[int], weights: Sequence[float]) -> None:
        """The worlds in which the opponent holds each packed hand of
        `opponents`, with these weights."""
        if not opponents:
            return
        v = self.view
        moves, self.weight = solver.tally_worlds(
            v.player, v.hand, play_attacker(v), v.table, opponents, weights, self.u, self.acc, self.weight
        )
        if self.core_moves is None:
            order = []
            for cards, beats in moves:
                i = self.index.get((cards, beats))
                if i is None:
                    raise PositionError(f"the solver returned move {cards} that the view does not list as legal")
                order.append(i)
            self.core_moves = order
        self.worlds += len(opponents)

    def result(self, sampled: bool) -> list[MoveEval]:
        out = []
        total = self.weight or 1.0
        slot = {a: j for j, a in enumerate(self.core_moves or ())}
        for i, a in enumerate(self.actions):
            j = slot.get(i)
            wdl, su, su2 = (
                (self.acc[5 * j : 5 * j + 3], self.acc[5 * j + 3], self.acc[5 * j + 4])
                if j is not None
                else ((0.0, 0.0, 0.0), 0.0, 0.0)
            )
            w, d, l = (x / total for x in wdl)
            mean = su / total
            stderr = None
            if sampled:
                n = self.worlds
                var = max(su2 / total - mean * mean, 0.0)
                # one sample gives no spread: unknown (null), never Infinity, which JSON cannot carry
                stderr = math.sqrt(var / (n - 1)) if n > 1 else None
            out.append(MoveEval(a, w, d, l, mean, stderr))
        return rank_moves(out)


def check_play_view(view: View) -> None:
    """A view at a play-phase decision of its own player (`play_attacker` reads its attacker)."""
    if not isinstance(view, View):
        raise TacocatError(f"expected a View, got {type(view).__name__}")
    if view.phase != PLAY or view.decision not in PLAY_DECISIONS:
        raise PositionError(
            f"player {view.player} has no play-phase decision here (phase {view.phase}, acting {view.acting})", "R10"
        )


def play_attacker(view: View) -> int:
    """Who attacks in the trick of a play-phase view (`View.attacker` is
    None outside the play phase)."""
    if view.attacker is None:
        raise PositionError(f"player {view.player} has no play-phase decision here: no attacker", "R10")
    return view.attacker


class WorldSearch(TypedDict, total=False):
    """How a hidden-hand search solves its worlds, beyond the view and the
    budget: the options `exact_play`, `pimc_play` and the decisions'
    searches share (`tacocat.search.decisions` adds its own), written once
    here, each optional.  `utilities`: my worth of (win, drawn round,
    loss), default `ROUND_UTILITIES`; `solver`: the perfect-information
    solver, whose transposition table pays to keep across the searches of
    a decision (`PerfectSolver`), default a new one for the view's rules;
    `sampler`: the worlds (RULES §5), default the view's `HandSampler`
    (an inference sampler weights them); `actions`: the view's legal
    actions when the caller has listed them already (a bot that skips
    forced moves), default listed here."""

    utilities: Sequence[float]
    solver: PerfectSolver | None
    sampler: WorldSampler | None
    actions: Sequence[Action] | None


def world_search(
    view: View, where: str, options: Mapping[str, Any], known: Any = WorldSearch
) -> tuple[Sequence[float], PerfectSolver, WorldSampler]:
    """`options`' utilities, solver and sampler, their defaults filled in
    for `view`.  An option that `known` (a `WorldSearch` or a TypedDict
    extending it) does not list is refused as Python refuses an unknown
    keyword: options arrive as `**options`, which takes any name."""
    unknown = sorted(set(options) - set(known.__annotations__))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    return (
        options.get("utilities", ROUND_UTILITIES),
        options.get("solver") or PerfectSolver(view.rules),
        options.get("sampler") or HandSampler(view),
    )


def _tally(view: View, utilities: Sequence[float], options: Mapping[str, Any]) -> _Tally:
    """The tally of a search of `view`, its moves the caller's `actions` if it listed them."""
    return _Tally(view, utilities, options.get("actions"))


def exact_play(
    view: View,
    budget: Budget | None = None,
    *,
    max_hands: int | None = DEFAULT_EXACT_BUDGET,
    minimum: int = MIN_SAMPLES,
    partial: bool = False,
    **options: Unpack[WorldSearch],
) -> PlayResult | None:
    """Exact odds of every move, averaged over every distinct opponent hand
    with its exact probability; None when there are more than `max_hands`
    hands (None: no limit).  The budget's
    `stop` or time limit cuts the enumeration short (after at least
    `minimum` hands, `MIN_SAMPLES` unless the caller scales it with the
    budget, `tacocat.search.budget.scaled_minimum`; the result is then a partial average, `exact`
    False and `stopped` True); its sample count is not used.  The hands are
    visited in an order shuffled from the seed, so that a partial average
    is a random sample of the hands rather than the lowest ones.
    `partial`: a time budget that is a limit (`_batches`).  The other
    options: `WorldSearch`."""
    b = budget_of(budget, "exact_play")
    t0 = b.now()  # the clock counts the enumeration too
    check_play_view(view)
    utilities, solver, sampler = world_search(view, "exact_play", options)
    worlds = sampler.enumerate_packed(max_hands)
    if worlds is None:
        return None
    rng_from(b.seed).shuffle(worlds)
    deadline = b.deadline(t0)
    tally = _tally(view, utilities, options)
    stopped = False
    for batch in _batches(len(worlds), minimum, deadline if partial else None, b.clock):
        if b.ends(tally.worlds, t0, deadline, minimum):
            stopped = True
            break
        chunk = worlds[tally.worlds : tally.worlds + batch]
        tally.add_worlds(solver, [h for h, _ in chunk], [p for _, p in chunk])
        if b.progress is not None:
            b.progress(tally.worlds / len(worlds))
    return PlayResult(tuple(tally.result(sampled=False)), tally.worlds, not stopped, b.now() - t0, stopped)


def _add_batch(
    tally: _Tally,
    solver: PerfectSolver,
    sampler: WorldSampler,
    weigh: Callable[[Hand], float] | None,
    rng: random.Random,
    batch: int,
) -> None:
    """Draw `batch` worlds and solve them into the tally: uniform worlds,
    or (inference) uniform worlds with importance weights
    (tacocat.search.inference)."""
    if weigh is None:
        draw = sampler.sample_packed
        tally.add_worlds(solver, [draw(rng) for _ in range(batch)], [1.0] * batch)
    else:
        hands = [sampler.sample(rng) for _ in range(batch)]
        tally.add_worlds(solver, [packed(h) for h in hands], [weigh(h) for h in hands])


def _report(
    progress: Callable[[float], None],
    now: float,
    last: float,
    worlds: int,
    samples: int | None,
    t0: float,
    deadline: float | None,
) -> float:
    """Tell the fraction done (by worlds or by time) every 50 ms; the time
    last told."""
    if now - last <= 0.05:
        return last
    frac = worlds / samples if samples else 0.0
    if deadline is not None:
        frac = max(frac, (now - t0) / (deadline - t0))
    progress(min(frac, 1.0))
    return now


def _batches(
    n: int | None, minimum: int = MIN_SAMPLES, deadline: float | None = None, clock: Clock = WALL
) -> Iterator[int]:
    """Sizes of the batches of worlds a search hands the core, `n` in all
    (None: without end): growing from one, so that a time limit or `stop`,
    checked between batches, is seen within milliseconds even when one
    world takes long (12-card hands), and a cheap world costs no Python
    per world.  One batch ends at `minimum` worlds, where a stop may first
    end the search.  With a `deadline` (a time budget that is a limit,
    issue 24) a batch holds no more worlds than the time left fits at the
    pace of the batches so far: a batch that doubles at 2 ms would carry a
    1 ms budget past twice its time.  The batches only cut the worlds into
    runs; the worlds and their order are the same.  `deadline` and the
    pace are read on `clock`, the budget's."""
    done, size = 0, 1
    spent = 0.0  # seconds the batches so far took, to pace the next
    while n is None or done < n:
        step = size if n is None else min(size, n - done)
        if done < minimum:
            step = min(step, minimum - done)
        t = clock.now()
        if deadline is not None and done and done >= minimum:
            step = _fitting(step, done, deadline - t, spent)
        yield step
        done += step
        took = clock.now() - t
        spent += took
        if took < 0.002 and size < 1024:
            size *= 2


def _fitting(step: int, done: int, left: float, spent: float) -> int:
    """At most the worlds that fit in the `left` seconds at the pace of the
    `done` worlds so far (`spent` seconds), and at least one."""
    fits = int(left * done / spent) if spent > 0 else step
    return max(1, min(step, fits))


def pimc_play(
    view: View,
    budget: Budget | None = None,
    *,
    minimum: int = MIN_SAMPLES,
    partial: bool = False,
    **options: Unpack[WorldSearch],
) -> PlayResult:
    """PIMC: `budget.samples` worlds (or as many as fit in its time; both:
    the first limit reached; neither: `DEFAULT_SAMPLES`; a time limit or a
    stop ends the search only after `minimum` worlds, `MIN_SAMPLES` unless
    the caller scales it with the budget), each solved
    exactly; per move the mean utility, win/draw/loss frequencies and the
    standard error.  `partial`: a time budget that is a limit, its batches
    sized to the time left (`_batches`; off, the batches are cut only at
    `minimum`, as pimc_classic asks, `tacocat.players.reference`).  The
    other options: `WorldSearch`."""
    b = budget_of(budget, "pimc_play")
    t0 = b.now()  # the clock counts the set-up too
    check_play_view(view)
    samples = DEFAULT_SAMPLES if b.unlimited else b.samples
    rng = rng_from(b.seed)
    utilities, solver, sampler = world_search(view, "pimc_play", options)
    weigh = sampler.weight if getattr(sampler, "active", False) else None
    tally = _tally(view, utilities, options)
    deadline = b.deadline(t0)
    last = t0
    stopped = False
    for batch in _batches(samples, minimum, deadline if partial else None, b.clock):
        if b.ends(tally.worlds, t0, deadline, minimum):
            stopped = b.stopped()
            break
        _add_batch(tally, solver, sampler, weigh, rng, batch)
        if b.progress is not None:
            last = _report(b.progress, b.now(), last, tally.worlds, samples, t0, deadline)
    return PlayResult(tuple(tally.result(sampled=True)), tally.worlds, False, b.now() - t0, stopped)
