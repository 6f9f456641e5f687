"""The hint API: exact endgames against brute force, PIMC, duel and
replacement decisions, the JSON contract, budgets, stop/progress, errors,
game values."""

import itertools
import json
import threading

import numpy as np
import pytest
from positions import play_view

from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.game import DUEL, REPLACE, GameState
from tacocat.rules.play import PlayPosition, move_values
from tacocat.search.budget import Budget
from tacocat.search.decisions import solve_matrix_game
from tacocat.search.gamevalue import game_win, game_win_table, round_game_wins, round_utilities
from tacocat.search.hint import hint
from tacocat.search.pimc import PerfectSolver, pimc_play

SEEN = [2, 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8, 8, 9, 10, 10, 11, 11, 12, 12]  # 20 face-up cards


def brute_force(view, utilities):
    """Average over every card subset of the pool (not multisets): the
    definition of 'uniform over what the player cannot see'."""
    pool = view.unseen_pool
    totals = {}
    subsets = list(itertools.combinations(range(len(pool)), view.opponent_hand_size))
    for idx in subsets:
        opp = tuple(sorted(pool[i] for i in idx))
        hands = (view.hand, opp) if view.player == 0 else (opp, view.hand)
        pos = PlayPosition(hands, view.attacker, view.table)
        for cards, beats, v in move_values(pos, (1.0, 0.0, -1.0)):
            o = int(v) if view.player == 0 else -int(v)
            t = totals.setdefault((cards, beats), [0, 0, 0, 0.0])
            t[1 - o] += 1
            t[3] += utilities[1 - o]
    n = len(subsets)
    return {k: (w / n, d / n, l / n, u / n) for k, (w, d, l, u) in totals.items()}


@pytest.mark.parametrize("player, attacker, table", [(0, 0, ()), (1, 1, ()), (1, 0, (11,)), (0, 1, (8,))])
def test_exact_mode_equals_brute_force(player, attacker, table):
    # attacking: 3 cards each; defending: the attacker holds 3 - |table|
    mine, opp = [1, 5, 9], (3 if not table else 3 - len(table))
    v = play_view(mine, SEEN, opp, attacker=attacker, table=table, player=player)
    util = round_utilities(v.board, player, v.rules, "game")
    res = hint(v, method="exact")
    assert res.method == "exact" and res.exact and res.to_dict()["exact"] is True
    want = brute_force(v, util)
    assert len(res.moves) == len(want)
    for m in res.moves:
        key = (m.action.cards, m.action.beats if m.action.kind == "answer" else None)
        w, d, l, u = want[key]
        assert (m.win, m.draw, m.loss) == pytest.approx((w, d, l), abs=1e-12)
        assert m.value == pytest.approx(u, abs=1e-12)
    assert list(res.moves) == sorted(res.moves, key=lambda m: -m.value)


def test_auto_is_exact_when_the_enumeration_fits_and_pimc_otherwise():
    # 3 cards a hand or fewer: the hidden-hand equilibrium (issue 11); 4+: the enumeration when it fits
    assert hint(play_view([1, 5, 9], SEEN, 3)).method == "equilibrium"
    small = play_view([1, 5, 9, 10], SEEN, 4)
    assert hint(small).method == "exact"
    big = play_view([1, 4, 7, 9, 12], [], 5)
    r = hint(big, Budget(samples=30, seed=2))
    assert r.method == "pimc" and not r.exact and r.samples == 30
    assert all(m.stderr is not None for m in r.moves)


def test_contract_of_to_dict():
    v = play_view([1, 4, 7, 9, 12], [], 5)
    d = hint(v, Budget(samples=20, seed=1)).to_dict()
    json.dumps(d)
    assert d["method"] == "pimc" and d["exact"] is False and d["samples"] == 20
    assert d["decision"] == "attack" and isinstance(d["seconds"], float)
    assert d["best"] == d["moves"][0]
    legal = {tuple(a.cards) for a in v.legal_actions()}
    assert {tuple(m["cards"]) for m in d["moves"]} == legal
    for m in d["moves"]:
        assert set(m) >= {"kind", "cards", "win", "draw", "loss", "value", "stderr", "game_win"}
        assert "beats" not in m
        assert m["win"] + m["draw"] + m["loss"] == pytest.approx(1.0)
        assert 0.0 <= m["game_win"] <= 1.0
    values = [m["value"] for m in d["moves"]]
    assert values == sorted(values, reverse=True)
    ans = hint(play_view([2, 3, 8, 10], [5, 6], 3, attacker=0, table=[11], player=1)).to_dict()
    assert ans["decision"] == "answer" and all(isinstance(m["beats"], bool) for m in ans["moves"])


