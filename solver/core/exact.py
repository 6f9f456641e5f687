"""The exact play-phase solver (R10–R17) with every card known: a typed,
validating front to the Cython core in `tacocat.core._search`.

    >>> from tacocat.rules.play import PlayPosition
    >>> from tacocat.core.exact import solve
    >>> r = solve(PlayPosition(((2, 9), (3, 8)), attacker=0))
    >>> r.value, [(m.cards, m.value) for m in r.moves]
    (1, [((2,), -1), ((9,), 1)])

Values are player 0's utility of the round under best play by both, from
`utilities` = player 0's worth of (win, drawn round, loss), default
(1, 0, -1); player 1 minimises it.  Only the order of the three utilities
matters to the search (it runs on their ranks and maps back), so any three
numbers work, ties included.

`solve` validates (RULES R1, R10–R11, R16 via `tacocat.rules.play.validate_position`)
and then trusts the core.  A `Solver` owns one transposition table and is used
by one thread at a time; `solve(..., tt=None)` uses a per-thread default
`Solver` whose table is logically cleared first, so results, node counts and
statistics never depend on earlier calls.  Pass your own `Solver(keep_tt=True)`
to reuse stored positions across searches (values stay exact: the table holds
game values, keyed by the full position and the utility order).

Answer generation follows an exact characterisation of R12–R13 (proof in
`_search.pyx`, `gen_answers`; checked against `tacocat.rules.play.answers`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from tacocat.core import _search  # type: ignore[attr-defined]  # compiled Cython, no .py or stub for mypy
from tacocat.errors import NotationError, PositionError, RecordError, TacocatError, shorten
from tacocat.rules.cards import Hand, format_cards, parse_cards
from tacocat.rules.events import Decision
from tacocat.rules.play import PlayPosition, showdown, validate_position
from tacocat.rules.ruleset import STANDARD, Ruleset, load_ruleset

__all__ = [
    "DEFAULT_UTILITIES",
    "MAX_HAND",
    "MoveValue",
    "PVStep",
    "TTStats",
    "SolveResult",
    "Solver",
    "solve",
    "value_only",
    "position_from_dict",
    "result_to_dict",
    "solve_json",
]

DEFAULT_UTILITIES: tuple[int, int, int] = (1, 0, -1)
"""Player 0's worth of (win, drawn round, loss): the conformance values."""

MAX_HAND: int = int(_search.LIMITS["max_hand"])
"""The most cards one hand may hold for the exact solver."""

OUTCOMES = ("win", "draw", "loss")
_BEATS = int(_search.BEATS)
_CARDS = (1 << 48) - 1


@dataclass(frozen=True)
class MoveValue:
    """One legal move at the root and its value."""

    cards: Hand
    """The cards played (an attack) or removed from the defender's hand (an answer)."""
    beats: bool | None
    """For an answer: whether every answer beats (R13); None for an attack."""
    value: float
    """Player 0's utility after this move under best play by both."""


@dataclass(frozen=True)
class PVStep:
    """One move of the principal variation."""

    player: int
    """Who played it (0 or 1)."""
    cards: Hand
    """The attack, or the cards answered with."""
    beats: bool | None
    """None for an attack; for an answer whether every answer beats."""

    @property
    def kind(self) -> Decision:
        return Decision.ATTACK if self.beats is None else Decision.ANSWER

    def to_dict(self) -> dict[str, Any]:
        """{"player", "cards"}, plus "beats" on an answer."""
        d: dict[str, Any] = {"player": self.player, "cards": list(self.cards)}
        if self.beats is not None:
            d["beats"] = self.beats
        return d

    def __str__(self) -> str:
        if self.beats is None:
            return f"P{self.player} attacks {format_cards(self.cards)}"
        verb = "beats with" if self.beats else "sacrifices with"
        return f"P{self.player} {verb} {format_cards(self.cards)}"


@dataclass(frozen=True)
class TTStats:
    """Transposition-table counters of one solve (size: the whole table)."""

    probes: int
    """Look-ups."""
    hits: int
    """Look-ups that found the position."""
    stores: int
    """Writes."""
    evictions: int
    """Writes that replaced another stored position."""
    entries: int
    """Table size in entries (16 bytes each)."""
    bytes: int
    """Table size in bytes."""

    @property
    def hit_rate(self) -> float:
        return self.hits / self.probes if self.probes else 0.0


