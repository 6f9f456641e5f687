"""The fuzz suite's strategies and doors (issue 12).

Hypothesis strategies for everything a hostile client can hand the engine
— protocol requests, HTTP bodies, command-line flags, ruleset files, game
records, views, state documents, positions — and one *door* per way in,
each of which sends an input and checks the promise of that door:

- protocol (`EngineSession.handle`): an answer for every request, its code
  in the table and never `internal`, strict JSON, and a failed request
  leaves every game byte for byte as it was;
- HTTP (a real uvicorn server on 127.0.0.1): the documented status, never
  500, a strict-JSON response object;
- CLI (`tacocat` in-process via CliRunner, or a real subprocess): exit 0 or
  2, never a traceback, a one-line `error:` on exit 2, strict JSON with
  `--json`;
- files (fuzzed rulesets, records, views, position lines on disk): through
  the command that reads them, with the CLI's promise.

Each door counts inputs and keeps the failures it saw instead of raising,
so one run reports them all.  tests/test_fuzz_doors.py runs a short round
of each; results/fuzz.py the long run and its table (results/fuzz.md)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import quote

from hypothesis import strategies as st

from tacocat.protocol.http import HTTP_STATUS
from tacocat.protocol.session import COMMANDS, ERROR_CODES, EngineSession, encode_response
from tacocat.rules.game import GameState

HUGE = 10**400
HOSTILE_INTS = [0, -1, 1, 2, 3, 7, 8, 9, 12, 13, 100, 2**31, 2**63 - 1, 2**63, 2**64, 10**30, HUGE, -HUGE]
HOSTILE_FLOATS = [0.5, -0.0, 1.5, 1e308, float("inf"), float("-inf"), 1e-300]
HOSTILE_TEXT = ["", "-", "x", "standard", "g1", "0", "1e400", "NaN", "\x00", "é", "../../etc/passwd", "a" * 300]


def deep(levels: int, leaf: Any = None) -> Any:
    v: Any = [] if leaf is None else leaf
    for _ in range(levels):
        v = [v]
    return v


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-20, 20), st.sampled_from(HOSTILE_INTS), st.sampled_from(HOSTILE_FLOATS),
    st.floats(allow_nan=False, width=32), st.text(max_size=12), st.sampled_from(HOSTILE_TEXT),
)
json_values = st.recursive(
    leaves, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=16,
)
nested = st.sampled_from([5, 20, 31, 33, 60, 200]).map(deep)
hostile = st.one_of(leaves, json_values, nested)

cards = st.one_of(st.lists(st.integers(1, 12), max_size=12), st.lists(st.integers(-2, 15), max_size=14), hostile)
actions = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["replace", "duel", "attack", "answer"]), "cards": cards},
                          optional={"beats": st.booleans() | hostile}),
    st.fixed_dictionaries({"kind": hostile, "cards": cards}, optional={"why": hostile}),
    hostile,
)
rulesets = st.one_of(
    st.fixed_dictionaries({}, optional={
        "deck": st.lists(st.integers(-1, 10) | st.sampled_from(HOSTILE_INTS), max_size=13)
        | st.dictionaries(st.sampled_from(["1", "2", "12", "13", "x", "0"]), st.integers(-1, 10), max_size=4) | hostile,
        "board": st.lists(st.integers(0, 14) | st.sampled_from(HOSTILE_INTS), max_size=8) | hostile,
        "arrows": st.lists(st.sampled_from(["both", "p0", "p1", "up", ""]), max_size=8) | hostile,
        "tie": st.sampled_from(["redeal", "arrow", "coin"]) | hostile,
        "max_deals": st.integers(-2, 20_000) | st.sampled_from(HOSTILE_INTS) | hostile,
        "name": st.text(max_size=8) | hostile,
        "colour": hostile,
    }),
    st.just("standard"), hostile,
)


# ------------------------------------------------------ documents to mutate

def _played_state(seed: int, steps: int) -> GameState:
    state = GameState.new(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.over:
            break
        for p in state.acting_players():
            state.apply(p, rng.choice(state.legal_actions(p)))
    return state


_DOCS: dict[tuple, GameState] = {}


def base_state(seed: int, steps: int) -> GameState:
    key = (seed % 8, steps)
    if key not in _DOCS:
        _DOCS[key] = _played_state(*key)
    return _DOCS[key]


@st.composite
def mutated(draw, doc: Any, max_changes: int = 3) -> Any:
    """`doc` (a JSON document) with a few of its values, anywhere inside,
    replaced by hostile ones (or removed)."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(0, max_changes))):
        path: list = []
        node = doc
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
            path.append(key)
            node = node[key]
        if not path:
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.integers(0, 5)) == 0:
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(hostile)
    return doc