def test_ismcts_hint_reports_iterations_and_is_seeded():
    v = play_view([1, 4, 7, 9, 12], [], 5)
    a = hint(v, Budget(samples=3000, seed=4), method="ismcts").to_dict()
    b = hint(v, Budget(samples=3000, seed=4), method="ismcts").to_dict()
    assert a["method"] == "ismcts" and a["iterations"] == 3000
    assert [m["cards"] for m in a["moves"]] == [m["cards"] for m in b["moves"]]
    assert [m["value"] for m in a["moves"]] == [m["value"] for m in b["moves"]]


def test_game_win_follows_from_the_round_odds():
    board = Board(cat=4, covered=frozenset({3}))
    v = play_view([1, 5, 9], SEEN, 3, board={"cat": 4, "covered": [3]})
    r = hint(v)
    gw = round_game_wins(board, 0)
    for m in r.moves:
        assert m.game_win == pytest.approx(m.win * gw[0] + m.draw * gw[1] + m.loss * gw[2])
        assert m.value == pytest.approx(2 * m.game_win - 1)
    assert hint(v, utilities="round").moves[0].value <= 1.0


def test_pimc_is_reproducible_and_reuses_one_solver():
    v = play_view([1, 4, 7, 9, 12, 12], [], 6)
    solver = PerfectSolver()
    a = pimc_play(v, Budget(samples=25, seed=9), solver=solver)
    b = pimc_play(v, Budget(samples=25, seed=9), solver=solver)
    assert [(m.action, m.value) for m in a.moves] == [(m.action, m.value) for m in b.moves]
    assert a.worlds == 25


def test_stop_and_progress():
    v = play_view([1, 4, 7, 9, 12, 12], [], 6)
    stop = threading.Event()
    stop.set()
    r = hint(v, Budget(samples=10_000, stop=stop), method="pimc")
    assert r.samples >= 1 and r.samples < 10_000 and r.to_dict()["stopped"]
    seen = []
    hint(v, Budget(samples=200, progress=seen.append), method="pimc")
    assert seen and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    r = hint(v, Budget(time_ms=10_000, stop=stop), method="ismcts")
    assert r.iterations >= 1 and r.to_dict()["stopped"]  # the stop, not the 10 s budget, ended it


def test_duel_hint_has_a_mixed_strategy():
    state = GameState.new(seed=5)
    for p in (0, 1):
        state.apply(p, Action("replace", ()))
    v = state.view(0)
    assert v.decision == DUEL
    r = hint(v, Budget(samples=6, seed=1))
    d = r.to_dict()
    assert d["decision"] == "duel" and "mixed" in d
    assert sum(m["probability"] for m in d["mixed"]) == pytest.approx(1.0)
    assert {m["cards"][0] for m in d["mixed"]} == set(v.hand)
    json.dumps(d)


def test_replace_hint_ranks_legal_discards():
    state = GameState.new(seed=6)
    v = state.view(0)
    assert v.decision == REPLACE
    r = hint(v, Budget(samples=60, seed=1))
    legal = set(v.legal_actions())
    assert r.decision == "replace" and r.moves and all(m.action in legal for m in r.moves)
    assert r.method == "pimc" and not r.exact


