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
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tacocat.errors import IllegalMoveError, PositionError, RecordError, TacocatError
from tacocat.errors import shorten as _short
from tacocat.rules.actions import KINDS, Action, decision_of, legal_actions_of
from tacocat.rules.board import Board
from tacocat.rules.cards import Hand, contains, format_cards, hand, remove
from tacocat.rules.documents import (
    MAX_ACTIONS_PER_DEAL,
    RECORD_FORMAT,
    RECORD_KEYS,
    SEED_LIMIT,
    STATE_FORMAT,
    STATE_KEYS,
    Doc,
    check_round_history,
    game_document,
)
from tacocat.rules.events import (
    DealEvent,
    Decision,
    DuelEvent,
    Event,
    Phase,
    PlayEvent,
    ReplaceEvent,
    ShowdownEvent,
)
from tacocat.rules.history import check_history, consistent, hand_floor, played_by
from tacocat.rules.play import (
    attacks,
    duel_attacker,
    goes_to_showdown,
    next_attacker,
    play_ends,
    player_to_play,
    round_winner,
    why_not_answer,
    why_not_attack,
)
from tacocat.rules.ruleset import ARROW_CHOICES, HAND_SIZES, STANDARD, Arrow, Ruleset, arrow_player
from tacocat.rules.views import View

REPLACE, DUEL, PLAY, OVER = Phase.REPLACE, Phase.DUEL, Phase.PLAY, Phase.OVER
RULE_OF = {Decision.REPLACE: "R7-R8", Decision.DUEL: "R9", Decision.ATTACK: "R10-R11", Decision.ANSWER: "R12-R13"}


