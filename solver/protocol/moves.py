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
from typing import TYPE_CHECKING, Any, Mapping

from tacocat.players.bots import BOTS, SEAT_BOTS
from tacocat.protocol.streaming import ticker
from tacocat.protocol.wire import ProtocolError

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

DEFAULT_BOT = "pimc"


def resolve_bot(request: Mapping[str, Any]) -> tuple[str, dict[str, Any], int | None]:
    """(bot name, budget, level) of a move request; raises ProtocolError."""
    if "level" in request and "bot" in request:
        raise ProtocolError("bad_field", "move takes either bot or level, not both", "level")
    if "level" in request:
        if any(k in request for k in ("time_ms", "iterations")):
            raise ProtocolError("bad_field", "move: a level sets its own budget; drop time_ms and iterations", "level")
        name, level_budget = LEVELS[request["level"]]
        budget: dict[str, Any] = dict(level_budget)
        if "inference" in request:  # a search option, not a budget: a level takes it too
            budget["inference"] = request["inference"]
        return name, budget, request["level"]
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
    if "inference" in request:
        budget["inference"] = request["inference"]
    return name, budget, None


def seat_events(events: list[dict], player: int, before: tuple, after: tuple) -> list[dict]:
    """The public events of one action, as `player` sees them: every event
    is face up (R15, RULES section 5), and the seat's own secrets are added —
    the cards it drew in its replacement (`drawn`) and its new hand after a
    deal (`hand`).  Nothing of the other seat's hand or draws is added.
    `before`/`after`: the seat's hand around the action."""
    out = [dict(e) for e in events]
    dealt = any(e["event"] == "deal" for e in out)
    for e in out:
        if e["event"] == "replace" and e.get("player") == player and not dealt:
            kept = Counter(before) - Counter(e["cards"])
            e["drawn"] = sorted((Counter(after) - kept).elements())
    if out and out[-1]["event"] == "deal":
        out[-1]["hand"] = list(after)
    return out


def move_work(session: "EngineSession", request: Mapping[str, Any]):
    """Validate a move request now; return the search work that chooses
    (and applies) the action on the worker thread."""
    name, budget, level = resolve_bot(request)
    gid, player = request["game"], request["player"]
    apply_it = request.get("apply", True)
    seed = request["seed"] if "seed" in request else secrets.randbits(31)
    with session._lock:
        session._game(request)  # an unknown game is refused at once

    def position():
        """The game as it is when the move's turn in the queue comes (an
        earlier queued move may have changed it)."""
        with session._lock:
            state = session._game(request)
            if state.over:
                raise ProtocolError("bad_field", f"game {gid} is over (R19): there is nothing to move", "game")
            if state.decision(player) is None:
                raise ProtocolError(
                    "bad_field",
                    f"player {player} has no decision now (phase {state.phase}, acting {state.acting_players()})",
                    "player",
                )
            return state.clone(), len(state.actions)

    def work(signal) -> dict:
        from tacocat.players.bots import make_bot
        from tacocat.rules.game import DUEL, REPLACE

        bot = make_bot(name, **budget)
        snapshot, moves_before = position()
        decision = snapshot.decision(player)
        view = snapshot.view(player)  # the seat's information set: all the bot is given
        t0 = time.perf_counter()
        finish = ticker(signal, lambda: {"bot": name, "thinking_ms": int((time.perf_counter() - t0) * 1000)})
        try:
            action = bot.choose(view, random.Random(seed))
        finally:
            finish()
        seconds = time.perf_counter() - t0
        result: dict[str, Any] = {
            "game": gid,
            "player": player,
            "bot": name,
            "level": level,
            "budget": budget,
            "seed": seed,
            "decision": decision,
            "simultaneous": decision == DUEL or (decision == REPLACE and snapshot.first_replacer == "both"),
            "action": action.to_dict(),
            "seconds": seconds,
            "applied": False,
        }
        if not apply_it:
            return result
        with session._lock:
            # On a copy, committed (stored) before it is answered, as apply does.
            live = session._game(request).clone()
            before = live.hands[player]
            if len(live.actions) != moves_before and live.decision(player) != decision:
                raise ProtocolError(
                    "illegal_action", f"game {gid} moved on while the engine thought; ask again", "game"
                )
            rounds = len(live.rounds)
            events = live.apply(player, action)
            session._commit(gid, live)
            result.update(
                applied=True,
                action={k: v for k, v in live.actions[-1].items() if k != "player"},
                events=seat_events(events, player, before, live.hands[player]),
                hand=list(live.hands[player]),
                round=live.rounds[-1] if len(live.rounds) > rounds else None,
                status=session._status(gid, live),
            )
        return result

    return work
