"""The command table (docs/protocol.md, "Commands"): every command of the
protocol described once — its fields, their JSON types and bounds, which
are required, whether it is a search.  Validation, `hello`, the OpenAPI
document and the docs all read `COMMANDS`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from tacocat.errors import shorten as _short
from tacocat.protocol.moves import BOT_NAMES, LEVELS
from tacocat.protocol.wire import INT_LIMIT, ProtocolError
from tacocat.search.options import OPTIONS, TYPE_NAMES


@dataclass(frozen=True)
class Field:
    name: str
    types: tuple[str, ...]
    """JSON types accepted: integer, number, string, boolean, object, array, null."""
    required: bool = False
    doc: str = ""
    minimum: int | None = None
    enum: tuple[Any, ...] | None = None
    maximum: int | None = None
    """Integers: the largest accepted (`INT_LIMIT` when unset)."""

    @classmethod
    def of(
        cls,
        name: str,
        doc: str | None = None,
        *,
        field: str | None = None,
        types: tuple[str, ...] | None = None,
        maximum: int | None = None,
    ) -> "Field":
        """The field of a declared search option (`tacocat.search.options.OPTIONS`):
        its JSON type, bounds, choices and help from the declaration; a
        door may name it otherwise (`field`: "score" for utilities), say
        more of what it means there (`doc`), narrow its types (time in
        whole milliseconds) or its maximum (`maximum`: the server's own)."""
        opt = OPTIONS[name]
        lo = None if opt.minimum is None else int(opt.minimum) + (1 if opt.above else 0)
        hi = maximum if maximum is not None else (None if opt.maximum is None else int(opt.maximum))
        return cls(
            field or name,
            types or (TYPE_NAMES[opt.type],),
            False,
            doc or opt.help,
            minimum=lo,
            enum=opt.choices,
            maximum=hi,
        )


@dataclass(frozen=True)
class Command:
    name: str
    doc: str
    fields: tuple[Field, ...] = ()
    search: bool = False
    """Searches run on a worker thread and can be stopped."""
    example: dict[str, Any] = field(default_factory=dict)


# The hint methods, checked when the request arrives: a bad method never
# takes a search slot.  (Light to import: the searches load on first use.)
from tacocat.search.hint import METHODS as HINT_METHODS  # noqa: E402  (light: the searches load on first use)

ENDGAME_METHOD = "endgame"
"""hint's extra method: the exact endgame of `tacocat.search.endgame`
(`tacocat solve --hand`), with representative lines of play."""
DEFAULT_MAX_QUEUE = 8
"""Searches that may wait behind the running ones (then `busy`)."""
MAX_TIME_MS = 3_600_000
MAX_ITERATIONS = 10**9
MAX_GAMES = 100_000
MAX_SEARCHES = 64
MAX_BYTES = 1 << 30
"""The largest server limits `tacocat engine` and `tacocat serve` accept
(--max-games, --max-searches, --max-line/--max-body; --max-time-ms is
MAX_TIME_MS)."""

_GAME = Field("game", ("string",), True, "A game id returned by new_game.")
_PLAYER = Field("player", ("integer",), True, "0 or 1.", enum=(0, 1))
_SEAT_TOKEN = Field(
    "token", ("string",), True, "The token of this player's seat, or the game's owner token (new_game)."
)
_OWNER_TOKEN = Field("token", ("string",), True, "The game's owner token (new_game).")


def _budget(time_doc: str, iterations_doc: str, seed_doc: str) -> tuple[Field, ...]:
    """A search request's budget fields (whole milliseconds, at most
    `MAX_TIME_MS`; at most `MAX_ITERATIONS`), in the words of its command."""
    return (
        Field.of("time_ms", time_doc, types=("integer",), maximum=MAX_TIME_MS),
        Field.of("iterations", iterations_doc, maximum=MAX_ITERATIONS),
        Field.of("seed", seed_doc),
    )


_BUDGET = _budget(
    "Search time budget in milliseconds (capped by the server's limit).",
    "Search iteration budget.",
    "Seed of the search's sampler (default 0): equal requests give equal answers.",
)
_INFERENCE = Field.of(
    "inference",
    'How the search weights the opponent\'s possible hands by its choices this round: "off" (default: '
    'R20 alone), "uniform", or "policy[:T]" (tacocat.search.inference; the answer names the model it used).',
)
_ROUND_SEARCH = Field.of(
    "round_search",
    "Search the replace and duel decisions as one round (default false): the opponent's reply drawn from "
    "its model and the duel's cells searched over what the duel revealed (tacocat.search.decisions); about 8x the "
    "cost of a replace decision. A hint's answer says round_search 1 when it ran (a replace or duel decision), "
    "0 when the decision has none; a move's budget holds round_search 1.",
)
_DUEL = Field.of(
    "duel",
    'The duel\'s search: "matrix" (default: one matrix game over the sampled hands) or "bayes" (a Bayesian game: '
    "each hand of either player its own card; the answer's subgame says its types, iterations and exploitability).",
)
_INFO = Field(
    "info_ms",
    ("integer",),
    False,
    "Send an info message about every this many milliseconds while the "
    'search runs (docs/protocol.md, "Live search info").',
    minimum=20,
)
_REPLACE = Field.of(
    "replace",
    'The replacement\'s search: "static" (default: my discards against a fixed reply) or "game" (solved as a '
    "game with the opponent's reply a strategy of its own; the answer's subgame says its hands, size, "
    "iterations and exploitability).",
)
_SEARCH_OPTIONS = (_INFERENCE, _ROUND_SEARCH, _DUEL, _REPLACE, _INFO)
"""What `move` and `hint` take beyond the budget: the opponent model, the round search and live info."""

COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "hello",
            "Protocol and engine versions, the session's ruleset, the commands and limits.",
            example={"cmd": "hello"},
        ),
        Command(
            "set_rules",
            "Set this connection's default ruleset: its games started later and views without `rules` use it. "
            "JSON Lines only (one client a session); a shared server (HTTP) refuses it: give `rules` in new_game.",
            (Field("rules", ("object", "string"), True, 'A ruleset object (RULES section 8) or "standard".'),),
            example={"cmd": "set_rules", "rules": {"board": [4, 6, 8, 7, 8, 6, 4], "tie": "arrow"}},
        ),
        Command(
            "new_game",
            "Start a game from a seed (the cat on the centre, the first round dealt), or resume one from a "
            "game record or state document. Returns the game id and its secret tokens: one per seat and the owner's.",
            (
                Field(
                    "seed",
                    ("integer",),
                    False,
                    "The deal seed; a random one when absent (returned in the result).",
                    minimum=-INT_LIMIT,
                ),
                Field("rules", ("object", "string"), False, "This game's ruleset; the session's by default."),
                Field("record", ("object",), False, 'A game record ({"format": "tacocat-record", ...}) to replay.'),
                Field("state", ("object",), False, 'A game state document ({"format": "tacocat-state", ...}).'),
                Field(
                    "engine",
                    ("object",),
                    False,
                    'The server plays one seat: {"seat": 1, "level": 3} or {"seat": 1, '
                    '"bot": "pimc", "time_ms": 100} (docs/protocol.md, "Playing the engine"). Only the other '
                    "seat's token is returned, and the engine moves as soon as it must act.",
                ),
                Field(
                    "friend",
                    ("boolean",),
                    False,
                    'Two people play (docs/protocol.md, "Playing a friend"): both seat tokens are returned, '
                    "no owner token, and no seed unless one was given.",
                ),
            ),
            example={"cmd": "new_game", "seed": 42},
        ),
        Command(
            "apply",
            "Apply one player's action. An illegal action is refused and leaves the game unchanged.",
            (
                _GAME,
                _PLAYER,
                _SEAT_TOKEN,
                Field("action", ("object",), True, 'An action: {"kind", "cards", "beats" (answers)}.'),
            ),
            example={
                "cmd": "apply",
                "game": "g1",
                "player": 0,
                "token": "<seat 0 token>",
                "action": {"kind": "replace", "cards": [1, 12]},
            },
        ),
        Command(
            "move",
            "The engine chooses a seat's action with a bot (by name and budget, or by strength level) and applies "
            "it unless apply is false; returns the action and the events it caused.",
            (
                _GAME,
                _PLAYER,
                _SEAT_TOKEN,
                Field("bot", ("string",), False, 'The bot (default "pimc").', enum=BOT_NAMES),
                Field(
                    "level",
                    ("integer",),
                    False,
                    f"A strength level instead of bot and budget: 1 (random) .. {max(LEVELS)} "
                    "(docs/protocol.md, results/levels.md).",
                    enum=tuple(LEVELS),
                ),
                *_budget(
                    "The bot's time budget per decision (capped by the server's limit).",
                    "The bot's sample (pimc) or iteration (ismcts) budget.",
                    "Seed of the bot's random choices (a random one when absent; returned in the result).",
                ),
                Field("apply", ("boolean",), False, "Apply the chosen action (default true)."),
                *_SEARCH_OPTIONS,
            ),
            search=True,
            example={"cmd": "move", "game": "g1", "player": 1, "token": "<seat 1 token>", "level": 3},
        ),
        Command(
            "legal",
            "Every legal action of a player now (empty when it is not their turn).",
            (_GAME, _PLAYER, _SEAT_TOKEN),
            example={"cmd": "legal", "game": "g1", "player": 0, "token": "<seat 0 token>"},
        ),
        Command(
            "view",
            "A player's view of a game: what they know (RULES section 5); with `since`, also the events "
            "of the actions from that one on, as this seat saw them (a page following the other seat).",
            (
                _GAME,
                _PLAYER,
                _SEAT_TOKEN,
                Field(
                    "since",
                    ("integer",),
                    False,
                    "An action count (a status's `actions`): the answer adds `events` of the actions from "
                    "this one on, `actions` (the count now) and `since` (where the events start).",
                    minimum=0,
                ),
            ),
            example={"cmd": "view", "game": "g1", "player": 1, "token": "<seat 1 token>"},
        ),
        Command(
            "state",
            "The whole game state, hidden cards included (owner only).",
            (_GAME, _OWNER_TOKEN),
            example={"cmd": "state", "game": "g1", "token": "<owner token>"},
        ),
        Command(
            "record",
            "The game record: ruleset, seed and every action; replays to the same state. "
            "Owner only while the game runs (the seed decides every deal); any seat once it is over.",
            (_GAME, Field("token", ("string",), True, "The owner token; a seat token once the game is over.")),
            example={"cmd": "record", "game": "g1", "token": "<owner token>"},
        ),
        Command(
            "games",
            "The status of the games the given tokens open, and how many games are open.",
            (Field("tokens", ("array",), False, "Tokens (owner or seat) of the games to list."),),
            example={"cmd": "games", "tokens": ["<owner token>"]},
        ),
        Command(
            "end_game",
            "Forget a game (frees its slot; owner only).",
            (_GAME, _OWNER_TOKEN),
            example={"cmd": "end_game", "game": "g1", "token": "<owner token>"},
        ),
        Command(
            "hint",
            "Ranked moves with win/draw/loss odds for a player's view (same shapes as `tacocat hint --json`). "
            "Give `view`, or `game` and `player` to hint from a game in progress.",
            (
                Field(
                    "view",
                    ("object",),
                    False,
                    "A view: player, hand, seen, opponent_hand_size, attacker, table, "
                    "optional rules (or a full view from the view command).",
                ),
                Field("game", ("string",), False, "Hint for this game (with player and token) instead of a view."),
                Field("player", ("integer",), False, "With game: whose view.", enum=(0, 1)),
                Field(
                    "token",
                    ("string",),
                    False,
                    "With game: the token of the player's seat (or the owner's). "
                    "With view: any secret of yours; only a stop that sends it ends this search (docs/protocol.md, "
                    '"Stopping a search").',
                ),
                *_BUDGET,
                Field(
                    "method",
                    ("string",),
                    False,
                    'Search method (default "auto"); "endgame": the exact endgame with lines of play (play phase).',
                    enum=(*HINT_METHODS, ENDGAME_METHOD),
                ),
                Field("top", ("integer",), False, "Return only the best N moves.", minimum=1),
                Field.of(
                    "utilities", 'Score a move by the "game" it leads to (default) or the "round" alone.', field="score"
                ),
                *_SEARCH_OPTIONS,
            ),
            search=True,
            example={"cmd": "hint", "game": "g1", "player": 0, "token": "<seat 0 token>", "time_ms": 200},
        ),
        Command(
            "solve",
            "Solve a play-phase position with every card known, exactly (same shapes as `tacocat solve --json`); "
            'or, with mode "equilibrium", the endgame of a view with hidden hands (the shape of '
            "`tacocat solve --equilibrium --json`).",
            (
                Field(
                    "position",
                    ("object",),
                    False,
                    'A position: {"hands": [[...], [...]], "attacker", "table", '
                    'optional "utilities" and "rules"} (required unless mode is "equilibrium").',
                ),
                Field(
                    "mode",
                    ("string",),
                    False,
                    '"perfect" (every card known, default) or "equilibrium".',
                    enum=("perfect", "equilibrium"),
                ),
                Field(
                    "view",
                    ("object",),
                    False,
                    'mode "equilibrium": the view (as for hint; its history, if any, gives each hand\'s floor, R20).',
                ),
                Field(
                    "exploitability",
                    ("number",),
                    False,
                    'mode "equilibrium": stop at this exploitability (default 0.001).',
                ),
                Field("time_ms", ("integer",), False, 'mode "equilibrium": time budget in milliseconds.', minimum=1),
                Field("token", ("string",), False, "Any secret of yours: only a stop that sends it ends this search."),
            ),
            search=True,
            example={"cmd": "solve", "position": {"hands": [[2, 5, 9], [3, 8, 11]], "attacker": 0, "table": []}},
        ),
        Command(
            "stop",
            "End your running searches early: they answer with their best result so far. A search is yours when "
            "its request carried one of the tokens you send (a game's seat or owner token, or the secret you gave a "
            "view hint or a solve); over JSON Lines every search of the connection is yours. The server's admin "
            "token stops every search.",
            (
                Field(
                    "target",
                    ("string", "integer"),
                    False,
                    "The id of the search request to stop; all of yours when absent.",
                ),
                Field("token", ("string",), False, "A token your searches carry."),
                Field("tokens", ("array",), False, f"Several tokens your searches carry (at most {100})."),
            ),
            example={"cmd": "stop"},
        ),
        Command(
            "quit",
            "End the session (JSON Lines: the engine stops its searches, answers them, then exits).",
            example={"cmd": "quit"},
        ),
    )
}

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}

