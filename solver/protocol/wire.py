"""The protocol's wire format (docs/protocol.md, "Requests and responses"):
the message shapes, the error codes, reading a request and writing an
answer.  Free of games and searches: the Python client and both transports
depend on it, and importing it loads nothing else of the engine."""

from __future__ import annotations

import json
import logging
import math
from typing import TYPE_CHECKING, Any, Iterable, Literal, NotRequired, TypedDict, cast

from tacocat.rules.files import TooDeep, loads_json

if TYPE_CHECKING:  # pragma: no cover
    from tacocat.rules.actions import Action

log = logging.getLogger("tacocat.engine")

PROTOCOL_VERSION = "3.2"
"""Bumped whenever a message shape changes (docs/protocol.md, "Versions")."""


ERROR_CODES: dict[str, str] = {
    "bad_json": "the request is not one JSON object (or the line or body is too large)",
    "unknown_command": "`cmd` names no command of this protocol version",
    "missing_field": "a required field is absent",
    "bad_field": "a field has the wrong type or value, an unknown field, or an unknown game id",
    "illegal_action": "the action is not legal at this decision (the game is unchanged)",
    "impossible_position": "a view or position no game can produce (e.g. more cards of a rank than the deck holds)",
    "bad_ruleset": "a ruleset that cannot be played (RULES section 8)",
    "bad_record": "a malformed game record, game state, view or position",
    "forbidden": "the token does not open this game, this seat or this command (docs/protocol.md, Seats)",
    "busy": "a limit is reached: the search queue is full, too many games are open, or the game store cannot be "
    "written; try again later",
    "internal": "a bug in the engine; the message says what failed and the session keeps serving",
}
"""Every error code the protocol uses, with what it means.  Stable: a
frontend may switch on them."""

# TacocatError.code values that are not protocol codes map onto one.
_ERROR_CODE_OF = {"bad_notation": "bad_field", "invalid": "bad_field"}


class ProtocolError(Exception):
    """A request the session refuses; becomes an error response."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        if code not in ERROR_CODES:  # a bug in this module, not user input
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


# --------------------------------------------------------------------------
# Message shapes.  These TypedDicts are the documentation of record for
# type checkers; `COMMANDS` below is what validation actually reads.


class ErrorInfo(TypedDict):
    code: str
    """One of ERROR_CODES."""
    message: str
    """One line naming the problem (and the rule, for rule errors)."""
    field: NotRequired[str]
    """The request field at fault, when there is one."""


class Response(TypedDict):
    id: Any
    """The request's `id`, echoed (null when the request had none or could
    not be read)."""
    ok: bool
    cmd: NotRequired[str]
    """The command answered (absent when the request could not be read)."""
    result: NotRequired[dict[str, Any]]
    """When ok: the command's result."""
    error: NotRequired[ErrorInfo]
    """When not ok."""
    stopped: NotRequired[bool]
    """Searches only: true when `stop` (or the server's time cap) ended the
    search early and `result` is its best answer so far."""


class InfoMessage(TypedDict):
    """A running search's progress (`info_ms`): sent before its response."""

    id: Any
    cmd: str
    info: dict[str, Any]


Message = Response | InfoMessage
"""What a transport sends: a response, or a search's info message."""


class Request(TypedDict, total=False):
    id: Any
    cmd: str


class ActionDict(TypedDict):
    kind: Literal["replace", "duel", "attack", "answer"]
    cards: list[int]
    beats: NotRequired[bool]


class GameStatus(TypedDict):
    """Public summary of a game, part of several results."""

    game: str
    phase: str
    acting: list[int]
    over: bool
    winner: int | None
    board: dict[str, Any]
    deals: int
    rounds: int
    actions: int


class HelloResult(TypedDict):
    protocol: str
    engine: str
    version: str
    rules: dict[str, Any]
    commands: list[str]
    errors: list[str]
    limits: dict[str, Any]
    bots: list[str]
    """The bots `move` offers a seat (they choose from its view alone)."""
    levels: dict[str, str]
    options: list[dict[str, Any]]
    """Every search option with its type, bounds, default and help (`tacocat.search.options.OPTIONS`)."""
    running: dict[str, int]
    """Games open and searches running now."""


