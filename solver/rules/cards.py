"""Cards and hands (R1).  Only the rank of a card matters, so a hand is a
sorted tuple of ranks; a multiset of cards is also kept as a 13-slot count
list (index 0 unused) where counting is easier."""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Sequence

from tacocat.errors import NotationError

Hand = tuple[int, ...]


def hand(cards: Iterable[int]) -> Hand:
    """The canonical form of a multiset of cards: ranks in ascending order."""
    return tuple(sorted(cards))


def parse_cards(text: str | Sequence[int] | None, what: str = "cards") -> Hand:
    """Read cards in plain notation: ranks 1..12 separated by spaces and/or
    commas ("2 5 7", "2,5,7", "[2, 5, 7]"), or a list of integers."""
    if text is None:
        return ()
    ranks = _ranks_of_text(text, what) if isinstance(text, str) else _ranks_of_list(text, what)
    for r in ranks:
        if not 1 <= r <= 12:
            raise NotationError(f"{what}: rank {r} does not exist; ranks run from 1 to 12", "R1")
    return hand(ranks)


def _ranks_of_text(text: str, what: str) -> list[int]:
    """The integers of plain notation, "-" or nothing for no cards."""
    body = text.strip().strip("[]").strip()
    if not body or body == "-":
        return []
    ranks = []
    for t in re.split(r"[\s,]+", body):
        if not t:
            continue
        if not re.fullmatch(r"[+-]?\d+", t):
            raise NotationError(
                f'{what}: {t!r} is not a rank; expected integers 1..12 separated by spaces or commas, e.g. "2 5 7 12"',
                "R1",
            )
        ranks.append(int(t))
    return ranks


def _ranks_of_list(cards: object, what: str) -> list[int]:
    """The integers of a list (never a bool read as a rank)."""
    if not isinstance(cards, (list, tuple)):
        raise NotationError(
            f"{what}: expected a list of ranks 1..12 or plain notation, got {type(cards).__name__}", "R1"
        )
    for r in cards:
        if isinstance(r, bool) or not isinstance(r, int):
            raise NotationError(f"{what}: {r!r} is not a rank; expected integers 1..12", "R1")
    return list(cards)


def format_cards(cards: Iterable[int]) -> str:
    """Plain notation for cards: ranks separated by spaces ("-" for none)."""
    cards = list(cards)
    return " ".join(str(c) for c in sorted(cards)) if cards else "-"


def counts(cards: Iterable[int]) -> list[int]:
    """Rank counts of a multiset, index 1..12 (index 0 unused)."""
    c = [0] * 13
    for r in cards:
        c[r] += 1
    return c


def remove(cards: Hand, taken: Iterable[int]) -> Hand:
    """`cards` less the multiset `taken`; raises KeyError if not contained."""
    # A list's remove, not a Counter: this is the inner step of the answer
    # listing (rules/play.py), which a bot asks at every new play decision.
    left = list(cards)
    for r in taken:
        try:
            left.remove(r)
        except ValueError:
            raise KeyError(r) from None
    return hand(left)


def contains(cards: Iterable[int], sub: Iterable[int]) -> bool:
    """Whether multiset `sub` is contained in multiset `cards`."""
    have = Counter(cards)
    need = Counter(sub)
    return all(have[r] >= n for r, n in need.items())
