"""The round's public play history and what it says about hidden hands (R20).

Every attack and answer is face up (R15), so a player knows the whole
sequence of play-phase events of the round.  R20: an opponent hand is
*consistent* when replaying that history with it is legal.  This module
gives the history a type and a text form, checks a history for what any
hand would need (R10–R14), and derives the constraint R20 puts on a hidden
hand.

The constraint is a floor.  An answer can only be illegal for some hand
through a sacrifice (R12: a non-beating answer must be the defender's lowest
card then); beating is legal whatever else the defender holds.  For one
answer with cards C to attack A, let X be the cards the defender kept back.
Any legal ordering plays sacrifices while every card of X is still held, so
each sacrifice s needs min(X) >= s; conversely, playing the beating answers
first and the sacrifices in increasing order meets every R12 condition as
soon as max(sacrifices) <= min(X).  So the answer is legal for the holding
C + X exactly when some matching of C to A with the recorded trick result
(R13) has max(sacrifices) <= min(X).  Call the least such maximum the
answer's *floor* (none when the answer beats throughout).  X is the
defender's current hand plus the cards it has played since, so a hand H is
consistent exactly when every card of H is at least every floor of its
owner's answers, and the history itself is possible only when the cards
each player played later meet its own floors.  `consistent_by_replay` is
the definition, written out (slow, for tests); `hand_floor` is what the
searches use.

Weights (R20): a consistent hand weighs the number of card subsets of the
unseen pool that form it.  A floor keeps exactly the card subsets drawn
from the pool's cards at or above it, so sampling uniformly from that
restricted pool draws the information set with its weights."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Sequence

from tacocat.errors import NotationError, PositionError, RecordError
from tacocat.rules.cards import Hand, contains, format_cards, hand, parse_cards, remove
from tacocat.rules.events import ANSWER, ATTACK, EventKind, PlayEvent
from tacocat.rules.play import MIN_SEQUENCE, answers, next_attacker

MAX_EVENTS = 200
"""More events than any round can have (at most 11 tricks of two events at
12 cards a hand, R2 bounds); longer histories are refused unread."""


History = tuple[PlayEvent, ...]


def format_history(events: Iterable[PlayEvent]) -> str:
    """`p1 attacks 11; p0 answers 6 sacrifice; ...`: the form `parse_history` reads."""
    return "; ".join(str(e) for e in events)


_EVENT_TEXT = re.compile(r"^\s*p([01])\s+(attacks|answers)\s+(.*?)\s*$", re.I)


def parse_history(text: str) -> History:
    """Read `p1 attacks 11; p0 answers 6 sacrifice; p1 attacks 4 5 6; ...`.

    Each event is `pN attacks CARDS` or `pN answers CARDS beat|sacrifice`
    (`beat`: every answer card beats and the defender wins the trick; `sacrifice`:
    at least one does not, R13).  Events are separated by `;` or new lines.
    The order and the players are checked by `check_history`."""
    events = []
    parts = [p for p in re.split(r"[;\n]", text or "") if p.strip()]
    if len(parts) > MAX_EVENTS:
        raise RecordError(f"history has {len(parts)} events; a round has at most {MAX_EVENTS}")
    for i, part in enumerate(parts, 1):
        events.append(_parse_event(part, i))
    return tuple(events)


def _parse_event(part: str, i: int) -> PlayEvent:
    """One event of the notation: `pN attacks CARDS`, or `pN answers CARDS
    beat|sacrifice` (R13)."""
    m = _EVENT_TEXT.match(part)
    if not m:
        raise RecordError(f"history event {i} {part.strip()!r} is not an event: {EVENT_FORMS}")
    player, verb, rest = int(m.group(1)), m.group(2).lower(), m.group(3)
    if _EVENT_START.search(rest):  # the next event's start among the cards: a ';' left out
        raise RecordError(f"history event {i} {part.strip()!r}: two events without the ';' between them; {EVENT_FORMS}")
    if verb == "attacks":
        return PlayEvent(ATTACK, player, _event_cards(rest, i))
    words = rest.split()
    if not words or words[-1].lower() not in ("beat", "beats", "sacrifice"):
        raise RecordError(
            f"history event {i} {part.strip()!r}: an answer ends with 'beat' or 'sacrifice' (R13); {EVENT_FORMS}"
        )
    beats = words[-1].lower() != "sacrifice"
    return PlayEvent(ANSWER, player, _event_cards(" ".join(words[:-1]), i), beats)


EVENT_FORMS = (
    "each event is 'pN attacks CARDS' or 'pN answers CARDS beat|sacrifice', "
    "separated by ';', e.g. 'p1 attacks 9; p0 answers 11 beat'"
)
_EVENT_START = re.compile(r"\bp[01]\b|\b(attacks|answers)\b", re.I)


def _event_cards(text: str, i: int) -> Hand:
    try:
        return parse_cards(text, f"history event {i} cards")
    except NotationError as exc:
        raise NotationError(f"{exc.message}; {EVENT_FORMS}", exc.rule) from None


def history_from_json(data: Any) -> History:
    """The JSON form: a list of `{"event", "player", "cards", "beats" (answers)}`
    (the form of conformance/history_hints.json).  Types are checked here, the
    order and the players by `check_history`."""
    if data is None:
        return ()
    if not isinstance(data, list):
        raise RecordError("history must be a list of events")
    if len(data) > MAX_EVENTS:
        raise RecordError(f"history has {len(data)} events; a round has at most {MAX_EVENTS}")
    # An item already typed (a game's or a view's own event) is taken as is.
    return tuple(item if isinstance(item, PlayEvent) else _event_from_json(item, i) for i, item in enumerate(data, 1))


def _event_from_json(item: Any, i: int) -> PlayEvent:
    """One event object: an attack or an answer by player 0 or 1, its
    cards, and for an answer whether it beats (R13)."""
    where = f"history event {i}"
    if not isinstance(item, dict):
        raise RecordError(f"{where}: expected an object with event, player, cards")
    unknown = set(item) - {"event", "player", "cards", "beats"}
    if unknown:
        raise RecordError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    kind = item.get("event")
    if not isinstance(kind, str) or kind not in (ATTACK, ANSWER):
        raise RecordError(f"{where}: event must be 'attack' or 'answer'")
    player = item.get("player")
    if type(player) is not int or player not in (0, 1):
        raise RecordError(f"{where}: player must be 0 or 1")
    cards = item.get("cards")
    if not isinstance(cards, list) or not all(type(c) is int for c in cards):
        raise RecordError(f"{where}: cards must be a list of ranks 1..12")
    cards = parse_cards(cards, f"{where} cards")
    return PlayEvent(EventKind(kind), player, cards, _beats_from_json(item.get("beats"), kind == ANSWER, where))


def _beats_from_json(beats: Any, answer: bool, where: str) -> bool | None:
    """An answer says whether it beats (R13); an attack says nothing."""
    if answer:
        if type(beats) is not bool:
            raise RecordError(f"{where}: an answer needs beats: true or false (R13)")
        return beats
    if beats is not None:
        raise RecordError(f"{where}: an attack has no beats field")
    return None


def history_to_json(events: Iterable[PlayEvent]) -> list[dict[str, Any]]:
    return [e.to_json() for e in events]


# ------------------------------------------------------------- the floor


def answer_floor(attack: Sequence[int], cards: Sequence[int], beats: bool) -> int | None:
    """The least rank every other card of the defender must reach for this
    answer to be legal (module docstring): None when no hand is constrained
    (the answer beats throughout).  Raises `PositionError` when no holding
    makes the answer legal (wrong count, or a result its cards cannot give)."""
    return _answer_floor(hand(attack), hand(cards), bool(beats))


@lru_cache(maxsize=1 << 16)
def _answer_floor(attack: Hand, cards: Hand, beats: bool) -> int | None:
    # A pure function of a few cards, asked for every event of every view a
    # search builds: remembered (an exception is not, and is raised anew).
    if len(cards) != len(attack):
        raise PositionError(
            f"an answer has one card per attack card: {len(attack)} against {format_cards(attack)}, not {len(cards)}",
            "R12",
        )
    if beats:
        if not _all_beat(attack, cards):
            raise PositionError(f"answer {format_cards(cards)} cannot beat every card of {format_cards(attack)}", "R13")
        return None
    floor = _sacrifice_floor(attack, cards)
    if floor is None:
        raise PositionError(
            f"answer {format_cards(cards)} to {format_cards(attack)} cannot lose the trick: every card beats", "R13"
        )
    return floor


def _sacrifice_floor(attack: Hand, cards: Hand) -> int | None:
    """The least threshold t at which the answer can sacrifice (R12-R13):
    the cards above t each beat an attack card and one card <= t loses to
    one; None when no t can."""
    for t in sorted(set(cards)):
        for s in set(c for c in cards if c <= t):
            for a in set(a for a in attack if a > s):
                if _big_cards_beat(remove(attack, (a,)), remove(cards, (s,)), t):
                    return t
    return None


def _all_beat(attack: Hand, cards: Hand) -> bool:
    # Sorted pairing is optimal for 'every answer >= its attack card'.
    return all(c >= a for a, c in zip(sorted(attack), sorted(cards)))


def _big_cards_beat(attack: Hand, cards: Hand, t: int) -> bool:
    """Can the cards above t each beat a distinct attack card (the rest of the
    attack going to the cards <= t, which may beat or sacrifice)?  Greedy:
    each big card, lowest first, takes the lowest attack card left."""
    left = sorted(attack)
    for c in sorted(x for x in cards if x > t):
        if not left or left[0] > c:
            return False
        left.pop(0)
    return True


def is_attack(cards: Sequence[int]) -> bool:
    """R10 by shape: a single card, a set of one rank, or a sequence of three
    or more consecutive ranks, one of each (R11 depends on the hand size)."""
    c = hand(cards)
    if len(c) <= 1 or len(set(c)) == 1:
        return len(c) == 1 or len(c) >= 2
    return len(c) >= MIN_SEQUENCE and all(b == a + 1 for a, b in zip(c, c[1:]))


class _Where:
    """ "history event i (the event)", formatted only if an error needs it."""

    __slots__ = ("i", "e")

    def __init__(self, i: int, e: PlayEvent) -> None:
        self.i, self.e = i, e

    def __format__(self, spec: str) -> str:
        return f"history event {self.i} ({self.e})"


def check_history(events: Sequence[PlayEvent], attacker: int | None = None) -> None:
    """What any hands would need (R10–R14): attacks legal in shape, each
    answered by the other player with as many cards, the trick's winner
    attacking next, and — when given — `attacker` the one who attacks now
    (or whose attack is on the table).  Names the event and the rule."""
    expect_attacker = None
    pending: PlayEvent | None = None
    for i, e in enumerate(events, 1):
        where = _Where(i, e)
        if e.event == ATTACK:
            _check_attack_event(where, e, pending, expect_attacker)
            pending = e
        else:
            _check_answer_event(where, e, pending)
            expect_attacker = next_attacker(e.player, e.beats)
            pending = None
    if attacker is not None:
        now = pending.player if pending is not None else expect_attacker
        if now is not None and now != attacker:
            raise PositionError(f"the history says player {now} attacks now, not player {attacker}", "R14")


def _check_attack_event(where: _Where, e: PlayEvent, pending: PlayEvent | None, expect_attacker: int | None) -> None:
    """An attack comes after the last one is answered (R12), by the last
    trick's winner (R14), in a legal shape (R10)."""
    if pending is not None:
        raise PositionError(f"{where}: an attack must be answered before the next attack", "R12")
    if expect_attacker is not None and e.player != expect_attacker:
        raise PositionError(f"{where}: player {expect_attacker} won the last trick and attacks next", "R14")
    if not is_attack(e.cards):
        raise PositionError(
            f"{where}: not an attack: a single card, a set, or a sequence of {MIN_SEQUENCE}+ consecutive ranks",
            "R10",
        )