class NewGameResult(GameStatus):
    seed: int | None
    """Null in a game against the engine whose seed nobody chose (it decides every deal)."""
    tokens: dict[str, Any]
    engine: NotRequired[dict[str, Any]]
    events: NotRequired[list[dict[str, Any]]]
    """Against the engine: its first actions, as the human seat sees them."""
    hand: NotRequired[list[int]]


class ApplyResult(TypedDict):
    game: str
    player: int
    action: ActionDict
    events: list[dict[str, Any]]
    """The events it caused (and the engine's answer), as this seat sees them."""
    hand: list[int]
    round: dict[str, Any] | None
    """The round summary when this action finished a round, else null."""
    status: GameStatus


class LegalResult(TypedDict):
    game: str
    player: int
    decision: str | None
    actions: list[ActionDict]


class StopResult(TypedDict):
    stopped: int


INT_LIMIT = 2**63 - 1
"""No integer field accepts more (nor less than -INT_LIMIT): a 400-digit
number is refused when it arrives, not deep inside a search."""

MAX_DEPTH = 32
"""The deepest nesting of lists and objects a request may have (a game
record or state document needs 5)."""
MAX_ID_LENGTH = 256


def _too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests lists/objects deeper than `limit` (iterative:
    a deep document cannot overflow the stack here)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        items: Iterable[Any]
        if isinstance(v, dict):
            items = v.values()
        elif isinstance(v, list):
            items = v
        else:
            continue
        if depth > limit:
            return True
        stack.extend((x, depth + 1) for x in items if isinstance(x, (dict, list)))
    return False


def _echoable(rid: Any) -> Any:
    """The id to answer with: as sent, even a malformed one (its error names
    the field), unless JSON cannot carry it back as it came — Infinity (sent
    as 1e400), a huge or deeply nested value — then null."""
    if rid is None or isinstance(rid, (bool, str, int, float)) and _valid_id(rid):
        return rid
    if isinstance(rid, bool):
        return rid
    try:
        text = json.dumps(rid, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return rid if len(text) <= MAX_ID_LENGTH and not _too_deep(rid, 4) else None


def _valid_id(rid: Any) -> bool:
    if isinstance(rid, bool) or rid is None:
        return rid is None
    if isinstance(rid, str):
        return len(rid) <= MAX_ID_LENGTH
    if isinstance(rid, int):
        return -INT_LIMIT <= rid <= INT_LIMIT
    return isinstance(rid, float) and math.isfinite(rid)


# --------------------------------------------------------------------------
# Answers.


def action_dict(action: Action) -> ActionDict:
    """An action as the protocol sends it: `Action.to_dict` gives exactly
    these keys (beats for an answer only), typed loosely as a plain dict."""
    return cast(ActionDict, action.to_dict())


def _ok(request_id: Any, cmd: str, result: dict) -> Response:
    return {"id": request_id, "ok": True, "cmd": cmd, "result": result}


def error_response(
    request_id: Any, code: str, message: str, cmd: str | None = None, field: str | None = None
) -> Response:
    """An error response (for transports that fail before a session sees
    the request, e.g. a line that is not JSON)."""
    err: ErrorInfo = {"code": code, "message": message}
    if field is not None:
        err["field"] = field
    response: Response = {"id": request_id, "ok": False}
    if cmd is not None:
        response["cmd"] = cmd
    response["error"] = err
    return response


def decode_request(data: bytes | str) -> tuple[Any, Response | None]:
    """The request in one line or body, or the `bad_json` response for it
    (not JSON, NaN/Infinity, nested too deeply, not UTF-8)."""
    try:
        return loads_json(data), None
    except TooDeep:
        return None, error_response(None, "bad_json", "request nested too deeply to read")
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, our constants
        return None, error_response(None, "bad_json", f"not a JSON object: {exc}")


def encode_response(response: Message) -> str:
    """A response (or an info message) as one line of strict JSON.  A result that is not plain
    JSON (a bug) becomes an `internal` error instead of a broken line."""
    try:
        return json.dumps(response, allow_nan=False)
    except (TypeError, ValueError) as exc:
        log.error("cannot encode the answer to %r: %s", response.get("cmd"), exc)
        rid = response.get("id")
        if not isinstance(rid, (str, int, type(None))):
            rid = None
        return json.dumps(error_response(rid, "internal", f"answer not encodable as JSON: {exc}", response.get("cmd")))
