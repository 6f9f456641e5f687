"""Duplicate matches and the search bots."""

import json

import pytest

from tacocat.errors import TacocatError
from tacocat.players.bots import BOTS, OracleBot, SearchBot, make_bot, play_game
from tacocat.players.match import run_match


def test_play_mode_result_is_consistent_and_repeatable():
    a = run_match("heuristic", "random", deals=12, seed=3, mode="play")
    b = run_match("heuristic", "random", deals=12, seed=3, mode="play")
    assert a.to_dict()["score"] == b.to_dict()["score"] and a.ci95 == b.ci95
    assert a.wins + a.draws + a.losses == 24
    lo, hi = a.ci95
    assert -1 <= lo <= a.score <= hi <= 1
    d = a.to_dict()
    json.dumps(d)
    assert d["games"] == 24 and d["points"] == pytest.approx((a.score + 1) / 2)


def test_duplicate_cancels_the_cards():
    # a deterministic bot against itself: the seats swap, the deal stays, so
    # every deal scores exactly zero
    r = run_match("heuristic", "heuristic", deals=10, seed=1, mode="play")
    assert r.score == 0 and all(s == 0 for s in r.deal_scores)
    r = run_match("heuristic", "heuristic", deals=3, seed=1, mode="game")
    assert r.score == 0


def test_workers_do_not_change_the_numbers():
    one = run_match("heuristic", "random", deals=6, seed=5, mode="play", workers=1)
    two = run_match("heuristic", "random", deals=6, seed=5, mode="play", workers=2)
    assert one.deal_scores == two.deal_scores


def test_search_bots_play_both_modes():
    r = run_match("pimc", "ismcts", deals=2, seed=2, mode="play", budget={"samples": 8, "iterations": 800})
    assert r.wins + r.draws + r.losses == 4
    r = run_match(
        "pimc",
        "heuristic",
        deals=1,
        seed=2,
        mode="game",
        budget={"samples": 6, "replace_samples": 20, "duel_samples": 3, "candidates": 4},
    )
    assert r.wins + r.losses == 2


def test_oracle_sees_the_state():
    r = run_match("oracle", "heuristic", deals=3, seed=4, mode="play")
    assert r.wins + r.draws + r.losses == 6
    state = play_game((make_bot("oracle", replace_samples=10, candidates=3), make_bot("random")), seed=1)
    assert state.over
    with pytest.raises(TacocatError, match="whole game state"):
        OracleBot().choose(state.view(0), None)


def test_bots_by_name_with_budgets():
    assert {"random", "heuristic", "pimc", "ismcts", "oracle"} <= set(BOTS)
    bot = make_bot("pimc", samples=10, time_ms=50, seed=3)
    assert isinstance(bot, SearchBot) and bot.budget == 10 and bot.time_ms == 50
    assert make_bot("ismcts", iterations=500).budget == 500
    assert make_bot("heuristic", iterations=5).name == "heuristic"
    with pytest.raises(TacocatError, match="unknown budget"):
        make_bot("pimc", sample=10)
    with pytest.raises(TacocatError, match="unknown bot"):
        make_bot("grandmaster")


@pytest.mark.parametrize(
    "kwargs, fragment", [({"mode": "chess"}, "mode"), ({"deals": 0}, "deals"), ({"workers": 0}, "workers")]
)
def test_bad_match_arguments(kwargs, fragment):
    args = {"deals": 1}
    args.update(kwargs)
    with pytest.raises(TacocatError, match=fragment):
        run_match("heuristic", "random", **args)


def test_standings_average_each_bots_scores_from_its_own_side():
    from tacocat.players.match import standings

    rows = [{"a": "x", "b": "y", "score": 0.5}, {"a": "x", "b": "z", "score": -0.1}, {"a": "y", "b": "z", "score": 0.2}]
    got = standings(rows, ["x", "y", "z"])
    assert list(got) == ["x", "z", "y"]  # best first
    assert got["x"] == pytest.approx(0.2) and got["y"] == pytest.approx(-0.15) and got["z"] == pytest.approx(-0.05)
