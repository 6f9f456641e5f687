"""The reproducible play-phase rows of results/strength.md (seed 0, 300
deals, duplicate format) rerun with searches that deal only opponent hands
consistent with the round's history (R20); results/strength_r20.md holds
the table this printed.

    python results/strength_r20.py [--deals 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import json

from tacocat.players.match import run_match

ROWS = [
    ("pimc", "heuristic", {"samples": 50}),
    ("ismcts", "heuristic", {"iterations": 5000}),
    ("pimc@samples=50", "ismcts@iterations=5000", {}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for a, b, budget in ROWS:
        print(json.dumps(run_match(a, b, deals=args.deals, seed=args.seed, mode="play", budget=budget).to_dict()))


if __name__ == "__main__":
    main()
