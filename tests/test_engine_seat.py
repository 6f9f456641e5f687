"""The engine seat (new_game's `engine`): one bot for the seat, kept across
its turns, and one durable commit per `apply` holding the human's action
and the engine's reply (there used to be a new bot and table every engine
turn, and a commit for the action and another for each engine action)."""

from __future__ import annotations

import random

from positions import PLAY_VIEW

from tacocat.protocol.session import EngineSession
from tacocat.protocol.store import GameStore


def ok(r: dict) -> dict:
    assert r["ok"], r
    return r["result"]


def _play_as_the_human(session: EngineSession, level: int, seed: int, applies: int) -> tuple[str, list]:
    g = ok(session.handle({"cmd": "new_game", "seed": seed, "engine": {"seat": 0, "level": level}}))
    token, rng, results = g["tokens"]["seats"][1], random.Random(seed), []
    for _ in range(applies):
        legal = ok(session.handle({"cmd": "legal", "game": g["game"], "player": 1, "token": token}))["actions"]
        if not legal:
            break
        results.append(
            ok(
                session.handle(
                    {"cmd": "apply", "game": g["game"], "player": 1, "token": token, "action": rng.choice(legal)}
                )
            )
        )
    return g["game"], results


def test_an_apply_against_the_engine_is_one_commit(tmp_path, monkeypatch):
    store = GameStore(tmp_path / "games.sqlite3")
    session = EngineSession(store=store)
    saves: list[str] = []
    real = store.save
    monkeypatch.setattr(store, "save", lambda gid, *a, **k: saves.append(gid) or real(gid, *a, **k))
    gid, results = _play_as_the_human(session, level=2, seed=4, applies=12)
    engine_acted = [r for r in results if any(e.get("player") == 0 for e in r["events"])]
    assert engine_acted, "the engine replied within some applies"
    saves.clear()
    _, more = _play_as_the_human(session, level=2, seed=5, applies=8)
    # new_game's commit, the engine's opening one (both replace first, R8), then one per apply
    assert more and len(saves) == 2 + len(more)
    # and what was committed is what was answered: the store holds the game as the session does
    store.close()
    reopened = EngineSession(store=GameStore(tmp_path / "games.sqlite3"))
    assert reopened._games[gid].to_dict() == session._games[gid].to_dict()


def test_the_engine_seat_keeps_one_bot_across_its_turns(monkeypatch):
    import tacocat.players.bots as bots

    made: list[str] = []
    real = bots.make_bot
    monkeypatch.setattr(bots, "make_bot", lambda name, **budget: made.append(name) or real(name, **budget))
    session = EngineSession()
    gid, results = _play_as_the_human(session, level=3, seed=2, applies=15)
    engine_actions = sum(1 for a in session._games[gid].actions if a["player"] == 0)
    assert engine_actions >= 3 and made == ["pimc"]
    session._forget(gid)
    assert gid not in session._engine_bots  # a forgotten game's bot goes with it


def test_the_engines_opening_secret_choice_is_kept():
    """Both replace first (R8, a centre board): the engine's replacement is
    secret, so it shows no event, and it must still be committed."""
    session = EngineSession()
    g = ok(session.handle({"cmd": "new_game", "seed": 5, "engine": {"seat": 0, "level": 2}}))
    assert g["events"] == [] and g["acting"] == [1]
    assert [a["player"] for a in session._games[g["game"]].actions] == [0]


def test_the_engines_reply_is_a_queued_search_busy_when_no_slot_is_free():
    """With its one slot taken, an apply against a searching engine answers
    busy and leaves the game as it was; a new game against it is not opened."""
    import threading

    session = EngineSession(max_searches=1, max_queue=0)
    g = ok(session.handle({"cmd": "new_game", "seed": 3, "engine": {"seat": 0, "level": 2}}))
    token = g["tokens"]["seats"][1]
    legal = ok(session.handle({"cmd": "legal", "game": g["game"], "player": 1, "token": token}))["actions"]
    before = session._games[g["game"]].to_dict()
    hold = session.prepare({"cmd": "hint", "view": PLAY_VIEW, "time_ms": 60_000, "method": "pimc", "token": "mine"})
    worker = threading.Thread(target=lambda: hold.run())
    worker.start()
    try:
        busy = session.handle({"cmd": "apply", "game": g["game"], "player": 1, "token": token, "action": legal[0]})
        assert busy["error"]["code"] == "busy", busy
        assert session._games[g["game"]].to_dict() == before
        games = len(session._games)
        busy = session.handle({"cmd": "new_game", "seed": 4, "engine": {"seat": 0, "level": 2}})
        assert busy["error"]["code"] == "busy" and len(session._games) == games
    finally:
        hold.stop()
        worker.join(30)
    assert ok(session.handle({"cmd": "apply", "game": g["game"], "player": 1, "token": token, "action": legal[0]}))


def test_over_json_lines_the_engines_long_reply_leaves_the_session_answering_and_stops():
    """N5: an engine seat's reply of 20 s used to keep hello and stop
    unanswered for 20 s; now it runs as a search: hello is answered at once
    and stop ends the reply with the engine's best move so far."""
    import time

    from test_engine_cli import EngineProcess

    engine = EngineProcess()
    try:
        rid = engine.send("new_game", seed=11, engine={"seat": 0, "bot": "pimc", "time_ms": 20_000})
        time.sleep(0.3)
        t0 = time.monotonic()
        assert engine.ask("hello", timeout=10)["ok"]
        assert time.monotonic() - t0 < 5  # answered while the engine thinks
        assert engine.ask("stop", timeout=10)["result"]["stopped"] == 1
        opened = engine.wait(rid, timeout=10)  # the reply ends at the stop, not after 20 s
        assert opened["ok"] and opened["result"]["engine"]["seat"] == 0, opened
        assert engine.quit() == 0
    finally:
        engine.kill()
