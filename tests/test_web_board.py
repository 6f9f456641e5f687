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
from servers import free_port, running_server

from tacocat.protocol.wire import PROTOCOL_VERSION

CHROMIUM = os.environ.get("TACOCAT_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
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


def page_of(browser, errors: list, policy: bool = False):
    """A page of the board.  Playwright's wait_for_function evaluates its
    string in the page, which the pages' Content-Security-Policy refuses (no
    eval): the policy is bypassed unless `policy`, and then the test waits
    with selectors only (test_the_pages_run_under_their_content_security_policy)."""
    page = browser.new_page(viewport={"width": 1200, "height": 1000}, bypass_csp=not policy)
    page.on("pageerror", lambda e: errors.append(str(e)))
    # Whatever the policy blocks (an inline style, a script, a fetch
    # elsewhere) is an error of the test it happens in.
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.set_default_timeout(20_000)
    return page


def wait_turn(page) -> str:
    """Wait until the board waits for the player (or the game is over);
    the decision, "round-end" (a showdown shown until the player goes on)
    or "over"."""
    page.wait_for_function(
        "document.body.dataset.ready === '1' && !document.body.classList.contains('busy') && "
        "(document.body.dataset.decision || ['over', 'round-end'].includes(document.body.dataset.phase))"
    )
    return page.evaluate(
        "['over', 'round-end'].includes(document.body.dataset.phase) ? document.body.dataset.phase "
        ": document.body.dataset.decision"
    )


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

    tried_illegal = hinted = reloaded = False
    game_id = page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game")
    for step in range(400):
        decision = wait_turn(page)
        if decision == "over":
            break
        if decision == "round-end":
            page.keyboard.press("Enter")  # the showdown was shown; go on to the next deal
            continue
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
                    raise AssertionError(
                        f"no hint: {page.text_content('#hint-status')!r} {page.text_content('#message')!r}"
                    )
                rows = page.locator("#hint-table tbody tr")
                assert rows.count() >= 1 and "%" in rows.first.text_content()
                assert page.text_content("#hint-status").startswith("Best:")
                rows.first.focus()
                page.keyboard.press("Enter")  # a hint row selects its cards and moves the focus to Play
                assert page.locator("#my-hand .card.selected").count() >= 1
                assert page.evaluate("document.activeElement.id") == "play", page.evaluate(
                    "document.activeElement.outerHTML.slice(0, 200)"
                )
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


def test_the_pages_run_under_their_content_security_policy(browser, board_url):
    """The board and the API page with their policy enforced: a game
    started, a hint, a move and the API page drawn, and nothing refused
    (each refusal is also a securitypolicyviolation event, counted here)."""
    errors: list = []
    page = page_of(browser, errors, policy=True)
    page.add_init_script(
        "window.__refused = []; document.addEventListener('securitypolicyviolation', "
        "(e) => window.__refused.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page.goto(f"{board_url}/?delay=0")
    page.wait_for_selector("body[data-ready='1']", state="attached")
    page.select_option("#opponent", "level:1")
    page.fill("#seed", "5")
    page.click("#new-game")
    page.wait_for_selector("body[data-decision='replace']:not(.busy)", state="attached")
    assert page.locator("#my-hand .card").count() == 7  # drawn by board.js, styled by board.css
    assert page.evaluate("getComputedStyle(document.querySelector('#my-hand .card')).position") != "static"
    page.click("#hint")
    page.wait_for_selector("#hint-table:not([hidden]) tbody tr")
    page.locator("#play").focus()
    page.keyboard.press("Enter")  # keep all: the engine replaces too, and the duel follows
    page.wait_for_selector("body[data-decision='duel']:not(.busy)", state="attached")
    assert page.evaluate("window.__refused") == []  # before the next page starts its own list
    page.goto(f"{board_url}/docs")
    page.wait_for_selector("#ops section.op")
    assert page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert page.evaluate("window.__refused") == [] and errors == []


# --------------------------------------------------------------------- CORS

PAGE = """<!doctype html><html><body><p id="out">waiting</p><script>
fetch("%s/v1/new_game",
      {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({seed: 3})})
  .then((r) => r.json())
  .then((d) => { document.getElementById("out").textContent = d.ok ? "called " + d.result.game : "error"; })
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
        pre = {
            "origin": allowed,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
        }
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


# ------------------------------------------------------------ one screen

DESKTOP, PHONE = (1280, 800), (390, 844)
PLAY_ELEMENTS = ("#track", "#opp-hand", ".table-area", "#tricks", "#my-hand", "#play", "#hint-area", ".log-area")


def inside_viewport(page, selector: str) -> bool:
    return page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
            && r.right <= innerWidth && r.bottom <= innerHeight; }""",
        selector,
    )


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def cat_is_the_largest_on_the_board(page) -> bool:
    return page.evaluate("""() => {
        const cat = document.querySelector('#track svg.cat').getBoundingClientRect();
        const others = [...document.querySelectorAll('#track li:not(.has-cat) > *')]
            .map((e) => e.getBoundingClientRect());
        return others.every((r) => r.width * r.height < cat.width * cat.height); }""")


def open_board(browser, board_url, size, errors, opponent="level:1", seed=None):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)  # see page_of
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(30_000)
    page.goto(f"{board_url}/")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.select_option("#opponent", opponent)
    if seed is not None:
        page.fill("#seed", str(seed))
    page.click("#new-game")
    return page


