"""Record the reference games of `pimc_static` (issue 34, deliverable 3).

`pimc_static` must play exactly as `pimc` did before the duel and the
replacement were solved as games: this script was run ONCE, on the tree of
commit 094a3df with the `duel` option added (its default, "matrix", the
matrix game over the worlds, is 094a3df's only duel), with `pimc`; it wrote tests/pimc_static_reference.json, the same
seeded whole games under sample budgets as pimc_classic's reference
(`pimc_classic_reference.CASES`).  tests/test_pimc_static.py replays them
with `pimc_static`, forever.  Do not regenerate it from a changed search;
`python tests/pimc_static_reference.py --bot pimc_static --check` compares."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pimc_classic_reference import play

OUT = Path(__file__).with_name("pimc_static_reference.json")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="pimc")
    ap.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    args = ap.parse_args(argv)
    games = play(args.bot)
    if args.check:
        ref = json.loads(OUT.read_text())["games"]
        bad = [g["case"] + f"/{g['seed']}" for g, r in zip(games, ref, strict=True) if g["actions"] != r["actions"]]
        print("differ:", bad or "none")
        return 1 if bad else 0
    made = {"made_by": "tests/pimc_static_reference.py", "bot": args.bot, "tree": "094a3df", "games": games}
    OUT.write_text(json.dumps(made, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(games)} games, {sum(len(g['actions']) for g in games)} actions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
