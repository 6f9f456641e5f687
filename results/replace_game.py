"""The replacement as a game against the static replacement (issue 34, deliverable 2).

`pimc@replace=game` (the replacement solved as a game with the opponent's
reply a strategy of its own, `tacocat.search.replace_game`) against
`pimc_static` (the same search with the replacement ranked against a fixed
reply: `pimc` before issue 34), duplicate whole games, standard rules, equal
CPU time a decision (`--clock cpu`), luck-adjusted (`tacocat.players.luck`).
Only the replacement differs between the two, so the row is what the
replacement solved as a game is worth at that budget.

Variant `guided` (`pimc@replace=guided`, `tacocat.search.replace_game.guided_replace`):
the static search's best discards, each scored by its static value plus the
game's correction on the game's own worlds, the best played."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paired_match  # noqa: E402

if __name__ == "__main__":
    paired_match.main(__file__, __doc__)
