"""`tacocat serve`: the engine protocol over HTTP (tacocat.protocol.http).

Binds 127.0.0.1 by default; searches are capped in time (--max-time-ms) and
requests in size (--max-body); games are kept in an SQLite file (--store)
so that a restart continues them.  Needs the `serve` extra."""

from __future__ import annotations

import re
import socket
import sys
from typing import Any, Unpack

import click

from tacocat.cli.door_options import FiniteFloatRange, SessionCaps, door_options, log_to_stderr
from tacocat.cli.option_table import ranged_option
from tacocat.cli.terminal import friendly_errors
from tacocat.errors import TacocatError
from tacocat.protocol.commands import MAX_BYTES
from tacocat.protocol.session import MIN_ADMIN_TOKEN, warm_search
from tacocat.rules.ruleset import load_ruleset


@click.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@ranged_option("--port", click.IntRange(0, 65535), 8000, "Port to bind.")
@door_options(rules={}, max_time_ms={"default": 10_000, "show_default": True})
@ranged_option(
    "--max-body", click.IntRange(64, MAX_BYTES), 1 << 20, "Largest request body in bytes; larger ones answer 413."
)
@door_options(
    max_searches={"default": 4},
    max_queue={"default": 16, "busy": "503 busy"},
    max_games={"busy": "busy"},
)
@click.option(
    "--store",
    "store_path",
    default=None,
    metavar="FILE",
    help="SQLite file keeping the games (every accepted action is committed before it is answered; a "
    "restart continues every game; private, 0600; locked while this server runs, so a second server "
    "on it is refused). Default: $XDG_DATA_HOME/tacocat/games.sqlite3.",
)
@click.option("--no-store", is_flag=True, help="Keep games in memory only: a restart forgets them.")
@click.option(
    "--admin-token",
    envvar="TACOCAT_ADMIN_TOKEN",
    default=None,
    callback=lambda ctx, param, value: _admin_token(value),
    help="The server owner's secret (or $TACOCAT_ADMIN_TOKEN), at least "
    f"{MIN_ADMIN_TOKEN} characters: a stop that sends it ends every client's searches "
    "(any other stop ends only the caller's own).",
)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    metavar="URL",
    help="Let pages from this origin (e.g. http://localhost:5173) call the API from a browser; repeatable. "
    "CORS is off by default.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests whose Host is NAME (with this port or none) or NAME:PORT, e.g. a name the "
    "server is reached by through a proxy; repeatable. Default: the --host address, and localhost, "
    "127.0.0.1 and [::1] when bound to the loopback; any other Host is refused (421).",
)
@ranged_option(
    "--idle-timeout",
    FiniteFloatRange(0.1, 3600),
    5.0,
    "Close a connection that has not sent a whole request for this long (kept-alive ones too), "
    "and one whose request body has not all arrived this long after its headers (408).",
    metavar="SECONDS",
)
@ranged_option(
    "--max-connections",
    click.IntRange(1, 100_000),
    256,
    "Connections kept open; past it the longest-idle one is closed (503 busy when all are busy; "
    "one client keeps at most half when another waits).",
)
@click.option(
    "--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True
)
@click.option(
    "--no-access-log",
    is_flag=True,
    help="Do not log each request (by default one line per request on stdout, at --log-level info or debug).",
)
@friendly_errors
def command(
    host: str,
    port: int,
    rules_path: str | None,
    max_body: int,
    store_path: str | None,
    no_store: bool,
    admin_token: str | None,
    cors_origins: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    idle_timeout: float,
    max_connections: int,
    log_level: str,
    no_access_log: bool,
    **caps: Unpack[SessionCaps],
) -> None:
    """Serve the engine protocol over HTTP.

    \b
    POST /v1/<command> with the command's fields as a JSON body, or POST /v1
    with a whole request {"cmd": ...}; GET /openapi.json describes them all.
      tacocat serve --port 8765
      curl -s localhost:8765/v1/new_game -H 'content-type: application/json' -d '{"seed": 42}'
      curl -s localhost:8765/v1/hint --json '{"game": "<id>", "player": 0, "token": "<seat 0 token>", "time_ms": 500}'
    new_game answers a secret token per seat and one for the owner; every
    game request needs one.  The web board is at / (play the engine, hints,
    replays; serve prints its URL and opens nothing), the API described at
    /docs; each request is logged in one line (--no-access-log: none).
    Pages from other origins may
    call the API only with --cors-origin; every POST must be
    Content-Type: application/json (curl --json), and the Host header one
    of the server's names (--allowed-host).  Messages: docs/protocol.md."""
    try:
        import uvicorn  # noqa: F401  (the serve extra, checked here; _stopping_server runs it)

        from tacocat.protocol.http import create_app, host_names, server_config
    except ImportError as exc:
        raise TacocatError(f"tacocat serve needs the 'serve' extra (pip install 'tacocat[serve]'): {exc}") from None
    from tacocat.protocol.session import EngineSession
    from tacocat.protocol.store import GameStore, default_store_path

    log_to_stderr("serve", log_level)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"warning: binding {host}: the engine has no authentication; anyone who reaches it can use it "
            "(requests naming a Host other than its address need --allowed-host)",
            err=True,
        )
    if store_path is not None and no_store:
        raise TacocatError("give --store FILE or --no-store, not both")
    for origin in cors_origins:
        if not origin.startswith(("http://", "https://")) or origin.rstrip("/") != origin or origin.count("/") != 2:
            raise TacocatError(
                f"--cors-origin {origin!r}: expected an origin like http://localhost:5173 "
                "(scheme, host, optional port; no path)"
            )
    for name in allowed_hosts:
        if not re.fullmatch(r"(\*|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?", name):
            raise TacocatError(
                f"--allowed-host {name!r}: expected a host name, NAME:PORT, [IPv6] or * (no scheme, no path)"
            )
    rules = load_ruleset(rules_path)
    sock = bind_socket(host, port)  # before anything starts: a busy port is one line, exit 2
    store = None if no_store else GameStore(store_path or default_store_path())
    # caps: --max-time-ms, --max-searches, --max-queue, --max-games, by their EngineSession names
    session = EngineSession(
        rules,
        **caps,
        store=store,
        limits={"idle_timeout_s": idle_timeout, "max_connections": max_connections},
        admin_token=admin_token,
    )
    warm_search()
    app = create_app(
        session,
        max_body=max_body,
        cors_origins=cors_origins,
        allowed_hosts=host_names(host, sock.getsockname()[1], allowed_hosts),
        body_timeout=idle_timeout,
    )
    config = server_config(
        app,
        idle_timeout=idle_timeout,
        max_connections=max_connections,
        log_level=log_level,
        access_log=not no_access_log,
    )
    # The address to open, never opened for the user: a server may run
    # where no browser should start.
    url = board_url(host, sock.getsockname()[1])
    click.echo(f"tacocat serve: the board is at {url} (the API: {url}docs); Ctrl-C stops the server", err=False)
    sys.stdout.flush()
    try:
        _stopping_server(config, session).run(sockets=[sock])
    finally:
        if store is not None:
            store.close()


