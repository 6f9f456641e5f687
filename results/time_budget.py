"""Is a hint's time budget honoured?  `tacocat.search.hint.hint(view,
time_ms=T)` for every decision kind and method, the wall time of the call
against T (the median of a few runs; the budget counts from the call).

    python results/time_budget.py          # writes results/time_budget.md

Runs on a loaded shared machine: the ratio wall / budget is what matters.
A budget shorter than the minimum work (`MIN_SAMPLES` deals, or
`MIN_STAGE_DEALS` deals per replacement candidate) overruns by design."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from tacocat.rules.views import build_view
from tacocat.search.budget import Budget
from tacocat.search.hint import hint

OUT = Path(__file__).resolve().parent / "time_budget.md"

CASES = [
    ("attack, 8 cards, pimc", dict(hand=(2, 3, 5, 7, 8, 9, 10, 12), opponent=8), "pimc"),
    ("attack, 8 cards, ismcts", dict(hand=(2, 3, 5, 7, 8, 9, 10, 12), opponent=8), "ismcts"),
    (
        "answer, 6 cards, auto",
        dict(hand=(2, 4, 6, 9, 11, 12), seen=(1, 3), opponent=5, attacker=0, table=(8,), player=1),
        "auto",
    ),
    ("duel, 7 cards", dict(hand=(2, 4, 8, 9, 12, 12, 6), phase="duel"), "auto"),
    ("replace, 7 cards", dict(hand=(2, 2, 3, 5, 8, 9, 11), phase="replace"), "auto"),
]
BUDGETS = (100, 500, 2000)


def main() -> None:
    load0 = os.getloadavg()[0]
    rows = []
    for name, facts, method in CASES:
        view = build_view(**facts)
        hint(view, Budget(samples=50), method=method)  # warm the imports and tables
        for ms in BUDGETS:
            walls, work = [], []
            for seed in range(3):
                t0 = time.perf_counter()
                r = hint(view, Budget(time_ms=ms, seed=seed), method=method)
                walls.append(time.perf_counter() - t0)
                work.append(r.iterations or r.samples or 0)
            wall = statistics.median(walls)
            rows.append(
                f"| {name} | {ms} | {1000 * wall:.0f} | {1000 * wall / ms:.2f} | {statistics.median(work):,.0f} |"
            )
    load1 = os.getloadavg()[0]
    text = (
        "\n".join(
            [
                "# Time budgets: wall time of `hint(view, time_ms=T)`",
                "",
                "`python results/time_budget.py` on "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, a loaded shared "
                f"machine (2 cores, load average {load0:.1f} -> {load1:.1f}); median of 3 seeds.",
                "",
                "| decision | budget ms | wall ms | wall / budget | deals or iterations |",
                "| --- | ---: | ---: | ---: | ---: |",
                *rows,
            ]
        )
        + "\n"
    )
    print(text)
    OUT.write_text(text)


if __name__ == "__main__":
    main()
