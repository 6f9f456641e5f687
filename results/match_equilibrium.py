"""Duplicate match, play phase: PIMC with equilibrium endgames (`pimc_eq`:
the hidden-hand equilibrium at 3 cards a hand or fewer) against plain PIMC,
same PIMC budget above that size (results/exploitability.md).

    python results/match_equilibrium.py [--deals 150] [--samples 50]"""

import argparse
import json
import sys
import time

from tacocat.players.match import run_match

ap = argparse.ArgumentParser()
ap.add_argument("--deals", type=int, default=150)
ap.add_argument("--samples", type=int, default=50)
args = ap.parse_args()
t = time.perf_counter()
r = run_match("pimc_eq", "pimc", deals=args.deals, seed=11, mode="play", budget={"samples": args.samples},
              progress=lambda i, n: print(f"{i}/{n}", file=sys.stderr) if i % 10 == 0 else None)
d = r.to_dict()
d.pop("deal_scores", None)
print(json.dumps(d))