def _admin_token(value: str | None) -> str | None:
    if value is not None and len(value) < MIN_ADMIN_TOKEN:
        # Checked before the server starts: the session refuses it too, but
        # then the flag's name would be lost.
        raise click.BadParameter(
            f"expected at least {MIN_ADMIN_TOKEN} characters (a secret nobody guesses), got {len(value)}",
            param_hint="'--admin-token'",
        )
    return value


SHUTDOWN_GRACE_S = 1.5
"""After SIGTERM (or Ctrl-C), how long answers in flight may take to go out
before their connections are closed: every search is stopped first, so
each answers its best so far well within it."""


def _stopping_server(config: Any, session: Any) -> Any:
    """A uvicorn server whose exit stops every search of `session` first: a
    running search (a count budget, an engine seat's reply) would otherwise
    hold the shutdown for as long as it runs (only SIGKILL ended it, N1)."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            session.stop_searches()
            super().handle_exit(sig, frame)

    config.timeout_graceful_shutdown = SHUTDOWN_GRACE_S
    return Server(config)


def board_url(host: str, port: int) -> str:
    """The URL a browser on this machine opens for a server bound to
    host:port (every interface: through the loopback)."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port, or a TacocatError saying why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise TacocatError(f"--host {host!r}: not an address this machine can bind ({exc})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        reason = "is already in use" if exc.errno in (98, 48, 10048) else f"cannot be bound: {exc.strerror or exc}"
        raise TacocatError(f"port {port} on {host} {reason}; give another with --port") from None
    sock.set_inheritable(True)
    return sock
