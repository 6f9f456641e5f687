"""What a search may spend: one typed value instead of the same keywords
in every search signature.

`Budget(samples, time_ms, seed, stop, progress, start, clock)`: `samples` counts
the search's unit of work (PIMC and duel: sampled deals; replacement:
(discard, deal) evaluations; ISMCTS: iterations), `time_ms` a time
limit read on `clock` (the first limit reached ends the search), `seed` its random choices,
`stop` an event that ends it early with the best answer so far,
`progress(fraction)` a callback now and then, `start` when the time began
(a bot's `choose` starts the clock before its own set-up).  Every search takes it as its second argument,
`budget=` (None: the search's default budget); there is no other way to
give a search its budget.

`clock` says what a millisecond of `time_ms` is: `WALL` (the time a person
waits: hints, servers) or `CPU` (the searching thread's own CPU time:
matches, so that a budget buys the same work on an idle machine and on a
loaded one, where the wall clock also counts the time other processes held
the core).  Every deadline of every search, the Cython cores' included, is
read on the budget's clock."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from tacocat.errors import TacocatError, shorten


@dataclass(frozen=True)
class Clock:
    """A clock a time budget is counted on (module docstring).  `now()` is
    in seconds from an arbitrary origin; `c_id` is its POSIX clock id, the
    one the Cython cores read in their inner loops."""

    name: str
    now: Callable[[], float]
    c_id: int

    def __repr__(self) -> str:
        return f"Clock({self.name!r})"


WALL = Clock("wall", time.perf_counter, time.CLOCK_MONOTONIC)
"""Elapsed time (`time.perf_counter`, CLOCK_MONOTONIC on Linux)."""
CPU = Clock("cpu", time.thread_time, time.CLOCK_THREAD_CPUTIME_ID)
"""The calling thread's CPU time: what the search itself spent, whatever
else the machine runs."""
CLOCKS = {"wall": WALL, "cpu": CPU}


def clock_named(name: "str | Clock") -> Clock:
    """The clock called `name` ("wall" or "cpu"); a `Clock` is returned as it is."""
    if isinstance(name, Clock):
        return name
    try:
        return CLOCKS[name]
    except (KeyError, TypeError):
        raise TacocatError(f"clock must be one of {', '.join(CLOCKS)}, got {shorten(name)}") from None


STOP_GRACE_S = 0.2
"""How long a stopped search may go on collecting its minimum sample (`Budget.ends`)."""
MAX_SAMPLES = 10**9
MAX_TIME_MS = 86_400_000
"""Upper bounds (a day): a 400-digit budget is refused here, not overflowed in a float or a C int later."""


FLOOR_FULL_MS = 100.0
"""A time budget of at least this many milliseconds keeps a search's whole
minimum sample (PIMC's `MIN_SAMPLES` worlds, a replacement stage's
`MIN_STAGE_DEALS` deals); a shorter one keeps the same fraction of it."""


def scaled_minimum(full: int, time_ms: float | None) -> int:
    """The minimum sample of a search given `time_ms` (issue 24: a time
    budget is a limit, not a floor).  A search reads the clock only after
    its minimum sample, so a fixed minimum of 30 worlds made a 1 ms budget
    cost 10 ms on average.  The minimum now scales with the budget:
    `full * time_ms / FLOOR_FULL_MS`, rounded down, at least 1 and at most
    `full` — PIMC's 30 worlds at 100 ms and more, 3 at 10 ms, 1 at 3 ms and
    less; a replacement stage's 8 deals at 100 ms, 1 at 12 ms and less.
    No time limit (a sample budget): the full minimum, which then never
    applies anyway (only a stop or a clock ends such a search early)."""
    if time_ms is None:
        return full
    return max(1, min(full, int(full * time_ms / FLOOR_FULL_MS)))


@dataclass(frozen=True)
class Budget:
    """A search budget (module docstring); validated when built."""

    samples: int | None = None
    """Units of work (deals, evaluations or iterations); None: the search's default."""
    time_ms: float | None = None
    """Time limit in milliseconds on `clock`; None: no limit."""
    seed: int = 0
    """Seed of every random choice: the same seed and sample budget give the same answer."""
    stop: threading.Event | None = None
    """Set it to end the search early (it returns the best answer so far)."""
    progress: Callable[[float], None] | None = None
    """Called now and then with the fraction done."""
    start: float | None = None
    """The `clock.now()` value at which `time_ms` began to run: the
    caller's start (a bot's `choose`, so the work before the search, such
    as skipping a forced move, is inside the budget; issue 24).  None: when
    the search begins."""
    clock: Clock = WALL
    """What `time_ms`, `start` and every deadline are counted on (module docstring)."""

    def __post_init__(self) -> None:
        self._check_amounts()
        self._check_hooks()

    def _check_amounts(self) -> None:
        """The sample count, the time and the seed: integers and numbers in range."""
        s = self.samples
        if s is not None and (not _is_number(s, int) or not 1 <= s <= MAX_SAMPLES):
            raise TacocatError(f"iterations must be a positive integer, at most {MAX_SAMPLES:,}, got {shorten(s)}")
        t = self.time_ms
        if t is not None and (not _is_number(t, (int, float)) or not 0 < t <= MAX_TIME_MS):
            raise TacocatError(
                f"time_ms must be a positive number of milliseconds, at most {MAX_TIME_MS:,} (a day), got {shorten(t)}"
            )
        if not _is_number(self.seed, int):
            raise TacocatError(f"seed must be an integer, got {shorten(self.seed)}")

    def _check_hooks(self) -> None:
        """The stop event, the progress callback, the start and the clock."""
        if self.stop is not None and not hasattr(self.stop, "is_set"):
            raise TacocatError("stop must be a threading.Event (or None)")
        if self.progress is not None and not callable(self.progress):
            raise TacocatError("progress must be callable (or None)")
        st = self.start
        if st is not None and (not _is_number(st, (int, float)) or st != st):
            raise TacocatError(f"start must be a clock.now() value (or None), got {shorten(st)}")
        if not isinstance(self.clock, Clock):
            raise TacocatError(f"clock must be a Clock (tacocat.search.budget.WALL or CPU), got {shorten(self.clock)}")

    @property
    def unlimited(self) -> bool:
        """Neither a sample count nor a time limit: the search's default applies."""
        return self.samples is None and self.time_ms is None

    def deadline(self, start: float) -> float | None:
        """The `clock.now()` value at which the time runs out,
        counted from the budget's own `start` if it has one, else from the
        search's `start`."""
        if self.time_ms is None:
            return None
        return (start if self.start is None else self.start) + self.time_ms / 1000.0

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def out(self, deadline: float | None) -> bool:
        """Stop asked for, or the deadline passed."""
        return self.stopped() or (deadline is not None and self.clock.now() >= deadline)

    def ends(self, done: int, start: float, deadline: float | None, minimum: int) -> bool:
        """Whether a search begun at `start` that has done `done` units
        should answer now.  The deadline ends it once it has `minimum` units,
        so a tiny time budget never ranks moves on a handful of samples.  A
        stop is a promise (servers enforce their time caps with it): it ends
        the search at `minimum` units, or after `STOP_GRACE_S` with anything
        at all, when units are slow (12-card hands)."""
        if done >= 1 and self.stopped():
            return done >= minimum or self.clock.now() - start >= STOP_GRACE_S
        return done >= minimum and deadline is not None and self.clock.now() >= deadline

    def now(self) -> float:
        """The budget's clock, read now."""
        return self.clock.now()

    def with_(self, **changes: Any) -> "Budget":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


def _is_number(value: Any, types: type | tuple[type, ...]) -> bool:
    """A number of `types`, never a bool read as one."""
    return not isinstance(value, bool) and isinstance(value, types)


def budget_of(budget: Budget | None, where: str = "search") -> Budget:
    """The budget of a search called with `budget` (None: `Budget()`, the
    search's default); anything else is refused in one line naming `where`."""
    if budget is None:
        return Budget()
    if not isinstance(budget, Budget):
        raise TacocatError(f"{where}: budget must be a Budget (tacocat.search.budget.Budget), got {shorten(budget)}")
    return budget
