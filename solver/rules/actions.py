"""Actions as small frozen value types with one text form and a JSON form.

An action is what one player does at one decision (RULES §6):
replace (discard cards, R7/R8), duel (one card, R9), attack (R10–R11),
answer (R12–R13: the cards removed and whether every answer beats).

The text form is the plain notation `tacocat play` accepts (README
"Notation"): the kind, then the cards — `replace 2 3`, `replace none`,
`duel 9`, `attack 4 5 6`, `answer 6 10 beat`, `answer 2 sacrifice`.
`str(action)` prints it and `Action.parse` reads it back; when reading, the
kind word may be left out at a known decision, and an answer's `beat` or
`sacrifice` may be left out when the cards allow only one of them."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from tacocat.errors import NotationError, RecordError
from tacocat.errors import shorten as _short
from tacocat.rules.cards import Hand, counts, format_cards, hand, parse_cards
from tacocat.rules.events import Decision, Phase
from tacocat.rules.play import answers, attacks

KINDS = tuple(d.value for d in Decision)
"""replace, duel, attack, answer: an action's kind is the decision it is taken at."""

_DECISIONS: dict[str, Decision] = {d.value: d for d in Decision}

KIND_WORDS: dict[str, Decision] = {
    **{d.value: d for d in Decision},
    "discard": Decision.REPLACE,
    "swap": Decision.REPLACE,
    "play": Decision.ATTACK,
    "defend": Decision.ANSWER,
}
"""Words accepted for each kind: its own word (the one printed) and a few others."""
BEAT_WORDS = {"beat": True, "beats": True, "win": True, "sacrifice": False, "sac": False, "lose": False}
NONE_WORDS = {"none", "nothing", "pass", "-", "keep"}

FORMS: dict[str, str] = {
    Decision.REPLACE: 'the cards to discard, e.g. "2 3" or "replace 2 3"; "none" keeps the whole hand',
    Decision.DUEL: 'one card, e.g. "9" or "duel 9"',
    Decision.ATTACK: 'a single, a set or a sequence, e.g. "9", "8 8", "4 5 6" or "attack 4 5 6"',
    Decision.ANSWER: (
        'one card per attack card, e.g. "10" or "answer 9 12"; add "beat" or "sacrifice" when both are possible'
    ),
}
"""What a move of each kind looks like, for error messages and prompts."""


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
        decision = _DECISIONS.get(self.kind)
        if decision is not None:
            object.__setattr__(self, "kind", decision)
        object.__setattr__(self, "cards", hand(self.cards))

    def __str__(self) -> str:
        """The plain notation, which `Action.parse` reads back to this action."""
        if self.kind == Decision.REPLACE and not self.cards:
            return "replace none"
        text = f"{self.kind} {format_cards(self.cards)}"
        if self.kind == Decision.ANSWER and self.beats is not None:
            text += " beat" if self.beats else " sacrifice"
        return text

    @classmethod
    def parse(cls, text: str, decision: str | None = None, legal: Sequence["Action"] | None = None) -> "Action":
        """An action from plain notation (see the module docstring).

        `decision` is the kind expected now (replace, duel, attack, answer);
        without it the text must name its kind, unless `legal` (the legal
        actions now) tells it.  A kind other than the decision is returned
        as written, so the game can name the mistake (R6 order of phases).
        With `legal`, an answer written without beat/sacrifice takes the one
        result its cards allow, and is an error (R13) when they allow both."""
        if not isinstance(text, str):
            raise NotationError(f"a move must be text in plain notation, got {text!r}")
        if decision is None and legal:
            decision = legal[0].kind
        tokens = [t for t in re.split(r"[\s,()\[\]]+", text.strip().lower()) if t]
        kind = _move_kind(text, tokens, decision)
        beats, none, cards = _move_words(tokens, kind)
        _check_move_shape(text, kind, cards, beats, none)
        if kind == Decision.ANSWER and beats is None and legal:
            return _answer_of(cards, legal) or cls(kind, cards, beats)
        return cls(kind, cards, beats)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "cards": list(self.cards)}
        if self.kind == Decision.ANSWER:
            d["beats"] = bool(self.beats)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Action":
        if not isinstance(data, Mapping):
            raise RecordError(f"an action must be an object with kind and cards, got {_short(data)}")
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in KINDS:
            raise RecordError(f"action kind {_short(kind)} unknown; expected one of {', '.join(KINDS)}")
        if "cards" not in data:
            raise RecordError("action is missing 'cards'")
        cards = parse_cards(data["cards"], f"{kind} cards")
        return cls(kind, cards, _beats_of(kind, data.get("beats")))


