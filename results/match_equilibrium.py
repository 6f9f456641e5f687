"""Duplicate matches, play phase (8 cards each, `tacocat.players.match`):
PIMC with equilibrium endgames (`pimc_eq`: the hidden-hand equilibrium at
3 cards a hand or fewer, PIMC above) against plain PIMC — at the same PIMC
budget, and at equal time (plain PIMC given 200 samples a decision, which
costs what pimc_eq's 50 samples plus its endgame solves cost: 0.063 s vs
0.062 s per game side, measured in the same session; see exploitability.md).

    python results/match_equilibrium.py [--deals 500]"""

import argparse
import json
import sys
import time

from tacocat.players.match import run_match

ap = argparse.ArgumentParser()
ap.add_argument("--deals", type=int, default=500)
args = ap.parse_args()
rows = []
for b in ("pimc", "pimc@samples=200"):
    r = run_match("pimc_eq", b, deals=args.deals, seed=11, mode="play", budget={"samples": 50},
                  progress=lambda i, n, *_: print(f"{b}: {i}/{n}", file=sys.stderr) if i % 50 == 0 else None)
    d = r.to_dict()
    d.pop("deal_scores", None)
    d["deals_not_tied"] = sum(1 for s in r.deal_scores if s != 0)
    rows.append(d)
    print(json.dumps(d), flush=True)