ENVELOPE_FIELDS = ("id", "cmd")


def _check_fields(cmd: Command, request: Mapping[str, Any]) -> None:
    """Raise ProtocolError unless `request` fits `cmd`'s fields."""
    known = {f.name for f in cmd.fields} | set(ENVELOPE_FIELDS)
    unknown = sorted(k for k in request if k not in known)
    if unknown:
        expected = ", ".join(f.name for f in cmd.fields) or "no fields"
        raise ProtocolError(
            "bad_field",
            f"{cmd.name}: unknown field(s) {', '.join(map(repr, unknown))}; expected {expected}",
            unknown[0],
        )
    for f in cmd.fields:
        if f.name in request:
            _check_value(cmd.name, f, request[f.name])
        elif f.required:
            raise ProtocolError("missing_field", f"{cmd.name} needs the field {f.name!r}: {f.doc}", f.name)


def _check_value(cmd: str, f: Field, value: Any) -> None:
    """Raise ProtocolError unless `value` is of field `f`'s types, among its
    choices and, a whole number, within its bounds."""
    if not any(_JSON_TYPES[t](value) for t in f.types):
        types = " or ".join(f.types)
        raise ProtocolError("bad_field", f"{cmd}: {f.name!r} must be {types}, got {_short(value)}", f.name)
    if f.enum is not None and value not in f.enum:
        raise ProtocolError(
            "bad_field",
            f"{cmd}: {f.name!r} must be one of {', '.join(map(str, f.enum))}, got {_short(value)}",
            f.name,
        )
    if isinstance(value, int) and not isinstance(value, bool):
        lo = -INT_LIMIT if f.minimum is None else f.minimum
        hi = INT_LIMIT if f.maximum is None else f.maximum
        if not lo <= value <= hi:
            raise ProtocolError(
                "bad_field", f"{cmd}: {f.name!r} must be an integer {lo}..{hi}, got {_short(value)}", f.name
            )
