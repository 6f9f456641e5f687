"""The fixed action-id encoding of the OpenSpiel games (no pyspiel needed).

Chance outcomes: a dealt or drawn card of rank r is chance outcome r - 1
(0..11; `max_chance_outcomes` is 12), drawn with probability
count/remaining of the cards nobody has been dealt (R6: a shuffled deck
dealt one card at a time).

Player actions: every action takes a multiset of cards from the actor's
hand (RULES §6).  Let R be the ranks the ruleset's deck holds (m of them),
H the largest hand a game can deal, and K the number of count vectors over R
with at most H cards (rank r at most min(count(r), H) times).  A multiset's
*index* is its count vector's place among those K in lexicographic order,
ascending per rank from the lowest (so the empty multiset is 0, then the
multisets ending in more of the highest rank...).  The ids are

    duel card r          i                        (i = r's place in R, 0..m-1)
    replace  M           m + index(M)             (R7/R8, M the discards)
    attack   M           m + K + index(M)         (R10)
    answer   (M, beats)  m + 2K + 2 index(M) + b  (R12-R13; b = 1 when every answer beats)

so `num_distinct_actions` is m + 4K; ids are the same in every state of a
game and the legal ids are listed ascending, as OpenSpiel asks."""

from __future__ import annotations

from tacocat.errors import TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand, counts
from tacocat.rules.events import Decision
from tacocat.rules.ruleset import Ruleset

CHANCE_OUTCOMES = 12


class ActionCodec:
    """Action <-> id for one ruleset and largest hand size (see the module doc)."""

    def __init__(self, rules: Ruleset, max_cards: int) -> None:
        self.ranks = [r for r in range(1, 13) if rules.count(r)]
        self.place = {r: i for i, r in enumerate(self.ranks)}
        self.max_cards = int(max_cards)
        caps = [min(rules.count(r), self.max_cards) for r in self.ranks]
        self.caps = caps
        m, h = len(self.ranks), self.max_cards
        # below[i][s]: count vectors over ranks i.. with at most s cards.
        below = [[0] * (h + 1) for _ in range(m + 1)]
        below[m] = [1] * (h + 1)
        for i in reversed(range(m)):
            for s in range(h + 1):
                below[i][s] = sum(below[i + 1][s - c] for c in range(min(caps[i], s) + 1))
        self._below = below
        self.multisets = below[0][h]
        self.m = m
        self.replace_base = m
        self.attack_base = m + self.multisets
        self.answer_base = m + 2 * self.multisets
        self.num_actions = m + 4 * self.multisets

    def index(self, cards: Hand) -> int:
        c = counts(cards)
        idx, s = 0, self.max_cards
        for i, r in enumerate(self.ranks):
            k = c[r]
            if k > self.caps[i] or k > s:
                raise TacocatError(
                    f"cards {list(cards)} do not fit the action encoding (at most {self.max_cards} cards)"
                )
            for j in range(k):
                idx += self._below[i + 1][s - j]
            s -= k
        if sum(c) != len(cards) or any(c[r] for r in range(1, 13) if r not in self.place):
            raise TacocatError(f"cards {list(cards)} hold a rank the deck does not have (R1)")
        return idx

    def cards(self, idx: int) -> Hand:
        if not 0 <= idx < self.multisets:
            raise TacocatError(f"multiset index {idx} outside 0..{self.multisets - 1}")
        out: list[int] = []
        s = self.max_cards
        for i, r in enumerate(self.ranks):
            k = 0
            while self._below[i + 1][s - k] <= idx:
                idx -= self._below[i + 1][s - k]
                k += 1
            out.extend([r] * k)
            s -= k
        return tuple(out)

    def encode(self, action: Action) -> int:
        if action.kind == Decision.DUEL:
            return self.place[action.cards[0]]
        if action.kind == Decision.REPLACE:
            return self.replace_base + self.index(action.cards)
        if action.kind == Decision.ATTACK:
            return self.attack_base + self.index(action.cards)
        if action.kind == Decision.ANSWER:
            return self.answer_base + 2 * self.index(action.cards) + (1 if action.beats else 0)
        raise TacocatError(f"action kind {action.kind!r} unknown")

    def decode(self, action_id: int) -> Action:
        a = int(action_id)
        if 0 <= a < self.m:
            return Action(Decision.DUEL, (self.ranks[a],))
        if self.replace_base <= a < self.attack_base:
            return Action(Decision.REPLACE, self.cards(a - self.replace_base))
        if self.attack_base <= a < self.answer_base:
            return Action(Decision.ATTACK, self.cards(a - self.attack_base))
        if self.answer_base <= a < self.num_actions:
            idx, beats = divmod(a - self.answer_base, 2)
            return Action(Decision.ANSWER, self.cards(idx), bool(beats))
        raise TacocatError(f"action id {a} outside 0..{self.num_actions - 1}")
