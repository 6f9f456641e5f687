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
search; positions repeat across worlds, so it pays to keep it."""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand
from tacocat.errors import PositionError, TacocatError
from tacocat.rules.game import PLAY, View
from tacocat.core.exact import Solver
from tacocat.search.budget import Budget, budget_of
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler, WorldSampler, rng_from, world_hands

DEFAULT_SAMPLES = 200
"""Worlds per decision when neither samples nor time is given (a bot's
budget; `tacocat.search.hint` spends a time budget instead)."""
MIN_SAMPLES = 30
"""Worlds a sampled search takes before a time limit or a stop may end it,
so that no ranking rests on one deal (milliseconds)."""


@dataclass(frozen=True)
class MoveEval:
    """One candidate move with its odds, from the asking player's side."""

    action: Action
    win: float
    """Probability of winning the round."""
    draw: float
    """Probability of a drawn round (R17)."""
    loss: float
    value: float
    """Expected utility (see `tacocat.search.gamevalue.round_utilities`)."""
    stderr: float | None = None
    """Standard error of `value` (sampled methods only)."""
    game_win: float | None = None
    """Probability of winning the game (when a board is known)."""
    visits: int | None = None
    """ISMCTS: iterations through this move."""

    def to_dict(self) -> dict[str, Any]:
        d = self.action.to_dict()
        d.update(win=self.win, draw=self.draw, loss=self.loss, value=self.value)
        if self.stderr is not None:
            d["stderr"] = self.stderr
        if self.game_win is not None:
            d["game_win"] = self.game_win
        if self.visits is not None:
            d["visits"] = self.visits
        return d


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
    """Weighted outcome counts per move."""

    def __init__(self, actions: list[Action], utilities: Sequence[float]) -> None:
        self.actions = actions
        self.index = {(a.cards, a.beats if a.kind == "answer" else None): i for i, a in enumerate(actions)}
        self.u = tuple(float(x) for x in utilities)
        n = len(actions)
        self.wdl = [[0.0, 0.0, 0.0] for _ in range(n)]
        self.su = [0.0] * n
        self.su2 = [0.0] * n
        self.weight = 0.0
        self.worlds = 0

    def add(self, outcomes: list[tuple[Hand, bool | None, int]], player: int, weight: float) -> None:
        for cards, beats, o in outcomes:
            i = self.index.get((cards, beats))
            if i is None:
                raise PositionError(f"the solver returned move {cards} that the view does not list as legal")
            mine = o if player == 0 else -o
            k = 1 - mine  # 0 win, 1 draw, 2 loss
            self.wdl[i][k] += weight
            u = self.u[k]
            self.su[i] += weight * u
            self.su2[i] += weight * u * u
        self.weight += weight
        self.worlds += 1

    def result(self, sampled: bool) -> list[MoveEval]:
        out = []
        total = self.weight or 1.0
        for i, a in enumerate(self.actions):
            w, d, l = (x / total for x in self.wdl[i])
            mean = self.su[i] / total
            stderr = None
            if sampled:
                n = self.worlds
                var = max(self.su2[i] / total - mean * mean, 0.0)
                # one sample gives no spread: unknown (null), never Infinity, which JSON cannot carry
                stderr = math.sqrt(var / (n - 1)) if n > 1 else None
            out.append(MoveEval(a, w, d, l, mean, stderr))
        return rank_moves(out)


def check_play_view(view: View) -> None:
    """A view at a play-phase decision of its own player."""
    if not isinstance(view, View):
        raise TacocatError(f"expected a View, got {type(view).__name__}")
    if view.phase != PLAY or view.decision not in ("attack", "answer"):
        raise PositionError(
            f"player {view.player} has no play-phase decision here (phase {view.phase}, acting {view.acting})", "R10"
        )


@dataclass(frozen=True)
class MixedMove:
    """One card of a mixed strategy (the duel, R9) and its probability."""

    card: int
    probability: float

    def to_dict(self) -> dict[str, Any]:
        return {"cards": [self.card], "probability": self.probability}


