"""A Python client of the engine protocol, over either transport.

One class, `Engine`, talks to `tacocat engine` (a subprocess speaking JSON
Lines: `Engine.popen()`) or to `tacocat serve` (HTTP: `Engine.connect(url)`)
with the same methods and typed results.  A whole game against the engine
in ten lines::

    from tacocat.protocol.client import Engine

    with Engine.popen() as engine:                      # or Engine.connect("http://127.0.0.1:8000")
        game = engine.new_game(seed=7)
        while not game.over:
            if 0 in game.acting:                        # my seat: take the hint's best move
                engine.apply(game, 0, engine.hint(game, 0).best.action)
            else:                                       # the engine's seat: a bot at strength 3
                engine.move(game, 1, level=3)
        print("winner:", game.winner)                   # None: a drawn game (game.drawn)

`apply` and `move` update `game` in place (its status), so a loop needs no
other call.  A game that reaches its ruleset's `max_deals` deals without a
winner is over and drawn (RULES §8): `game.over` with `game.winner` None,
which `game.drawn` says.  Every error the engine answers raises
`EngineError` with its stable `code` (docs/protocol.md, "Error codes").  Searches may stream
progress: pass `on_info=callable` to `hint` or `move` (with `info_ms`, the
rate) and it is called with an `Info` while the search runs.  `stop()` (from
another thread) ends running searches; they answer with their best so far.

Tokens: when `new_game` returns the game's secret tokens (`"tokens":
{"owner": ..., "seats": [...]}`), the client keeps them in the `Game` and
sends the right one (`"token"`: the seat's for a seat's request, the
owner's for the whole game) with every request about that game.

The client is thread-safe: several threads may send requests at once (the
JSON Lines transport matches answers by id; the HTTP transport uses one
connection per thread)."""

from __future__ import annotations

import http.client
import itertools
import json
import secrets
import subprocess
import sys
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, cast

from tacocat.errors import NotationError, shorten
from tacocat.protocol.wire import GameStatus
from tacocat.rules.actions import Action
from tacocat.rules.views import View
from tacocat.search.results import MoveEval

__all__ = ["Engine", "EngineError", "Game", "Applied", "Moved", "Odds", "Hint", "Info"]


