"""Whether five-card endgames fit the equilibrium solver (issue 22): the
size of each seeded 5-card endgame's public tree, estimated before anything
is allocated (`tacocat.search.equilibrium.estimate`, Knuth's random-path
estimator), against a 2 GB peak.

    python results/equilibrium_five.py --endgames 50 --out results/equilibrium_five.json

Endgames: `tacocat.players.exploitability.endgames(5, n)` (the seeded set of
results/exploitability.md).  Bytes: the solver's own accounting (32 per public
node, 12 per (node, hand, move) sequence: two hand indices, a float32
regret and a float32 average weight) plus its fixed vectors.  The 4-card
trees of the same set take 0.4-1.2 s per DCFR iteration per 10 M sequences,
so the seconds column extrapolates that rate (0.04 us a sequence and
iteration, 16 iterations and 4 best responses) for a tree that did fit."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from tacocat.players.exploitability import endgames
from tacocat.search.equilibrium import estimate

HERE = Path(__file__).resolve().parent
CAP = 2_000_000_000
SECONDS_PER_SEQUENCE_ITERATION = 0.04e-6
ITERATIONS = 16 + 4  # to 1e-3, and the best-response checks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endgames", type=int, default=50)
    ap.add_argument("--out", default=str(HERE / "equilibrium_five.json"))
    args = ap.parse_args()
    out: dict = {"load_before": os.getloadavg(), "cap_bytes": CAP, "rows": []}
    for i, eg in enumerate(endgames(5, args.endgames)):
        t = time.process_time()
        nodes, seqs, need = estimate(eg)
        row = {
            "i": i,
            "pool": len(eg.pool),
            "nodes": nodes,
            "sequences": seqs,
            "bytes": need,
            "fits": need <= CAP,
            "solve_seconds_if_it_fit": seqs * SECONDS_PER_SEQUENCE_ITERATION * ITERATIONS,
            "estimate_cpu_s": time.process_time() - t,
        }
        out["rows"].append(row)
        print(json.dumps(row), flush=True)
    rows = out["rows"]
    out["summary"] = {
        "endgames": len(rows),
        "fit_in_2gb": sum(r["fits"] for r in rows),
        "median_gb": statistics.median(r["bytes"] for r in rows) / 1e9,
        "min_gb": min(r["bytes"] for r in rows) / 1e9,
        "max_gb": max(r["bytes"] for r in rows) / 1e9,
        "median_sequences_m": statistics.median(r["sequences"] for r in rows) / 1e6,
    }
    out["load_after"] = os.getloadavg()
    print(json.dumps(out["summary"]))
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