@dataclass(frozen=True)
class SolveResult:
    """What `solve` found."""

    position: PlayPosition
    """The position solved."""
    utilities: tuple
    """Player 0's worth of (win, drawn round, loss) used."""
    value: float
    """Player 0's utility under best play by both."""
    moves: list[MoveValue] | None
    """Every root move with its value (sorted like `tacocat.rules.play`), or None
    when not asked for; empty at a showdown."""
    pv: list[PVStep]
    """A principal variation: best play by both down to the showdown."""
    showdown: tuple[int, int] | None
    """Player 0's and player 1's last card at the end of the principal
    variation (None when the variation was not asked for)."""
    outcome: str | None
    """Player 0's result under best play: "win", "draw" or "loss" (the end of
    the principal variation; without one, None if tied utilities leave it
    open)."""
    nodes: int
    """Search nodes visited (attack nodes plus table nodes)."""
    seconds: float
    """Wall time of the search."""
    tt: TTStats
    """Transposition-table counters."""

    def to_dict(self) -> dict:
        return result_to_dict(self)


def _levels(utilities: Sequence[float]) -> tuple[int, int, int]:
    """Player 0's level (0..2) of win, draw, loss: the dense rank of each
    utility; two distinct utilities get levels 0 and 2."""
    distinct = sorted(set(utilities))
    if len(distinct) == 1:
        return (0, 0, 0)
    rank = {u: i for i, u in enumerate(distinct)}
    scale = 2 // (len(distinct) - 1)
    w, d, l = (rank[u] * scale for u in utilities)
    return (w, d, l)


MAX_UTILITY = 1e9
MAX_TT_MB = 16384


def check_utilities(utilities: Any) -> tuple:
    """Three finite numbers: player 0's worth of (win, drawn round, loss)."""
    if utilities is DEFAULT_UTILITIES:
        return utilities
    if isinstance(utilities, (str, bytes)) or not hasattr(utilities, "__iter__"):
        raise NotationError(f"utilities must be three numbers (win, draw, loss), got {utilities!r}")
    values = tuple(utilities)
    if len(values) != 3:
        raise NotationError(f"utilities must be three numbers (win, draw, loss), got {len(values)}: {list(values)!r}")
    for u in values:
        # abs() first: math.isfinite overflows on an integer of hundreds of digits
        if isinstance(u, bool) or not isinstance(u, (int, float)) or not abs(u) <= MAX_UTILITY:
            raise NotationError(
                f"utilities must be finite numbers of size at most {MAX_UTILITY:g} (win, draw, loss), "
                f"got {shorten(u, 40)}"
            )
    return tuple(float(u) for u in values)


def _check(position: PlayPosition) -> None:
    if not isinstance(position, PlayPosition):
        raise PositionError(f"expected a PlayPosition, got {type(position).__name__}")
    validate_position(position)
    for p in (0, 1):
        if len(position.hands[p]) > MAX_HAND:
            raise PositionError(
                f"player {p} holds {len(position.hands[p])} cards; "
                f"the exact solver handles hands of at most {MAX_HAND}",
                "R2",
            )


