"""The whole game as a state machine, in plain Python that follows RULES.md.

A round runs deal (R6), replace (R7/R8), duel (R9), play (R10–R16),
showdown (R17), move the cat (R18); the game ends when the cat enters a goal
(R19).  At every decision `acting_players()` names who must act and
`legal_actions(player)` lists every legal action once (RULES §6).
Simultaneous decisions (R8 replacement, R9 duel) are submitted one player
at a time and revealed when both are in; a pending choice is never shown in
the other player's view.

Randomness: the only random choice is the shuffle before each deal; it is
drawn from `random.Random(f"{seed}/{deal_number}")`, so a game is fully
determined by its ruleset, its seed and its actions (see `GameRecord`)."""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tacocat.errors import IllegalMoveError, PositionError, RecordError, TacocatError
from tacocat.errors import shorten as _short
from tacocat.rules.actions import KINDS, Action
from tacocat.rules.board import Board
from tacocat.rules.cards import Hand, contains, counts, format_cards, hand, remove
from tacocat.rules.history import (
    ANSWER,
    ATTACK,
    History,
    check_history,
    check_view_facts,
    consistent,
    hand_floor,
    history_from_json,
    is_attack,
)
from tacocat.rules.play import (
    DRAW,
    LOSS,
    WIN,
    answers,
    attacks,
    duel_attacker,
    goes_to_showdown,
    showdown,
    why_not_answer,
    why_not_attack,
)
from tacocat.rules.ruleset import ARROW_CHOICES, HAND_SIZES, SPACES, STANDARD, Ruleset

REPLACE, DUEL, PLAY, OVER = "replace", "duel", "play", "over"
SEED_LIMIT = 2**63
"""Seeds are integers in (-2**63, 2**63): any seed a client sends stays storable."""
MAX_HISTORY = 200
"""More public events than any round has (a deal, two replacements, up to
twelve duels, up to 22 attacks and answers, a showdown)."""
MAX_ACTIONS_PER_DEAL = 64
RECORD_FORMAT = "tacocat-record"
STATE_FORMAT = "tacocat-state"
VERSION = 1


def sub_multisets(cards: Hand, max_size: int) -> list[Hand]:
    """Every distinct sub-multiset of `cards` with at most `max_size` cards."""
    c = counts(cards)
    ranks = [r for r in range(1, 13) if c[r]]
    out = []
    for picks in itertools.product(*(range(c[r] + 1) for r in ranks)):
        if sum(picks) <= max_size:
            out.append(tuple(r for r, k in zip(ranks, picks, strict=True) for _ in range(k)))
    return sorted(out, key=lambda h: (len(h), h))


def _decision(player: int, acting: list[int], phase: str, table: Hand) -> str | None:
    """The kind of action `player` takes now, or None (shared by the state
    and a player's view, which know the same public facts)."""
    if player not in acting:
        return None
    if phase == PLAY:
        return "answer" if table else "attack"
    return phase


def _legal_actions(kind: str | None, own: Hand, replace_cap: int | None, table: Hand) -> list[Action]:
    """Every legal action of kind `kind` from hand `own`, each distinct move
    once (RULES §6); all of it is known to the actor, so a view lists the
    same actions as the state."""
    if kind == REPLACE:
        cap = len(own) if replace_cap is None else replace_cap
        return [Action("replace", c) for c in sub_multisets(own, cap)]
    if kind == DUEL:
        return [Action("duel", (r,)) for r in sorted(set(own))]
    if kind == "attack":
        return [Action("attack", a) for a in attacks(own)]
    if kind == "answer":
        return [Action("answer", c, b) for c, b in answers(table, own)]
    return []


