"""Small RULES §8 rulesets the tests share, as the dicts a ruleset file
holds (`Ruleset.from_dict` reads them; pimc_classic_reference.json keeps
them as they are)."""

from __future__ import annotations


def _ruleset(name: str, deck: list[int], board: list[int], arrows: list[str], *, max_deals: int) -> dict:
    """A ruleset file's dict, its keys in the file's order; every ruleset
    here breaks a tied showdown by the arrow (R17 option tie=arrow)."""
    return {"name": name, "deck": deck, "board": board, "arrows": arrows, "tie": "arrow", "max_deals": max_deals}


SMALL = _ruleset(
    "small", [4] * 12, [3, 5, 2, 6, 2, 5, 3], ["p0", "both", "p1", "both", "p0", "both", "p1"], max_deals=5
)
"""Mixed arrows, small hands: short games where R7, R8 and R9 all come up."""

ONE_ARROW = _ruleset(
    "one-arrow",
    [3, 3, 3, 3, 0, 0, 0, 0, 3, 3, 3, 3],
    [4, 3, 5, 6, 5, 3, 4],
    ["p1", "p1", "p1", "p0", "p0", "p0", "p0"],
    max_deals=4,
)
"""R7 everywhere (one arrow a space, the centre too): a first and a capped
second replacer every round."""

TWELVE_CARDS = _ruleset(
    "small", [1] * 12, [3, 3, 2, 2, 2, 3, 3], ["p1", "p1", "p1", "both", "p0", "p0", "p0"], max_deals=12
)
"""Twelve cards, hands of two or three: whole games are short, play-phase
views are endgames small enough for an equilibrium solve (test_documents)."""