def _state_source(draw) -> GameState:
    return base_state(draw(st.integers(0, 7)), draw(st.sampled_from([0, 1, 2, 3, 5, 9, 15, 40])))


@st.composite
def state_documents(draw) -> Any:
    return draw(mutated(_state_source(draw).to_dict()))


@st.composite
def records(draw) -> Any:
    return draw(mutated(_state_source(draw).record().to_dict()))


@st.composite
def views(draw) -> Any:
    state = _state_source(draw)
    if state.over:
        state = base_state(0, 0)
    full = state.view(draw(st.integers(0, 1))).to_dict()
    short = {k: full[k] for k in ("player", "hand", "seen", "opponent_hand_size", "attacker", "table")}
    return draw(mutated(draw(st.sampled_from([full, short]))))


@st.composite
def positions(draw) -> Any:
    n = draw(st.integers(1, 8))
    rng = random.Random(draw(st.integers(0, 10**6)))
    deck = [r for r in range(1, 13) for _ in range(3)]
    rng.shuffle(deck)
    doc = {"hands": [sorted(deck[:n]), sorted(deck[n:2 * n])], "attacker": rng.randrange(2), "table": []}
    return draw(mutated(doc))


documents = {"state": state_documents(), "record": records(), "view": views(), "position": positions()}


# ------------------------------------------------------------ requests

GAMES = 3
PLACEHOLDER_GAMES = [f"$game{i}" for i in range(GAMES)]
PLACEHOLDER_TOKENS = ["$owner", "$seat", "$other_seat", "$other_game"]


@st.composite
def field_value(draw, name: str) -> Any:
    plausible = {
        "game": st.sampled_from(PLACEHOLDER_GAMES + ["g1", "gAAAAAAAAAAAAAAAA"]),
        "token": st.sampled_from(PLACEHOLDER_TOKENS + ["", "x" * 32]),
        "player": st.sampled_from([0, 1]),
        "action": st.just("$legal") | actions,
        "rules": rulesets,
        "seed": st.integers(-10, 10**6) | st.sampled_from(HOSTILE_INTS),
        "record": records(),
        "state": state_documents(),
        "view": views() | st.just("$view"),
        "position": positions(),
        "time_ms": st.integers(1, 60) | st.sampled_from([0, -1, 10**6, HUGE, 1.5]),
        "iterations": st.integers(1, 8) | st.sampled_from([0, -1, HUGE, "many"]),
        "method": st.sampled_from(["auto", "exact", "pimc", "ismcts", "magic"]),
        "target": st.integers(0, 5) | st.text(max_size=4) | hostile,
        "tokens": st.lists(st.sampled_from(PLACEHOLDER_TOKENS) | hostile, max_size=4) | hostile,
    }.get(name, hostile)
    return draw(st.one_of(plausible, plausible, plausible, hostile) if name not in ("time_ms", "iterations") else plausible)


@st.composite
def protocol_requests(draw) -> Any:
    """A request object: usually a known command with plausible or hostile
    fields (placeholders `$game0`, `$seat`, `$legal`, ... are filled in by
    the door with a real game id, token or legal action), sometimes junk."""
    kind = draw(st.integers(0, 19))
    if kind == 0:
        return draw(hostile)
    name = draw(st.sampled_from(sorted(COMMANDS))) if kind > 1 else draw(st.text(max_size=10) | hostile)
    request: dict[str, Any] = {"cmd": name}
    if draw(st.integers(0, 3)):
        request["id"] = draw(st.integers(-5, 10**6) | st.text(max_size=10) | st.sampled_from(HOSTILE_INTS + HOSTILE_FLOATS) | hostile)
    command = COMMANDS.get(name) if isinstance(name, str) else None
    if command is not None:
        for f in command.fields:
            if draw(st.integers(0, 9)) < (9 if f.required else 4):
                request[f.name] = draw(field_value(f.name))
    if draw(st.integers(0, 15)) == 0:
        request[draw(st.sampled_from(["colour", "cmd ", "ID", "token"]))] = draw(hostile)
    if draw(st.integers(0, 30)) == 0:
        del request["cmd"]
    return request