def step(page, decision: str) -> None:
    """One move with the page's own keys and clicks."""
    if decision == "round-end":
        page.keyboard.press("Enter")
        return
    page.locator("#play").focus()
    if decision in ("duel", "attack"):
        page.keyboard.press("1")
    if decision == "answer":
        page.locator("#legal .chip").first.click()
    else:
        page.keyboard.press("Enter")


def play_to(page, wanted: str, after_tricks: int = 0) -> None:
    """Play on until the board waits for `wanted` (with at least
    `after_tricks` tricks of the round on the table)."""
    for _ in range(300):
        decision = wait_turn(page)
        if decision == wanted and page.locator("#tricks li.trick").count() >= after_tricks:
            return
        assert decision != "over", f"the game ended before {wanted}"
        step(page, decision)
    raise AssertionError(f"no {wanted} in 300 steps")


def play_out(page, most: int = 600) -> None:
    """Play on, with the page's own keys and clicks, until the game is over."""
    for _ in range(most):
        decision = wait_turn(page)
        if decision == "over":
            return
        step(page, decision)
    raise AssertionError(f"the game did not end in {most} steps")


@pytest.mark.slow
def test_the_board_is_one_screen_on_a_desktop_and_no_wider_than_a_phone(browser, board_url):
    errors: list = []
    page = open_board(browser, board_url, DESKTOP, errors, seed=11)
    assert wait_turn(page) == "replace"
    play_to(page, "attack")
    page.keyboard.press("h")
    page.wait_for_selector("#hint-table:not([hidden]) tbody tr")
    # board, both hands, the table, the hint and the log at once, and no page scroll
    for selector in PLAY_ELEMENTS + ("#hint-table",):
        assert inside_viewport(page, selector), f"{selector} is not on the 1280x800 screen"
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight && scrollY === 0")
    page.close()

    page = open_board(browser, board_url, PHONE, errors, seed=11)
    assert wait_turn(page) == "replace"
    assert no_sideways_scroll(page), page.evaluate("document.documentElement.scrollWidth")
    assert cat_is_the_largest_on_the_board(page)
    play_to(page, "attack")
    page.click("#hint")  # one tap: the ranked moves come into view
    page.wait_for_selector("#hint-table:not([hidden]) tbody tr")
    page.wait_for_function("""(() => { const r = document.getElementById('hint-table').getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight; })()""")
    assert no_sideways_scroll(page)
    page.close()
    assert errors == []