def _check_answer_event(where: _Where, e: PlayEvent, pending: PlayEvent | None) -> None:
    """An answer follows an attack (`pending`), by the defender (R12), with
    cards that can give the result it states (R12-R13)."""
    if pending is None:
        raise PositionError(f"{where}: an answer follows an attack", "R12")
    if e.player == pending.player:
        raise PositionError(f"{where}: the defender answers, not the attacker", "R12")
    try:
        answer_floor(pending.cards, e.cards, bool(e.beats))
    except PositionError as exc:
        raise PositionError(f"{where}: {exc.message}", exc.rule) from None


def played_by(events: Sequence[PlayEvent], player: int) -> Hand:
    """Every card `player` has laid this round's play phase."""
    return hand(c for e in events if e.player == player for c in e.cards)


def hand_floor(events: Sequence[PlayEvent], player: int) -> int:
    """The least rank a consistent current hand of `player` may hold (R20):
    the highest floor of its answers; 1 when nothing constrains it.  Raises
    `PositionError` when the cards the player played after an answer already
    break that answer's floor (the history is impossible for any hand)."""
    floor = 1
    for i, e in enumerate(events):
        if e.event != ANSWER or e.player != player:
            continue
        f = answer_floor(events[i - 1].cards, e.cards, bool(e.beats))
        if f is None:
            continue
        later = [c for later in events[i + 1 :] if later.player == player for c in later.cards]
        if later and min(later) < f:
            raise PositionError(
                f"history event {i + 1} ({e}): player {player} later played {min(later)}, below its sacrificed cards "
                f"then, so that sacrifice was not its lowest card",
                "R12",
            )
        floor = max(floor, f)
    return floor


