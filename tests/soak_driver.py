"""Soak the engine protocol: many mixed valid and invalid requests, every one
answered, no crash, no `internal` error, games intact, memory bounded.

Two targets:
- in-process: straight into `EngineSession.handle` (tracemalloc and RSS
  measured after a warm-up, then after the main run);
- subprocess: `tacocat engine` over its stdin/stdout, with raw bad lines
  (not JSON, too deep, too long, bad UTF-8) mixed in; the child's RSS is
  read from /proc.

Run:  python results/soak.py [--requests 50000] [--process-requests 5000] [--seed 1]
      python results/soak.py --no-trace --clear-caches-every 5000   # RSS without the memo caches
tests/test_soak.py runs a small version of this driver; results/soak.py a big one.

Memory: tacocat.rules.play memoises answers (`_answers`, at most 16,384 entries)
and outcomes (`_outcome`, at most 1,000,000).  They are bounded but large,
and they are what makes the RSS of a long session climb; `memo_entries_curve`
beside `rss_curve_kib` shows it, and the traced heap is read with them
emptied."""

from __future__ import annotations

import json
import random
import resource
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from tacocat.protocol.session import EngineSession
from tacocat.protocol.wire import ERROR_CODES
from tacocat.rules.game import GameRecord

VIEW = {"player": 0, "hand": [2, 5, 9], "seen": [1, 1, 12], "opponent_hand_size": 3, "attacker": 0, "table": []}
POSITION = {"hands": [[2, 5, 9], [3, 8, 11]], "attacker": 0, "table": []}


def rss_kib(pid: int | str = "self") -> int:
    """Resident set size now, in KiB (Linux /proc), else the peak."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def clear_bounded_caches() -> dict[str, int]:
    """Empty the engine's size-capped memo caches (tacocat.rules.play: answers
    200,000 entries, outcomes 1,000,000) and say how full they were.  They
    are bounded by design; clearing them before each memory reading makes
    the reading show what the protocol itself keeps."""
    from tacocat.rules import play

    sizes = {}
    for name in ("_answers", "_outcome"):
        cache = getattr(play, name, None)
        if cache is not None and hasattr(cache, "cache_clear"):
            sizes[f"play.{name}"] = cache.cache_info().currsize
            cache.cache_clear()
    return sizes


def memo_entries() -> int:
    """Entries in tacocat.rules.play's size-capped memo caches now."""
    from tacocat.rules import play

    return sum(
        getattr(play, n).cache_info().currsize
        for n in ("_answers", "_outcome")
        if hasattr(getattr(play, n, None), "cache_info")
    )


