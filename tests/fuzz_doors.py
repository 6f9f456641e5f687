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

from tacocat.protocol.commands import COMMANDS
from tacocat.protocol.http import HTTP_STATUS, TRANSPORT_STATUS
from tacocat.protocol.session import EngineSession
from tacocat.protocol.wire import ERROR_CODES, encode_response
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
    st.none(),
    st.booleans(),
    st.integers(-20, 20),
    st.sampled_from(HOSTILE_INTS),
    st.sampled_from(HOSTILE_FLOATS),
    st.floats(allow_nan=False, width=32),
    st.text(max_size=12),
    st.sampled_from(HOSTILE_TEXT),
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=16,
)
nested = st.sampled_from([5, 20, 31, 33, 60, 200]).map(deep)
hostile = st.one_of(leaves, json_values, nested)

cards = st.one_of(st.lists(st.integers(1, 12), max_size=12), st.lists(st.integers(-2, 15), max_size=14), hostile)
actions = st.one_of(
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["replace", "duel", "attack", "answer"]), "cards": cards},
        optional={"beats": st.booleans() | hostile},
    ),
    st.fixed_dictionaries({"kind": hostile, "cards": cards}, optional={"why": hostile}),
    hostile,
)
rulesets = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "deck": st.lists(st.integers(-1, 10) | st.sampled_from(HOSTILE_INTS), max_size=13)
            | st.dictionaries(st.sampled_from(["1", "2", "12", "13", "x", "0"]), st.integers(-1, 10), max_size=4)
            | hostile,
            "board": st.lists(st.integers(0, 14) | st.sampled_from(HOSTILE_INTS), max_size=8) | hostile,
            "arrows": st.lists(st.sampled_from(["both", "p0", "p1", "up", ""]), max_size=8) | hostile,
            "tie": st.sampled_from(["redeal", "arrow", "coin"]) | hostile,
            "max_deals": st.integers(-2, 20_000) | st.sampled_from(HOSTILE_INTS) | hostile,
            "name": st.text(max_size=8) | hostile,
            "colour": hostile,
        },
    ),
    st.just("standard"),
    hostile,
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
    doc = {"hands": [sorted(deck[:n]), sorted(deck[n : 2 * n])], "attacker": rng.randrange(2), "table": []}
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
        # new_game's engine seat: small budgets (the engine moves inside new_game and apply)
        "engine": st.fixed_dictionaries(
            {"seat": st.sampled_from([0, 1, 1, 2, -1, "1", None])},
            optional={
                "level": st.sampled_from([1, 2, 3, 0, 6, "3"]),
                "bot": st.sampled_from(["random", "heuristic", "pimc", "oracle", "x"]),
                "time_ms": st.integers(1, 30),
                "iterations": st.integers(1, 4),
                "colour": hostile,
            },
        ),
    }.get(name, hostile)
    return draw(
        st.one_of(plausible, plausible, plausible, hostile) if name not in ("time_ms", "iterations") else plausible
    )


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
        request["id"] = draw(
            st.integers(-5, 10**6) | st.text(max_size=10) | st.sampled_from(HOSTILE_INTS + HOSTILE_FLOATS) | hostile
        )
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

    def timed(self, call: Callable[[], Any], what: str, raised: str = "raised") -> tuple[bool, Any]:
        """`call()` as one try, timed: the slowest kept, one past HANG_S a
        hang.  A door must never raise: an exception fails it and gives
        (False, None); else (True, what `call` returned)."""
        self.tried += 1
        t0 = time.perf_counter()
        try:
            answer = call()
        except Exception as exc:  # noqa: BLE001 - the failure is the finding
            self.fail(f"{raised} {type(exc).__name__}: {exc} for {what}")
            return False, None
        elapsed = time.perf_counter() - t0
        self.slowest = max(self.slowest, elapsed)
        if elapsed > HANG_S:
            self.fail(f"hang: {elapsed:.1f} s for {what}")
        return True, answer


def strict_loads(text: str | bytes) -> Any:
    def refuse(c):
        raise ValueError(f"{c} is not JSON")

    return json.loads(text, parse_constant=refuse)


HANG_S = 10.0
"""Any single answer slower than this counts as a hang (searches are capped
at 100 ms in the doors' sessions)."""


class ProtocolDoor(Door):
    """An in-process session with GAMES open games (reopened as they end)."""

    def __init__(
        self, session: EngineSession | None = None, handle: Callable[[Any], dict] | None = None, name: str = "protocol"
    ) -> None:
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
        if request.get("player") == "$acting" or (
            "player" in request and self.rng.random() < 0.5 and state.acting_players()
        ):
            player = self.rng.choice(state.acting_players() or [0])
            if "player" in request:
                request["player"] = player
        subst = {
            "$owner": tokens["owner"],
            "$seat": tokens["seats"][player],
            "$other_seat": tokens["seats"][1 - player],
            "$other_game": self.games[(gi + 1) % GAMES][1]["owner"],
        }
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
        before = self.snapshot()
        answered, response = self.timed(lambda: self.handle(request), _show(request))
        if answered:
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
def http_server(
    session: EngineSession,
    max_body: int = 1 << 16,
    cors_origins: tuple[str, ...] = (),
    allowed_hosts: tuple[str, ...] = (),
    check_host: bool = True,
):
    """uvicorn on 127.0.0.1 (a free port) in a thread, built as `tacocat
    serve` builds it (its Host, Origin and Content-Type guards, its
    connection limits); yields the base URL.  `allowed_hosts` are
    --allowed-host names; `check_host=False` drops the Host guard (only to
    show that a door notices)."""
    import uvicorn

    from tacocat.protocol.http import create_app, host_names, server_config

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    app = create_app(
        session,
        max_body=max_body,
        cors_origins=cors_origins,
        allowed_hosts=host_names("127.0.0.1", port, allowed_hosts) if check_host else None,
    )
    config = server_config(app, host="127.0.0.1", port=port, log_level="critical", lifespan="off")
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
        return (
            "/v1",
            draw(
                st.binary(max_size=64)
                | st.sampled_from(
                    [b"\xff\xfe", b"{", b"[" * 100_000, b"x" * 70_000, b'{"id": 1e400, "cmd": "hello"}', b"NaN"]
                )
            ),
            None,
        )
    if shape <= 3 or not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
        return "/v1", None, request
    body = {k: v for k, v in request.items() if k != "cmd" or draw(st.booleans())}
    path = request["cmd"] if draw(st.integers(0, 3)) else draw(st.sampled_from(["castle", "", "hello/x", "%00"]))
    return f"/v1/{path}", None, body  # a wrong path: send_http checks it is refused as unknown_command


