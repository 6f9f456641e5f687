"""Does the exact solver run in parallel?  The same 8 v 8 full root solves
done by one thread, then split over two threads (each with its own
`Solver`, as the API requires); the search releases the GIL, so on two
free cores the wall time should nearly halve.

Regenerate: python results/bench_threads.py [--positions 400] [--repeats 5]
Writes results/bench_threads.md.  The machine is shared: the script
reports the load average, and the median of several repeats."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
from pathlib import Path

from bench_solver import positions  # same seeded deals as the solver bench

from tacocat.core.exact import Solver


def wall(pos_list, threads: int) -> float:
    solvers = [Solver(1, keep_tt=False) for _ in range(threads)]
    chunks = [pos_list[i::threads] for i in range(threads)]

    def work(i: int) -> None:
        for pos in chunks[i]:
            solvers[i].solve(pos, pv=False)

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    pos_list = positions(8, args.positions, random.Random(777))
    load_before = os.getloadavg()[0]
    one, two = [], []
    for _ in range(args.repeats):
        one.append(wall(pos_list, 1))
        two.append(wall(pos_list, 2))
    load_after = os.getloadavg()[0]
    m1, m2 = statistics.median(one), statistics.median(two)
    lines = [
        "# Exact solver: one thread against two",
        "",
        f"Command: `python results/bench_threads.py --positions {args.positions} --repeats {args.repeats}`  ",
        f"{args.positions} seeded 8 v 8 positions (seed 777), full root solve each; "
        f"median wall time of {args.repeats} repeats; "
        f"{os.cpu_count()} CPUs, load average {load_before:.2f} before, {load_after:.2f} after.",
        "",
        "| threads | median wall s | solves/s | speed-up |",
        "|---:|---:|---:|---:|",
        f"| 1 | {m1:.3f} | {args.positions / m1:,.0f} | 1.00x |",
        f"| 2 | {m2:.3f} | {args.positions / m2:,.0f} | {m1 / m2:.2f}x |",
    ]
    Path(__file__).with_name("bench_threads.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