# --------------------------------------------------------------- doors

@dataclass
class Door:
    name: str
    tried: int = 0
    failures: list[str] = field(default_factory=list)
    codes: dict[str, int] = field(default_factory=dict)
    slowest: float = 0.0

    def fail(self, what: str) -> None:
        self.failures.append(what[:600])

    def count(self, code: str) -> None:
        self.codes[code] = self.codes.get(code, 0) + 1


def strict_loads(text: str | bytes) -> Any:
    def refuse(c):
        raise ValueError(f"{c} is not JSON")

    return json.loads(text, parse_constant=refuse)


HANG_S = 10.0
"""Any single answer slower than this counts as a hang (searches are capped
at 100 ms in the doors' sessions)."""


class ProtocolDoor(Door):
    """An in-process session with GAMES open games (reopened as they end)."""

    def __init__(self, session: EngineSession | None = None, handle: Callable[[Any], dict] | None = None,
                 name: str = "protocol") -> None:
        super().__init__(name)
        self.session = session or EngineSession(max_time_ms=100, max_games=50)
        self.handle = handle or self.session.handle
        self.games: list[tuple[str, dict]] = []
        self.rng = random.Random(12)

    def _refill(self) -> None:
        live = [(g, t) for g, t in self.games if g in self.session._games and not self.session._games[g].over]
        while len(live) < GAMES:
            r = self.session.handle({"cmd": "new_game", "seed": self.rng.randrange(10**6)})["result"]
            live.append((r["game"], r["tokens"]))
        self.games = live

    def resolve(self, request: Any) -> Any:
        if not isinstance(request, dict):
            return request
        self._refill()
        request = dict(request)
        gi = 0
        if request.get("game") in PLACEHOLDER_GAMES:
            gi = PLACEHOLDER_GAMES.index(request["game"])
            request["game"] = self.games[gi][0]
        gid, tokens = self.games[gi]
        player = request["player"] if type(request.get("player")) is int and request["player"] in (0, 1) else 0
        state = self.session._games[gid]
        if request.get("player") == "$acting" or ("player" in request and self.rng.random() < 0.5 and state.acting_players()):
            player = self.rng.choice(state.acting_players() or [0])
            if "player" in request:
                request["player"] = player
        subst = {"$owner": tokens["owner"], "$seat": tokens["seats"][player], "$other_seat": tokens["seats"][1 - player],
                 "$other_game": self.games[(gi + 1) % GAMES][1]["owner"]}
        if isinstance(request.get("token"), str) and request["token"] in subst:
            request["token"] = subst[request["token"]]
        if isinstance(request.get("tokens"), list):
            request["tokens"] = [subst.get(t, t) if isinstance(t, str) else t for t in request["tokens"]]
        if request.get("action") == "$legal":
            legal = state.legal_actions(player)
            request["action"] = self.rng.choice(legal).to_dict() if legal else {"kind": "duel", "cards": [1]}
        if request.get("view") == "$view":
            request["view"] = state.view(player).to_dict()
        return request

    def snapshot(self) -> str:
        with self.session._lock:
            return json.dumps({g: s.to_dict() for g, s in self.session._games.items()}, sort_keys=True)

    def send(self, request: Any) -> None:
        request = self.resolve(request)
        self.tried += 1
        before = self.snapshot()
        t0 = time.perf_counter()
        try:
            response = self.handle(request)
        except Exception as exc:  # noqa: BLE001 - the door must never raise
            self.fail(f"raised {type(exc).__name__}: {exc} for {_show(request)}")
            return
        elapsed = time.perf_counter() - t0
        self.slowest = max(self.slowest, elapsed)
        if elapsed > HANG_S:
            self.fail(f"hang: {elapsed:.1f} s for {_show(request)}")
        self.check_response(request, response, before)

    def check_response(self, request: Any, response: Any, before: str | None) -> None:
        if not isinstance(response, dict) or "ok" not in response or "id" not in response:
            self.fail(f"not a response: {_show(response)} for {_show(request)}")
            return
        try:
            strict_loads(encode_response(response))
            json.dumps(response, allow_nan=False)
        except (TypeError, ValueError) as exc:
            self.fail(f"not strict JSON ({exc}): {_show(response)} for {_show(request)}")
        if response["ok"]:
            self.count("ok")
            return
        code = response.get("error", {}).get("code")
        self.count(str(code))
        if code not in ERROR_CODES or code == "internal":
            self.fail(f"{code}: {response['error'].get('message')} for {_show(request)}")
        if before is not None and code != "busy" and self.snapshot() != before:
            self.fail(f"failed request changed a game: {_show(request)} -> {_show(response)}")