def consistent(cards: Sequence[int], events: Sequence[PlayEvent], player: int) -> bool:
    """Is `cards` a consistent current hand of `player` (R20)?  Via the floor."""
    return not cards or min(cards) >= hand_floor(events, player)


def consistent_by_replay(cards: Sequence[int], events: Sequence[PlayEvent], player: int) -> bool:
    """R20 as written: for each of `player`'s answers, its current hand plus
    every card it has played since (that answer included) allows that answer
    (the same cards, the same trick result) under `tacocat.rules.play.answers`.
    The reference the floor is tested against; slow."""
    current = hand(cards)
    for i, e in enumerate(events):
        if e.event != ANSWER or e.player != player:
            continue
        since = [c for later in events[i:] if later.player == player for c in later.cards]
        holding = hand(list(current) + since)
        if not contains(holding, e.cards) or (e.cards, bool(e.beats)) not in answers(events[i - 1].cards, holding):
            return False
    return True


def _floor_event(events: Sequence[PlayEvent], player: int, floor: int) -> int:
    """The 1-based number of the answer of `player` that sets `floor`."""
    for i, e in enumerate(events):
        if (
            e.event == ANSWER
            and e.player == player
            and answer_floor(events[i - 1].cards, e.cards, bool(e.beats)) == floor
        ):
            return i + 1
    return 0  # pragma: no cover - a floor above 1 always comes from an answer


