"""A player's view: its information set (RULES §5), and where views come from.

`View` is what one player knows: its own hand, every face-up card, the
unseen pool, the opponent's hand size and the round's public history.  It
comes from a game (`View.of`, `GameState.view`), from its document
(`View.from_dict`: fields read and typed, then checked by `validate`, the
one place that says which views a game can produce), or from what a user or
a frontend can give: a few facts typed on a command line (`build_view`), or
a JSON object in the short form {player, hand, seen, opponent_hand_size,
attacker, table, rules?} or the full form of `View.to_dict()`
(`view_from_json`).  Everything else follows from the rules."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

from tacocat.errors import NotationError, PositionError, RecordError
from tacocat.errors import shorten as _short
from tacocat.rules.actions import Action, decision_of, legal_actions_of
from tacocat.rules.board import Board
from tacocat.rules.cards import Hand, contains, counts, format_cards, hand, parse_cards
from tacocat.rules.documents import VIEW_FIELDS, Doc, check_known_counts, check_round_history
from tacocat.rules.events import DealEvent, Decision, DuelEvent, Event, Phase, PlayEvent, event_of
from tacocat.rules.history import (
    ANSWER,
    ATTACK,
    History,
    check_view_facts,
    history_from_json,
    is_attack,
    parse_history,
)
from tacocat.rules.play import player_to_play
from tacocat.rules.ruleset import ARROW_CHOICES, HAND_SIZES, STANDARD, Arrow, Ruleset, load_ruleset

if TYPE_CHECKING:
    from tacocat.rules.game import GameState

REPLACE, DUEL, PLAY, OVER = Phase.REPLACE, Phase.DUEL, Phase.PLAY, Phase.OVER
RULE_OF_PHASE = {REPLACE: "R7-R8", DUEL: "R9", PLAY: "R10-R12", OVER: "R19"}
_PHASE_OF: dict[str, Phase] = {p.value: p for p in Phase}


@dataclass(frozen=True)
class View:
    """What one player knows (RULES §5): own hand, every face-up card, the
    unseen pool, the opponent's hand size, the public history.  Immutable
    once built: a view is a fact about a moment of the game, shared by the
    searches that read it (its events, immutable too, are shared)."""

    player: int
    rules: Ruleset
    board: Board
    phase: Phase
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
    history: tuple[Event, ...]
    """The round's public events, its deal first (a view built from a few
    facts may hold only the play's attacks and answers)."""
    rounds: tuple[dict, ...]

    def __post_init__(self) -> None:
        # Events given in their wire form are typed here, once; a phase word
        # becomes its `Phase` (an unknown one is left for `validate` to name).
        object.__setattr__(self, "acting", tuple(self.acting))
        object.__setattr__(self, "history", tuple(event_of(e) for e in self.history))
        object.__setattr__(self, "rounds", tuple(self.rounds))
        if not isinstance(self.phase, Phase) and self.phase in _PHASE_OF:
            object.__setattr__(self, "phase", _PHASE_OF[self.phase])

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
            history=tuple(state.history),
            rounds=tuple(copy.deepcopy(state.rounds)),
        )

    @cached_property
    def play_history(self) -> History:
        """The round's attacks and answers in order (R20 reads them): the
        play-phase events of `history` (read once: the view is immutable)."""
        return tuple(e for e in self.history if isinstance(e, PlayEvent))

    @cached_property
    def unseen_pool(self) -> Hand:
        """Deck − own hand − every face-up card of this round (RULES §5);
        computed once (the view is immutable, the searches ask often)."""
        left = counts(self.rules.deck_cards())
        for r in self.hand + self.seen + self.table:
            left[r] -= 1
        return tuple(r for r in range(1, 13) for _ in range(left[r]))

    @property
    def decision(self) -> Decision | None:
        """The kind of action this player takes now, or None."""
        return decision_of(self.player, self.acting, self.phase, self.table)

    def legal_actions(self) -> list[Action]:
        """The actor's legal actions, computed from the view alone."""
        return legal_actions_of(self.decision, self.hand, self.replace_cap, self.table)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "rules": self.rules.to_dict(),
            "board": self.board.to_dict(),
            "phase": str(self.phase),
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
            "history": [e.to_json() for e in self.history],
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
        doc = Doc(data, "view")
        doc.known(VIEW_FIELDS)
        rules = doc.rules("rules")
        limit = rules.deck_size
        acting = doc._list("acting", 2)
        for a in acting:
            doc.int_value(a, "acting", 0, 1)
        pending = doc.get("my_pending", None)
        phase = Phase(doc.choice("phase", tuple(Phase), PLAY))
        attacker = doc.optional_int("attacker", 0, 1)
        table = doc.cards("table", limit, default=[])
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
            acting=tuple(sorted(set(acting or _acting_in_play(phase, attacker, table)))),
            history=tuple(doc.events("history")),
            rounds=tuple(doc.round_summaries("rounds")),
        )
        if "unseen_pool" in data:
            doc.cards("unseen_pool", limit)  # derived: checked for type, then recomputed
        if "first_replacer" in data:  # left out: "both", as ever
            view._check_arrow()
        view.validate()
        if view.phase != OVER:
            if "draw_pile_size" in data:
                view._check_draw_pile()
            if view.history:
                view._check_round_history()
        return view

    def _check_arrow(self) -> None:
        """A stated first replacer is the arrow on the cat's space (R3)."""
        if self.phase == OVER or self.board.winner is not None:
            return
        if self.first_replacer != self.board.first_replacer(self.rules):
            raise PositionError(
                f"first_replacer {self.first_replacer!r} but the arrow on space {self.board.cat} says "
                f"{self.board.first_replacer(self.rules)!r}",
                "R3",
            )

    def _check_draw_pile(self) -> None:
        """A stated draw pile is the unseen pool less the opponent's hand (R6)."""
        expected = len(self.unseen_pool) - self.opponent_hand_size
        if self.draw_pile_size != expected:
            raise PositionError(
                f"draw_pile_size {self.draw_pile_size}: the unseen pool less the opponent's hand leaves {expected}",
                "R6",
            )

    def _check_round_history(self) -> None:
        """The round's events follow from the deal on this board (R6-R20).
        (The play's facts — R12-R20 against this hand and the unseen pool —
        were checked once, by validate's check_view_facts.)"""
        check_round_history(
            self.history,
            self.board,
            self.board.hand_size(self.rules) if self.board.winner is None else 0,
            list(self.seen + self.table),
        )

    def validate(self) -> None:
        """Reject a view no game can produce, naming the field and rule."""
        self._check_who_and_when()
        self._check_dealt_hands()
        check_known_counts(self.rules, self.hand, self.seen, self.table)
        self._check_unseen_pool()
        if self.phase == PLAY:
            self._check_play()
        elif self.phase in (REPLACE, DUEL) and self.play_history:
            raise PositionError(
                f"a history of attacks and answers exists only in the play phase, not in {self.phase}", "R10"
            )
        self._check_acting()

    def _check_who_and_when(self) -> None:
        """A seat, a phase, a game not yet won (R19), and a secret choice
        made from your own hand (R8-R9)."""
        if self.player not in (0, 1):
            raise PositionError(f"player must be 0 or 1, got {self.player!r}")
        if self.phase not in _PHASE_OF:
            raise PositionError(f"phase {self.phase!r} unknown; expected replace, duel or play")
        if self.board.winner is not None and self.phase != OVER:
            raise PositionError(f"the cat stands in player {self.board.winner}'s goal: the game is over", "R19")
        if self.my_pending is not None and not contains(self.hand, self.my_pending):
            raise PositionError("my_pending must be cards from your hand", "R8-R9")

    def _check_dealt_hands(self) -> None:
        """Before play both hands match (R6); a duel needs two cards each
        (R9); a replace needs a dealt hand and a cap it can meet (R7)."""
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

    def _check_unseen_pool(self) -> None:
        """The opponent's hand comes from the unseen cards (R1); in the
        replace phase so do the replacements still to come (R7-R8)."""
        pool = len(self.unseen_pool)
        if self.opponent_hand_size < 0 or self.opponent_hand_size > pool:
            raise PositionError(
                f"opponent_hand_size {self.opponent_hand_size} impossible: only {pool} cards are unseen", "R1"
            )
        if self.phase != REPLACE:
            return
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

    def _check_play(self) -> None:
        """The play phase: an attacker (R10), hands that balance with the
        table (R10), an attack that keeps a card back (R11) and is one
        (R10), cards enough to go on (R16), and a history this hand and the
        unseen pool can have come from (R12-R20)."""
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
        if self.table:
            _check_table(self.table, att)
        elif att < 2:
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

    def _check_acting(self) -> None:
        """Who acts follows from the public facts (a search trusts it):
        the attacker, or the defender facing the table (R10, R12); the
        first replacer, then the second (R7); at a secret choice, whoever
        has not chosen (R8, R9: only your own choice is known to you)."""
        acting = list(self.acting)
        secret = self.phase == DUEL or (self.phase == REPLACE and self.first_replacer == Arrow.BOTH)
        if self.my_pending is not None and not secret:
            raise PositionError(
                f"my_pending is a secret choice of a replace on a two-arrow space or of a duel, "
                f"not of the {self.phase} phase here",
                "R8-R9",
            )
        allowed = self._who_may_act(secret)
        if acting not in allowed:
            raise PositionError(
                f"acting {acting} does not follow from the {self.phase} phase (expected "
                f"{' or '.join(map(str, allowed))}: attacker, table, first_replacer, replace_cap, "
                f"my_pending)",
                RULE_OF_PHASE[self.phase],
            )

    def _who_may_act(self, secret: bool) -> list[list[int]]:
        """The `acting` lists the public facts allow: nobody once the game
        is over; the attacker or the defender facing the table (R10, R12);
        the first replacer, then the second (R7); at a secret choice (R8,
        R9), whoever has not chosen."""
        if self.phase == OVER:
            return [[]]
        if self.phase == PLAY:
            assert self.attacker is not None  # validate refused a play phase without one (R10)
            return [[1 - self.attacker] if self.table else [self.attacker]]
        if not secret:
            first = 0 if self.first_replacer == Arrow.P0 else 1
            return [[first] if self.replace_cap is None else [1 - first]]
        return self._secret_choosers()

    def _secret_choosers(self) -> list[list[int]]:
        """At a secret choice (a replace on a two-arrow space, R8, or a
        duel, R9), whoever has not chosen yet."""
        if self.phase == REPLACE and self.replace_cap is not None:
            raise PositionError("on a two-arrow space both replace in secret: replace_cap is unset", "R8")
        # Both in reveals at once: with your choice in, only the other acts;
        # without it, you act, and the other may or may not have chosen.
        return [[1 - self.player]] if self.my_pending is not None else [[self.player], [0, 1]]


