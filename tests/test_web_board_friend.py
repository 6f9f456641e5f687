"""The web board's "Play a friend" (issue 35): two people, each on their
own page, in two browser contexts of Debian's Chromium (no storage shared,
as two people's browsers).  The first page creates the game (new_game with
`friend`) and shows an invite link; the second opens it and plays the other
seat with its own token; both follow the game live (`view` with `since`).

Privacy: every network response body and every websocket message each
context receives is recorded and checked after every step against the true
hands, read from the server's session as it commits each action (the server
runs in this process, `test_web_board_private.board_server`): neither page
ever receives the other seat's hand or draws while the round is hidden, no
page receives an owner token, and no page sends a request with the other
seat's token (the creator holds it only to show the link).

Screenshots of both seats and of the game-over panel, desktop 1280x800 and
phone 390x844 (docs/board-*-5-game-over.png, board-*-6-friend-seat*.png),
are written to docs/ with TACOCAT_WRITE_DOCS=1, as test_web_board's are.

Skips, with a one-line reason, where Playwright or Chromium is missing."""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

import pytest
import test_web_board  # skips, as it does, where Playwright or Chromium is missing
from test_web_board import DESKTOP, DOCS, PHONE, no_sideways_scroll
from test_web_board_private import SHORT, STANDARD, board_server, walk

browser = test_web_board.browser  # the module-scoped Chromium (see test_web_board_private)

STEP_S = 60
"""The longest a page may take to come back to its player (a poll is 0.7 s)."""


class Seat:
    """One person's page in its own browser context, with everything it
    sent and received."""

    def __init__(self, browser, size: tuple[int, int], errors: list) -> None:
        # bypass_csp: wait_for_function evaluates its string (see test_web_board.page_of)
        self.context = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.on("pageerror", lambda e: errors.append(str(e)))
        self.bodies: list[tuple[str, Any]] = []
        self.frames: list[str] = []
        self.requests: list[tuple[str, Any]] = []
        self.checked = 0
        self.page.on("response", self._response)
        self.page.on("request", lambda r: self.requests.append((r.url, r.post_data)))
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.frames.append(str(f))))
        self.seat: int | None = None

    def _response(self, response) -> None:
        try:
            text = response.text()
        except Exception:  # a redirect or an aborted load has no body
            return
        self.bodies.append((response.url, text))

    def state(self) -> dict:
        return self.page.evaluate(
            "({ready: document.body.dataset.ready, busy: document.body.classList.contains('busy'),"
            " phase: document.body.dataset.phase || '', decision: document.body.dataset.decision || ''})"
        )

    def close(self) -> None:
        self.context.close()


def hidden_cards_leak(text: str, other: int, hands: list, seat_tokens: dict) -> str | None:
    """What in one received body shows seat `other`'s hidden cards, or None.
    `hands`: the game's (hand of seat 0, hand of seat 1) after each action."""
    lines = [line for line in text.splitlines() if line.strip()] or [text]
    for line in lines:
        try:
            body = json.loads(line)
        except ValueError:
            continue  # the page, its script and style: no game data
        for d in walk(body):
            if "drawn" in d and d.get("player") == other:
                return f"the other seat's draws: {d}"
            if isinstance(d.get("hand"), list) and tuple(sorted(d["hand"])) in {tuple(sorted(h[other])) for h in hands}:
                if tuple(sorted(d["hand"])) not in {tuple(sorted(h[1 - other])) for h in hands}:
                    return f"the other seat's hand: {d['hand']}"
            if isinstance(d.get("hands"), list):
                return "both hands (a state or a replay) before the game is over"
            tokens = d.get("tokens")
            if isinstance(tokens, dict) and "owner" in tokens:
                return "an owner token"
    return None


def check(seat: Seat, hands_by_game: dict, tokens_by_game: dict, over: set) -> int:
    """Check what `seat` received since the last check; how many bodies."""
    other = 1 - seat.seat
    fresh = seat.bodies[seat.checked :]
    seat.checked = len(seat.bodies)
    for url, text in fresh:
        if "/v1/" not in url:
            continue
        live = [g for g in hands_by_game if g not in over]  # the games whose rounds are still hidden
        for gid in live:
            leak = hidden_cards_leak(text, other, hands_by_game[gid], tokens_by_game)
            assert leak is None, f"seat {seat.seat} received {leak} ({url})"
    for frame in seat.frames:
        for gid in hands_by_game:
            if gid not in over:
                assert hidden_cards_leak(frame, other, hands_by_game[gid], tokens_by_game) is None
    return len(fresh)


