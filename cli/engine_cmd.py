"""`tacocat engine`: the engine protocol as JSON Lines on stdin/stdout
(transport in `tacocat.protocol.jsonlines`, messages in docs/protocol.md)."""

from __future__ import annotations

import logging
import sys

import click

from tacocat.cli.notation import friendly_errors
from tacocat.protocol.jsonlines import DEFAULT_MAX_LINE, serve_stdio
from tacocat.protocol.session import EngineSession
from tacocat.rules.ruleset import load_ruleset


@click.command(name="engine")
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml) for the session; standard by default.")
@click.option("--max-time-ms", type=click.IntRange(1), default=None,
              help="Cap on any search's time: time_ms is cut to it and a search still running then is stopped. No cap by default.")
@click.option("--max-searches", type=click.IntRange(1), default=1, show_default=True,
              help="Searches running at once; later ones wait their turn (--max-queue).")
@click.option("--max-queue", type=click.IntRange(0), default=8, show_default=True,
              help="Searches that wait, in order, behind the running ones; more answer 'busy'.")
@click.option("--max-games", type=click.IntRange(1), default=1000, show_default=True,
              help="Games kept open; then the oldest finished one is forgotten, or new_game answers 'busy'.")
@click.option("--max-line", type=click.IntRange(64), default=DEFAULT_MAX_LINE, show_default=True,
              help="Longest request line in bytes; longer lines answer 'bad_json'.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning",
              show_default=True, help="Logging on stderr.")
@friendly_errors
def command(rules_path: str | None, max_time_ms: int | None, max_searches: int, max_queue: int, max_games: int,
            max_line: int, log_level: str) -> None:
    """Speak the engine protocol as JSON Lines on stdin/stdout.

    \b
    One JSON request per line, one JSON response per line with the same id:
      {"id": 1, "cmd": "hello"}
      {"id": 2, "cmd": "new_game", "seed": 42}
      {"id": 3, "cmd": "legal", "game": "g1", "player": 0}
      {"id": 4, "cmd": "hint", "game": "g1", "player": 0, "time_ms": 5000, "info_ms": 250}
      {"id": 5, "cmd": "stop"}
      {"id": 6, "cmd": "move", "game": "g1", "player": 1, "level": 4}
      {"id": 7, "cmd": "quit"}

    Searches (hint, move, solve) run in the background, one after another
    in order: stop and other commands are answered while one runs; with
    info_ms a search sends {"id", "cmd", "info": {...}} lines as it goes.
     Every message: docs/protocol.md."""
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper()),
                        format="tacocat engine %(levelname)s: %(message)s")
    rules = load_ruleset(rules_path)
    session = EngineSession(rules, max_games=max_games, max_searches=max_searches, max_time_ms=max_time_ms,
                            max_queue=max_queue, limits={"max_line_bytes": max_line})
    serve_stdio(session, max_line)
