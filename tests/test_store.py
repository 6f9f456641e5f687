"""The game store: one store, one writer, nothing lost.

Two servers on one store file used to overwrite each other's games (4 of 8
acknowledged moves were gone after a restart).  The process that opens a
store now holds it locked; a second `serve` or `engine --store` on the same
file is refused in one line naming the file and the holder's pid, and the
lock goes with the process (kill -9 included), so a restart is never
blocked.  Real processes are killed with SIGKILL while clients apply moves:
every acknowledged move is there after every restart.  The file holds both
hands, the draw pile and the seed: it is 0600 in a folder created 0700.
Each stored game keeps its last-changed time and client (for eviction)."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from helpers import deep, one_line_error, tacocat_argv
from servers import free_port, start_serve, stop

from tacocat.protocol.store import SCHEMA_VERSION, GameStore, StoreError, StoreInUse, lock_path

SEATS = ("owner-hash", "seat0-hash", "seat1-hash")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _umask_0() -> None:
    os.umask(0)  # the loosest umask: anything not asked to be private would be 0666/0777


# ------------------------------------------------------------ in process


def test_a_second_store_on_the_same_file_is_refused_until_the_first_closes(tmp_path):
    path = tmp_path / "games.sqlite3"
    first = GameStore(path)
    first.save("g1", SEATS, {"move": 1})
    with pytest.raises(StoreInUse) as refused:
        GameStore(path)
    message = str(refused.value)
    assert repr(str(path)) in message and f"pid {os.getpid()}" in message and "\n" not in message
    assert [g.state for g in first.games()] == [{"move": 1}]  # the refused one changed nothing
    first.close()
    with GameStore(path) as second:  # closed: the next one opens it
        assert [g.state for g in second.games()] == [{"move": 1}]
    assert lock_path(path).read_text() == ""  # closed: nobody's


def test_the_store_and_a_folder_it_creates_are_private(tmp_path):
    folder = tmp_path / "made" / "tacocat"
    old = os.umask(0)
    try:
        store = GameStore(folder / "games.sqlite3")
        store.save("g1", SEATS, {"hands": [[1], [2]]})
    finally:
        os.umask(old)
    assert mode(folder) == 0o700
    written = sorted(p.name for p in folder.iterdir())
    assert "games.sqlite3" in written and "games.sqlite3-wal" in written, written
    for name in written:  # the database, its WAL and shared memory, the lock
        assert mode(folder / name) == 0o600, (name, oct(mode(folder / name)))
    store.close()


def test_a_loose_store_is_tightened_and_an_existing_folder_left_alone(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    path = folder / "games.sqlite3"
    GameStore(path).close()
    for suffix in ("", "-wal", "-shm", "-journal"):
        side = Path(str(path) + suffix)
        side.touch()
        os.chmod(side, 0o644)
    GameStore(path).close()
    for suffix in ("", "-wal", "-shm", "-journal"):
        side = Path(str(path) + suffix)
        if side.exists():
            assert mode(side) == 0o600, (suffix, oct(mode(side)))
    assert mode(path) == 0o600
    assert mode(folder) == 0o755  # the user's folder, not the store's to change


def test_each_game_keeps_its_last_save_time_and_client(tmp_path):
    with GameStore(tmp_path / "g.sqlite3") as store:
        before = time.time()
        store.save("g1", SEATS, {"n": 1})  # the old signature still works
        store.save("g2", SEATS, {"n": 1}, client="127.0.0.1")
        games = {g.game: g for g in store.games()}
        assert games["g1"].client is None and games["g2"].client == "127.0.0.1"
        assert before <= games["g1"].updated <= games["g2"].updated <= time.time()
        time.sleep(0.01)
        store.save("g2", SEATS, {"n": 2})  # no client given: the stored one stays
        later = {g.game: g for g in store.games()}["g2"]
        assert later.client == "127.0.0.1" and later.state == {"n": 2}
        assert later.updated > games["g2"].updated
        store.save("g2", SEATS, {"n": 3}, client="10.0.0.7")
        assert {g.game: g for g in store.games()}["g2"].client == "10.0.0.7"
        assert [g.game for g in store.games()] == ["g1", "g2"]  # least recently touched first


def _version_1_file(path: Path) -> None:
    """A store as the first release wrote it (schema 1, no updated/client)."""
    db = sqlite3.connect(str(path))
    db.execute(
        "CREATE TABLE games (id TEXT PRIMARY KEY, owner TEXT NOT NULL, seat0 TEXT NOT NULL, "
        "seat1 TEXT NOT NULL, state TEXT NOT NULL, touched INTEGER NOT NULL)"
    )
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    db.execute("INSERT INTO games VALUES ('old', 'o', 's0', 's1', '{\"seed\": 7}', 1)")
    db.commit()
    db.close()


def test_a_version_1_store_is_migrated_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite3"
    _version_1_file(path)
    os.chmod(path, 0o644)
    before = time.time()
    with GameStore(path) as store:
        (old,) = store.games()
        assert (old.game, old.seats, old.state, old.client) == ("old", ("o", "s0", "s1"), {"seed": 7}, None)
        assert before <= old.updated <= time.time()  # idle counts from the migration, not from 1970
        assert store.get_meta("schema") == SCHEMA_VERSION == 2
        store.save("old", old.seats, {"seed": 7, "moved": True}, client="c")
    assert mode(path) == 0o600
    with GameStore(path) as again:  # a migrated file opens as it is
        assert [(g.state, g.client) for g in again.games()] == [({"seed": 7, "moved": True}, "c")]


def test_a_store_from_a_newer_engine_is_refused_in_one_line(tmp_path):
    path = tmp_path / "new.sqlite3"
    with GameStore(path) as store:
        store.set_meta("schema", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError) as refused:
        GameStore(path)
    assert f"schema {SCHEMA_VERSION + 1}" in str(refused.value) and repr(str(path)) in str(refused.value)
    with pytest.raises(StoreError) as again:
        GameStore(path)
    assert not isinstance(again.value, StoreInUse)  # the failed open let go of the lock


# ---------------------------------------------------------- real processes


def _serve(port: int, store: Path | None, log: Path, env: dict | None = None) -> subprocess.Popen:
    """`tacocat serve` on 127.0.0.1:port, answering hello (at most 30 s)."""
    options = ["--log-level", "error", *([] if store is None else ["--store", str(store)])]
    with open(log, "ab") as err:  # a file, not a pipe nobody reads
        return start_serve(*options, port=port, stderr=err, env=env, preexec_fn=_umask_0)[0]


def _engine(store: Path) -> subprocess.Popen:
    """`tacocat engine --store store`, answering hello."""
    proc = subprocess.Popen(
        [*tacocat_argv(), "engine", "--store", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=_umask_0,
    )
    proc.stdin.write(b'{"cmd": "hello"}\n')
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["ok"]
    return proc


def _intruder(kind: str, store: Path | None, env: dict | None = None) -> subprocess.Popen:
    """A second server on `store` (the default one when None); it should
    refuse at once, so stdin is closed and a timeout bounds it anyway."""
    if kind == "serve":
        args = [*tacocat_argv(), "serve", "--port", "0", "--log-level", "error"]
        args += [] if store is None else ["--store", str(store)]
    else:
        args = [*tacocat_argv(), "engine", "--store", str(store)]
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _refused(intruder: subprocess.Popen, store: Path, holder: int) -> str:
    return _refused_saying(intruder, repr(str(store)), f"pid {holder}", "in use")


def _refused_saying(intruder: subprocess.Popen, *words: str) -> str:
    """The second server's one `error:` line, which says each of `words`."""
    try:
        out, err = intruder.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        intruder.kill()
        intruder.communicate(timeout=10)
        raise AssertionError("a second server on the same store was not refused: it ran") from None
    return one_line_error(subprocess.CompletedProcess(intruder.args, intruder.returncode, out, err), *words)