def _acting_in_play(phase: Phase, attacker: int | None, table: Sequence[int]) -> list[int]:
    """Who acts when a view leaves `acting` out: in the play phase the
    attacker, or the defender facing the table (R10, R12); else unknown."""
    if phase != PLAY or attacker not in (0, 1):
        return []
    return [player_to_play(attacker, tuple(table))]


def _check_table(table: Sequence[int], att: int) -> None:
    """An attack on the table keeps one of the attacker's cards back (R11)
    and is a single, a set or a sequence (R10)."""
    if att < 1:
        raise PositionError(
            f"an attack of {len(table)} cards from a hand of {len(table)} would use the attacker's "
            "last card: an attack has at most h - 1 cards",
            "R11",
        )
    if not is_attack(table):
        raise PositionError(f"table {format_cards(table)} is not a single, a set or a sequence", "R10")


def _play_start(history: Sequence[Event]) -> int | None:
    """Cards each player held when the play phase began, from a full
    history: the deal (R6) less one card per duel, ties included (R9);
    None when the history does not record the deal."""
    dealt = next((e.hand_size for e in history if isinstance(e, DealEvent)), None)
    if dealt is None:
        return None
    return dealt - sum(1 for e in history if isinstance(e, DuelEvent))


PHASES = (REPLACE.value, DUEL.value, PLAY.value)
"""The phases a view may be asked about, as words (what a command line offers)."""


