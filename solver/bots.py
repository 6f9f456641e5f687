"""Bots that play whole games.  A bot sees only its player's `View` (its
information set) and a seeded `random.Random`; `BOTS` maps names to
factories so front doors can choose by name."""

from __future__ import annotations

import random
from typing import Callable, Protocol

from .actions import Action
from .game import DUEL, REPLACE, GameState, View
from .errors import TacocatError


class Bot(Protocol):
    name: str

    def choose(self, view: View, rng: random.Random) -> Action:
        """The action to take at `view`'s decision."""
        ...


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def choose(self, view: View, rng: random.Random) -> Action:
        return rng.choice(view.legal_actions())


class HeuristicBot:
    """Replace nothing, duel and attack with the highest card, answer with
    the cheapest answer that beats, else the cheapest sacrifice."""

    name = "heuristic"

    def choose(self, view: View, rng: random.Random) -> Action:
        kind = view.decision
        if kind == REPLACE:
            return Action("replace", ())
        if kind == DUEL:
            return Action("duel", (max(view.hand),))
        legal = view.legal_actions()
        if kind == "attack":
            return Action("attack", (max(view.hand),))
        beating = [a for a in legal if a.beats]
        pool = beating or legal
        return min(pool, key=lambda a: (sum(a.cards), a.cards))


BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str) -> Bot:
    """A bot by name; raises TacocatError naming the known bots."""
    try:
        return BOTS[name]()
    except KeyError:
        raise TacocatError(f"unknown bot {name!r}; expected one of {', '.join(sorted(BOTS))}") from None


def play_game(bots: tuple[Bot, Bot], seed: int, rules=None, max_actions: int = 10_000) -> GameState:
    """Play one whole game between `bots` (player 0, player 1) from `seed`.
    The deal and each bot's choices are reproducible from the seed."""
    from .rules import STANDARD

    state = GameState.new(rules or STANDARD, seed)
    rngs = [random.Random(f"{seed}/bot{p}") for p in (0, 1)]
    for _ in range(max_actions):
        if state.over:
            return state
        for player in state.acting_players():
            state.apply(player, bots[player].choose(state.view(player), rngs[player]))
    raise TacocatError(f"game from seed {seed} did not finish within {max_actions} actions")