@dataclass
class GameState:
    """Everything about a game in progress, hidden cards included."""

    rules: Ruleset = STANDARD
    seed: int = 0
    board: Board = field(default_factory=Board)
    deals: int = 0
    """How many deals so far (drawn rounds included)."""
    phase: Phase = REPLACE
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
    history: list[Event] = field(default_factory=list)
    """Public events of the current round, its deal first."""
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

    @classmethod
    def at_play_phase(
        cls,
        hands: Sequence[Sequence[int]],
        attacker: int = 0,
        *,
        events: Sequence[PlayEvent] = (),
        rules: Ruleset = STANDARD,
        board: Board | None = None,
        seed: int = 0,
        draw_pile: Sequence[int] | None = None,
        ended: bool = False,
    ) -> "GameState":
        """A round in its play phase, dealt elsewhere (a match of play
        phases, OpenSpiel's play game, a test): each player holds `hands[p]`
        now, `events` are the round's attacks and answers so far (an attack
        last is on the table), `attacker` attacks now or laid that attack.
        The round's history is its deal of as many cards as each held when
        the play began (the replacement and duels before are not recorded);
        the deck's other cards form the draw pile, in `draw_pile`'s order
        when given.  `ended`: the last trick was played (R16), the game
        stops there (phase over, no attacker)."""
        board = board or Board()
        events = tuple(events)
        table, face_up = _table_and_face_up(events)
        held = [hand(h) for h in hands]
        if draw_pile is None:
            draw_pile = remove(rules.deck_cards(), hand(held[0] + held[1] + tuple(face_up) + table))
        dealt = len(held[0]) + len(played_by(events, 0))
        return cls(
            rules=rules,
            seed=seed,
            board=board,
            deals=1,
            phase=OVER if ended else PLAY,
            hands=held,
            draw_pile=list(draw_pile),
            discard=face_up,
            table=table,
            attacker=None if ended else attacker,
            first_replacer=board.first_replacer(rules),
            replaced=[True, True],
            history=[DealEvent(dealt, board.cat), *events],
        )

    def clone(self) -> "GameState":
        """An independent copy (hidden cards included), made in
        microseconds rather than a deep copy's hundreds: every list field
        is copied and its items shared, which is safe because none is ever
        changed in place — hands and cards are tuples, events frozen, the
        board and the ruleset immutable, and a round summary or an action
        record is only ever appended (documents copy them deeply,
        `to_dict`).  Every field is treated so, a new one too, without
        naming it here."""
        twin = copy.copy(self)
        for name, value in vars(self).items():
            if type(value) is list:
                setattr(twin, name, list(value))
        return twin

    def __deepcopy__(self, memo: dict) -> "GameState":
        return self.clone()  # OpenSpiel clones a state by deep-copying its attributes

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
        self.history = [DealEvent(n, self.board.cat)]

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
        who = _WHO_ACTS.get(self.phase)
        return who(self) if who is not None else []

    def _replacers(self) -> list[int]:
        return replacers(self.first_replacer, self.replaced, self.pending)

    def _choosers(self) -> list[int]:
        return choosers(self.pending)

    def _player_to_play(self) -> list[int]:
        attacker = self.attacker
        assert attacker is not None  # the play phase always has one (R10; check_document)
        return [player_to_play(attacker, self.table)]

    def decision(self, player: int) -> Decision | None:
        """The kind of action `player` takes now, or None."""
        return decision_of(player, self.acting_players(), self.phase, self.table)

    def legal_actions(self, player: int) -> list[Action]:
        """Every legal action of `player` now, each distinct move once."""
        return legal_actions_of(self.decision(player), self.hands[player], self.replace_cap, self.table)

    # ------------------------------------------------------------- actions
    def apply(self, player: int, action: Action) -> list[Event]:
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
        elif kind == Decision.ATTACK:
            self._attack(player, action.cards)
        else:
            self._answer(player, action.cards, bool(action.beats))
        events = history[start:]
        if self.history is not history:  # the round ended: a new deal began a new history
            events += self.history
        return events  # immutable events: shared, not copied

    def _resolve(self, player: int, kind: Decision, action: Action) -> Action:
        """Check `action` against the legal list (filling in an answer's
        `beats` when the cards allow only one result)."""
        if action.kind != kind:
            raise IllegalMoveError(f"player {player} must {kind} now, not {action.kind}", RULE_OF[kind])
        legal = self.legal_actions(player)
        if action in legal:
            return action
        if kind == Decision.ANSWER and action.beats is None:
            fits = [a for a in legal if a.cards == action.cards]
            if len(fits) == 1:
                return fits[0]
            if len(fits) == 2:
                raise IllegalMoveError(
                    f"answer {format_cards(action.cards)} can beat or sacrifice; say which (beats true/false)", "R13"
                )
        raise IllegalMoveError(*self._why_illegal(player, kind, action))

    def _why_illegal(self, player: int, kind: Decision, action: Action) -> tuple[str, str]:
        """The one real reason `action` is refused, and the rule it breaks
        (the legal list is the door's to show: `legal_actions`)."""
        own = self.hands[player]
        cards = format_cards(action.cards)
        if not contains(own, action.cards):
            # Never the hand itself: an error may reach someone who must not see it.
            return (
                f"{kind} {cards}: player {player} does not hold these cards",
                RULE_OF[kind],
            )
        if kind == REPLACE:
            return (
                f"replace {cards}: the first replacer discarded {self.replace_cap}, so you may discard "
                f"at most {self.replace_cap}, not {len(action.cards)}"
            ), "R7"
        if kind == DUEL:
            return f"duel {cards}: a duel is exactly one card, not {len(action.cards)}", "R9"
        if kind == Decision.ATTACK:
            return why_not_attack(own, action.cards)
        return why_not_answer(self.table, own, action.cards, action.beats)

    def _replace(self, player: int, cards: Hand) -> None:
        if self.first_replacer == Arrow.BOTH:
            # R8: both choose in secret; reveal and draw when both are in.
            self.pending[player] = cards
            if None in self.pending:
                return
            for p, chosen in enumerate(self.pending):
                assert chosen is not None  # both are in (just checked)
                self._discard_and_draw(p, chosen)
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
        self.history.append(ReplaceEvent(player, tuple(cards)))

    def _duel(self, player: int, card: int) -> None:
        self.pending[player] = (card,)
        if None in self.pending:
            return
        chose0, chose1 = self.pending
        assert chose0 is not None and chose1 is not None  # both are in (just checked)
        c0, c1 = chose0[0], chose1[0]
        self.pending = [None, None]
        self.hands = [remove(self.hands[0], (c0,)), remove(self.hands[1], (c1,))]
        self.discard.extend((c0, c1))
        self.history.append(DuelEvent((c0, c1)))
        if goes_to_showdown(len(self.hands[0])):
            self._showdown()
        elif (first := duel_attacker(c0, c1)) is not None:
            self.attacker = first
            self.phase = PLAY
        # Equal ranks: both discarded, duel again (phase stays DUEL).

    def _attack(self, player: int, cards: Hand) -> None:
        self.hands[player] = remove(self.hands[player], cards)
        self.table = cards
        self.history.append(PlayEvent.attack(player, cards))

    def _answer(self, player: int, cards: Hand, beats: bool) -> None:
        self.hands[player] = remove(self.hands[player], cards)
        self.discard.extend(self.table + cards)
        self.table = ()
        self.history.append(PlayEvent.answer(player, cards, beats))
        self.attacker = next_attacker(player, beats)
        if play_ends(self.hands):
            self._showdown()

    def _showdown(self) -> None:
        """R17: the lower last card wins; equal ranks draw (or, under the
        `arrow` tie rule on a one-arrow space, the arrow's player wins)."""
        last = (self.hands[0][0], self.hands[1][0])
        winner = round_winner((self.hands[0], self.hands[1]), self.rules, self.first_replacer)
        self.history.append(ShowdownEvent(last, winner))
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
            **game_document(STATE_FORMAT, self.rules, self.seed),
            "board": self.board.to_dict(),
            "deals": self.deals,
            "phase": str(self.phase),
            "hands": [list(h) for h in self.hands],
            "draw_pile": list(self.draw_pile),
            "discard": list(self.discard),
            "table": list(self.table),
            "attacker": self.attacker,
            "first_replacer": self.first_replacer,
            "replaced": list(self.replaced),
            "replace_cap": self.replace_cap,
            "pending": [None if p is None else list(p) for p in self.pending],
            "history": [e.to_json() for e in self.history],
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
        doc = Doc(data, "game state")
        doc.known(STATE_KEYS)
        doc.version()
        rules = doc.rules("rules", KeyError)
        phase = Phase(doc.choice("phase", tuple(Phase)))
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
        if self.phase == OVER:
            if self.board.winner is None and self.deals < self.rules.max_deals:
                raise PositionError("phase is over but the cat is in no goal and max_deals is not reached", "R19")
            return
        self._check_board_document()
        self.check()
        self._check_phase_fields()
        n = self.board.hand_size(self.rules)
        if self.phase == REPLACE:
            self._check_replace_document(n)
            return
        if not all(self.replaced):
            raise PositionError(f"the {self.phase} phase comes after both players replaced", "R7-R8")
        if self.phase == DUEL:
            h0, h1 = len(self.hands[0]), len(self.hands[1])
            if h0 != h1 or h0 < 2:
                raise PositionError(f"a duel needs equal hands of at least two cards, got {h0} and {h1}", "R9")
            return
        self._check_play_document(n)

    def _check_board_document(self) -> None:
        """A game still running has the cat off the goals (R19) and the
        arrow of its space as the first replacer (R3)."""
        board, rules = self.board, self.rules
        if board.winner is not None:
            raise PositionError(f"the cat stands in player {board.winner}'s goal: the game is over", "R19")
        if self.first_replacer != board.first_replacer(rules):
            raise PositionError(
                f"first_replacer {self.first_replacer!r} but the arrow on space {board.cat} says "
                f"{board.first_replacer(rules)!r}",
                "R3",
            )

    def _check_phase_fields(self) -> None:
        """A table and an attacker only in play (R10); a pending choice only
        at a secret replace or duel, from the chooser's hand (R8-R9)."""
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

    def _check_replace_document(self, n: int) -> None:
        """The replace phase: hands as dealt (R6), the replacements so far
        in order (R7) or in secret (R8), and a draw pile that serves the
        rest (R7-R8)."""
        h0, h1 = len(self.hands[0]), len(self.hands[1])
        if (h0, h1) != (n, n):
            raise PositionError(
                f"in the replace phase both hands hold {n} cards (space {self.board.cat}), got {h0} and {h1}", "R6"
            )
        need = self._secret_draws_to_come(n) if self.first_replacer == Arrow.BOTH else self._draws_to_come(n)
        if len(self.draw_pile) < need:
            raise PositionError(
                f"the draw pile holds {len(self.draw_pile)} cards but the replacements still to come may draw {need}",
                "R7-R8",
            )

    def _secret_draws_to_come(self, n: int) -> int:
        """On a two-arrow space nobody has replaced before both reveal (R8):
        each may still draw its whole hand, or what it chose to discard."""
        if any(self.replaced) or self.replace_cap is not None:
            raise PositionError(
                "on a two-arrow space nobody has replaced before both reveal; replace_cap is unset", "R8"
            )
        return sum(n if pend is None else len(pend) for pend in self.pending)

    def _draws_to_come(self, n: int) -> int:
        """On a one-arrow space the first replacer goes first, in the open,
        and caps the second (R7)."""
        first = 0 if self.first_replacer == Arrow.P0 else 1
        if self.pending != [None, None]:
            raise PositionError("a one-arrow replacement is not secret: no pending choices", "R7")
        if self.replaced[1 - first] or self.replaced[first] != (self.replace_cap is not None):
            raise PositionError(f"player {first} replaces first; replace_cap is their discard count", "R7")
        return 2 * n if self.replace_cap is None else self.replace_cap

    def _check_play_document(self, n: int) -> None:
        """The play phase: an attacker and no secret choice (R10), a table
        the attacker could have laid (R10-R11), cards enough to go on
        (R16), and a round's history the rules allow (R6-R20)."""
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

        check_round_history(self.history, self.board, n, self.discard + list(self.table))
        if self.phase == PLAY:
            _check_play(self.history, self.attacker, {0: self.hands[0], 1: self.hands[1]}, {})

    def record(self) -> "GameRecord":
        """The game so far as ruleset + seed + actions (replays to this state)."""
        return GameRecord(self.rules, self.seed, [dict(a) for a in self.actions])

    def view(self, player: int) -> "View":
        """Player `player`'s information set (RULES §5)."""
        return View.of(self, player)