def _show(value: Any, limit: int = 300) -> str:
    try:
        text = json.dumps(value, default=repr)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------- HTTP

@contextlib.contextmanager
def http_server(session: EngineSession, max_body: int = 1 << 16):
    """uvicorn on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    import uvicorn

    from tacocat.protocol.http import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    config = uvicorn.Config(create_app(session, max_body=max_body), host="127.0.0.1", port=port, log_level="critical",
                            lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@st.composite
def http_bodies(draw) -> tuple[str, bytes | None, Any]:
    """(path, raw body, the request it carries or None)."""
    request = draw(protocol_requests())
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return "/v1", draw(st.binary(max_size=64) | st.sampled_from(
            [b"\xff\xfe", b"{", b"[" * 100_000, b"x" * 70_000, b'{"id": 1e400, "cmd": "hello"}', b"NaN"])), None
    if shape <= 3 or not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
        return "/v1", None, request
    body = {k: v for k, v in request.items() if k != "cmd" or draw(st.booleans())}
    path = request["cmd"] if draw(st.integers(0, 9)) else draw(st.sampled_from(["castle", "", "hello/x", "%00"]))
    return f"/v1/{path}", None, body if path == request["cmd"] else body


class HttpDoor(ProtocolDoor):
    """Requests through a real HTTP server on the loopback."""

    STATUSES = set(HTTP_STATUS.values()) | {200, 413, 404, 405}

    def __init__(self, base: str, session: EngineSession) -> None:
        super().__init__(session, name="http")
        import httpx

        self.client = httpx.Client(base_url=base, timeout=HANG_S + 5)

    def send_http(self, item: tuple[str, bytes | None, Any]) -> None:
        path, raw, request = item
        if raw is None:
            request = self.resolve(request)
            try:
                raw = json.dumps(request).encode()
            except ValueError:  # inf: send it the way a client would spell it
                raw = json.dumps(request, allow_nan=True).replace("Infinity", "1e400").encode()
        path = "/" + quote(path.lstrip("/").encode("utf-8", "surrogatepass"), safe="/")  # what a client puts on the wire for any command name
        self.tried += 1
        before = self.snapshot()
        t0 = time.perf_counter()
        try:
            r = self.client.post(path, content=raw, headers={"content-type": "application/json"})
        except Exception as exc:  # noqa: BLE001
            self.fail(f"transport error {type(exc).__name__}: {exc} for {path} {raw[:200]!r}")
            return
        elapsed = time.perf_counter() - t0
        self.slowest = max(self.slowest, elapsed)
        if elapsed > HANG_S:
            self.fail(f"hang: {elapsed:.1f} s for {path} {raw[:200]!r}")
        if r.status_code >= 500 and r.status_code != 503 or r.status_code not in self.STATUSES:
            self.fail(f"status {r.status_code} for {path} {raw[:200]!r}: {r.text[:300]}")
        try:
            body = strict_loads(r.content)
        except ValueError as exc:
            self.fail(f"body not strict JSON ({exc}) for {path} {raw[:200]!r}: {r.text[:300]}")
            return
        self.check_response(request, body, before)
        if isinstance(body, dict) and body.get("ok") is False:
            code = body.get("error", {}).get("code")
            expected = r.status_code if r.status_code == 413 or (r.status_code == 405 and code == "unknown_command") \
                else HTTP_STATUS.get(code)
            if r.status_code != expected:
                self.fail(f"status {r.status_code} for code {code} (expected {expected}) at {path}")


# ----------------------------------------------------------------- CLI

VALUES = ["", "-", "0", "1", "2", "-1", "13", "x", "inf", "nan", "1e400", "1" + "0" * 400, "2 5 9", "2,5,7,12",
          "12 12 12 12 12", "4 5 6", "cat=9", "cat=3 covered=2,4", "cat=3 covered=3", "none", "\x7f", "é", "0.5"]
SMALL = ["0", "1", "2", "3", "-1", "x", "inf", "1e400", "1" + "0" * 400, "0.5", ""]
COUNT_OPTIONS = {"--deals", "--games", "--iterations", "--time", "--workers", "--top", "--lines", "--max-hands",
                 "--samples", "--game-deals", "--pairs", "--max-searches", "--max-games", "--max-line", "--max-time-ms",
                 "--max-body"}
"""Budgets and counts: fuzzed with small or invalid values only, so that a
valid invocation stays a short one (a valid 10^400 deals would be a long
run by request, not a bug)."""
FEW = ["0", "1", "2", "-1", "x", "inf", "1e400", "0.5", ""]
MANY_OPTIONS = {"--deals", "--games", "--workers", "--pairs", "--game-deals"}
"""How many games or processes: a valid 10^400 games is a run that never
ends by request, so these get small or invalid values only (counts are not
capped; see results/fuzz.md)."""
CLI_COMMANDS = ["hint", "solve", "analyze", "play", "selfplay", "arena", "engine"]


def _options(name: str) -> list[Any]:
    from tacocat.cli.main import app

    command = app.get_command(None, name)  # type: ignore[arg-type]
    return [p for p in command.params if p.param_type_name == "option" and p.name not in ("help",)]


@st.composite
def cli_invocations(draw, files: list[str] = ()) -> tuple[list[str], str | None]:
    """(argv after `tacocat`, stdin)."""
    name = draw(st.sampled_from(CLI_COMMANDS))
    argv = [name]
    options = _options(name)
    for _ in range(draw(st.integers(0, 5))):
        opt = draw(st.sampled_from(options))
        flag = draw(st.sampled_from(opt.opts + opt.secondary_opts))
        argv.append(flag)
        if opt.is_flag:
            continue
        pool = (FEW if flag in MANY_OPTIONS else SMALL) if flag in COUNT_OPTIONS else VALUES + list(files)
        argv.extend(draw(st.sampled_from(pool)) for _ in range(opt.nargs if opt.nargs > 0 else 1))
    if name in ("analyze",) and draw(st.booleans()):
        argv.append(draw(st.sampled_from(list(files) + ["-", "missing.json"])))
    if name in ("hint", "solve") and draw(st.booleans()) and "--hand" not in argv and "--hands" not in argv:
        argv += ["--hand", draw(st.sampled_from(VALUES))]
    if name in ("selfplay", "arena") and not any(a in argv for a in ("--deals", "--games")):
        argv += ["--deals", "1"] if name == "arena" else ["--games", "1"]
    stdin = None
    if name == "engine":
        lines = draw(st.lists(protocol_requests(), max_size=4))
        stdin = "\n".join(json.dumps(l, allow_nan=True) for l in lines) + '\n{"cmd": "quit"}\n'
    elif name == "play":
        stdin = "\n".join(draw(st.lists(st.sampled_from(VALUES + ["quit", "help", "legal"]), max_size=6))) + "\n"
    return argv, stdin


class CliDoor(Door):
    """`tacocat ARGS` in-process (CliRunner), or as a real subprocess."""

    def __init__(self, name: str = "cli") -> None:
        super().__init__(name)

    def run(self, argv: list[str], stdin: str | None, subprocess_: bool = False) -> None:
        self.tried += 1
        if os.environ.get("TACOCAT_FUZZ_TRACE"):
            print(f"cli {self.tried}: {_argv(argv)}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        if subprocess_:
            exe = [sys.executable, "-m", "tacocat.cli.main"]
            try:
                p = subprocess.run([*exe, *argv], input=(stdin or "").encode(), capture_output=True, timeout=60)
            except subprocess.TimeoutExpired:
                self.fail(f"hang (60 s): tacocat {_argv(argv)}")
                return
            status, out, err, exc = p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), None
        else:
            from click.testing import CliRunner

            from tacocat.cli.main import app

            box: dict = {}

            def invoke() -> None:
                box["r"] = CliRunner().invoke(app, argv, input=stdin)

            worker = threading.Thread(target=invoke, daemon=True)
            worker.start()
            worker.join(60)
            if worker.is_alive():
                self.fail(f"hang (60 s): tacocat {_argv(argv)}")
                return
            r = box["r"]
            status, out, err, exc = r.exit_code, r.stdout, r.stderr, r.exception
        self.slowest = max(self.slowest, time.perf_counter() - t0)
        self.count(str(status))
        if exc is not None and not isinstance(exc, SystemExit):
            self.fail(f"exception {type(exc).__name__}: {exc} from tacocat {_argv(argv)}")
        if "Traceback (most recent call last)" in out + err:
            self.fail(f"traceback from tacocat {_argv(argv)}: {err[-400:]}")
        if status not in (0, 2):
            self.fail(f"exit {status} from tacocat {_argv(argv)}: {err[-300:]}")
        per_line = argv[0] == "solve" and "--json" in argv and out.strip()
        if per_line:  # docs/cli.md: one JSON answer per input line, exit 2 if any line failed
            for line in out.splitlines():
                try:
                    answer = strict_loads(line)
                except ValueError as e:
                    self.fail(f"solve --json line not strict JSON ({e}) from tacocat {_argv(argv)}: {line[:200]}")
                    break
                if not isinstance(answer, dict) or not ("error" in answer or "value" in answer or "moves" in answer):
                    self.fail(f"solve --json line neither a result nor an error: {line[:200]}")
        elif status == 2:
            lines = [l for l in err.strip().splitlines() if l.strip()]
            if len(lines) != 1 or not lines[0].startswith("error: "):
                self.fail(f"exit 2 without one error line from tacocat {_argv(argv)}: {err[-300:]!r}")
        if status == 0 and "--json" in argv and argv[0] in ("hint",):
            try:
                strict_loads(out)
            except ValueError as e:
                self.fail(f"--json output not strict JSON ({e}) from tacocat {_argv(argv)}: {out[:300]}")


def _argv(argv: list[str]) -> str:
    text = " ".join(repr(a) if (" " in a or not a) else a for a in argv)
    return text if len(text) < 300 else text[:300] + "..."


# --------------------------------------------------------------- files

@st.composite
def fuzzed_files(draw) -> tuple[str, bytes, list[str]]:
    """(what, the file's bytes, the argv that reads it with `{}` for its path)."""
    what = draw(st.sampled_from(["ruleset-json", "ruleset-toml", "record", "view", "positions", "bytes"]))
    if what == "ruleset-json":
        data = json.dumps(draw(rulesets), allow_nan=True).encode()
        return what, data, ["hint", "--hand", "2 5 9", "--iterations", "2", "--rules", "{}.json"]
    if what == "ruleset-toml":
        rules = draw(rulesets)
        lines = []
        if isinstance(rules, dict):
            for k, v in rules.items():
                try:
                    lines.append(f"{k} = {json.dumps(v)}")
                except ValueError:
                    lines.append(f"{k} = inf")
        text = "\n".join(lines) + draw(st.sampled_from(["", "\n[x", "\ndeck = [", "\n" + "a=[" * 500]))
        return what, text.encode(), ["hint", "--hand", "2 5 9", "--iterations", "2", "--rules", "{}.toml"]
    if what == "record":
        return what, json.dumps(draw(records()), allow_nan=True).encode(), ["analyze", "--iterations", "2", "{}.json"]
    if what == "view":
        return what, json.dumps(draw(views()), allow_nan=True).encode(), ["hint", "--iterations", "2", "--view", "{}.json"]
    if what == "positions":
        lines = [json.dumps(draw(positions()), allow_nan=True) for _ in range(draw(st.integers(1, 4)))]
        return what, ("\n".join(lines) + "\n").encode(), ["solve", "--json", "{}.jsonl"]
    raw = draw(st.binary(max_size=200) | st.sampled_from([b"\xff\xfe\x00", b"[" * 100_000, b"{" * 5000, b"NaN"]))
    return what, raw, [draw(st.sampled_from(["hint --hand 2,5,9 --rules", "analyze", "hint --view"])).split(), "{}.json"]


class FileDoor(CliDoor):
    def __init__(self, folder: str | None = None) -> None:
        super().__init__("files")
        self.folder = folder or tempfile.mkdtemp(prefix="tacocat-fuzz-")
        self.n = 0

    def send_file(self, item: tuple[str, bytes, list]) -> None:
        what, data, argv = item
        self.n += 1
        flat: list[str] = []
        for a in argv:
            flat.extend(a if isinstance(a, list) else [a])
        out = []
        for a in flat:
            if a.startswith("{}"):
                path = os.path.join(self.folder, f"f{self.n}{a[2:]}")
                with open(path, "wb") as f:
                    f.write(data)
                a = path
            out.append(a)
        self.run(out, None)
        if out[0] == "solve":
            pass  # per-line answers are checked by the CLI door's rules (exit 0/2, no traceback)