class HttpDoor(ProtocolDoor):
    """Requests through a real HTTP server on the loopback."""

    STATUSES = set(HTTP_STATUS.values()) | set(TRANSPORT_STATUS) | {200}

    def __init__(self, base: str, session: EngineSession) -> None:
        super().__init__(session, name="http")
        import httpx

        self.client = httpx.Client(base_url=base, timeout=HANG_S + 5)

    def send_http(self, item: tuple[str, bytes | None, Any]) -> tuple[Any, bytes, Any] | None:
        """Send one body; (the request as sent, the raw body, the answer's
        JSON) when the answer was JSON, else None."""
        path, raw, request = item
        named = path.removeprefix("/v1/") if path.startswith("/v1/") else None  # the command the path names
        if raw is None:
            request = self.resolve(request)
            try:
                raw = json.dumps(request).encode()
            except ValueError:  # inf: send it the way a client would spell it
                raw = json.dumps(request, allow_nan=True).replace("Infinity", "1e400").encode()
        path = "/" + quote(
            path.lstrip("/").encode("utf-8", "surrogatepass"), safe="/"
        )  # what a client puts on the wire for any command name
        before = self.snapshot()
        answered, r = self.timed(
            lambda: self.client.post(path, content=raw, headers={"content-type": "application/json"}),
            f"{path} {raw[:200]!r}",
            "transport error",
        )
        if not answered:
            return None
        if r.status_code >= 500 and r.status_code != 503 or r.status_code not in self.STATUSES:
            self.fail(f"status {r.status_code} for {path} {raw[:200]!r}: {r.text[:300]}")
        try:
            body = strict_loads(r.content)
        except ValueError as exc:
            self.fail(f"body not strict JSON ({exc}) for {path} {raw[:200]!r}: {r.text[:300]}")
            return
        self.check_response(request, body, before)
        if named is not None and isinstance(body, dict):
            code = (body.get("error") or {}).get("code")
            if named not in COMMANDS:
                self.count("path names no command")
            if named not in COMMANDS and body.get("ok") is not False:
                self.fail(f"{path} names no command, yet was answered {_show(body)}")
            if named in COMMANDS and code == "unknown_command":
                self.fail(f"{path} names a command, yet was answered unknown_command")
        if isinstance(body, dict) and body.get("ok") is False:
            code = body.get("error", {}).get("code")
            expected = (
                r.status_code
                if r.status_code == 413 or (r.status_code == 405 and code == "unknown_command")
                else HTTP_STATUS.get(code)
            )
            if r.status_code != expected:
                self.fail(f"status {r.status_code} for code {code} (expected {expected}) at {path}")
        return request, raw, body


# ----------------------------------------------------------------- CLI

VALUES = [
    "",
    "-",
    "0",
    "1",
    "2",
    "-1",
    "13",
    "x",
    "inf",
    "nan",
    "1e400",
    "1" + "0" * 400,
    "2 5 9",
    "2,5,7,12",
    "12 12 12 12 12",
    "4 5 6",
    "cat=9",
    "cat=3 covered=2,4",
    "cat=3 covered=3",
    "none",
    "\x7f",
    "é",
    "0.5",
]
SMALL = ["0", "1", "2", "3", "-1", "x", "inf", "1e400", "1" + "0" * 400, "0.5", ""]
COUNT_OPTIONS = {
    "--deals",
    "--games",
    "--iterations",
    "--time",
    "--workers",
    "--top",
    "--lines",
    "--max-hands",
    "--samples",
    "--game-deals",
    "--pairs",
    "--max-searches",
    "--max-games",
    "--max-line",
    "--max-time-ms",
    "--max-body",
}
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
            status, out, err, exc = (
                p.returncode,
                p.stdout.decode("utf-8", "replace"),
                p.stderr.decode("utf-8", "replace"),
                None,
            )
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
        return (
            what,
            json.dumps(draw(views()), allow_nan=True).encode(),
            ["hint", "--iterations", "2", "--view", "{}.json"],
        )
    if what == "positions":
        lines = [json.dumps(draw(positions()), allow_nan=True) for _ in range(draw(st.integers(1, 4)))]
        return what, ("\n".join(lines) + "\n").encode(), ["solve", "--json", "{}.jsonl"]
    raw = draw(st.binary(max_size=200) | st.sampled_from([b"\xff\xfe\x00", b"[" * 100_000, b"{" * 5000, b"NaN"]))
    return (
        what,
        raw,
        [draw(st.sampled_from(["hint --hand 2,5,9 --rules", "analyze", "hint --view"])).split(), "{}.json"],
    )


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


