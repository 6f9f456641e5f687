"""Benchmark of the exact play-phase solver (not a test).

For each hand size 2..8: seeded random deals from the standard deck, empty
table, random attacker.  Times the public API (`tacocat.core.exact.Solver`, table
logically cleared before each search, so every position starts cold):

* value only      `Solver.value(position)`
* full root solve `Solver.solve(position, pv=False)`: every root move's value

and the pure-Python reference on a subset of the same positions, in the same
run (`tacocat.rules.play.play_value` / `move_values`, its lru_caches cleared before
each position).  Reports median and p95 times, nodes per second, the
table's hit rate, peak memory, the speed ratio and the fixed bench's node
count (`tacocat.search.bench.bench_signature`), and writes results/bench_solver.md.

    python results/bench_solver.py            # the full run (about a minute)
    python results/bench_solver.py --quick    # fewer positions
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

from tacocat.core.exact import Solver
from tacocat.rules import play
from tacocat.rules.play import PlayPosition
from tacocat.rules.ruleset import STANDARD
from tacocat.search.bench import BENCH_SEED, bench_positions, bench_signature

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "bench_solver.md"
SIZES = range(2, 9)
SEED = 12345


def _version(package: str) -> str:
    """An installed package's version; the core is prebuilt by `pip install
    -e .`, so Cython need not be importable when this script runs."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def positions(size: int, count: int, rng: random.Random) -> list[PlayPosition]:
    deck = STANDARD.deck_cards()
    out = []
    for _ in range(count):
        cards = rng.sample(deck, 2 * size)
        out.append(PlayPosition((tuple(sorted(cards[:size])), tuple(sorted(cards[size:]))), rng.randrange(2)))
    return out


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def time_fast(solver: Solver, pos_list: list[PlayPosition]) -> dict:
    value_t, full_t, nodes_v, nodes_f, probes, hits = [], [], 0, 0, 0, 0
    core = solver._core
    for pos in pos_list:
        core.reset_stats()
        t = time.perf_counter()
        solver.value(pos)
        value_t.append(time.perf_counter() - t)
        nodes_v += core.stats["nodes"]
        t = time.perf_counter()
        r = solver.solve(pos, pv=False)
        full_t.append(time.perf_counter() - t)
        nodes_f += r.nodes
        probes += r.tt.probes
        hits += r.tt.hits
    return {
        "value": value_t,
        "full": full_t,
        "nps": (nodes_v + nodes_f) / (sum(value_t) + sum(full_t)),
        "hit": hits / probes if probes else 0.0,
        "nodes_v": nodes_v / len(pos_list),
        "nodes_f": nodes_f / len(pos_list),
    }


def time_reference(pos_list: list[PlayPosition]) -> dict:
    value_t, full_t = [], []
    for pos in pos_list:
        play._outcome.cache_clear()
        play._answers.cache_clear()
        t = time.perf_counter()
        play.play_value(pos, (1, 0, -1))
        value_t.append(time.perf_counter() - t)
        play._outcome.cache_clear()
        play._answers.cache_clear()
        t = time.perf_counter()
        play.move_values(pos, (1, 0, -1))
        full_t.append(time.perf_counter() - t)
    play._outcome.cache_clear()
    play._answers.cache_clear()
    return {"value": value_t, "full": full_t}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = " load average %.2f %.2f %.2f;" % os.getloadavg()
    except OSError:
        load = ""
    return (
        f"{cpu}, {os.cpu_count()} CPUs;{load} {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, Cython {_version('Cython')}, C built with -O3"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer positions (a smoke run)")
    ap.add_argument("--out", default=str(OUT), help="where to write the markdown table")
    args = ap.parse_args()
    fast_n = 200 if args.quick else 1000
    ref_n = {2: 200, 3: 200, 4: 100, 5: 50, 6: 20, 7: 10, 8: 6}
    if args.quick:
        ref_n = {k: max(2, v // 5) for k, v in ref_n.items()}
        ref_n[8] = 2

    rng = random.Random(SEED)
    sets = {h: positions(h, fast_n, rng) for h in SIZES}
    solver = Solver(1, keep_tt=False)
    for pos in sets[6][:50]:  # warm up caches and the table's pages
        solver.solve(pos)

    gc.collect()
    rows = {}
    for h in SIZES:
        rows[h] = time_fast(solver, sets[h])
        print(
            f"{h}v{h}: value {pct(rows[h]['value'], 0.5) * 1e6:.1f} us, full {pct(rows[h]['full'], 0.5) * 1e6:.1f} us",
            file=sys.stderr,
        )
    rss_fast = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # Python-side allocations, in a separate untimed pass (tracemalloc slows every allocation)
    tracemalloc.start()
    for pos in sets[8][:100]:
        solver.value(pos)
        solver.solve(pos)
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    for h in SIZES:
        ref = time_reference(sets[h][: ref_n[h]])
        rows[h]["ref"] = ref
        print(
            f"{h}v{h}: reference on {ref_n[h]} positions, value {pct(ref['value'], 0.5) * 1e3:.2f} ms", file=sys.stderr
        )
    rss_all = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    t = time.perf_counter()
    signature = bench_signature()
    bench_s = time.perf_counter() - t
    assert signature == bench_signature(), "bench node count is not deterministic"

    cmd = "python results/bench_solver.py" + (" --quick" if args.quick else "")
    lines = [
        "# Exact solver benchmark",
        "",
        f"Regenerate: `pip install -e . --no-build-isolation -q && {cmd}` (from the checkout's top).",
        "",
        f"Machine: {machine()}. Commit {source_commit()}.",
        "",
        f"Positions: for each hand size h, {fast_n} seeded deals (seed {SEED}) of h cards each from the standard "
        "deck, empty table, random attacker. Fast solver: the public API `tacocat.core.exact.Solver(1)` (1 MB table, "
        "keep_tt=False: the table is logically cleared before every search, so each position starts cold), "
        "validation and packing included. *Value* = `Solver.value`; *full* = `Solver.solve(pos, pv=False)`, the "
        "value of every root move. Reference: `tacocat.rules.play.play_value` / `move_values` on the first *ref n* "
        "positions of the same set, lru_caches cleared before each. Ratios compare medians.",
        "",
        "| h | value median | value p95 | full median | full p95 | nodes value / full | nodes/s | TT hit rate "
        "| ref n | ref value median | ref full median | speed-up value | speed-up full |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for h in SIZES:
        r = rows[h]
        vm, fm = pct(r["value"], 0.5), pct(r["full"], 0.5)
        rv, rf = pct(r["ref"]["value"], 0.5), pct(r["ref"]["full"], 0.5)
        lines.append(
            f"| {h} | {vm * 1e6:.1f} µs | {pct(r['value'], 0.95) * 1e6:.1f} µs | {fm * 1e6:.1f} µs "
            f"| {pct(r['full'], 0.95) * 1e6:.1f} µs | {r['nodes_v']:.0f} / {r['nodes_f']:.0f} | {r['nps'] / 1e6:.1f} M "
            f"| {100 * r['hit']:.0f}% | {len(r['ref']['value'])} | {rv * 1e3:.2f} ms | {rf * 1e3:.2f} ms "
            f"| {rv / vm:,.0f}× | {rf / fm:,.0f}× |"
        )
    v8, f8 = pct(rows[8]["value"], 0.5), pct(rows[8]["full"], 0.5)
    ok = (
        v8 <= 0.2e-3,
        f8 <= 1e-3,
        pct(rows[8]["ref"]["value"], 0.5) / v8 >= 200,
        pct(rows[8]["ref"]["full"], 0.5) / f8 >= 200,
    )
    lines += [
        "",
        f"Targets on 8v8: value median ≤ 0.2 ms: {'met' if ok[0] else 'MISSED'} ({v8 * 1e3:.3f} ms); "
        f"full root solve median ≤ 1 ms: {'met' if ok[1] else 'MISSED'} ({f8 * 1e3:.3f} ms); "
        f"≥ 200× the reference: value {'met' if ok[2] else 'MISSED'}, full {'met' if ok[3] else 'MISSED'}.",
        "",
        f"Memory: peak RSS {rss_fast:.0f} MB after the fast-solver runs ({rss_all:.0f} MB after the reference's "
        f"caches); the table is {solver.entries * 16 / 2**20:.0f} MB of C memory (outside tracemalloc); Python "
        f"allocations of 100 value + full 8v8 solves (traced separately, untimed) peaked at {py_peak / 2**20:.2f} MB.",
        "",
        "Node = an attack node (empty table, including showdowns and two-card nodes evaluated directly) or a "
        "table node (an attack awaiting its answer).",
        "",
        f"bench signature: {signature} nodes",
        "",
        f"(`tacocat.search.bench.bench_signature()`: full solves of `bench_positions()` — 6 seeded deals (seed "
        f"{BENCH_SEED}) per hand size 2..8, {len(bench_positions())} positions, a fresh 2^16-entry table each; "
        f"{bench_s * 1e3:.0f} ms. Deterministic; `tests/test_solver.py` checks it against this line, so a change "
        "of search, ordering or table policy shows as drift: rerun this script when it is intended.)",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
