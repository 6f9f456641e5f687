"""The duel as a Bayesian game against today's matrix duel (issue 34, deliverable 1).

`pimc@duel=bayes` (each hand of either player its own duel card,
`tacocat.search.duel_game`) against `pimc_static` (the same search with the
duel a matrix game over the sampled worlds: `pimc` before issue 34), duplicate
whole games, standard rules, equal CPU time a decision (`--clock cpu`),
luck-adjusted (`tacocat.players.luck`).  Only the duel differs between the
two, so the row is what the duel solved as a game is worth at that budget."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paired_match  # noqa: E402

if __name__ == "__main__":
    paired_match.main(__file__, __doc__)
