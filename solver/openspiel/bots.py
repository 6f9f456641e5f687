"""Every bot of `tacocat.players.bots.BOTS`, at any budget, as a
`pyspiel.Bot` for OpenSpiel's evaluation loops (`pyspiel.evaluate_bots`,
`open_spiel.python.algorithms.evaluate_bots`) on `tacocat`, `tacocat_turn`
and `tacocat_play`.  The bot reads only its player's `View` (the oracle, a
measuring stick, reads the whole state as it does in `play_game`)."""

from __future__ import annotations

import random

import pyspiel

from tacocat.players.bots import choose, make_bot


class TacocatBot(pyspiel.Bot):
    """Our bot `name` with `budget` (`tacocat.players.bots.BUDGET_KEYS`)
    playing seat `player_id`; its choices come from `random.Random(seed)`."""

    def __init__(self, game, player_id: int, name: str = "pimc", seed: int = 0, **budget) -> None:
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player_id = int(player_id)
        self.name = name
        self.bot = make_bot(name, **budget)
        self.seed = seed
        self.rng = random.Random(f"{seed}/openspiel/{player_id}")

    def restart_at(self, state) -> None:
        self.rng = random.Random(f"{self.seed}/openspiel/{self.player_id}")

    def inform_action(self, state, player_id, action) -> None:
        pass

    def step(self, state) -> int:
        """The action id of our bot's choice for its seat at `state` (a
        decision of its player, sequential or simultaneous)."""
        gs = state.game_state()
        action = choose(self.bot, gs, self.player_id, self.rng)
        return state.g.codec.encode(action)


def make_openspiel_bot(game, player_id: int, name: str = "pimc", seed: int = 0, **budget) -> TacocatBot:
    """`TacocatBot(game, player_id, name, seed, **budget)`."""
    return TacocatBot(game, player_id, name, seed, **budget)
