"""What the equilibrium tables' scripts share (results/equilibrium_five.py,
equilibrium_six.py, equilibrium_speed.py): a solve timed on both clocks,
and the fields of its `EquilibriumResult` that a row records."""

from __future__ import annotations

import time

SOLVED = (
    "iterations",
    "exploitability",
    "hand_regret",
    "hand_checks",
    "value",
    "nodes",
    "sequences",
    "peak_bytes",
    "compact",
)
"""A solved row's fields, read from the result (five and six)."""


class Clocks:
    """CPU seconds (the process's: every thread of the solve) and wall seconds since it was made."""

    def __init__(self) -> None:
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()

    def cpu(self) -> float:
        return time.process_time() - self.cpu0

    def wall(self) -> float:
        return time.perf_counter() - self.wall0


def result_fields(result, fields: tuple[str, ...] = SOLVED) -> dict:
    """The result's `fields`, by name."""
    return {f: getattr(result, f) for f in fields}


def solved_row(result, clocks: Clocks) -> dict:
    """A solved row's times and result fields (`SOLVED`)."""
    return {"cpu_s": clocks.cpu(), "wall_s": clocks.wall(), **result_fields(result)}
