"""SIGTERM ends `tacocat serve` promptly whatever runs (issue 33): every
search is stopped first, so a long search (an hour's hint, a count budget
of a billion) answers its best so far and the server exits, where it used
to run on until SIGKILL."""

from __future__ import annotations

import signal
import tempfile
import threading
import time

import httpx
from positions import OPENING_VIEW
from servers import start_serve, stop

EXITS_WITHIN_S = 5.0
"""A generous bound on the exit (the grace is 1.5 s): the searches would run an hour."""


def test_sigterm_ends_the_server_during_an_hours_search():
    store = tempfile.mkdtemp(prefix="tacocat-http-") + "/games.sqlite3"
    proc, base = start_serve("--log-level", "warning", "--store", store, "--max-time-ms", "3600000")
    try:
        client = httpx.Client(base_url=base, timeout=60)
        answers: list = []

        def long_hint() -> None:
            try:
                r = client.post("/v1/hint", json={"view": OPENING_VIEW, "time_ms": 3_600_000, "method": "pimc"})
                answers.append(r.json())
            except httpx.HTTPError as exc:  # the connection closed by the shutdown
                answers.append(exc)

        t = threading.Thread(target=long_hint)
        t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        took = time.monotonic() - t0
        t.join(30)
        assert took < EXITS_WITHIN_S, took
        assert answers, "the client heard back"
        if isinstance(answers[0], dict):  # answered before the close: its best so far
            assert answers[0]["ok"] and answers[0]["stopped"] is True
    finally:
        stop(proc)