# ------------------------------------------------------------ cross-seat
#
# Protocol 3.0 (docs/protocol.md, "Seats" and "Playing the engine"): a seat
# token opens its own seat only, never the other's, never the engine's seat
# of a game against the engine, and never `state` (nor `record` while the
# game runs).  Each request below holds a real token used where it must not
# open anything; the only fault in it is the token, so the one right answer
# is `forbidden` (HTTP 403) with no result, the game unchanged, and no card
# of the seat the token cannot see anywhere in the answer.

SEAT_COMMANDS = ("hint", "move", "legal", "view", "apply")
"""Commands for one `player`: a seat token opens them for its own seat only."""
CROSS_SEAT_GAMES = 4
"""Games 0 and 1 have two human seats (owner and seat tokens); in game 2 the
engine plays seat 0 (level 1), in game 3 seat 1 (level 2): the client holds
only the human seat's token."""
MISUSES = ("other_seat", "engine_seat", "running_document", "other_game")


@st.composite
def cross_seat_requests(draw) -> dict:
    """A token misused: what to send (with placeholders the door fills in)
    and whether the door first advances the game by one legal move of a
    seat that may make it (so misuses meet every phase)."""
    game = draw(st.integers(0, CROSS_SEAT_GAMES - 1))
    misuse = draw(st.sampled_from(MISUSES if game >= 2 else ("other_seat", "running_document", "other_game")))
    if misuse == "running_document":
        cmd = draw(st.sampled_from(["state", "record"] + (["end_game"] if game < 2 else [])))
    elif misuse == "other_game":
        cmd = draw(st.sampled_from(list(SEAT_COMMANDS) + ["state", "record", "end_game"]))
    else:
        cmd = draw(st.sampled_from(SEAT_COMMANDS))
    extra: dict[str, Any] = {}
    if cmd == "hint":
        extra = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "time_ms": st.integers(1, 50),
                    "method": st.sampled_from(["auto", "pimc", "ismcts", "exact", "endgame"]),
                    "top": st.integers(1, 5),
                    "score": st.sampled_from(["game", "round"]),
                    "seed": st.integers(0, 99),
                    "info_ms": st.integers(20, 60),
                },
            )
        )
        if extra.get("method") == "endgame":
            extra.pop("time_ms", None)
    elif cmd == "move":
        from tacocat.protocol.moves import BOT_NAMES

        extra = draw(
            st.one_of(
                st.fixed_dictionaries({"level": st.integers(1, 5)}),
                st.fixed_dictionaries(
                    {},
                    optional={
                        "bot": st.sampled_from(list(BOT_NAMES)),
                        "time_ms": st.integers(1, 50),
                        "iterations": st.integers(1, 8),
                    },
                ),
            )
        )
        extra.update(
            draw(
                st.fixed_dictionaries(
                    {}, optional={"apply": st.booleans(), "seed": st.integers(0, 99), "info_ms": st.integers(20, 60)}
                )
            )
        )
    elif cmd == "apply":
        extra = {"action": draw(st.sampled_from(["$legal_target", "$legal_own", {"kind": "duel", "cards": [12]}]))}
    return {
        "game": game,
        "misuse": misuse,
        "cmd": cmd,
        "extra": extra,
        "seat": draw(st.integers(0, 1)),
        "other": draw(st.integers(1, CROSS_SEAT_GAMES - 1)),
        "advance": draw(st.integers(0, 2)) == 0,
        "path": draw(st.booleans()),
        "id": draw(st.integers(0, 10**6)),
    }


def hidden_strings(state: GameState, viewer: int) -> list[str]:
    """How the cards `viewer` cannot see would appear in an answer (JSON
    lists, plain notation): the other seat's hand and the draw pile, when
    long enough not to appear by chance, and unless the viewer can work the
    hand out (all the unseen cards are the other's, or its own hand is the
    same multiset)."""
    other, pile = list(state.hands[1 - viewer]), list(state.draw_pile)
    out: list[str] = []
    pool = sorted(state.view(viewer).to_dict().get("unseen_pool", []))
    if len(other) >= 4 and sorted(other) != pool and sorted(other) != sorted(state.hands[viewer]):
        out += [json.dumps(sorted(other)), json.dumps(other), f'"{_plain(other)}']
    if len(pile) >= 4 and len(set(pile)) > 1 and sorted(pile) != sorted(state.hands[viewer]):
        out.append(json.dumps(pile))
    return out


def _plain(cards: list[int]) -> str:
    from tacocat.rules.cards import format_cards

    return format_cards(cards)


