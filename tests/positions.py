"""Views the tests share, so that a change to a view's shape is made once:
one six-card hand in a request's JSON form from either seat (tests pass
them as they are and never change them in place), and `play_view`, a
play-phase `View` from a few numbers, and `first_view`, a seeded game's
first decision of a kind."""

from __future__ import annotations

import random

from tacocat.players.bots import HeuristicBot
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.rules.views import View

PLAY_VIEW = {
    "player": 1,
    "hand": [2, 4, 6, 9, 11, 12],
    "seen": [1, 3],
    "opponent_hand_size": 5,
    "attacker": 0,
    "table": [8],
}
"""Player 1 must answer player 0's 8 with six cards: a decision with many
answers, for a hint or a search to work on."""

OPENING_VIEW = {**PLAY_VIEW, "player": 0, "opponent_hand_size": 6, "table": []}
"""The same hand held by player 0, who attacks first with six cards each: a search that takes as long
as it is given, for tests that stop one or cap its time."""


def play_view(hand, seen, opp, attacker=0, table=(), player=0, **extra) -> View:
    """A play-phase view from its wire keys, read as a request's view is
    (`View.from_dict`: strict, none of `build_view`'s leniency); `extra`
    adds keys such as a board."""
    return View.from_dict(
        {
            "player": player,
            "hand": list(hand),
            "seen": list(seen),
            "opponent_hand_size": opp,
            "attacker": attacker,
            "table": list(table),
            **extra,
        }
    )


REPLACE_FLAGS = ["--phase", "replace", "--board", "cat=2 covered=3", "--hand", "1 3 4 4 8 10 11 12 12"]
"""`tacocat hint` flags for a replacement of nine cards, the cat on space 2
and space 3 covered: many candidate discards (give --cap and --seen)."""


def first_view(kind: str, seed: int, rules=STANDARD) -> View:
    """The first `kind` decision of a seeded game between heuristic bots."""
    state = GameState.new(rules, seed)
    bot, rng = HeuristicBot(), random.Random(seed)
    while not state.over:
        for p in state.acting_players():
            view = state.view(p)
            if view.decision == kind:
                return view
            state.apply(p, bot.choose(view, rng))
    raise AssertionError(f"no {kind} decision in game {seed}")
