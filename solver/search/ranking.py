"""A hint's moves in the order of what the search knows about them (issue
35): the engine's pick first, then the moves by how far the search carried
them (deals or iterations), then by value.  A replacement's sequential
halving drops most candidates after a deal or two, and a table sorted by
value alone put those one-deal "100 % win" rows above the pick and its
thousand deals; an ISMCTS tree likewise visits bad moves little.

`rank_moves` ranks a `HintResult`, what the terminal formats; `rank_answer`
ranks the wire form of one (`HintResult.to_dict()`, the protocol's hint
answer) read as leniently as the web board reads it, the ranking board.js
ports.  Both read each move into the same few numbers (`_Measured`) and
rank those in one place.  Loads nothing heavy (the hint's search only for
type checking)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Mapping, Sequence, TypeVar

from tacocat.search.options import Method
from tacocat.search.results import MoveEval

if TYPE_CHECKING:
    from tacocat.search.hint import HintResult

FEW_SAMPLES = 10
"""A move measured on fewer deals (or iterations) than this has no margin
of its own: two equal deals give a standard error of exactly 0, which is no
evidence of anything."""
CARRIED_SHARE = 0.1
"""A move the search carried to fewer than this share of its pick's deals
(or iterations) was dropped early: it is summarised, not ranked."""
Z95 = 1.96
ROUND_SPREAD = 2.0
"""The spread of the round's utilities (+1 won, -1 lost): the widest margin's
spread when an answer names no utilities."""

M = TypeVar("M")


# ------------------------------------------------------------ one move
def samples_of(move: MoveEval, result: HintResult) -> int | None:
    """The deals (or ISMCTS iterations) behind a move's value: its own
    `visits` when the search spent different amounts on different moves (a
    replacement's sequential halving, ISMCTS), else the result's `samples`
    (every move on the same deals).  None when exact or unknown."""
    if move.visits is not None:
        return move.visits
    return None if result.exact else result.samples


def margin_of(move: MoveEval, result: HintResult) -> float | None:
    """The 95% margin of a move's value, None when it has none worth
    printing: no standard error, or fewer than `FEW_SAMPLES` behind it."""
    return _margin(move.stderr, samples_of(move, result))


def widest_margin(move: MoveEval, result: HintResult) -> float:
    """A margin that holds however the move's deals fell: its own when it
    has one, else the one of the widest spread its values allow (a standard
    deviation of half the range of the utilities), infinite with no deal."""
    return _widest(margin_of(move, result), samples_of(move, result), _spread(result.utilities))


def _margin(stderr: float | None, n: int | None) -> float | None:
    if stderr is None or (n is not None and n < FEW_SAMPLES):
        return None
    return Z95 * float(stderr)


def _widest(own: float | None, n: int | None, spread: float) -> float:
    if own is not None:
        return own
    if not n:
        return math.inf
    return Z95 * (spread / 2.0) / math.sqrt(n)


def _spread(utilities: Sequence[float] | None) -> float:
    return max(utilities) - min(utilities) if utilities else ROUND_SPREAD


def _unit(method: Any) -> str:
    return "iterations" if method == Method.ISMCTS else "deals"


@dataclass(frozen=True)
class _Measured:
    """What the ranking reads of one move."""

    samples: int | None
    value: float | None
    margin: float | None
    widest: float


# ------------------------------------------------------------ the ranking
@dataclass(frozen=True)
class Ranking(Generic[M]):
    """A hint's moves as the table shows them (moves of the ranked result:
    `MoveEval`s of a `HintResult`, move dicts of a wire answer)."""

    rows: list[M]
    """The pick first, then the moves the search carried on, most deals first."""
    dropped: list[M]
    """Moves dropped early (fewer than `CARRIED_SHARE` of the pick's deals), most deals first."""
    within_reach: list[M]
    """The dropped moves whose value, with the widest margin its deals allow,
    still reaches the pick's value less its margin."""
    unit: str
    """What the counts count: "deals" or "iterations"."""

    @property
    def ranked(self) -> list[M]:
        """Every move: the rows, then the dropped ones."""
        return self.rows + self.dropped


def rank_moves(result: HintResult) -> Ranking[MoveEval]:
    """The moves of `result` ranked by what the search knows (module
    docstring); its pick is its first move."""
    spread = _spread(result.utilities)
    measured = []
    for m in result.moves:
        n = samples_of(m, result)
        own = _margin(m.stderr, n)
        measured.append(_Measured(n, float(m.value), own, _widest(own, n, spread)))
    return _ranked(list(result.moves), measured, 0, _unit(result.method))


def rank_answer(answer: Mapping[str, Any]) -> Ranking[Mapping[str, Any]]:
    """`rank_moves` on a hint's wire form: its pick the listed move its
    `best` names (the first when none), a field that is missing, null or
    not a number read as unknown."""
    moves: list[Mapping[str, Any]] = list(answer.get("moves") or [])
    best = answer.get("best")
    pick_at = next((i for i, m in enumerate(moves) if isinstance(best, Mapping) and same_move(m, best)), 0)
    u = answer.get("utilities")
    spread = _spread(u if isinstance(u, (list, tuple)) else None)
    shared = None if answer.get("exact") else _count(answer.get("samples"))
    measured = []
    for m in moves:
        visits = _count(m.get("visits"))
        n = visits if visits is not None else shared
        own = _margin(_number(m.get("stderr")), n)
        measured.append(_Measured(n, _number(m.get("value")), own, _widest(own, n, spread)))
    return _ranked(moves, measured, pick_at, _unit(answer.get("method")))


def same_move(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two wire moves are the same move (their cards in any order)."""
    return (
        a.get("kind") == b.get("kind")
        and sorted(a.get("cards", ())) == sorted(b.get("cards", ()))
        and a.get("beats") == b.get("beats")
    )


def _count(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _ranked(moves: list[M], measured: list[_Measured], pick_at: int, unit: str) -> Ranking[M]:
    """The ranking of `moves` (each read as `measured`), the pick first."""
    if not moves:
        return Ranking([], [], [], "deals")
    others = _by_samples_then_value(measured, [i for i in range(len(moves)) if i != pick_at])
    n_pick = measured[pick_at].samples
    if not n_pick:
        return Ranking([moves[pick_at], *(moves[i] for i in others)], [], [], unit)
    carried, dropped = _carried_and_dropped(measured, others, n_pick)
    reach = _within_reach(measured, pick_at, dropped)
    return Ranking(
        [moves[pick_at], *(moves[i] for i in carried)], [moves[i] for i in dropped], [moves[i] for i in reach], unit
    )


def _by_samples_then_value(measured: list[_Measured], at: list[int]) -> list[int]:
    """The moves at `at`, most samples first, then by value (a move without
    a value after those with one), then in the search's order."""

    def key(i: int) -> tuple:
        n, value = measured[i].samples, measured[i].value
        if value is not None and n != 0:
            return (-(n or 0), False, -value, i)
        return (-(n or 0), True, 0.0, i)

    return sorted(at, key=key)


def _carried_and_dropped(measured: list[_Measured], others: list[int], n_pick: int) -> tuple[list[int], list[int]]:
    """The moves searched at least `CARRIED_SHARE` as much as the pick,
    and the others."""
    carried: list[int] = []
    dropped: list[int] = []
    for i in others:
        n = measured[i].samples
        (dropped if n is not None and n < CARRIED_SHARE * n_pick else carried).append(i)
    return carried, dropped


def _within_reach(measured: list[_Measured], pick_at: int, dropped: list[int]) -> list[int]:
    """The dropped moves whose value, at its widest margin, reaches the
    pick's value less its margin."""
    pick = measured[pick_at]
    floor = pick.value - (pick.margin or 0.0) if pick.value is not None else math.inf
    return [i for i in dropped if _reaches(measured[i], floor)]


def _reaches(move: _Measured, floor: float) -> bool:
    return move.value is not None and move.value + move.widest >= floor
