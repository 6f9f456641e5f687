"""The engine protocol, free of any transport (docs/protocol.md).

A frontend talks to the engine in small JSON messages.  A request is an
object with a command name and that command's fields; the answer echoes the
request's `id`::

    {"id": 7, "cmd": "legal", "game": "g1", "player": 0}
    {"id": 7, "ok": true, "cmd": "legal", "result": {"game": "g1", ...}}
    {"id": 8, "ok": false, "cmd": "apply", "error": {"code": "illegal_action", "message": "..."}}

`EngineSession` holds the ruleset and the games in progress and answers every
command through `handle(request) -> response`.  It never raises for anything
a frontend can send: malformed requests, unknown commands, illegal actions
and impossible positions all come back as an error object with a stable
`code` (`ERROR_CODES`), and the session carries on with every game intact
(an illegal action leaves its game unchanged).

Searches (`hint`, `solve`) may take long, so a transport that wants to read
`stop` while one runs splits `handle` in two: `prepare(request)` validates
the request, reserves a search slot and returns a `SearchJob`; the transport
runs `job.run()` on a worker thread and writes its response when it returns.
`stop` sets the job's `threading.Event`; the search then answers at once with
its best result so far.  `tacocat.protocol.jsonlines` (JSON Lines on stdin/stdout) and
`tacocat.protocol.http` (HTTP) are the two transports.

Every command is described once, in `COMMANDS` (fields, JSON types, which
are required): validation, `hello`, the OpenAPI document and the docs all
read that table.

The protocol's parts live in their own rooms: the wire format and error
codes in `wire`, the command table in `commands`, tokens in `seats`; this
module is the session that answers the commands; each name is imported
from its own room, never from here."""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeVar

from tacocat import __version__
from tacocat.errors import RecordError, TacocatError
from tacocat.errors import shorten as _short
from tacocat.protocol.commands import (
    COMMANDS,
    DEFAULT_MAX_QUEUE,
    ENDGAME_METHOD,
    Command,
    _check_fields,
)
from tacocat.protocol.moves import BOT_NAMES, LEVELS, capped_budget, move_work, resolve_bot, seat_events
from tacocat.protocol.seats import Seats, _hash, new_game_id
from tacocat.protocol.store import GameStore
from tacocat.protocol.streaming import SearchSignal, finite, sliced_search
from tacocat.protocol.wire import (
    _ERROR_CODE_OF,
    ERROR_CODES,
    MAX_DEPTH,
    MAX_ID_LENGTH,
    PROTOCOL_VERSION,
    ApplyResult,
    GameStatus,
    HelloResult,
    LegalResult,
    NewGameResult,
    ProtocolError,
    Response,
    StopResult,
    _echoable,
    _ok,
    _too_deep,
    _valid_id,
    action_dict,
    error_response,
)
from tacocat.rules.actions import Action
from tacocat.rules.events import PLAY_DECISIONS, Event
from tacocat.rules.game import DUEL, REPLACE, GameRecord, GameState
from tacocat.rules.ruleset import Ruleset, load_ruleset
from tacocat.rules.views import View, view_from_json
from tacocat.search.options import Method, describe_options

log = logging.getLogger("tacocat.engine")
T = TypeVar("T")


def _top(result: dict, top: int | None) -> dict:
    """A hint result with only its best `top` moves (`best` unchanged)."""
    if top is not None and isinstance(result.get("moves"), list) and len(result["moves"]) > top:
        result = {**result, "moves": result["moves"][:top], "more": len(result["moves"]) - top}
    return result


# --------------------------------------------------------------------------
# Searches.

HintFn = Callable[..., Any]
"""`hint(view, *, iterations, time_ms, seed, method, stop)` -> an object with
`to_dict()` (or a dict): `tacocat.search.hint.hint` or a stand-in."""

SolveFn = Callable[[dict, threading.Event], dict]
"""A stand-in for the exact solver (tests): `solve(position_dict, stop)` ->
a result dict.  The default is `tacocat.core.exact`."""


def default_hint(
    view: View,
    *,
    iterations=None,
    time_ms=None,
    seed=0,
    method="auto",
    stop=None,
    utilities="game",
    inference=None,
    **knobs,
):
    """The package's hint: the protocol's budget fields as a `Budget`, the
    search's shape (`round_search`, `duel`, `replace`) as its `Knobs`."""
    from tacocat.search.budget import Budget
    from tacocat.search.hint import Knobs, hint  # imported on first use: searches load the heavy modules

    progress = None
    if isinstance(stop, SearchSignal) and stop.info_ms is not None and not stop.slicing:
        signal, every_s, last = stop, stop.info_ms / 1000, [0.0]

        def progress(fraction: float) -> None:  # an enumeration's progress, at the info rate
            now = time.perf_counter()
            if now - last[0] >= every_s:
                last[0] = now
                signal.info({"fraction": round(fraction, 4)})

    return hint(
        view,
        Budget(samples=iterations, time_ms=time_ms, seed=seed, stop=stop, progress=progress),
        method=method,
        utilities=utilities,
        inference=inference,
        knobs=Knobs(**knobs),
    )


def said_round_search(result: dict, decision: str | None) -> dict:
    """A hint answer asked for the round search, saying what ran, beside
    `inference`: `round_search` 1 when it searched this decision (a
    replacement or a duel, `tacocat.search.decisions`), 0 when the decision
    has none (the play phase searches as before)."""
    return {**result, "round_search": 1 if decision in (REPLACE, DUEL) else 0}


@dataclass
class SearchJob:
    """A validated search waiting to run.  `run()` blocks until the search
    answers and returns the response; `stop()` makes it answer early.  Every
    job that `prepare` returns must be run (that frees its slot)."""

    session: "EngineSession"
    request_id: Any
    cmd: str
    work: Callable[[threading.Event], dict]
    stop_event: SearchSignal = field(default_factory=SearchSignal)
    """The stop flag; also carries the info rate and the transport's info sink."""
    deadline_s: float | None = None
    """Server cap: the search is stopped this many seconds after it starts."""
    owner: str | None = None
    """Who may stop it and see it in `busy`: the hash of the token its
    request carried, else the connection (JSON Lines), else nobody but the
    server's admin (an anonymous HTTP search)."""
    client: str | None = None
    """The client whose request it is (the key of its share of the queue)."""
    stopped_by_request: bool = False
    started: float | None = None
    reports_stop: bool = True
    """Whether the answer says `stopped` (an engine seat's reply, queued as a
    search, answers in its command's own shape)."""
    _ran: bool = False

    def stop(self) -> None:
        self.stopped_by_request = True
        self.stop_event.set()

    def run(self) -> Response:
        if self._ran:
            raise RuntimeError("a SearchJob runs once")
        self._ran = True
        timer = None
        try:
            self.session._wait_turn(self)
            self.started = time.perf_counter()
            self.stop_event.start_clock()
            if self.deadline_s is not None:
                timer = threading.Timer(self.deadline_s, self.stop_event.set)
                timer.daemon = True
                timer.start()
            result = self.work(self.stop_event)
            response = _ok(self.request_id, self.cmd, result)
            if self.reports_stop:
                response["stopped"] = self.stop_event.is_set()
            return response
        except Exception as exc:  # noqa: BLE001 - every failure becomes a response
            return self.session._error_response(self.request_id, self.cmd, exc)
        finally:
            if timer is not None:
                timer.cancel()
            self.session._release(self)