def test_a_second_serve_or_engine_on_the_same_store_is_refused_in_one_line(tmp_path):
    store = tmp_path / "games.sqlite3"
    holder = _engine(store)
    try:
        for kind in ("serve", "engine"):
            line = _refused(_intruder(kind, store), store, holder.pid)
            assert "tacocat engine --store" in line, line  # and what the holder is
        holder.stdin.write(b'{"cmd": "new_game", "seed": 1}\n')  # the holder still serves
        holder.stdin.flush()
        assert json.loads(holder.stdout.readline())["ok"]
    finally:
        stop(holder, kill=True)
    # kill -9 left no stale lock: the next one opens the store and its game
    with GameStore(store) as reopened:
        assert len(list(reopened.games())) == 1


def test_two_serves_on_the_default_store_the_original_report(tmp_path):
    """Every `serve` without --store uses one default path: the second is
    refused, and the folder the first created is private."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    default = tmp_path / "data" / "tacocat" / "games.sqlite3"
    first = _serve(free_port(), None, tmp_path / "first.log", env=env)
    try:
        assert mode(default.parent) == 0o700 and mode(default) == 0o600
        _refused(_intruder("serve", None, env=env), default, first.pid)
    finally:
        stop(first, kill=True)


class Player(threading.Thread):
    """One client applying moves on its own game over HTTP until the server
    dies under it.  `acked[gid]` is every apply answered 200, in order (as
    the game's record lists actions); `uncertain` the one sent when the
    server died (answered or not: it may or may not be on disk)."""

    def __init__(self, seed: int, base: str, gid: str | None, games: dict, acked: dict, counter: list, lock) -> None:
        super().__init__(daemon=True)
        self.rng, self.base = random.Random(seed), base
        self.games, self.acked, self.counter, self.counter_lock = games, acked, counter, lock
        self.gid = gid
        """The game it plays, carried over restarts until it is over."""
        self.error: BaseException | None = None
        self.stopping = threading.Event()

    def run(self) -> None:
        import httpx

        try:
            with httpx.Client(base_url=self.base, timeout=10) as http:
                while not self.stopping.is_set():
                    try:
                        self.step(http)
                    except httpx.TransportError:
                        return  # the server is gone (kill -9): what was in flight is uncertain
        except BaseException as exc:  # reported by the main thread
            self.error = exc

    def step(self, http) -> None:
        status = self.status(http) if self.gid is not None else None
        if status is None or status["over"]:
            r = http.post("/v1/new_game", json={"seed": self.rng.randrange(1 << 30)})
            assert r.status_code == 200, r.text
            opened = r.json()["result"]
            self.gid = opened["game"]
            self.games[self.gid] = opened["tokens"]
            self.acked[self.gid] = []
            return
        p = self.rng.choice(status["acting"])
        seat = self.games[self.gid]["seats"][p]
        r = http.post("/v1/legal", json={"game": self.gid, "player": p, "token": seat})
        assert r.status_code == 200, r.text
        action = self.rng.choice(r.json()["result"]["actions"])
        r = http.post("/v1/apply", json={"game": self.gid, "player": p, "token": seat, "action": action})
        assert r.status_code == 200, r.text
        self.acked[self.gid].append({"player": p, **action})  # acknowledged: must survive anything now
        with self.counter_lock:
            self.counter[0] += 1

    def status(self, http) -> dict:
        r = http.post("/v1/games", json={"tokens": [self.games[self.gid]["owner"]]})
        assert r.status_code == 200, r.text
        (status,) = [g for g in r.json()["result"]["games"] if g["game"] == self.gid]
        return status


def _check_nothing_lost(base: str, games: dict, acked: dict) -> int:
    """Every acknowledged action of every game is in its record, in order,
    at most one more (sent when the server died); the clients' lists are
    then the records.  Returns how many actions were checked: every one
    acknowledged since the first start (and the uncertain ones found)."""
    import httpx

    checked = 0
    with httpx.Client(base_url=base, timeout=10) as http:
        for gid, tokens in games.items():
            r = http.post("/v1/record", json={"game": gid, "token": tokens["owner"]})
            assert r.status_code == 200, (gid, r.text)  # the game itself is there
            actions = r.json()["result"]["record"]["actions"]
            mine = acked[gid]
            assert actions[: len(mine)] == mine, (gid, len(mine), len(actions))
            assert len(actions) - len(mine) <= 1, (gid, len(mine), len(actions))
            checked += len(mine)
            acked[gid] = list(actions)
    return checked


def kill_restart_rounds(tmp_path: Path, restarts: int, clients: int = 4, seed: int = 20) -> dict:
    """`restarts` rounds of: a server on one store, `clients` players
    applying moves, a second server (serve or engine, in turn) on the same
    store refused meanwhile, kill -9 mid-play, restart, nothing lost."""
    rng = random.Random(seed)
    store = tmp_path / "private" / "games.sqlite3"
    games: dict = {}
    acked: dict = {}
    counter, counter_lock = [0], threading.Lock()
    totals = {"restarts": 0, "acknowledged": 0, "checked": 0, "refused": 0, "games": 0}
    gids: list = [None] * clients
    port = free_port()
    server = _serve(port, store, tmp_path / "serve.log")
    assert mode(store.parent) == 0o700 and mode(store) == 0o600  # created private, umask 0 notwithstanding
    try:
        for round_ in range(restarts):
            base = f"http://127.0.0.1:{port}"
            start = counter[0]
            players = [Player(rng.randrange(1 << 30), base, gid, games, acked, counter, counter_lock) for gid in gids]
            for player in players:
                player.start()
            intruder = _intruder("engine" if round_ % 2 else "serve", store)
            _refused(intruder, store, server.pid)  # while it runs, no second writer
            totals["refused"] += 1
            target = counter[0] + rng.randint(1, 40)  # then kill -9 while the players are mid-move
            deadline = time.monotonic() + 60
            while counter[0] < target and time.monotonic() < deadline and all(p.is_alive() for p in players):
                time.sleep(0.005)
            server.send_signal(signal.SIGKILL)
            server.wait(10)
            for player in players:
                player.stopping.set()
                player.join(30)
                assert not player.is_alive(), "a client did not stop"
                if player.error is not None:
                    raise player.error
            assert counter[0] > start, f"round {round_}: no move was acknowledged"
            totals["acknowledged"] += counter[0] - start
            gids = [player.gid for player in players]
            port = free_port()
            server = _serve(port, store, tmp_path / "serve.log")  # no stale lock blocks it
            totals["restarts"] += 1
            totals["checked"] = _check_nothing_lost(f"http://127.0.0.1:{port}", games, acked)
            assert totals["checked"] >= totals["acknowledged"]
        for suffix in ("", "-wal", "-shm", ".lock"):
            assert mode(Path(str(store) + suffix)) == 0o600, suffix
    finally:
        stop(server, kill=True)
    totals["games"] = len(games)
    return totals


@pytest.mark.slow
def test_many_kill_9_restarts_with_clients_lose_nothing(tmp_path):
    restarts = deep(4, 25)  # each intruder (serve, engine) twice in CI; 25 under TACOCAT_DEEP=1
    t0 = time.monotonic()
    totals = kill_restart_rounds(tmp_path, restarts=restarts, seed=2020)
    print(f"\n{totals}, {time.monotonic() - t0:.1f} s")
    assert totals["restarts"] == restarts and totals["refused"] == restarts
    assert totals["checked"] >= totals["acknowledged"] >= restarts


# ------------------------------------- the lock holds the file (issue 33, N6/N9)


def _refused_unnamed(intruder: subprocess.Popen, store: Path) -> str:
    """Refused as `_refused`, by a holder whose lock file may be gone."""
    return _refused_saying(intruder, "in use")


def _ask(engine: subprocess.Popen, request: dict) -> dict:
    engine.stdin.write((json.dumps(request) + "\n").encode())
    engine.stdin.flush()
    return json.loads(engine.stdout.readline())


@pytest.mark.slow
def test_deleting_the_lock_file_lets_no_second_server_in(tmp_path):
    # The .lock looks stale and the docs called it harmless: deleted, a
    # second server took a fresh one and wrote the same database.
    store = tmp_path / "games.sqlite3"
    holder = _engine(store)
    try:
        assert _ask(holder, {"cmd": "new_game", "seed": 1})["ok"]
        lock_path(store).unlink()
        for kind in ("serve", "engine"):
            line = _refused_unnamed(_intruder(kind, store), store)
            assert repr(str(store)) in line, line
        assert _ask(holder, {"cmd": "new_game", "seed": 2})["ok"]  # the holder still writes
    finally:
        stop(holder, kill=True)
    with GameStore(store) as reopened:
        assert len(list(reopened.games())) == 2


@pytest.mark.slow
def test_a_renamed_store_lets_no_second_server_in_and_its_holder_stops_writing(tmp_path):
    store, moved = tmp_path / "games.sqlite3", tmp_path / "moved.sqlite3"
    holder = _engine(store)
    try:
        assert _ask(holder, {"cmd": "new_game", "seed": 1})["ok"]
        store.rename(moved)
        # the same database under its new name, and (its lock file and WAL
        # keep the old one) a new file at the old name
        for path in (moved, store):
            line = _refused_unnamed(_intruder("engine", path), path)
            assert repr(str(path)) in line, line
        # SQLite finds the WAL by the database's name: a commit now could
        # be lost at the next open, so the holder acknowledges none
        answer = _ask(holder, {"cmd": "new_game", "seed": 2})
        assert not answer["ok"] and "moved" in answer["error"]["message"], answer
        assert "\n" not in answer["error"]["message"]
    finally:
        stop(holder, kill=True)
    moved.rename(store)  # put back beside its WAL, as the refusal says
    with GameStore(store) as reopened:
        assert len(list(reopened.games())) == 1  # every acknowledged game, none more


def test_a_second_store_is_refused_when_the_lock_file_is_gone_in_process_too(tmp_path):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as first:
        first.save("g1", SEATS, {"move": 1})
        lock_path(path).unlink()
        with pytest.raises(StoreInUse, match="in use"):
            GameStore(path)
        first.save("g2", SEATS, {"move": 2})  # the refused one took nothing of the holder's
    with GameStore(path) as again:
        assert [g.game for g in again.games()] == ["g1", "g2"]


def test_a_store_moved_under_its_holder_refuses_writes(tmp_path):
    path, moved = tmp_path / "games.sqlite3", tmp_path / "moved.sqlite3"
    store = GameStore(path)
    store.save("g1", SEATS, {"move": 1})
    path.rename(moved)
    with pytest.raises(StoreError, match="moved, deleted or replaced") as refused:
        store.save("g1", SEATS, {"move": 2})
    assert repr(str(path)) in str(refused.value) and "\n" not in str(refused.value)
    moved.rename(path)  # put back: writes go on
    store.save("g1", SEATS, {"move": 3})
    store.close()
    with GameStore(path) as again:
        assert [g.state for g in again.games()] == [{"move": 3}]


@pytest.mark.parametrize("side", [".lock", "-wal", "-shm", "-journal"])
def test_no_side_file_follows_a_planted_symlink(tmp_path, side):
    # The lock file was opened with O_CREAT, truncated and chmodded through
    # a link: whatever it pointed at (here a file of the user's) was wiped.
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    os.chmod(victim, 0o644)
    path = tmp_path / "games.sqlite3"
    GameStore(path).close()  # an existing store: its side files are opened on every start
    planted = Path(str(path) + side)
    planted.unlink(missing_ok=True)
    planted.symlink_to(victim)
    with pytest.raises(StoreError, match="symbolic link") as refused:
        GameStore(path)
    assert planted.name in str(refused.value) and "\n" not in str(refused.value)
    assert victim.read_text() == "the user's own file\n" and mode(victim) == 0o644
    planted.unlink()
    with GameStore(path) as again:  # the link gone, the store opens as before
        assert list(again.games()) == []


def test_a_lock_file_with_another_name_is_not_written(tmp_path):
    # a hard link planted as the lock file: truncating it would empty the other name
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    path = tmp_path / "games.sqlite3"
    os.link(victim, lock_path(path))
    with pytest.raises(StoreError, match="hard link"):
        GameStore(path)
    assert victim.read_text() == "keep me\n"
