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
from tacocat.rules.play import PlayPosition, move_values, play_value, showdown
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler, WorldSampler, rng_from, world_hands

DEFAULT_SAMPLES = 200
"""Worlds per decision when neither samples nor time is given."""


@dataclass
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

class PerfectSolver:
    """The perfect-information solver behind PIMC, behind one small
    interface so the backend can change: the Cython alpha-beta with its
    transposition table (`tacocat.core._search.Core`) when it is built, else the
    reference minimax of `tacocat.rules.play`.  One instance per thread."""

    def __init__(self, rules: Ruleset = STANDARD, tt_entries: int = 1 << 20, backend: str = "auto") -> None:
        self.rules = rules
        self.core = None
        self.max_hand = 0
        if backend not in ("auto", "fast", "reference"):
            raise TacocatError(f"solver backend {backend!r} unknown; expected auto, fast or reference")
        if backend != "reference":
            try:
                from tacocat.core import _search

                self.core = _search.Core(tt_entries)
                self._pack = _search.pack_hand
                self._unpack = _search.unpack_hand
                self._beats = int(_search.BEATS)
                self.max_hand = int(_search.LIMITS["max_hand"])
            except (ImportError, AttributeError, KeyError):
                if backend == "fast":
                    raise TacocatError("the fast solver (tacocat.core._search) is not built; run pip install -e .") from None
                self.core = None
        self.backend = "fast" if self.core is not None else "reference"

    def move_outcomes(self, hands: tuple[Hand, Hand], attacker: int, table: Hand = ()) -> list[tuple[Hand, bool | None, int]]:
        """Every root move with player 0's round outcome after it under best
        play by both: +1 win, 0 drawn round, -1 loss.  `hands[attacker]`
        excludes the table (as in `PlayPosition`)."""
        if self.core is not None and max(len(hands[0]), len(hands[1])) <= self.max_hand:
            pack = self._pack
            raw = self.core.moves(pack(hands[0]), pack(hands[1]), attacker, pack(table), 2, 1, 0)
            out = []
            beats_bit = self._beats
            for mv, level in raw:
                cards = self._unpack(mv & ~beats_bit)
                beats = bool(mv & beats_bit) if table else None
                out.append((cards, beats, int(level) - 1))
            return out
        pos = PlayPosition(hands, attacker, table, self.rules)
        return [(c, b, int(v)) for c, b, v in move_values(pos, (1.0, 0.0, -1.0))]

    def outcome(self, hands: tuple[Hand, Hand], attacker: int, table: Hand = ()) -> int:
        """Player 0's round outcome under best play by both (+1 / 0 / -1);
        a showdown when both hold one card and the table is empty."""
        if not table and len(hands[0]) == 1 and len(hands[1]) == 1:
            return showdown(hands)
        if self.core is not None and max(len(hands[0]), len(hands[1])) <= self.max_hand:
            pack = self._pack
            return int(self.core.value(pack(hands[0]), pack(hands[1]), attacker, pack(table), 2, 1, 0)) - 1
        return int(play_value(PlayPosition(hands, attacker, table, self.rules), (1.0, 0.0, -1.0)))


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


@dataclass
class PlayResult:
    moves: list[MoveEval]
    worlds: int
    exact: bool
    seconds: float
    stopped: bool = False
    extra: dict = field(default_factory=dict)


def exact_play(
    view: View,
    *,
    utilities: Sequence[float] = (1.0, 0.0, -1.0),
    budget: int | None = DEFAULT_EXACT_BUDGET,
    solver: PerfectSolver | None = None,
    sampler: WorldSampler | None = None,
    stop: threading.Event | None = None,
    progress: Callable[[float], None] | None = None,
    seed: int | random.Random = 0,
) -> PlayResult | None:
    """Exact odds of every move, averaged over every distinct opponent hand
    with its exact probability; None when there are more than `budget`
    hands.  A `stop` cuts the enumeration short (then the result is a
    partial average and `exact` is False).  The hands are visited in an
    order shuffled from `seed`, so that a partial average is a random
    sample of the hands rather than the lowest ones."""
    check_play_view(view)
    sampler = sampler or HandSampler(view)
    worlds = sampler.enumerate(budget)
    if worlds is None:
        return None
    worlds = list(worlds)
    rng_from(seed).shuffle(worlds)
    t0 = time.perf_counter()
    solver = solver or PerfectSolver(view.rules)
    tally = _Tally(view.legal_actions(), utilities)
    stopped = False
    step = max(1, len(worlds) // 50)
    for i, (opp, p) in enumerate(worlds):
        if stop is not None and stop.is_set() and tally.worlds:
            stopped = True
            break
        tally.add(solver.move_outcomes(world_hands(view, opp), view.attacker, view.table), view.player, p)
        if progress is not None and (i + 1) % step == 0:
            progress((i + 1) / len(worlds))
    return PlayResult(tally.result(sampled=False), tally.worlds, not stopped, time.perf_counter() - t0, stopped)


def pimc_play(
    view: View,
    *,
    samples: int | None = None,
    time_ms: float | None = None,
    seed: int | random.Random = 0,
    utilities: Sequence[float] = (1.0, 0.0, -1.0),
    solver: PerfectSolver | None = None,
    sampler: WorldSampler | None = None,
    stop: threading.Event | None = None,
    progress: Callable[[float], None] | None = None,
) -> PlayResult:
    """PIMC: `samples` worlds (or as many as fit in `time_ms`; both: the
    first limit reached), each solved exactly; per move the mean utility,
    win/draw/loss frequencies and the standard error."""
    check_play_view(view)
    if samples is None and time_ms is None:
        samples = DEFAULT_SAMPLES
    if samples is not None and samples < 1:
        raise TacocatError(f"samples must be at least 1, got {samples}")
    rng = rng_from(seed)
    sampler = sampler or HandSampler(view)
    solver = solver or PerfectSolver(view.rules)
    tally = _Tally(view.legal_actions(), utilities)
    t0 = time.perf_counter()
    deadline = None if time_ms is None else t0 + time_ms / 1000.0
    stopped = False
    last = t0
    while samples is None or tally.worlds < samples:
        if tally.worlds and ((stop is not None and stop.is_set()) or (deadline is not None and time.perf_counter() >= deadline)):
            stopped = stop is not None and stop.is_set()
            break
        opp = sampler.sample(rng)
        tally.add(solver.move_outcomes(world_hands(view, opp), view.attacker, view.table), view.player, 1.0)
        if progress is not None:
            now = time.perf_counter()
            if now - last > 0.05:
                last = now
                frac = tally.worlds / samples if samples else 0.0
                if deadline is not None:
                    frac = max(frac, (now - t0) / (deadline - t0))
                progress(min(frac, 1.0))
    return PlayResult(tally.result(sampled=True), tally.worlds, False, time.perf_counter() - t0, stopped)