class Driver:
    """Makes requests and checks answers against a small model of the
    session: which games are open, who acts, the legal actions last listed.
    `searches`: include real hint/solve requests (tiny budgets)."""

    def __init__(self, seed: int, searches: bool = True, max_open: int = 12) -> None:
        self.rng = random.Random(seed)
        self.searches = searches
        self.max_open = max_open
        self.games: dict[str, dict] = {}  # id -> {"acting": [...], "over": bool, "legal": {player: [actions]}}
        self.tokens: dict[str, dict] = {}  # id -> the tokens new_game handed out
        self.next_id = 0
        self.sent = 0
        self.codes: Counter = Counter()
        self.kinds: Counter = Counter()
        self.problems: list[str] = []

    # ------------------------------------------------------------ requests
    def request(self) -> tuple[dict | Any, bool | None]:
        """The next request and whether it must succeed (True), fail
        (False) or may do either (None)."""
        self.next_id += 1
        rid = self.next_id
        r = self.rng.random()
        if r < 0.55 and self.games:
            req, expect = self._play()
        elif r < 0.62:
            req, expect = self._lifecycle()
        elif r < 0.70:
            req, expect = self._read_only()
        elif r < 0.74 and self.searches:
            req, expect = self._search()
        else:
            req, expect = self._invalid()
        if isinstance(req, dict):
            req = {"id": rid, **self._with_token(req)}
        self.sent += 1
        return req, expect

    def _with_token(self, req: dict) -> dict:
        """Protocol 2.0 seats: a game request carries its seat's token (for a
        `player`), else the owner's; `games` lists the games of our tokens."""
        gid = req.get("game")
        if isinstance(gid, str) and gid in self.tokens and "token" not in req:
            player = req.get("player")
            tokens = self.tokens[gid]
            ok_player = player in (0, 1) and not isinstance(player, bool)
            req = {**req, "token": tokens["seats"][player] if ok_player else tokens["owner"]}
        if req.get("cmd") == "games" and "tokens" not in req:
            req = {**req, "tokens": [t["owner"] for t in self.tokens.values()]}
        return req

    def _open_games(self) -> list[str]:
        return [g for g, s in self.games.items() if not s["over"]]

    def _play(self) -> tuple[dict, bool | None]:
        open_games = self._open_games()
        if not open_games:
            return self._lifecycle()
        gid = self.rng.choice(open_games)
        g = self.games[gid]
        player = self.rng.choice(g["acting"])
        legal = g["legal"].get(player)
        if legal:
            action = self.rng.choice(legal)
            self.kinds["apply"] += 1
            return {"cmd": "apply", "game": gid, "player": player, "action": action}, True
        self.kinds["legal"] += 1
        return {"cmd": "legal", "game": gid, "player": player}, True

    def _lifecycle(self) -> tuple[dict, bool | None]:
        finished = [g for g, s in self.games.items() if s["over"]]
        if finished:
            self.kinds["end_game"] += 1
            return {"cmd": "end_game", "game": finished[0]}, True
        if len(self.games) < self.max_open:
            self.kinds["new_game"] += 1
            return {"cmd": "new_game", "seed": self.rng.randrange(10**6)}, True
        gid = self.rng.choice(list(self.games))
        self.kinds["record"] += 1
        return {"cmd": "record", "game": gid}, True

    def _read_only(self) -> tuple[dict, bool | None]:
        cmd = self.rng.choice(["hello", "games", "view", "state", "record", "stop"])
        self.kinds[cmd] += 1
        if cmd in ("hello", "games", "stop") or not self.games:
            return {"cmd": cmd if cmd in ("hello", "games", "stop") else "hello"}, True
        gid = self.rng.choice(list(self.games))
        req = {"cmd": cmd, "game": gid}
        if cmd == "view":
            req["player"] = self.rng.randrange(2)
        return req, True

    def _search(self) -> tuple[dict, bool | None]:
        if self.rng.random() < 0.5:
            self.kinds["hint"] += 1
            hand = sorted(self.rng.sample([2, 3, 5, 6, 8, 9, 10, 11], 3))
            return {"cmd": "hint", "view": {**VIEW, "hand": hand}, "iterations": 4, "time_ms": 50}, True
        self.kinds["solve"] += 1
        a = sorted(self.rng.sample([2, 3, 5, 6, 8, 9, 10, 11, 12], 3))
        b = sorted(self.rng.sample([1, 4, 6, 7, 8, 9, 10], 3))
        return {"cmd": "solve", "position": {"hands": [a, b], "attacker": self.rng.randrange(2), "table": []}}, True

    def _invalid(self) -> tuple[Any, bool]:
        rng = self.rng
        gid = rng.choice(list(self.games)) if self.games else "g1"
        choices: list[Callable[[], Any]] = [
            lambda: {"cmd": rng.choice(["castle", "HELLO", "", "new-game"])},
            lambda: {"game": gid},
            lambda: {"cmd": rng.choice([1, None, [], {}])},
            lambda: rng.choice([[1, 2], "hello", 3.5, None, True]),
            lambda: {"cmd": "legal", "game": gid, "player": rng.choice([2, -1, "0", None, 0.5, True])},
            lambda: {"cmd": "legal", "game": f"g{rng.randrange(10**6, 10**7)}", "player": 0},
            lambda: {"cmd": "legal", "game": gid, "player": 0, "extra": 1},
            lambda: {
                "cmd": "apply",
                "game": gid,
                "player": rng.randrange(2),
                "action": {
                    "kind": rng.choice(["duel", "attack", "answer", "replace", "pass"]),
                    "cards": [rng.randrange(1, 13) for _ in range(rng.randrange(6, 10))],
                },
            },
            lambda: {
                "cmd": "apply",
                "game": gid,
                "player": 0,
                "action": {"kind": "duel", "cards": [rng.choice([0, 13, "x"])]},
            },
            lambda: {"cmd": "apply", "game": gid, "player": 0, "action": "duel 5"},
            lambda: {
                "cmd": "set_rules",
                "rules": rng.choice(
                    [{"board": [1, 2, 3]}, {"deck": [1] * 12}, {"tie": "coin"}, "rules.toml", {"arrows": "both"}, 7]
                ),
            },
            lambda: {
                "cmd": "new_game",
                "record": rng.choice(
                    [
                        {},
                        {"format": "tacocat-record", "seed": 1, "actions": 5},
                        {
                            "format": "tacocat-record",
                            "seed": 1,
                            "actions": [{"player": 0, "kind": "duel", "cards": [1]}],
                        },
                    ]
                ),
            },
            lambda: {"cmd": "new_game", "seed": "42"},
            lambda: {"cmd": "new_game", "state": {"format": "tacocat-state"}},
            lambda: {"cmd": "hint", "view": {**VIEW, "hand": [1, 1, 1]}},
            lambda: {"cmd": "hint", "view": {**VIEW, "opponent_hand_size": 40}},
            lambda: {"cmd": "hint", "view": VIEW, "time_ms": rng.choice([0, -5, "1s", 1.5])},
            lambda: {"cmd": "hint", "view": {**VIEW, "rules": "/etc/passwd"}},
            lambda: {"cmd": "solve", "position": {"hands": [[1, 1, 1], [2, 3, 4]], "attacker": 0, "table": []}},
            lambda: {"cmd": "solve", "position": {"hands": [[1, 2], [3, 4, 5]], "attacker": 0, "table": []}},
            lambda: {"cmd": "solve"},
            lambda: {"cmd": "view", "game": gid},
            lambda: {"cmd": "stop", "target": [1]},
        ]
        req = rng.choice(choices)()
        self.kinds["invalid"] += 1
        return req, False

    # ------------------------------------------------------------- answers
    def observe(self, request: Any, expect: bool | None, response: dict) -> None:
        rid = request.get("id") if isinstance(request, dict) else None
        if not isinstance(response, dict) or response.get("id") != rid or "ok" not in response:
            self.problems.append(f"bad answer {response!r} to {request!r}")
            return
        if response["ok"]:
            self.codes["ok"] += 1
        else:
            code = response["error"]["code"]
            self.codes[code] += 1
            if code not in ERROR_CODES or code == "internal":
                self.problems.append(f"{code}: {response['error']['message']} (request {json.dumps(request)[:200]})")
        if expect is not None and response["ok"] != expect:
            self.problems.append(f"expected ok={expect}: {json.dumps(request)[:200]} -> {json.dumps(response)[:300]}")
        if response["ok"]:
            self._update(request, response["result"])

    def _update(self, request: dict, result: dict) -> None:
        cmd = request["cmd"]
        if cmd == "new_game":
            self.games[result["game"]] = {"acting": result["acting"], "over": result["over"], "legal": {}}
            self.tokens[result["game"]] = result["tokens"]
        elif cmd == "end_game":
            self.games.pop(request["game"], None)
            self.tokens.pop(request["game"], None)
        elif cmd == "legal":
            self.games[request["game"]]["legal"][request["player"]] = result["actions"]
        elif cmd == "apply":
            status = result["status"]
            self.games[request["game"]] = {"acting": status["acting"], "over": status["over"], "legal": {}}

    def report(self) -> dict:
        return {
            "requests": self.sent,
            "answers": dict(self.codes),
            "kinds": dict(self.kinds),
            "problems": len(self.problems),
        }


