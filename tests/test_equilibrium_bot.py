"""The equilibrium bot (`pimc_eq`) keeps its solved endgame for the round;
asked at views out of game order (the whole-round exploitability scale asks
every information set of a round in turn) it must still answer each view
with one of that view's legal moves, never with a move of the node it
solved before (it once answered `answer 2 beat` at an attack)."""

import pytest
from test_round_game import small

from tacocat.players.bots import make_bot
from tacocat.search import round_exploitability as rx
from tacocat.search.round_game import RoundGame


@pytest.mark.slow
def test_one_bot_asked_at_every_information_set_of_a_round_answers_legally():
    game = RoundGame(small({1: 6, 2: 6}, 3, "p0"))  # hands of 3, ranks 1-2, R7 at the centre
    # bot_strategy raises on a choice outside the information set's legal actions
    _, counts = rx.bot_strategy(game, lambda: make_bot("pimc_eq", samples=10, seed=0))
    assert counts["views"] > 500
