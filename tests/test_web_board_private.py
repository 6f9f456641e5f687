"""The web board never holds a card it may not show (issue 21).

Whole games against the engine are played through the page's own controls
in Debian's Chromium, against a server run in this process, so the test
reads the engine's true hand from the session after every step.  At every
step: no response the page received carries an owner token or a token for
the engine's seat, a hand that is not the player's, or cards the engine
drew; the page's text never shows the engine's hand or its draws; and the
page never asks the engine to `move` (the server plays that seat).

The same checks fail on the board before the engine mode (it held both
seats' tokens and logged "The engine replaced 6 7 and drew 7 9"): see the
report of issue 21 for how that was checked.

Skips, with a one-line reason, where Playwright or Chromium is missing."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from typing import Any, Iterator

import pytest
import test_web_board  # skips, as it does, where Playwright or Chromium is missing
from test_web_board import wait_turn

from tacocat.protocol.session import EngineSession
from tacocat.rules.ruleset import Ruleset, load_ruleset

# test_web_board's module-scoped Chromium, as this module's `browser` fixture.
# An assignment rather than `from test_web_board import browser`: pyflakes reads
# each test's `browser` parameter as redefining an unused import (F811).
browser = test_web_board.browser

STANDARD = load_ruleset(None)
SHORT = Ruleset.from_dict({**STANDARD.to_dict(), "name": "three cards", "board": [3] * 7})
"""Three cards a deal: replace, duel, one trick, showdown — a whole game in
a few seconds, for the default test loop."""


@contextlib.contextmanager
def board_server(rules: Ruleset = STANDARD) -> Iterator[tuple[str, EngineSession, dict]]:
    """The board's server in this process, on a free 127.0.0.1 port: its
    URL, its session, and `hands`: every hand each seat of each game held
    after each action ({game: [(hand of seat 0, hand of seat 1), ...]}),
    taken as the session commits the action."""
    import uvicorn

    from tacocat.protocol.http import create_app, host_names, server_config

    session = EngineSession(rules, max_time_ms=5000)
    hands: dict[str, list] = {}
    commit = session._commit

    def spy(gid: str, state: Any) -> Any:
        hands.setdefault(gid, []).append((tuple(state.hands[0]), tuple(state.hands[1])))
        return commit(gid, state)

    session._commit = spy
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    app = create_app(session, allowed_hosts=host_names("127.0.0.1", port))
    server = uvicorn.Server(server_config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the board's server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", session, hands
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


class Watch:
    """Every request and response of one page, and the checks on them."""

    def __init__(self, page) -> None:
        self.page = page
        self.responses: list = []
        self.requests: list[tuple[str, Any]] = []
        self.checked = 0
        page.on("response", lambda r: self.responses.append(r))
        page.on("request", self._request)

    def _request(self, request) -> None:
        body = request.post_data
        self.requests.append((request.url, json.loads(body) if body else None))

    def bodies(self) -> list[tuple[str, Any]]:
        """The JSON bodies of the API's answers not yet checked (a streamed
        hint: each NDJSON line)."""
        out = []
        for r in self.responses[self.checked :]:
            if "/v1/" not in r.url:
                continue
            text = r.text()
            for line in text.splitlines() if "ndjson" in (r.headers.get("content-type") or "") else [text]:
                if line.strip():
                    out.append((r.url, json.loads(line)))
        self.checked = len(self.responses)
        return out


def walk(value: Any) -> Iterator[dict]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def check_step(watch: Watch, session: EngineSession, hands: dict, human: int) -> None:
    """What the page received and shows since the last step holds nothing
    of the engine's seat that is not face up."""
    engine = 1 - human
    human_hands = {tuple(sorted(h[human])) for game in hands.values() for h in game}
    for url, body in watch.bodies():
        for d in walk(body):
            tokens = d.get("tokens")
            if isinstance(tokens, dict):
                assert "owner" not in tokens, f"{url}: an owner token reached the page"
                assert tokens.get("seats", [None, None])[engine] is None, (
                    f"{url}: the engine seat's token reached the page"
                )
            if "drawn" in d:
                assert d.get("player") == human, f"{url}: the engine's draws reached the page: {d}"
            if isinstance(d.get("hand"), list):
                assert tuple(sorted(d["hand"])) in human_hands, f"{url}: a hand that is not the player's: {d['hand']}"
    assert not any("/v1/move" in url for url, _ in watch.requests), "the page asked the engine to move"
    text = watch.page.inner_text("body")
    assert not re.search(r"The engine replaced [0-9 ]+ and drew", text), "the page shows the engine's draws"
    for gid, game in hands.items():
        secret = game[-1][engine]  # what the engine holds now: none of it has been face up
        if len(secret) >= 3 and tuple(sorted(secret)) not in human_hands:
            shown = " ".join(map(str, secret))
            assert not re.search(rf"(?<![0-9]){shown}(?![0-9])", text), f"the page shows the engine's hand {shown}"


