"""A fair share for each client of a shared server (issue 33: N3 and the
search queue): the share is keyed by the peer, which a client cannot choose
freely, not by the `Origin` header it can; and one client holds at most
half the places of the search queue."""

from __future__ import annotations

import threading

import httpx
import pytest
from positions import PLAY_VIEW
from servers import running_server
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
        other = httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=30)
        with other:
            assert other.post("/v1/new_game", json={}).json()["ok"]  # another peer has its own share