def replacers(arrow: str, replaced: Sequence[bool], pending: Sequence[Hand | None]) -> list[int]:
    """Who replaces now: R7, on a one-arrow space, the arrow's player first
    (`arrow_player`), then the other; R8, on a two-arrow space, whoever has
    not chosen yet (`choosers`)."""
    first = arrow_player(arrow)
    if first is None:
        return choosers(pending)
    return [first] if not replaced[first] else [1 - first]


def choosers(pending: Sequence[Hand | None]) -> list[int]:
    """R8-R9: at a secret choice, whoever has not chosen yet."""
    return [p for p in (0, 1) if pending[p] is None]


_WHO_ACTS = {REPLACE: GameState._replacers, DUEL: GameState._choosers, PLAY: GameState._player_to_play}
"""Who acts, by phase; nobody once the game is over."""


def _table_and_face_up(events: tuple[PlayEvent, ...]) -> tuple[Hand, list[int]]:
    """A last attack still to answer lies on the table (R12); every card of
    a finished trick lies face up (R15)."""
    table = events[-1].cards if events and events[-1].event == Decision.ATTACK else ()
    return table, [c for e in (events[:-1] if table else events) for c in e.cards]


def _check_play(
    history: Sequence[Event], attacker: int | None, hands: dict[int, Hand], pools: dict[int, tuple]
) -> None:
    """The round's play must be one the rules allow (R10-R14, `check_history`)
    and leave every hand consistent with it (R20): `hands` are hands known
    to be held; `pools` give, for a hidden hand, (the unseen cards, its
    size) — enough of them must reach the floor its sacrifices set."""
    events = [e for e in history if isinstance(e, PlayEvent)]
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