def _beats_of(kind: str, beats: Any) -> bool | None:
    """An action's `beats` field read (never dropped unread): an answer's
    true or false, or left out (R13); any other kind has none."""
    if kind != Decision.ANSWER:
        if beats is not None:
            raise RecordError(f"'beats' is an answer's (R13); a {kind} has none, got {_short(beats)}")
        return None
    if beats is not None and not isinstance(beats, bool):
        raise RecordError(f"answer 'beats' must be true or false, got {_short(beats)}")
    return beats


def _move_kind(text: str, tokens: list[str], decision: str | None) -> str:
    """The kind a move names as its first word (taken off `tokens`), else
    the decision expected now."""
    if not tokens:
        raise NotationError(f"no move given; expected {FORMS.get(decision or '', _ANY)}")
    kind = decision
    if tokens[0] in KIND_WORDS:
        kind = KIND_WORDS[tokens.pop(0)]
    if kind not in KINDS:
        raise NotationError(f"{text.strip()!r}: say what kind of move it is; expected {_ANY}")
    return kind


def _move_words(tokens: list[str], kind: str) -> tuple[bool | None, bool, Hand]:
    """A move's words after its kind: beat/sacrifice, none, and the cards."""
    beats: bool | None = None
    cards_tokens = []
    none = False
    for t in tokens:
        if t in BEAT_WORDS:
            beats = BEAT_WORDS[t]
        elif t in NONE_WORDS:
            none = True
        else:
            cards_tokens.append(t)
    try:
        cards = parse_cards(" ".join(cards_tokens), f"{kind} cards")
    except NotationError as exc:
        raise NotationError(f"{exc.message}; {_a(kind)} is {FORMS[kind]}", exc.rule) from None
    return beats, none, cards


def _check_move_shape(text: str, kind: str, cards: Hand, beats: bool | None, none: bool) -> None:
    """Only a replace may take no cards (R7), and only an answer beats or
    sacrifices (R13)."""
    if none and cards:
        raise NotationError(f"{text.strip()!r}: 'none' and cards together; expected {FORMS[kind]}")
    if not cards and kind != Decision.REPLACE:
        raise NotationError(f"{_a(kind)} needs cards: {FORMS[kind]}")
    if beats is not None and kind != Decision.ANSWER:
        raise NotationError(f"'beat'/'sacrifice' only qualify an answer, not {_a(kind)}")


def _answer_of(cards: Hand, legal: Sequence[Action]) -> Action | None:
    """The legal answer with these cards when it has one result (R13); an
    error when they may beat or sacrifice; None when no answer has them."""
    fits = [a for a in legal if a.kind == Decision.ANSWER and a.cards == cards]
    if len(fits) == 2:
        raise NotationError(
            f"answer {format_cards(cards)} can beat every attack card or sacrifice one: "
            f'say which, e.g. "answer {format_cards(cards)} beat" or "answer {format_cards(cards)} sacrifice"',
            "R13",
        )
    return fits[0] if len(fits) == 1 else None


_ANY = 'a kind and cards, e.g. "attack 4 5 6", "answer 9 12 beat", "duel 9" or "replace none"'


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def sub_multisets(cards: Hand, max_size: int) -> list[Hand]:
    """Every distinct sub-multiset of `cards` with at most `max_size` cards."""
    c = counts(cards)
    ranks = [r for r in range(1, 13) if c[r]]
    out = []
    for picks in itertools.product(*(range(c[r] + 1) for r in ranks)):
        if sum(picks) <= max_size:
            out.append(tuple(r for r, k in zip(ranks, picks, strict=True) for _ in range(k)))
    return sorted(out, key=lambda h: (len(h), h))


def decision_of(player: int, acting: Sequence[int], phase: str, table: Hand) -> Decision | None:
    """The kind of action `player` takes now, or None (shared by the state
    and a player's view, which know the same public facts)."""
    if player not in acting:
        return None
    if phase == Phase.PLAY:
        return Decision.ANSWER if table else Decision.ATTACK
    return Decision(phase)


def legal_actions_of(kind: str | None, own: Hand, replace_cap: int | None, table: Hand) -> list[Action]:
    """Every legal action of kind `kind` from hand `own`, each distinct move
    once (RULES §6); all of it is known to the actor, so a view lists the
    same actions as the state."""
    if kind == Decision.REPLACE:
        cap = len(own) if replace_cap is None else replace_cap
        return [Action(Decision.REPLACE, c) for c in sub_multisets(own, cap)]
    if kind == Decision.DUEL:
        return [Action(Decision.DUEL, (r,)) for r in sorted(set(own))]
    if kind == Decision.ATTACK:
        return [Action(Decision.ATTACK, a) for a in attacks(own)]
    if kind == Decision.ANSWER:
        return [Action(Decision.ANSWER, c, b) for c, b in answers(table, own)]
    return []