def check_view_facts(
    events: Sequence[PlayEvent],
    *,
    player: int,
    hand_now: Sequence[int],
    seen: Sequence[int],
    table: Sequence[int],
    attacker: int | None,
    opponent_hand_size: int,
    pool: Sequence[int],
    play_start: int | None = None,
) -> None:
    """Refuse a play-phase history that contradicts the rest of a view, in
    one line naming the event and the rule: its structure (`check_history`),
    the attack on the table (the history's last event when one is pending),
    its cards among the face-up ones (R15), the hand size it implies when
    `play_start`, the cards each held when the play phase began, is known
    (R6, R9), the asking player's own hand meeting its
    own sacrifices' floor (R12), and at least one consistent opponent hand
    left in the unseen pool (R20).  No history (none given) checks nothing:
    the view then says nothing about the round's play so far."""
    if not events:
        return
    check_history(events, attacker)
    pending = events[-1] if events and events[-1].event == ATTACK else None
    _check_table_in_history(events, pending, hand(table), attacker)
    _check_face_up(events[:-1] if pending is not None else events, seen)
    if play_start is not None:
        _check_play_start(events, player, hand_now, play_start)
    _check_own_floor(events, player, hand_now)
    _check_opponent_room(events, 1 - player, pool, opponent_hand_size)


