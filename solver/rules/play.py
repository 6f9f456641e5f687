"""The play phase, readable reference (R10–R17): legal attacks, distinct
answers, why a move is not one of them, and an exhaustive minimax of the
attack/defend tree with both hands known.  The fast Cython solver must agree
with this module exactly."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

from tacocat.errors import PositionError
from tacocat.rules.cards import Hand, counts, format_cards, hand, remove
from tacocat.rules.ruleset import STANDARD, Ruleset, Tie, arrow_player

WIN, DRAW, LOSS = 1, 0, -1
DEFAULT_UTILITIES = (1.0, 0.0, -1.0)
MIN_SEQUENCE = 3
"""R10: a sequence is at least this many consecutive ranks, one of each
(the exact core's `MIN_SEQUENCE` in `_search.pxd`, checked equal by a test)."""
KEPT_BY_ATTACKER = 1
"""R11: an attack leaves its attacker at least this many cards (at most h - 1 cards)."""


def attacks(cards: Sequence[int]) -> list[Hand]:
    """R10–R11: every distinct legal attack from `cards`, sorted.  An attack
    is a single card, a set (2+ of one rank) or a sequence (3+ consecutive
    ranks, one of each), and never uses the attacker's final card."""
    h = len(cards)
    limit = h - KEPT_BY_ATTACKER
    c = counts(cards)
    out: list[Hand] = []
    for r in range(1, 13):
        if c[r] == 0 or limit < 1:
            continue
        for size in range(1, min(c[r], limit) + 1):
            out.append((r,) * size)
        length = 0
        while r + length <= 12 and c[r + length] > 0:
            length += 1
            if MIN_SEQUENCE <= length <= limit:
                out.append(tuple(range(r, r + length)))
    return sorted(out, key=list)


def answers(attack: Sequence[int], defender: Sequence[int]) -> list[tuple[Hand, bool]]:
    """R12–R13: every distinct answer of `defender` to `attack`, as (cards
    removed, every answer beats).  Attack cards are answered one at a time in
    any order; an answer beats when its rank is equal or higher, and an
    answer that does not beat must be the defender's lowest card then."""
    return sorted(_answers(hand(attack), hand(defender)), key=lambda a: (list(a[0]), a[1]))


# Bounded small: a long-running engine process calls this for every
# legal-action listing, and each entry holds a frozenset of answers.
@lru_cache(maxsize=16_384)
def _answers(attack: Hand, defender: Hand) -> frozenset[tuple[Hand, bool]]:
    if not attack:
        return frozenset({((), True)})
    if len(defender) < len(attack):
        raise PositionError("the defender holds fewer cards than the attack", "R12")
    found: set[tuple[Hand, bool]] = set()
    for a in set(attack):
        rest_attack = remove(attack, (a,))
        lowest = defender[0]
        choices = [(card, True) for card in set(defender) if card >= a]
        if lowest < a:
            choices.append((lowest, False))
        for card, beat in choices:
            for cards, all_beat in _answers(rest_attack, remove(defender, (card,))):
                found.add((hand(cards + (card,)), beat and all_beat))
    return frozenset(found)


def why_not_attack(own: Hand, cards: Hand) -> tuple[str, str]:
    """Why `cards` (held) is not a legal attack from `own`, and the rule."""
    text = format_cards(cards)
    if len(cards) > len(own) - 1:
        return (
            f"attack {text} uses {len(cards)} of your {len(own)} cards: an attack keeps one card back, "
            f"so at most {len(own) - 1}"
        ), "R11"
    if len(cards) == 2:
        return (
            f"attack {text}: two cards of different ranks are neither a set (one rank) nor a sequence "
            f"(three or more consecutive ranks)"
        ), "R10"
    return (
        f"attack {text} is neither a single, a set (cards of one rank) nor a sequence "
        f"(three or more consecutive ranks, one card of each)"
    ), "R10"


def why_not_answer(table: Hand, own: Hand, cards: Hand, beats: bool | None) -> tuple[str, str]:
    """Why `cards` (held) is not a legal answer of `own` to the attack
    `table` with trick result `beats` (None: either), and the rule: the
    count first (one card per attack card), then a result the cards cannot
    give, then a card that neither beats nor is the lowest (R12-R13)."""
    text, attack = format_cards(cards), format_cards(table)
    if len(cards) != len(table):
        per = "a single card" if len(table) == 1 else f"{len(table)} cards"
        return (
            f"answer {text} is {len(cards)} card{'s' if len(cards) != 1 else ''}, but the attack {attack} is "
            f"{per}: each attack card takes exactly one answer card, {len(table)} in all"
        ), "R12"
    if any(c == cards for c, _ in answers(table, own)):
        wrong = _wrong_result(text, attack, beats)
        if wrong is not None:
            return wrong
    return _sacrifice_not_lowest(text, attack, own, cards, len(table))


def _wrong_result(text: str, attack: str, beats: bool | None) -> tuple[str, str] | None:
    """Cards that answer, but not with the result stated: they cannot all
    beat (R13), or none of them is a sacrifice (R12); None when either
    result was allowed."""
    if beats is True:
        return (
            f"answer {text} cannot beat every card of {attack} in any order: at least one must be a "
            f'sacrifice, and the trick goes to the attacker (say "answer {text} sacrifice")'
        ), "R13"
    if beats is False:
        return (
            f"answer {text} beats every card of {attack} whatever the order: a sacrifice must be a card "
            f'that does not beat (say "answer {text} beat")'
        ), "R12"
    return None


def _sacrifice_not_lowest(text: str, attack: str, own: Hand, cards: Hand, n: int) -> tuple[str, str]:
    """Cards that do not answer: a card that does not beat is a sacrifice,
    and a sacrifice is the defender's lowest card at that moment (R12)."""
    if own[0] not in cards and n == 1:
        return (
            f"answer {text} does not beat {attack}, so it would be a sacrifice, and a sacrifice must be your "
            f"lowest card ({own[0]})"
        ), "R12"
    if own[0] not in cards:
        return (
            f"answer {text} cannot beat every card of {attack}, so one of its cards would be a sacrifice, "
            f"and a sacrifice must be your lowest card ({own[0]}), which this answer keeps"
        ), "R12"
    return (
        f"answer {text} to {attack}: in no order is every card that does not beat your lowest card at that moment"
    ), "R12"


@dataclass(frozen=True)
class PlayPosition:
    """A play-phase position with every card known.

    With a non-empty table, `hands[attacker]` no longer holds the table
    cards and the defender (1 - attacker) is to answer; otherwise the
    attacker is to attack."""

    hands: tuple[Hand, Hand]
    attacker: int
    table: Hand = ()
    rules: Ruleset = field(default=STANDARD, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hands", (hand(self.hands[0]), hand(self.hands[1])))
        object.__setattr__(self, "table", hand(self.table))
        validate_position(self)

    @property
    def defender(self) -> int:
        return 1 - self.attacker

    @property
    def to_move(self) -> int:
        return player_to_play(self.attacker, self.table)

    @property
    def is_showdown(self) -> bool:
        return not self.table and play_ends(self.hands)

    def moves(self) -> list[tuple[Hand, bool | None]]:
        """The legal moves here: attacks (beats None) or answers."""
        if self.table:
            return list(answers(self.table, self.hands[self.defender]))
        if self.is_showdown:
            return []
        return [(a, None) for a in attacks(self.hands[self.attacker])]

    def after(self, cards: Iterable[int], beats: bool | None = None) -> "PlayPosition":
        """The position after a move (no legality check beyond the hands)."""
        cards = hand(cards)
        hands = list(self.hands)
        if not self.table:
            hands[self.attacker] = remove(hands[self.attacker], cards)
            return PlayPosition((hands[0], hands[1]), self.attacker, cards, self.rules)
        hands[self.defender] = remove(hands[self.defender], cards)
        return PlayPosition((hands[0], hands[1]), next_attacker(self.defender, beats), (), self.rules)

    def to_dict(self) -> dict:
        return {
            "hands": [list(self.hands[0]), list(self.hands[1])],
            "attacker": self.attacker,
            "table": list(self.table),
        }

    def __str__(self) -> str:
        s = f"P0 [{format_cards(self.hands[0])}]  P1 [{format_cards(self.hands[1])}]  attacker P{self.attacker}"
        return s + (f"  table [{format_cards(self.table)}]" if self.table else "")


def validate_position(pos: PlayPosition) -> None:
    """Reject a position that cannot arise, naming the rule."""
    if pos.attacker not in (0, 1):
        raise PositionError(f"attacker must be 0 or 1, got {pos.attacker!r}")
    h0, h1 = len(pos.hands[0]), len(pos.hands[1])
    pos.rules.check_counts(("the hands and table hold", pos.hands[0] + pos.hands[1] + pos.table, ""))
    if not pos.table:
        if h0 != h1:
            raise PositionError(f"hands of {h0} and {h1} cards: in play both hands hold the same number", "R10")
        if h0 < 1:
            raise PositionError("hands are empty: play ends with one card each", "R16")
        return
    att, dfd = len(pos.hands[pos.attacker]), len(pos.hands[pos.defender])
    if att + len(pos.table) != dfd:
        raise PositionError(
            f"attacker holds {att} cards and table {len(pos.table)}, defender {dfd}: "
            "the attacker's hand plus the table must equal the defender's hand size",
            "R10",
        )
    before = hand(pos.hands[pos.attacker] + pos.table)
    if pos.table not in attacks(before):
        raise PositionError(
            f"table [{format_cards(pos.table)}] is not an attack the attacker could make from "
            f"[{format_cards(before)}] (single, set, or sequence of {MIN_SEQUENCE}+, "
            f"at most h-{KEPT_BY_ATTACKER} cards)",
            "R10-R11",
        )


def showdown(hands: tuple[Hand, Hand]) -> int:
    """R17: the lower last card wins the round; equal ranks draw.  Player 0's
    result."""
    a, b = hands[0][0], hands[1][0]
    return WIN if a < b else LOSS if a > b else DRAW


def next_attacker(answerer: int, beats: bool | None) -> int:
    """R13-R14: the defender wins the trick only if every answer card
    beats, and the trick's winner attacks next: the answering player when
    its answer beats, the attacker otherwise."""
    return answerer if beats else 1 - answerer


def player_to_play(attacker: int, table: Hand) -> int:
    """R10, R12: who moves in the play phase: the attacker, or the
    defender when an attack lies on the table to answer."""
    return 1 - attacker if table else attacker


def play_ends(hands: Sequence[Hand]) -> bool:
    """R16: play continues until both players hold one card (then the
    showdown, R17)."""
    return len(hands[0]) == 1 and len(hands[1]) == 1


def tie_winner(rules: Ruleset, arrow: str) -> int | None:
    """R17 under the `arrow` tie rule: equal last cards on a one-arrow space
    (`arrow`, R3: "p0" or "p1") give the round to the arrow's player; None
    when the round is drawn (the `redeal` rule, or a two-arrow space)."""
    return arrow_player(arrow) if rules.tie == Tie.ARROW else None


def round_winner(hands: tuple[Hand, Hand], rules: Ruleset, arrow: str) -> int | None:
    """R17: the player whose last card is lower wins the round; equal ranks
    draw (None) unless the tie rule gives them to the arrow (`tie_winner`)."""
    result = showdown(hands)
    return 0 if result == WIN else 1 if result == LOSS else tie_winner(rules, arrow)


def duel_attacker(card0: int, card1: int) -> int | None:
    """R9: the player whose duel card is higher attacks first; equal ranks
    are both discarded and the players duel again (None).  (R9 ruling: a
    player left with one card after a duel goes straight to the showdown,
    `goes_to_showdown`.)"""
    return 0 if card0 > card1 else 1 if card1 > card0 else None


def goes_to_showdown(hand_size: int) -> bool:
    """R9 ruling: one card each after the duel means no play phase."""
    return hand_size == 1


def play_value(pos: PlayPosition, utilities: Sequence[float] = DEFAULT_UTILITIES) -> float:
    """Player 0's utility under best play by both (exhaustive minimax).
    `utilities` gives player 0's worth of (win, drawn round, loss); player 1
    minimises it."""
    return utilities[1 - _outcome(pos.hands, pos.attacker, pos.table, tuple(utilities))]


def move_values(
    pos: PlayPosition, utilities: Sequence[float] = DEFAULT_UTILITIES
) -> list[tuple[Hand, bool | None, float]]:
    """Every legal move with player 0's utility after it under best play."""
    return [(cards, beats, play_value(pos.after(cards, beats), utilities)) for cards, beats in pos.moves()]


@lru_cache(maxsize=1_000_000)
def _outcome(hands: tuple[Hand, Hand], attacker: int, table: Hand, utilities: tuple) -> int:
    # Returns the outcome (1, 0, -1) for player 0 under minimax of utilities.
    if not table and play_ends(hands):
        return showdown(hands)
    worth = lambda o: utilities[1 - o]  # noqa: E731
    if not table:
        mover = attacker
        children = [_outcome(_take(hands, attacker, a), attacker, a, utilities) for a in attacks(hands[attacker])]
    else:
        mover = 1 - attacker
        children = [
            _outcome(_take(hands, mover, cards), next_attacker(mover, beats), (), utilities)
            for cards, beats in _answers(table, hands[mover])
        ]
    return max(children, key=worth) if mover == 0 else min(children, key=worth)


def _take(hands: tuple[Hand, Hand], player: int, cards: Hand) -> tuple[Hand, Hand]:
    h = list(hands)
    h[player] = remove(h[player], cards)
    return (h[0], h[1])
