"""The engine protocol over HTTP: a Starlette app around one `EngineSession`.

    POST /v1/<command>   body: the command's fields        (e.g. POST /v1/legal {"game": "g1", "player": 0})
    POST /v1             body: a whole request with "cmd"  (same messages as JSON Lines)
    GET  /v1/hello       the hello answer
    GET  /openapi.json   an OpenAPI 3.1 description, generated from `tacocat.protocol.commands.COMMANDS`
    GET  /docs           that description as a readable page (its files served here, no CDN)
    GET  /               the web board (tacocat/protocol/web/), a client of this API
    GET  /favicon.ico    the board's icon (an SVG: browsers ask for it on every page)

A search request with `info_ms` is answered as a stream: NDJSON lines
(`application/x-ndjson`: info messages, then the response), or Server-Sent
Events when the request accepts `text/event-stream`.  CORS is off unless
`cors_origins` names the origins allowed to call the API from a browser.

Every answer is the protocol's response object (`{"id", "ok", "cmd",
"result" | "error"}`); the HTTP status mirrors the error code
(`HTTP_STATUS`, and `TRANSPORT_STATUS` for the refusals below).

The server is meant to run beside a browser, so a web page the user visits
must not be able to act on it: every POST must say `Content-Type:
application/json` (a form or `text/plain` POST needs no CORS preflight, so
it would reach the command: 415); a request whose `Host` is not one of the
server's names is refused (DNS rebinding: 421); a request whose `Origin` is
neither the server's own nor one allowed by `cors_origins` is refused before
any command runs (403).  `server_config` closes connections idle for
`idle_timeout` seconds (also ones that never send a request) and keeps at
most `max_connections` open, closing the longest-idle one to make room; a
request whose body has not all arrived `body_timeout` seconds after its
headers is answered 408 and closed (a trickled body would hold its place
for ever).  Every answer carries the board's Content-Security-Policy and
`X-Frame-Options: DENY` (`PAGE_HEADERS`).
Searches run in the thread pool, off the event loop, so other requests
are served meanwhile; at most `max_searches` run at once (more answer 503
busy), each capped at `max_time_ms`.  A search whose client
disconnects is stopped.  Bodies over `max_body` bytes answer 413.  Needs the
`serve` extra (starlette, uvicorn)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar, Iterable, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, StreamingResponse
from starlette.responses import Response as HTTPResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from tacocat import __version__
from tacocat.errors import shorten
from tacocat.protocol.commands import COMMANDS
from tacocat.protocol.session import EngineSession, SearchJob
from tacocat.protocol.streaming import stream_job
from tacocat.protocol.wire import (
    ERROR_CODES,
    PROTOCOL_VERSION,
    Response,
    _echoable,
    decode_request,
    encode_response,
    error_response,
)

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).with_name("web")

DEFAULT_MAX_BODY = 1 << 20
DEFAULT_MAX_TIME_MS = 10_000
DEFAULT_IDLE_TIMEOUT_S = 5.0
DEFAULT_MAX_CONNECTIONS = 256
DEFAULT_REQUEST_GRACE_S = 1.0
"""How long a new connection may take to send its first request before it
counts as idle (closable to make room); a client sends at once."""
MAX_HEAD_BYTES = 16 * 1024
"""A request line and headers larger than this are refused by h11 (400)."""

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")

PAGE_HEADERS = {
    # The board and the API page load their own script, style and icon and
    # call this server, nothing else: no inline code, no other origin, no
    # frame (a page framing the board could trick a click on it).
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
}

HTTP_STATUS = {
    "bad_json": 400,
    "unknown_command": 404,
    "missing_field": 422,
    "bad_field": 422,
    "illegal_action": 409,
    "impossible_position": 422,
    "bad_ruleset": 422,
    "bad_record": 422,
    "forbidden": 403,
    "busy": 503,
    "internal": 500,
}

TRANSPORT_STATUS = {
    413: "bad_json",  # a body over max_body
    415: "bad_json",  # a POST whose Content-Type is not application/json
    421: "forbidden",  # a Host that is not one of the server's names
    405: "unknown_command",  # a method the path does not have
    408: "bad_json",  # a body not all arrived within body_timeout of its headers
}
"""Statuses the HTTP transport answers besides HTTP_STATUS's, with the
error code their body carries."""


class BodyTooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge
    return bytes(body)


def _respond(response: Response, status: int | None = None, headers: dict[str, str] | None = None) -> HTTPResponse:
    if status is None:
        status = 200 if response.get("ok") else HTTP_STATUS.get(response["error"]["code"], 500)
    try:
        body = json.dumps(response, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        # Not JSON (a bug): encode_response logs it and answers `internal`,
        # so the status must say 500 too, never the 200 or 4xx meant.
        body, status = encode_response(response), 500
    return HTTPResponse(body, status_code=status, media_type="application/json", headers=headers)


# --------------------------------------------------------------------------
# Guards: what a web page the user happens to visit could send.


def _ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _reached_by_loopback(bound: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
    """Bound to the loopback (or to every interface, the loopback among them)."""
    return bound == "localhost" or address is not None and (address.is_loopback or address.is_unspecified)


def host_names(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The `Host` values a server bound to host:port answers: its address
    with and without the port, the loopback aliases when it is bound to the
    loopback (or to every interface), and `extra` (from --allowed-host):
    NAME (with this port or none) or NAME:PORT (exactly), or "*" for any."""
    bound = host.strip("[]").lower()
    address = _ip_address(bound)
    names = [f"[{bound}]" if address is not None and address.version == 6 else bound]
    if _reached_by_loopback(bound, address):
        names += LOOPBACK_NAMES
    allowed: list[str] = []
    for name in [*names, *(e.lower() for e in extra)]:
        for value in _host_values(name, port):
            if value not in allowed:
                allowed.append(value)
    return allowed


