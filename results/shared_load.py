"""A shared server under load (issue 33): does a small client still get answers?

`tacocat serve` with its defaults (4 searches at once, 16 waiting, a 10 s
cap) on 127.0.0.1.  For `--seconds` (60):

- 45 clients, each from its own loopback address (127.0.1.1 ...: a peer
  each), play the engine at the largest budget the server allows
  (`new_game` with `{"engine": {"seat": 0, "bot": "pimc", "time_ms": 10000}}`,
  then `apply` of a random legal move, again and again; a `busy` answer is
  retried after 0.2 s);
- 4 clients (127.0.2.1 ...) send maximal `move`s (a billion samples) on games of their own;
- one small client (127.0.3.1) asks `hello`, `legal` and `new_game` every 0.25 s.

The small client's latencies (median, p99, max) and the server's peak
resident memory (VmHWM) are reported.

    python results/shared_load.py                 # writes results/shared_load.md
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "shared_load.md"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from provenance import source_commit  # noqa: E402
from servers import free_port, start_serve  # noqa: E402 - the tests' server start


class Client:
    """One peer: HTTP/1.1 requests from its own loopback address."""

    def __init__(self, port: int, address: str) -> None:
        self.port, self.address = port, address
        self.conn: http.client.HTTPConnection | None = None

    def post(self, cmd: str, **fields) -> dict:
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=120, source_address=(self.address, 0)
                )
            try:
                self.conn.request("POST", f"/v1/{cmd}", json.dumps(fields), {"Content-Type": "application/json"})
                return json.loads(self.conn.getresponse().read())
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def engine_player(port: int, n: int, until: float, counts: dict) -> None:
    c, rng = Client(port, f"127.0.1.{n + 1}"), random.Random(n)
    game = None
    while time.monotonic() < until:
        if game is None:
            r = c.post("new_game", engine={"seat": 0, "bot": "pimc", "time_ms": 10_000})
            if not r["ok"]:
                counts["busy"] += 1
                time.sleep(0.2)
                continue
            game, token = r["result"]["game"], r["result"]["tokens"]["seats"][1]
        legal = c.post("legal", game=game, player=1, token=token)["result"]["actions"]
        if not legal:
            status = c.post("games", tokens=[token])["result"]["games"]
            if not status or status[0]["over"]:
                game = None
            else:
                time.sleep(0.1)
            continue
        r = c.post("apply", game=game, player=1, token=token, action=rng.choice(legal))
        counts["applies" if r["ok"] else "busy"] += 1
        if not r["ok"]:
            time.sleep(0.2)


def mover(port: int, n: int, until: float, counts: dict) -> None:
    c = Client(port, f"127.0.2.{n + 1}")
    while time.monotonic() < until:
        g = c.post("new_game", seed=n)["result"]
        seats, game = g["tokens"]["seats"], g["game"]
        for _ in range(20):
            status = c.post("games", tokens=seats)["result"]["games"][0]
            p = status["acting"][0]
            legal = c.post("legal", game=game, player=p, token=seats[p])
            if legal["result"]["decision"] in ("attack", "answer"):
                break
            c.post("apply", game=game, player=p, token=seats[p], action=legal["result"]["actions"][0])
        while time.monotonic() < until:
            r = c.post("move", game=game, player=p, token=seats[p], iterations=10**9, apply=False)
            counts["moves" if r["ok"] else "busy"] += 1
            if not r["ok"]:
                time.sleep(0.2)
        break


def small_client(port: int, until: float, times: dict) -> None:
    c = Client(port, "127.0.3.1")
    game = c.post("new_game", seed=1)["result"]
    token = game["tokens"]["seats"][0]
    while time.monotonic() < until:
        for name, ask in (
            ("hello", lambda: c.post("hello")),
            ("legal", lambda: c.post("legal", game=game["game"], player=0, token=token)),
            ("new_game", lambda: c.post("new_game")),
        ):
            t0 = time.perf_counter()
            r = ask()
            times[name].append(time.perf_counter() - t0)
            assert r["ok"], r
        time.sleep(0.25)


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    port = free_port()
    store = tempfile.mkdtemp(prefix="shared-load-") + "/games.sqlite3"
    proc, _ = start_serve(
        "--store", store, "--log-level", "warning", "--no-access-log", port=port, stderr=subprocess.DEVNULL
    )
    try:
        load0 = os.getloadavg()[0]
        until = time.monotonic() + args.seconds
        counts = {"applies": 0, "moves": 0, "busy": 0}
        times: dict[str, list[float]] = {"hello": [], "legal": [], "new_game": []}
        threads = [threading.Thread(target=engine_player, args=(port, n, until, counts)) for n in range(45)]
        threads += [threading.Thread(target=mover, args=(port, n, until, counts)) for n in range(4)]
        threads.append(threading.Thread(target=small_client, args=(port, until, times)))
        for t in threads:
            t.daemon = True
            t.start()
        for t in threads:
            t.join(args.seconds + 60)
        rss = peak_rss_mb(proc.pid)
        load1 = os.getloadavg()[0]
    finally:
        proc.terminate()
        proc.wait(30)

    def q(xs: list[float], p: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    rows = "\n".join(
        f"| `{name}` | {len(xs)} | {statistics.median(xs) * 1000:.1f} | {q(xs, 0.99) * 1000:.1f} "
        f"| {max(xs) * 1000:.1f} |"
        for name, xs in times.items()
    )
    text = f"""# A small client of a shared server under load

Regenerate: `python results/shared_load.py --seconds {args.seconds:g}` (package {source_commit()}; load average
{load0:.1f} at the start, {load1:.1f} at the end; 2 cores).  `tacocat serve` with its defaults; 45 clients
(a loopback address each) playing the engine at `time_ms` 10000, 4 clients sending `move`s of a billion
samples, one small client asking `hello`, `legal` and `new_game` every 0.25 s, for {args.seconds:g} s.

| the small client's request | answers | median ms | p99 ms | max ms |
| --- | ---: | ---: | ---: | ---: |
{rows}

The others: {counts["applies"]} applies answered with the engine's reply, {counts["moves"]} moves answered,
{counts["busy"]} busy answers (retried after 0.2 s).  The server's peak resident memory: {rss:.0f} MB.
"""
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