class CrossSeatDoor(Door):
    """Seat tokens used where they must not open anything, on a shared
    session (as `tacocat serve` runs it), in process or over HTTP (`base`);
    between misuses, seats that may act play legal moves (answers checked
    for the other seat's cards too)."""

    def __init__(self, session: EngineSession | None = None, base: str | None = None, name: str = "cross-seat") -> None:
        super().__init__(name)
        self.session = session or EngineSession(max_time_ms=100, max_games=200, shared=True)
        self.session.share()
        self.client = None
        if base is not None:
            import httpx

            self.client = httpx.Client(base_url=base, timeout=HANG_S + 5)
        self.games: list[dict | None] = [None] * CROSS_SEAT_GAMES
        self.rng = random.Random(20)
        self.moves = 0
        """Legal moves played between misuses (their answers checked too)."""

    def game(self, i: int) -> dict:
        g = self.games[i]
        live = g is not None and g["game"] in self.session._games and not self.session._games[g["game"]].over
        if not live:
            request: dict[str, Any] = {"cmd": "new_game", "seed": self.rng.randrange(10**6)}
            if i >= 2:
                request["engine"] = {"seat": i - 2, "level": i - 1}
            r = self.session.handle(request, "fuzz cross-seat")
            assert r["ok"], r
            g = {"game": r["result"]["game"], "tokens": r["result"]["tokens"], "engine": i - 2 if i >= 2 else None}
            self.games[i] = g
        return g

    def call(self, request: dict) -> tuple[int | None, Any]:
        """(HTTP status or None in process, the answer) — or raises."""
        if self.client is None:
            return None, self.session.handle({k: v for k, v in request.items() if k != "path_form"}, "fuzz cross-seat")
        if request.get("path_form"):
            body = {k: v for k, v in request.items() if k not in ("cmd", "path_form")}
            r = self.client.post(f"/v1/{request['cmd']}", json=body)
        else:
            r = self.client.post("/v1", json={k: v for k, v in request.items() if k != "path_form"})
        return r.status_code, strict_loads(r.content)

    def advance(self, i: int) -> None:
        """One legal move (or a view) by a seat that may make it; its answer
        must not show what the seat cannot see."""
        g = self.game(i)
        state = self.session._games[g["game"]]
        humans = [p for p in (0, 1) if p != g["engine"]]
        acting = [p for p in state.acting_players() if p in humans]
        p = self.rng.choice(acting or humans)
        token = g["tokens"]["seats"][p]
        legal = state.legal_actions(p)
        if legal and self.rng.random() < 0.8:
            request = {
                "cmd": "apply",
                "game": g["game"],
                "player": p,
                "token": token,
                "action": self.rng.choice(legal).to_dict(),
            }
        else:
            request = {"cmd": self.rng.choice(["view", "legal"]), "game": g["game"], "player": p, "token": token}
        hidden = hidden_strings(state, p)
        status, answer = self.call(request)
        self.moves += 1
        after = self.session._games.get(g["game"])
        if after is not None:
            hidden += hidden_strings(after, p)
        if not (isinstance(answer, dict) and answer.get("ok")):
            self.fail(f"a seat's own legal request failed: {_show(request)} -> {_show(answer)}")
            return
        text = json.dumps(answer)
        for h in hidden:
            if h in text:
                self.fail(f"seat {p}'s answer shows {h} of the cards it cannot see: {_show(request)} -> {text[:300]}")

    def resolve(self, item: dict) -> tuple[dict, int]:
        """The request to send, and the seat whose cards it must not show."""
        g = self.game(item["game"])
        gid, tokens, engine = g["game"], g["tokens"], g["engine"]
        state = self.session._games[gid]
        seat = item["seat"] if engine is None else 1 - engine  # the token's seat
        request: dict[str, Any] = {"id": item["id"], "cmd": item["cmd"], "game": gid, "path_form": item["path"]}
        if item["misuse"] in ("other_seat", "engine_seat"):
            target = 1 - seat
            request.update(player=target, token=tokens["seats"][seat])
        elif item["misuse"] == "running_document":
            target = 1 - seat
            request["token"] = tokens["seats"][seat]
        else:  # a token of another game, even its owner's, opens nothing here
            other = self.game((item["game"] + item["other"]) % CROSS_SEAT_GAMES)
            choices = [t for t in [other["tokens"].get("owner"), *other["tokens"]["seats"]] if t is not None]
            request["token"] = choices[item["id"] % len(choices)]
            target = seat
            if item["cmd"] in SEAT_COMMANDS:
                request["player"] = target
        for k, v in item["extra"].items():
            if v == "$legal_target":
                legal = state.legal_actions(target)
                v = legal[item["id"] % len(legal)] if legal else None
                v = v.to_dict() if v is not None else {"kind": "duel", "cards": [12]}
            elif v == "$legal_own":
                legal = state.legal_actions(seat)
                v = legal[item["id"] % len(legal)].to_dict() if legal else {"kind": "duel", "cards": [12]}
            request[k] = v
        viewer = seat if item["misuse"] != "other_game" else None
        return request, viewer if viewer is not None else -1

    def send(self, item: dict) -> None:
        if item["advance"]:
            self.advance(item["game"])
        request, viewer = self.resolve(item)
        gid = request["game"]
        state = self.session._games[gid]
        before = json.dumps(state.to_dict(), sort_keys=True)
        hidden = hidden_strings(state, viewer) if viewer >= 0 else hidden_strings(state, 0) + hidden_strings(state, 1)
        answered, called = self.timed(lambda: self.call(request), _show(request))
        if not answered:
            return
        status, answer = called
        code = answer.get("error", {}).get("code") if isinstance(answer, dict) and answer.get("ok") is False else None
        self.count(str(code) if code else "ok" if isinstance(answer, dict) and answer.get("ok") else "not an answer")
        what = f"{item['misuse']}: {_show(request)}"
        if code != "forbidden" or "result" in answer:
            self.fail(f"{what} answered {_show(answer)} (expected forbidden)")
        if status is not None and status != 403:
            self.fail(f"{what} answered status {status} (forbidden is 403)")
        text = json.dumps(answer)
        for h in hidden:
            if h in text:
                self.fail(f"{what} shows {h}, cards the token's seat cannot see: {text[:300]}")
        after = self.session._games.get(gid)
        if after is None or json.dumps(after.to_dict(), sort_keys=True) != before:
            self.fail(f"{what} changed the game")


# ----------------------------------------------------------- cross-client
#
# Protocol 3.0: on a shared server a search belongs to the client whose
# token it carried.  Client A (in process, as another page would be) keeps
# every search slot busy with long searches on its games and its own view
# secret; client B sends everything over HTTP — stop with A's request ids
# as targets, with its own tokens or none, busy-making searches, games,
# set_rules and fuzzed requests on its own games.  B never ends A's search,
# never reads A's game ids, tokens or search ids in an answer, and B's
# set_rules is never accepted (nor changes the server's rules).

