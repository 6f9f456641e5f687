"""The `move` command (the engine plays a seat) and the events an action
caused, as one seat sees them (docs/protocol.md, `move` and `apply`).

`move` asks a bot of `tacocat.players.bots` for a seat's action — by name
(`"bot": "pimc"`, with an optional `time_ms` / `iterations` budget) or by a
strength `level` (`LEVELS`, calibrated in results/levels.md) — and applies
it unless `"apply": false`.  The bot sees only that seat's view: `move`
hands it `state.view(player)` and nothing else, and offers only the bots
that choose from a view (`SEAT_BOTS`); the oracle, which reads the
opponent's hand, is refused here (it plays in arena and selfplay, where no
seat is hidden).  A simultaneous decision (R8 two-arrow replacement, R9
duel) is drawn by the bot from its own strategy — the search bots draw the
duel card from the optimal mixed strategy — with `random.Random(seed)`;
the response reports the seed, so the same position and seed give the
same move again (time budgets aside)."""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from tacocat.players.bots import BOTS, SEAT_BOTS, searches
from tacocat.protocol.streaming import SearchSignal, ticker
from tacocat.protocol.wire import ActionDict, ProtocolError, action_dict
from tacocat.rules.actions import Action
from tacocat.rules.events import DealEvent, Decision, Event, ReplaceEvent
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import Arrow
from tacocat.rules.views import View
from tacocat.search.options import check_options

if TYPE_CHECKING:  # pragma: no cover
    from tacocat.protocol.session import EngineSession

BOT_NAMES = SEAT_BOTS
"""The bots `move` can play: those that choose from the seat's view alone
(`tacocat.players.bots.SEAT_BOTS`).  `hello` lists them."""
HIDDEN_READERS = tuple(name for name in BOTS if name not in SEAT_BOTS)
"""Bots that read cards no seat may see (the oracle): never offered to a seat."""

LEVELS: dict[int, tuple[str, dict[str, Any]]] = {
    1: ("random", {}),
    2: ("heuristic", {}),
    3: ("pimc", {"samples": 1, "replace_samples": 8, "duel_samples": 2, "candidates": 4}),
    4: ("pimc", {"samples": 6, "replace_samples": 24, "duel_samples": 6, "candidates": 8}),
    5: ("pimc", {"samples": 25, "replace_samples": 80, "duel_samples": 12, "candidates": 12}),
}
"""Strength levels, weakest first: a bot and its budget.  Budgets are
counts, not times, so a level plays the same on a fast or a loaded
machine.  results/levels.md measures each level against the one below;
there is no level 6 because more samples than level 5's bought no strength
that 160 duplicate deals could measure (the same file: PIMC with 100
samples against level 5, and with 300 against 100).  Those bots remain available by name
(`"bot": "pimc"`, with `iterations` or `time_ms`)."""

for _level, (_bot, _budget) in LEVELS.items():
    check_options(_budget, f"level {_level}")  # a level's budget is read from the one declaration, like any other

DEFAULT_BOT = "pimc"


def resolve_bot(request: Mapping[str, Any]) -> tuple[str, dict[str, Any], int | None]:
    """(bot name, budget, level) of a move request; raises ProtocolError.
    The request has passed the command table (`_check_fields`): `move_work`
    checks it against `move`'s fields, `EngineSeat.read` against the few a
    new_game's `engine` takes (no round_search), so each field here has its
    type and only the facts the table cannot see are read."""
    if "level" in request and "bot" in request:
        raise ProtocolError("bad_field", "move takes either bot or level, not both", "level")
    if "level" in request:
        if any(k in request for k in ("time_ms", "iterations")):
            raise ProtocolError("bad_field", "move: a level sets its own budget; drop time_ms and iterations", "level")
        name, level_budget = LEVELS[request["level"]]
        return name, {**level_budget, **search_options(name, request)}, request["level"]
    name = request.get("bot", DEFAULT_BOT)
    if name not in BOT_NAMES:  # the command table's enum refuses it first; this guards every other caller
        raise ProtocolError(
            "bad_field", f"move: bot {name!r} is not offered to a seat; expected one of {', '.join(BOT_NAMES)}", "bot"
        )
    budget = {}
    if "time_ms" in request:
        budget["time_ms"] = request["time_ms"]
    if "iterations" in request:
        budget["iterations" if name == "ismcts" else "samples"] = request["iterations"]
    budget.update(search_options(name, request))
    return name, budget, None