# --------------------------------------------------------------------------
# The session.


MAX_LISTED = 100
MIN_ADMIN_TOKEN = 16
"""Characters an admin token has at least: its `stop` ends every client's
searches, so it must not be one anyone guesses (an empty one let
anyone's `stop {"token": ""}` end them all)."""
DEADLINE_GRACE_S = 0.25
"""A search still running this long past its time budget is stopped."""
DEFAULT_IDLE_GAME_S = 3600.0
"""Game retention: when the server is full, a game nobody has touched for
this long may be evicted (finished games first, oldest first); a game
idle this long is also dropped from the store when the server starts."""
CONNECTION = "connection"
"""The client key of a private session (JSON Lines: one client a session)."""


@dataclass(frozen=True)
class EngineSeat:
    """A seat the server plays (new_game's `engine`): the bot that moves for
    it, from that seat's view alone, as soon as it has a decision."""

    seat: int
    bot: str
    budget: dict
    level: int | None

    @classmethod
    def read(cls, value: Mapping[str, Any]) -> "EngineSeat":
        unknown = sorted(set(value) - {"seat", "level", "bot", "time_ms", "iterations"})
        if unknown:
            raise ProtocolError(
                "bad_field",
                f"new_game: engine has unknown field(s) {unknown}; expected seat and "
                "level, or seat, bot and an optional time_ms or iterations",
                "engine",
            )
        seat = value.get("seat")
        if type(seat) is not int or seat not in (0, 1):
            raise ProtocolError("bad_field", f"new_game: engine.seat must be 0 or 1, got {_short(seat)}", "engine")
        sub = Command(
            "engine",
            "",
            tuple(f for f in COMMANDS["move"].fields if f.name in ("bot", "level", "time_ms", "iterations")),
        )
        try:
            _check_fields(sub, {k: v for k, v in value.items() if k != "seat"})
            name, budget, level = resolve_bot(value)
        except ProtocolError as exc:
            raise ProtocolError("bad_field", f"new_game: {exc.message}", "engine") from None
        return cls(seat, name, budget, level)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "budget": dict(self.budget), "level": self.level}


@dataclass(frozen=True)
class EngineReply:
    """What `new_game` or `apply` leaves for the engine seat to do: its
    reply, run as a queued search (`work(stop)` answers the command), and
    how to undo what the command did when no slot is free (`undo`)."""

    work: Callable[[threading.Event], Any]
    undo: Callable[[], None]


MAX_ENGINE_TURNS = 64
"""More engine actions in a row than any round holds: a guard, never reached."""


@dataclass
class GameMeta:
    """Who opened a game and when it was last touched: the keys of the
    per-client limit and of eviction (never shown to any client)."""

    client: str | None
    touched: float


@dataclass
class GameFeed:
    """One game's events, action by action, as each seat saw them."""

    first: int
    """The game's action count when its feed began (the actions before are not in it)."""
    actions: list[tuple[list[dict], list[dict]]] = field(default_factory=list)


def _command_of(request: Any) -> Command:
    """The command a request names, its envelope (a JSON object with `cmd`
    and an echoable `id`) and its fields checked."""
    if not isinstance(request, dict):
        raise ProtocolError("bad_json", f"a request must be a JSON object, got {type(request).__name__}")
    if _too_deep(request):
        raise ProtocolError("bad_json", f"request nested deeper than {MAX_DEPTH} levels")
    if "cmd" not in request:
        raise ProtocolError("missing_field", 'a request needs \'cmd\' (e.g. {"cmd": "hello"})', "cmd")
    cmd_name = request["cmd"]
    if not isinstance(cmd_name, str):
        raise ProtocolError("bad_field", f"'cmd' must be a string, got {_short(cmd_name)}", "cmd")
    if not _valid_id(request.get("id")):
        raise ProtocolError(
            "bad_field",
            f"'id' must be a string (at most {MAX_ID_LENGTH} characters), a finite number or null, "
            f"got {_short(request['id'])}",
            "id",
        )
    command = COMMANDS.get(cmd_name)
    if command is None:
        raise ProtocolError(
            "unknown_command", f"unknown command {_short(cmd_name)}; commands: {', '.join(COMMANDS)}", "cmd"
        )
    _check_fields(command, request)
    return command


def warm_search() -> None:
    """Import what the searches import on first use (numpy, the duel's
    matrix games and scipy's linear programs): a server does it before its
    first answer, since a search inside an import is one no stop or cap
    reaches (0.2-3 s for a process's first duel)."""
    import scipy.optimize  # noqa: F401

    import tacocat.search.decisions  # noqa: F401


def _check_seat_request(request: Mapping[str, Any], seat: int | str, over: bool, seats_when_over: bool) -> None:
    """Forbidden unless a seat token's request is for its own `player` (or,
    with `seats_when_over`, for the whole game once it is over)."""
    player = request.get("player")
    if player is None and not (seats_when_over and over):
        raise ProtocolError(
            "forbidden",
            f"{request.get('cmd')} needs the game's owner token"
            + (" (a seat token opens it once the game is over)" if seats_when_over else ""),
            "token",
        )
    if player is not None and player != seat:
        raise ProtocolError("forbidden", f"the token opens seat {seat}, not seat {_short(player)}", "token")


def _named_command(request: Any) -> str | None:
    """The command a failed request's answer names: the one it asked for,
    when it names one readably."""
    if not isinstance(request, dict) or _too_deep(request):
        return None
    cmd_name = request.get("cmd")
    return cmd_name if isinstance(cmd_name, str) and cmd_name in COMMANDS else None


def _game_document(request: Mapping[str, Any]) -> str | None:
    """Which document new_game starts from ("record" or "state"; None for a
    seed, given or not): at most one of seed, record, state."""
    sources = [k for k in ("seed", "record", "state") if k in request]
    if len(sources) > 1:
        raise ProtocolError(
            "bad_field", f"new_game takes one of seed, record, state; got {', '.join(sources)}", sources[1]
        )
    return sources[0] if sources and sources[0] != "seed" else None


