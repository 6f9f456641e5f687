"""`tacocat serve` beside a browser (issue 20): what a web page the user
visits, a DNS-rebound name or a heap of idle sockets could do to the local
server.  Each case is sent by a client to a real `tacocat serve` subprocess
bound to 127.0.0.1 (servers.running_server); the encoding of answers that
need no socket goes through Starlette's TestClient.

- a POST that is not `Content-Type: application/json` (a form, text/plain:
  "simple" requests no CORS preflight holds back) is refused with 415 and
  runs nothing;
- a `Host` that is not one of the server's names is refused (421);
- an `Origin` that is neither the server's own nor one named by
  --cors-origin is refused (403) before the command runs;
- idle connections (also ones that never send a request, or trickle one)
  are closed after --idle-timeout, and a new client is served while 300
  idle sockets are open;
- whatever the request `id`, an answer's status agrees with its body, and
  it is never `internal`."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from helpers import one_line_error, run_cli
from positions import OPENING_VIEW as VIEW
from servers import peer_client, running_server

from tacocat.protocol.http import HTTP_STATUS, TRANSPORT_STATUS, create_app, host_names
from tacocat.protocol.session import EngineSession

JSON = {"content-type": "application/json"}


def port_of(client: httpx.Client) -> int:
    return client.base_url.port


def games_open(client: httpx.Client) -> int:
    return client.get("/v1/hello").json()["result"]["running"]["games"]


def refused(r: httpx.Response, status: int, code: str, *fragments: str) -> str:
    """The protocol's error body with this status and code: one line, no
    `internal`; returns the message."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["ok"] is False and body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert "\n" not in message and len(message) < 300, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


def forbidden_everywhere(server, header: str, values, status: int, *fragments: str) -> list[httpx.Response]:
    """Each value of `header` refused as `forbidden` both at a command that
    would open a game (its message naming `fragments`) and at hello, and
    no game opened; returns the refused commands' responses."""
    before = games_open(server)
    answers = []
    for value in values:
        r = server.post("/v1/new_game", json={"seed": 1}, headers={header: value})
        refused(r, status, "forbidden", *fragments)
        refused(server.get("/v1/hello", headers={header: value}), status, "forbidden")
        answers.append(r)
    assert games_open(server) == before
    return answers


@pytest.fixture(scope="module")
def server():
    with running_server(
        "--cors-origin",
        "http://127.0.0.1:5173",
        "--allowed-host",
        "engine.lan",
        "--allowed-host",
        "proxy.lan:443",
        "--max-time-ms",
        "3000",
    ) as client:
        yield client


# ------------------------------------------------------------ Content-Type


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        None,
        "application/json-seq",
        "application/jsonp",
    ],
)
def test_a_post_that_is_not_json_is_refused_and_changes_nothing(server, content_type):
    before, rules = games_open(server), server.get("/v1/hello").json()["result"]["rules"]
    headers = {} if content_type is None else {"content-type": content_type}
    for path, body in (
        ("/v1/new_game", {"seed": 1}),
        ("/v1", {"cmd": "new_game", "seed": 1}),
        ("/v1/set_rules", {"rules": {**rules, "max_deals": 7}}),
    ):
        r = server.post(path, content=json.dumps(body).encode(), headers=headers)
        refused(r, 415, "bad_json", "Content-Type: application/json")
    assert games_open(server) == before
    assert server.get("/v1/hello").json()["result"]["rules"] == rules


def test_json_with_a_charset_is_accepted(server):
    before = games_open(server)
    r = server.post("/v1/new_game", content=b'{"seed": 5}', headers={"content-type": "Application/JSON; charset=utf-8"})
    assert r.status_code == 200 and r.json()["ok"], r.text
    assert games_open(server) == before + 1


def test_bad_json_with_the_right_content_type_is_still_bad_json(server):
    r = server.post("/v1", content=b"{not json", headers=JSON)
    refused(r, 400, "bad_json")


# ------------------------------------------------------------------- Host