def _host_values(name: str, port: int) -> list[str]:
    """The `Host` values a name allows: NAME:PORT as it is, NAME with this
    port or none."""
    has_port = name.rsplit(":", 1)[-1].isdigit() and (not name.startswith("[") or "]:" in name)
    return [name] if has_port or name == "*" else [f"{name}:{port}", name]


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str) -> None:
    await _respond(error_response(None, code, message), status)(scope, receive, send)


class PageHeaders:
    """Add `PAGE_HEADERS` to every answer: the board's pages are served as
    files (also under /web/), and an answer of any other kind is not a page
    that anything could be run in or framed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [(k.encode(), v.encode()) for k, v in PAGE_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HostGuard:
    """Refuse a request whose `Host` is not one of the server's names.  A
    page on evil.example whose name is made to resolve to 127.0.0.1 (DNS
    rebinding) reaches the server as same-origin, but still says `Host:
    evil.example`.  (Starlette's TrustedHostMiddleware checks the same but
    answers plain text, ignores the port and redirects to www.; clients of
    this API read the protocol's JSON error.)"""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.allowed = frozenset(h.lower() for h in allowed_hosts)
        self.example = next(iter(allowed_hosts), "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and "*" not in self.allowed:
            host = Headers(scope=scope).get("host", "")
            if host.lower() not in self.allowed:
                return await _refuse(
                    scope,
                    receive,
                    send,
                    421,
                    "forbidden",
                    f"Host {shorten(host)} is not this server's address ({self.example}); "
                    "a name it is reached by can be allowed with --allowed-host",
                )
        await self.app(scope, receive, send)


class BrowserGuard:
    """Refuse what a page the user visits could send before any command
    runs: a foreign `Origin` (403), and a POST that is not
    `application/json` (415) — a form or `text/plain` POST is a "simple"
    request that no CORS preflight holds back.  Preflights (OPTIONS) pass:
    they run nothing, and CORSMiddleware (outside this guard) answers them."""

    def __init__(self, app: ASGIApp, cors_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.cors_origins = frozenset(o.lower() for o in cors_origins)

    def origin_allowed(self, origin: str, host: str) -> bool:
        origin = origin.lower()
        return origin in self.cors_origins or origin in (f"http://{host.lower()}", f"https://{host.lower()}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        content_type = headers.get("content-type")
        if origin is not None and not self.origin_allowed(origin, headers.get("host", "")):
            return await _refuse(
                scope,
                receive,
                send,
                403,
                "forbidden",
                f"Origin {shorten(origin)} may not call this server: only its own pages may, "
                "and pages from origins named with --cors-origin",
            )
        if scope["method"] == "POST":
            if (content_type or "").split(";", 1)[0].strip().lower() != "application/json":
                sent = "none" if content_type is None else shorten(content_type)
                return await _refuse(
                    scope,
                    receive,
                    send,
                    415,
                    "bad_json",
                    f"send the body as JSON with Content-Type: application/json (this POST's Content-Type: {sent})",
                )
        await self.app(scope, receive, send)


def client_key(request: Request) -> str:
    """Who a request comes from, for the per-client shares of games and
    searches: the peer address, which a client cannot choose freely.  An
    `Origin` header can be: a local program sending the board's own origin
    (or `http://LOCALHOST:PORT`, origins not normalised) used to fill a
    second quota, which stayed full across restarts (N3).  Pages and
    programs on one machine share its share."""
    return "peer " + (request.client.host if request.client else "unknown")


def create_app(
    session: EngineSession | None = None,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    max_time_ms: int | None = DEFAULT_MAX_TIME_MS,
    max_searches: int = 4,
    max_games: int = 1000,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] | None = None,
    body_timeout: float = DEFAULT_IDLE_TIMEOUT_S,
) -> Starlette:
    """The ASGI app.  Without `session`, a new one with the given limits.
    `cors_origins`: the origins (e.g. "http://localhost:5173") whose pages
    may call the API from a browser; none by default.  `allowed_hosts`: the
    `Host` values answered (`host_names`); None checks no Host (an app
    mounted behind something that does).  Origin and Content-Type are always
    checked (BrowserGuard).  `body_timeout`: seconds a request's body may
    take to arrive after its headers."""
    if session is None:
        session = EngineSession(max_games=max_games, max_searches=max_searches, max_time_ms=max_time_ms)
    session.transport_limits["max_body_bytes"] = max_body
    session.share()  # many clients: none may stop, list or reconfigure another's (docs/protocol.md, "Seats")

    async def run(request: Request, payload: Any) -> HTTPResponse:
        prepared = await run_in_threadpool(session.prepare, payload, client_key(request))
        if not isinstance(prepared, SearchJob):
            return _respond(prepared)
        if prepared.stop_event.info_ms is not None:
            sse = "text/event-stream" in request.headers.get("accept", "")
            return StreamingResponse(
                stream_job(prepared, encode_response, sse, request.is_disconnected),
                media_type="text/event-stream" if sse else "application/x-ndjson",
                headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
            )
        task = asyncio.ensure_future(run_in_threadpool(prepared.run))
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=0.2)
                if done:
                    break
                if not prepared.stop_event.is_set() and await request.is_disconnected():
                    prepared.stop_event.set()  # nobody is waiting for the answer
        except BaseException:  # cancelled with the connection: free the slot
            prepared.stop_event.set()
            raise
        return _respond(task.result())

    async def read_payload(request: Request) -> Any:
        try:
            body = await asyncio.wait_for(_read_body(request, max_body), body_timeout)
        except BodyTooLarge:
            too_large = _respond(error_response(None, "bad_json", f"request body larger than {max_body} bytes"))
            too_large.status_code = 413
            return too_large
        except TimeoutError:
            # Closed after the answer: the rest of the body may still come,
            # and the connection's place is someone else's now.
            message = f"the request body did not all arrive within {body_timeout:g} s of its headers"
            return _respond(error_response(None, "bad_json", message), 408, headers={"connection": "close"})
        except ClientDisconnect:  # gone before its body was whole: nobody reads an answer
            return _respond(error_response(None, "bad_json", "the client closed the connection mid-body"))
        if not body.strip():
            return {}
        payload, bad = decode_request(body)
        return _respond(bad) if bad is not None else payload

    async def any_command(request: Request) -> HTTPResponse:
        payload = await read_payload(request)
        if isinstance(payload, HTTPResponse):
            return payload
        return await run(request, payload)

    async def one_command(request: Request) -> HTTPResponse:
        name = request.path_params["cmd"]
        payload = await read_payload(request)
        if isinstance(payload, HTTPResponse):
            return payload
        if not isinstance(payload, dict):
            return _respond(
                error_response(None, "bad_json", f"the body must be a JSON object, got {type(payload).__name__}", None)
            )
        request_id = _echoable(payload.get("id"))  # as the session answers it: null if JSON cannot carry it back
        if name not in COMMANDS:
            return _respond(
                error_response(
                    request_id,
                    "unknown_command",
                    f"no command {shorten(name)}; commands: {', '.join(COMMANDS)}",
                    None,
                    "cmd",
                )
            )
        if payload.get("cmd", name) != name:
            return _respond(
                error_response(
                    request_id,
                    "bad_field",
                    f"body says cmd {shorten(payload['cmd'])} but the path says {name!r}",
                    name,
                    "cmd",
                )
            )
        return await run(request, {**payload, "cmd": name})

    async def hello(request: Request) -> HTTPResponse:
        return _respond(session.handle({"cmd": "hello"}))

    async def openapi_json(request: Request) -> HTTPResponse:
        return JSONResponse(openapi())

    async def board(request: Request) -> HTTPResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html")

    async def docs(request: Request) -> HTTPResponse:
        return FileResponse(WEB_DIR / "docs.html", media_type="text/html")

    async def favicon(request: Request) -> HTTPResponse:
        return FileResponse(
            WEB_DIR / "favicon.svg", media_type="image/svg+xml", headers={"cache-control": "max-age=86400"}
        )

    routes = [
        Route("/v1", any_command, methods=["POST"]),
        Route("/v1/hello", hello, methods=["GET"]),
        Route("/v1/{cmd}", one_command, methods=["POST"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/", board, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Mount("/web", StaticFiles(directory=WEB_DIR), name="web"),
    ]

    async def no_route(request: Request, exc: Exception) -> HTTPResponse:
        # A path or method the API does not have still answers a protocol
        # object (never Starlette's plain text or a redirect).
        status = getattr(exc, "status_code", 404)
        what = "method" if status == 405 else "path"
        return _respond(
            error_response(
                None,
                "unknown_command",
                f"no {what} {request.method} {request.url.path[:80]!r}: "
                "POST /v1/<command> or /v1; GET /v1/hello, /openapi.json, /docs, /",
                None,
            ),
            status,
        )

    # Outermost first: every answer gets the page headers, refusals too; a
    # foreign Host is refused before anything; CORS then
    # answers preflights and adds its headers to every answer for an allowed
    # origin (the guard's refusals included, so such a page can read them).
    middleware = [Middleware(PageHeaders)]
    if allowed_hosts is not None:
        middleware.append(Middleware(HostGuard, allowed_hosts=list(allowed_hosts)))
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["content-type", "accept", "authorization"],
                max_age=600,
            )
        )
    middleware.append(Middleware(BrowserGuard, cors_origins=list(cors_origins)))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={404: no_route, 405: no_route})
    app.router.redirect_slashes = False  # /v1/ is not /v1: no 307 to follow
    app.state.session = session
    return app


# --------------------------------------------------------------------------
# Connections: uvicorn closes a kept-alive connection idle for
# timeout_keep_alive, but only after a response; a connection that never
# sends a whole request stays open forever (enough of them use up the
# process's file descriptors: issue 20 saw 1,100 make every new client time
# out), and limit_concurrency answers a plain-text 503 to everyone once
# enough idle sockets are open.  This h11 protocol starts the idle
# clock when a connection opens and keeps it running until a whole request
# has arrived (bytes trickled in do not reset it).  At most max_connections
# hold a place; past that a newcomer takes the place of the longest-idle
# holder.  A holder is idle when kept alive between requests, or when it
# has not sent a whole request within `request_grace` seconds of opening:
# a client's first request follows its connect at once, so a connection
# still inside its grace is about to carry one and is never closed to make
# room (issue 20 follow-up: a search's connection was), while one that sends
# nothing (slowloris) is closable after the grace.  A newcomer that finds no
# idle holder waits, its bytes held unread, until a place frees or its own
# grace ends; then a request it sent is answered 503 `busy`, and a
# connection that sent nothing is closed.


def server_config(
    app: ASGIApp,
    *,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    request_grace: float = DEFAULT_REQUEST_GRACE_S,
    **options: Any,
) -> Any:
    """A `uvicorn.Config` serving `app` with the limits above; `options`
    go to uvicorn (log_level, access_log, ...)."""
    import uvicorn

    return uvicorn.Config(
        app,
        http=_connection_class(max_connections, min(request_grace, idle_timeout)),
        # uvicorn annotates int seconds; asyncio's call_later takes the float as it is
        timeout_keep_alive=idle_timeout,  # type: ignore[arg-type]
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        **options,
    )


def _connection_class(max_connections: int, grace: float) -> type:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    busy = error_response(
        None,
        "busy",
        f"all {max_connections} connections are busy with requests; "
        "try again shortly (tacocat serve --max-connections)",
    )

    async def answer_busy(scope: Scope, receive: Receive, send: Send) -> None:
        await _respond(busy, 503, headers={"connection": "close"})(scope, receive, send)

    share = max(1, max_connections // 2)
    """Places one peer may keep when a newcomer from another peer needs one
    (a peer over it gives up a connection still sending its request)."""
    over_share = encode_response(
        error_response(
            None,
            "busy",
            f"this client holds more than its share ({share}) of the server's {max_connections} connections "
            "while another client waits; finish or close the others (tacocat serve --max-connections)",
        )
    ).encode()

    unreadable = encode_response(
        error_response(
            None,
            "bad_json",
            f"not an HTTP/1.1 request this server can read (request line and headers at most {MAX_HEAD_BYTES} bytes)",
        )
    ).encode()

    class Connection(H11Protocol):
        opened_at = 0.0
        idle_since = 0.0
        holds_place = False
        """One of the max_connections places is this connection's."""
        refused = False
        """Answered 503 busy; closes after that answer (holds no place)."""
        held = b""
        """Bytes a connection without a place sent, unread until it has one."""
        grace_timer: asyncio.TimerHandle | None = None
        waiting_for_place: ClassVar[set[Connection]] = set()
        """Connections without a place that sent bytes: given the first place
        that frees (shared by every connection of the server)."""

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.opened_at = self.loop.time()
            self._go_idle()
            self.holds_place = self._make_room()
            if not self.holds_place:
                self.grace_timer = self.loop.call_later(grace, self._grace_over)

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            self._forget()
            if self.holds_place:
                self._give_freed_place()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # arms the keep-alive timer
            self.idle_since = self.loop.time()
            if self.holds_place and not self.transport.is_closing():
                self._give_freed_place()  # this connection is idle now: a waiting request may take its place

        def data_received(self, data: bytes) -> None:
            if self.holds_place or self.refused:
                return self._read(data)
            self.held += data
            self.transport.pause_reading()  # at most one read held per waiting connection
            if self._make_room():
                self._take_place()
            else:
                self.waiting_for_place.add(self)

        def _read(self, data: bytes) -> None:
            waiting, cycle = self.waiting(), self.cycle
            super().data_received(data)  # cancels the idle timer
            if (
                waiting
                and self.cycle is cycle
                and self.timeout_keep_alive_task is None
                and not self.transport.is_closing()
            ):
                # Part of a request: its deadline is still the one set when
                # the connection went idle.
                self.timeout_keep_alive_task = self.loop.call_at(
                    self.idle_since + self.timeout_keep_alive, self.timeout_keep_alive_handler
                )

        def send_400_response(self, msg: str) -> None:
            # uvicorn answers plain text; a client of this API reads JSON.
            self._answer_and_close(400, b"Bad Request", unreadable)

        def _answer_and_close(self, status: int, reason: bytes, body: bytes) -> None:
            head = h11.Response(
                status_code=status,
                reason=reason,
                headers=[
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            )
            try:
                for event in (head, h11.Data(data=body), h11.EndOfMessage()):
                    self.transport.write(self.conn.send(event))
            except h11.LocalProtocolError:  # an answer already begun: the close says it
                pass
            self.transport.close()

        def peer(self) -> str | None:
            return self.client[0] if self.client else None

        def sending_request(self) -> bool:
            """A request's headers arrived, its body is still coming (a
            trickle holds a place until the body timeout)."""
            return self.cycle is not None and self.conn.their_state is h11.SEND_BODY

        def waiting(self) -> bool:
            """No request running: between requests, or none sent yet."""
            return self.cycle is None or self.cycle.response_complete

        def idle(self, now: float) -> bool:
            """Closable to make room: kept alive between requests, or no
            whole request sent within the grace since it opened."""
            if self.cycle is None:
                return now - self.opened_at >= grace
            return self.cycle.response_complete

        def _go_idle(self) -> None:
            self._unset_keepalive_if_required()
            self.idle_since = self.loop.time()
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

        def _make_room(self) -> bool:
            """Whether a place is free for this connection, closing the
            longest-idle holder if that is what frees one."""
            holders = [
                c
                for c in self.connections
                if c is not self and isinstance(c, Connection) and c.holds_place and not c.transport.is_closing()
            ]
            if len(holders) < max_connections:
                return True
            now = self.loop.time()
            held = Counter(c.peer() for c in holders)
            idle = [c for c in holders if c.idle(now)]
            if held[self.peer()] >= share:
                # A peer at its share makes room from its own idle connections
                # (or an over-share peer's), never another's kept alive between
                # its requests: a flood's waiting connections closed a victim's
                # after every answer, its next request reset (fuzz fair-share door).
                idle = [c for c in idle if c.peer() == self.peer() or held[c.peer()] > share]
            if idle:
                oldest = min(idle, key=lambda c: c.idle_since)
                oldest._unset_keepalive_if_required()
                oldest.timeout_keep_alive_handler()  # closed as its idle timeout would
                return True
            # Every place busy.  A newcomer under its peer's share takes the
            # place of a connection still sending its request from a peer over
            # its share (N3: one program's trickled bodies held every place
            # until the body timeout); running requests are never cut.
            if held[self.peer()] >= share:
                return False
            sending = [c for c in holders if held[c.peer()] > share and c.sending_request()]
            if not sending:
                return False
            newest = max(sending, key=lambda c: c.opened_at)
            log.warning("peer %s over its share of connections: its newest unfinished request refused", newest.peer())
            newest._answer_and_close(503, b"Service Unavailable", over_share)
            return True

        def _take_place(self) -> None:
            self.holds_place = True
            self._release()

        def _refuse(self) -> None:
            log.warning("all %d connections are busy: a new one is answered 503 busy", max_connections)
            self.refused = True
            self.app = answer_busy
            self._release()

        def _release(self) -> None:
            """Read what was held back, now that this connection has a place or is refused."""
            self._forget()
            held, self.held = self.held, b""
            self.transport.resume_reading()
            if held:
                self._read(held)

        def _forget(self) -> None:
            self.waiting_for_place.discard(self)
            if self.grace_timer is not None:
                self.grace_timer.cancel()
                self.grace_timer = None

        def _give_freed_place(self) -> None:
            # The peers holding fewest places first: a freed place goes to a
            # waiting newcomer before the flood that filled the server.
            held = Counter(c.peer() for c in self.connections if isinstance(c, Connection) and c.holds_place)
            for waiting in sorted(self.waiting_for_place, key=lambda c: (held[c.peer()], c.opened_at)):
                if waiting.transport.is_closing():
                    waiting._forget()
                elif waiting._make_room():
                    waiting._take_place()
                else:
                    return

        def _grace_over(self) -> None:
            self.grace_timer = None
            if self.holds_place or self.refused or self.transport.is_closing():
                return
            if self._make_room():
                self._take_place()
            elif self.held:
                self._refuse()
            else:  # sent nothing, and nobody else is idle
                self._forget()
                self.timeout_keep_alive_handler()

    return Connection


# --------------------------------------------------------------------------
# OpenAPI, generated from the command table.


def _request_schema(name: str, with_cmd: bool) -> dict:
    command = COMMANDS[name]
    props: dict[str, Any] = {
        "id": {"type": ["string", "integer", "number", "null"], "description": "Echoed in the answer."}
    }
    if with_cmd:
        props["cmd"] = {"const": name}
    for f in command.fields:
        schema: dict[str, Any] = {"type": list(f.types) if len(f.types) > 1 else f.types[0], "description": f.doc}
        if f.enum is not None:
            schema["enum"] = list(f.enum)
        if f.minimum is not None:
            schema["minimum"] = f.minimum
        props[f.name] = schema
    required = [f.name for f in command.fields if f.required] + (["cmd"] if with_cmd else [])
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


_RESPONSE_SCHEMA = {
    "type": "object",
    "required": ["id", "ok"],
    "properties": {
        "id": {"description": "The request's id, echoed."},
        "ok": {"type": "boolean"},
        "cmd": {"type": "string"},
        "result": {"type": "object", "description": "When ok: the command's result (docs/protocol.md)."},
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": list(ERROR_CODES)},
                "message": {"type": "string"},
                "field": {"type": "string"},
            },
        },
        "stopped": {"type": "boolean", "description": "Searches: ended early by stop or the time cap."},
    },
}


def openapi() -> dict:
    """The OpenAPI 3.1 description of the HTTP transport."""
    responses = {
        "200": {
            "description": "ok: true",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Response"}}},
        },
        "default": {
            "description": "ok: false; the status mirrors error.code: "
            + ", ".join(f"{code} {status}" for code, status in HTTP_STATUS.items())
            + "; also 413 (bad_json) for a body over the size limit, 415 (bad_json) for a POST whose "
            "Content-Type is not application/json, 421 (forbidden) for a Host that is not the server's, "
            "405 (unknown_command) for a method the path does not have, 408 (bad_json) for a body not all "
            "arrived within the body timeout (tacocat serve --idle-timeout) of its headers",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Response"}}},
        },
    }
    paths: dict[str, Any] = {
        "/v1": {
            "post": {
                "summary": "Any command: the body is a whole request with cmd (as in JSON Lines).",
                "operationId": "request",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"oneOf": [{"$ref": f"#/components/schemas/{name}_request"} for name in COMMANDS]}
                        }
                    },
                },
                "responses": responses,
            }
        },
        "/v1/hello": {"get": {"summary": COMMANDS["hello"].doc, "operationId": "hello_get", "responses": responses}},
    }
    schemas: dict[str, Any] = {"Response": _RESPONSE_SCHEMA}
    for name, command in COMMANDS.items():
        schemas[f"{name}_request"] = _request_schema(name, with_cmd=True)
        example = {k: v for k, v in command.example.items() if k != "cmd"}
        paths[f"/v1/{name}"] = {
            "post": {
                "summary": command.doc,
                "operationId": name,
                "requestBody": {
                    "required": False,
                    "content": {
                        "application/json": {"schema": _request_schema(name, with_cmd=False), "example": example}
                    },
                },
                "responses": responses,
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "tacocat engine protocol",
            "version": PROTOCOL_VERSION,
            "description": f"Engine {__version__}. The JSON Lines protocol of `tacocat engine` over HTTP; "
            "every message is described in the project's docs/protocol.md (in its source tree and package "
            "documentation; this server serves the board, this page and the API, not the docs).",
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }
