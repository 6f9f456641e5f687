"""The fixed bench of the installed engine (`tacocat bench`), the habit of
chess engines: a seeded set of positions, a node count that changes only
when the search changes, and the speed of each search on this machine.

- exact: full solves of `bench_positions()` (6 seeded
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
from typing import Any, Callable, Sequence

from tacocat.core.exact import Solver
from tacocat.errors import TacocatError
from tacocat.rules.play import PlayPosition
from tacocat.rules.ruleset import STANDARD
from tacocat.rules.views import View

BENCH_SEED = 20240601
"""Seed of the fixed bench (`bench_positions`)."""


def bench_positions(
    seed: int = BENCH_SEED, sizes: Sequence[int] = range(2, 9), per_size: int = 6
) -> list[PlayPosition]:
    """The fixed bench: for each hand size, `per_size` seeded deals from the
    standard deck with an empty table and a random attacker."""
    rng = random.Random(seed)
    deck = STANDARD.deck_cards()
    out = []
    for size in sizes:
        for _ in range(per_size):
            cards = rng.sample(deck, 2 * size)
            out.append(PlayPosition((tuple(sorted(cards[:size])), tuple(sorted(cards[size:]))), rng.randrange(2)))
    return out


def bench_signature() -> int:
    """Total nodes of full solves (value, every root move, variation) of the
    fixed bench with a fresh 2**16-entry table per position.  Deterministic:
    it changes only when the search changes (move ordering, pruning, table
    policy), so results/bench_solver.md records it and a test compares."""
    solver = Solver(tt_entries=1 << 16, keep_tt=False)
    return sum(solver.solve(pos).nodes for pos in bench_positions())


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


# ---------------------------------------------------------------- builds of the equilibrium core
# (results/equilibrium_speed.py, results/equilibrium_five.py --old and tests/make_equilibrium_values.py compare
# an older build of `tacocat.core._cfr` with the installed one, in one process)


def core_build(path: str, name: str = "other_build._cfr"):
    """Another build of the CFR core (a compiled `_cfr` extension kept
    aside, e.g. an older commit's), loaded by path under `name` beside the
    installed one (`tacocat.search.equilibrium.solve(core=)` drives it)."""
    import importlib.util

    import tacocat.core._search  # noqa: F401  (the core cimports it: loaded first, by its own name)

    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TacocatError(f"{path}: not a loadable extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixed_schedule_solve(core, endgame, target: float) -> dict[str, Any]:
    """`endgame` solved by any build of the core (`core_build`, or `_cfr`)
    with the loop every build supports: a best response at iteration 0,
    then every max(4, t/4) iterations, to exploitability `target`.  The
    reference that builds are compared by: {"iterations", "exploitability",
    "value", "peak_bytes"}."""
    from tacocat.search.equilibrium import DEFAULT_MAX_SEQUENCES, _engine

    eng = _engine(endgame, core, DEFAULT_MAX_SEQUENCES)
    b0, b1 = eng.best_response()
    expl, nxt = (b0 + b1) / 2, 4
    while expl > target:
        eng.run(nxt - eng.iterations)
        b0, b1 = eng.best_response()
        expl = (b0 + b1) / 2
        nxt = eng.iterations + max(4, eng.iterations // 4)
    return {
        "iterations": eng.iterations,
        "exploitability": expl,
        "value": eng.values(0)[0],
        "peak_bytes": eng.stats()["peak_bytes"],
    }