ALICE_TIME_MS = 600_000
"""Client A's searches think this long unless stopped (the session has no
time cap, so only a stop can end them early)."""


def waiting_hint(view, *, iterations=None, time_ms=None, seed=0, method="auto", stop=None, **_):
    """A stand-in search that waits until stopped, without using a core:
    for client A's searches (time_ms ALICE_TIME_MS) up to 10 minutes, for
    anyone else's at most a second."""
    if stop is not None:
        stop.wait(ALICE_TIME_MS / 1000 if time_ms == ALICE_TIME_MS else min(time_ms or 50, 1000) / 1000)
    return {"method": "stand-in", "exact": False, "seconds": 0.0, "decision": view.decision, "moves": [], "best": None}


ALICE = "peer 127.0.0.5"
ALICE_SECOND = "peer 127.0.0.6"
"""Client A is two machines: one client's share of the search queue is half
its places, and A's searches fill all of them."""
ALICE_SEARCHES = 4


@st.composite
def cross_client_requests(draw) -> tuple[str, bytes | None, Any]:
    """What client B sends (http_bodies' shape); `$alice_search` is filled
    in with one of A's search ids, `$bob_secret` with B's own view secret."""
    kind = draw(st.integers(0, 9))
    if kind <= 4:
        return draw(http_bodies())
    if kind <= 6:
        fields = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "target": st.sampled_from(["$alice_search", "$alice_search", 1, "x"]) | hostile,
                    "token": st.sampled_from(PLACEHOLDER_TOKENS + ["$bob_secret", ""]),
                    "tokens": st.lists(st.sampled_from(PLACEHOLDER_TOKENS + ["$bob_secret"]), max_size=3),
                },
            )
        )
        return "/v1/stop", None, {"cmd": "stop", **fields}
    if kind == 7:
        view = PLAY_VIEW if draw(st.booleans()) else "$view"
        request = {"cmd": "hint", "view": view, "time_ms": draw(st.integers(1, 50))}
        if view == "$view":
            request = {"cmd": "hint", "game": "$game0", "player": 0, "token": "$seat", "time_ms": request["time_ms"]}
        if draw(st.booleans()):
            request.setdefault("token", "$bob_secret")
        return "/v1", None, request
    if kind == 8:
        return "/v1", None, {"cmd": "games", "tokens": draw(st.lists(st.sampled_from(PLACEHOLDER_TOKENS), max_size=4))}
    return "/v1/set_rules", None, {"cmd": "set_rules", "rules": draw(rulesets)}


PLAY_VIEW = {"player": 0, "hand": [2, 5, 9, 12], "seen": [], "opponent_hand_size": 4, "attacker": 0, "table": []}