class EngineError(Exception):
    """An error answer: `code` (docs/protocol.md), `message`, `field`."""

    def __init__(self, code: str, message: str, field: str | None = None, response: dict | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field
        self.response = response or {}


# --------------------------------------------------------------------------
# Typed results.


def _status(d: Mapping[str, Any]) -> GameStatus:
    """The status object of an answer (`wire.GameStatus`), from an answer
    that holds one (the status, a game's listing, new_game's result)."""
    return cast(GameStatus, {name: d[name] for name in GameStatus.__annotations__})


@dataclass
class Game:
    """A game this client opened: its id, seed, tokens and latest status
    (kept up to date by `apply`, `move` and `status`)."""

    id: str
    seed: int | None
    status: GameStatus
    """The protocol's status object (`tacocat.protocol.wire.GameStatus`)."""
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        return self.status["over"]

    @property
    def winner(self) -> int | None:
        """The player whose goal the cat entered; None while the game runs and
        for a drawn game (`drawn`)."""
        return self.status["winner"]

    @property
    def drawn(self) -> bool:
        """The game is over and drawn: `max_deals` deals without a winner (RULES §8)."""
        return self.status["over"] and self.status["winner"] is None

    @property
    def acting(self) -> list[int]:
        return self.status["acting"]

    @property
    def phase(self) -> str:
        return self.status["phase"]


@dataclass
class Applied:
    """What an action did: the action as applied, the public events it
    caused (as the seat sees them), the seat's hand after it, the round's
    summary when it ended one, and the game's status."""

    player: int
    action: Action
    events: list[dict]
    hand: tuple[int, ...]
    round: dict | None
    status: GameStatus


@dataclass
class Moved:
    """The engine's move for a seat (`move`): the bot, its level and seed,
    the action, and — when applied — what it did (`applied`)."""

    player: int
    bot: str
    level: int | None
    seed: int
    decision: str
    simultaneous: bool
    action: Action
    seconds: float
    applied: Applied | None


Odds = MoveEval
"""One ranked move of a hint: the action with its round odds (`win`,
`draw`, `loss`), expected `value`, `stderr` (sampled) and `game_win` — the
search's own `tacocat.search.results.MoveEval`."""


def _odds(d: Mapping[str, Any]) -> MoveEval:
    return MoveEval(
        Action.from_dict(d),
        d["win"],
        d["draw"],
        d["loss"],
        d["value"],
        d.get("stderr"),
        d.get("game_win"),
        d.get("visits"),
    )


@dataclass
class Hint:
    """A hint: the ranked moves (best first) and how they were found."""

    method: str
    exact: bool
    decision: str
    moves: list[Odds]
    best: Odds
    samples: int | None
    seconds: float
    stopped: bool
    mixed: list[dict] | None
    raw: dict
    """The whole result as the engine sent it (e.g. `pv` of an endgame)."""


@dataclass
class Info:
    """A search's progress: time so far, samples so far, best move so far
    and its margin over the runner-up (value units); or, for an exact
    enumeration, the fraction done; or, for a bot's move, its thinking time."""

    elapsed_ms: int
    samples: int | None
    best: Odds | None
    margin: float | None
    fraction: float | None
    raw: dict

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Info":
        best = _odds(d["best"]) if d.get("best") else None
        return cls(d.get("elapsed_ms", 0), d.get("samples"), best, d.get("margin"), d.get("fraction"), dict(d))


def _hint(result: Mapping[str, Any], stopped: bool) -> Hint:
    moves = [_odds(m) for m in result.get("moves", [])]
    best = _odds(result["best"]) if result.get("best") else moves[0]
    samples = result.get("samples", result.get("iterations", result.get("hands")))
    return Hint(
        result.get("method", ""),
        bool(result.get("exact")),
        result.get("decision", ""),
        moves,
        best,
        samples,
        result.get("seconds", 0.0),
        stopped,
        result.get("mixed"),
        dict(result),
    )


def _applied(result: Mapping[str, Any]) -> Applied:
    return Applied(
        result["player"],
        Action.from_dict(result["action"]),
        list(result.get("events", [])),
        tuple(result.get("hand", ())),
        result.get("round"),
        _status(result["status"]),
    )


# --------------------------------------------------------------------------
# Transports: send one request, return its response (calling on_info for
# each info message before it).


class _Lines:
    """`tacocat engine` as a subprocess: one reader thread matches
    responses to requests by id."""

    def __init__(self, argv: Sequence[str], stderr: Any) -> None:
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self.lock = threading.Lock()
        self.waiting: dict[Any, list] = {}
        self.infos: dict[Any, Callable[[dict], None]] = {}
        self.dead: str | None = None
        self.reader = threading.Thread(target=self._read, daemon=True, name="tacocat-client-reader")
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            rid = message.get("id")
            if "info" in message and "ok" not in message:
                callback = self.infos.get(rid)
                if callback is not None:
                    callback(message["info"])
                continue
            with self.lock:
                slot = self.waiting.pop(rid, None)
            if slot is not None:
                slot[1] = message
                slot[0].set()
        with self.lock:
            self.dead = f"the engine exited (status {self.proc.poll()})"
            for slot in self.waiting.values():
                slot[0].set()
            self.waiting.clear()

    def send(self, request: dict, on_info: Callable[[dict], None] | None, timeout: float | None) -> dict:
        slot: list = [threading.Event(), None]
        rid = request["id"]
        with self.lock:
            if self.dead:
                raise EngineError("internal", self.dead)
            self.waiting[rid] = slot
            if on_info is not None:
                self.infos[rid] = on_info
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write((json.dumps(request) + "\n").encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self.waiting.pop(rid, None)
                raise EngineError("internal", "the engine's input is closed") from None
        try:
            if not slot[0].wait(timeout):
                raise EngineError("internal", f"no answer to {request['cmd']} within {timeout} s")
        finally:
            self.infos.pop(rid, None)
        if slot[1] is None:
            raise EngineError("internal", self.dead or "the engine exited")
        return slot[1]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b'{"id": "close", "cmd": "quit"}\n')
                self.proc.stdin.flush()
                self.proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.reader.join(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class _Http:
    """`tacocat serve`: POST /v1 with the whole request; one kept-alive
    connection per thread; a search with info_ms reads the NDJSON stream."""

    def __init__(self, url: str, timeout: float | None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"engine url {url!r}: expected http://host:port")
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.base = parts.path.rstrip("/")
        self.timeout = timeout
        self.local = threading.local()
        self.all: list[http.client.HTTPConnection] = []
        self.lock = threading.Lock()

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            conn = cls(self.host, self.port, timeout=self.timeout)
            self.local.conn = conn
            with self.lock:
                self.all.append(conn)
        return conn

    def send(self, request: dict, on_info: Callable[[dict], None] | None, timeout: float | None) -> dict:
        body = json.dumps(request).encode()
        headers = {"content-type": "application/json", "accept": "application/x-ndjson, application/json"}
        for attempt in (0, 1):  # a kept-alive connection the server closed: reconnect once
            conn = self._conn()
            try:
                conn.request("POST", self.base + "/v1", body, headers)
                resp = conn.getresponse()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                self.local.conn = None
                if attempt:
                    raise
        if resp.getheader("content-type", "").startswith("application/x-ndjson"):
            while True:
                line = resp.readline()
                if not line:
                    raise EngineError("internal", f"the stream of {request['cmd']} ended without an answer")
                message = json.loads(line)
                if "info" in message and "ok" not in message:
                    if on_info is not None:
                        on_info(message["info"])
                    continue
                resp.read()
                return message
        return json.loads(resp.read())

    def close(self) -> None:
        with self.lock:
            for conn in self.all:
                conn.close()
            self.all.clear()


# --------------------------------------------------------------------------
# The client.


class Engine:
    """A connection to the engine (see the module docstring).  Make one with
    `Engine.popen()` or `Engine.connect(url)`; use it as a context manager
    (or call `close()`)."""

    def __init__(self, transport: Any, *, timeout: float | None = 600) -> None:
        self._transport = transport
        self._ids = itertools.count(1)
        self._secret = secrets.token_urlsafe(18)
        """The token this client's view hints carry, so that its `stop` ends
        them (and only them) on a shared server."""
        self._tokens: list[str] = []
        """Every game token this client was given: its `stop` sends them."""
        self.timeout = timeout

    @classmethod
    def popen(
        cls,
        args: Sequence[str] = (),
        *,
        command: Sequence[str] | None = None,
        stderr: Any = None,
        timeout: float | None = 600,
    ) -> "Engine":
        """Start `tacocat engine` (with extra `args`, e.g. `["--max-time-ms",
        "5000"]`) as a subprocess.  `command` replaces the program (default:
        this Python running `tacocat.cli.main engine`).  `stderr`: where the
        engine's log goes (inherited by default; `subprocess.DEVNULL` hides it)."""
        argv = list(command) if command is not None else [sys.executable, "-m", "tacocat.cli.main", "engine"]
        env_argv = argv + list(args)
        return cls(_Lines(env_argv, stderr), timeout=timeout)

    @classmethod
    def connect(cls, url: str = "http://127.0.0.1:8000", *, timeout: float | None = 600) -> "Engine":
        """Talk to `tacocat serve` at `url`."""
        return cls(_Http(url, timeout), timeout=timeout)

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """End the subprocess (quit) or close the HTTP connections."""
        self._transport.close()

    # ------------------------------------------------------------ raw
    def request(self, cmd: str, *, on_info: Callable[[dict], None] | None = None, **fields: Any) -> dict:
        """Send one request and return its `result`; raises EngineError.
        Fields that are None are left out.  The whole response (with
        `stopped`) is kept in `self.last_response`."""
        request = {"id": next(self._ids), "cmd": cmd, **{k: v for k, v in fields.items() if v is not None}}
        response = self._transport.send(request, on_info, self.timeout)
        self.last_response = response
        if not response.get("ok"):
            e = response.get("error") or {}
            raise EngineError(e.get("code", "internal"), e.get("message", "no error message"), e.get("field"), response)
        return response["result"]

    @staticmethod
    def _gid(game: Game | str) -> str:
        return game.id if isinstance(game, Game) else game

    @staticmethod
    def _token(game: Game | str, who: int | str) -> str | None:
        """The token to send for seat `who` (0, 1) or "owner", if new_game
        gave tokens: `{"owner": ..., "seats": [seat 0's, seat 1's]}` (or
        keyed "0"/"1").  A seat falls back to the owner token, which opens
        every seat."""
        if not isinstance(game, Game) or not game.tokens:
            return None
        tokens = game.tokens
        if who == "owner":
            return tokens.get("owner")
        seats = tokens.get("seats")
        if isinstance(seats, list) and who in (0, 1) and who < len(seats):
            return seats[who]
        return tokens.get(str(who), tokens.get("owner"))

    @staticmethod
    def _info(on_info: Callable[[Info], None] | None) -> Callable[[dict], None] | None:
        return None if on_info is None else (lambda d: on_info(Info.from_dict(d)))

    # ------------------------------------------------------------ commands
    def hello(self) -> dict:
        """Protocol and engine versions, ruleset, commands, limits."""
        return self.request("hello")

    def new_game(
        self,
        seed: int | None = None,
        *,
        rules: Mapping | str | None = None,
        record: Mapping | None = None,
        state: Mapping | None = None,
        engine: Mapping | None = None,
    ) -> Game:
        """Start a game (from a seed, a record or a state document).
        `engine`: the server plays that seat, e.g. `{"seat": 1, "level": 3}`;
        the game then holds only the other seat's token, and every `apply`
        comes back after the engine's answer (docs/protocol.md, "Playing
        the engine")."""
        r = self.request("new_game", seed=seed, rules=rules, record=record, state=state, engine=engine)
        tokens = dict(r.get("tokens") or {})
        self._tokens += [t for t in [tokens.get("owner"), *(tokens.get("seats") or [])] if isinstance(t, str)]
        return Game(r["game"], r.get("seed"), _status(r), tokens)

    def legal(self, game: Game | str, player: int) -> list[Action]:
        """Every legal action of `player` now (empty when not their turn)."""
        r = self.request("legal", game=self._gid(game), player=player, token=self._token(game, player))
        return [Action.from_dict(a) for a in r["actions"]]

    def view(self, game: Game | str, player: int) -> View:
        """What `player` knows (RULES section 5), as a `tacocat` View."""
        r = self.request("view", game=self._gid(game), player=player, token=self._token(game, player))
        return View.from_dict(r["view"])

    def apply(self, game: Game | str, player: int, action: Action | Mapping | str) -> Applied:
        """Apply `player`'s action: an `Action`, its dict, or plain notation
        naming its kind ("replace none", "answer 9 12 beat"); raises
        EngineError("illegal_action") with the game unchanged when it is
        not legal, NotationError when it cannot be read."""
        if isinstance(action, str):
            action = Action.parse(action)
        if not isinstance(action, (Action, Mapping)):
            raise NotationError(
                f"apply: an action is an Action, a dict like {{'kind': 'replace', 'cards': []}} or notation "
                f"naming its kind like 'replace none' or 'attack 4 5 6', got {shorten(action)}"
            )
        data = action.to_dict() if isinstance(action, Action) else dict(action)
        r = self.request("apply", game=self._gid(game), player=player, action=data, token=self._token(game, player))
        applied = _applied(r)
        if isinstance(game, Game):
            game.status = applied.status
        return applied

    def move(
        self,
        game: Game | str,
        player: int,
        *,
        bot: str | None = None,
        level: int | None = None,
        time_ms: int | None = None,
        iterations: int | None = None,
        seed: int | None = None,
        apply: bool = True,
        on_info: Callable[[Info], None] | None = None,
        info_ms: int | None = None,
    ) -> Moved:
        """The engine's action for `player`: by `bot` name (and budget) or
        strength `level`; applied unless `apply=False`."""
        if on_info is not None and info_ms is None:
            info_ms = 250
        r = self.request(
            "move",
            game=self._gid(game),
            player=player,
            bot=bot,
            level=level,
            time_ms=time_ms,
            iterations=iterations,
            seed=seed,
            apply=None if apply else False,
            info_ms=info_ms,
            token=self._token(game, player),
            on_info=self._info(on_info),
        )
        applied = _applied(r) if r.get("applied") else None
        if applied is not None and isinstance(game, Game):
            game.status = applied.status
        return Moved(
            player,
            r["bot"],
            r.get("level"),
            r["seed"],
            r["decision"],
            r["simultaneous"],
            Action.from_dict(r["action"]),
            r["seconds"],
            applied,
        )

    def hint(
        self,
        game: Game | str | None = None,
        player: int | None = None,
        *,
        view: View | Mapping | None = None,
        time_ms: int | None = None,
        iterations: int | None = None,
        seed: int | None = None,
        method: str | None = None,
        top: int | None = None,
        score: str | None = None,
        on_info: Callable[[Info], None] | None = None,
        info_ms: int | None = None,
    ) -> Hint:
        """Ranked moves with their odds, for `player` in `game` or for a
        `view`.  `method`: auto, exact, pimc, ismcts or endgame."""
        if view is not None and isinstance(view, View):
            view = view.to_dict()
        if on_info is not None and info_ms is None:
            info_ms = 250
        r = self.request(
            "hint",
            game=None if game is None else self._gid(game),
            player=player,
            view=view,
            time_ms=time_ms,
            iterations=iterations,
            seed=seed,
            method=method,
            top=top,
            score=score,
            info_ms=info_ms,
            # no player: the owner's token (the server then names the missing player)
            token=self._secret if game is None else self._token(game, "owner" if player is None else player),
            on_info=self._info(on_info),
        )
        return _hint(r, bool(self.last_response.get("stopped")))

    def stop(self, target: Any = None) -> int:
        """Stop this client's running searches (the one with request id
        `target`, or all of them); how many were stopped.  It sends every
        token the client holds, so on a shared server it ends only its own."""
        return self.request("stop", target=target, tokens=[self._secret, *self._tokens[-99:]])["stopped"]

    def status(self, game: Game) -> GameStatus:
        """Refresh `game.status` from the engine."""
        owner = self._token(game, "owner")
        for g in self.request("games", tokens=[owner] if owner else None)["games"]:
            if g["game"] == game.id:
                game.status = _status(g)
                return game.status
        raise EngineError("bad_field", f"no game {game.id!r}", "game")

    def state(self, game: Game | str) -> dict:
        """The whole state document (hidden cards included)."""
        return self.request("state", game=self._gid(game), token=self._token(game, "owner"))["state"]

    def record(self, game: Game | str) -> dict:
        """The game record (replays to the same game)."""
        return self.request("record", game=self._gid(game), token=self._token(game, "owner"))["record"]

    def end_game(self, game: Game | str) -> None:
        """Forget the game on the engine's side."""
        owner = self._token(game, "owner")
        if owner is None and isinstance(game, Game):  # a game against the engine: the seat's token ends it
            owner = next((t for t in game.tokens.get("seats") or [] if t), None)
        self.request("end_game", game=self._gid(game), token=owner)
