"""Speed of the hidden-hand searches from 8-card play-phase positions.

    python results/bench_search.py            # writes results/bench_search.md
    python results/bench_search.py --quick    # fewer positions, prints only

- ISMCTS iterations per second (one core, one tree), for the default leaf
  evaluation (random play down to 4 cards per hand, then exact) and for
  pure random rollouts (exact_cards=0).  Target: 100,000 it/s.
- PIMC deals per second: each deal is one sampled opponent hand solved
  exactly with *every* root move evaluated (`PerfectSolver.move_outcomes`,
  one solver and transposition table reused across the deals of a
  position).  Target: 1,000 deals/s.

Positions: seeded shuffles of the standard deck, 8 cards each, nothing face
up, the asking player attacks.  Machine load matters: the numbers are wall
time on whatever else is running (the table records the load average)."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from tacocat.rules.views import View
from tacocat.search.bench import bench_views
from tacocat.search.budget import Budget
from tacocat.search.ismcts import ismcts_play
from tacocat.search.pimc import PerfectSolver, pimc_play

OUT = Path(__file__).resolve().parent / "bench_search.md"


def positions(n: int, seed: int) -> list[View]:
    return bench_views(n, seed)  # the views `tacocat bench` times


def bench_ismcts(views, iterations: int, exact_cards: int) -> list[float]:
    rates = []
    for i, v in enumerate(views):
        r = ismcts_play(v, Budget(samples=iterations, seed=i), utilities=(1.0, 0.0, -1.0), exact_cards=exact_cards)
        rates.append(r.worlds / r.seconds)
    return rates


def bench_pimc(views, samples: int) -> tuple[list[float], float]:
    rates = []
    moves = []
    for i, v in enumerate(views):
        solver = PerfectSolver()
        r = pimc_play(v, Budget(samples=samples, seed=i), solver=solver)
        rates.append(r.worlds / r.seconds)
        moves.append(len(r.moves))
    return rates, statistics.mean(moves)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="3 positions, smaller budgets, no file")
    args = ap.parse_args()
    if args.quick:
        args.positions, args.iterations, args.samples = 3, 50_000, 300
    views = positions(args.positions, args.seed)
    load0 = os.getloadavg()[0]
    t0 = time.time()
    ism = bench_ismcts(views, args.iterations, 4)
    ism0 = bench_ismcts(views, args.iterations, 0)
    pim, nmoves = bench_pimc(views, args.samples)
    load1 = os.getloadavg()[0]

    def fmt(xs):
        return f"{statistics.median(xs):,.0f} (min {min(xs):,.0f}, max {max(xs):,.0f})"

    rows = [
        ("ISMCTS, rollout + exact at <= 4 cards", f"{args.iterations:,} iterations", fmt(ism), "it/s", "100,000"),
        ("ISMCTS, random rollout to the showdown", f"{args.iterations:,} iterations", fmt(ism0), "it/s", "100,000"),
        (f"PIMC, every root move (avg {nmoves:.1f} moves)", f"{args.samples:,} deals", fmt(pim), "deals/s", "1,000"),
    ]
    lines = [
        "# Search speed from 8-card play-phase positions",
        "",
        f"Regenerate: `python results/bench_search.py --positions {args.positions} --iterations {args.iterations} "
        f"--samples {args.samples} --seed {args.seed}`",
        "",
        f"{args.positions} seeded positions (8 v 8, nothing seen, the asker attacks); median over positions "
        "(min, max). One thread, wall time.",
        "",
        "| search | budget per position | speed | unit | target |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    lines += [
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores shared with other jobs; "
        f"load average {load0:.2f} at start, {load1:.2f} at end; Python {platform.python_version()}; "
        f"{time.time() - t0:.0f} s in all.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        OUT.write_text(text)
        print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
