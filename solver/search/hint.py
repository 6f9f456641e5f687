"""What should I do now?  `hint(view)` ranks every move of the view's
decision with its round odds, expected utility and game-win probability.

Methods (`method=`):

- "exact": play-phase decisions — every distinct opponent hand with its exact
  probability (`tacocat.search.sampling`), each solved with the perfect-information
  solver (`tacocat.search.pimc.exact_play`); duel — the same worlds feed the matrix
  game (`tacocat.search.decisions`).  Replacement draws unknown cards, so it is
  never exact: asking "exact" there falls back to sampling.
- "pimc": sampled opponent hands, each solved exactly (`iterations` = number
  of samples; for a replacement, the number of candidate evaluations).
- "ismcts": information-set MCTS (`tacocat.search.ismcts`, play phase; other
  decisions fall back to sampling).
- "auto": exact when the opponent's possible hands number at most
  `exact_budget` (also when `iterations` or `time_ms` is given), else
  PIMC.

Utilities: by default the search plays for the game — a round outcome is
worth the game equity 2 G - 1 of the board it leads to (`tacocat.search.gamevalue`),
so "value" is the expected equity in [-1, 1] and "game_win" = (value + 1) / 2
for a search that plays the rest of the game as the equal players the table
assumes.  `utilities="round"` scores a round 1 / 0 / -1 instead."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from tacocat.rules.actions import Action
from tacocat.errors import PositionError, TacocatError
from tacocat.errors import shorten as _short
from tacocat.rules.game import DUEL, REPLACE, View
from tacocat.search.gamevalue import round_game_wins, round_utilities
from tacocat.search.pimc import MoveEval, PerfectSolver, PlayResult, exact_play, pimc_play
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler

METHODS = ("auto", "exact", "pimc", "ismcts")
EXACT_LIMIT = 200_000
MAX_ITERATIONS = 10**9
MAX_TIME_MS = 86_400_000


class _StopOrDeadline:
    """Set when `stop` is set or `time_ms` has passed (an Event's
    `is_set`, for searches that only poll a stop)."""

    def __init__(self, stop: threading.Event | None, time_ms: float | None) -> None:
        self.stop = stop
        self.deadline = None if time_ms is None else time.perf_counter() + time_ms / 1000.0

    def is_set(self) -> bool:
        return bool(self.stop is not None and self.stop.is_set()) or (
            self.deadline is not None and time.perf_counter() >= self.deadline)


@dataclass
class HintResult:
    """A ranked answer to one decision."""

    method: str
    """"exact", "pimc" or "ismcts": what actually ran."""
    exact: bool
    """True when the odds average every consistent opponent hand exactly."""
    decision: str
    """"attack", "answer", "replace" or "duel"."""
    moves: list[MoveEval]
    """Every evaluated move, best first."""
    seconds: float
    samples: int | None = None
    """Worlds evaluated (sampled methods)."""
    iterations: int | None = None
    """ISMCTS iterations."""
    mixed: list[dict] | None = None
    """Duel only: my optimal mixed strategy [{"cards": [r], "probability": p}]."""
    utilities: tuple[float, float, float] = (1.0, 0.0, -1.0)
    """Utilities of (win, drawn round, loss) used for `value`."""
    stopped: bool = False
    """True when `stop` cut the search short."""
    extra: dict = field(default_factory=dict)

    @property
    def best(self) -> MoveEval:
        """The top-ranked move."""
        return self.moves[0]

    @property
    def action(self) -> Action:
        """The recommended action (for a duel: the likeliest pure move)."""
        return self.moves[0].action

    def to_dict(self) -> dict[str, Any]:
        moves = [m.to_dict() for m in self.moves]
        d: dict[str, Any] = {"method": self.method, "exact": self.exact}
        if self.samples is not None:
            d["samples"] = self.samples
        if self.iterations is not None:
            d["iterations"] = self.iterations
        d.update(seconds=self.seconds, decision=self.decision, moves=moves, best=moves[0] if moves else None)
        if self.mixed is not None:
            d["mixed"] = self.mixed
        d["utilities"] = list(self.utilities)
        if self.stopped:
            d["stopped"] = True
        return d


def _validate(view, iterations, time_ms, seed, method, stop, progress) -> View:
    if isinstance(view, Mapping):
        view = View.from_dict(view)
    if not isinstance(view, View):
        raise TacocatError(f"view: expected a View (or its dict form), got {type(view).__name__}")
    if method not in METHODS:
        raise TacocatError(f"method {method!r} unknown; expected one of {', '.join(METHODS)}")
    # Upper bounds too: a 400-digit budget must be refused here, not overflow a float or a C int later.
    if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                   or not 1 <= iterations <= MAX_ITERATIONS):
        raise TacocatError(f"iterations must be an integer 1..{MAX_ITERATIONS:,}, got {_short(iterations)}")
    if time_ms is not None and (isinstance(time_ms, bool) or not isinstance(time_ms, (int, float))
                                or not 0 < time_ms <= MAX_TIME_MS):
        raise TacocatError(f"time_ms must be a positive number of milliseconds, at most {MAX_TIME_MS:,} (a day), "
                           f"got {_short(time_ms)}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TacocatError(f"seed must be an integer, got {seed!r}")
    if stop is not None and not hasattr(stop, "is_set"):
        raise TacocatError("stop must be a threading.Event (or None)")
    if progress is not None and not callable(progress):
        raise TacocatError("progress must be callable (or None)")
    if view.phase == "over":
        raise PositionError("the game is over: there is nothing to decide", "R19")
    if view.decision is None:
        raise PositionError(
            f"player {view.player} has no decision now (phase {view.phase}; acting: {view.acting or 'nobody'})"
        )
    if view.board.winner is not None:
        raise PositionError("the cat is in a goal: the game is over", "R19")
    return view


def hint(
    view: View,
    *,
    iterations: int | None = None,
    time_ms: float | None = None,
    seed: int = 0,
    method: str = "auto",
    stop: threading.Event | None = None,
    progress: Callable[[float], None] | None = None,
    utilities: str | Sequence[float] = "game",
    exact_budget: int = DEFAULT_EXACT_BUDGET,
    solver: PerfectSolver | None = None,
) -> HintResult:
    """Rank every move of `view`'s decision (see the module docstring).
    `iterations` is the sample / iteration budget, `time_ms` a time budget
    (the first reached ends the search); `stop` set returns the best answer
    so far; `progress(fraction)` is called now and then.  Raises
    `TacocatError` subclasses for bad input."""
    view = _validate(view, iterations, time_ms, seed, method, stop, progress)
    util = round_utilities(view.board, view.player, view.rules, utilities)
    solver = solver or PerfectSolver(view.rules)
    kind = view.decision
    t0 = time.perf_counter()
    mixed = None
    its = None

    if kind in ("attack", "answer"):
        res: PlayResult | None = None
        if method == "ismcts":
            from tacocat.search.ismcts import ismcts_play

            res = ismcts_play(view, iterations=iterations, time_ms=time_ms, seed=seed, utilities=util, stop=stop,
                              progress=progress)
            used = "ismcts"
            its = res.extra.get("iterations")
        else:
            if method in ("exact", "auto"):
                sampler = HandSampler(view)
                if method == "exact" and (n_hands := sampler.count()) > EXACT_LIMIT:
                    raise TacocatError(
                        f"method exact: the opponent may hold {n_hands} distinct hands, more than "
                        f"{EXACT_LIMIT}; use auto, pimc or ismcts"
                    )
                limit = EXACT_LIMIT if method == "exact" else exact_budget
                # The enumeration honours time_ms too (it checks its stop between worlds): up to
                # EXACT_LIMIT hands of 11 cards would otherwise take minutes past any budget.
                res = exact_play(view, utilities=util, budget=limit, solver=solver, sampler=sampler,
                                 stop=_StopOrDeadline(stop, time_ms), progress=progress, seed=seed)
                if res is not None and res.stopped and not (stop is not None and stop.is_set()):
                    res.stopped = False  # out of time, not stopped: the result says exact false
            used = "exact"
            if res is None:
                res = pimc_play(view, samples=iterations, time_ms=time_ms, seed=seed, utilities=util, solver=solver,
                                stop=stop, progress=progress)
                used = "pimc"
        assert res is not None
        moves, exact, worlds, stopped = res.moves, res.exact, res.worlds, res.stopped
    elif kind == DUEL:
        from tacocat.search.decisions import duel_eval

        want_exact = method in ("exact", "auto")
        res = duel_eval(view, samples=iterations, time_ms=time_ms, seed=seed, utilities=util,
                        exact_budget=(EXACT_LIMIT if method == "exact" else exact_budget) if want_exact else -1,
                        solver=solver, stop=stop, progress=progress)
        used = "exact" if res.exact else "pimc"
        moves, exact, worlds, stopped = res.moves, res.exact, res.worlds, res.stopped
        mixed = res.extra["mixed"]
    elif kind == REPLACE:
        from tacocat.search.decisions import replace_eval

        res = replace_eval(view, samples=iterations, time_ms=time_ms, seed=seed, utilities=util, solver=solver,
                           stop=stop, progress=progress)
        used, exact, worlds, stopped = "pimc", False, res.worlds, res.stopped
        moves = res.moves
    else:  # pragma: no cover - decision kinds are closed
        raise PositionError(f"unknown decision {kind!r}")

    gw = round_game_wins(view.board, view.player, view.rules)
    for m in moves:
        if m.visits == 0:
            continue
        m.game_win = m.win * gw[0] + m.draw * gw[1] + m.loss * gw[2]
    if progress is not None:
        progress(1.0)
    return HintResult(
        method=used,
        exact=bool(exact),
        decision=kind,
        moves=moves,
        seconds=time.perf_counter() - t0,
        # A stopped enumeration says how many hands it averaged.
        samples=None if (used == "exact" and exact) or used == "ismcts" else worlds,
        iterations=its,
        mixed=mixed,
        utilities=tuple(util),
        stopped=bool(stopped),
        extra=dict(res.extra),
    )