@dataclass
class GameRecord:
    """A game as ruleset + seed + actions: replays to the same final state."""

    rules: Ruleset
    seed: int
    actions: list[dict]

    def to_dict(self) -> dict[str, Any]:
        return {**game_document(RECORD_FORMAT, self.rules, self.seed), "actions": self.actions}

    @classmethod
    def from_dict(cls, data: Any) -> "GameRecord":
        """A record from `to_dict()`'s form; raises RecordError when malformed
        (the actions are checked when replayed)."""
        if not isinstance(data, Mapping) or data.get("format") != RECORD_FORMAT:
            raise RecordError(f'not a game record: expected a JSON object with "format": "{RECORD_FORMAT}"')
        doc = Doc(data, "game record")
        doc.known(RECORD_KEYS)  # a misspelt field would otherwise be dropped without a word, as a state's is not
        doc.version()
        for key in ("seed", "actions"):
            if key not in data:
                raise RecordError(f"game record is missing {key!r}")
        seed = _record_seed(data["seed"])
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


def _record_seed(seed: Any) -> int:
    """A record's seed: an integer of at most 63 bits (never true or 3.0)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not -SEED_LIMIT < seed < SEED_LIMIT:
        raise RecordError(f"game record seed must be an integer of at most 63 bits, got {_short(seed)}")
    return seed


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