@dataclass
class GameState:
    """Everything about a game in progress, hidden cards included."""

    rules: Ruleset = STANDARD
    seed: int = 0
    board: Board = field(default_factory=Board)
    deals: int = 0
    """How many deals so far (drawn rounds included)."""
    phase: str = REPLACE
    hands: list[Hand] = field(default_factory=lambda: [(), ()])
    draw_pile: list[int] = field(default_factory=list)
    """Face-down; cards are drawn from the end."""
    discard: list[int] = field(default_factory=list)
    """Face-up cards of this round, in the order they were played."""
    table: Hand = ()
    """An attack waiting for its answer (R12)."""
    attacker: int | None = None
    first_replacer: str = "both"
    replaced: list[bool] = field(default_factory=lambda: [False, False])
    replace_cap: int | None = None
    """R7: the second replacer may discard at most as many as the first."""
    pending: list[Hand | None] = field(default_factory=lambda: [None, None])
    """Secret choices of a simultaneous decision (R8, R9) not yet revealed."""
    history: list[dict] = field(default_factory=list)
    """Public events of the current round."""
    rounds: list[dict] = field(default_factory=list)
    """One summary per finished round: hand size, winner (None if drawn)."""
    actions: list[dict] = field(default_factory=list)
    """Every action of the game, {"player": p, **action}: the game record."""

    # ------------------------------------------------------------------ setup
    @classmethod
    def new(cls, rules: Ruleset = STANDARD, seed: int = 0, board: Board | None = None) -> "GameState":
        """A new game: the cat on the centre (R5), the first round dealt."""
        state = cls(rules=rules, seed=int(seed), board=board or Board())
        if state.board.winner is not None:
            raise PositionError("the cat already stands in a goal", "R19")
        state._deal()
        return state

    def clone(self) -> "GameState":
        """An independent deep copy (hidden cards included)."""
        return copy.deepcopy(self)

    def _deal(self) -> None:
        """R6: shuffle the whole deck, deal N each, the rest is the draw pile."""
        rng = random.Random(f"{self.seed}/{self.deals}")
        self.deals += 1
        deck = list(self.rules.deck_cards())
        rng.shuffle(deck)
        n = self.board.hand_size(self.rules)
        self.hands = [hand(deck[:n]), hand(deck[n : 2 * n])]
        self.draw_pile = deck[2 * n :]
        self.discard, self.table, self.attacker = [], (), None
        self.phase = REPLACE
        self.first_replacer = self.board.first_replacer(self.rules)
        self.replaced = [False, False]
        self.replace_cap = None
        self.pending = [None, None]
        self.history = [{"event": "deal", "hand_size": n, "cat": self.board.cat}]

    # ------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def winner(self) -> int | None:
        """The player whose goal the cat entered; None while the game runs
        and for a game drawn at max_deals (RULES §8)."""
        return self.board.winner

    @property
    def decided_rounds(self) -> int:
        return sum(1 for r in self.rounds if r["winner"] is not None)

    def acting_players(self) -> list[int]:
        """Who must act now: one player, or both at a simultaneous decision."""
        if self.phase == REPLACE:
            if self.first_replacer == "both":
                return [p for p in (0, 1) if self.pending[p] is None]
            first = 0 if self.first_replacer == "p0" else 1
            return [first] if not self.replaced[first] else [1 - first]
        if self.phase == DUEL:
            return [p for p in (0, 1) if self.pending[p] is None]
        if self.phase == PLAY:
            return [1 - self.attacker] if self.table else [self.attacker]
        return []

    def decision(self, player: int) -> str | None:
        """The kind of action `player` takes now, or None."""
        return _decision(player, self.acting_players(), self.phase, self.table)

    def legal_actions(self, player: int) -> list[Action]:
        """Every legal action of `player` now, each distinct move once."""
        return _legal_actions(self.decision(player), self.hands[player], self.replace_cap, self.table)

    # ------------------------------------------------------------- actions
    def apply(self, player: int, action: Action) -> list[dict]:
        """Apply `player`'s action and return the public events it caused
        (a round's end brings its showdown and the next deal); raises
        IllegalMoveError (state unchanged) when it is not legal now."""
        if self.phase == OVER:
            raise IllegalMoveError("the game is over", "R19")
        if player not in (0, 1):
            raise IllegalMoveError(f"player must be 0 or 1, got {player!r}")
        kind = self.decision(player)
        if kind is None:
            who = " and ".join(f"player {p}" for p in self.acting_players())
            raise IllegalMoveError(f"it is not player {player}'s turn: {who} to act ({self.phase} phase)")
        action = self._resolve(player, kind, action)
        self.actions.append({"player": player, **action.to_dict()})
        history, start = self.history, len(self.history)
        if kind == REPLACE:
            self._replace(player, action.cards)
        elif kind == DUEL:
            self._duel(player, action.cards[0])
        elif kind == "attack":
            self._attack(player, action.cards)
        else:
            self._answer(player, action.cards, bool(action.beats))
        events = history[start:]
        if self.history is not history:  # the round ended: a new deal began a new history
            events += self.history
        return copy.deepcopy(events)

    def _resolve(self, player: int, kind: str, action: Action) -> Action:
        """Check `action` against the legal list (filling in an answer's
        `beats` when the cards allow only one result)."""
        if action.kind != kind:
            raise IllegalMoveError(f"player {player} must {kind} now, not {action.kind}", RULE_OF[kind])
        legal = self.legal_actions(player)
        if action in legal:
            return action
        if kind == "answer" and action.beats is None:
            fits = [a for a in legal if a.cards == action.cards]
            if len(fits) == 1:
                return fits[0]
            if len(fits) == 2:
                raise IllegalMoveError(
                    f"answer {format_cards(action.cards)} can beat or sacrifice; say which (beats true/false)", "R13"
                )
        raise IllegalMoveError(*self._why_illegal(player, kind, action))

    def _why_illegal(self, player: int, kind: str, action: Action) -> tuple[str, str]:
        """The one real reason `action` is refused, and the rule it breaks
        (the legal list is the door's to show: `legal_actions`)."""
        own = self.hands[player]
        cards = format_cards(action.cards)
        if not contains(own, action.cards):
            # Never the hand itself: an error may reach someone who must not see it.
            return (
                f"{kind} {cards}: player {player} does not hold these cards (legal lists what they may play)",
                RULE_OF[kind],
            )
        if kind == REPLACE:
            return (
                f"replace {cards}: the first replacer discarded {self.replace_cap}, so you may discard "
                f"at most {self.replace_cap}, not {len(action.cards)}"
            ), "R7"
        if kind == DUEL:
            return f"duel {cards}: a duel is exactly one card, not {len(action.cards)}", "R9"
        if kind == "attack":
            return why_not_attack(own, action.cards)
        return why_not_answer(self.table, own, action.cards, action.beats)

    def _replace(self, player: int, cards: Hand) -> None:
        if self.first_replacer == "both":
            # R8: both choose in secret; reveal and draw when both are in.
            self.pending[player] = cards
            if None in self.pending:
                return
            for p in (0, 1):
                self._discard_and_draw(p, self.pending[p])
            self.pending = [None, None]
            self.replaced = [True, True]
        else:
            # R7: the first replacer's count caps the second's.
            self._discard_and_draw(player, cards)
            self.replaced[player] = True
            if self.replace_cap is None:
                self.replace_cap = len(cards)
            if not all(self.replaced):
                return
        self.phase = DUEL

    def _discard_and_draw(self, player: int, cards: Hand) -> None:
        self.hands[player] = remove(self.hands[player], cards)
        self.discard.extend(cards)
        drawn = [self.draw_pile.pop() for _ in cards]
        self.hands[player] = hand(self.hands[player] + tuple(drawn))
        self.history.append({"event": "replace", "player": player, "cards": list(cards)})

    def _duel(self, player: int, card: int) -> None:
        self.pending[player] = (card,)
        if None in self.pending:
            return
        c0, c1 = self.pending[0][0], self.pending[1][0]
        self.pending = [None, None]
        self.hands = [remove(self.hands[0], (c0,)), remove(self.hands[1], (c1,))]
        self.discard.extend((c0, c1))
        self.history.append({"event": "duel", "cards": [c0, c1]})
        if goes_to_showdown(len(self.hands[0])):
            self._showdown()
        elif (first := duel_attacker(c0, c1)) is not None:
            self.attacker = first
            self.phase = PLAY
        # Equal ranks: both discarded, duel again (phase stays DUEL).

    def _attack(self, player: int, cards: Hand) -> None:
        self.hands[player] = remove(self.hands[player], cards)
        self.table = cards
        self.history.append({"event": "attack", "player": player, "cards": list(cards)})

    def _answer(self, player: int, cards: Hand, beats: bool) -> None:
        self.hands[player] = remove(self.hands[player], cards)
        self.discard.extend(self.table + cards)
        self.table = ()
        self.history.append({"event": "answer", "player": player, "cards": list(cards), "beats": beats})
        # R13–R14: the defender wins the trick only if every answer beats.
        self.attacker = player if beats else 1 - player
        if len(self.hands[0]) == 1 and len(self.hands[1]) == 1:
            self._showdown()

    def _showdown(self) -> None:
        """R17: the lower last card wins; equal ranks draw (or, under the
        `arrow` tie rule on a one-arrow space, the arrow's player wins)."""
        last = (self.hands[0][0], self.hands[1][0])
        winner = {WIN: 0, LOSS: 1, DRAW: None}[showdown(self.hands)]
        if winner is None and self.rules.tie == "arrow" and self.first_replacer != "both":
            winner = 0 if self.first_replacer == "p0" else 1
        self.history.append({"event": "showdown", "cards": list(last), "winner": winner})
        self.rounds.append(
            {"cat": self.board.cat, "hand_size": self.board.hand_size(self.rules), "last": list(last), "winner": winner}
        )
        self.discard.extend(last)
        self.hands = [(), ()]
        if winner is not None:
            self.board = self.board.after_round(winner)  # R18
        # R19; RULES §8: a game that reaches max_deals deals without a winner ends drawn.
        if self.board.winner is not None or self.deals >= self.rules.max_deals:
            self.phase = OVER
            self.attacker = None
            return
        self._deal()

    # ----------------------------------------------------------- invariants
    def places(self) -> list[int]:
        """Every card in some place: hands, draw pile, discard pile, table."""
        return sorted(self.hands[0] + self.hands[1] + tuple(self.draw_pile) + tuple(self.discard) + self.table)

    def check(self) -> None:
        """Raise PositionError when the state breaks a conservation rule."""
        if self.phase == OVER:
            return
        if self.places() != list(self.rules.deck_cards()):
            raise PositionError("the cards in hands, draw pile, discard pile and table are not the deck", "R1")
        if self.phase == PLAY:
            if type(self.attacker) is not int or self.attacker not in (0, 1):
                raise PositionError(f"the play phase needs an attacker 0 or 1, got {_short(self.attacker)}", "R10")
            a, d = len(self.hands[self.attacker]), len(self.hands[1 - self.attacker])
            if a + len(self.table) != d:
                raise PositionError("hands hold different numbers of cards in play", "R10")

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "board": self.board.to_dict(),
            "deals": self.deals,
            "phase": self.phase,
            "hands": [list(h) for h in self.hands],
            "draw_pile": list(self.draw_pile),
            "discard": list(self.discard),
            "table": list(self.table),
            "attacker": self.attacker,
            "first_replacer": self.first_replacer,
            "replaced": list(self.replaced),
            "replace_cap": self.replace_cap,
            "pending": [None if p is None else list(p) for p in self.pending],
            "history": copy.deepcopy(self.history),
            "rounds": copy.deepcopy(self.rounds),
            "actions": copy.deepcopy(self.actions),
        }

    @classmethod
    def from_dict(cls, data: Any) -> "GameState":
        """A state from `to_dict()`'s form, every field type-checked; raises
        RecordError when malformed and PositionError when no game can be in
        it (cards that are not the deck, hand sizes the phase cannot have, a
        draw pile too small for the replacements still to come).  A state
        that passes can be played to its end without error."""
        if not isinstance(data, Mapping) or data.get("format") != STATE_FORMAT:
            raise RecordError(f"not a game state: expected an object with format {STATE_FORMAT!r}")
        doc = _Doc(data, "game state")
        doc.known(STATE_KEYS)
        doc.version()
        rules = doc.rules("rules", KeyError)
        phase = doc.choice("phase", (REPLACE, DUEL, PLAY, OVER))
        n_hand = max(HAND_SIZES[1], len(rules.deck_cards()))
        state = cls(
            rules=rules,
            seed=doc.integer("seed", -SEED_LIMIT, SEED_LIMIT),
            board=doc.board("board"),
            deals=doc.integer("deals", 1, rules.max_deals),
            phase=phase,
            hands=doc.pair("hands", lambda v, f: doc.cards_value(v, f, n_hand)),
            draw_pile=list(doc.cards("draw_pile", rules.deck_size, sort=False)),
            discard=list(doc.cards("discard", rules.deck_size, sort=False)),
            table=doc.cards("table", HAND_SIZES[1]),
            attacker=doc.optional_int("attacker", 0, 1),
            first_replacer=doc.choice("first_replacer", ARROW_CHOICES),
            replaced=doc.pair("replaced", doc.boolean_value),
            replace_cap=doc.optional_int("replace_cap", 0, HAND_SIZES[1]),
            pending=doc.pair("pending", lambda v, f: None if v is None else doc.cards_value(v, f, HAND_SIZES[1])),
            history=doc.events("history"),
            rounds=doc.round_summaries("rounds"),
            actions=doc.actions("actions"),
        )
        state.check_document()
        return state

    def check_document(self) -> None:
        """Reject a state no game can be in, so that every later `apply`
        succeeds or refuses cleanly (RULES R1-R19)."""
        board, rules = self.board, self.rules
        if self.phase == OVER:
            if board.winner is None and self.deals < rules.max_deals:
                raise PositionError("phase is over but the cat is in no goal and max_deals is not reached", "R19")
            return
        if board.winner is not None:
            raise PositionError(f"the cat stands in player {board.winner}'s goal: the game is over", "R19")
        n = board.hand_size(rules)
        if self.first_replacer != board.first_replacer(rules):
            raise PositionError(
                f"first_replacer {self.first_replacer!r} but the arrow on space {board.cat} says "
                f"{board.first_replacer(rules)!r}",
                "R3",
            )
        self.check()
        h0, h1 = len(self.hands[0]), len(self.hands[1])
        if self.phase != PLAY and self.table:
            raise PositionError(
                f"a table (an attack to answer) exists only in the play phase, not in {self.phase}", "R10"
            )
        if self.phase != PLAY and self.attacker is not None:
            raise PositionError(f"attacker is set only in the play phase, not in {self.phase}", "R10")
        for p in (0, 1):
            pend = self.pending[p]
            if pend is not None and (self.phase not in (REPLACE, DUEL) or not contains(self.hands[p], pend)):
                raise PositionError(
                    f"pending choice of player {p} is not a choice from their hand at this phase", "R8-R9"
                )
        if self.phase == REPLACE:
            if (h0, h1) != (n, n):
                raise PositionError(
                    f"in the replace phase both hands hold {n} cards (space {board.cat}), got {h0} and {h1}", "R6"
                )
            if self.first_replacer == "both":
                if any(self.replaced) or self.replace_cap is not None:
                    raise PositionError(
                        "on a two-arrow space nobody has replaced before both reveal; replace_cap is unset", "R8"
                    )
                need = sum(n if pend is None else len(pend) for pend in self.pending)
            else:
                first = 0 if self.first_replacer == "p0" else 1
                if self.pending != [None, None]:
                    raise PositionError("a one-arrow replacement is not secret: no pending choices", "R7")
                if self.replaced[1 - first] or self.replaced[first] != (self.replace_cap is not None):
                    raise PositionError(f"player {first} replaces first; replace_cap is their discard count", "R7")
                need = 2 * n if self.replace_cap is None else self.replace_cap
            if len(self.draw_pile) < need:
                raise PositionError(
                    f"the draw pile holds {len(self.draw_pile)} cards "
                    f"but the replacements still to come may draw {need}",
                    "R7-R8",
                )
            return
        if not all(self.replaced):
            raise PositionError(f"the {self.phase} phase comes after both players replaced", "R7-R8")
        if self.phase == DUEL:
            if h0 != h1 or h0 < 2:
                raise PositionError(f"a duel needs equal hands of at least two cards, got {h0} and {h1}", "R9")
            return
        if self.attacker is None:
            raise PositionError("the play phase needs an attacker (0 or 1)", "R10")
        if any(p is not None for p in self.pending):
            raise PositionError("no choice is pending in the play phase", "R10")
        att = len(self.hands[self.attacker])
        if self.table:
            if self.table not in [tuple(a) for a in attacks(self.hands[self.attacker] + self.table)]:
                raise PositionError("the table is not an attack the attacker could have made", "R10-R11")
        elif att < 2:
            raise PositionError("play ends with one card each: the attacker needs at least two cards", "R16")

        _check_history(self.history, board, n, self.discard + list(self.table))
        if self.phase == PLAY:
            _check_play(self.history, self.attacker, {0: self.hands[0], 1: self.hands[1]}, {})

    def record(self) -> "GameRecord":
        """The game so far as ruleset + seed + actions (replays to this state)."""
        return GameRecord(self.rules, self.seed, [dict(a) for a in self.actions])

    def view(self, player: int) -> "View":
        """Player `player`'s information set (RULES §5)."""
        return View.of(self, player)


