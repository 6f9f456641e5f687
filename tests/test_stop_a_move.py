"""A bot's budget given per call, with its stop: `bot.choose(view, rng,
budget)` ends at the stop with its best move so far, and `stop` on a
running `move` ends it (it used to answer `stopped: 1` while the bot ran
its whole budget: a 4,000 ms move stopped at 0.3 s answered at 4.01 s;
and a move with a count budget ran past the server's cap for good).

The bounds below are not timings of the engine's speed: each search would
run for seconds to hours unstopped, so an answer well inside that shows
the stop reached it."""

from __future__ import annotations

import random
import threading
import time

import pytest
from positions import PLAY_VIEW
from servers import running_server, to_play_phase
from test_engine_cli import EngineProcess

from tacocat.players.bots import make_bot
from tacocat.rules.views import View
from tacocat.search.budget import Budget, clock_named

STOPPED_WITHIN_S = 2.0
"""An answer this soon after the stop (the budgets are 4 s to hours)."""


@pytest.mark.parametrize("name", ["pimc", "ismcts", "pimc_eq", "pimc_classic"])
def test_a_set_stop_ends_a_bots_choice_with_a_legal_move(name):
    view = View.from_dict(PLAY_VIEW)
    bot = make_bot(name, time_ms=60_000, samples=10**9, iterations=10**9, seed=1)
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    t0 = time.perf_counter()
    action = bot.choose(view, random.Random(0), Budget(stop=stop))
    assert time.perf_counter() - t0 < STOPPED_WITHIN_S
    assert action in view.legal_actions()


def test_a_calls_budget_replaces_the_bots_own_and_none_leaves_it():
    bot = make_bot("pimc", samples=40, time_ms=500, clock="cpu")
    own = bot.call_budget(None)
    assert (own.samples, own.time_ms, own.clock.name) == (40, 500, "cpu")
    call = bot.call_budget(Budget(samples=7, time_ms=30))
    assert (call.samples, call.time_ms, call.clock.name) == (7, 30, "wall")
    stop = threading.Event()
    kept = bot.call_budget(Budget(stop=stop))  # a stop alone keeps the bot's count, time and clock
    assert (kept.samples, kept.time_ms, kept.clock, kept.stop) == (40, 500, clock_named("cpu"), stop)


def test_a_count_budget_plays_the_same_with_an_unset_stop():
    """A server hands every move its stop; a level (a count budget) must
    play as it did without one (results/levels.md)."""
    from tacocat.protocol.moves import LEVELS
    from tacocat.rules.game import GameState
    from tacocat.rules.ruleset import STANDARD

    name, budget = LEVELS[4]
    state = GameState.new(STANDARD, 3)
    for step in range(40):
        if state.over:
            break
        for p in state.acting_players():
            view = state.view(p)
            plain = make_bot(name, **budget).choose(view, random.Random(step))
            stoppable = make_bot(name, **budget).choose(view, random.Random(step), Budget(stop=threading.Event()))
            assert plain == stoppable
            state.apply(p, plain)


@pytest.mark.parametrize(
    "budget",
    [{"time_ms": 4000}, {"iterations": 10**9}, {"bot": "ismcts", "iterations": 10**9}],
    ids=["time", "count", "ismcts-count"],
)
def test_stop_ends_a_running_move_over_json_lines(budget):
    engine = EngineProcess()  # the default cap is a minute: only the stop ends it this soon
    try:
        opened = engine.result("new_game", seed=11)
        game, seats = opened["game"], opened["tokens"]["seats"]
        player = to_play_phase(engine.result, game, seats)
        rid = engine.send("move", game=game, player=player, token=seats[player], apply=False, **budget)
        time.sleep(0.3)
        assert engine.ask("stop")["result"]["stopped"] == 1
        t0 = time.monotonic()
        answer = engine.wait(rid, timeout=60)
        assert time.monotonic() - t0 < STOPPED_WITHIN_S, answer
        assert answer["ok"] and answer["stopped"] is True, answer
        legal = engine.result("legal", game=game, player=player, token=seats[player])["actions"]
        assert answer["result"]["action"] in legal
        assert engine.quit() == 0
    finally:
        engine.kill()


@pytest.mark.slow
def test_stop_ends_a_running_move_over_http():
    with running_server("--max-time-ms", "3600000") as client:

        def result(cmd, **fields):
            body = client.post(f"/v1/{cmd}", json=fields).json()
            assert body["ok"], body
            return body["result"]

        opened = result("new_game", seed=11)
        game, seats = opened["game"], opened["tokens"]["seats"]
        player = to_play_phase(result, game, seats)
        out: dict = {}

        def move() -> None:
            out["body"] = client.post(
                "/v1/move",
                json={"id": "m", "game": game, "player": player, "token": seats[player], "iterations": 10**9},
            ).json()

        t = threading.Thread(target=move)
        t.start()
        time.sleep(0.3)
        assert result("stop", target="m", token=seats[player])["stopped"] == 1
        t0 = time.monotonic()
        t.join(60)
        assert not t.is_alive() and time.monotonic() - t0 < STOPPED_WITHIN_S
        assert out["body"]["ok"] and out["body"]["stopped"] is True, out["body"]