@pytest.mark.slow
@pytest.mark.parametrize("name,size", [("desktop", DESKTOP), ("phone", PHONE)])
def test_screenshots_of_the_deal_a_hint_a_round_end_and_the_replay(browser, board_url, name, size, tmp_path):
    """docs/board-<name>-{1-deal,2-hint,3-round-end,4-replay}.png, as the
    README shows them, checked on the way.  Written to docs/ only with
    TACOCAT_WRITE_DOCS=1 (a test run leaves the checkout as it was)."""
    errors: list = []
    page = open_board(browser, board_url, size, errors, opponent="level:2", seed=7)
    folder = DOCS if os.environ.get("TACOCAT_WRITE_DOCS") == "1" else tmp_path
    shot = lambda what: page.screenshot(path=str(folder / f"board-{name}-{what}.png"))  # noqa: E731
    fits = (
        (lambda: page.evaluate("document.documentElement.scrollHeight <= innerHeight"))
        if name == "desktop"
        else (lambda: no_sideways_scroll(page))
    )
    assert wait_turn(page) == "replace"
    assert fits() and cat_is_the_largest_on_the_board(page)
    shot("1-deal")
    play_to(page, "attack", after_tricks=1)
    page.click("#hint")
    page.wait_for_selector("#hint-table:not([hidden]) tbody tr")
    page.wait_for_timeout(400)  # the phone scrolls the hint into view
    assert fits()
    shot("2-hint")
    page.keyboard.press("Escape")
    play_to(page, "round-end")
    # both last cards face up, who won, the cat's move; a tile where it was
    assert page.locator("#round-end .card").count() == 2
    assert "round" in page.text_content("#re-verdict") and "cat" in page.text_content("#re-cat")
    page.wait_for_timeout(1300)  # the cat's walk
    assert page.locator("#track li.covered .tile").count() == 1
    assert page.evaluate("""(() => { const li = document.querySelector('#track li.covered');
        const t = li.querySelector('.tile').getBoundingClientRect(), r = li.getBoundingClientRect();
        return t.width >= r.width - 4 && t.height >= r.height - 4; })()""")  # the whole space, not a bar
    assert fits() and inside_viewport(page, "#round-end") and inside_viewport(page, "#track")
    shot("3-round-end")
    play_out(page)
    page.keyboard.press("r")
    page.wait_for_selector("#replay:not([hidden])")
    page.keyboard.press("Home")
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('replay').dataset.shown === '6'")
    assert page.locator("#rp-hand0 .card").count() >= 1 and page.locator("#rp-hand1 .card").count() >= 1
    page.evaluate("scrollTo(0, 0)")
    assert fits()
    shot("4-replay")
    page.close()
    assert errors == []


# ------------------------------------------------------------ the host


def serve_and_read(*options: str) -> tuple[str, str, list[int]]:
    """Start `tacocat serve --port 0 OPTIONS`, open the URL it prints, ask
    for / and /favicon.ico, stop it; its stdout and the two statuses."""
    import subprocess
    import tempfile

    from helpers import tacocat_argv

    proc = subprocess.Popen(
        [*tacocat_argv(), "serve", "--port", "0", "--no-store", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tempfile.mkdtemp(prefix="tacocat-serve-"),
    )
    try:
        first = proc.stdout.readline()  # printed once the port is bound
        url = first.split("the board is at ", 1)[1].split()[0]
        statuses = []
        with httpx.Client(timeout=10) as client:
            for path in ("", "favicon.ico"):
                for _ in range(50):  # the socket is bound: the app answers as soon as it has started
                    try:
                        statuses.append(client.get(url + path).status_code)
                        break
                    except httpx.TransportError:
                        import time

                        time.sleep(0.1)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=15)
    return first, first + out, statuses


def test_serve_prints_the_url_logs_each_request_and_has_a_favicon():
    first, out, statuses = serve_and_read()
    assert first.startswith("tacocat serve: the board is at http://127.0.0.1:") and "/docs" in first, first
    assert statuses == [200, 200]
    lines = [line for line in out.splitlines() if "HTTP/1.1" in line]
    assert len(lines) == 2 and '"GET / HTTP/1.1" 200' in lines[0] and '"GET /favicon.ico HTTP/1.1" 200' in lines[1], out


def test_serve_logs_no_request_with_no_access_log():
    first, out, statuses = serve_and_read("--no-access-log")
    assert statuses == [200, 200] and "the board is at" in first
    assert [line for line in out.splitlines() if "HTTP/1.1" in line] == [], out
