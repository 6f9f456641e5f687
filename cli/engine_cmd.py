"""`tacocat engine`: the engine protocol as JSON Lines on stdin/stdout
(transport in `tacocat.protocol.jsonlines`, messages in docs/protocol.md)."""

from __future__ import annotations

from typing import Unpack

import click

from tacocat.cli.door_options import CAP_HELP, SessionCaps, door_options, log_to_stderr
from tacocat.cli.option_table import ranged_option
from tacocat.cli.terminal import friendly_errors
from tacocat.protocol.commands import MAX_BYTES
from tacocat.protocol.jsonlines import DEFAULT_MAX_LINE, serve_stdio
from tacocat.protocol.session import EngineSession, warm_search
from tacocat.protocol.store import GameStore
from tacocat.rules.ruleset import load_ruleset

DEFAULT_ENGINE_CAP_MS = 60_000
"""A minute: no search, and no engine seat's reply, holds the engine longer
unless the frontend asks for it (an engine seat given an hour used to keep
it thinking for an hour)."""


@click.command(name="engine")
@door_options(
    rules={},
    max_time_ms={
        "default": DEFAULT_ENGINE_CAP_MS,
        "show_default": True,
        "help": CAP_HELP + " A frontend that wants longer searches (an hour's analysis) gives more.",
    },
    max_searches={"default": 1},
    max_queue={"default": 8, "busy": "'busy'"},
    max_games={"busy": "'busy'"},
)
@ranged_option(
    "--max-line",
    click.IntRange(64, MAX_BYTES),
    DEFAULT_MAX_LINE,
    "Longest request line in bytes; longer lines answer 'bad_json'.",
)
@click.option(
    "--store",
    "store_path",
    default=None,
    metavar="FILE",
    help="Keep the games in this SQLite file (every accepted action committed before it is answered): "
    "a restarted engine continues them with the same ids and tokens. The file is private (0600) and "
    "locked while this engine runs: a second process on it is refused. Memory only by default.",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="Logging on stderr.",
)
@friendly_errors
def command(
    rules_path: str | None, max_line: int, store_path: str | None, log_level: str, **caps: Unpack[SessionCaps]
) -> None:
    """Speak the engine protocol as JSON Lines on stdin/stdout.

    \b
    One JSON request per line, one JSON response per line with the same id:
      {"id": 1, "cmd": "hello"}
      {"id": 2, "cmd": "new_game", "seed": 42}      (answers the game id and its tokens)
      {"id": 3, "cmd": "legal", "game": "<id>", "player": 0, "token": "<seat 0 token>"}
      {"id": 4, "cmd": "hint", "game": "<id>", "player": 0, "token": "<seat 0 token>", "time_ms": 5000, "info_ms": 250}
      {"id": 5, "cmd": "stop"}
      {"id": 6, "cmd": "move", "game": "<id>", "player": 1, "token": "<seat 1 token>", "level": 4}
      {"id": 7, "cmd": "quit"}

    Searches (hint, move, solve) run in the background, one after another
    in order: stop and other commands are answered while one runs; with
    info_ms a search sends {"id", "cmd", "info": {...}} lines as it goes.
     Every message: docs/protocol.md."""
    log_to_stderr("engine", log_level)
    rules = load_ruleset(rules_path)
    store = GameStore(store_path) if store_path is not None else None
    # caps: --max-time-ms, --max-searches, --max-queue, --max-games, by their EngineSession names
    session = EngineSession(rules, **caps, limits={"max_line_bytes": max_line}, store=store)
    warm_search()
    try:
        serve_stdio(session, max_line)
    finally:
        if store is not None:
            store.close()
