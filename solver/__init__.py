"""Tacocat Spelled Backwards: the rules engine and its solvers.

Public API (see each module's docstrings):
- `solver.rules`: `Ruleset`, `STANDARD`, `load_ruleset` (R1–R3, R17)
- `solver.cards`: hands in plain notation (`parse_cards`, `format_cards`)
- `solver.board`: the cat and its tiles (R18–R19)
- `solver.play`: attacks, answers and the reference minimax (R10–R17)
- `solver.game`: the whole game as a state machine, views, records
- `solver.bots`: bots that play whole games
"""

from .errors import TacocatError
from .rules import STANDARD, Ruleset, load_ruleset

__all__ = ["TacocatError", "STANDARD", "Ruleset", "load_ruleset"]
__version__ = "0.1.0"
