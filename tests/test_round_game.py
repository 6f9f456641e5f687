"""The whole round as an extensive-form game (issue 24, deliverable 3):
the tree agrees with `GameState`, CFR+ and the sequence-form LP agree on the
game value, the best response is exact, and OpenSpiel's independent tree
and best responses give the same value and exploitability.  Each check has
a planted change beside it that it must catch."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from tacocat.rules.ruleset import Ruleset
from tacocat.search import round_exploitability as rx
from tacocat.search.round_game import TERMINAL, RoundGame, events_of


def small(deck: dict[int, int], hand: int, centre: str) -> Ruleset:
    counts = tuple(deck.get(r, 0) for r in range(1, 13))
    return Ruleset(deck=counts, board=(hand,) * 7, arrows=("p1", "p1", "p1", centre, "p0", "p0", "p0"), name="t")


SMALLEST = small({1: 4, 2: 4}, 2, "p0")  # results/round_exploitability.py's h2-r2 (R7: player 0 first)
WITH_PLAY = small({1: 6, 2: 6}, 3, "both")  # h3-r2: R8, a duel, one trick of play


@pytest.fixture(scope="module")
def smallest() -> RoundGame:
    return RoundGame(SMALLEST)


@pytest.fixture(scope="module")
def smallest_solution(smallest):
    return rx.solve(smallest, iterations=400, target=2e-5)


def check_paths(game: RoundGame, paths: int, seed: int) -> int:
    """Random paths of the tree replayed in a real `GameState`: at every
    decision the same actor, the same legal actions (also from the View) and
    the same public history; at the end the same result of the round.
    Returns the number of decisions checked."""
    rng = random.Random(seed)
    checked = 0
    for _ in range(paths):
        path, result, decisions = game.random_path(rng)
        for at, key, legal in decisions:
            state = game.state_of(path[:at])
            player = key[0]
            assert player in state.acting_players()
            assert tuple(state.legal_actions(player)) == legal
            assert events_of(state.history) == key[3]
            assert tuple(state.view(player).legal_actions()) == legal
            assert key in game._index and game.iset_actions[game._index[key]] == legal
            checked += 1
        end = game.state_of(path)
        winner = end.rounds[0]["winner"]
        assert result == {0: 1.0, 1: -1.0, None: 0.0}[winner], (path, result, winner)
    return checked


def test_tree_follows_the_rules_of_gamestate(smallest):
    assert check_paths(smallest, 60, seed=1) > 100


@pytest.mark.slow
def test_tree_with_play_follows_gamestate():
    game = RoundGame(WITH_PLAY)
    assert game.counts()["infosets_p0"] == 2091  # hand 3, two ranks of six: sizes in results/round_exploitability.md
    assert check_paths(game, 80, seed=2) > 300
    # The play phase is reached (a duel, then an attack and an answer).
    kinds = {a.kind for acts in game.iset_actions for a in acts}
    assert kinds == {"replace", "duel", "attack", "answer"}


def test_tree_with_the_arrow_tie_follows_gamestate():
    """R17 under the arrow tie rule, the arrow p1's: the round's winner is
    GameState's on every path (a tree that gave the tie to the other
    player fails), and no round is scored drawn (under the redeal rule
    the same deal has drawn rounds)."""
    ruled = small({1: 4, 2: 4}, 2, "p1")
    game = RoundGame(dataclasses.replace(ruled, tie="arrow"))
    assert check_paths(game, 60, seed=3) > 100
    ends = game.utility[game.kind == TERMINAL]
    assert set(np.unique(ends)) == {-1.0, 1.0}
    redeal = RoundGame(ruled)
    assert 0.0 in set(np.unique(redeal.utility[redeal.kind == TERMINAL]))


def test_planted_change_to_the_game_is_caught(smallest, monkeypatch):
    """A tree whose showdown were wrong (the higher card winning) disagrees
    with GameState on some path."""
    right = RoundGame._showdown
    monkeypatch.setattr(RoundGame, "_showdown", lambda self, hands: -right(self, hands))
    bad = RoundGame(SMALLEST)
    with pytest.raises(AssertionError):
        check_paths(bad, 60, seed=1)


def test_probabilities_and_sizes(smallest):
    """Chance edges out of every chance node sum to 1; the utilities are the round's."""
    g = smallest
    chance = np.nonzero(g.kind == -1)[0]
    sums = np.bincount(g.edge_parent, weights=g.edge_prob * (g.edge_slot < 0), minlength=g.nodes)[chance]
    assert np.allclose(sums, 1.0)
    assert set(np.unique(g.utility[g.kind == TERMINAL])) <= {-1.0, 0.0, 1.0}
    assert g.counts() == {
        "nodes": 930,
        "terminals": 334,
        "chance_nodes": 156,
        "decision_nodes": 440,
        "infosets_p0": 74,
        "infosets_p1": 93,
        "slots": 265,
    }