def own_token(seat: Seat) -> str:
    return seat.page.evaluate("JSON.parse(sessionStorage.getItem('tacocat-board')).token")


def tokens_sent(seat: Seat) -> set:
    out = set()
    for url, body in seat.requests:
        if "/v1/" in url and body:
            out.add(json.loads(body).get("token"))
    return out - {None}


def step(seat: Seat, decision: str, n: int) -> None:
    """One move on `seat`'s page with its own keys and clicks."""
    page = seat.page
    if decision == "round-end":
        page.keyboard.press("Enter")
        return
    page.locator("#play").focus()
    if decision == "replace":
        if n % 2:
            page.keyboard.press("1")  # discard the lowest: this page's own draws are shown, the other's never
        page.keyboard.press("Enter")
    elif decision in ("duel", "attack"):
        page.keyboard.press("1")
        page.keyboard.press("Enter")
    else:
        page.locator("#legal .chip").first.click()


def play_friend_game(seats: list[Seat], hands: dict, tokens: dict, over: set, on_step=None) -> dict:
    """Both pages play the game to its end, each only when it waits for its
    player; everything received is checked at every step."""
    done = {"steps": 0, "round_ends": 0, "checked": 0}
    deadline = time.monotonic() + 900
    idle_since = time.monotonic()
    while time.monotonic() < deadline:
        moved = False
        finished = 0
        for seat in seats:
            st = seat.state()
            if st["ready"] != "1" or st["busy"]:
                continue
            if st["phase"] == "over":
                finished += 1
                continue
            want = "round-end" if st["phase"] == "round-end" else st["decision"]
            if not want:
                continue
            for s in seats:
                done["checked"] += check(s, hands, tokens, over)
            if on_step is not None:
                on_step(done, seat, want)
            step(seat, want, done["steps"])
            done["steps"] += 1
            done["round_ends"] += want == "round-end"
            moved = True
            idle_since = time.monotonic()
            seat.page.wait_for_function("!document.body.classList.contains('busy')")
        if finished == len(seats):
            for s in seats:
                done["checked"] += check(s, hands, tokens, over)
            return done
        if not moved:
            assert time.monotonic() - idle_since < STEP_S, f"no page waits for its player: {[s.state() for s in seats]}"
            time.sleep(0.1)
    raise AssertionError("the friend game did not finish")


def open_friend_game(host: Seat, guest: Seat, url: str, seat: int, fresh_guest: bool = True) -> str:
    """The host creates a friend game as `seat` and the guest opens its
    invite link; the game id."""
    if host.page.url in ("about:blank", ""):
        host.page.goto(url + "/")
        host.page.wait_for_function("document.body.dataset.ready === '1'")
        host.page.select_option("#seat", str(seat))
        host.page.click("#friend-game")
    host.page.wait_for_selector("#invite:not([hidden])")
    link = host.page.input_value("#invite-link")
    m = re.fullmatch(re.escape(url) + r"/#join=(g[A-Za-z0-9_-]+)\.([01])\.([A-Za-z0-9_-]+)", link)
    assert m and int(m.group(2)) == 1 - seat, link
    host.seat, guest.seat = seat, 1 - seat
    host.page.click("#invite-copy")
    host.page.wait_for_function("document.getElementById('invite-status').textContent.includes('Copied')")
    guest.page.goto(link)
    guest.page.wait_for_function(
        "(g) => document.body.dataset.ready === '1' && !document.body.classList.contains('busy') && "
        "JSON.parse(sessionStorage.getItem('tacocat-board') || '{}').game === g",
        arg=m.group(1),
    )
    assert "#join" not in guest.page.url  # the key leaves the address bar
    assert guest.page.text_content("#opp-title").startswith("Your friend")
    assert host.page.text_content("#opp-title").startswith("Your friend")
    assert own_token(guest) == m.group(3) and own_token(host) != m.group(3)
    return m.group(1)