def build_view(
    *,
    hand: Sequence[int] | str,
    seen: Sequence[int] | str | None = (),
    table: Sequence[int] | str | None = (),
    opponent: int | None = None,
    attacker: int | None = None,
    player: int = 0,
    phase: str | None = None,
    cap: int | None = None,
    board: Board | None = None,
    rules: Ruleset = STANDARD,
    notes: list[str] | None = None,
    label: str = "",
    history: str | Sequence[PlayEvent] | None = (),
) -> View:
    """A `View` from the few facts a user can type; everything else (the
    draw pile, who acts, the opponent's hand size when left out) follows
    from the rules.  Cards may be lists of ranks or plain notation; an error
    names the field as `label` + its name (e.g. "--hand" on the command
    line).  Leniency: a defender who gives the opponent's hand size as
    counted before the attack (equal to their own) gets the table
    subtracted, with a note appended to `notes`.  `history`: the round's
    attacks and answers so far (R20), as events or in the notation of
    `tacocat.rules.history.parse_history`, the pending attack on the table
    last; when it leaves the table's attack out, that attack is added."""
    history = _history_given(history, label)
    notes = notes if notes is not None else []
    board = board or Board()
    phase = phase or PLAY
    _check_seat_and_phase(player, phase, board)
    hand, seen, table = (parse_cards(c, label + what) for c, what in ((hand, "hand"), (seen, "seen"), (table, "table")))
    if not hand:
        raise NotationError('your hand is empty; give your cards, e.g. --hand "2 5 7 9"')
    first_replacer = board.first_replacer(rules)
    replace_cap = None
    if phase == PLAY:
        attacker, opponent = _play_seats(player, attacker, opponent, hand, table, notes)
        acting = [player_to_play(attacker, table)]
    else:
        attacker = None
        opponent, first_replacer, replace_cap, acting = _seats_before_play(
            phase, player, opponent, cap, hand, table, board, first_replacer
        )
    if cap is not None and phase != REPLACE:
        raise NotationError(f"--cap applies to the replace phase only (R7), not {phase}")
    _check_opponent(opponent, hand, seen, table, phase, rules, label)
    # R1 (every known card in the deck) is checked by `view.validate()`
    # below, which rejects the view before this count could mislead anyone.
    pool = rules.deck_size - len(hand) - len(seen) - len(table)
    view = View(
        player=player,
        rules=rules,
        board=board,
        phase=Phase(phase),
        hand=hand,
        seen=seen,
        table=table,
        attacker=attacker,
        opponent_hand_size=opponent,
        draw_pile_size=max(pool - opponent, 0),
        first_replacer=first_replacer,
        replace_cap=replace_cap,
        my_pending=None,
        acting=tuple(acting),
        history=_with_table(tuple(history), table, attacker),
        rounds=(),
    )
    view.validate()
    return view


