"""The fixed bench of the installed engine (`tacocat bench`), the habit of
chess engines: a seeded set of positions, a node count that changes only
when the search changes, and the speed of each search on this machine.

- exact: full solves of `tacocat.core.exact.bench_positions()` (6 seeded
  deals per hand size 2..8, both hands known); the node total is
  `bench_signature()`, the number tests/test_solver.py and
  results/bench_solver.md pin;
- PIMC: sampled deals per second from seeded 8-card play-phase views, each
  deal solved exactly for every root move;
- ISMCTS: iterations per second from the same views.

Speeds are medians over repeats (exact) or positions (PIMC, ISMCTS), wall
time on whatever else the machine runs."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any, Callable

from tacocat.core.exact import BENCH_SEED, bench_positions, bench_signature
from tacocat.rules.ruleset import STANDARD
from tacocat.rules.views import View

VIEW_SEED = 0
"""Seed of the PIMC / ISMCTS views (`bench_views`)."""


def bench_views(n: int, seed: int = VIEW_SEED, size: int = 8) -> list[View]:
    """`n` seeded play-phase views: `size` cards each, nothing seen, the
    asking player (0) attacks."""
    out = []
    for i in range(n):
        rng = random.Random(f"bench/{seed}/{i}")
        deck = list(STANDARD.deck_cards())
        rng.shuffle(deck)
        out.append(
            View.from_dict(
                {"player": 0, "hand": deck[:size], "seen": [], "opponent_hand_size": size, "attacker": 0, "table": []}
            )
        )
    return out


def run_bench(
    *,
    repeat: int = 10,
    positions: int = 3,
    deals: int = 300,
    iterations: int = 20_000,
    progress: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Run the bench; a JSON-ready dict of what it measured."""
    from tacocat.search.budget import Budget
    from tacocat.search.ismcts import ismcts_play
    from tacocat.search.pimc import pimc_play

    say = progress or (lambda _msg: None)
    start = time.perf_counter()
    say("exact")
    times, nodes = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        n = bench_signature()
        times.append(time.perf_counter() - t)
        if nodes is not None and n != nodes:  # pragma: no cover - the count is deterministic by design
            raise RuntimeError(f"bench node count changed between runs: {nodes} then {n}")
        nodes = n
    if nodes is None:
        raise ValueError(f"bench: repeat must be at least 1, got {repeat}")
    solves = len(bench_positions())
    secs = statistics.median(times)
    views = bench_views(positions)
    say("pimc")
    pimc = [pimc_play(v, Budget(samples=deals, seed=i)) for i, v in enumerate(views)]
    say("ismcts")
    ismcts = [
        ismcts_play(v, Budget(samples=iterations, seed=i), utilities=(1.0, 0.0, -1.0)) for i, v in enumerate(views)
    ]
    return {
        "exact": {
            "positions": solves,
            "seed": BENCH_SEED,
            "nodes": nodes,
            "repeats": repeat,
            "seconds": secs,
            "nodes_per_second": nodes / secs,
            "solves_per_second": solves / secs,
        },
        "pimc": {
            "positions": positions,
            "deals_per_position": deals,
            "deals_per_second": statistics.median(r.worlds / r.seconds for r in pimc),
        },
        "ismcts": {
            "positions": positions,
            "iterations_per_position": iterations,
            "iterations_per_second": statistics.median(r.worlds / r.seconds for r in ismcts),
        },
        "view_seed": VIEW_SEED,
        "seconds": time.perf_counter() - start,
    }
