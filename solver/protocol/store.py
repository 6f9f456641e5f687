"""Games that survive the process: an SQLite file (the standard library's
`sqlite3`) holding each open game's state document and the hashes of its
tokens, so that after a crash or `kill -9` a restarted server continues
every game with the same id and the same tokens (docs/protocol.md, "Seats").

WAL mode with `synchronous=FULL`: a write is durable once `commit` returns,
and the session commits every accepted action before answering it.  Tokens
are stored as SHA-256 hashes only: whoever reads the file learns no token.
One connection, used under the session's lock."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from tacocat.errors import TacocatError

log = logging.getLogger("tacocat.engine")

SCHEMA_VERSION = 1


def default_store_path() -> Path:
    """`$XDG_DATA_HOME/tacocat/games.sqlite3` (~/.local/share by default)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tacocat" / "games.sqlite3"


class StoreError(TacocatError):
    """The game store cannot be opened or written."""

    code = "busy"


@dataclass
class StoredGame:
    game: str
    seats: tuple[str, str, str]
    """Token hashes: owner, seat 0, seat 1."""
    state: dict[str, Any]


class GameStore:
    """The games of one session, kept in an SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=5.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, owner TEXT NOT NULL, seat0 TEXT NOT NULL, "
                "seat1 TEXT NOT NULL, state TEXT NOT NULL, touched INTEGER NOT NULL)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            version = self.get_meta("schema")
            if version is None:
                self.set_meta("schema", SCHEMA_VERSION)
            elif version != SCHEMA_VERSION:
                raise StoreError(f"game store {str(self.path)!r} has schema {version!r}; this engine reads {SCHEMA_VERSION}")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the game store {str(self.path)!r}: {exc}") from None
        self._touched = self._db.execute("SELECT COALESCE(MAX(touched), 0) FROM games").fetchone()[0]

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self._write("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # ----------------------------------------------------------------- games
    def games(self) -> Iterator[StoredGame]:
        """Every stored game, least recently touched first."""
        rows = self._db.execute("SELECT id, owner, seat0, seat1, state FROM games ORDER BY touched").fetchall()
        for gid, owner, seat0, seat1, state in rows:
            try:
                yield StoredGame(gid, (owner, seat0, seat1), json.loads(state))
            except ValueError as exc:  # never written by us; keep the row, skip the game
                log.error("game store: game %s is unreadable (%s); skipped", gid, exc)

    def save(self, gid: str, seats: tuple[str, str, str], state: dict[str, Any]) -> None:
        """Insert or replace one game; durable when this returns."""
        self._touched += 1
        self._write(
            "INSERT OR REPLACE INTO games (id, owner, seat0, seat1, state, touched) VALUES (?, ?, ?, ?, ?, ?)",
            (gid, *seats, json.dumps(state, allow_nan=False), self._touched),
        )

    def delete(self, gid: str) -> None:
        self._write("DELETE FROM games WHERE id = ?", (gid,))

    def _write(self, sql: str, args: tuple) -> None:
        try:
            self._db.execute(sql, args)  # autocommit: one statement, one transaction
        except sqlite3.Error as exc:
            raise StoreError(f"the game store {str(self.path)!r} could not be written ({exc}); nothing was changed") from None

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error:  # pragma: no cover - closing a broken file
            pass