@dataclass(frozen=True)
class PlayResult:
    """What one search found; immutable.  The fields after `stopped` are
    filled by the searches they concern (None elsewhere)."""

    moves: tuple[MoveEval, ...]
    """Every evaluated move, best first."""
    worlds: int
    """Distinct hands averaged (exact), deals sampled, or ISMCTS iterations."""
    exact: bool
    seconds: float
    stopped: bool = False
    mixed: tuple[MixedMove, ...] | None = None
    """Duel: my optimal mixed strategy over my distinct cards."""
    game_value: float | None = None
    """Duel: the value of the matrix game."""
    opponent_mix: tuple[MixedMove, ...] | None = None
    """Duel: the opponent's optimal mixed strategy over the ranks it may hold."""
    iterations: int | None = None
    """ISMCTS: iterations run (all trees)."""
    nodes: int | None = None
    """ISMCTS: tree nodes (all trees)."""
    evaluations: int | None = None
    """Replacement: (candidate, deal) evaluations."""
    candidates: int | None = None
    """Replacement: candidate discards compared."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "moves", tuple(self.moves))


_UNSET: Any = object()


def exact_play(
    view: View,
    budget: Budget | int | None = _UNSET,
    *,
    utilities: Sequence[float] = ROUND_UTILITIES,
    max_hands: int | None = _UNSET,
    solver: PerfectSolver | None = None,
    sampler: WorldSampler | None = None,
    **legacy: Any,
) -> PlayResult | None:
    """Exact odds of every move, averaged over every distinct opponent hand
    with its exact probability; None when there are more than `max_hands`
    hands (default `DEFAULT_EXACT_BUDGET`; None: no limit).  The budget's
    `stop` or time limit cuts the enumeration short (after at least
    `MIN_SAMPLES` hands; the result is then a partial average, `exact`
    False and `stopped` True); its sample count is not used.  The hands are
    visited in an order shuffled from the seed, so that a partial average
    is a random sample of the hands rather than the lowest ones.  (Before
    `Budget`, `budget` was the hand limit: an int or None there still is.)"""
    if not isinstance(budget, Budget):
        if budget is not _UNSET:
            max_hands = budget
        budget = None
    if max_hands is _UNSET:
        max_hands = DEFAULT_EXACT_BUDGET
    b = budget_of(budget, legacy, "exact_play")
    check_play_view(view)
    sampler = sampler or HandSampler(view)
    worlds = sampler.enumerate(max_hands)
    if worlds is None:
        return None
    worlds = list(worlds)
    rng_from(b.seed).shuffle(worlds)
    t0 = time.perf_counter()
    deadline = b.deadline(t0)
    solver = solver or PerfectSolver(view.rules)
    tally = _Tally(view.legal_actions(), utilities)
    stopped = False
    step = max(1, len(worlds) // 50)
    for i, (opp, p) in enumerate(worlds):
        if b.ends(tally.worlds, t0, deadline, MIN_SAMPLES):
            stopped = True
            break
        tally.add(solver.move_outcomes(world_hands(view, opp), view.attacker, view.table), view.player, p)
        if b.progress is not None and (i + 1) % step == 0:
            b.progress((i + 1) / len(worlds))
    return PlayResult(tally.result(sampled=False), tally.worlds, not stopped, time.perf_counter() - t0, stopped)


def pimc_play(
    view: View,
    budget: Budget | None = None,
    *,
    utilities: Sequence[float] = ROUND_UTILITIES,
    solver: PerfectSolver | None = None,
    sampler: WorldSampler | None = None,
    **legacy: Any,
) -> PlayResult:
    """PIMC: `budget.samples` worlds (or as many as fit in its time; both:
    the first limit reached; neither: `DEFAULT_SAMPLES`; a time limit or a
    stop ends the search only after `MIN_SAMPLES` worlds), each solved
    exactly; per move the mean utility, win/draw/loss frequencies and the
    standard error."""
    b = budget_of(budget, legacy, "pimc_play")
    check_play_view(view)
    samples = DEFAULT_SAMPLES if b.unlimited else b.samples
    rng = rng_from(b.seed)
    sampler = sampler or HandSampler(view)
    solver = solver or PerfectSolver(view.rules)
    tally = _Tally(view.legal_actions(), utilities)
    t0 = time.perf_counter()
    deadline = b.deadline(t0)
    last = t0
    stopped = False
    while samples is None or tally.worlds < samples:
        if b.ends(tally.worlds, t0, deadline, MIN_SAMPLES):
            stopped = b.stopped()
            break
        opp = sampler.sample(rng)
        tally.add(solver.move_outcomes(world_hands(view, opp), view.attacker, view.table), view.player, 1.0)
        if b.progress is not None:
            now = time.perf_counter()
            if now - last > 0.05:
                last = now
                frac = tally.worlds / samples if samples else 0.0
                if deadline is not None:
                    frac = max(frac, (now - t0) / (deadline - t0))
                b.progress(min(frac, 1.0))
    return PlayResult(tally.result(sampled=True), tally.worlds, False, time.perf_counter() - t0, stopped)
