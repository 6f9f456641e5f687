"""Small RULES §8 rulesets the tests share, as the dicts a ruleset file
holds (`Ruleset.from_dict` reads them; pimc_classic_reference.json keeps
them as they are)."""

from __future__ import annotations

SMALL = {
    "name": "small",
    "deck": [4] * 12,
    "board": [3, 5, 2, 6, 2, 5, 3],
    "arrows": ["p0", "both", "p1", "both", "p0", "both", "p1"],
    "tie": "arrow",
    "max_deals": 5,
}
"""Mixed arrows, small hands: short games where R7, R8 and R9 all come up."""

ONE_ARROW = {
    "name": "one-arrow",
    "deck": [3, 3, 3, 3, 0, 0, 0, 0, 3, 3, 3, 3],
    "board": [4, 3, 5, 6, 5, 3, 4],
    "arrows": ["p1", "p1", "p1", "p0", "p0", "p0", "p0"],
    "tie": "arrow",
    "max_deals": 4,
}
"""R7 everywhere (one arrow a space, the centre too): a first and a capped
second replacer every round."""