def _history_given(history: str | Sequence[PlayEvent] | None, label: str) -> Sequence[PlayEvent]:
    """The round's attacks and answers as events, read from notation when
    typed (R20)."""
    if history is None:
        return ()
    if isinstance(history, str):
        try:
            return parse_history(history)
        except RecordError as exc:
            raise RecordError(f"{label}history: {exc}") from None
    return history


def _check_seat_and_phase(player: int, phase: str, board: Board) -> None:
    """A seat, a phase a view may be asked about, and a game not yet won
    (R19) — before the arrows and hand sizes of a space the cat is not on."""
    if player not in (0, 1):
        raise PositionError(f"player must be 0 or 1, got {player!r}")
    if phase not in PHASES:
        raise NotationError(f"phase {_short(phase)} unknown; expected one of {', '.join(PHASES)}")
    if board.winner is not None:
        raise PositionError(f"the cat stands in player {board.winner}'s goal: the game is over", "R19")


def _play_seats(
    player: int,
    attacker: int | None,
    opponent: int | None,
    hand: Hand,
    table: Hand,
    notes: list[str],
) -> tuple[int, int]:
    """The attacker and the opponent's hand size in the play phase: by
    default the defender faces the table, else the player attacks (R12);
    the opponent's hand balances with the table (R10)."""
    other = 1 - player
    if attacker is None:
        attacker = other if table else player
    if attacker not in (0, 1):
        raise PositionError(f"attacker must be 0 or 1, got {attacker!r}", "R10")
    if table and attacker == player:
        raise PositionError(
            f"the table holds player {player}'s own attack: player {other} is to answer, not player {player} "
            f"(give --attacker {other}, or --player {other} to ask for the defender)",
            "R12",
        )
    return attacker, _opponent_in_play(opponent, hand, table, notes)