def _check_table_in_history(
    events: Sequence[PlayEvent], pending: PlayEvent | None, table: Hand, attacker: int | None
) -> None:
    """The attack on the table is the history's last event (R10), and a
    last attack still to answer is on the table (R12)."""
    if table and (pending is None or pending.cards != table or pending.player != attacker):
        raise PositionError(
            f"the table holds {format_cards(table)} but the history does not end with that attack by player "
            f"{attacker} (end it with 'p{attacker} attacks {format_cards(table)}')",
            "R10",
        )
    if pending is not None and not table:
        raise PositionError(
            f"history event {len(events)} ({pending}) is an attack still to answer, but the table is empty", "R12"
        )


def _check_face_up(done: Sequence[PlayEvent], seen: Sequence[int]) -> None:
    """Every card of a finished trick lies face up among the seen (R15)."""
    face_up = hand(c for e in done for c in e.cards)
    if not contains(seen, face_up):
        missing = _missing(face_up, seen)
        raise PositionError(
            f"the history's cards {format_cards(missing)} "
            f"are not among the seen cards {format_cards(hand(seen)) or '(none)'}: "
            "every attack and answer is face up (seen lists them)",
            "R15",
        )


def _check_play_start(events: Sequence[PlayEvent], player: int, hand_now: Sequence[int], play_start: int) -> None:
    """The hand now plus the cards played is what the play phase began
    with: the deal less the duel cards (R6, R9)."""
    if len(hand_now) + len(played_by(events, player)) != play_start:
        raise PositionError(
            f"wrong hand size: the play phase began with {play_start} cards each (the deal less the duel cards, "
            f"R6, R9) and the history shows {len(played_by(events, player))} of yours played, which leaves "
            f"{play_start - len(played_by(events, player))}, but the hand holds {len(hand_now)}",
            "R9",
        )


def _check_own_floor(events: Sequence[PlayEvent], player: int, hand_now: Sequence[int]) -> None:
    """The asking player's hand meets its own sacrifices' floor (R12)."""
    own = hand_floor(events, player)
    if hand_now and min(hand_now) < own:
        k = _floor_event(events, player, own)
        raise PositionError(
            f"history event {k} ({events[k - 1]}): that sacrifice was your lowest card then, so your hand cannot "
            f"hold {min(hand_now)} now",
            "R12",
        )


def _check_opponent_room(events: Sequence[PlayEvent], opponent: int, pool: Sequence[int], size: int) -> None:
    """At least one opponent hand consistent with its answers is left in
    the unseen pool (R20)."""
    floor = hand_floor(events, opponent)
    room = sum(1 for c in pool if c >= floor)
    if room < size:
        k = _floor_event(events, opponent, floor)
        raise PositionError(
            f"history event {k} ({events[k - 1]}): the opponent holds only cards of rank {floor} or more, but only "
            f"{room} unseen cards are, fewer than its {size}: no consistent hand",
            "R20",
        )


def _missing(cards: Sequence[int], seen: Sequence[int]) -> Hand:
    """The cards of `cards` beyond what `seen` holds (as multisets)."""
    left = list(hand(seen))
    out = []
    for c in hand(cards):
        if c in left:
            left.remove(c)
        else:
            out.append(c)
    return hand(out)
