"""The duel as a Bayesian game against today's matrix duel (issue 34, deliverable 1).

`pimc@duel=bayes` (each hand of either player its own duel card,
`tacocat.search.duel_game`) against `pimc_static` (the same search with the
duel a matrix game over the sampled worlds: `pimc` before issue 34), duplicate
whole games, standard rules, equal CPU time a decision (`--clock cpu`),
luck-adjusted (`tacocat.players.luck`).  Only the duel differs between the
two, so the row is what the duel solved as a game is worth at that budget."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired_match import PairedMatch  # noqa: E402

MATCH = PairedMatch(
    "duel_bayes",
    "pimc@duel=bayes",
    "pimc_static",
    "The duel as a Bayesian game against the matrix duel",
    "each side's duel card drawn from its search's mixed strategy",
    workers=2,
)

if __name__ == "__main__":
    MATCH.main(__doc__)