def _opponent_in_play(opponent: int | None, hand: Hand, table: Hand, notes: list[str]) -> int:
    """The opponent's hand in play: the attacker's hand plus the table is
    the defender's (R10).  Leniency: a defender who counts the attacker's
    hand as before the attack gets the table subtracted, with a note."""
    if opponent is None:
        return len(hand) - len(table) if table else len(hand)
    if table and opponent == len(hand) and len(hand) > len(table):
        opponent = len(hand) - len(table)
        notes.append(
            f"note: the opponent held {len(hand)} cards before attacking with {len(table)}; "
            f"counting {opponent} in their hand now (R10: attacker + table = defender)"
        )
    return opponent


def _seats_before_play(
    phase: str,
    player: int,
    opponent: int | None,
    cap: int | None,
    hand: Hand,
    table: Hand,
    board: Board,
    first_replacer: str,
) -> tuple[int, str, int | None, list[int]]:
    """Before play no attack is on the table (R10) and the opponent holds
    as many cards as you (R6)."""
    if table:
        raise PositionError(f"a table (an attack to answer) exists only in the play phase, not in {phase}", "R10")
    opponent = len(hand) if opponent is None else opponent
    if phase != REPLACE:
        return opponent, first_replacer, None, [0, 1]
    return (opponent, *_replace_seats(player, cap, hand, board, first_replacer))


def _replace_seats(
    player: int, cap: int | None, hand: Hand, board: Board, first_replacer: str
) -> tuple[str, int | None, list[int]]:
    """The replace phase's first replacer, cap and who acts: with a cap the
    other player replaced first and discarded that many (R7); on an arrow
    toward the other player a cap is needed; on an arrow toward the player
    they act first; on a two-arrow space both choose (R8)."""
    other = 1 - player
    if cap is not None:
        if not 0 <= cap <= len(hand):
            raise PositionError(f"replacement cap {cap} impossible: expected 0..{len(hand)} (R7)", "R7")
        return f"p{other}", cap, [player]
    if first_replacer == f"p{other}":
        raise PositionError(
            f"on space {board.cat} player {other} replaces first: give --cap N, "
            f"how many cards they discarded (you may discard at most that many)",
            "R7",
        )
    if first_replacer == f"p{player}":
        return first_replacer, None, [player]
    return first_replacer, None, [0, 1]


def _check_opponent(
    opponent: int,
    hand: Sequence[int],
    seen: Sequence[int],
    table: Sequence[int],
    phase: str,
    rules: Ruleset,
    label: str,
) -> None:
    """The opponent's hand size follows from yours: both are dealt the same
    number (R6) and every trick takes as many cards from each (R10); refuse
    any other count, or one the unseen cards cannot make (R1), in one line
    naming the rule and what to give."""
    field, mine, shown, laid = (
        (f"{label}opponent", f"{label}hand", f"{label}seen", f"{label}table")
        if label
        else ("opponent_hand_size", "'hand'", "'seen'", "'table'")
    )
    if table and len(table) >= len(hand):
        raise PositionError(
            f"{laid} {' '.join(map(str, table))} is an attack of {len(table)} cards but your {mine} holds {len(hand)}: "
            f"the attacker keeps a card back, so the defender holds at least {len(table) + 1}; give every card you "
            f"hold with {mine}, or the attack as laid with {laid}",
            "R11",
        )
    expected = len(hand) - len(table)
    if phase != PLAY:
        why, rule = (
            (
                f"both players are dealt the same number of cards and replace one for one, so in the "
                f"{phase} phase the opponent holds {expected} like you"
            ),
            "R6",
        )
    elif table:
        why, rule = (
            (
                f"in play the defender holds the attacker's cards plus the table's, so with your {len(hand)} "
                f"against {len(table)} on the table the attacker holds {expected}"
            ),
            "R10",
        )
    else:
        why, rule = (
            f"in play both hands hold the same number of cards, so the opponent holds {expected} like you",
            "R10",
        )
    if opponent != expected:
        raise PositionError(f"{field} {opponent}: {why}; give {field} {expected}, or leave it out", rule)
    check_known_counts(rules, hand, seen, table)  # first: it names the card counted twice
    unseen = rules.deck_size - len(hand) - len(seen) - len(table)
    if opponent > unseen:
        raise PositionError(
            f"{mine}, {shown} and {laid} name {rules.deck_size - unseen} of the deck's {rules.deck_size} cards, "
            f"which leaves {unseen} unseen, fewer than the opponent's {opponent}: {shown} lists this round's "
            f"face-up cards only (every deal shuffles the whole deck, R6)",
            "R1",
        )