def test_a_foreign_host_is_refused(server):
    port = port_of(server)
    hosts = (
        "evil.example",
        f"evil.example:{port}",
        "127.0.0.1.evil.example",
        f"127.0.0.1:{port + 1}",
        f"localhost:{port}.evil.example",
        "engine.lan:1",
        "proxy.lan",
        "",
    )
    forbidden_everywhere(server, "host", hosts, 421, "--allowed-host", f"127.0.0.1:{port}")


def test_the_servers_own_names_are_answered(server):
    port = port_of(server)
    for host in (
        f"127.0.0.1:{port}",
        "127.0.0.1",
        f"localhost:{port}",
        "LOCALHOST",
        f"[::1]:{port}",
        "engine.lan",
        f"engine.lan:{port}",
        "proxy.lan:443",
    ):
        r = server.get("/v1/hello", headers={"host": host})
        assert r.status_code == 200 and r.json()["ok"], (host, r.text)


def test_host_names():
    assert host_names("127.0.0.1", 8000) == [
        "127.0.0.1:8000",
        "127.0.0.1",
        "localhost:8000",
        "localhost",
        "[::1]:8000",
        "[::1]",
    ]
    assert host_names("::1", 80)[:2] == ["[::1]:80", "[::1]"]
    assert host_names("10.0.0.5", 80, ["Engine.LAN", "proxy:443", "*"]) == [
        "10.0.0.5:80",
        "10.0.0.5",
        "engine.lan:80",
        "engine.lan",
        "proxy:443",
        "*",
    ]


def test_allowed_host_flag_is_checked():
    for bad in ("http://engine.lan", "engine.lan/path", "::1", "a b", ""):
        one_line_error(run_cli(["serve", "--no-store", "--allowed-host", bad]), "--allowed-host")
    help_text = run_cli(["serve", "--help"]).output
    for flag in ("--allowed-host", "--idle-timeout", "--max-connections", "application/json"):
        assert flag in help_text


# ----------------------------------------------------------------- Origin


def test_a_foreign_origin_is_refused_before_the_command_runs(server):
    port = port_of(server)
    origins = (
        "http://evil.example",
        f"http://localhost:{port}",
        f"http://127.0.0.1:{port + 1}",
        "null",
        "http://127.0.0.1:5174",
        f"file://127.0.0.1:{port}",
    )
    for r in forbidden_everywhere(server, "origin", origins, 403, "--cors-origin"):
        assert "access-control-allow-origin" not in r.headers


def test_the_servers_own_origin_and_the_allowed_ones_are_accepted(server):
    port = port_of(server)
    before = games_open(server)
    r = server.post("/v1/new_game", json={"seed": 1}, headers={"origin": f"http://127.0.0.1:{port}"})
    assert r.status_code == 200 and r.json()["ok"], r.text
    r = server.post(
        "/v1/new_game", json={"seed": 1}, headers={"origin": f"http://localhost:{port}", "host": f"localhost:{port}"}
    )
    assert r.status_code == 200, r.text
    r = server.post("/v1/new_game", json={"seed": 2}, headers={"origin": "http://127.0.0.1:5173"})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "http://127.0.0.1:5173"
    assert games_open(server) == before + 3
    # An allowed page is told why a text/plain POST is refused (it can read the answer).
    r = server.post(
        "/v1/new_game", content=b"{}", headers={"origin": "http://127.0.0.1:5173", "content-type": "text/plain"}
    )
    refused(r, 415, "bad_json")
    assert r.headers["access-control-allow-origin"] == "http://127.0.0.1:5173"


# ------------------------------------------------------------ connections


