"""`tacocat serve` as the tests start and stop it: a free loopback port, the
installed command in a subprocess that answers hello, and its end.  One
copy here instead of one in each test file that needs a real server."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Iterator

import httpx
from helpers import tacocat_argv

CLIENT_TIMEOUT_S = 30
START_TIMEOUT_S = 30
"""How long a server may take to answer its first hello (a loaded machine
imports the package slowly)."""


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(
    *options: str, port: int | None = None, stderr: int | IO[Any] = subprocess.PIPE, **popen: Any
) -> tuple[subprocess.Popen, str]:
    """`tacocat serve --port PORT OPTIONS` (a free port when None), once it
    answers GET /v1/hello: (the process, its base URL).  `stderr` is where
    its log goes (a file, not a pipe nobody reads, for a long run); other
    keywords go to Popen (`env`, `preexec_fn`, ...).  A server that exits
    or does not answer in time is killed and the start fails, quoting its
    log when it was piped."""
    port = free_port() if port is None else port
    proc = subprocess.Popen(
        [*tacocat_argv(), "serve", "--port", str(port), *options],
        stdout=popen.pop("stdout", subprocess.DEVNULL),
        stderr=stderr,
        **popen,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    # One client for all the tries: httpx.get builds a client (its TLS
    # context) each call, 70 ms of CPU, and a start takes dozens of tries.
    with httpx.Client(timeout=1) as poll:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                if poll.get(f"{base}/v1/hello").status_code == 200:
                    return proc, base
            except httpx.TransportError:
                time.sleep(0.05)
    stop(proc, kill=True)
    if proc.stderr is not None:
        log = proc.stderr.read()[-2000:]
    else:  # the caller's log file, when it has a name
        log = Path(stderr.name).read_bytes()[-2000:] if isinstance(getattr(stderr, "name", None), str) else b""
    raise RuntimeError(f"tacocat serve did not start (exit status {proc.returncode}): {log!r}")


def to_play_phase(result, game: str, seats: list[str]) -> int:
    """Apply the first legal action of each acting seat until a seat has a
    play-phase decision; that seat.  `result(cmd, **fields)` is any
    transport's request that returns the answer's result (JSON Lines, HTTP)."""
    for _ in range(20):
        status = next(g for g in result("games", tokens=seats)["games"] if g["game"] == game)
        for player in status["acting"]:
            legal = result("legal", game=game, player=player, token=seats[player])
            if legal["decision"] in ("attack", "answer"):
                return player
            result("apply", game=game, player=player, token=seats[player], action=legal["actions"][0])
    raise AssertionError("no play-phase decision in 20 steps")


def peer_client(base: str, address: str = "127.0.0.2", timeout: float = CLIENT_TIMEOUT_S) -> httpx.Client:
    """A client of the server at `base` from another loopback address: a
    distinct peer, with its own shares of games and searches."""
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=timeout)


def stop(proc: subprocess.Popen, kill: bool = False) -> None:
    """End a server: SIGTERM (its clean shutdown) unless `kill`, SIGKILL
    when it has not ended 10 s later; then reap it."""
    if proc.poll() is None:
        if kill:
            proc.kill()
        else:
            proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def running_server(*options: str) -> Iterator[httpx.Client]:
    """`tacocat serve OPTIONS` on a free loopback port, its games in a fresh
    SQLite file (never the user's), and a client for it; stopped after."""
    store = tempfile.mkdtemp(prefix="tacocat-http-") + "/games.sqlite3"
    proc, base = start_serve("--log-level", "warning", "--store", store, *options)
    try:
        with httpx.Client(base_url=base, timeout=CLIENT_TIMEOUT_S) as client:
            yield client
    finally:
        stop(proc)
