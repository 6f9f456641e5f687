"""The game's phases, decisions and public events as types.

A round runs through the phases replace, duel, play (and the game ends
`over`); at each decision a player replaces, duels, attacks or answers.  The
enums are `str`-valued, so a phase or a decision is also the very word the
wire format and the documents carry ("play", "answer"): comparing with the
word, printing and JSON-encoding it give what the plain strings gave.

Every public event of a round (RULES §5: all of them are face up) has a
frozen type: `DealEvent` (R6), `ReplaceEvent` (R7/R8), `DuelEvent` (R9),
`PlayEvent` for an attack (R10) or an answer (R12/R13), `ShowdownEvent`
(R17).  `str(event)` is its one text form; `event.to_json()` its wire form,
the object a state document, a view or a protocol answer carries.  Readers
read the fields (`event.cards`, `isinstance(event, ReplaceEvent)`); only the
documents and the protocol make the wire form, and `event_of` reads it back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from tacocat.rules.cards import Hand, format_cards


class Phase(StrEnum):
    """Where a game is (RULES §6): the replacement (R7/R8), the duel (R9),
    the play of tricks (R10-R16), or the end of the game (R19)."""

    REPLACE = "replace"
    DUEL = "duel"
    PLAY = "play"
    OVER = "over"


class Decision(StrEnum):
    """What a player does now: the kind of its legal actions (RULES §6)."""

    REPLACE = "replace"
    DUEL = "duel"
    ATTACK = "attack"
    ANSWER = "answer"


PLAY_DECISIONS = (Decision.ATTACK, Decision.ANSWER)
"""The decisions of the play phase (R10-R13): what the play searches answer."""


class EventKind(StrEnum):
    """The `event` word of each public event."""

    DEAL = "deal"
    REPLACE = "replace"
    DUEL = "duel"
    ATTACK = "attack"
    ANSWER = "answer"
    SHOWDOWN = "showdown"


ATTACK, ANSWER = EventKind.ATTACK, EventKind.ANSWER


class Event:
    """A public event: immutable, so shared rather than copied (a deep copy
    of a state or a view copies no event)."""

    event: EventKind
    _FIELDS: ClassVar[tuple[str, ...]] = ()
    """The wire form's fields after `event`, in order."""

    def to_json(self) -> dict[str, Any]:
        """The wire form: plain JSON values only."""
        out: dict[str, Any] = {"event": self.event.value}
        for key in self._FIELDS:
            value = getattr(self, key)
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Event):
            return type(self) is type(other) and self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def _key(self) -> tuple:
        return tuple(self.__dict__.values())  # the dataclass fields, in order

    def __copy__(self) -> "Event":
        return self

    def __deepcopy__(self, memo: dict) -> "Event":
        return self


@dataclass(frozen=True, eq=False)
class DealEvent(Event):
    """R6: a round is dealt, `hand_size` cards each, the cat on space `cat`."""

    hand_size: int
    cat: int
    event: ClassVar[EventKind] = EventKind.DEAL  # type: ignore[misc]  # a PlayEvent holds its own
    _FIELDS = ("hand_size", "cat")

    def __str__(self) -> str:
        return f"deal {self.hand_size} cat {self.cat}"


@dataclass(frozen=True, eq=False)
class ReplaceEvent(Event):
    """R7/R8: `player` discarded `cards` face up (and drew as many, unseen)."""

    player: int
    cards: Hand
    event: ClassVar[EventKind] = EventKind.REPLACE  # type: ignore[misc]
    _FIELDS = ("player", "cards")

    def __str__(self) -> str:
        return f"p{self.player} replaces [{format_cards(self.cards)}]"


@dataclass(frozen=True, eq=False)
class DuelEvent(Event):
    """R9: the duel cards, player 0's then player 1's."""

    cards: tuple[int, int]
    event: ClassVar[EventKind] = EventKind.DUEL  # type: ignore[misc]
    _FIELDS = ("cards",)

    def __str__(self) -> str:
        return f"duel {self.cards[0]}:{self.cards[1]}"


@dataclass(frozen=True, eq=False)
class PlayEvent(Event):
    """One public play-phase event: an attack (R10) or an answer (R12)."""

    event: EventKind  # type: ignore[misc]
    """`attack` or `answer`."""
    player: int
    """Who played the cards."""
    cards: Hand
    """The cards laid face up, sorted."""
    beats: bool | None = None
    """For an answer: whether every answer card beats (the defender wins the trick, R13)."""

    def __post_init__(self) -> None:
        if not isinstance(self.event, EventKind):
            object.__setattr__(self, "event", EventKind(self.event))
        if not isinstance(self.cards, tuple):
            object.__setattr__(self, "cards", tuple(self.cards))

    @classmethod
    def attack(cls, player: int, cards: Hand) -> "PlayEvent":
        return cls(ATTACK, player, cards)

    @classmethod
    def answer(cls, player: int, cards: Hand, beats: bool) -> "PlayEvent":
        return cls(ANSWER, player, cards, bool(beats))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.event.value, "player": self.player, "cards": list(self.cards)}
        if self.event == ANSWER:
            out["beats"] = bool(self.beats)
        return out

    def __str__(self) -> str:
        if self.event == ATTACK:
            return f"p{self.player} attacks {format_cards(self.cards)}"
        return f"p{self.player} answers {format_cards(self.cards)} {'beat' if self.beats else 'sacrifice'}"


@dataclass(frozen=True, eq=False)
class ShowdownEvent(Event):
    """R17: the last cards, player 0's then player 1's, and the round's
    winner (None: drawn)."""

    cards: tuple[int, int]
    winner: int | None
    event: ClassVar[EventKind] = EventKind.SHOWDOWN  # type: ignore[misc]
    _FIELDS = ("cards", "winner")

    def __str__(self) -> str:
        who = "drawn" if self.winner is None else f"p{self.winner} wins"
        return f"showdown {self.cards[0]}:{self.cards[1]} {who}"


def event_of(data: Mapping[str, Any] | Event) -> Event:
    """The typed event of a wire-form object whose fields were already read
    and checked (`tacocat.rules.game` reads documents); an event is itself."""
    if isinstance(data, Event):
        return data
    kind = data["event"]
    if kind == EventKind.DEAL:
        return DealEvent(data["hand_size"], data["cat"])
    if kind == EventKind.REPLACE:
        return ReplaceEvent(data["player"], tuple(data["cards"]))
    if kind == EventKind.DUEL:
        return DuelEvent(tuple(data["cards"]))  # type: ignore[arg-type]
    if kind == EventKind.SHOWDOWN:
        return ShowdownEvent(tuple(data["cards"]), data["winner"])  # type: ignore[arg-type]
    if kind in (ATTACK, ANSWER):
        return PlayEvent(EventKind(kind), data["player"], tuple(data["cards"]), data.get("beats"))
    raise ValueError(f"unknown event {kind!r}")
