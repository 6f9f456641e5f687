"""How soon `stop` ends a running `move` (issue 33: N1).

A game is played to a play-phase decision; then a `move` with a 4,000 ms
budget (and one with a count of a billion samples, which only the stop or
the cap can end) is sent, `stop` follows 0.3 s later, and the time from
the stop to the move's answer is measured — over JSON Lines (`tacocat
engine` in a subprocess) and over HTTP (`tacocat serve` on 127.0.0.1).
Before issue 33 the 4,000 ms move answered at 4.01 s whatever the stop
said, and the counted one never.

    python results/stop_move.py --trials 10      # writes results/stop_move.md
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "stop_move.md"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from provenance import source_commit  # noqa: E402
from servers import start_serve, to_play_phase  # noqa: E402 - the tests' server and driver

BUDGETS = {"4,000 ms": {"time_ms": 4000}, "a billion samples": {"iterations": 10**9}}


class Lines:
    """`tacocat engine` over its stdin and stdout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [shutil.which("tacocat") or "tacocat", "engine", "--max-time-ms", "3600000"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.n = 0

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))

    def send(self, cmd: str, **fields) -> int:
        self.n += 1
        self.proc.stdin.write((json.dumps({"id": self.n, "cmd": cmd, **fields}) + "\n").encode())
        self.proc.stdin.flush()
        return self.n

    def wait(self, rid: int, timeout: float = 60) -> dict:
        end = time.monotonic() + timeout
        while True:
            r = self.answers.get(timeout=max(0.01, end - time.monotonic()))
            if r.get("id") == rid:
                return r

    def ask(self, cmd: str, **fields) -> dict:
        return self.wait(self.send(cmd, **fields))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


class Http:
    """`tacocat serve` on a free loopback port."""

    def __init__(self) -> None:
        store = tempfile.mkdtemp(prefix="stop-move-") + "/games.sqlite3"
        self.proc, self.base = start_serve(
            "--store", store, "--max-time-ms", "3600000", "--log-level", "warning", stderr=subprocess.DEVNULL
        )

    def post(self, cmd: str, **fields) -> dict:
        req = urllib.request.Request(
            f"{self.base}/v1/{cmd}",
            data=json.dumps(fields).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def opened(ask, seed: int) -> tuple[str, list[str], int]:
    """A new game of `seed` played to a play-phase decision through `ask`
    (a transport's request function): its id, seat tokens and the deciding seat."""

    def result(cmd, **f):
        r = ask(cmd, **f)
        assert r["ok"], r
        return r["result"]

    g = result("new_game", seed=seed)
    game, seats = g["game"], g["tokens"]["seats"]
    return game, seats, to_play_phase(result, game, seats)


def trial_lines(eng: Lines, budget: dict, seed: int) -> float | None:
    game, seats, p = opened(eng.ask, seed)
    rid = eng.send("move", game=game, player=p, token=seats[p], apply=False, **budget)
    time.sleep(0.3)
    t0 = time.perf_counter()
    eng.send("stop")
    answer = eng.wait(rid)
    took = time.perf_counter() - t0
    eng.wait(eng.send("hello"))  # the stop's own answer is behind it
    if answer["ok"] and answer["result"]["seconds"] < 0.3:
        return None  # answered before the stop (a decision solved at once): not a trial
    assert answer["ok"] and answer["stopped"] is True, answer
    return took


def trial_http(srv: Http, budget: dict, seed: int) -> float | None:
    game, seats, p = opened(srv.post, seed)
    out: list = []
    t = threading.Thread(
        target=lambda: out.append(
            (srv.post("move", id="m", game=game, player=p, token=seats[p], apply=False, **budget), time.perf_counter())
        )
    )
    t.start()
    time.sleep(0.3)
    t0 = time.perf_counter()
    assert srv.post("stop", target="m", token=seats[p])["ok"]
    t.join(60)
    answer, at = out[0]
    if answer["ok"] and answer["result"]["seconds"] < 0.3:
        return None  # answered before the stop (a decision solved at once): not a trial
    assert answer["ok"] and answer["stopped"] is True, answer
    return at - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=10)
    args = ap.parse_args()
    rows = []
    eng, srv = Lines(), Http()
    try:
        for label, budget in BUDGETS.items():
            for door, trial, where in (("JSON Lines", trial_lines, eng), ("HTTP", trial_http, srv)):
                times: list[float] = []
                seed = 100
                while len(times) < args.trials:
                    took = trial(where, budget, seed)
                    seed += 1
                    if took is not None:
                        times.append(took)
                rows.append((door, label, statistics.median(times), max(times)))
                print(f"{door}, {label}: median {statistics.median(times):.3f} s, max {max(times):.3f} s", flush=True)
    finally:
        eng.close()
        srv.close()
    table = "\n".join(f"| {d} | {b} | {m * 1000:.0f} | {x * 1000:.0f} |" for d, b, m, x in rows)
    OUT.write_text(
        f"""# `stop` on a running `move`

Regenerate: `python results/stop_move.py --trials {args.trials}` (package {source_commit()}; load average
{os.getloadavg()[0]:.1f} at the end, 2 cores shared).  A `move` at a play-phase decision of a seeded game
(`"apply": false`), `stop` sent 0.3 s after it (JSON Lines: `{{"cmd": "stop"}}`; HTTP: the move's id and the
seat's token); the time from sending the stop to the move's answer, `"stopped": true` every time.

| transport | the move's budget | median ms | max ms |
| --- | --- | ---: | ---: |
{table}

As issue 33 measured it before (not re-run here): the 4,000 ms move answered after 4,010 ms
whatever the stop said, and the counted one ran on past the client, the cap and SIGTERM.
"""
    )
    print(OUT.read_text())


if __name__ == "__main__":
    main()
