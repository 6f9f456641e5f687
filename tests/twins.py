"""Twin games: two games that one seat cannot tell apart.

A seat knows its own hand, what was played face up and the sizes of the
rest (RULES section 5); the other seat's hand and the order of the draw
pile are hidden from it.  A twin of a game keeps everything the seat knows
and deals the hidden cards again: the other seat's hand and the draw pile
are a new split of the same unseen pool.  Whatever a door answers that
seat must then be the same in both games, byte for byte once the game ids,
tokens and timings are taken out (`normalized`).

One care: when the seat is about to replace, the cards it would draw are
the top of the pile (`draw_pile[-k:]`, R7); those stay where they are, so
that its own draws (which it will see) are equal in both games."""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

from tacocat.errors import TacocatError
from tacocat.rules.game import REPLACE, GameState
from tacocat.rules.ruleset import Ruleset, load_ruleset

RULESETS: tuple[Ruleset, ...] = (
    load_ruleset(None),
    # Two-arrow centre and arrows both ways: simultaneous replacement (R8) and a tie rule.
    Ruleset.from_dict({"board": [4, 5, 6, 5, 6, 5, 4], "tie": "arrow"}),
    # A small deck: few unseen hands, so the exact and equilibrium methods run.
    Ruleset.from_dict({"deck": [1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1], "board": [3, 4, 4, 3, 4, 4, 3]}),
)

TIMING_KEYS = frozenset({"seconds", "thinking_ms", "elapsed", "elapsed_ms", "nodes_per_second", "rate", "time_s"})
"""Keys whose values are clock readings: the only part of an answer that
may differ between twins (besides ids and tokens)."""


def twin_state(state: GameState, seat: int, rng: random.Random, tries: int = 40) -> GameState | None:
    """A game equal to `state` for `seat` whose other hand differs, or None
    when no other split of the unseen cards is a game (R1, R20 floors)."""
    other = 1 - seat
    doc = state.to_dict()
    pile = list(state.draw_pile)
    keep = len(state.hands[seat]) if state.decision(seat) == REPLACE else 0
    keep = min(keep, len(pile))
    top = pile[len(pile) - keep :]  # the seat's own next draws stay put
    free = list(state.hands[other]) + pile[: len(pile) - keep]
    n = len(state.hands[other])
    for _ in range(tries):
        rng.shuffle(free)
        hand = sorted(free[:n])
        if tuple(hand) == tuple(state.hands[other]):
            continue
        twin = json.loads(json.dumps(doc))
        twin["hands"][other] = hand
        twin["draw_pile"] = free[n:] + top
        try:
            return GameState.from_dict(twin)
        except TacocatError:
            continue  # that hand breaks what the seat saw (an R20 floor): deal again
    return None


def positions(seed: int, rules: Ruleset, count: int) -> Iterator[tuple[GameState, int]]:
    """`count` (state, seat) pairs from random games: at a random point of
    each, a seat that has a decision (searching with it is then possible)."""
    rng = random.Random(seed)
    made = 0
    game = 0
    while made < count:
        state = GameState.new(rules, seed * 1000 + game)
        game += 1
        stops = sorted(rng.sample(range(60), 3))
        step = 0
        while not state.over and made < count and stops:
            acting = state.acting_players()
            if step == stops[0]:
                stops.pop(0)
                seat = rng.choice(acting)
                yield state.clone(), seat
                made += 1
            for p in acting:
                state.apply(p, rng.choice(state.legal_actions(p)))
            step += 1


def normalized(answer: Any, names: dict[str, str]) -> str:
    """An answer as canonical JSON without clock readings, with every game id
    and token replaced by its role (`names`: real value -> role)."""

    def clean(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items() if k not in TIMING_KEYS}
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, str):
            for real, role in names.items():
                v = v.replace(real, role)
        return v

    return json.dumps(clean(answer), sort_keys=True)
