"""Whether five-card endgames fit the equilibrium solver (issue 22): the
size of each seeded 5-card endgame's public tree, estimated before anything
is allocated (`tacocat.search.equilibrium.estimate`, Knuth's random-path
estimator), against a 2 GB peak, and some of those that fit solved.

    python results/equilibrium_five.py --endgames 50 --solve 0,2,9 --out results/equilibrium_five.json

Endgames: `tacocat.players.exploitability.endgames(5, n)` (the seeded set of
results/exploitability.md).  Trees: as `solve` builds them, the end of play
in place (`keep_lower`: the last answers keep the lowest card, an attack
with two cards each is made with the higher card; the value and the
exploitability are the whole game's), and, for comparison, the whole tree
(`whole_*`).  Bytes: the solver's own accounting (32 per public node, 16
per (node, hand, move) sequence: two hand indices, float32 regret, average
weight and current strategy) plus its fixed vectors.  `--solve`: the
endgames (by index) to solve to exploitability 1e-3 under the 2 GB cap:
CPU seconds, peak bytes (`peak_bytes`), exploitability, iterations, and the
estimate against the real size."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from tacocat.players.exploitability import endgames
from tacocat.search.equilibrium import estimate, keep_lower, solve

HERE = Path(__file__).resolve().parent
CAP = 2_000_000_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endgames", type=int, default=50)
    ap.add_argument("--solve", default="", help="endgames to solve, by index, comma separated")
    ap.add_argument("--out", default=str(HERE / "equilibrium_five.json"))
    args = ap.parse_args()
    out: dict = {"load_before": os.getloadavg(), "cpus": os.cpu_count(), "cap_bytes": CAP, "rows": [], "solved": []}
    games = endgames(5, args.endgames)
    for i, eg in enumerate(games):
        t = time.process_time()
        nodes, seqs, need = estimate(eg, keep_lower_answers=keep_lower(eg))
        cpu = time.process_time() - t
        whole_nodes, whole_seqs, whole_need = estimate(eg)
        row = {
            "i": i,
            "pool": len(eg.pool),
            "nodes": nodes,
            "sequences": seqs,
            "bytes": need,
            "fits": need <= CAP,
            "estimate_cpu_s": cpu,
            "whole_nodes": whole_nodes,
            "whole_sequences": whole_seqs,
            "whole_bytes": whole_need,
        }
        out["rows"].append(row)
        print(json.dumps(row), flush=True)
    for i in [int(x) for x in args.solve.split(",") if x]:
        t0, c0 = time.perf_counter(), time.process_time()
        r = solve(games[i], max_bytes=CAP)
        row = {
            "i": i,
            "cpu_s": time.process_time() - c0,
            "wall_s": time.perf_counter() - t0,
            "iterations": r.iterations,
            "exploitability": r.exploitability,
            "value": r.value,
            "nodes": r.nodes,
            "sequences": r.sequences,
            "memory_bytes": r.memory_bytes,
            "peak_bytes": r.peak_bytes,
            "estimated_bytes": out["rows"][i]["bytes"],
            "load": os.getloadavg()[0],
        }
        out["solved"].append(row)
        print(json.dumps(row), flush=True)
        del r  # its tree, before the next is built: one at a time in memory
    rows = out["rows"]
    out["summary"] = {
        "endgames": len(rows),
        "fit_in_2gb": sum(r["fits"] for r in rows),
        "median_gb": statistics.median(r["bytes"] for r in rows) / 1e9,
        "min_gb": min(r["bytes"] for r in rows) / 1e9,
        "max_gb": max(r["bytes"] for r in rows) / 1e9,
        "median_sequences_m": statistics.median(r["sequences"] for r in rows) / 1e6,
        "whole_fit_in_2gb": sum(r["whole_bytes"] <= CAP for r in rows),
        "whole_median_gb": statistics.median(r["whole_bytes"] for r in rows) / 1e9,
    }
    if out["solved"]:
        solved = out["solved"]
        out["summary"].update(
            {
                "solved": len(solved),
                "solved_median_cpu_s": statistics.median(r["cpu_s"] for r in solved),
                "solved_max_peak_mb": max(r["peak_bytes"] for r in solved) / 1e6,
                "solved_max_exploitability": max(r["exploitability"] for r in solved),
            }
        )
    out["load_after"] = os.getloadavg()
    print(json.dumps(out["summary"]))
    print(f"load average before {out['load_before']}, after {out['load_after']} ({out['cpus']} CPUs)")
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