class EngineSession:
    """The ruleset, the games by id, and the running searches of one
    frontend connection (JSON Lines) or one server (HTTP).

    Thread-safe: a lock guards the games, so a transport may call `handle`
    from several threads at once; searches run outside the lock on a
    snapshot of the view they were asked about."""

    def __init__(
        self,
        rules: Ruleset | None = None,
        *,
        max_games: int = 1000,
        max_searches: int = 1,
        max_time_ms: int | None = None,
        max_queue: int = DEFAULT_MAX_QUEUE,
        limits: Mapping[str, Any] | None = None,
        hint_fn: HintFn | None = None,
        solve_fn: SolveFn | None = None,
        store: GameStore | None = None,
        shared: bool = False,
        admin_token: str | None = None,
        max_games_per_client: int | None = None,
        idle_game_s: float = DEFAULT_IDLE_GAME_S,
    ) -> None:
        """`max_games`: open games at most (then the oldest finished game is
        forgotten, or new_game answers busy).  `max_searches`: searches
        running at once; `max_queue` more wait their turn in order (more
        than that answer busy).  `max_time_ms`: cap on a search's
        time (a request's time_ms is cut to it; a search still running
        0.25 s past it is stopped).  `limits`: extra
        transport limits reported by hello.  `hint_fn`/`solve_fn` replace the
        searches (tests use stand-ins).  `store`: keep the games (and the
        session's ruleset) in this `GameStore`, every change committed
        before it is answered; the games stored there are opened now.

        `shared`: many clients share this session (HTTP): `set_rules` is
        refused, and a search is stopped only by a request that carries
        its token.  `admin_token`: the server owner's secret; its `stop`
        ends every search.  `max_games_per_client`: games one client key
        (`prepare`'s `client`) may hold open (default half of max_games
        when shared).  `idle_game_s`: the retention of untouched games."""
        self.rules = rules or load_ruleset(None)
        self.max_games = max_games
        self.max_searches = max_searches
        self.max_time_ms = max_time_ms
        self.transport_limits = dict(limits or {})
        self._hint_fn = hint_fn or default_hint
        self._solve_fn = solve_fn
        self._solvers: list = []
        self._games: OrderedDict[str, GameState] = OrderedDict()
        self._seats: dict[str, Seats] = {}
        self._lock = threading.RLock()
        self._turn = threading.Condition(self._lock)
        self.max_queue = max_queue
        self.shared = shared
        if admin_token is not None and len(admin_token) < MIN_ADMIN_TOKEN:
            raise ValueError(f"admin_token: at least {MIN_ADMIN_TOKEN} characters, got {len(admin_token)}")
        self._admin = None if admin_token is None else _hash(admin_token)
        self._per_client_given = max_games_per_client
        self.max_games_per_client = (
            max_games_per_client
            if max_games_per_client is not None
            else (max(1, max_games // 2) if shared else max_games)
        )
        self.idle_game_s = idle_game_s
        self._meta: dict[str, GameMeta] = {}
        self._engines: dict[str, EngineSeat] = {}
        self._engine_bots: dict[str, tuple[Any, threading.Lock]] = {}
        """Each engine game's bot, kept across its turns (`_engine_bot`)."""
        self._feeds: dict[str, GameFeed] = {}
        """Each game's events since it opened here, as each seat saw them (`view` with `since`)."""
        # Each command's handler, named once: a search's returns the work a
        # worker thread runs, any other's its result.
        self._handlers: dict[str, Callable[[Mapping[str, Any]], Any]] = {
            "hello": self._cmd_hello,
            "set_rules": self._cmd_set_rules,
            "new_game": self._cmd_new_game,
            "apply": self._cmd_apply,
            "move": self._cmd_move,
            "legal": self._cmd_legal,
            "view": self._cmd_view,
            "state": self._cmd_state,
            "record": self._cmd_record,
            "games": self._cmd_games,
            "end_game": self._cmd_end_game,
            "hint": self._cmd_hint,
            "solve": self._cmd_solve,
            "stop": self._cmd_stop,
            "quit": self._cmd_quit,
        }
        assert list(self._handlers) == list(COMMANDS), "every command of the table has its handler"
        """Games whose other seat the server plays."""
        self._caller = threading.local()
        """The client key of the request being prepared on this thread."""
        self.store = store
        if store is not None:
            self._open_store(store)
        self._searches: list[SearchJob] = []
        self.closed = False
        """Set by quit; transports stop reading."""
        self.quit_ends_session = True
        """False for a shared session (HTTP): quit then only says goodbye,
        it neither stops searches nor closes the session."""
        self.handled = 0
        """Requests answered so far (errors included)."""
        from tacocat.search.equilibrium import SolveSlots

        self.equilibrium = SolveSlots()
        """Equilibrium solves running at once, and each one's memory cap (issue 22)."""

    @property
    def max_searches_per_client(self) -> int:
        """Searches one client may hold running or queued: on a shared server
        half the places, so that one client's flood leaves the others room
        (read when asked: the HTTP transport shares a session after building it)."""
        places = self.max_searches + self.max_queue
        return max(1, places // 2) if self.shared else places

    def share(self) -> None:
        """Mark the session as shared by many clients (the HTTP transport
        calls this): see `shared` in the constructor."""
        self.shared = True
        self.quit_ends_session = False  # one client must not end a shared server
        if self._per_client_given is None:
            self.max_games_per_client = max(1, self.max_games // 2)

    def _open_store(self, store: GameStore) -> None:
        # The session's ruleset is the server's (--rules), never a stored one:
        # nothing a client sent survives a restart to change other games.
        now = time.time()
        for stored in store.games():
            touched = getattr(stored, "updated", None) or now
            if now - touched > self.idle_game_s:
                store.delete(stored.game)  # past retention: capacity comes back
                continue
            try:
                state = GameState.from_dict(stored.state)
            except TacocatError as exc:
                log.error("game store: game %s is unreadable (%s); skipped", stored.game, exc)
                continue
            self._games[stored.game] = state
            self._seats[stored.game] = Seats(stored.seats[0], (stored.seats[1], stored.seats[2]))
            self._meta[stored.game] = GameMeta(getattr(stored, "client", None), touched)
            engine = store.get_meta(f"engine/{stored.game}")
            if engine is not None:
                self._engines[stored.game] = EngineSeat(
                    engine["seat"], engine["bot"], engine["budget"], engine["level"]
                )
        ordered = sorted(self._games, key=lambda g: self._meta[g].touched)
        self._games = OrderedDict((g, self._games[g]) for g in ordered)

    def _commit(self, gid: str, state: GameState) -> None:
        """Make `state` game `gid`'s: stored first (durable), then in memory,
        so a failed write leaves the game as it was.  Under the lock."""
        meta = self._meta[gid]
        if self.store is not None:
            self.store.save(gid, self._seats[gid].hashes(), state.to_dict(), client=meta.client)
        self._feed(gid, state)
        self._games[gid] = state
        self._games.move_to_end(gid)
        meta.touched = time.time()

    def _forget(self, gid: str) -> None:
        if self.store is not None:
            self.store.delete(gid)
            if gid in self._engines:
                self.store.set_meta(f"engine/{gid}", None)
        self._engines.pop(gid, None)
        self._engine_bots.pop(gid, None)
        self._feeds.pop(gid, None)
        del self._games[gid]
        del self._seats[gid]
        del self._meta[gid]

    def _feed(self, gid: str, state: GameState) -> None:
        """Keep the events of the actions `state` adds to game `gid`, as each
        seat saw them (seat_events: the public events and the seat's own
        draws), for a page that follows the game while the other seat acts
        (`view` with `since`).  The new actions are replayed on a copy of
        the game before them, which holds the same draw pile.  Under the lock."""
        old = self._games.get(gid)
        feed = self._feeds.get(gid)
        if feed is None:  # opened now, or read from the store: its feed starts here
            feed = self._feeds[gid] = GameFeed(len((old or state).actions))
        if old is None or len(state.actions) <= len(old.actions):
            return
        copy = old.clone()
        for entry in state.actions[len(old.actions) :]:
            player = entry["player"]
            before = (tuple(copy.hands[0]), tuple(copy.hands[1]))
            raw = copy.apply(player, Action.from_dict(entry))
            seen = [seat_events(raw, p, before[p], copy.hands[p]) for p in (0, 1)]
            feed.actions.append((seen[0], seen[1]))

    # ---------------------------------------------------------------- entry
    def handle(self, request: Any, client: str | None = CONNECTION) -> Response:
        """Answer one request (searches run here, on the caller's thread)."""
        prepared = self.prepare(request, client)
        if isinstance(prepared, SearchJob):
            return prepared.run()
        return prepared

    def prepare(self, request: Any, client: str | None = CONNECTION) -> Response | SearchJob:
        """Answer a request at once, or, for a search, validate it and
        return the `SearchJob` to run.  Never raises.  `client`: who sends
        it, as the transport knows it (JSON Lines: its one connection;
        HTTP: the page's origin or the peer address); the key of the
        per-client game limit, and in a private session the owner of its
        searches."""
        self.handled += 1
        self._caller.client = client
        request_id = _echoable(request.get("id")) if isinstance(request, dict) else None
        try:
            command = _command_of(request)
            cmd_name, handler = command.name, self._handlers[command.name]
            if command.search:
                time_ms, _ = self._budget(request)
                return self._reserve(
                    request_id,
                    cmd_name,
                    handler(request),
                    time_ms if time_ms is not None else self.max_time_ms,
                    request.get("info_ms"),
                    owner=self._owner_of(request),
                )
            result = handler(request)
            if isinstance(result, EngineReply):
                return self._reserve_reply(request_id, cmd_name, request, result)
            return _ok(request_id, cmd_name, result)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a response
            return self._error_response(request_id, _named_command(request), exc)

    def _error_response(self, request_id: Any, cmd: str | None, exc: Exception) -> Response:
        if isinstance(exc, ProtocolError):
            return error_response(request_id, exc.code, exc.message, cmd, exc.field)
        if isinstance(exc, TacocatError):
            code = _ERROR_CODE_OF.get(exc.code, exc.code)
            if code not in ERROR_CODES:
                code = "bad_field"
            return error_response(request_id, code, str(exc), cmd)
        if isinstance(exc, RecursionError):  # a document nested deeper than the readers go
            return error_response(request_id, "bad_json", "request nested too deeply to read", cmd)
        log.exception("internal error answering %s (id %r)", cmd, request_id)
        return error_response(request_id, "internal", f"{type(exc).__name__}: {exc}", cmd)

    # ------------------------------------------------------------ searches
    def _owner_of(self, request: Mapping[str, Any]) -> str | None:
        """Whose search a request starts: its token's, else (a private
        session) the connection's, else nobody's (anonymous HTTP)."""
        token = request.get("token")
        if isinstance(token, str):
            return _hash(token)
        return None if self.shared else CONNECTION

    def _reserve_reply(self, request_id: Any, cmd: str, request: Mapping[str, Any], reply: "EngineReply") -> SearchJob:
        """The engine seat's reply to a `new_game` or an `apply`, queued as a
        search (it takes a slot, waits its turn or answers `busy`, the
        server's cap and its owner's `stop` end it); busy, what the request
        did is undone first."""
        try:
            job = self._reserve(request_id, cmd, reply.work, self.max_time_ms, owner=self._owner_of(request))
        except ProtocolError:
            reply.undo()
            raise
        job.reports_stop = False
        return job

    def _reserve(
        self,
        request_id: Any,
        cmd: str,
        work: Callable[[threading.Event], dict],
        cap_ms: int | None = None,
        info_ms: int | None = None,
        owner: str | None = None,
    ) -> SearchJob:
        """A search slot for `work`; it is stopped `cap_ms` (the request's
        time budget, else the server's cap) plus a grace after it starts.
        `info_ms`: the rate of its info messages (None: none).  `owner`:
        who may stop it and see it named in `busy`."""
        client = getattr(self._caller, "client", CONNECTION)
        with self._lock:
            self._check_room_for_search(client, owner)
            deadline = None if cap_ms is None else cap_ms / 1000 + DEADLINE_GRACE_S
            job = SearchJob(self, request_id, cmd, work, deadline_s=deadline, owner=owner, client=client)
            job.stop_event.info_ms = info_ms
            self._searches.append(job)
            return job

    def _searches_shown_to(self, owner: str | None) -> list[SearchJob]:
        """The searches a caller may see named: all of a private session's,
        only its own on a shared server."""
        if not self.shared:
            return list(self._searches)
        return [j for j in self._searches if owner is not None and j.owner == owner]

    def _check_room_for_search(self, client: Any, owner: str | None) -> None:
        """Busy when the queue is full or `client` holds its share of it;
        the refusal names the caller's own searches (only its own on a
        shared server), which it may stop.  Under the lock."""
        mine = [f"{j.cmd} id {j.request_id!r}" for j in self._searches_shown_to(owner)]
        yours = f"; yours: {', '.join(mine)}" if mine else ""
        advice = ": wait for an answer" + (" or stop one of yours" if mine else "")
        if len(self._searches) >= self.max_searches + self.max_queue:
            raise ProtocolError(
                "busy",
                f"{len(self._searches)} search(es) running or queued{yours}; at most "
                f"{self.max_searches} run and {self.max_queue} wait{advice}",
            )
        theirs = sum(1 for j in self._searches if j.client == client)
        if theirs >= self.max_searches_per_client:
            raise ProtocolError(
                "busy",
                f"{theirs} search(es) of this client running or queued, the most one client may "
                f"({self.max_searches_per_client}){yours}{advice}",
            )

    def _wait_turn(self, job: "SearchJob") -> None:
        """Block until `job` is among the first `max_searches` reserved:
        searches run in the order they arrived."""
        with self._turn:
            while job in self._searches and self._searches.index(job) >= self.max_searches:
                self._turn.wait()

    def _release(self, job: SearchJob) -> None:
        with self._lock:
            if job in self._searches:
                self._searches.remove(job)
            self._turn.notify_all()

    @property
    def searching(self) -> int:
        """How many searches are reserved or running."""
        with self._lock:
            return len(self._searches)

    def stop_searches(self, target: Any = None, owners: set[str | None] | None = None) -> int:
        """Stop the running searches (only the one whose request id is
        `target`, when given; only those whose owner is in `owners`, when
        given); how many were stopped."""
        with self._lock:
            jobs = [
                j
                for j in self._searches
                if (target is None or j.request_id == target) and (owners is None or j.owner in owners)
            ]
        for job in jobs:
            job.stop()
        return len(jobs)

    def _budget(self, request: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """The request's budget, its time cut to the cap.  A request without
        a time budget keeps it that way (the search's own default, e.g.
        exact enumeration); the cap still stops it (`SearchJob.deadline_s`)."""
        time_ms, iterations = request.get("time_ms"), request.get("iterations")
        if self.max_time_ms is not None and time_ms is not None:
            time_ms = min(time_ms, self.max_time_ms)
        return time_ms, iterations

    # ------------------------------------------------------------- helpers
    def _game(
        self, request: Mapping[str, Any], *, seats_when_over: bool = False, human_owns: bool = False
    ) -> GameState:
        """The game `request["game"]`, if `request["token"]` opens it for
        this request: the owner token opens everything; a seat token opens
        requests for its own `player` only (and, with `seats_when_over`,
        the game's record once it is over).  Every game command goes
        through here, so a command without `player` is owner-only unless
        it says otherwise."""
        gid = request["game"]
        with self._lock:
            state = self._games.get(gid)
            if state is None:  # never list the open games: their ids are other clients'
                raise ProtocolError("bad_field", f"no game {_short(gid)} in this session", "game")
            role = self._seats[gid].role(request.get("token"))
            if role is None:
                raise ProtocolError(
                    "forbidden", f"{request.get('cmd')}: the token does not open game {_short(gid)}", "token"
                )
            engine = self._engines.get(gid)
            if role != "owner" and not (human_owns and engine is not None and role == 1 - engine.seat):
                _check_seat_request(request, role, state.over, seats_when_over)
            self._games.move_to_end(gid)
            self._meta[gid].touched = time.time()
            return state

    # ------------------------------------------ the seat API (tacocat.protocol.moves)
    def checked_game(self, request: Mapping[str, Any]) -> GameState:
        """The request's game if its token opens it for the request (`_game`):
        how a search outside this class reads a game."""
        return self._game(request)

    def read_games(self, read: Callable[[], T]) -> T:
        """`read()` under the session's lock: one consistent look at the games."""
        with self._lock:
            return read()

    def apply_unchanged(
        self, gid: str, seat: int, view: View, action: Action
    ) -> tuple[GameState, GameState, list[Event]] | None:
        """Apply `seat`'s `action` to game `gid` only if the seat's view is
        still `view` (the one a bot chose from): on a copy, committed
        (durable) before it is returned, as `apply` does.  (the game
        before, after, the events), or None when the game moved on or is gone."""
        with self._lock:
            live = self._games.get(gid)
            if live is None or live.view(seat) != view:
                return None
            after = live.clone()
            events = after.apply(seat, action)
            self._commit(gid, after)
            return live, after, events

    def _ruleset_of(self, value: Any, what: str, field: str) -> Ruleset:
        """The ruleset a request gives, read here for every command (new_game,
        set_rules, a view's, a position's): a ruleset object (RULES section 8)
        or "standard" — never a file path over the protocol; None: the
        session's."""
        if value is None:
            return self.rules
        if value == "standard":
            return load_ruleset(None)
        if not isinstance(value, Mapping):
            raise ProtocolError(
                "bad_field", f'{what} must be a ruleset object or "standard", got {_short(value)}', field
            )
        return Ruleset.from_dict(value)

    def _view_of(self, request: Mapping[str, Any]) -> View:
        """The view a request gives (hint, solve's equilibrium mode), in the
        shapes of `tacocat hint --view` (short or full), read by the same
        function; its rules as `_ruleset_of` reads them."""
        data = request["view"]
        if isinstance(data, Mapping):
            data = {**data, "rules": self._ruleset_of(data.get("rules"), "view rules", "view").to_dict()}
        return view_from_json(data)

    @staticmethod
    def status(gid: str, state: GameState) -> GameStatus:
        """Game `gid`'s public status (the protocol's status object)."""
        return {
            "game": gid,
            "phase": state.phase,
            "acting": state.acting_players(),
            "over": state.over,
            "winner": state.winner,
            "board": state.board.to_dict(),
            "deals": state.deals,
            "rounds": len(state.rounds),
            "actions": len(state.actions),
        }

    def _evict_one(self, client: Any = ...) -> bool:
        """Forget one game to make room (of `client`'s, when given): the
        least recently used finished game, else the least recently used
        game idle longer than the retention.  Whether one was forgotten."""
        now = time.time()
        candidates = sorted(
            (g for g in self._games if client is ... or self._meta[g].client == client),
            key=lambda g: self._meta[g].touched,
        )  # least recently touched first
        for gid in candidates:
            if self._games[gid].over:
                self._forget(gid)
                return True
        for gid in candidates:
            if now - self._meta[gid].touched > self.idle_game_s:
                self._forget(gid)
                return True
        return False

    def _make_room(self, client: str | None) -> None:
        """Room for one more game of `client`: within its own limit and the
        session's, evicting (docs/protocol.md, "Capacity"), else busy."""
        held = sum(1 for m in self._meta.values() if m.client == client)
        if (
            self.max_games_per_client < self.max_games
            and held >= self.max_games_per_client
            and not self._evict_one(client)
        ):
            raise ProtocolError(
                "busy",
                f"you hold {held} open games, the most one client may ({self.max_games_per_client}); "
                f"end_game one first, or wait: a finished game, or one idle for {self.idle_game_s:g} s, makes room",
            )
        if len(self._games) >= self.max_games and not self._evict_one():
            raise ProtocolError(
                "busy",
                f"{len(self._games)} games open, the most this session keeps ({self.max_games}); "
                f"end_game one first, or wait: a game idle for {self.idle_game_s:g} s makes room",
            )

    # ------------------------------------------------------------ commands
    def _cmd_hello(self, request: Mapping[str, Any]) -> HelloResult:
        return {
            "protocol": PROTOCOL_VERSION,
            "engine": "tacocat",
            "version": __version__,
            "rules": self.rules.to_dict(),
            "commands": list(COMMANDS),
            "errors": list(ERROR_CODES),
            "limits": {
                "max_games": self.max_games,
                "max_searches": self.max_searches,
                "max_queue": self.max_queue,
                "max_time_ms": self.max_time_ms,
                "max_games_per_client": self.max_games_per_client,
                "max_searches_per_client": self.max_searches_per_client,
                "max_equilibrium": self.equilibrium.limit,
                "max_equilibrium_mb": self.equilibrium.max_bytes // 1_000_000,
                "idle_game_s": self.idle_game_s,
                **self.transport_limits,
            },
            "bots": list(BOT_NAMES),
            "levels": {str(n): name for n, (name, _) in LEVELS.items()},
            "options": describe_options(),
            "running": {"games": len(self._games), "searches": self.searching},
        }

    def _cmd_set_rules(self, request: Mapping[str, Any]) -> dict:
        if self.shared:
            raise ProtocolError(
                "forbidden",
                "set_rules would change every client's defaults on a shared server; "
                "give rules in new_game (and in a view) instead",
                "rules",
            )
        rules = self._ruleset_of(request["rules"], "rules", "rules")
        with self._lock:  # this connection's default only: never stored, gone with the session
            self.rules = rules
        return {"rules": rules.to_dict()}

    def _cmd_new_game(self, request: Mapping[str, Any]) -> NewGameResult:
        engine = EngineSeat.read(request["engine"]) if "engine" in request else None
        if engine is not None and request.get("friend"):
            raise ProtocolError(
                "bad_field", "new_game: a friend or the engine plays the other seat, not both", "friend"
            )
        state = self._new_game_state(request)
        with self._lock:
            gid, tokens = self._open_game(state, engine)
            if engine is None and request.get("friend"):
                # Two people, each with a seat token: no owner token (it reads
                # the whole state) and no seed unless one was chosen (it
                # decides every deal), as against the engine.
                return {**self.status(gid, state), "seed": request.get("seed"), "tokens": {"seats": tokens["seats"]}}
            if engine is None:
                return {**self.status(gid, state), "seed": state.seed, "tokens": tokens}
            self._engines[gid] = engine
        return self._engine_opening(gid, engine, tokens, request.get("seed"))

    def _new_game_state(self, request: Mapping[str, Any]) -> GameState:
        """The game new_game starts: from one of a seed, a record, a state."""
        document = _game_document(request)
        if document is not None and "rules" in request:
            raise ProtocolError("bad_field", f"new_game: a {document} carries its own rules; drop 'rules'", "rules")
        if document == "record":
            return GameRecord.from_dict(request["record"]).replay()
        if document == "state":
            return GameState.from_dict(request["state"])
        rules = self._ruleset_of(request.get("rules"), "rules", "rules")
        return GameState.new(rules, request["seed"] if "seed" in request else secrets.randbits(31))

    def _open_game(self, state: GameState, engine: EngineSeat | None) -> tuple[str, dict[str, Any]]:
        """Give `state` an id and seat tokens and commit it (the caller's
        client makes room first); nothing kept if the commit fails.  Under
        the lock."""
        client = getattr(self._caller, "client", CONNECTION)
        self._make_room(client)
        gid = new_game_id()
        seats, tokens = Seats.deal()
        self._seats[gid] = seats
        self._meta[gid] = GameMeta(client, time.time())
        try:
            if engine is not None and self.store is not None:
                self.store.set_meta(f"engine/{gid}", engine.to_dict())
            self._commit(gid, state)
        except Exception:
            del self._seats[gid]
            del self._meta[gid]
            raise
        return gid, tokens

    def _engine_opening(self, gid: str, engine: EngineSeat, tokens: dict[str, Any], seed: Any) -> NewGameResult:
        """A new game against the engine: the engine's first turns, as a
        queued search whose answer is the game as the human seat sees it."""
        # The client holds the human seat's token only: no owner token (it
        # reads the whole state) and no seed unless it chose one (the seed
        # decides every deal).
        human = 1 - engine.seat
        shown: list[str | None] = [None, None]
        shown[human] = tokens["seats"][human]

        def opening(stop: threading.Event) -> NewGameResult:
            events = self._engine_turns(gid, stop)
            with self._lock:
                state = self._games[gid]
                return {
                    **self.status(gid, state),
                    "seed": seed,
                    "tokens": {"seats": shown},
                    "engine": engine.to_dict(),
                    "events": events,
                    "hand": list(state.hands[human]),
                }

        def undo() -> None:
            with self._lock:
                if gid in self._games:
                    self._forget(gid)

        return EngineReply(opening, undo)  # type: ignore[return-value]  # a search: its work answers

    def _engine_turns(self, gid: str, stop: threading.Event | None = None) -> list[dict]:
        """Let the engine seat of game `gid` act while it has a decision (a
        new game whose first decisions are the engine's), committed once;
        the events its actions caused, as the other (human) seat sees them."""
        with self._lock:
            base = self._games.get(gid)
        if base is None or gid not in self._engines:
            return []
        state = base.clone()
        events = self._engine_moves(gid, state, stop)
        with self._lock:
            acted = len(state.actions) > len(base.actions)  # a secret choice (R8, R9) shows no event
            if acted and self._games.get(gid) is base:  # else the game moved on (or ended) meanwhile
                self._commit(gid, state)
            return events if self._games.get(gid) is state else []

    def _engine_bot(self, gid: str) -> tuple[Any, threading.Lock]:
        """Game `gid`'s engine bot, made once and kept across its turns (its
        overrun memory and, for pimc_eq, the endgame it solved stay with
        it), and the lock that lets it think for one turn at a time."""
        from tacocat.players.bots import make_bot

        with self._lock:
            kept = self._engine_bots.get(gid)
            if kept is None:
                engine = self._engines[gid]
                # The server's cap binds the engine's seat as it binds move.
                bot = make_bot(engine.bot, **capped_budget(engine.budget, self.max_time_ms, bind=True))
                kept = self._engine_bots[gid] = (bot, threading.Lock())
            return kept

    _tables = threading.local()
    """Per thread, the perfect-information table the engine bots search
    with: tables of 16 MiB, one a thread that plays engine seats, not one a
    game (a bot's table only speeds it; its values are exact)."""

    def _engine_moves(self, gid: str, state: GameState, stop: threading.Event | None = None) -> list[dict]:
        """The engine seat's actions on `state` (a private copy, not yet
        committed) while it has a decision, chosen outside the session's
        lock from the engine seat's view alone (a `stop` makes each choice
        its best so far); the events they caused, as the other seat sees them."""
        from tacocat.search.budget import Budget
        from tacocat.search.pimc import PerfectSolver

        engine = self._engines[gid]
        seat, witness = engine.seat, 1 - engine.seat
        chooser, turn = self._engine_bot(gid)
        out: list[dict] = []
        with turn:
            for _ in range(MAX_ENGINE_TURNS):
                if state.over or state.decision(seat) is None:
                    break
                if hasattr(chooser, "solver"):
                    table = getattr(self._tables, "solver", None)
                    chooser.solver = table if table is not None else PerfectSolver()
                    self._tables.solver = chooser.solver
                chance = random.Random(f"{state.seed}/engine/{len(state.actions)}")
                action = chooser.choose(state.view(seat), chance, Budget(stop=stop))  # the seat's information set
                before = state.hands[witness]
                out += seat_events(state.apply(seat, action), witness, before, state.hands[witness])
        return out

    def _cmd_apply(self, request: Mapping[str, Any]) -> ApplyResult:
        try:
            action = Action.from_dict(request["action"])
        except RecordError as exc:
            raise ProtocolError("bad_field", f"apply: {exc}", "action") from None
        unknown = set(request["action"]) - {"kind", "cards", "beats"}
        if unknown:
            raise ProtocolError(
                "bad_field", f"apply: unknown action field(s) {sorted(unknown)}; expected kind, cards, beats", "action"
            )
        gid, player = request["game"], request["player"]
        with self._lock:
            # On a copy: whatever fails (an illegal action, the store) leaves
            # the game exactly as it was.
            base = self._game(request)
            state = base.clone()
            rounds = len(state.rounds)
            before = state.hands[player]
            events = seat_events(state.apply(player, action), player, before, state.hands[player])
            engine = gid in self._engines
            if not engine:
                self._commit(gid, state)

        def answer() -> ApplyResult:
            return {
                "game": gid,
                "player": player,
                "action": action_dict(action),  # as recorded
                "events": events,
                "hand": list(state.hands[player]),
                "round": state.rounds[-1] if len(state.rounds) > rounds else None,
                "status": self.status(gid, state),
            }

        if not engine:
            return answer()

        def reply(stop: threading.Event) -> ApplyResult:
            # The engine answers on the same copy, as a queued search: one
            # durable commit holds the action and the engine's reply (neither
            # is answered before it).
            events.extend(self._engine_moves(gid, state, stop))
            with self._lock:
                if self._games.get(gid) is not base:
                    self._game(request)  # a game ended meanwhile is refused as unknown
                    raise ProtocolError(
                        "illegal_action", f"game {gid} moved on while the engine thought; apply again", "game"
                    )
                self._commit(gid, state)
            return answer()

        return EngineReply(reply, lambda: None)  # type: ignore[return-value]  # nothing committed yet

    def _cmd_move(self, request: Mapping[str, Any]) -> Callable[[SearchSignal], dict]:
        return move_work(self, request)  # the time_ms cut is move_work's

    def _cmd_legal(self, request: Mapping[str, Any]) -> LegalResult:
        with self._lock:
            state = self._game(request)
            player = request["player"]
            return {
                "game": request["game"],
                "player": player,
                "decision": state.decision(player),
                "actions": [action_dict(a) for a in state.legal_actions(player)],
            }

    def _cmd_view(self, request: Mapping[str, Any]) -> dict:
        with self._lock:
            state = self._game(request)
            player = request["player"]
            out = {"game": request["game"], "view": state.view(player).to_dict()}
            if "since" in request:
                # The events of the actions from number `since` on, as this
                # seat saw them: what a page missed while the other seat acted.
                feed = self._feeds.setdefault(request["game"], GameFeed(len(state.actions)))
                since, actions = request["since"], len(state.actions)
                if since > actions:
                    raise ProtocolError("bad_field", f"view: since is {since}; the game has {actions} actions", "since")
                since = max(since, feed.first)  # the feed starts where the game opened in this session
                events = [e for seen in feed.actions[since - feed.first :] for e in seen[player]]
                out.update(since=since, actions=actions, events=events)
            return out

    def _cmd_state(self, request: Mapping[str, Any]) -> dict:
        with self._lock:
            state = self._game(request)
            return {"game": request["game"], "state": state.to_dict(), "status": self.status(request["game"], state)}

    def _cmd_record(self, request: Mapping[str, Any]) -> dict:
        with self._lock:
            state = self._game(request, seats_when_over=True)
            return {
                "game": request["game"],
                "record": state.record().to_dict(),
                "status": self.status(request["game"], state),
            }

    def _cmd_games(self, request: Mapping[str, Any]) -> dict:
        tokens = request.get("tokens", [])
        if len(tokens) > MAX_LISTED or not all(isinstance(t, str) for t in tokens):
            raise ProtocolError(
                "bad_field", f"games: 'tokens' must be a list of at most {MAX_LISTED} strings", "tokens"
            )
        wanted = {_hash(t) for t in tokens}
        with self._lock:
            mine = [gid for gid, seats in self._seats.items() if wanted.intersection(seats.hashes())]
            return {"games": [self.status(gid, self._games[gid]) for gid in mine], "open": len(self._games)}

    def _cmd_end_game(self, request: Mapping[str, Any]) -> dict:
        with self._lock:
            self._game(request, human_owns=True)
            self._forget(request["game"])
            return {"game": request["game"], "ended": True}

    def _hint_view(self, request: Mapping[str, Any]) -> View:
        """The view a hint searches: given, or a seat's of a game now."""
        if "view" in request:
            for key in ("game", "player"):
                if key in request:
                    raise ProtocolError(
                        "bad_field", f"hint takes either view, or game and player; got view and {key}", key
                    )
            return self._view_of(request)
        if "game" not in request:
            raise ProtocolError("missing_field", "hint needs 'view', or 'game' and 'player'", "view")
        if "player" not in request:
            raise ProtocolError("missing_field", "hint from a game needs 'player' (0 or 1)", "player")
        with self._lock:
            return self._game(request).view(request["player"])  # a snapshot: the game may go on

    @staticmethod
    def _hint_options(request: Mapping[str, Any]) -> dict[str, Any]:
        """The search options a hint passes on beyond its budget, each only
        when it is not its default (stand-in searches need not know them).
        The command table checked each one's type and choices."""
        kw: dict[str, Any] = {}
        if request.get("score", "game") != "game":
            kw["utilities"] = request["score"]
        inference = request.get("inference")
        if inference is not None:  # a bad model is refused before it takes a search slot
            from tacocat.search.inference import check_inference

            kw["inference"] = check_inference(inference)
        if request.get("round_search", False):
            kw["round_search"] = True
        for name, default in (("duel", "matrix"), ("replace", "static")):
            if request.get(name, default) != default:
                kw[name] = request[name]
        return kw

    def _cmd_hint(self, request: Mapping[str, Any]) -> Callable[[threading.Event], dict]:
        view = self._hint_view(request)
        if view.decision is None:
            raise ProtocolError(
                "bad_field",
                f"player {view.player} has no decision to make (phase {view.phase}, acting {view.acting})",
                "player",
            )
        time_ms, iterations = self._budget(request)
        seed, method = request.get("seed", 0), request.get("method", "auto")
        if method == Method.EQUILIBRIUM and time_ms is None and view.decision in PLAY_DECISIONS:
            time_ms = self.max_time_ms  # the solve plans for the cap rather than being cut by it
        score, top = request.get("score", "game"), request.get("top")
        round_search = request.get("round_search", False)  # a boolean: the command table checked it
        if method == ENDGAME_METHOD:
            if view.decision not in PLAY_DECISIONS:
                raise ProtocolError(
                    "bad_field",
                    f"method endgame solves the play phase (R10-R16); player {view.player} must {view.decision} now",
                    "method",
                )
            for key in ("time_ms", "iterations"):
                if key in request:
                    raise ProtocolError("bad_field", f"method endgame is exact and takes no {key}", key)

            def exact_endgame(stop: threading.Event) -> dict:
                from tacocat.search.endgame import solve_endgame

                result = solve_endgame(view, utilities=score).to_dict()
                return _top(said_round_search(result, view.decision) if round_search else result, top)

            return exact_endgame
        kw = self._hint_options(request)
        hint_fn = self._hint_fn

        def one(stop: threading.Event, *, time_ms=time_ms, iterations=iterations, seed=seed) -> dict:
            result = hint_fn(view, iterations=iterations, time_ms=time_ms, seed=seed, method=method, stop=stop, **kw)
            return finite(result.to_dict() if hasattr(result, "to_dict") else dict(result))

        def work(stop: threading.Event) -> dict:
            # A replacement is not sliced: its sequential halving needs its
            # whole budget at once.
            if (
                isinstance(stop, SearchSignal)
                and stop.info_ms is not None
                and (time_ms or iterations)
                and view.decision != "replace"
            ):
                result = sliced_search(
                    lambda **b: one(stop, **b), time_ms=time_ms, iterations=iterations, seed=seed, signal=stop
                )
            else:
                result = one(stop)
            return _top(said_round_search(result, view.decision) if round_search else result, top)

        if method != "equilibrium":
            return work

        def one_of_few(stop: threading.Event) -> dict:
            # at most `max_equilibrium` of these at once, each under its memory cap
            with self.equilibrium.slot():
                return work(stop)

        return one_of_few

    def _cmd_solve(self, request: Mapping[str, Any]) -> Callable[[threading.Event], dict]:
        if request.get("mode") == "equilibrium":
            return self._solve_equilibrium(request)
        if "position" not in request:
            raise ProtocolError(
                "missing_field", "solve needs 'position' (or mode \"equilibrium\" and 'view')", "position"
            )
        solve_fn = self._solve_fn
        if solve_fn is not None:  # a stand-in
            position = dict(request["position"])
            return lambda stop: solve_fn(position, stop)
        from tacocat.core.exact import position_from_dict, result_to_dict, solve

        # Validate now (RULES R1, R10-R11, R16): a bad position never takes a
        # search slot.  The exact solve is fast (milliseconds for nine-card
        # hands) and has no stop: it always runs to the end.
        given = request["position"]
        if isinstance(given, Mapping):  # its rules read as every request's are
            rules = self._ruleset_of(given.get("rules"), "position rules", "position")
            given = {k: v for k, v in given.items() if k != "rules"}
        else:
            rules = self.rules
        play, utilities = position_from_dict(given, rules)

        def work(stop: threading.Event) -> dict:
            solver = self._take_solver()
            try:
                return result_to_dict(solve(play, utilities, tt=solver))
            finally:
                self._give_solver(solver)

        return work

    def _solve_equilibrium(self, request: Mapping[str, Any]) -> Callable[[threading.Event], dict]:
        """The hidden-hand endgame of a view (tacocat.search.equilibrium), validated before it takes a slot."""
        from tacocat.search.equilibrium import DEFAULT_TARGET, endgame_from_view, report, solve

        if "view" not in request:
            raise ProtocolError("missing_field", "an equilibrium solve needs 'view'", "view")
        view = self._view_of(request)
        endgame = endgame_from_view(view)
        endgame.check()
        target = request.get("exploitability", DEFAULT_TARGET)
        time_ms, _ = self._budget(request)
        time_ms = time_ms if time_ms is not None else self.max_time_ms  # plan for the cap, not be cut by it

        def work(stop: threading.Event) -> dict:
            with self.equilibrium.slot():
                r = solve(endgame, target=target, time_ms=time_ms, stop=stop, hand_of=(view.player, view.hand))
                return report(r, view.player, view.hand, (1.0, 0.0, -1.0))

        return work

    def _take_solver(self):
        """A solver (and its 16 MB table) from the session's pool: at most
        one per concurrent search, however many threads a transport uses."""
        with self._lock:
            if self._solvers:
                return self._solvers.pop()
        from tacocat.core.exact import Solver

        return Solver(16, keep_tt=False)

    def _give_solver(self, solver) -> None:
        with self._lock:
            if len(self._solvers) < self.max_searches:
                self._solvers.append(solver)

    def _cmd_stop(self, request: Mapping[str, Any]) -> StopResult:
        tokens = list(request.get("tokens", []))
        if len(tokens) > MAX_LISTED or not all(isinstance(t, str) for t in tokens):
            raise ProtocolError("bad_field", f"stop: 'tokens' must be a list of at most {MAX_LISTED} strings", "tokens")
        if "token" in request:
            tokens.append(request["token"])
        hashes = {_hash(t) for t in tokens}
        if not self.shared or (self._admin is not None and self._admin in hashes):
            # A private session has one client, whose every search it is; the admin owns the server.
            return {"stopped": self.stop_searches(request.get("target"))}
        return {"stopped": self.stop_searches(request.get("target"), set(hashes))}

    def _cmd_quit(self, request: Mapping[str, Any]) -> dict:
        if not self.quit_ends_session:
            return {"bye": True, "stopped": 0}
        self.closed = True
        return {"bye": True, "stopped": self.stop_searches()}