def check_known_counts(rules: Ruleset, own: Hand, seen: Hand, table: Hand) -> None:
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


RULE_OF = {REPLACE: "R7-R8", DUEL: "R9", "attack": "R10-R11", "answer": "R12-R13"}
RULE_OF_PHASE = {REPLACE: "R7-R8", DUEL: "R9", PLAY: "R10-R12", OVER: "R19"}

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
EVENT_FIELDS: dict[str, dict[str, str]] = {
    "deal": {"hand_size": "size", "cat": "space"},
    "replace": {"player": "player", "cards": "cards"},
    "duel": {"cards": "pair"},
    "attack": {"player": "player", "cards": "cards"},
    "answer": {"player": "player", "cards": "cards", "beats": "bool"},
    "showdown": {"cards": "pair", "winner": "winner"},
}
"""The public events `GameState` writes into a round's history, and each
field's kind: what a state document or full view may carry."""


class _Doc:
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

    def events(self, key: str) -> list[dict]:
        """A round's public history (`EVENT_FIELDS`), copied."""
        out = []
        for i, e in enumerate(self._list(key, MAX_HISTORY)):
            where = f"{key}[{i}]"
            kind = e.get("event") if isinstance(e, Mapping) else None
            if not isinstance(kind, str) or kind not in EVENT_FIELDS:
                raise self.fail(where, f"an event object with event one of {', '.join(EVENT_FIELDS)}", e)
            spec = EVENT_FIELDS[kind]
            if set(e) != {"event", *spec}:
                raise self.fail(where, f"a {kind} event with the fields {', '.join(spec)}", e)
            ev = _Doc(e, f"{self.what} {where}")
            event: dict[str, Any] = {"event": kind}
            for name, kind_of in spec.items():
                event[name] = ev.field_of_kind(name, kind_of)
            out.append(event)
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
            rd = _Doc(r, f"{self.what} {where}")
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