def test_matrix_games():
    x, y, v = solve_matrix_game([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert v == pytest.approx(0) and x == pytest.approx([1 / 3] * 3) and y == pytest.approx([1 / 3] * 3)
    x, y, v = solve_matrix_game([[1, -1], [-1, 1]])
    assert x == pytest.approx([0.5, 0.5]) and v == pytest.approx(0)
    x, y, v = solve_matrix_game([[3, 2], [1, 0]])  # saddle point, row 0 dominates
    assert x == pytest.approx([1, 0]) and y == pytest.approx([0, 1]) and v == pytest.approx(2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        a = rng.uniform(-1, 1, size=(rng.integers(1, 7), rng.integers(1, 7)))
        x, y, v = solve_matrix_game(a)
        assert x.min() >= -1e-9 and y.min() >= -1e-9
        assert (x @ a).min() >= v - 1e-9 and (a @ y).max() <= v + 1e-9


def test_game_values():
    t = game_win_table()
    assert t[Board()] == pytest.approx(0.5, abs=0.05)
    assert game_win(Board(cat=-1, covered=frozenset({0})), 0) == 1.0
    assert game_win(Board(cat=0, covered=frozenset({1, 2, 3})), 0) > game_win(Board(cat=3), 0)
    for b, g in t.items():
        assert 0 <= g <= 1
        assert game_win(b, 1) == pytest.approx(1 - g)
    w, d, l = round_utilities(Board(), 0)
    assert w > d > l


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"method": "magic"}, "method"),
        ({"samples": 0}, "iterations"),
        ({"time_ms": -5}, "time_ms"),
        ({"seed": "x"}, "seed"),
    ],
)
def test_bad_input(kwargs, fragment):
    v = play_view([1, 5, 9], SEEN, 3)
    with pytest.raises(TacocatError, match=fragment):
        if "method" in kwargs:
            hint(v, **kwargs)
        else:
            hint(v, Budget(**kwargs))


def test_no_decision_is_an_error():
    v = play_view([1, 5, 9], SEEN, 3, attacker=1)
    assert v.decision is None
    with pytest.raises(PositionError, match="no decision"):
        hint(v)
    with pytest.raises(TacocatError):
        hint("not a view")


def test_second_replacer_respects_the_cap():
    state = GameState.new(seed=8, board=Board(cat=2))  # one arrow: player 1 replaces first (R3, R7)
    assert state.acting_players() == [1]
    first = sorted(state.hands[1])[:2]
    state.apply(1, Action("replace", tuple(first)))
    v = state.view(0)
    assert v.replace_cap == 2
    r = hint(v, Budget(samples=40, seed=2))
    assert r.moves and all(len(m.action.cards) <= 2 for m in r.moves)


def test_duel_on_a_small_space_is_exact():
    state = GameState.new(seed=9, board=Board(cat=0))  # 4 cards each
    state.apply(1, Action("replace", ()))
    state.apply(0, Action("replace", ()))
    v = state.view(0)
    assert v.decision == DUEL
    r = hint(v, method="exact")
    assert r.exact and r.method == "exact"
    assert sum(m.probability for m in r.mixed) == pytest.approx(1.0)
    assert r.moves[0].value >= r.moves[-1].value


def test_a_stopped_enumeration_is_not_called_exact_and_says_how_many_hands():
    from tacocat.search.pimc import MIN_SAMPLES

    v = play_view([4, 9, 11], [], 2, attacker=0, table=(7,), player=1)
    stop = threading.Event()
    stop.set()
    d = hint(v, Budget(stop=stop, seed=3), method="exact").to_dict()
    # never a ranking from one hand: a stop ends the enumeration after MIN_SAMPLES hands
    assert (d["method"], d["exact"], d["samples"], d["stopped"]) == ("exact", False, MIN_SAMPLES, True)
    full = hint(v, method="exact").to_dict()
    assert full["exact"] is True and "samples" not in full and full["worlds"] > MIN_SAMPLES
    # The hands averaged come from a seeded shuffle of the hands, so the
    # partial answer is reproducible.
    assert hint(v, Budget(stop=stop, seed=3), method="exact").to_dict()["moves"] == d["moves"]


@pytest.mark.parametrize("tie", ["redeal", "arrow"])
def test_round_units_score_a_tied_showdown_as_the_round_it_is(tie):
    # R17: under tie=arrow a tie on a one-arrow space is the arrow's player's
    # round (it was scored 0, a drawn round, by --score round); elsewhere a
    # drawn round.  The board each outcome leads to says which.
    from tacocat.rules.ruleset import Ruleset
    from tacocat.search.gamevalue import outcome_boards

    rules = Ruleset.from_dict({"tie": tie})
    for cat in range(7):
        board = Board(cat=cat)
        for player in (0, 1):
            win_board, draw_board, loss_board = outcome_boards(board, player, rules)
            expected = 1.0 if draw_board == win_board else -1.0 if draw_board == loss_board else 0.0
            assert round_utilities(board, player, rules, "round") == (1.0, expected, -1.0)
            if tie == "redeal" or rules.arrows[cat] == "both":
                assert expected == 0.0
