"""Games that survive the process: an SQLite file (the standard library's
`sqlite3`) holding each open game's state document and the hashes of its
tokens, so that after a crash or `kill -9` a restarted server continues
every game with the same id and the same tokens (docs/protocol.md, "Keeping
games").

One store, one writer: the process that opens a store holds an exclusive
`flock` on the sidecar `<file>.lock` (which names its pid and command) until
it closes the store or dies; a second process is refused at once instead of
overwriting the first one's games with its own memory.  The kernel drops the
lock with the process, so a `kill -9` leaves nothing that blocks a restart.

The file holds both hands, the draw pile and the seed of every game: it is
created 0600 in a folder created 0700, and looser modes found on open are
tightened (the SQLite side files and the lock file too).

WAL mode with `synchronous=FULL`: a write is durable once `commit` returns,
and the session commits every accepted action before answering it.  Tokens
are stored as SHA-256 hashes only: whoever reads the file learns no token.
One connection, used under the session's lock."""

from __future__ import annotations

import json
import logging
import os
import shlex
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system
    fcntl = None  # type: ignore[assignment]

from tacocat.errors import TacocatError

log = logging.getLogger("tacocat.engine")

SCHEMA_VERSION = 2
"""1: games and meta.  2: each game's `updated` time and `client` (a file
of version 1 is migrated on open)."""

SIDE_FILES = ("-wal", "-shm", "-journal")
"""SQLite's files beside the store; they hold the same secrets."""

LOCK_SUFFIX = ".lock"