def _check_history(history: list[dict], board: Board, hand_size: int, face_up: list[int]) -> None:
    """A round's history must open with its deal and show exactly the
    round's face-up cards (R15): searches read it (R20)."""
    if not history or history[0]["event"] != "deal":
        raise PositionError("a round's history opens with its deal event", "R6")
    if history[0]["cat"] != board.cat or history[0]["hand_size"] != hand_size:
        raise PositionError("the history's deal event is not this board's deal", "R6")
    shown: list[int] = []
    for e in history[1:]:
        if e["event"] in ("deal", "showdown"):
            raise PositionError(f"a {e['event']} event inside a round's history", "R6")
        shown += e["cards"]
    if sorted(shown) != sorted(face_up):
        raise PositionError("the history's face-up cards are not the discard pile and table", "R15")


def _check_play(history: Sequence[dict], attacker: int | None, hands: dict[int, Hand], pools: dict[int, tuple]) -> None:
    """The round's play must be one the rules allow (R10-R14, `check_history`)
    and leave every hand consistent with it (R20): `hands` are hands known
    to be held; `pools` give, for a hidden hand, (the unseen cards, its
    size) — enough of them must reach the floor its sacrifices set."""
    events = history_from_json([e for e in history if e["event"] in ("attack", "answer")])
    if not events:
        return
    check_history(events, attacker)
    for p, cards in hands.items():
        if not consistent(cards, events, p):
            raise PositionError(f"player {p}'s hand is below a floor its own sacrifices set this round", "R20")
    for p, (pool, size) in pools.items():
        floor = hand_floor(events, p)
        if sum(1 for c in pool if c >= floor) < size:
            raise PositionError(f"no hand of player {p} is consistent with the round's sacrifices", "R20")


