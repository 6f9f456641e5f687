"""The equilibrium bot (`pimc_eq`) keeps its solved endgame for the round;
asked at views out of game order (the whole-round exploitability scale asks
every information set of a round in turn) it must still answer each view
with one of that view's legal moves, never with a move of the node it
solved before (it once answered `answer 2 beat` at an attack).

It may reuse the kept
solve only at a node below the one it solved (the same round, the solved
node's public history and table leading to this one), never at another node
that happens to offer the same moves: a check by legality alone cannot tell
the two apart.
"""

from __future__ import annotations

import dataclasses

import pytest
from test_round_game import small

from tacocat.players.bots import make_bot
from tacocat.rules.events import DealEvent, PlayEvent
from tacocat.rules.views import View, build_view
from tacocat.search import equilibrium
from tacocat.search import round_exploitability as rx
from tacocat.search.round_game import RoundGame


@pytest.mark.slow
def test_one_bot_asked_at_every_information_set_of_a_round_answers_legally():
    game = RoundGame(small({1: 6, 2: 6}, 3, "p0"))  # hands of 3, ranks 1-2, R7 at the centre
    # bot_strategy raises on a choice outside the information set's legal actions
    _, counts = rx.bot_strategy(game, lambda: make_bot("pimc_eq", samples=10, seed=0))
    assert counts["views"] > 500


def _dealt(view: View) -> View:
    """`view` as a game shows it: its round's history starts with the deal."""
    return dataclasses.replace(view, history=(DealEvent(7, view.board.cat), *view.history))


# Player 1 attacked with a 4; player 0 holds 2 8 12 and a face-up 11.
SOLVED = _dealt(build_view(hand=(2, 8, 12), seen=[11], table=[4], opponent=2, attacker=1))


def _twelve_answered(attack: int) -> View:
    """Player 1 attacked with `attack` and player 0 answered it with the 12:
    player 0 holds 2 8 and attacks now, 4 11 12 face up either way."""
    history = [PlayEvent.attack(1, (attack,)), PlayEvent.answer(0, (12,), True)]
    return _dealt(build_view(hand=(2, 8), seen=[4, 11, 12], opponent=2, attacker=0, history=history))


BELOW = _twelve_answered(4)
"""Below SOLVED: its attack answered."""
ELSEWHERE = _twelve_answered(11)
"""Another node with the same cards face up and the same moves."""


@pytest.fixture
def solves(monkeypatch) -> list:
    """The endgames the bot solves, in order."""
    done: list = []
    solve = equilibrium.solve

    def counted(endgame, **kw):
        done.append(endgame)
        return solve(endgame, **kw)

    monkeypatch.setattr(equilibrium, "solve", counted)
    return done


def test_a_solve_kept_for_another_node_with_the_same_moves_is_not_reused(solves):
    fresh = make_bot("pimc_eq", samples=10, seed=0).strategy(ELSEWHERE)
    assert fresh is not None and {m.action for m in fresh} == set(ELSEWHERE.legal_actions())
    bot = make_bot("pimc_eq", samples=10, seed=0)
    bot.strategy(SOLVED)
    # Every move of the kept solve's node after "answer 12" is legal here too;
    # only the node's history (the attack was 11, not 4) tells them apart.
    assert {m.action for m in bot.strategy(BELOW)} == set(ELSEWHERE.legal_actions())
    assert len(solves) == 2  # ELSEWHERE fresh, then SOLVED; BELOW followed the kept solve
    assert bot.strategy(ELSEWHERE) == fresh
    assert len(solves) == 3


def test_a_view_typed_by_hand_has_no_deal_and_is_still_solved(solves):
    typed = build_view(hand=(2, 8, 12), seen=[11], table=[4], opponent=2, attacker=1)
    assert not typed.history  # no deal event: a user gives the table alone
    moves = make_bot("pimc_eq", samples=10, seed=0).strategy(typed)
    assert moves is not None and len(solves) == 1
    assert {m.action for m in moves} <= set(typed.legal_actions())