def _with_table(events: tuple[PlayEvent, ...], table: Sequence[int], attacker: int | None) -> tuple[PlayEvent, ...]:
    """A history that ends with a finished trick, given with an attack on
    the table: the table's attack is the next event (R10)."""
    if events and table and attacker in (0, 1) and events[-1].event == ANSWER:
        return events + (PlayEvent(ATTACK, attacker, tuple(sorted(table))),)
    return events


VIEW_KEYS = {
    "player",
    "hand",
    "seen",
    "opponent_hand_size",
    "attacker",
    "table",
    "rules",
    "phase",
    "board",
    "replace_cap",
}
FULL_VIEW_KEYS = {"draw_pile_size", "acting", "first_replacer", "history", "rounds", "my_pending", "unseen_pool"}


def view_from_json(data: Any, notes: list[str] | None = None, *, allow_rule_files: bool = False) -> View:
    """A view from JSON: either a full `View.to_dict()` or the short form
    {player, hand, seen, opponent_hand_size, attacker, table, rules?,
    phase?, board?, replace_cap?}."""
    _check_view_keys(data)
    rules = _view_rules(data.get("rules"), allow_rule_files)
    if "draw_pile_size" in data and "acting" in data:
        full = dict(data)
        full["rules"] = rules.to_dict()
        for key in ("hand", "seen", "table"):
            full[key] = list(parse_cards(data.get(key), key))
        return View.from_dict(full)
    board_data = data.get("board")
    board = Board.from_dict(board_data, "view board") if board_data is not None else Board()
    phase = data.get("phase")
    if phase is not None and (not isinstance(phase, str) or phase not in PHASES):
        raise RecordError(f"view 'phase' must be one of {', '.join(PHASES)}, got {_short(phase)}")

    return build_view(
        hand=data["hand"],
        seen=data.get("seen"),
        table=data.get("table"),
        opponent=_int_or_none(data, "opponent_hand_size"),
        attacker=_int_or_none(data, "attacker"),
        player=_int_or_none(data, "player") or 0,
        phase=phase,
        cap=_int_or_none(data, "replace_cap"),
        board=board,
        rules=rules,
        notes=notes,
        history=history_from_json(data.get("history")),
    )


def _check_view_keys(data: Any) -> None:
    """A view is a JSON object of known keys, holding at least a hand."""
    if not isinstance(data, Mapping):
        raise RecordError(
            "a view must be a JSON object with keys player, hand, seen, opponent_hand_size, attacker, table"
        )
    unknown = set(data) - VIEW_KEYS - FULL_VIEW_KEYS
    if unknown:
        raise RecordError(
            f"unknown view key(s) {sorted(unknown)}; expected player, hand, seen, opponent_hand_size, "
            "attacker, table, rules, phase, board, replace_cap, history"
        )
    if "hand" not in data:
        raise RecordError('view is missing "hand" (your cards, e.g. [2, 5, 7, 9])')


def _view_rules(rules_src: Any, allow_rule_files: bool) -> Ruleset:
    """A view's ruleset: an object, "standard", or (where files may be
    read) a file path (RULES §8)."""
    if rules_src is not None and not isinstance(rules_src, (str, Mapping)):
        raise RecordError("view 'rules' must be a ruleset object, a file path or \"standard\"")
    if isinstance(rules_src, str) and rules_src != "standard" and not allow_rule_files:
        raise RecordError("view 'rules' must be a ruleset object or \"standard\"")
    return load_ruleset(rules_src)


def _int_or_none(data: Mapping, key: str) -> int | None:
    """A short view's integer field, or None when left out."""
    v = data.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise RecordError(f"view {key!r} must be an integer, got {_short(v)}")
    return v