@dataclass(frozen=True)
class View:
    """What one player knows (RULES §5): own hand, every face-up card, the
    unseen pool, the opponent's hand size, the public history.  Immutable
    once built: a view is a fact about a moment of the game, shared by the
    searches that read it (its events are copies, never the game's own)."""

    player: int
    rules: Ruleset
    board: Board
    phase: str
    hand: Hand
    seen: Hand
    """Every face-up card of this round that is not on the table."""
    table: Hand
    attacker: int | None
    opponent_hand_size: int
    draw_pile_size: int
    first_replacer: str
    replace_cap: int | None
    my_pending: Hand | None
    acting: tuple[int, ...]
    history: tuple[dict, ...]
    rounds: tuple[dict, ...]

    def __post_init__(self) -> None:
        for name in ("acting", "history", "rounds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    @classmethod
    def of(cls, state: GameState, player: int) -> "View":
        """`player`'s view of `state`: nothing the player cannot see."""
        return cls(
            player=player,
            rules=state.rules,
            board=state.board,
            phase=state.phase,
            hand=state.hands[player],
            seen=hand(state.discard),
            table=state.table,
            attacker=state.attacker,
            opponent_hand_size=len(state.hands[1 - player]),
            draw_pile_size=len(state.draw_pile),
            first_replacer=state.first_replacer,
            replace_cap=state.replace_cap,
            my_pending=state.pending[player],
            acting=tuple(state.acting_players()),
            history=tuple(copy.deepcopy(state.history)),
            rounds=tuple(copy.deepcopy(state.rounds)),
        )

    @cached_property
    def play_history(self) -> History:
        """The round's attacks and answers in order (R20 reads them): the
        play-phase events of `history` (read once: the view is immutable)."""
        return history_from_json(
            [
                {k: e[k] for k in ("event", "player", "cards", "beats") if k in e}
                for e in self.history
                if isinstance(e, Mapping) and e.get("event") in (ATTACK, ANSWER)
            ]
        )

    @cached_property
    def unseen_pool(self) -> Hand:
        """Deck − own hand − every face-up card of this round (RULES §5);
        computed once (the view is immutable, the searches ask often)."""
        left = counts(self.rules.deck_cards())
        for r in self.hand + self.seen + self.table:
            left[r] -= 1
        return tuple(r for r in range(1, 13) for _ in range(left[r]))

    @property
    def decision(self) -> str | None:
        """The kind of action this player takes now, or None."""
        return _decision(self.player, self.acting, self.phase, self.table)

    def legal_actions(self) -> list[Action]:
        """The actor's legal actions, computed from the view alone."""
        return _legal_actions(self.decision, self.hand, self.replace_cap, self.table)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "rules": self.rules.to_dict(),
            "board": self.board.to_dict(),
            "phase": self.phase,
            "hand": list(self.hand),
            "seen": list(self.seen),
            "table": list(self.table),
            "attacker": self.attacker,
            "opponent_hand_size": self.opponent_hand_size,
            "draw_pile_size": self.draw_pile_size,
            "first_replacer": self.first_replacer,
            "replace_cap": self.replace_cap,
            "my_pending": None if self.my_pending is None else list(self.my_pending),
            "acting": list(self.acting),
            "unseen_pool": list(self.unseen_pool),
            "history": copy.deepcopy(list(self.history)),
            "rounds": copy.deepcopy(list(self.rounds)),
        }

    @classmethod
    def from_dict(cls, data: Any) -> "View":
        """A view from `to_dict()`'s form, every field type-checked (missing
        optional fields take their defaults; `acting` is derived in the play
        phase); raises RecordError when malformed and PositionError when no
        game can produce it."""
        if not isinstance(data, Mapping):
            raise RecordError("a view must be a JSON object")
        doc = _Doc(data, "view")
        doc.known(VIEW_FIELDS)
        rules = doc.rules("rules")
        limit = rules.deck_size
        acting = doc._list("acting", 2)
        for a in acting:
            doc.int_value(a, "acting", 0, 1)
        pending = doc.get("my_pending", None)
        phase = doc.choice("phase", (REPLACE, DUEL, PLAY, OVER), PLAY)
        attacker = doc.optional_int("attacker", 0, 1)
        table = doc.cards("table", limit, default=[])
        if not acting and phase == PLAY and attacker in (0, 1):
            acting = [1 - attacker] if table else [attacker]
        view = cls(
            player=doc.integer("player", 0, 1),
            rules=rules,
            board=doc.board("board", {"cat": 3, "covered": []}),
            phase=phase,
            hand=doc.cards("hand", limit),
            seen=doc.cards("seen", limit, default=[]),
            table=table,
            attacker=attacker,
            opponent_hand_size=doc.integer("opponent_hand_size", 0, limit),
            draw_pile_size=doc.integer("draw_pile_size", 0, limit, 0),
            first_replacer=doc.choice("first_replacer", ARROW_CHOICES, "both"),
            replace_cap=doc.optional_int("replace_cap", 0, HAND_SIZES[1]),
            my_pending=None if pending is None else doc.cards_value(pending, "my_pending", HAND_SIZES[1]),
            acting=sorted(set(acting)),
            history=doc.events("history"),
            rounds=doc.round_summaries("rounds"),
        )
        if "unseen_pool" in data:
            doc.cards("unseen_pool", limit)  # derived: checked for type, then recomputed
        if (
            "first_replacer" in data
            and view.phase != OVER
            and view.board.winner is None
            and view.first_replacer != view.board.first_replacer(rules)
        ):  # left out: "both", as ever
            raise PositionError(
                f"first_replacer {view.first_replacer!r} but the arrow on space {view.board.cat} says "
                f"{view.board.first_replacer(rules)!r}",
                "R3",
            )
        view.validate()
        if "draw_pile_size" in data and view.phase != OVER:
            expected = len(view.unseen_pool) - view.opponent_hand_size
            if view.draw_pile_size != expected:
                raise PositionError(
                    f"draw_pile_size {view.draw_pile_size}: the unseen pool less the opponent's hand leaves {expected}",
                    "R6",
                )
        if view.history and view.phase != OVER:
            # (The play's facts — R12-R20 against this hand and the unseen pool —
            # were checked once, by validate's check_view_facts.)
            _check_history(
                view.history,
                view.board,
                view.board.hand_size(rules) if view.board.winner is None else 0,
                list(view.seen + view.table),
            )
        return view

    def validate(self) -> None:
        """Reject a view no game can produce, naming the field and rule."""
        if self.player not in (0, 1):
            raise PositionError(f"player must be 0 or 1, got {self.player!r}")
        if self.phase not in (REPLACE, DUEL, PLAY, OVER):
            raise PositionError(f"phase {self.phase!r} unknown; expected replace, duel or play")
        if self.board.winner is not None and self.phase != OVER:
            raise PositionError(f"the cat stands in player {self.board.winner}'s goal: the game is over", "R19")
        if self.my_pending is not None and not contains(self.hand, self.my_pending):
            raise PositionError("my_pending must be cards from your hand", "R8-R9")
        if self.phase in (REPLACE, DUEL) and self.opponent_hand_size != len(self.hand):
            raise PositionError(
                f"in the {self.phase} phase both hands hold the same number of cards: you {len(self.hand)}, "
                f"opponent_hand_size {self.opponent_hand_size}",
                "R6",
            )
        if self.phase == DUEL and len(self.hand) < 2:
            raise PositionError("a duel needs at least two cards each; with one card each the showdown follows", "R9")
        if self.phase == REPLACE:
            if not self.hand:
                raise PositionError("the replace phase needs a dealt hand", "R6")
            if self.replace_cap is not None and self.replace_cap > len(self.hand):
                raise PositionError(f"replace_cap {self.replace_cap} impossible: expected 0..{len(self.hand)}", "R7")
        check_known_counts(self.rules, self.hand, self.seen, self.table)
        pool = len(self.unseen_pool)
        if self.opponent_hand_size < 0 or self.opponent_hand_size > pool:
            raise PositionError(
                f"opponent_hand_size {self.opponent_hand_size} impossible: only {pool} cards are unseen", "R1"
            )
        if self.phase == REPLACE:
            # A deal starts a round's face-up cards afresh (R6): in the replace
            # phase they are the first replacer's discards, at most replace_cap.
            shown = 0 if self.replace_cap is None else self.replace_cap
            if len(self.seen) > shown:
                raise PositionError(
                    f"seen holds {len(self.seen)} cards, but in the replace phase only the first replacer's "
                    f"discards are face up ({shown}, replace_cap)",
                    "R7",
                )
            # The draw pile must serve every replacement still to come (as a
            # dealt game's does: the deck holds four hands, RULES §8).
            need = 2 * len(self.hand) if self.replace_cap is None else self.replace_cap
            if pool - self.opponent_hand_size < need:
                raise PositionError(
                    f"the draw pile ({pool - self.opponent_hand_size} unseen cards beyond the opponent's hand) cannot "
                    f"serve the replacements still to come, up to {need} cards",
                    "R7-R8",
                )
        if self.phase == PLAY:
            if self.attacker not in (0, 1):
                raise PositionError(f"attacker must be 0 or 1 in the play phase, got {self.attacker!r}", "R10")
            mine, theirs = len(self.hand), self.opponent_hand_size
            att, dfd = (mine, theirs) if self.attacker == self.player else (theirs, mine)
            if att + len(self.table) != dfd:
                raise PositionError(
                    f"in play both hands hold the same number of cards (the attacker's plus the table): "
                    f"attacker {att} + table {len(self.table)} vs defender {dfd}",
                    "R10",
                )
            if dfd < 1:
                raise PositionError("hands are empty: play ends with one card each", "R16")
            if self.table and att < 1:
                raise PositionError(
                    f"an attack of {len(self.table)} cards from a hand of {len(self.table)} would use the attacker's "
                    "last card: an attack has at most h - 1 cards",
                    "R11",
                )
            if self.table and not is_attack(self.table):
                raise PositionError(f"table {format_cards(self.table)} is not a single, a set or a sequence", "R10")
            if not self.table and att < 2:
                raise PositionError("play ends with one card each: the attacker needs at least two cards", "R16")
            check_view_facts(
                self.play_history,
                player=self.player,
                hand_now=self.hand,
                seen=self.seen,
                table=self.table,
                attacker=self.attacker,
                opponent_hand_size=self.opponent_hand_size,
                pool=self.unseen_pool,
                play_start=_play_start(self.history),
            )
        elif self.phase in (REPLACE, DUEL) and self.play_history:
            raise PositionError(
                f"a history of attacks and answers exists only in the play phase, not in {self.phase}", "R10"
            )
        self._check_acting()

    def _check_acting(self) -> None:
        """Who acts follows from the public facts (a search trusts it):
        the attacker, or the defender facing the table (R10, R12); the
        first replacer, then the second (R7); at a secret choice, whoever
        has not chosen (R8, R9: only your own choice is known to you)."""
        acting = list(self.acting)
        secret = self.phase == DUEL or (self.phase == REPLACE and self.first_replacer == "both")
        if self.my_pending is not None and not secret:
            raise PositionError(
                f"my_pending is a secret choice of a replace on a two-arrow space or of a duel, "
                f"not of the {self.phase} phase here",
                "R8-R9",
            )
        if self.phase == OVER:
            allowed = [[]]
        elif self.phase == PLAY:
            allowed = [[1 - self.attacker] if self.table else [self.attacker]]
        elif not secret:
            first = 0 if self.first_replacer == "p0" else 1
            allowed = [[first] if self.replace_cap is None else [1 - first]]
        else:
            if self.phase == REPLACE and self.replace_cap is not None:
                raise PositionError("on a two-arrow space both replace in secret: replace_cap is unset", "R8")
            # Both in reveals at once: with your choice in, only the other acts;
            # without it, you act, and the other may or may not have chosen.
            allowed = [[1 - self.player]] if self.my_pending is not None else [[self.player], [0, 1]]
        if acting not in allowed:
            raise PositionError(
                f"acting {acting} does not follow from the {self.phase} phase (expected "
                f"{' or '.join(map(str, allowed))}: attacker, table, first_replacer, replace_cap, "
                f"my_pending)",
                RULE_OF_PHASE[self.phase],
            )


