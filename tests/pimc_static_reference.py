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

import sys
from pathlib import Path

import pimc_classic_reference

OUT = Path(__file__).with_name("pimc_static_reference.json")


def main(argv=None) -> int:
    return pimc_classic_reference.main(argv, out=OUT, tree="094a3df + the duel option", doc=__doc__)


if __name__ == "__main__":
    sys.exit(main())
