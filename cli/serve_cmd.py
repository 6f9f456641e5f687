"""`tacocat serve`: the engine protocol over HTTP (cli/http_app.py).

Binds 127.0.0.1 by default; searches are capped in time (--max-time-ms) and
requests in size (--max-body).  Needs the `serve` extra."""

from __future__ import annotations

import logging
import sys

import click

from tacocat.cli.notation import friendly_errors
from tacocat.errors import TacocatError
from tacocat.rules.ruleset import load_ruleset


@click.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to bind.")
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml) for the session; standard by default.")
@click.option("--max-time-ms", default=10_000, show_default=True, type=click.IntRange(1),
              help="Cap on any search's time: time_ms is cut to it and a search still running then is stopped.")
@click.option("--max-body", default=1 << 20, show_default=True, type=click.IntRange(64),
              help="Largest request body in bytes; larger ones answer 413.")
@click.option("--max-searches", default=4, show_default=True, type=click.IntRange(1),
              help="Searches running at once; later ones wait their turn (--max-queue).")
@click.option("--max-games", default=1000, show_default=True, type=click.IntRange(1),
              help="Games kept open; then the oldest finished one is forgotten, or new_game answers busy.")
@click.option("--max-queue", default=16, show_default=True, type=click.IntRange(0),
              help="Searches that wait, in order, behind the running ones; more answer 503 busy.")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="URL",
              help="Let pages from this origin (e.g. http://localhost:5173) call the API from a browser; repeatable. "
                   "CORS is off by default.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True)
@friendly_errors
def command(host: str, port: int, rules_path: str | None, max_time_ms: int, max_body: int, max_searches: int,
            max_games: int, max_queue: int, cors_origins: tuple[str, ...], log_level: str) -> None:
    """Serve the engine protocol over HTTP.

    \b
    POST /v1/<command> with the command's fields as a JSON body, or POST /v1
    with a whole request {"cmd": ...}; GET /openapi.json describes them all.
      tacocat serve --port 8765
      curl -s localhost:8765/v1/new_game -d '{"seed": 42}'
      curl -s localhost:8765/v1/hint -d '{"game": "g1", "player": 0, "time_ms": 500}'
    The web board is at / (play a bot, hints, replays), the API described
    at /docs.  Pages from other origins may call the API only with
    --cors-origin.
    Messages: docs/protocol.md."""
    try:
        import uvicorn

        from tacocat.protocol.http import create_app
    except ImportError as exc:
        raise TacocatError(f"tacocat serve needs the 'serve' extra (pip install 'tacocat[serve]'): {exc}") from None
    from tacocat.protocol.session import EngineSession

    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper()),
                        format="tacocat serve %(levelname)s: %(message)s")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: binding {host}: the engine has no authentication; anyone who reaches it can use it", err=True)
    for origin in cors_origins:
        if not origin.startswith(("http://", "https://")) or origin.rstrip("/") != origin or origin.count("/") != 2:
            raise TacocatError(f"--cors-origin {origin!r}: expected an origin like http://localhost:5173 "
                               "(scheme, host, optional port; no path)")
    session = EngineSession(load_ruleset(rules_path), max_games=max_games, max_searches=max_searches,
                            max_time_ms=max_time_ms, max_queue=max_queue)
    app = create_app(session, max_body=max_body, cors_origins=cors_origins)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=log_level == "debug")