def _play_start(history: list) -> int | None:
    """Cards each player held when the play phase began, from a full
    history: the deal (R6) less one card per duel, ties included (R9);
    None when the history does not record the deal."""
    dealt = next((e.get("hand_size") for e in history if isinstance(e, Mapping) and e.get("event") == "deal"), None)
    if not isinstance(dealt, int):
        return None
    return dealt - sum(1 for e in history if isinstance(e, Mapping) and e.get("event") == "duel")


@dataclass
class GameRecord:
    """A game as ruleset + seed + actions: replays to the same final state."""

    rules: Ruleset
    seed: int
    actions: list[dict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "actions": self.actions,
        }

    @classmethod
    def from_dict(cls, data: Any) -> "GameRecord":
        """A record from `to_dict()`'s form; raises RecordError when malformed
        (the actions are checked when replayed)."""
        if not isinstance(data, Mapping) or data.get("format") != RECORD_FORMAT:
            raise RecordError(f'not a game record: expected a JSON object with "format": "{RECORD_FORMAT}"')
        _Doc(data, "game record").version()
        for key in ("seed", "actions"):
            if key not in data:
                raise RecordError(f"game record is missing {key!r}")
        seed = data["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not -SEED_LIMIT < seed < SEED_LIMIT:
            raise RecordError(f"game record seed must be an integer of at most 63 bits, got {_short(seed)}")
        if data.get("rules") is not None and not isinstance(data["rules"], Mapping):
            raise RecordError("game record 'rules' must be a ruleset object")
        rules = Ruleset.from_dict(data.get("rules"))
        limit = rules.max_deals * MAX_ACTIONS_PER_DEAL
        if not isinstance(data["actions"], list) or len(data["actions"]) > limit:
            raise RecordError(f"game record 'actions' must be a list of at most {limit} actions")
        for i, entry in enumerate(data["actions"]):
            _record_action(i, entry)  # every entry read before any is played
        return cls(rules, seed, list(data["actions"]))

    def replay(self, upto: int | None = None) -> GameState:
        """The state after the first `upto` actions (all by default)."""
        state = GameState.new(self.rules, self.seed)
        for i, entry in enumerate(self.actions[:upto]):
            player, action = _record_action(i, entry)
            try:
                state.apply(player, action)
            except TacocatError as exc:
                raise RecordError(f"action {i + 1} ({action.kind} by player {player}): {exc}") from None
        return state

    def steps(self) -> Iterable[tuple[GameState, int, Action]]:
        """Each decision: the state before it, who acted, what they did."""
        state = GameState.new(self.rules, self.seed)
        for i, entry in enumerate(self.actions):
            player, action = _record_action(i, entry)
            yield state.clone(), player, action
            state.apply(player, action)


RECORD_ACTION_FIELDS = {"player", "kind", "cards", "beats"}


def _record_action(i: int, entry: Any) -> tuple[int, Action]:
    """Entry `i` of a record's actions, read: the player (exactly the
    integer 0 or 1: a list index, never 0.0 or true) and the action; a
    RecordError names the entry and the field."""
    where = f"action {i + 1}"
    if not isinstance(entry, Mapping):
        raise RecordError(f'{where}: expected {{"player": 0|1, "kind", "cards"}}, got {_short(entry)}')
    unknown = sorted(str(k) for k in entry if k not in RECORD_ACTION_FIELDS)
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {_short(unknown)}; expected player, kind, cards, beats")
    player = entry.get("player")
    if type(player) is not int or player not in (0, 1):
        raise RecordError(f"{where}: 'player' must be 0 or 1, got {_short(player)}")
    kind = entry.get("kind")
    try:
        action = Action.from_dict(entry)
    except TacocatError as exc:
        raise RecordError(f"{where} ({kind if kind in KINDS else _short(kind)} by player {player}): {exc}") from None
    return player, action
