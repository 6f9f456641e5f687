"""Reading the game's documents: the typed reads of a state, a view or a
record (`Doc`: a wrong type or value is a RecordError naming the document
and the field, never a crash), the fields each may carry, and the checks
a round's history and a player's known cards must pass (R1, R6, R15).
`tacocat.rules.game` and `tacocat.rules.views` read through it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tacocat.errors import PositionError, RecordError, TacocatError
from tacocat.errors import shorten as _short
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.cards import hand
from tacocat.rules.events import DealEvent, DuelEvent, Event, EventKind, PlayEvent, ReplaceEvent, event_of
from tacocat.rules.ruleset import HAND_SIZES, SPACES, Ruleset

SEED_LIMIT = 2**63
"""Seeds are integers in (-2**63, 2**63): any seed a client sends stays storable."""
MAX_HISTORY = 200
"""More public events than any round has (a deal, two replacements, up to
twelve duels, up to 22 attacks and answers, a showdown)."""
MAX_ACTIONS_PER_DEAL = 64
RECORD_FORMAT = "tacocat-record"
STATE_FORMAT = "tacocat-state"
VERSION = 1


def game_document(doc_format: str, rules: Ruleset, seed: int) -> dict[str, Any]:
    """The fields a game state and a game record both open with: what the
    document is, the version that wrote it, the ruleset and the seed."""
    return {"format": doc_format, "version": VERSION, "rules": rules.to_dict(), "seed": seed}


def check_known_counts(rules: Ruleset, own: Sequence[int], seen: Sequence[int], table: Sequence[int]) -> None:
    """R1 for what one player knows: own hand, face-up cards, the table,
    naming where the extra copies are."""
    rules.check_counts(
        ("your hand holds", own, ""),
        ("hand and seen cards hold", seen, "is a seen {rank} also in your hand? (seen lists face-up cards only)"),
        (
            "hand, seen and table hold",
            table,
            "a card of the attack on the table belongs in table only, not also in seen",
        ),
    )


VIEW_FIELDS = {
    "player",
    "rules",
    "board",
    "phase",
    "hand",
    "seen",
    "table",
    "attacker",
    "opponent_hand_size",
    "draw_pile_size",
    "first_replacer",
    "replace_cap",
    "my_pending",
    "acting",
    "unseen_pool",
    "history",
    "rounds",
}
STATE_KEYS = {
    "format",
    "version",
    "rules",
    "seed",
    "board",
    "deals",
    "phase",
    "hands",
    "draw_pile",
    "discard",
    "table",
    "attacker",
    "first_replacer",
    "replaced",
    "replace_cap",
    "pending",
    "history",
    "rounds",
    "actions",
}
RECORD_KEYS = {"format", "version", "rules", "seed", "actions", "players", "bot_budget", "undos"}
"""A game record's fields: the game (`GameRecord.to_dict`) and what `tacocat
play --save` adds beside it (who sat where, the bot's budget, the moves
taken back), read by `play --resume` and `analyze`."""
EVENT_FIELDS: dict[str, dict[str, str]] = {
    EventKind.DEAL: {"hand_size": "size", "cat": "space"},
    EventKind.REPLACE: {"player": "player", "cards": "cards"},
    EventKind.DUEL: {"cards": "pair"},
    EventKind.ATTACK: {"player": "player", "cards": "cards"},
    EventKind.ANSWER: {"player": "player", "cards": "cards", "beats": "bool"},
    EventKind.SHOWDOWN: {"cards": "pair", "winner": "winner"},
}
"""The public events `GameState` writes into a round's history, and each
field's kind: what a state document or full view may carry."""


class Doc:
    """Typed reads of a JSON document's fields: each wrong type or value is
    a RecordError naming the document and the field, never a crash."""

    def __init__(self, data: Mapping[str, Any], what: str) -> None:
        self.data, self.what = data, what

    def fail(self, key: str, expected: str, value: Any) -> RecordError:
        return RecordError(f"{self.what} {key!r} must be {expected}, got {_short(value)}")

    def known(self, keys: set[str]) -> None:
        unknown = sorted(str(k) for k in self.data if k not in keys)
        if unknown:
            raise RecordError(f"{self.what}: unknown field(s) {_short(unknown)}")

    def get(self, key: str, default: Any = KeyError) -> Any:
        if key in self.data:
            return self.data[key]
        if default is KeyError:
            raise RecordError(f"{self.what} is missing the field {key!r}")
        return default

    def version(self) -> int:
        """The document's `version`: the one this code writes (left out,
        the same); any other is refused rather than read as if it were."""
        v = self.get("version", VERSION)
        if type(v) is not int or v != VERSION:
            raise self.fail("version", f"{VERSION} (the version this engine writes and reads)", v)
        return v

    def int_value(self, v: Any, key: str, lo: int, hi: int) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise self.fail(key, f"an integer {lo}..{hi}", v)
        return v

    def integer(self, key: str, lo: int, hi: int, default: Any = KeyError) -> int:
        return self.int_value(self.get(key, default), key, lo, hi)

    def optional_int(self, key: str, lo: int, hi: int) -> int | None:
        v = self.get(key, None)
        return None if v is None else self.int_value(v, key, lo, hi)

    def choice(self, key: str, choices: tuple[str, ...], default: Any = KeyError) -> str:
        v = self.get(key, default)
        if not isinstance(v, str) or v not in choices:
            raise self.fail(key, f"one of {', '.join(choices)}", v)
        return v

    def boolean_value(self, v: Any, key: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(key, "true or false", v)
        return v

    def cards_value(self, v: Any, key: str, limit: int, sort: bool = True) -> Any:
        if not isinstance(v, list) or len(v) > limit:
            raise self.fail(key, f"a list of at most {limit} ranks 1..12", v)
        for r in v:
            if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 12:
                raise self.fail(key, "a list of ranks 1..12", r)
        return hand(v) if sort else tuple(v)

    def cards(self, key: str, limit: int, sort: bool = True, default: Any = KeyError) -> Any:
        return self.cards_value(self.get(key, default), key, limit, sort)

    def pair(self, key: str, read: Any) -> list:
        v = self.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise self.fail(key, "a list of two (one per player)", v)
        return [read(v[0], f"{key}[0]"), read(v[1], f"{key}[1]")]

    def rules(self, key: str, default: Any = None) -> Ruleset:
        v = self.get(key, default)
        if v is not None and not isinstance(v, Mapping):
            raise self.fail(key, "a ruleset object", v)
        return Ruleset.from_dict(v)

    def board(self, key: str, default: Any = KeyError) -> Board:
        return Board.from_dict(self.get(key, default), f"{self.what} {key}")

    def _list(self, key: str, limit: int) -> list:
        v = self.get(key, [])
        if not isinstance(v, list) or len(v) > limit:
            raise self.fail(key, f"a list of at most {limit} items", v)
        return v

    def events(self, key: str) -> list[Event]:
        """A round's public history (`EVENT_FIELDS`), each event typed."""
        out = []
        for i, e in enumerate(self._list(key, MAX_HISTORY)):
            where = f"{key}[{i}]"
            kind = e.get("event") if isinstance(e, Mapping) else None
            if not isinstance(kind, str) or kind not in EVENT_FIELDS:
                raise self.fail(where, f"an event object with event one of {', '.join(EVENT_FIELDS)}", e)
            spec = EVENT_FIELDS[kind]
            if set(e) != {"event", *spec}:
                raise self.fail(where, f"a {kind} event with the fields {', '.join(spec)}", e)
            ev = Doc(e, f"{self.what} {where}")
            event: dict[str, Any] = {"event": kind}
            for name, kind_of in spec.items():
                event[name] = ev.field_of_kind(name, kind_of)
            out.append(event_of(event))
        return out

    def field_of_kind(self, name: str, kind: str) -> Any:
        v = self.get(name)
        if kind == "size":
            return self.int_value(v, name, *HAND_SIZES)
        if kind == "space":
            return self.int_value(v, name, 0, SPACES - 1)
        if kind == "player":
            return self.int_value(v, name, 0, 1)
        if kind == "winner":
            return None if v is None else self.int_value(v, name, 0, 1)
        if kind == "bool":
            return self.boolean_value(v, name)
        if kind == "pair":
            if not isinstance(v, list) or len(v) != 2:
                raise self.fail(name, "two ranks", v)
            return list(self.cards_value(v, name, 2, sort=False))
        return list(self.cards_value(v, name, HAND_SIZES[1]))

    def round_summaries(self, key: str, limit: int = 10_000) -> list[dict]:
        out = []
        for i, r in enumerate(self._list(key, limit)):
            where = f"{key}[{i}]"
            if not isinstance(r, Mapping) or set(r) != {"cat", "hand_size", "last", "winner"}:
                raise self.fail(where, "a round summary {cat, hand_size, last, winner}", r)
            rd = Doc(r, f"{self.what} {where}")
            out.append(
                {
                    "cat": rd.field_of_kind("cat", "space"),
                    "hand_size": rd.field_of_kind("hand_size", "size"),
                    "last": rd.field_of_kind("last", "pair"),
                    "winner": rd.field_of_kind("winner", "winner"),
                }
            )
        return out

    def actions(self, key: str, limit: int = 10_000 * MAX_ACTIONS_PER_DEAL) -> list[dict]:
        out = []
        for i, a in enumerate(self._list(key, limit)):
            where = f"{key}[{i}]"
            if (
                not isinstance(a, Mapping)
                or type(a.get("player")) is not int
                or a["player"] not in (0, 1)
                or set(a) - {"player", "kind", "cards", "beats"}
            ):
                raise self.fail(where, '{"player": 0|1, "kind", "cards", "beats"?}', a)
            try:
                action = Action.from_dict(a)
            except TacocatError as exc:
                raise RecordError(f"{self.what} {where}: {exc}") from None
            out.append({"player": a["player"], **action.to_dict()})
        return out


def check_round_history(history: Sequence[Event], board: Board, hand_size: int, face_up: Sequence[int]) -> None:
    """A round's history must open with its deal and show exactly the
    round's face-up cards (R15): searches read it (R20)."""
    deal = history[0] if history else None
    if not isinstance(deal, DealEvent):
        raise PositionError("a round's history opens with its deal event", "R6")
    if deal.cat != board.cat or deal.hand_size != hand_size:
        raise PositionError("the history's deal event is not this board's deal", "R6")
    shown: list[int] = []
    for e in history[1:]:
        if not isinstance(e, (ReplaceEvent, DuelEvent, PlayEvent)):  # a deal or a showdown
            raise PositionError(f"a {e.event} event inside a round's history", "R6")
        shown += e.cards
    if sorted(shown) != sorted(face_up):
        raise PositionError("the history's face-up cards are not the discard pile and table", "R15")