def whole_games(browser, rules, count: int, shots=None) -> None:
    errors: list = []
    with board_server(rules) as (url, session, hands):
        host, guest = Seat(browser, DESKTOP, errors), Seat(browser, DESKTOP, errors)
        over: set = set()
        tokens: dict = {}
        played = []
        owned: tuple[set, set] = (set(), set())  # the tokens of the host's seats, of the guest's
        try:
            for n in range(count):
                if n:  # the rematch: the host's game-over panel, a new link for the guest
                    host.page.click("#rematch")
                gid = open_friend_game(host, guest, url, seat=1)  # a rematch keeps the seats
                done = play_friend_game(
                    [host, guest], hands, tokens, over, on_step=shots(host, guest, n) if shots else None
                )
                for s in (host, guest):
                    s.page.wait_for_selector("#game-over:not([hidden])")
                    rounds = s.page.locator("#go-rounds tbody tr").count()
                    assert rounds == len(session._games[gid].rounds) and rounds >= 1
                    verdict = s.page.text_content("#go-verdict")
                    winner = session._games[gid].board.cat
                    mine = (winner < 0 and s.seat == 0) or (winner > 6 and s.seat == 1)
                    assert verdict == ("You win the game!" if mine else "Your friend wins the game."), verdict
                    assert s.page.is_visible("#rematch") and s.page.is_visible("#go-replay")
                if shots:
                    shots(host, guest, n)(done, None, "over")
                over.add(gid)
                played.append((gid, done))
                owned[0].add(own_token(host))
                owned[1].add(own_token(guest))
            assert len({g for g, _ in played}) == count
            # each page sent its own seats' tokens only, never the other's
            assert tokens_sent(host) and tokens_sent(host) <= owned[0], "the host sent the guest's token"
            assert tokens_sent(guest) and tokens_sent(guest) <= owned[1], "the guest sent the host's token"
            assert all(d["round_ends"] >= 2 and d["checked"] > 0 for _, d in played), played
            assert host.frames == [] and guest.frames == []  # the pages poll; no stream was opened
        finally:
            host.close()
            guest.close()
    assert errors == []


@pytest.mark.slow
def test_three_whole_friend_games_show_neither_seat_the_other_s_cards(browser):
    whole_games(browser, SHORT, 3)


def _shooter(folder):
    """on_step for whole_games: screenshots of both seats mid-game (after
    the first trick of the second round) and of the game-over panel, at
    the desktop size and the phone size."""
    taken: set = set()

    def shots(host, guest, game_no):
        def on_step(done, seat, want):
            if game_no:
                return
            pages = {host.seat: host, guest.seat: guest}
            if want == "over":
                what = ["5-game-over"]
            elif "friend" not in taken and done["round_ends"] >= 2 and want in ("attack", "answer"):
                taken.add("friend")
                what = ["6-friend-seat"]
            else:
                return
            for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
                for p in (0, 1):
                    s = pages[p]
                    s.page.set_viewport_size({"width": size[0], "height": size[1]})
                    s.page.wait_for_timeout(250)
                    s.page.evaluate("scrollTo(0, 0)")
                    if name == "phone":
                        assert no_sideways_scroll(s.page)
                    else:
                        assert s.page.evaluate("document.documentElement.scrollHeight <= innerHeight")
                    if what[0] == "5-game-over":
                        s.page.evaluate("document.getElementById('game-over').scrollIntoView({block: 'start'})")
                        if p != host.seat:
                            continue  # one game-over panel a size (the host's)
                        file = f"board-{name}-5-game-over.png"
                    else:
                        file = f"board-{name}-6-friend-seat{p}.png"
                    s.page.screenshot(path=str(folder / file), full_page=name == "phone" and what[0] != "5-game-over")
                    taken.add(file)
            for s in (host, guest):
                s.page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})

        return on_step

    return shots, taken


@pytest.mark.slow
def test_screenshots_of_both_seats_of_a_friend_game_and_its_game_over_panel(browser, tmp_path):
    """docs/board-{desktop,phone}-5-game-over.png and
    board-{desktop,phone}-6-friend-seat{0,1}.png, from one whole game of
    the standard rules (written to docs/ only with TACOCAT_WRITE_DOCS=1)."""
    folder = DOCS if os.environ.get("TACOCAT_WRITE_DOCS") == "1" else tmp_path
    shots, taken = _shooter(folder)
    whole_games(browser, STANDARD, 1, shots=shots)
    for name in ("desktop", "phone"):
        assert {f"board-{name}-5-game-over.png", f"board-{name}-6-friend-seat0.png"} <= taken
        assert f"board-{name}-6-friend-seat1.png" in taken