def default_store_path() -> Path:
    """`$XDG_DATA_HOME/tacocat/games.sqlite3` (~/.local/share by default)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tacocat" / "games.sqlite3"


def lock_path(path: str | Path) -> Path:
    """The sidecar whose `flock` says who has the store `path` open."""
    path = Path(path)
    return path.with_name(path.name + LOCK_SUFFIX)


class StoreError(TacocatError):
    """The game store cannot be opened or written."""

    code = "busy"


class StoreInUse(StoreError):
    """Another process has the game store open."""


@dataclass
class StoredGame:
    game: str
    seats: tuple[str, str, str]
    """Token hashes: owner, seat 0, seat 1."""
    state: dict[str, Any]
    updated: float = 0.0
    """Unix time of the game's last save (a game migrated from a version 1
    file counts from the migration)."""
    client: str | None = None
    """Who last saved it, as the session told `save` (None: never said)."""


class GameStore:
    """The games of one session, kept in an SQLite file that this object
    holds locked from `__init__` to `close` (or the process's end)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock: IO[bytes] | None = None
        self._db: sqlite3.Connection | None = None
        try:
            _private_folder(self.path.parent)
            self._lock = _take_lock(self.path)
            _private_file(self.path)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=5.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, owner TEXT NOT NULL, seat0 TEXT NOT NULL, "
                "seat1 TEXT NOT NULL, state TEXT NOT NULL, touched INTEGER NOT NULL, updated REAL, client TEXT)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            version = self.get_meta("schema")
            if version is not None and (not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION):
                raise StoreError(
                    f"game store {str(self.path)!r} has schema {version!r}; this engine reads "
                    f"1 to {SCHEMA_VERSION} (a newer tacocat wrote it?)"
                )
            self._migrate()
            for side in SIDE_FILES:  # created by the connection just now
                _tighten(Path(str(self.path) + side))
        except StoreError:
            self.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self.close()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise StoreError(f"cannot open the game store {str(self.path)!r}: {reason}") from None
        self._touched = self._db.execute("SELECT COALESCE(MAX(touched), 0) FROM games").fetchone()[0]

    def _migrate(self) -> None:
        """Bring a version 1 file (or a new one) to SCHEMA_VERSION, in one
        transaction: columns missing from `games` are added."""
        assert self._db is not None
        self._db.execute("BEGIN IMMEDIATE")
        try:
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            if "updated" not in columns:
                self._db.execute("ALTER TABLE games ADD COLUMN updated REAL")
                # Idle time counts from the migration: never evict at once a game last played before it.
                self._db.execute("UPDATE games SET updated = ?", (time.time(),))
            if "client" not in columns:
                self._db.execute("ALTER TABLE games ADD COLUMN client TEXT")
            self._db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", (json.dumps(SCHEMA_VERSION),)
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> Any:
        row = self._connection().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self._write("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # ----------------------------------------------------------------- games
    def games(self) -> Iterator[StoredGame]:
        """Every stored game, least recently touched first."""
        rows = (
            self._connection()
            .execute("SELECT id, owner, seat0, seat1, state, COALESCE(updated, 0), client FROM games ORDER BY touched")
            .fetchall()
        )
        for gid, owner, seat0, seat1, state, updated, client in rows:
            try:
                yield StoredGame(gid, (owner, seat0, seat1), json.loads(state), float(updated), client)
            except ValueError as exc:  # never written by us; keep the row, skip the game
                log.error("game store: game %s is unreadable (%s); skipped", gid, exc)

    def save(self, gid: str, seats: tuple[str, str, str], state: dict[str, Any], *, client: str | None = None) -> None:
        """Insert or replace one game, its `updated` time now; durable when
        this returns.  `client`: who saved it; None keeps the one stored."""
        self._touched += 1
        self._write(
            "INSERT INTO games (id, owner, seat0, seat1, state, touched, updated, client) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, seat0 = excluded.seat0, seat1 = excluded.seat1, "
            "state = excluded.state, touched = excluded.touched, updated = excluded.updated, "
            "client = COALESCE(excluded.client, games.client)",
            (gid, *seats, json.dumps(state, allow_nan=False), self._touched, time.time(), client),
        )

    def delete(self, gid: str) -> None:
        self._write("DELETE FROM games WHERE id = ?", (gid,))

    def _write(self, sql: str, args: tuple) -> None:
        try:
            self._connection().execute(sql, args)  # autocommit: one statement, one transaction
        except sqlite3.Error as exc:
            raise StoreError(
                f"the game store {str(self.path)!r} could not be written ({exc}); nothing was changed"
            ) from None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(f"the game store {str(self.path)!r} is closed")
        return self._db

    def close(self) -> None:
        """Close the file, then let another process open it."""
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:  # pragma: no cover - closing a broken file
                pass
            self._db = None
        if self._lock is not None:
            _release_lock(self._lock)
            self._lock = None

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ------------------------------------------------------------- the lock


def _take_lock(path: Path) -> IO[bytes] | None:
    """Hold `<path>.lock` exclusively, or raise StoreInUse naming who does.
    The file then says `pid` and command, for the next one to read."""
    if fcntl is None:  # pragma: no cover - no flock here: one writer is then up to the user
        log.warning("game store %s: this system has no flock; nothing stops a second process opening it", path)
        return None
    # One lock per file, whatever name it is given: a symlink's is its
    # target's; a file with a second name (a hard link) is refused, since
    # SQLite keeps a journal per name and two names would be two writers.
    links = path.stat().st_nlink if path.exists() else 1
    if links > 1:
        raise StoreError(
            f"game store {str(path)!r} has {links} names (hard links); one store has one writer "
            "and one name: remove the other names, or copy the file"
        )
    sidecar = lock_path(path.resolve())
    handle = open(sidecar, "r+b", opener=lambda name, flags: os.open(name, os.O_RDWR | os.O_CREAT, 0o600))
    try:
        _tighten(sidecar)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreInUse(
                f"game store {str(path)!r} is in use by another process ({_holder(handle)}); one store has one "
                "writer: stop that process, or give this one another --store FILE"
            ) from None
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n{_command()}\n".encode())
        handle.flush()
    except BaseException:
        handle.close()
        raise
    return handle


def _holder(handle: IO[bytes]) -> str:
    """`pid N: command` from a lock file another process holds.  It writes
    them just after taking the lock: an empty file is read again a little
    later (at most half a second)."""
    deadline = time.monotonic() + 0.5
    while True:
        handle.seek(0)
        lines = handle.read(4096).decode("utf-8", "replace").splitlines()
        if len(lines) >= 2 and lines[0].isdigit():
            return f"pid {lines[0]}: {lines[1]}"
        if time.monotonic() > deadline:
            return "pid unknown"
        time.sleep(0.02)


def _command() -> str:
    """This process's command line, on one line and at most 200 characters."""
    argv = [os.path.basename(sys.argv[0] or "python"), *sys.argv[1:]]
    text = " ".join(shlex.quote(arg) for arg in argv)
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 200 else text[:199] + "…"


def _release_lock(handle: IO[bytes]) -> None:
    try:
        handle.truncate(0)  # no longer anyone's
        handle.flush()
    except OSError:  # pragma: no cover - the lock goes with the descriptor anyway
        pass
    handle.close()


# ------------------------------------------------------- private files


def _private_folder(folder: Path) -> None:
    """Create `folder` 0700 if it is missing (its parents as usual); a folder
    that exists is the user's and is left as it is."""
    if folder.is_dir():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        return
    os.chmod(folder, 0o700)  # mkdir's mode went through the umask


def _private_file(path: Path) -> None:
    """Create the store file 0600 before SQLite does (it would use the
    umask, usually 0644), tighten an existing one and its side files."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for name in (str(path), *(str(path) + side for side in SIDE_FILES)):
        _tighten(Path(name))


def _tighten(path: Path) -> None:
    """chmod 0600 a file that group or others may read or write."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if mode & 0o077:
        os.chmod(path, 0o600)
