"""Actions as small frozen value types with a text and a JSON form.

An action is what one player does at one decision (RULES §6):
replace (discard cards, R7/R8), duel (one card, R9), attack (R10–R11),
answer (R12–R13: the cards removed and whether every answer beats)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from tacocat.rules.cards import Hand, format_cards, hand, parse_cards
from tacocat.errors import RecordError

KINDS = ("replace", "duel", "attack", "answer")


@dataclass(frozen=True)
class Action:
    kind: str
    """One of replace, duel, attack, answer."""
    cards: Hand
    """The cards this action takes from the actor's hand, ascending."""
    beats: bool | None = None
    """Answers only: True when every answer beats (the defender wins the
    trick, R13)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", hand(self.cards))

    def __str__(self) -> str:
        text = f"{self.kind} {format_cards(self.cards)}"
        if self.kind == "answer":
            text += " (beats)" if self.beats else " (sacrifice)"
        return text

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "cards": list(self.cards)}
        if self.kind == "answer":
            d["beats"] = bool(self.beats)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Action":
        if not isinstance(data, Mapping):
            raise RecordError(f"an action must be an object with kind and cards, got {data!r}")
        kind = data.get("kind")
        if kind not in KINDS:
            raise RecordError(f"action kind {kind!r} unknown; expected one of {', '.join(KINDS)}")
        if "cards" not in data:
            raise RecordError("action is missing 'cards'")
        cards = parse_cards(data["cards"], f"{kind} cards")
        beats = data.get("beats")
        if kind == "answer" and beats is not None and not isinstance(beats, bool):
            raise RecordError(f"answer 'beats' must be true or false, got {beats!r}")
        return cls(kind, cards, beats if kind == "answer" else None)