def search_options(name: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """The bot budget's search options from a move request (`inference`,
    `round_search`): a level or a named bot takes them alike; a bot that does
    not search (random, heuristic: levels 1-2) would ignore them, so its
    budget, which the answer echoes, does not list them."""
    if not searches(name):
        return {}
    options: dict[str, Any] = {key: request[key] for key in ("inference", "duel", "replace") if key in request}
    return options | round_search_budget(request)


def round_search_budget(request: Mapping[str, Any]) -> dict[str, int]:
    """The bot budget's part for a request's `round_search`: `{"round_search": 1}`
    when it is true (the bot spec's number, `pimc@round_search=1`), nothing
    when false or absent, so a move without the round search answers byte
    for byte as before it existed.  The command table is its one reader
    (`_ROUND_SEARCH`, a boolean); a caller that skipped the table fails
    here rather than have a string or a number switch the search on."""
    value = request.get("round_search", False)
    assert type(value) is bool, f"round_search {value!r} did not pass the command table"
    return {"round_search": 1} if value else {}


def seat_events(events: Sequence[Event], player: int, before: Sequence[int], after: Sequence[int]) -> list[dict]:
    """The public events of one action in their wire form, as `player` sees
    them: every event is face up (R15, RULES section 5), and the seat's own
    secrets are added — the cards it drew in its replacement (`drawn`) and
    its new hand after a deal (`hand`).  Nothing of the other seat's hand or
    draws is added.  `before`/`after`: the seat's hand around the action."""
    out = [e.to_json() for e in events]
    dealt = any(isinstance(e, DealEvent) for e in events)
    for e, wire in zip(events, out):
        if isinstance(e, ReplaceEvent) and e.player == player and not dealt:
            kept = Counter(before) - Counter(e.cards)
            wire["drawn"] = sorted((Counter(after) - kept).elements())
    if events and isinstance(events[-1], DealEvent):
        out[-1]["hand"] = list(after)
    return out


def capped_budget(budget: Mapping[str, Any], max_time_ms: int | None, *, bind: bool) -> dict[str, Any]:
    """`budget` with its time_ms cut to the server's cap.  `bind`: give a
    budget without time_ms the cap as its time (a seat the engine plays
    inside `apply` or `new_game` is no queued search: nothing else bounds it)."""
    out = dict(budget)
    if max_time_ms is not None and ("time_ms" in out or bind):
        out["time_ms"] = min(out.get("time_ms", max_time_ms), max_time_ms)
    return out


@dataclass
class SeatTurn:
    """One action a bot chose for a seat, and what applying it did."""

    decision: Decision
    simultaneous: bool
    """An R8 two-arrow replacement or an R9 duel: both seats choose at once."""
    action: Action
    seconds: float
    moved_on: bool = False
    """The seat's view changed while the bot thought: nothing was applied."""
    applied: bool = False
    state: GameState | None = None
    """The game after the action, as committed."""
    recorded: ActionDict | None = None
    """The action as the game recorded it (without its player)."""
    events: list[dict] = field(default_factory=list)
    """The events it caused, as the witness seat sees them."""
    rounds_before: int = 0


def seat_turn(
    session: "EngineSession",
    gid: str,
    seat: int,
    bot: str,
    budget: Mapping[str, Any],
    *,
    current: Callable[[], GameState | None],
    rng: Callable[[GameState], random.Random],
    witness: int,
    apply: bool = True,
    signal: SearchSignal | None = None,
) -> SeatTurn | None:
    """Let `bot` choose `seat`'s action in game `gid` and apply it.

    Under the session's lock, `current()` gives the game as it is now (None:
    the seat has nothing to do; it may raise the request's error), and the
    seat's view is taken: all the bot is given, chosen from outside the
    lock with `rng(game)`.  The action is applied (on a copy, committed
    before it is answered, as `apply` does) only if the seat's view is still
    the one the bot chose from — else the turn says `moved_on`.  `events`
    are the action's, as `witness` sees them; `signal` streams the bot's
    thinking time as info and is the search's stop: the bot's choice takes
    it in its call's budget (`tacocat.players.bots.Bot.choose`), so a
    stopped move answers its best so far at once, and a count budget is
    bounded by the server's cap too (the search job sets the stop at the
    cap, `EngineSession._reserve`)."""
    from tacocat.players.bots import make_bot
    from tacocat.search.budget import Budget

    chooser = make_bot(bot, **budget)

    def look() -> tuple[Decision, View, bool, random.Random] | None:
        state = current()
        decision = None if state is None else state.decision(seat)
        if state is None or decision is None:
            return None
        secret_replace = decision == Decision.REPLACE and state.first_replacer == Arrow.BOTH
        simultaneous = decision == Decision.DUEL or secret_replace
        return decision, state.view(seat), simultaneous, rng(state)  # the view: the seat's information set

    looked = session.read_games(look)
    if looked is None:
        return None
    decision, view, simultaneous, chance = looked
    t0 = time.perf_counter()
    finish = (
        ticker(signal, lambda: {"bot": bot, "thinking_ms": int((time.perf_counter() - t0) * 1000)})
        if signal is not None
        else lambda: None
    )
    try:
        action = chooser.choose(view, chance, Budget(stop=signal))
    finally:
        finish()
    turn = SeatTurn(decision, simultaneous, action, time.perf_counter() - t0)
    if not apply:
        return turn
    applied = session.apply_unchanged(gid, seat, view, action)
    if applied is None:
        turn.moved_on = True
        return turn
    was, live, events = applied
    turn.rounds_before = len(was.rounds)
    turn.applied, turn.state = True, live
    turn.recorded = action_dict(action)  # as recorded
    turn.events = seat_events(events, witness, was.hands[witness], live.hands[witness])
    return turn


def move_work(session: "EngineSession", request: Mapping[str, Any]) -> Callable[[SearchSignal], dict]:
    """Validate a move request now; return the search work that chooses
    (and applies) the action on the worker thread."""
    name, budget, level = resolve_bot(request)
    budget = capped_budget(budget, session.max_time_ms, bind=False)  # a queued search: the queue bounds the rest
    gid, player = request["game"], request["player"]
    seed = request["seed"] if "seed" in request else secrets.randbits(31)
    session.checked_game(request)  # an unknown game is refused at once

    def position() -> GameState:
        """The game as it is when the move's turn in the queue comes (an
        earlier queued move may have changed it)."""
        state = session.checked_game(request)
        if state.over:
            raise ProtocolError("bad_field", f"game {gid} is over (R19): there is nothing to move", "game")
        if state.decision(player) is None:
            raise ProtocolError(
                "bad_field",
                f"player {player} has no decision now (phase {state.phase}, acting {state.acting_players()})",
                "player",
            )
        return state

    def work(signal: SearchSignal) -> dict:
        turn = seat_turn(
            session,
            gid,
            player,
            name,
            budget,
            current=position,
            rng=lambda _: random.Random(seed),
            witness=player,
            apply=request.get("apply", True),
            signal=signal,
        )
        assert turn is not None  # position() never answers None: it raises
        if turn.moved_on:
            session.checked_game(request)  # a game ended meanwhile is refused as unknown
            raise ProtocolError("illegal_action", f"game {gid} moved on while the engine thought; ask again", "game")
        result: dict[str, Any] = {
            "game": gid,
            "player": player,
            "bot": name,
            "level": level,
            "budget": budget,
            "seed": seed,
            "decision": turn.decision,
            "simultaneous": turn.simultaneous,
            "action": turn.action.to_dict(),
            "seconds": turn.seconds,
            "applied": False,
        }
        if turn.applied and turn.state is not None:
            live = turn.state
            result.update(
                applied=True,
                action=turn.recorded,
                events=turn.events,
                hand=list(live.hands[player]),
                round=live.rounds[-1] if len(live.rounds) > turn.rounds_before else None,
                status=session.status(gid, live),
            )
        return result

    return work
