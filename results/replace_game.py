"""The replacement as a game against the static replacement (issue 34, deliverable 2).

`pimc@replace=game` (the replacement solved as a game with the opponent's
reply a strategy of its own, `tacocat.search.replace_game`) against
`pimc_static` (the same search with the replacement ranked against a fixed
reply: `pimc` before issue 34), duplicate whole games, standard rules, equal
CPU time a decision (`--clock cpu`), luck-adjusted (`tacocat.players.luck`).
Only the replacement differs between the two, so the row is what the
replacement solved as a game is worth at that budget.

Each budget is one `tacocat arena` run whose `--out` file,
results/replace_game/<ms>ms.json, holds every finished deal (a stopped run
goes on from there when started again); the report reads those files.

    python results/replace_game.py --budgets 20 --deals 1000     # play (or go on), then the report
    python results/replace_game.py --report
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired_match import PairedMatch  # noqa: E402

MATCH = PairedMatch(
    "replace_game",
    "pimc@replace=game",
    "pimc_static",
    "The replacement as a game against the static replacement",
    "A's discard drawn from its game's mixed strategy",
    workers=1,
)

if __name__ == "__main__":
    MATCH.main(__doc__)
