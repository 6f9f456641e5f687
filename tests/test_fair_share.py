"""A fair share for each client of a shared server (issue 33: N3 and the
search queue): the share is keyed by the peer, which a client cannot choose
freely, not by the `Origin` header it can; and one client holds at most
half the places of the search queue."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from positions import PLAY_VIEW
from servers import peer_client, running_server
from test_protocol import FakeHint

from tacocat.protocol.session import EngineSession


def test_one_clients_flood_of_searches_leaves_the_others_a_place():
    fake = FakeHint(seconds=30)
    session = EngineSession(hint_fn=fake, max_searches=2, max_queue=4, shared=True)
    assert session.max_searches_per_client == 3
    jobs = [
        session.prepare({"cmd": "hint", "view": PLAY_VIEW, "token": f"flood {i}"}, "peer 10.0.0.9") for i in range(3)
    ]
    refused = session.prepare({"cmd": "hint", "view": PLAY_VIEW, "token": "flood 4"}, "peer 10.0.0.9")
    assert refused["error"]["code"] == "busy" and "the most one client may (3)" in refused["error"]["message"]
    other = session.prepare({"cmd": "hint", "view": PLAY_VIEW, "token": "mine"}, "peer 10.0.0.2")
    assert not isinstance(other, dict), other  # a place for someone else
    for job in [*jobs, other]:
        job.stop()
        threading.Thread(target=job.run).start()
    hello = session.handle({"cmd": "hello"})["result"]["limits"]
    assert hello["max_searches_per_client"] == 3


@pytest.mark.slow
def test_the_boards_origin_opens_no_second_quota_and_another_peer_still_plays():
    with running_server("--max-games", "8") as client:  # a peer's share: 4 games
        base = str(client.base_url)
        for _ in range(4):
            assert client.post("/v1/new_game", json={}).json()["ok"]
        for origin in (base, base.replace("127.0.0.1", "LOCALHOST")):
            r = client.post("/v1/new_game", json={}, headers={"Origin": origin})
            body = r.json()
            assert not body["ok"] and body["error"]["code"] in ("busy", "forbidden"), body
            assert body["error"]["code"] != "busy" or "one client" in body["error"]["message"], body
        other = peer_client(base)
        with other:
            assert other.post("/v1/new_game", json={}).json()["ok"]  # another peer has its own share


@pytest.mark.slow
def test_one_peers_flood_of_searches_leaves_another_peer_a_place_on_a_real_server():
    with running_server("--max-searches", "2", "--max-queue", "2", "--max-time-ms", "60000") as client:
        base = str(client.base_url)
        answers: list = []

        def search(c: httpx.Client, token: str, **budget) -> None:
            body = {"view": PLAY_VIEW, "method": "pimc", "token": token, **budget}
            answers.append((token, c.post("/v1/hint", json=body, timeout=120).json()))

        flood = [
            threading.Thread(target=search, args=(client, f"flood {i}"), kwargs={"time_ms": 60_000}) for i in range(4)
        ]
        for t in flood:
            t.start()
        time.sleep(1.0)
        busy = [a for who, a in answers if who.startswith("flood") and not a["ok"]]
        assert len(busy) == 2 and all(a["error"]["code"] == "busy" for a in busy), answers  # its share: 2 of 4
        other = peer_client(base, timeout=120)
        with other:
            victim = threading.Thread(target=search, args=(other, "victim"), kwargs={"iterations": 4})
            victim.start()
            time.sleep(0.5)
            client.post("/v1/stop", json={"tokens": [f"flood {i}" for i in range(4)]})
            victim.join(60)
            for t in flood:
                t.join(60)
        mine = [a for who, a in answers if who == "victim"]
        assert mine and mine[0]["ok"], answers  # queued in a place of its own, not busy