class CrossClientDoor(HttpDoor):
    """Client B over HTTP beside client A's searches (see above).  The
    session's searches are stand-ins (`waiting_hint`) so that A's fill the
    slots without a core."""

    def __init__(self, base: str, session: EngineSession) -> None:
        super().__init__(base, session)
        self.name = "cross-client"
        self.alice_games = []
        for seed in (1, 2):
            r = session.handle({"cmd": "new_game", "seed": seed}, ALICE)["result"]
            self.alice_games.append((r["game"], r["tokens"]))
        self.alice_secret = "alice-secret-" + os.urandom(6).hex()
        self.alice_jobs: list[tuple[Any, threading.Thread, str]] = []
        self.rules = session.rules.to_dict()
        self.restarts = 0
        self.start_alice()

    def alice_secrets(self) -> list[str]:
        out = [self.alice_secret]
        for gid, tokens in self.alice_games:
            out += [gid, tokens["owner"], *tokens["seats"]]
        return out + [rid for _, _, rid in self.alice_jobs]

    def start_alice(self) -> None:
        self.alice_jobs = []
        for n in range(ALICE_SEARCHES):
            rid = f"alice-search-{self.restarts}-{n}-{os.urandom(3).hex()}"
            gid, tokens = self.alice_games[n % 2]
            if n < 2:
                request = {
                    "id": rid,
                    "cmd": "hint",
                    "game": gid,
                    "player": n,  # by a seat's token, by the owner's
                    "token": tokens["seats"][0] if n == 0 else tokens["owner"],
                    "time_ms": ALICE_TIME_MS,
                }
            else:
                request = {
                    "id": rid,
                    "cmd": "hint",
                    "view": PLAY_VIEW,
                    "token": self.alice_secret,
                    "time_ms": ALICE_TIME_MS,
                }
            job = self.session.prepare(request, ALICE if n < ALICE_SEARCHES // 2 else ALICE_SECOND)
            if not hasattr(job, "run"):
                raise AssertionError(f"client A's search was not started: {job}")
            thread = threading.Thread(target=job.run, daemon=True)
            thread.start()
            self.alice_jobs.append((job, thread, rid))
        deadline = time.monotonic() + 20
        while self.session.searching < ALICE_SEARCHES and time.monotonic() < deadline:
            time.sleep(0.005)

    def stop_alice(self) -> None:
        tokens = [self.alice_secret] + [t for _, ts in self.alice_games for t in (ts["owner"], *ts["seats"])]
        self.session.handle({"cmd": "stop", "tokens": tokens}, ALICE)
        for _, thread, _ in self.alice_jobs:
            thread.join(20)
        self.alice_jobs = []

    def resolve(self, request: Any) -> Any:
        request = super().resolve(request)
        if isinstance(request, dict):
            jobs = self.alice_jobs
            if request.get("target") == "$alice_search" and jobs:
                request["target"] = jobs[request.get("id", 0) % len(jobs) if isinstance(request.get("id"), int) else 0][
                    2
                ]
            for key in ("token",):
                if request.get(key) == "$bob_secret":
                    request[key] = "bob-secret"
            if isinstance(request.get("tokens"), list):
                request["tokens"] = ["bob-secret" if t == "$bob_secret" else t for t in request["tokens"]]
        return request

    def send_http(self, item: tuple[str, bytes | None, Any]) -> None:
        failed = len(self.failures)
        secrets_ = self.alice_secrets()
        sent = super().send_http(item)
        if sent is None:
            return
        request, raw, body = sent
        text = json.dumps(body)
        for s in secrets_:
            if s in text and s.encode() not in raw:
                self.fail(f"client B read client A's {s[:24]}... in {text[:300]} for {raw[:200]!r}")
        cmd = request.get("cmd") if isinstance(request, dict) else None
        if cmd == "set_rules" or (isinstance(request, dict) and item[0] == "/v1/set_rules"):
            if isinstance(body, dict) and body.get("ok"):
                self.fail(f"a shared server accepted client B's set_rules: {raw[:200]!r}")
        if self.session.rules.to_dict() != self.rules:
            self.fail(f"client B changed the server's rules with {raw[:200]!r}")
            self.session.rules = __import__("tacocat.rules.ruleset", fromlist=["Ruleset"]).Ruleset.from_dict(self.rules)
        stopped = [rid for job, _, rid in self.alice_jobs if job.stop_event.is_set()]
        if stopped:
            self.fail(f"client B's {raw[:200]!r} stopped client A's search(es) {stopped}: {text[:200]}")
        if stopped or len(self.failures) > failed or any(not t.is_alive() for _, t, _ in self.alice_jobs):
            self.stop_alice()  # a fresh set of A's searches for the next input
            self.restarts += 1
            self.start_alice()

    def close(self) -> None:
        self.stop_alice()
        self.client.close()


# ------------------------------------------------------------ two-process
#
# docs/protocol.md, "One store, one writer": a second `tacocat serve` or
# `tacocat engine --store` on a store another process holds is refused before
# it serves anything, in one line (exit 2) naming the file and the holder's
# pid — whichever way the path is spelled — and the holder keeps serving,
# its store private (0600).

SPELLINGS = ("absolute", "relative", "dots", "double-slash", "dir-symlink", "file-symlink", "hardlink", "default")


@st.composite
def intruders(draw) -> dict:
    kind = draw(st.sampled_from(["serve", "engine"]))
    spelling = draw(st.sampled_from(SPELLINGS if kind == "serve" else SPELLINGS[:-1]))
    extra = draw(
        st.sampled_from(
            [[], ["--log-level", "error"], ["--max-games", "5"], ["--max-time-ms", "100"]]
            + (
                [["--max-connections", "4"], ["--idle-timeout", "1"], ["--max-searches", "1"]]
                if kind == "serve"
                else []
            )
        )
    )
    return {"kind": kind, "holder": draw(st.sampled_from(["engine", "serve"])), "spelling": spelling, "extra": extra}


def _mode(path: str) -> int:
    import stat

    return stat.S_IMODE(os.stat(path).st_mode)


class TwoProcessDoor(Door):
    """Two holders — `tacocat engine --store` and `tacocat serve` (the
    latter on the default store, $XDG_DATA_HOME/tacocat/games.sqlite3) —
    and fuzzed second processes on their stores."""

    INTRUDER_S = 20.0
    """A refusal takes a second; an intruder still running after this ran."""

    def __init__(
        self, folder: str | None = None, name: str = "two-process", holders: tuple[str, ...] = ("engine", "serve")
    ) -> None:
        super().__init__(name)
        self.kinds = holders
        self.root = os.path.realpath(folder or tempfile.mkdtemp(prefix="tacocat-two-"))
        self.env = {**os.environ, "XDG_DATA_HOME": os.path.join(self.root, "data")}
        self.stores = {
            "engine": os.path.join(self.root, "engine", "games.sqlite3"),
            "serve": os.path.join(self.root, "data", "tacocat", "games.sqlite3"),
        }
        os.makedirs(os.path.dirname(self.stores["engine"]), exist_ok=True)
        self.holders: dict[str, subprocess.Popen] = {}
        self.port = 0
        self.n = 0
        self.links: list[str] = []
        """The other names made for one intruder, removed after it."""

    # -- holders
    def exe(self) -> list[str]:
        return [sys.executable, "-m", "tacocat.cli.main"]

    def start(self) -> None:
        engine = subprocess.Popen(
            [*self.exe(), "engine", "--store", self.stores["engine"]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )
        self.holders["engine"] = engine
        assert self.engine_answers(), "tacocat engine --store did not start"
        if "serve" not in self.kinds:
            return
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.holders["serve"] = subprocess.Popen(
            [*self.exe(), "serve", "--port", str(self.port), "--log-level", "error"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )  # the default store
        import httpx

        deadline = time.monotonic() + 30
        with httpx.Client(timeout=2) as poll:  # one client: httpx.post builds one (70 ms of CPU) per call
            while time.monotonic() < deadline:
                try:
                    if poll.post(f"http://127.0.0.1:{self.port}/v1/new_game", json={"seed": 1}).status_code == 200:
                        return
                except httpx.TransportError:
                    time.sleep(0.05)
        raise AssertionError("tacocat serve did not start")

    def engine_answers(self) -> bool:
        proc = self.holders["engine"]
        if proc.poll() is not None:
            return False
        proc.stdin.write(b'{"cmd": "new_game", "seed": 3}\n')
        proc.stdin.flush()
        line = proc.stdout.readline()
        return bool(line) and json.loads(line).get("ok") is True

    def serve_answers(self) -> bool:
        import httpx

        try:
            return (
                httpx.post(f"http://127.0.0.1:{self.port}/v1/new_game", json={"seed": 2}, timeout=HANG_S).status_code
                == 200
            )
        except httpx.TransportError:
            return False

    def close(self) -> None:
        for proc in self.holders.values():
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
        self.holders = {}

    # -- spellings
    def spell(self, store: str, spelling: str) -> tuple[list[str], str]:
        """(the --store arguments, the cwd) naming `store` that way."""
        folder, name = os.path.split(store)
        self.n += 1
        if spelling == "absolute":
            return ["--store", store], self.root
        if spelling == "relative":
            return ["--store", os.path.relpath(store, self.root)], self.root
        if spelling == "dots":
            return ["--store", os.path.join(folder, ".", "..", os.path.basename(folder), name)], self.root
        if spelling == "double-slash":
            return ["--store", folder + "//" + name], self.root
        if spelling == "dir-symlink":
            link = os.path.join(self.root, f"dirlink{self.n}")
            os.symlink(folder, link)
            self.links.append(link)
            return ["--store", os.path.join(link, name)], self.root
        if spelling == "file-symlink":
            link = os.path.join(folder, f"link{self.n}.sqlite3")
            os.symlink(store, link)
            self.links.append(link)
            return ["--store", link], self.root
        if spelling == "hardlink":
            link = os.path.join(folder, f"hard{self.n}.sqlite3")
            os.link(store, link)
            self.links.append(link)
            return ["--store", link], self.root
        return [], self.root  # serve's default store: the serve holder's

    def send(self, item: dict) -> None:
        if not self.holders:
            self.start()
        if item["spelling"] == "default" and "serve" not in self.holders:
            item = {**item, "spelling": "absolute"}  # the default store is the serve holder's
        holder = "serve" if item["spelling"] == "default" else item["holder"]
        if holder not in self.holders:
            holder = "engine"
        store, pid = self.stores[holder], self.holders[holder].pid
        store_args, cwd = self.spell(store, item["spelling"])
        argv = [item["kind"], *store_args, *item["extra"]]
        if item["kind"] == "serve":
            argv += ["--port", "0"]
        what = f"tacocat {' '.join(argv)} (holder: {holder} pid {pid}, {item['spelling']})"
        self.tried += 1
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [*self.exe(), *argv],
            cwd=cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            out, err = proc.communicate(timeout=self.INTRUDER_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate(timeout=10)
            self.count("ran")
            self.fail(f"not refused: {what} was still serving after {self.INTRUDER_S:.0f} s")
            for link in self.links:
                os.unlink(link)
            self.links = []
            self.restart_holders()
            return
        self.slowest = max(self.slowest, time.perf_counter() - t0)
        status, out_s, err_s = proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        self.count(str(status))
        lines = [l for l in err_s.strip().splitlines() if l.strip()]
        if "Traceback (most recent call last)" in out_s + err_s:
            self.fail(f"traceback from {what}: {err_s[-300:]}")
        if status != 2 or out_s or len(lines) != 1 or not lines[0].startswith("error: "):
            self.fail(
                f"not refused in one line: {what} exited {status}, stdout {out_s[:100]!r}, stderr {err_s[-300:]!r}"
            )
        elif os.path.basename(store_args[-1] if store_args else store) not in lines[0] or not (
            "in use" in lines[0]
            and f"pid {pid}" in lines[0]
            or item["spelling"] == "hardlink"
            and "hard link" in lines[0]
        ):
            # a second name is refused as such (the holder is then unknown)
            self.fail(f"refusal does not name the file and the holder: {what}: {lines[0]}")
        for link in self.links:
            os.unlink(link)
        self.links = []
        for h, alive in [(h, self.engine_answers() if h == "engine" else self.serve_answers()) for h in self.holders]:
            if not alive:
                self.fail(f"the {h} holder stopped serving after {what}")
                self.restart_holders()
                break
        for path in self.stores.values():
            if os.path.exists(path) and _mode(path) != 0o600:
                self.fail(f"store {path} is {oct(_mode(path))} after {what} (expected 0600)")

    def restart_holders(self) -> None:
        self.close()
        self.start()


# -------------------------------------------------------- browser-origin
#
# docs/protocol.md, "Beside a browser": what any page the user visits could
# send to the local server is refused before any command runs — a POST that
# is not application/json 415 `bad_json`, a Host that is not one of the
# server's names 421 `forbidden`, an Origin neither the server's own nor
# --cors-origin's 403 `forbidden` — with the protocol's error body ("id":
# null), and no game created.  The expected answer is worked out here from
# the documented rules, not from the server's code.

CORS_ORIGIN = "http://127.0.0.1:5173"
EXTRA_HOST = "engine.lan"
CONTENT_TYPES = [
    None,
    "",
    "text/plain",
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json-seq",
    "application/jsonp",
    "text/json",
    "application/x-json",
    "application/json",
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/json;charset=UTF-8",
]
HOSTS = [
    "$own",
    "$own",
    "127.0.0.1",
    "localhost:$port",
    "localhost",
    "[::1]:$port",
    "engine.lan",
    "ENGINE.lan:$port",
    "evil.example",
    "evil.example:$port",
    "127.0.0.1:1",
    "localhost.evil.example:$port",
    "127.0.0.1.nip.io:$port",
    "0.0.0.0:$port",
    "engine.lan:1",
]
ORIGINS = [
    None,
    None,
    "http://$own",
    "https://$own",
    CORS_ORIGIN,
    "http://evil.example",
    "null",
    "http://localhost:$port",
    "http://127.0.0.1",
    "http://$own.evil.example",
    "file://",
    "HTTP://$OWN",
    "http://127.0.0.1:5174",
]


@st.composite
def browser_requests(draw) -> dict:
    cmd = draw(st.sampled_from(["new_game", "new_game", "set_rules", "hello", "games", "end_game", "apply"]))
    request: dict[str, Any] = {"cmd": cmd}
    if cmd == "new_game":
        request.update(
            draw(st.fixed_dictionaries({}, optional={"seed": st.integers(0, 99), "rules": st.just({"tie": "arrow"})}))
        )
    elif cmd == "set_rules":
        request["rules"] = {"tie": "arrow", "max_deals": 7}
    elif cmd in ("end_game", "apply"):
        request.update(game="$game0", token="$owner")
        if cmd == "apply":
            request.update(player=0, action="$legal")
    return {
        "request": request,
        "content_type": draw(st.sampled_from(CONTENT_TYPES)),
        "host": draw(st.sampled_from(HOSTS)),
        "origin": draw(st.sampled_from(ORIGINS)),
        "body": draw(st.sampled_from(["json", "json", "form", "raw-text"])),
        "method": draw(st.sampled_from(["POST"] * 9 + ["GET"])),
        "path": draw(st.booleans()),
    }


class BrowserOriginDoor(HttpDoor):
    """Requests as a web page (or a DNS-rebound name) would send them, to
    a server built as `tacocat serve --cors-origin CORS_ORIGIN
    --allowed-host engine.lan` builds it."""

    def __init__(self, base: str, session: EngineSession) -> None:
        super().__init__(base, session)
        self.name = "browser-origin"
        self.port = int(base.rsplit(":", 1)[1])
        self.own = f"127.0.0.1:{self.port}"

    def fill(self, value: str | None) -> str | None:
        if value is None:
            return None
        return value.replace("$own", self.own).replace("$OWN", self.own.upper()).replace("$port", str(self.port))

    def expected(self, method: str, host: str, origin: str | None, content_type: str | None) -> tuple[int, str] | None:
        """The documented refusal, or None when the request reaches the command."""
        names = {f"{n}:{self.port}" for n in ("127.0.0.1", "localhost", "[::1]", EXTRA_HOST)}
        names |= {"127.0.0.1", "localhost", "[::1]", EXTRA_HOST}
        if host.lower() not in names:
            return 421, "forbidden"
        if origin is not None and origin.lower() not in {
            CORS_ORIGIN,
            f"http://{host.lower()}",
            f"https://{host.lower()}",
        }:
            return 403, "forbidden"
        if method == "POST" and (content_type or "").split(";")[0].strip().lower() != "application/json":
            return 415, "bad_json"
        return None

    def send_browser(self, item: dict) -> None:
        request = self.resolve(item["request"])
        host, origin = self.fill(item["host"]), self.fill(item["origin"])
        method, content_type = item["method"], item["content_type"]
        path = "/v1/hello" if method == "GET" else f"/v1/{request['cmd']}" if item["path"] else "/v1"
        payload = request if path == "/v1" else {k: v for k, v in request.items() if k != "cmd"}
        if item["body"] == "json":
            raw = json.dumps(payload).encode()
        elif item["body"] == "form":
            from urllib.parse import urlencode

            raw = urlencode({k: json.dumps(v) if not isinstance(v, str) else v for k, v in payload.items()}).encode()
        else:
            raw = json.dumps(payload).encode()  # what a text/plain fetch() carries: JSON text
        headers = {"host": host}
        if origin is not None:
            headers["origin"] = origin
        if content_type is not None:
            headers["content-type"] = content_type
        expected = self.expected(method, host, origin, content_type)
        games_before, snapshot = len(self.session._games), self.snapshot()
        rules = self.session.rules.to_dict()
        what = f"{method} {path} Host {host!r} Origin {origin!r} Content-Type {content_type!r} body {raw[:120]!r}"
        answered, r = self.timed(
            lambda: self.client.request(method, path, content=raw if method == "POST" else None, headers=headers),
            what,
            "transport error",
        )
        if not answered:
            return
        try:
            body = strict_loads(r.content)
        except ValueError as exc:
            self.fail(f"status {r.status_code}, body not JSON ({exc}) for {what}: {r.text[:200]}")
            return
        if not isinstance(body, dict) or "ok" not in body:
            self.fail(f"not a response: {r.text[:200]} for {what}")
            return
        code = body.get("error", {}).get("code") if body.get("ok") is False else None
        self.count(f"{r.status_code} {code or 'ok'}")
        if code == "internal" or r.status_code >= 500 and r.status_code != 503:
            self.fail(f"{r.status_code} {code} for {what}: {r.text[:200]}")
        if "Traceback" in r.text:
            self.fail(f"traceback in the answer to {what}")
        if expected is not None:
            status, want = expected
            if (r.status_code, code) != (status, want) or body.get("id") is not None or "result" in body:
                self.fail(f"{what}: answered {r.status_code} {_show(body)} (expected {status} {want}, id null)")
            elif "\n" in body["error"].get("message", "\n"):
                self.fail(f"{what}: the refusal is not one line: {body['error']}")
            if len(self.session._games) != games_before or self.snapshot() != snapshot:
                self.fail(f"{what}: refused, yet a game was created or changed")
            if self.session.rules.to_dict() != rules:
                self.fail(f"{what}: refused, yet the rules changed")
            return
        # reached the command: its status agrees with its code
        want_status = 200 if body.get("ok") else HTTP_STATUS.get(code)
        if r.status_code != want_status:
            self.fail(f"{what}: status {r.status_code} for {code or 'ok'} (expected {want_status})")
        if method == "POST" and request.get("cmd") == "set_rules" and body.get("ok"):
            self.fail(f"{what}: a shared server accepted set_rules")
