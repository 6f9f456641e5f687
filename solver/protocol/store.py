"""Games that survive the process: an SQLite file (the standard library's
`sqlite3`) holding each open game's state document and the hashes of its
tokens, so that after a crash or `kill -9` a restarted server continues
every game with the same id and the same tokens (docs/protocol.md, "Keeping
games").

One store, one writer: the process that opens a store holds an exclusive
`flock` on the database file itself (whatever name it is reached by, and
however its lock file is treated) and on the sidecar `<file>.lock` beside
it (which names its pid and command, and keeps the name: a new file put
where a moved store was would share the moved one's WAL by name) until it
closes the store or dies; a second process is refused at once instead of
overwriting the first one's games with its own memory.  Before every write
the name is checked to still be the file held open: a store moved or
replaced under a running server refuses writes rather than commit to a
database whose WAL a restart would no longer find.  The kernel drops the
locks with the process, so a `kill -9` leaves nothing that blocks a
restart.  No lock or side file is opened or chmodded through a symbolic
link (one planted there would aim the truncate and chmod at its target).

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
import stat
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
        self._file: int | None = None
        """The database file, held open (and flocked) while the store is:
        never closed before SQLite's connection, whose POSIX locks on it
        any close of the file in this process would drop."""
        self._identity: tuple[int, int] | None = None
        self._db: sqlite3.Connection | None = None
        try:
            _private_folder(self.path.parent)
            self._real = _one_name(self.path)
            # The name first: a second store of this process is refused
            # there without opening the file (see _file).
            self._lock = _take_lock(self.path, self._real)
            _not_held_here(self.path, self._real)
            self._file = _open_private(self._real, "game store")
            self._identity = _identity(os.fstat(self._file))
            _take_file_lock(self._file, self.path, self._identity)
            _say_holder(self._lock)
            _no_linked_side_files(self._real)
            _tighten_fd(self._file)
            for side in SIDE_FILES:
                _tighten(Path(str(self._real) + side))
            self._db = sqlite3.connect(str(self._real), check_same_thread=False, isolation_level=None, timeout=5.0)
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
                _tighten(Path(str(self._real) + side))
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
        db = self._connection()
        self._check_same_file()
        try:
            db.execute(sql, args)  # autocommit: one statement, one transaction
        except sqlite3.Error as exc:
            raise StoreError(
                f"the game store {str(self.path)!r} could not be written ({exc}); nothing was changed"
            ) from None

    def _check_same_file(self) -> None:
        """Refuse to write once the store's name no longer leads to the file
        held open (moved, deleted or replaced): SQLite finds the WAL by the
        database's name, so a commit now could be lost at the next open,
        and a file now at that name may be another server's."""
        try:
            now = _identity(os.stat(self._real))
        except OSError:
            now = None
        if now != self._identity:
            raise StoreError(
                f"the game store {str(self.path)!r} was moved, deleted or replaced while this process had it "
                "open; nothing was written: put it back, or restart the server"
            )

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
        if self._file is not None:
            if self._identity is not None:
                _HELD_HERE.discard(self._identity)
            os.close(self._file)  # after the connection: see _file
            self._file = None

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ------------------------------------------------------------- the lock


def _one_name(path: Path) -> Path:
    """The file `path` names, links resolved.  One lock per file, whatever
    name it is given: a symlink's is its target's; a file with a second name
    (a hard link) is refused, since SQLite keeps a journal per name and two
    names would be two writers."""
    links = path.stat().st_nlink if path.exists() else 1
    if links > 1:
        raise StoreError(
            f"game store {str(path)!r} has {links} names (hard links); one store has one writer "
            "and one name: remove the other names, or copy the file"
        )
    return path.resolve()


def _open_private(path: Path, what: str) -> int:
    """Open (or create 0600) the regular file `path` read-write, never
    through a symbolic link or into a file with other names."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        if os.path.islink(path):
            raise StoreError(
                f"{what} {str(path)!r} is a symbolic link; it is not followed (its target would be "
                "truncated): remove the link"
            ) from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        kind = "has other names (hard links)" if stat.S_ISREG(info.st_mode) else "is not a regular file"
        raise StoreError(f"{what} {str(path)!r} {kind}; it is not written: remove it")
    return fd


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


_HELD_HERE: set[tuple[int, int]] = set()
"""The database files this process holds (device, inode)."""


def _not_held_here(path: Path, real: Path) -> None:
    """Refuse a file this process holds already (its lock file removed),
    before opening it: closing a second descriptor of it would drop the
    holder's SQLite locks."""
    try:
        held = _identity(os.stat(real)) in _HELD_HERE
    except FileNotFoundError:
        held = False
    if held:
        raise _in_use(path, "this process already, through another GameStore")


def _take_file_lock(fd: int, path: Path, identity: tuple[int, int]) -> None:
    """Hold the database file itself exclusively, or raise StoreInUse.
    Another process holding it may have lost its lock file (deleted, or
    the store moved away from it): who it is is then unknown."""
    if fcntl is None:  # pragma: no cover - no flock here: one writer is then up to the user
        log.warning("game store %s: this system has no flock; nothing stops a second process opening it", path)
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _in_use(path, "another process (pid unknown: its lock file was removed, or the store renamed)") from None
    _HELD_HERE.add(identity)


def _in_use(path: Path, holder: str) -> StoreInUse:
    return StoreInUse(
        f"game store {str(path)!r} is in use by {holder}; one store has one "
        "writer: stop that process, or give this one another --store FILE"
    )


def _take_lock(path: Path, real: Path) -> IO[bytes] | None:
    """Hold `<real>.lock` exclusively, or raise StoreInUse naming who does
    (`_say_holder` then writes who this is, once the store is held)."""
    if fcntl is None:  # pragma: no cover - see _take_file_lock
        return None
    sidecar = lock_path(real)
    handle = open(_open_private(sidecar, "the game store's lock file"), "r+b")
    try:
        _tighten_fd(handle.fileno())
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _in_use(path, f"another process ({_holder(handle)})") from None
    except BaseException:
        handle.close()
        raise
    return handle


def _say_holder(handle: IO[bytes] | None) -> None:
    """Write this process's pid and command into the lock file it holds."""
    if handle is not None:
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n{_command()}\n".encode())
        handle.flush()


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


def _no_linked_side_files(real: Path) -> None:
    """Refuse a store whose SQLite side files are symbolic links: SQLite
    and `_tighten` would write and chmod their targets."""
    for side in SIDE_FILES:
        name = str(real) + side
        if os.path.islink(name):
            raise StoreError(
                f"the game store's side file {name!r} is a symbolic link; it is not followed: remove the link"
            )


def _tighten_fd(fd: int) -> None:
    """chmod 0600 an open file that group or others may read or write."""
    if os.fstat(fd).st_mode & 0o077:
        os.fchmod(fd, 0o600)


def _tighten(path: Path) -> None:
    """chmod 0600 a file that group or others may read or write (a link is
    left alone: its target is not the store's)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_mode & 0o077:
        os.chmod(path, 0o600)