def play_game(page, watch: Watch, session: EngineSession, hands: dict, human: int, max_steps: int = 600) -> dict:
    """Play the game on the page to its end with its own keys and clicks,
    checking every step; counts of what was done."""
    done = {"steps": 0, "round_ends": 0, "replaced": 0}
    for step in range(max_steps):
        decision = wait_turn(page)
        check_step(watch, session, hands, human)
        if decision == "over":
            return done
        done["steps"] += 1
        if decision == "round-end":
            # the showdown is on the table, face up, until the player goes on
            assert page.is_visible("#round-end") and page.locator("#round-end .card").count() == 2
            done["round_ends"] += 1
            if done["round_ends"] % 3 == 1:
                page.click("#next")
            else:
                page.keyboard.press("Enter" if done["round_ends"] % 3 == 2 else " ")
            continue
        page.locator("#play").focus()
        if decision == "replace":
            if step % 2:  # discard the lowest card: the player's own draws are shown, the engine's never
                page.keyboard.press("1")
                done["replaced"] += 1
            page.keyboard.press("Enter")
        elif decision in ("duel", "attack"):
            page.keyboard.press("1")  # the lowest card alone is always legal (R9, R10-R11)
            page.keyboard.press("Enter")
        else:
            page.locator("#legal .chip").first.click()
    raise AssertionError("the game did not finish")


def new_page(browser, errors: list, width: int = 1280, height: int = 800):
    # bypass_csp: wait_for_function evaluates its string, which the board's
    # policy refuses (test_web_board.py runs the board under it)
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(30_000)
    return page


def start_game(page, opponent: str, seat: int, seed: int | None) -> None:
    page.select_option("#opponent", opponent)
    page.select_option("#seat", str(seat))
    page.fill("#seed", "" if seed is None else str(seed))
    page.click("#new-game")


def new_game_requests(watch: Watch) -> list[dict]:
    return [body for url, body in watch.requests if url.endswith("/v1/new_game") and body and "record" not in body]


def test_a_short_game_against_the_engine_shows_nothing_of_its_hand(browser):
    errors: list = []
    with board_server(SHORT) as (url, session, hands):
        page = new_page(browser, errors)
        watch = Watch(page)
        page.goto(url + "/?delay=0")
        page.wait_for_function("document.body.dataset.ready === '1'")
        start_game(page, "level:2", 0, None)
        done = play_game(page, watch, session, hands, human=0)
        assert done["round_ends"] >= 4 and done["replaced"] >= 1, done
        # new_game asked for the engine on the other seat, and no seed: none was typed
        (request,) = new_game_requests(watch)
        assert request["engine"] == {"seat": 1, "level": 2} and "seed" not in request, request
        saved = page.evaluate("JSON.parse(localStorage.getItem('tacocat-board'))")
        assert set(saved) >= {"game", "token"} and "tokens" not in saved and saved["seed"] is None
        assert "seed" not in page.inner_text("#log")
        assert page.evaluate("document.body.dataset.phase") == "over"
        # the replay of the finished game shows both hands
        page.keyboard.press("r")
        page.wait_for_selector("#replay:not([hidden])")
        page.keyboard.press("Home")
        page.wait_for_function("document.getElementById('replay').dataset.shown === '0'")
        assert page.locator("#rp-hand0 .card").count() == 3 and page.locator("#rp-hand1 .card").count() == 3
        page.close()
    assert errors == []


@pytest.mark.slow
def test_five_whole_games_against_the_engine_show_nothing_of_its_hand(browser):
    errors: list = []
    games = [("level:2", 0, 1), ("level:2", 1, 2), ("level:3", 0, 3), ("level:1", 1, 4), ("level:2", 0, 5)]
    with board_server() as (url, session, hands):
        page = new_page(browser, errors)
        watch = Watch(page)
        page.goto(url + "/?delay=0")
        page.wait_for_function("document.body.dataset.ready === '1'")
        total = {"steps": 0, "round_ends": 0, "replaced": 0}
        for opponent, seat, seed in games:
            start_game(page, opponent, seat, seed)
            page.wait_for_function(f"JSON.parse(localStorage.getItem('tacocat-board') || '{{}}').seed === {seed}")
            done = play_game(page, watch, session, hands, human=seat)
            for k in total:
                total[k] += done[k]
        requests = new_game_requests(watch)
        assert [(r["engine"]["seat"], r["seed"]) for r in requests] == [(1 - s, seed) for _, s, seed in games]
        assert len(hands) == 5 and total["round_ends"] >= 5 * 4 and total["replaced"] >= 5, total
        page.close()
    assert errors == []
