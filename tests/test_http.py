"""`tacocat serve` over a real loopback socket: the installed command runs in
a subprocess bound to 127.0.0.1 on a free port, driven with httpx."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from positions import OPENING_VIEW
from servers import CLIENT_TIMEOUT_S, running_server

from tacocat.protocol.commands import COMMANDS
from tacocat.protocol.wire import ERROR_CODES, PROTOCOL_VERSION
from tacocat.rules.game import GameRecord

MAX_BODY = 4096
MAX_TIME_MS = 3000


@pytest.fixture(scope="module")
def server():
    with running_server(
        "--max-time-ms", str(MAX_TIME_MS), "--max-body", str(MAX_BODY), "--max-searches", "3"
    ) as client:
        yield client


def call(client: httpx.Client, cmd: str, expect: int = 200, **fields) -> dict:
    r = client.post(f"/v1/{cmd}", json=fields)
    assert r.status_code == expect, (r.status_code, r.text)
    body = r.json()
    assert body["ok"] is (expect == 200)
    return body["result"] if expect == 200 else body["error"]


def test_hello_and_openapi(server):
    hello = server.get("/v1/hello").json()["result"]
    assert hello["protocol"] == PROTOCOL_VERSION
    assert hello["limits"]["max_time_ms"] == MAX_TIME_MS and hello["limits"]["max_body_bytes"] == MAX_BODY
    spec = server.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.") and spec["info"]["version"] == PROTOCOL_VERSION
    for name in COMMANDS:
        assert f"/v1/{name}" in spec["paths"]
    legal = spec["paths"]["/v1/legal"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(legal["required"]) == {"game", "player", "token"}


def test_errors_map_to_status_codes(server):
    from tacocat.protocol.http import HTTP_STATUS

    assert set(HTTP_STATUS) == set(ERROR_CODES)
    assert call(server, "castle", 404)["code"] == "unknown_command"
    assert call(server, "legal", 422, game="g-none")["code"] == "missing_field"
    assert call(server, "legal", 422, game="g-none", player=0)["code"] == "missing_field"
    assert call(server, "legal", 422, game="g-none", player=0, token="t")["code"] == "bad_field"
    game = call(server, "new_game", seed=1)
    assert call(server, "state", 403, game=game["game"], token=game["tokens"]["seats"][0])["code"] == "forbidden"
    as_json = {"content-type": "application/json"}  # any other Content-Type answers 415 (test_http_safety.py)
    r = server.post("/v1", content=b"{not json", headers=as_json)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    r = server.post("/v1/hello", content=b"[1, 2]", headers=as_json)
    assert r.status_code == 400
    r = server.post("/v1/new_game", json={"seed": 1, "pad": "x" * (2 * MAX_BODY)})
    assert r.status_code == 413 and r.json()["error"]["code"] == "bad_json"
    r = server.post("/v1/hello", json={"cmd": "games"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "cmd"
    view = {"player": 0, "hand": [1, 1, 5], "seen": [1], "opponent_hand_size": 3, "attacker": 0, "table": []}
    assert call(server, "hint", 422, view=view)["code"] == "impossible_position"
    # A shared server takes no set_rules (protocol 3.0); a bad ruleset in new_game is bad_ruleset.
    assert call(server, "set_rules", 403, rules={"deck": [1] * 12})["code"] == "forbidden"
    assert call(server, "new_game", 422, rules={"deck": [1] * 12})["code"] == "bad_ruleset"
    assert server.get("/v1/hello").status_code == 200  # still serving


def test_whole_game_over_http(server):
    opened = call(server, "new_game", seed=77)
    game, owner, seats = opened["game"], opened["tokens"]["owner"], opened["tokens"]["seats"]
    rng = random.Random(77)
    hinted = 0
    for _ in range(2000):
        status = next(g for g in call(server, "games", tokens=[owner])["games"] if g["game"] == game)
        if status["over"]:
            break
        for player in status["acting"]:
            legal = call(server, "legal", game=game, player=player, token=seats[player])
            action = rng.choice(legal["actions"])
            if legal["decision"] == "answer" and hinted < 3:
                hint = call(server, "hint", game=game, player=player, token=seats[player], iterations=8, time_ms=300)
                assert hint["moves"]
                hinted += 1
            if rng.random() < 0.1:  # this seat's token does not open the other seat
                wrong = server.post(
                    "/v1",
                    json={
                        "id": "w",
                        "cmd": "apply",
                        "game": game,
                        "player": 1 - player,
                        "token": seats[player],
                        "action": action,
                    },
                )
                assert wrong.status_code == 403 and wrong.json()["id"] == "w"
            if rng.random() < 0.1:  # the other seat, with its own token: refused, nothing changes
                other = server.post(
                    "/v1",
                    json={
                        "id": "o",
                        "cmd": "apply",
                        "game": game,
                        "player": 1 - player,
                        "token": seats[1 - player],
                        "action": action,
                    },
                )
                assert other.json()["id"] == "o"
                assert other.status_code in (200, 409)
                if other.status_code == 200:  # simultaneous decisions: the other seat could act too
                    break
            # The whole-request form (POST /v1) and the per-command form agree.
            r = server.post(
                "/v1",
                json={
                    "id": 9,
                    "cmd": "apply",
                    "game": game,
                    "player": player,
                    "token": seats[player],
                    "action": action,
                },
            )
            assert r.status_code == 200 and r.json()["id"] == 9, r.text
    assert status["over"] and status["winner"] in (0, 1)
    record = call(server, "record", game=game, token=owner)["record"]
    assert call(server, "record", game=game, token=seats[0])["record"] == record  # seats may read it once it is over
    state = call(server, "state", game=game, token=owner)["state"]
    assert GameRecord.from_dict(record).replay().to_dict() == state
    assert call(server, "end_game", 403, game=game, token=seats[1])["code"] == "forbidden"
    assert call(server, "end_game", game=game, token=owner)["ended"] is True


def test_hint_and_solve(server):
    view = {"player": 1, "hand": [4, 9], "seen": [], "opponent_hand_size": 1, "attacker": 0, "table": [7]}
    hint = call(server, "hint", view=view, time_ms=500)
    assert {m["kind"] for m in hint["moves"]} == {"answer"}
    assert "best" in hint
    position = {"hands": [[2, 5, 9], [3, 8, 11]], "attacker": 0, "table": []}
    solved = call(server, "solve", position=position)
    assert "value" in solved and solved["moves"]
    again = server.post("/v1", json={"cmd": "solve", "position": position}).json()["result"]
    assert again["value"] == solved["value"]
    bad = call(server, "solve", 422, position={"hands": [[1, 1, 1], [2, 3, 4]], "attacker": 0, "table": []})
    assert bad["code"] == "impossible_position"


def test_concurrent_requests_are_served_during_searches(server):
    games = [call(server, "new_game", seed=s) for s in range(4)]

    def long_hint(i: int) -> dict:
        # a minute's budget, cut to the server's cap; stopped below
        return server.post(
            "/v1/hint",
            json={
                "id": f"h{i}",
                "view": OPENING_VIEW,
                "time_ms": 60_000,
                "method": "pimc",
                "token": "this test's secret",
            },
        ).json()

    def quick(i: int) -> int:
        game = games[i % 4]
        return server.post(
            "/v1/legal", json={"game": game["game"], "player": i % 2, "token": game["tokens"]["seats"][i % 2]}
        ).status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        hints = [pool.submit(long_hint, i) for i in range(2)]
        deadline = time.monotonic() + CLIENT_TIMEOUT_S
        while server.get("/v1/hello").json()["result"]["running"]["searches"] < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        quicks = [pool.submit(quick, i) for i in range(40)]
        assert [f.result() for f in quicks] == [200] * 40
        # The quick requests did not wait for the searches: both still run.
        assert not any(h.done() for h in hints)
        assert server.get("/v1/hello").json()["result"]["running"]["searches"] == 2
        # A shared server: stop ends only the searches its token started (protocol 3.0).
        assert call(server, "stop")["stopped"] == 0
        assert call(server, "stop", token="this test's secret")["stopped"] == 2
        hint_results = [f.result() for f in hints]
    for body in hint_results:
        assert body["ok"] and body["stopped"] is True, body
        assert body["result"]["moves"]


@pytest.mark.slow
def test_stop_over_http_and_the_time_cap(server):
    out: dict = {}

    def long_hint() -> None:
        out["body"] = server.post(
            "/v1/hint",
            json={"id": "long", "view": OPENING_VIEW, "time_ms": 60_000, "method": "pimc", "token": "stop test"},
        ).json()

    t = threading.Thread(target=long_hint)
    t.start()
    time.sleep(0.5)
    stopped = call(server, "stop", target="long", token="stop test")
    t.join(CLIENT_TIMEOUT_S)
    assert not t.is_alive()
    assert stopped["stopped"] == 1
    assert out["body"]["ok"] and out["body"]["stopped"] is True
    # A budget over the cap is cut to the cap (3 s): a 60 s search would
    # outlast the client's 30 s timeout and raise instead of answering.
    body = server.post("/v1/hint", json={"view": OPENING_VIEW, "time_ms": 60_000, "method": "pimc"}).json()
    assert body["ok"] and body["result"]["moves"]


def test_quit_does_not_end_the_server(server):
    assert call(server, "quit")["bye"] is True
    assert server.get("/v1/hello").status_code == 200


def test_a_gone_client_frees_its_search():
    # No time cap and an hour's budget: only the disconnect can end this
    # search, so the slot coming free at all shows the server noticed.
    with running_server("--max-time-ms", "3600000") as client:
        with pytest.raises(httpx.TimeoutException):
            client.post("/v1/hint", json={"view": OPENING_VIEW, "time_ms": 3_600_000, "method": "pimc"}, timeout=0.5)
        deadline = time.monotonic() + CLIENT_TIMEOUT_S
        while client.get("/v1/hello").json()["result"]["running"]["searches"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.get("/v1/hello").json()["result"]["running"]["searches"] == 0