def check_best_response(game: RoundGame, sigma: np.ndarray, player: int, br=rx.best_response, tries: int = 40) -> None:
    """The best response's value is what its strategy earns, and no pure
    strategy drawn at random earns more."""
    value, strategy = br(game, sigma, player)
    mine = game.iset_player_arr[game.slot_iset] == player
    mixed = np.where(mine, strategy, sigma)
    assert value == pytest.approx(rx.expected_value(game, mixed), abs=1e-9)
    sign = 1.0 if player == 0 else -1.0
    rng = np.random.default_rng(7)
    for _ in range(tries):
        pure = rx.normalise(game, rng.random(game.slots) ** 8)  # mostly near-pure, random strategies
        other = rx.expected_value(game, np.where(mine, pure, sigma))
        assert sign * other <= sign * value + 1e-9


def test_best_response_is_best(smallest, smallest_solution):
    for sigma in (rx.uniform(smallest), smallest_solution.strategy):
        for player in (0, 1):
            check_best_response(smallest, sigma, player)


def test_planted_change_to_the_best_response_is_caught(smallest):
    """A 'best response' that takes the worst action is caught."""

    def first_action(game, sigma, player):
        strategy = np.zeros(game.slots)
        strategy[np.asarray(game.iset_offset)] = 1.0
        mine = game.iset_player_arr[game.slot_iset] == player
        return rx.expected_value(game, np.where(mine, strategy, sigma)), strategy

    with pytest.raises(AssertionError):
        check_best_response(smallest, rx.uniform(smallest), 0, br=first_action)


def test_equilibrium_value_and_exploitability(smallest, smallest_solution):
    sol = smallest_solution
    assert sol.exploitability < 1e-4
    # Its exploitability bounds how far its value is from the game value (2/3 - 13/35 = 0.1857...).
    assert sol.value == pytest.approx(0.18571428571428572, abs=2 * sol.exploitability)
    g0, g1 = rx.seat_gaps(smallest, sol.strategy, 0.18571428571428572)
    assert (g0 + g1) / 2 == pytest.approx(sol.exploitability, abs=1e-12)
    assert rx.exploitability(smallest, rx.uniform(smallest)) > 0.3  # uniform play is far from it


@pytest.mark.slow
def test_cfr_and_lp_agree_on_the_smallest_round(smallest, smallest_solution):
    lp, _ = rx.lp_value(smallest)
    assert lp == pytest.approx(0.18571428571428572, abs=1e-9)
    assert abs(lp - smallest_solution.value) <= 2 * smallest_solution.exploitability


@pytest.mark.slow
def test_openspiel_evaluates_the_equilibrium_the_same(smallest, smallest_solution):
    pytest.importorskip("pyspiel")
    from tacocat.openspiel.round_check import openspiel_check

    sol = smallest_solution
    check = openspiel_check(smallest, sol.strategy)
    assert check["value"] == pytest.approx(sol.value, abs=1e-9)
    assert check["exploitability"] == pytest.approx(sol.exploitability, abs=1e-9)
    # A planted change to the game (a drawn round scored as player 0's win)
    # moves our value away from OpenSpiel's, which plays the real rules.
    planted = RoundGame(SMALLEST)
    planted.utility = np.where((planted.kind == TERMINAL) & (planted.utility == 0.0), 1.0, planted.utility)
    assert rx.expected_value(planted, sol.strategy) > check["value"] + 0.05


def test_bot_strategy_from_views(smallest):
    """The heuristic bot's strategy read from its views: pure, and
    exploitable (it never replaces); the random bot's is uniform."""
    from tacocat.players.bots import make_bot

    sigma, info = rx.bot_strategy(smallest, lambda: make_bot("heuristic"))
    assert info["views"] > 0
    assert set(np.unique(sigma[[len(a) > 1 for a in smallest.iset_actions for _ in a]])) <= {0.0, 1.0}
    assert rx.exploitability(smallest, sigma) == pytest.approx(0.1, abs=1e-12)
    uni, _ = rx.bot_strategy(smallest, lambda: make_bot("random"), exact_uniform=True)
    assert np.array_equal(uni, rx.uniform(smallest))
