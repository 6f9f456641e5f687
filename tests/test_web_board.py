"""The web board of `tacocat serve` in a real browser: Playwright for Python
driving Debian's Chromium (never a downloaded browser).  A whole game
against a bot through the board — with the hint, a refused illegal move, a
reload mid-game and a replay — and CORS: a page on another 127.0.0.1 port
can call the API only when its origin is allowed.

Skips, with a one-line reason, where Playwright or Chromium is missing
(README: "Browser tests")."""

from __future__ import annotations

import contextlib
import http.server
import os
import threading
from pathlib import Path

import httpx
import pytest

from test_http import free_port, running_server
from tacocat.protocol.session import PROTOCOL_VERSION

CHROMIUM = os.environ.get("TACOCAT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DOCS = Path(__file__).resolve().parents[1] / "docs"

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright missing: pip install -e '.[test]'")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (README, Browser tests)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def board_url():
    with running_server("--max-time-ms", "5000") as client:
        yield str(client.base_url)


def page_of(browser, errors: list):
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(20_000)
    return page


def wait_turn(page) -> str:
    """Wait until the board waits for the player (or the game is over);
    the decision, or "over"."""
    page.wait_for_function("document.body.dataset.ready === '1' && !document.body.classList.contains('busy') && "
                           "(document.body.dataset.decision || document.body.dataset.phase === 'over')")
    return page.evaluate("document.body.dataset.phase === 'over' ? 'over' : document.body.dataset.decision")


@pytest.mark.slow
def test_a_whole_game_on_the_board(browser, board_url):
    errors: list = []
    page = page_of(browser, errors)
    page.goto(f"{board_url}/?delay=0")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.select_option("#opponent", "level:2")
    page.fill("#seed", "11")
    page.click("#new-game")
    assert wait_turn(page) == "replace"
    # the board: seven spaces, two goals, the cat on the centre, a hand of 7
    assert page.locator("#track li").count() == 9
    assert page.locator("#track li.space").nth(3).locator("svg.cat").count() == 1
    assert page.locator("#my-hand .card").count() == 7
    assert page.locator("#opp-hand .card.back").count() == 7
    page.screenshot(path=str(DOCS / "board-1-deal.png"), full_page=True)

    tried_illegal = hinted = reloaded = False
    game_id = page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game")
    for step in range(400):
        decision = wait_turn(page)
        if decision == "over":
            break
        page.locator("#play").focus()
        if decision == "replace":
            page.keyboard.press("Enter")  # keep all
        elif decision == "duel" and not tried_illegal:
            # two cards at a duel: the engine refuses it (R9) and nothing changes
            page.keyboard.press("1")
            page.keyboard.press("2")
            page.keyboard.press("Enter")
            page.wait_for_function("document.getElementById('message').textContent.includes('Refused')")
            message = page.text_content("#message")
            assert "illegal_action" in message and "R9" in message, message
            assert wait_turn(page) == "duel"
            tried_illegal = True
            page.keyboard.press("Escape")
            page.keyboard.press("1")
            page.keyboard.press("Enter")
        elif decision == "duel":
            page.keyboard.press("1")
            page.keyboard.press("Enter")
        elif decision == "attack":
            if not hinted:
                page.keyboard.press("h")
                try:
                    page.wait_for_selector("#hint-table:not([hidden]) tbody tr")
                except Exception:
                    raise AssertionError(f"no hint: {page.text_content('#hint-status')!r} {page.text_content('#message')!r}")
                rows = page.locator("#hint-table tbody tr")
                assert rows.count() >= 1 and "%" in rows.first.text_content()
                assert page.text_content("#hint-status").startswith("Best:")
                rows.first.focus()
                page.keyboard.press("Enter")  # a hint row selects its cards and moves the focus to Play
                assert page.locator("#my-hand .card.selected").count() >= 1
                assert page.evaluate("document.activeElement.id") == "play", page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
                page.screenshot(path=str(DOCS / "board-2-hint.png"), full_page=True)
                hinted = True
                page.keyboard.press("Enter")
            else:
                page.keyboard.press("1")  # the lowest card alone is always an attack (R10-R11)
                page.keyboard.press("Enter")
        else:  # answer: the first legal move listed, from the keyboard
            page.locator("#legal .chip").first.focus()
            page.keyboard.press("Enter")
        if step == 12 and not reloaded:
            page.reload()
            page.wait_for_function("document.body.dataset.ready === '1'")
            assert page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game") == game_id
            assert "Resumed" in page.text_content("#log")
            reloaded = True
    assert wait_turn(page) == "over", "the game did not finish"
    assert tried_illegal and hinted and reloaded
    assert "win" in page.text_content("#board-caption")
    assert page.locator("#track svg.cat").count() == 1
    # replay the finished game: step back from the end with the keyboard
    page.keyboard.press("r")
    page.wait_for_selector("#replay:not([hidden])")
    total = int(page.text_content("#rp-step").split("/")[1])
    assert page.text_content("#rp-step").strip() == f"{total} / {total}" and total > 20
    page.keyboard.press("Home")
    page.wait_for_function("document.getElementById('replay').dataset.shown === '0'")
    assert page.locator("#rp-hand0 .card").count() == 7 and page.locator("#rp-hand1 .card").count() == 7
    for _ in range(9):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('replay').dataset.shown === '9'")
    assert page.text_content("#rp-step").strip() == f"9 / {total}"
    page.screenshot(path=str(DOCS / "board-3-replay.png"), full_page=True)
    page.keyboard.press("End")
    page.wait_for_function(f"document.getElementById('replay').dataset.shown === '{total}'")
    assert "won" in page.text_content("#board-caption")
    assert errors == []


def test_the_api_docs_page_renders_the_openapi_description(browser, board_url):
    errors: list = []
    page = page_of(browser, errors)
    page.goto(f"{board_url}/docs")
    page.wait_for_selector("#ops section.op")
    assert f"version {PROTOCOL_VERSION}" in page.text_content("#title")
    assert page.locator("section#move").count() == 1 and "level" in page.text_content("section#move")
    assert errors == []


# --------------------------------------------------------------------- CORS

PAGE = """<!doctype html><html><body><p id="out">waiting</p><script>
fetch("%s/v1/new_game", {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({seed: 3})})
  .then((r) => r.json()).then((d) => { document.getElementById("out").textContent = d.ok ? "called " + d.result.game : "error"; })
  .catch((e) => { document.getElementById("out").textContent = "blocked"; });
</script></body></html>"""


@contextlib.contextmanager
def page_server(html: str, port: int = 0):
    """A second origin: a tiny page server on another 127.0.0.1 port."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server hook
            body = html.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.slow
def test_a_page_on_another_origin_calls_the_api_only_when_allowed(browser):
    port = free_port()  # the page's port is chosen first, so the API can name its origin
    allowed = f"http://127.0.0.1:{port}"
    with running_server("--cors-origin", allowed) as api_open, running_server() as api_closed:
        # headers first: the preflight of an allowed origin passes, others do not
        pre = {"origin": allowed, "access-control-request-method": "POST", "access-control-request-headers": "content-type"}
        r = api_open.options("/v1/new_game", headers=pre)
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == allowed
        r = api_open.options("/v1/new_game", headers={**pre, "origin": "http://127.0.0.1:1"})
        assert r.status_code == 400 and "access-control-allow-origin" not in r.headers
        assert api_closed.options("/v1/new_game", headers=pre).status_code == 405  # CORS off by default
        assert "access-control-allow-origin" not in api_closed.post("/v1/hello", headers={"origin": allowed}).headers
        for api, expect in ((api_open, "called g"), (api_closed, "blocked")):
            with page_server(PAGE % str(api.base_url), port) as origin:
                assert origin == allowed
                page = browser.new_page()
                page.goto(origin + "/")
                page.wait_for_function("document.getElementById('out').textContent !== 'waiting'", timeout=20_000)
                assert page.text_content("#out").startswith(expect)
                page.close()
        # and the page on an origin that was not named is blocked by the open server too
        with page_server(PAGE % str(api_open.base_url)) as other:
            page = browser.new_page()
            page.goto(other + "/")
            page.wait_for_function("document.getElementById('out').textContent !== 'waiting'", timeout=20_000)
            assert page.text_content("#out") == "blocked"
            page.close()