class Solver:
    """A reusable exact solver: one transposition table, one thread at a time.

    `tt_mb` sizes the table (rounded down to a power-of-two number of 16-byte
    entries); `tt_entries` gives the entry count directly instead (at least 4).
    The default, 1 MB (65,536 entries), holds a nine-card search many times
    over and stays in cache; a bigger table pays only when `keep_tt` keeps
    positions across many searches.
    With `keep_tt=True` positions stored by earlier searches are reused;
    with False every search starts from an empty table (cleared in O(1))."""

    def __init__(self, tt_mb: float = 1, *, keep_tt: bool = True, tt_entries: int | None = None) -> None:
        if tt_entries is None:
            if not isinstance(tt_mb, (int, float)) or isinstance(tt_mb, bool) or not 0 < tt_mb <= MAX_TT_MB:
                raise TacocatError(
                    f"tt_mb must be a positive number of megabytes, at most {MAX_TT_MB}, got {shorten(tt_mb, 40)}"
                )
            tt_entries = max(4, int(tt_mb * (1 << 20)) // int(_search.TT_ENTRY_BYTES))
        elif isinstance(tt_entries, bool) or not isinstance(tt_entries, int) or tt_entries < 4:
            raise TacocatError(f"tt_entries must be an integer >= 4, got {tt_entries!r}")
        self.keep_tt = keep_tt
        self._core = _search.Core(tt_entries)

    @property
    def entries(self) -> int:
        """Table size in entries (a power of two)."""
        return int(self._core.stats["entries"])

    def clear(self) -> None:
        """Forget every stored position."""
        self._core.clear()

    def solve(
        self,
        position: PlayPosition,
        utilities: Sequence[float] = DEFAULT_UTILITIES,
        *,
        moves: bool = True,
        pv: bool = True,
    ) -> SolveResult:
        """Solve `position`: its value, every root move's value (`moves`) and a
        principal variation (`pv`).  Raises PositionError for a position that
        cannot arise (the message names the rule)."""
        _check(position)
        utilities = check_utilities(utilities)
        levels = _levels(utilities)
        core = self._core
        h0, h1, att, table = _pack(position)
        core.new_search(self.keep_tt)
        core.reset_stats()
        start = time.perf_counter()
        move_list = None
        if moves:
            raw = core.moves(h0, h1, att, table, *levels)
            level = _root_level(position, raw, levels)
        else:
            level = core.value(h0, h1, att, table, *levels)
        line = core.pv(h0, h1, att, table, *levels) if pv else []
        seconds = time.perf_counter() - start
        to_utility = _to_utility(utilities, levels)
        if moves:
            move_list = _moves(position, raw, to_utility)
        steps = _steps(position, line)
        showdown = _final_cards(position, steps) if pv else None
        stats = core.stats
        outcome: str | None
        if showdown is not None:
            outcome = _outcome(showdown)
        else:
            outcome = _outcome_of_level(level, levels)
        return SolveResult(
            position=position,
            utilities=utilities,
            value=to_utility[level],
            moves=move_list,
            pv=steps,
            showdown=showdown,
            outcome=outcome,
            nodes=int(stats["nodes"]),
            seconds=seconds,
            tt=TTStats(
                probes=int(stats["probes"]),
                hits=int(stats["hits"]),
                stores=int(stats["stores"]),
                evictions=int(stats["evictions"]),
                entries=int(stats["entries"]),
                bytes=int(stats["bytes"]),
            ),
        )

    # The hidden-hand searches' entry points: many positions per search, each
    # shape-checked by the caller's view, so no validation per call; the
    # table is kept across calls (positions repeat across worlds).
    def outcomes(
        self, hands: tuple[Hand, Hand], attacker: int, table: Hand = ()
    ) -> list[tuple[Hand, bool | None, int]]:
        """Every root move with player 0's round outcome after it under best
        play by both: +1 win, 0 drawn round, -1 loss.  `hands[attacker]`
        excludes the table (as in `PlayPosition`)."""
        _fits(hands)
        pack = _search.pack_hand
        raw = self._core.moves(pack(hands[0]), pack(hands[1]), attacker, pack(table), 2, 1, 0)
        answering = bool(table)
        return [(*_decode(mv, answering), int(level) - 1) for mv, level in raw]

    def tally_worlds(
        self,
        player: int,
        own: Hand,
        attacker: int,
        table: Hand,
        opponents: Sequence[int],
        weights: Sequence[float],
        utilities: Sequence[float],
        acc: Any,
        total: float,
    ) -> tuple[list[tuple[Hand, bool | None]], float]:
        """`outcomes` for many worlds at once, summed in C: `player` holds
        `own` and is to move; each packed hand of `opponents` is one world
        of weight `weights[i]`.  Adds to `acc` (a buffer of doubles, five per
        root move: win, draw and loss weight for `player`, then the sums of
        w*u and w*u*u for `utilities` of (win, draw, loss)), and returns the
        root moves in `acc`'s order with `total` plus the weights.  The sums
        are the ones a world-by-world loop would add, in the same order."""
        if len(own) > MAX_HAND:
            raise PositionError(f"the exact solver handles hands of at most {MAX_HAND} cards, got {len(own)}", "R2")
        pack = _search.pack_hand
        raw, total = self._core.tally(
            player, pack(own), attacker, pack(table), opponents, weights, *utilities, acc, total
        )
        answering = bool(table)
        return [_decode(mv, answering) for mv in raw], total

    def outcome(self, hands: tuple[Hand, Hand], attacker: int, table: Hand = ()) -> int:
        """Player 0's round outcome under best play by both (+1 / 0 / -1);
        the showdown (R17) when both hold one card and the table is empty."""
        if not table and len(hands[0]) == 1 and len(hands[1]) == 1:
            return showdown(hands)
        _fits(hands)
        pack = _search.pack_hand
        return int(self._core.value(pack(hands[0]), pack(hands[1]), attacker, pack(table), 2, 1, 0)) - 1

    def value(self, position: PlayPosition, utilities: Sequence[float] = DEFAULT_UTILITIES) -> float:
        """Player 0's utility under best play (no moves, no variation)."""
        _check(position)
        utilities = check_utilities(utilities)
        levels = _levels(utilities)
        self._core.new_search(self.keep_tt)
        level = self._core.value(*_pack(position), *levels)
        return _to_utility(utilities, levels)[level]


def packed(cards: Sequence[int]) -> int:
    """The core's packed form of a hand (4 bits of count per rank)."""
    return _search.pack_hand(cards)


def sub_hands(pool: Sequence[int], size: int) -> list[tuple[int, int]]:
    """Every distinct hand of `size` cards drawn from `pool`, packed, with
    its multiplicity (how many card subsets of the pool form it), in the
    order of `tacocat.search.sampling.HandSampler.iter_hands`."""
    return _search.sub_hands(_search.pack_hand(pool), size)


_local = threading.local()


def _default_solver() -> Solver:
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver(1, keep_tt=False)
    return solver


def solve(
    position: PlayPosition,
    utilities: Sequence[float] = DEFAULT_UTILITIES,
    *,
    moves: bool = True,
    pv: bool = True,
    tt: Solver | None = None,
) -> SolveResult:
    """Solve a play-phase position exactly.  `tt`: a `Solver` to use (and
    whose table to keep or clear as it is set up); None uses this thread's
    default solver with an emptied table."""
    return (tt or _default_solver()).solve(position, utilities, moves=moves, pv=pv)


def value_only(
    position: PlayPosition, utilities: Sequence[float] = DEFAULT_UTILITIES, *, tt: Solver | None = None
) -> float:
    """Player 0's utility of `position` under best play by both."""
    return (tt or _default_solver()).value(position, utilities)


# ----------------------------------------------------------- conversions


def _pack(position: PlayPosition) -> tuple[int, int, int, int]:
    pack = _search.pack_hand
    return pack(position.hands[0]), pack(position.hands[1]), position.attacker, pack(position.table)


def _to_utility(utilities: tuple, levels: tuple[int, int, int]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for u, level in zip(utilities, levels, strict=True):
        out.setdefault(level, u)
    return out


def _root_level(position: PlayPosition, raw: list, levels: tuple[int, int, int]) -> int:
    if not raw:  # a showdown
        return levels[OUTCOMES.index(_outcome((position.hands[0][0], position.hands[1][0])))]
    mover = position.to_move
    lv = [level for _, level in raw]
    return max(lv) if mover == 0 else min(lv)


def _decode(mv: int, answering: bool) -> tuple[Hand, bool | None]:
    """The core's move word: its cards, and for an answer whether every
    card beats (R13); the one place the word is read."""
    return _search.unpack_hand(mv & _CARDS), (bool(mv & _BEATS) if answering else None)


def _fits(hands: tuple[Hand, Hand]) -> None:
    if len(hands[0]) > MAX_HAND or len(hands[1]) > MAX_HAND:
        raise PositionError(
            f"the exact solver handles hands of at most {MAX_HAND} cards, got {len(hands[0])} and {len(hands[1])}", "R2"
        )


def _moves(position: PlayPosition, raw: list, to_utility: dict) -> list[MoveValue]:
    answering = bool(position.table)
    out = [MoveValue(*_decode(mv, answering), to_utility[level]) for mv, level in raw]
    out.sort(key=lambda m: (list(m.cards), m.beats))
    return out


def _steps(position: PlayPosition, line: list) -> list[PVStep]:
    steps = []
    answering = bool(position.table)
    for who, mv in line:
        steps.append(PVStep(int(who), *_decode(mv, answering)))
        answering = not answering
    return steps


def _final_cards(position: PlayPosition, steps: list[PVStep]) -> tuple[int, int]:
    """Each player's last card after the variation."""
    hands = [list(position.hands[0]), list(position.hands[1])]
    for step in steps:
        for c in step.cards:
            hands[step.player].remove(c)
    return (hands[0][0], hands[1][0])


def _outcome(last: tuple[int, int]) -> str:
    """Player 0's result of the showdown of these last cards (R17)."""
    return OUTCOMES[1 - showdown(((last[0],), (last[1],)))]


def _outcome_of_level(level: int, levels: tuple[int, int, int]) -> str | None:
    # the outcome with this level, if only one outcome has it
    return OUTCOMES[levels.index(level)] if levels.count(level) == 1 else None


# ------------------------------------------------------- dict / JSON form


def position_from_dict(data: Any, rules: Ruleset | None = None) -> tuple[PlayPosition, tuple]:
    """A position and utilities from a conformance-style mapping
    ``{"hands": [[...], [...]], "attacker": 0|1, "table": [...]}`` with
    optional ``"utilities"`` (default (1, 0, -1)) and ``"rules"`` (a ruleset
    mapping or "standard"; else `rules`, else the standard ruleset).  Cards
    may be lists of ranks or strings in plain notation.  Other keys (such as
    the expected "value" of a conformance case) are ignored."""
    if not isinstance(data, Mapping):
        raise RecordError(f"a position must be an object with keys hands, attacker, table; got {type(data).__name__}")
    if "hands" not in data:
        raise RecordError("a position needs \"hands\": [[player 0's cards], [player 1's cards]]")
    h0, h1 = _position_hands(data["hands"])
    if "attacker" not in data:
        raise RecordError('a position needs "attacker": 0 or 1 (with a table: who laid it)')
    attacker = data["attacker"]
    if isinstance(attacker, bool) or not isinstance(attacker, int) or attacker not in (0, 1):
        raise RecordError(f'"attacker" must be 0 or 1, got {attacker!r}')
    table = parse_cards(data.get("table"), "table")
    utilities = check_utilities(data["utilities"]) if data.get("utilities") is not None else DEFAULT_UTILITIES
    return PlayPosition((h0, h1), attacker, table, _position_rules(data.get("rules"), rules)), utilities


def _position_hands(hands: Any) -> tuple[Hand, Hand]:
    """A position's two hands, player 0's first."""
    if isinstance(hands, (str, bytes, Mapping)) or not isinstance(hands, Sequence) or len(hands) != 2:
        raise RecordError(f"\"hands\" must be a list of two hands (player 0's, player 1's), got {hands!r}")
    return parse_cards(hands[0], "hands[0]"), parse_cards(hands[1], "hands[1]")


def _position_rules(source: Any, rules: Ruleset | None) -> Ruleset:
    """A position's ruleset: its own, else the caller's, else the standard one."""
    if source is None:
        return rules or STANDARD
    if isinstance(source, Mapping) or source == "standard":
        return load_ruleset(source)
    raise RecordError(f'"rules" must be a ruleset object or "standard", got {source!r}')


def result_to_dict(result: SolveResult) -> dict:
    """The JSON form of a result, values from player 0's point of view as in
    the conformance file play_values.json; "beats" only on answers."""

    def move(m: MoveValue) -> dict:
        d: dict[str, Any] = {"cards": list(m.cards)}
        if m.beats is not None:
            d["beats"] = m.beats
        d["value"] = m.value
        return d

    out: dict[str, Any] = {
        "position": result.position.to_dict(),
        "utilities": list(result.utilities),
        "value": result.value,
        "outcome": result.outcome,
    }
    if result.moves is not None:
        out["moves"] = [move(m) for m in result.moves]
    out["pv"] = [s.to_dict() for s in result.pv]
    out["showdown"] = list(result.showdown) if result.showdown else None
    out["nodes"] = result.nodes
    out["seconds"] = result.seconds
    out["tt"] = {
        "probes": result.tt.probes,
        "hits": result.tt.hits,
        "stores": result.tt.stores,
        "evictions": result.tt.evictions,
        "entries": result.tt.entries,
    }
    return out


def solve_json(data: Any, rules: Ruleset | None = None, *, tt: Solver | None = None) -> dict:
    """Solve a conformance-style position mapping and return the result
    dict (the shape `tacocat solve --json` prints)."""
    position, utilities = position_from_dict(data, rules)
    return result_to_dict(solve(position, utilities, tt=tt))