@contextlib.contextmanager
def idle_sockets(port: int, count: int) -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        yield socks
    finally:
        for s in socks:
            s.close()


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed `sock` (EOF), or None if it did not
    within `seconds`; whatever it sent before is read and dropped."""
    return answer_then_close(sock, seconds)[1]


def closed_now(socks: list[socket.socket]) -> list[int]:
    """The indexes of the sockets the server has closed (EOF or reset)."""
    time.sleep(0.5)  # the closes made so far have arrived
    closed = []
    for i, s in enumerate(socks):
        s.setblocking(False)
        try:
            if not s.recv(65536):
                closed.append(i)
        except ConnectionResetError:
            closed.append(i)
        except BlockingIOError:  # open, nothing sent
            pass
    return closed


def test_idle_connections_are_closed_after_the_timeout():
    with running_server("--idle-timeout", "1") as client:
        port = port_of(client)
        assert client.get("/v1/hello").json()["result"]["limits"]["idle_timeout_s"] == 1
        with idle_sockets(port, 3) as (silent, kept_alive, trickling):
            kept_alive.sendall(f"GET /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            trickle = f"GET /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode() + b"a" * 40
            done = threading.Event()

            def drip() -> None:  # a byte every 0.1 s: never a whole request
                for byte in trickle:
                    if done.wait(0.1):
                        return
                    try:
                        trickling.sendall(bytes([byte]))
                    except OSError:
                        return

            dripper = threading.Thread(target=drip)
            dripper.start()
            try:
                waited = [closed_within(s, 8) for s in (silent, kept_alive, trickling)]
            finally:
                done.set()
                dripper.join(5)
            # closed, each within 8 s (a hang guard: the timeout is 1 s), and the
            # silent one not before its timeout (a bound no load can break)
            assert all(w is not None for w in waited) and waited[0] > 0.7, waited
        # and a new client is served as before
        assert client.get("/v1/hello").status_code == 200


def test_a_new_client_is_served_while_300_idle_sockets_are_open():
    # A long idle timeout: only --max-connections (default 256) can make room.
    with running_server("--idle-timeout", "120") as client:
        port = port_of(client)
        limits = client.get("/v1/hello").json()["result"]["limits"]
        assert limits["max_connections"] == 256 and limits["idle_timeout_s"] == 120
        with idle_sockets(port, 300) as socks:
            time.sleep(0.5)  # let the server accept them all
            # served within the client's 10 s timeout, not after the 120 s idle one
            with httpx.Client(base_url=str(client.base_url), timeout=10) as fresh:
                for seed in range(3):
                    r = fresh.post("/v1/new_game", json={"seed": seed})
                    assert r.status_code == 200 and r.json()["ok"], r.text
            # room was made by closing the longest-idle sockets: the first ones opened
            closed = closed_now(socks)
            # 300 + the new client's, 256 kept: 45 closed (the client that
            # waited for the server to start has its own, also idle)
            assert 44 <= len(closed) <= 60, len(closed)
            assert closed[:10] == list(range(10)), closed[:10]


def answer_on(sock: socket.socket, port: int, path: str = "/v1/hello") -> dict:
    """GET `path` on an open socket (the server closes it after the
    answer); the answer's body, which must be a 200."""
    sock.settimeout(10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), answer[:300]
    return json.loads(body)


@pytest.mark.slow
def test_a_connection_that_has_not_yet_sent_its_request_keeps_its_place_for_the_grace():
    # One place.  A connection just opened is about to carry a request: a
    # newcomer must not close it to make room (issue 20 follow-up: a
    # search's connection was closed so, about 1 run in 3 of the test
    # below).  One that sends nothing is closed once its grace (1 s) is over.
    with running_server("--max-connections", "1", "--idle-timeout", "60") as client:
        port = port_of(client)
        with idle_sockets(port, 2) as (first, newcomer):
            assert closed_now([first]) == []
            assert answer_on(first, port)["ok"]  # served: the newcomer waited
            assert answer_on(newcomer, port)["ok"]  # and had the place once the first answer was done
        with idle_sockets(port, 2) as (silent, newcomer):
            assert answer_on(newcomer, port)["ok"]  # waits at most the grace, then takes the silent one's place
            assert closed_within(silent, 5) is not None


