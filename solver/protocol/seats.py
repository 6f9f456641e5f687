"""Seats: who may read and act in a game (docs/protocol.md, "Seats").
A game has an owner token and one token per seat; only their SHA-256
hashes are kept, in memory and in the store."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Seats:
    """The SHA-256 hashes of one game's tokens: the owner's and one per
    seat.  Only hashes are kept (in memory and in the store)."""

    owner: str
    seats: tuple[str, str]

    @classmethod
    def deal(cls) -> tuple["Seats", dict[str, Any]]:
        """Fresh unguessable tokens, and the `tokens` object new_game returns."""
        owner, s0, s1 = (secrets.token_urlsafe(24) for _ in range(3))
        return cls(_hash(owner), (_hash(s0), _hash(s1))), {"owner": owner, "seats": [s0, s1]}

    def hashes(self) -> tuple[str, str, str]:
        return (self.owner, *self.seats)

    def role(self, token: Any) -> str | int | None:
        """ "owner", the seat 0 or 1 the token opens, or None."""
        if not isinstance(token, str):
            return None
        h = _hash(token)
        if secrets.compare_digest(h, self.owner):
            return "owner"
        for p in (0, 1):
            if secrets.compare_digest(h, self.seats[p]):
                return p
        return None


def new_game_id() -> str:
    """An unguessable game id (ids alone open nothing, but a client must
    not be able to name another client's game)."""
    return "g" + secrets.token_urlsafe(12)