def raw_bad_lines(rng: random.Random) -> Iterator[bytes]:
    """Lines only a byte transport can send."""
    while True:
        yield rng.choice(
            [
                b"garbage",
                b"{",
                b'{"id": 1, "cmd": "hello"',
                b"[" * 50_000,
                b"\xff\xfe\xfd",
                b'{"id": 1, "cmd": "new_game", "seed": ' + b"9" * 5000 + b"}",
                b"x" * (2 << 20),  # longer than the default 1 MiB line limit
            ]
        )


# ------------------------------------------------------------------ targets


def soak_session(
    requests: int,
    seed: int = 1,
    searches: bool = True,
    warmup: int | None = None,
    session: EngineSession | None = None,
    trace: bool = True,
    clear_every: int | None = None,
) -> dict:
    """Soak an in-process session; memory measured after `warmup` requests
    (default a fifth) and at the end, and RSS at every tenth of the run
    (`rss_curve_kib`).  `trace`: measure the Python heap with tracemalloc
    (slower).  `clear_every`: empty the memo caches every so many requests,
    to see the RSS of everything else."""
    session = session or EngineSession(max_games=50, max_time_ms=200)
    driver = Driver(seed, searches)
    warmup = requests // 5 if warmup is None else warmup
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    mem: dict[str, Any] = {"rss_curve_kib": [], "memo_entries_curve": []}
    step = max(1, requests // 10)
    for i in range(requests):
        if clear_every and i and i % clear_every == 0:
            clear_bounded_caches()
        if i % step == 0:
            mem["rss_curve_kib"].append(rss_kib())
            mem["memo_entries_curve"].append(memo_entries())
        if i == warmup:
            mem["caches_cleared_after_warmup"] = clear_bounded_caches()
            mem["traced_after_warmup_kib"] = tracemalloc.get_traced_memory()[0] // 1024
            mem["rss_after_warmup_kib"] = rss_kib()
        request, expect = driver.request()
        driver.observe(request, expect, session.handle(request))
    seconds = time.perf_counter() - t0
    mem["rss_before_clearing_kib"] = rss_kib()
    mem["caches_cleared_at_end"] = clear_bounded_caches()
    mem["memo_entries_curve"].append(sum(mem["caches_cleared_at_end"].values()))
    mem["traced_end_kib"], peak = (v // 1024 for v in tracemalloc.get_traced_memory())
    mem["traced_peak_kib"] = peak
    mem["rss_end_kib"] = rss_kib()
    mem["rss_curve_kib"].append(mem["rss_before_clearing_kib"])
    if trace:
        tracemalloc.stop()
    intact = check_games(session)
    return {
        **driver.report(),
        "seconds": round(seconds, 2),
        "per_second": round(requests / seconds),
        "memory": mem,
        "games_intact": intact,
        "examples": driver.problems[:5],
    }


def check_games(session: EngineSession) -> int:
    """Every open game's record replays to its state; how many were checked."""
    games = session.handle({"cmd": "games"})["result"]["games"]
    for g in games:
        record = session.handle({"cmd": "record", "game": g["game"]})["result"]["record"]
        state = session.handle({"cmd": "state", "game": g["game"]})["result"]["state"]
        if GameRecord.from_dict(record).replay().to_dict() != state:
            raise AssertionError(f"game {g['game']} does not replay from its record")
    return len(games)


def soak_process(
    requests: int, seed: int = 2, searches: bool = True, bad_lines: float = 0.05, argv: list[str] | None = None
) -> dict:
    """Soak `tacocat engine` in a subprocess, one request at a time."""
    import subprocess
    from shutil import which

    beside = Path(sys.executable).parent / "tacocat"  # this interpreter's own engine before PATH's

    argv = argv or [
        str(beside) if beside.exists() else which("tacocat") or "tacocat",
        "engine",
        "--max-time-ms",
        "200",
        "--max-games",
        "50",
    ]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    driver = Driver(seed, searches)
    rng = random.Random(seed)
    bad = raw_bad_lines(rng)
    raw_sent = 0
    rss: dict[str, Any] = {"rss_curve_kib": []}
    step = max(1, requests // 10)
    t0 = time.perf_counter()
    try:
        for i in range(requests):
            if i % step == 0:
                rss["rss_curve_kib"].append(rss_kib(proc.pid))
            if i == requests // 5:
                rss["rss_after_warmup_kib"] = rss_kib(proc.pid)
            if rng.random() < bad_lines:
                proc.stdin.write(next(bad) + b"\n")
                proc.stdin.flush()
                response = json.loads(proc.stdout.readline())
                raw_sent += 1
                if (
                    response.get("ok") is not False
                    or response["error"]["code"] != "bad_json"
                    or response["id"] is not None
                ):
                    driver.problems.append(f"raw bad line answered {response!r}")
                continue
            request, expect = driver.request()
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                driver.problems.append(f"engine exited (status {proc.poll()}) after {i} requests")
                break
            driver.observe(request, expect, json.loads(line))
        rss["rss_end_kib"] = rss_kib(proc.pid)
        rss["rss_curve_kib"].append(rss["rss_end_kib"])
        proc.stdin.write(b'{"id": "bye", "cmd": "quit"}\n')
        proc.stdin.flush()
        last = json.loads(proc.stdout.readline())
        status = proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    seconds = time.perf_counter() - t0
    return {
        **driver.report(),
        "raw_bad_lines": raw_sent,
        "seconds": round(seconds, 2),
        "per_second": round((requests) / seconds),
        "memory": rss,
        "quit": last.get("ok"),
        "exit_status": status,
        "examples": driver.problems[:5],
    }