@pytest.mark.slow
def test_when_every_connection_is_busy_a_newcomer_is_answered_busy():
    with running_server("--max-connections", "2", "--max-time-ms", "3000") as client:
        out: list = []

        def search() -> None:
            with httpx.Client(base_url=str(client.base_url), timeout=30) as own:
                # A sample budget far beyond 3 s: each search holds its connection for its whole time budget.
                body = {"view": VIEW, "time_ms": 3000, "iterations": 10**8, "method": "pimc"}
                out.append(own.post("/v1/hint", json=body).json())

        searches = [threading.Thread(target=search) for _ in range(2)]
        for t in searches:
            t.start()
        deadline, answer = time.monotonic() + 10, None
        while time.monotonic() < deadline:
            with httpx.Client(base_url=str(client.base_url), timeout=10) as fresh:
                r = fresh.get("/v1/hello")
            if r.status_code != 200:
                answer = r
                break
            time.sleep(0.05)
        for t in searches:
            t.join(30)
        assert answer is not None, "two searches running never filled the two connections"
        refused(answer, 503, "busy", "--max-connections")
        assert [body["ok"] for body in out] == [True, True]  # the running searches were not disturbed
        assert client.get("/v1/hello").status_code == 200


def test_a_request_head_too_large_or_unreadable_is_answered_in_json(server):
    port = port_of(server)
    for head in (
        f"GET /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Big: {'a' * 20_000}".encode(),  # unfinished past 16 KiB
        b"NOT HTTP AT ALL\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(head)
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        status, _, body = answer.partition(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 400 ") and b"content-type: application/json" in status.lower(), answer[:300]
        assert strict(body.decode())["error"]["code"] == "bad_json"
    assert server.get("/v1/hello").status_code == 200


def test_the_python_client_reconnects_after_an_idle_close():
    from tacocat.protocol.client import Engine

    with running_server("--idle-timeout", "0.5") as client:
        with Engine.connect(str(client.base_url), timeout=30) as engine:
            game = engine.new_game(seed=3)
            time.sleep(1.5)  # the server has closed the kept-alive connection meanwhile
            assert engine.hello()["protocol"]
            assert engine.new_game(seed=4).id != game.id


# --------------------------------------------------------------------- ids

BAD_IDS = [
    b"1e400",
    b"-1e400",
    b"[" * 40 + b"]" * 40,
    b"[" * 900 + b"]" * 900,
    b'"' + b"x" * 5000 + b'"',
    b"1" * 40,
    b'{"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}',
    b"[1, 2]",
    b"true",
    b'"ok-id"',
    b"7",
    b"null",
]


def bodies_for(rid: bytes) -> list[tuple[str, bytes]]:
    return [
        ("/v1/castle", b'{"id": %s}' % rid),
        ("/v1/hello", b'{"id": %s, "cmd": "games"}' % rid),
        ("/v1/hello", b'{"id": %s}' % rid),
        ("/v1/legal", b'{"id": %s}' % rid),
        ("/v1/legal", b'{"id": %s, "game": "g-none", "player": 0, "token": "t"}' % rid),
        ("/v1", b'{"id": %s, "cmd": "castle"}' % rid),
        ("/v1", b'{"id": %s, "cmd": "hello"}' % rid),
        ("/v1", b'{"id": %s}' % rid),
        ("/v1/solve", b'{"id": %s, "position": {"hands": [[1, 1, 1], [2, 3, 4]], "attacker": 0, "table": []}}' % rid),
    ]


def strict(text: str) -> dict:
    def no_constants(name: str):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=no_constants)


def consistent(r: httpx.Response, sent: bytes) -> None:
    body = strict(r.text)
    if body["ok"]:
        assert r.status_code == 200, (r.status_code, r.text[:200])
        return
    code = body["error"]["code"]
    assert code != "internal", (sent[:80], r.text[:300])
    assert r.status_code == HTTP_STATUS[code] or TRANSPORT_STATUS.get(r.status_code) == code, (r.status_code, code)
    echoed = body["id"]
    assert echoed is None or json.dumps(echoed) == json.dumps(json.loads(sent)["id"]), (echoed, sent[:80])


def test_bad_ids_answer_a_status_that_agrees_with_the_body(server):
    for rid in BAD_IDS:
        for path, sent in bodies_for(rid):
            consistent(server.post(path, content=sent, headers=JSON), sent)


def test_an_answer_json_cannot_carry_is_internal_with_status_500():
    # A bug (a result that is not JSON) says so in body and status alike.
    class Broken(EngineSession):
        def _cmd_games(self, request):
            return {"games": [float("nan")]}

    from starlette.testclient import TestClient

    with TestClient(create_app(Broken())) as client:
        r = client.post("/v1/games", json={"tokens": []})
        assert r.status_code == 500 and strict(r.text)["error"]["code"] == "internal"
        assert client.get("/v1/hello").status_code == 200


# ------------------------------------------------- bodies (issue 33, N2)


def answer_then_close(sock: socket.socket, seconds: float, since: float | None = None) -> tuple[bytes, float | None]:
    """What the server sent on `sock` and the seconds from `since` (now by
    default) until it closed it (None if not within `seconds` of it)."""
    t0, got = time.monotonic() if since is None else since, b""
    sock.settimeout(0.1)
    while time.monotonic() - t0 < seconds:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return got, time.monotonic() - t0
        if not data:
            return got, time.monotonic() - t0
        got += data
    return got, None


def post_head(port: int, length: int) -> bytes:
    return (
        f"POST /v1/new_game HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


@pytest.mark.slow
def test_a_body_that_never_comes_or_trickles_is_answered_408_and_frees_its_place():
    # Whole headers, then a body that stops or drips a byte a second: each
    # held one of the server's places for ever (256 of them and every
    # newcomer was answered busy).  Two places here, both taken so.
    with running_server("--idle-timeout", "2", "--max-connections", "2") as client:
        port = port_of(client)
        with idle_sockets(port, 2) as (stopped, trickling):
            sent_at = time.monotonic()
            stopped.sendall(post_head(port, 100) + b'{"seed"')
            trickling.sendall(post_head(port, 10_000) + b"{")
            done = threading.Event()

            def drip() -> None:  # never the whole body, and at most 30 s of it
                for _ in range(300):
                    if done.wait(0.1):
                        return
                    try:
                        trickling.sendall(b" ")
                    except OSError:
                        return

            dripper = threading.Thread(target=drip)
            dripper.start()
            try:
                answers = [answer_then_close(s, 12, sent_at) for s in (stopped, trickling)]
            finally:
                done.set()
                dripper.join(5)
        for sent, waited in answers:
            # closed within 12 s (a hang guard: the timeout is 2 s), not before it
            assert waited is not None and waited > 1.4, answers
            head, _, body = sent.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408 ") and b"connection: close" in head.lower(), sent[:300]
            assert strict(body.decode())["error"]["code"] == "bad_json" and b"2 s" in body, body
        # the places are free again: a newcomer is served, not answered busy
        with httpx.Client(base_url=str(client.base_url), timeout=10) as fresh:
            assert fresh.post("/v1/new_game", json={"seed": 1}).status_code == 200


def test_a_body_that_arrives_within_the_timeout_is_read(server):
    # The bound is on a body that does not come, not on one sent in pieces.
    port = port_of(server)
    body = b'{"seed": 12}'
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(post_head(port, len(body)).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        for i in range(0, len(body), 4):
            time.sleep(0.05)
            s.sendall(body[i : i + 4])
        sent, waited = answer_then_close(s, 10)
    assert sent.startswith(b"HTTP/1.1 200 ") and waited is not None, sent[:300]


# ------------------------------------------------- page headers (issue 33)

CSP_NEEDS = ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'")


@pytest.mark.parametrize("path", ["/", "/docs", "/web/index.html", "/web/docs.html", "/v1/hello", "/nowhere"])
def test_every_page_says_its_content_security_policy_and_no_frames(server, path):
    r = server.get(path)
    assert r.headers["x-frame-options"] == "DENY", r.headers
    policy = r.headers["content-security-policy"]
    for part in (*CSP_NEEDS, "frame-ancestors 'none'"):
        assert part in policy, (part, policy)
    assert "unsafe" not in policy


def test_the_pages_need_nothing_their_policy_refuses():
    """No inline script or style in a page (the policy runs none), and
    nothing but this server's own files."""
    import re

    import tacocat.protocol

    web = Path(tacocat.protocol.__file__).with_name("web")
    for page in ("index.html", "docs.html"):
        text = (web / page).read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), page  # a script without src is inline
        assert "<style" not in text and not re.search(r"\sstyle=", text), page
        assert not re.search(r"\son[a-z]+=", text), page  # an inline handler
        for url in re.findall(r'(?:src|href)="([^"]+)"', text):
            assert url.startswith("/") and not url.startswith("//"), (page, url)
            if url.startswith("/web/"):
                assert (web / url.removeprefix("/web/")).exists(), url


def test_refusals_carry_the_page_headers_too(server):
    r = server.post("/v1/new_game", json={"seed": 1}, headers={"host": "evil.example"})
    refused(r, 421, "forbidden")
    assert r.headers["x-frame-options"] == "DENY" and "content-security-policy" in r.headers


# --------------------------------------------- operator flags (issue 33, N7/N8)

# Each bad value is given with a second mistake (both --store and
# --no-store) that would be refused if the value got through: a flag that
# accepted it names the store instead, and no server starts.
NOT_STARTED = ["--store", "/nonexistent/x.sqlite3", "--no-store"]


SERVE_NUMBERS = (
    "--idle-timeout --port --max-time-ms --max-body --max-searches --max-queue --max-games --max-connections"
)


@pytest.mark.parametrize("flag", SERVE_NUMBERS.split())
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e400"])
def test_every_numeric_flag_of_serve_is_finite_and_in_range(flag, value):
    one_line_error(run_cli(["serve", flag, value, *NOT_STARTED]), flag)


@pytest.mark.parametrize("token", ["", "short", "x" * 15])
def test_the_admin_token_has_at_least_16_characters(token, monkeypatch):
    line = one_line_error(run_cli(["serve", "--admin-token", token, *NOT_STARTED]), "--admin-token", "16")
    if token:
        assert token not in line  # the secret is not echoed
        # the same from the environment (click ignores an empty variable)
        monkeypatch.setenv("TACOCAT_ADMIN_TOKEN", token)
        one_line_error(run_cli(["serve", *NOT_STARTED]), "--admin-token", "16")
    help_text = " ".join(run_cli(["serve", "--help"]).output.split())
    assert "at least 16 characters" in help_text and "408" in help_text


def test_a_short_admin_token_is_refused_by_the_session_too():
    with pytest.raises(ValueError, match="16"):
        EngineSession(shared=True, admin_token="")
    assert EngineSession(shared=True, admin_token="s" * 16).shared


@pytest.mark.slow
def test_one_peers_unfinished_bodies_leave_another_peer_a_connection():
    # One peer (127.0.0.1) takes every place with requests whose bodies
    # never end: another peer (127.0.0.2) is served at once, long before the
    # body timeout, by the newest of them giving up its place (answered 503
    # busy, naming the share); the flood's older requests keep theirs.
    with running_server("--idle-timeout", "60", "--max-connections", "4") as client:
        port = port_of(client)
        with idle_sockets(port, 4) as flood:
            for sock in flood:
                sock.sendall(post_head(port, 10_000) + b"{")
                time.sleep(0.05)
            time.sleep(0.3)
            started = time.monotonic()
            with peer_client(str(client.base_url), timeout=10) as other:
                assert other.get("/v1/hello").status_code == 200
            assert time.monotonic() - started < 5  # not the 60 s body timeout
            sent, waited = answer_then_close(flood[-1], 5)
            head, _, body = sent.partition(b"\r\n\r\n")
            assert waited is not None and head.startswith(b"HTTP/1.1 503 "), sent[:300]
            assert strict(body.decode())["error"]["code"] == "busy" and b"share (2)" in body, body
            assert closed_now(flood[:-1]) == []
