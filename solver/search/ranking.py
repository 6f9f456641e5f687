"""A hint's moves in the order of what the search knows about them (issue
35): the engine's pick first, then the moves by how far the search carried
them (deals or iterations), then by value.  A replacement's sequential
halving drops most candidates after a deal or two, and a table sorted by
value alone put those one-deal "100 % win" rows above the pick and its
thousand deals; an ISMCTS tree likewise visits bad moves little.

Works on the dict form of a result (`HintResult.to_dict()`, the protocol's
hint answer), so the terminal and the protocol's readers share it, and it
loads nothing heavy."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

FEW_SAMPLES = 10
"""A move measured on fewer deals (or iterations) than this has no margin
of its own: two equal deals give a standard error of exactly 0, which is no
evidence of anything."""
CARRIED_SHARE = 0.1
"""A move the search carried to fewer than this share of its pick's deals
(or iterations) was dropped early: it is summarised, not ranked."""
Z95 = 1.96


def samples_of(move: Mapping[str, Any], result: Mapping[str, Any]) -> int | None:
    """The deals (or ISMCTS iterations) behind a move's value: its own
    `visits` when the search spent different amounts on different moves (a
    replacement's sequential halving, ISMCTS), else the result's `samples`
    (every move on the same deals).  None when exact or unknown."""
    n = move.get("visits")
    if isinstance(n, int) and not isinstance(n, bool):
        return n
    if result.get("exact"):
        return None
    n = result.get("samples")
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def margin_of(move: Mapping[str, Any], result: Mapping[str, Any]) -> float | None:
    """The 95% margin of a move's value, None when it has none worth
    printing: no standard error, or fewer than `FEW_SAMPLES` behind it."""
    se = move.get("stderr")
    if not isinstance(se, (int, float)) or isinstance(se, bool):
        return None
    n = samples_of(move, result)
    if n is not None and n < FEW_SAMPLES:
        return None
    return Z95 * float(se)


def widest_margin(move: Mapping[str, Any], result: Mapping[str, Any]) -> float:
    """A margin that holds however the move's deals fell: its own when it
    has one, else the one of the widest spread its values allow (a standard
    deviation of half the range of the utilities), infinite with no deal."""
    own = margin_of(move, result)
    if own is not None:
        return own
    n = samples_of(move, result)
    if not n:
        return math.inf
    u = result.get("utilities")
    spread = max(u) - min(u) if isinstance(u, (list, tuple)) and u else 2.0
    return Z95 * (spread / 2.0) / math.sqrt(n)


def same_move(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return (
        a.get("kind") == b.get("kind")
        and sorted(a.get("cards", ())) == sorted(b.get("cards", ()))
        and a.get("beats") == b.get("beats")
    )


@dataclass(frozen=True)
class Ranking:
    """A hint's moves as the table shows them."""

    rows: list[Mapping[str, Any]]
    """The pick first, then the moves the search carried on, most deals first."""
    dropped: list[Mapping[str, Any]]
    """Moves dropped early (fewer than `CARRIED_SHARE` of the pick's deals), most deals first."""
    within_reach: list[Mapping[str, Any]]
    """The dropped moves whose value, with the widest margin its deals allow,
    still reaches the pick's value less its margin."""
    unit: str
    """What the counts count: "deals" or "iterations"."""

    @property
    def ranked(self) -> list[Mapping[str, Any]]:
        """Every move: the rows, then the dropped ones."""
        return self.rows + self.dropped


def rank_moves(result: Mapping[str, Any]) -> Ranking:
    """The moves of `result` ranked by what the search knows (module docstring)."""
    moves: Sequence[Mapping[str, Any]] = list(result.get("moves") or [])
    best = result.get("best")
    pick_at = next((i for i, m in enumerate(moves) if isinstance(best, Mapping) and same_move(m, best)), 0)
    others = _by_samples_then_value(result, [(i, m) for i, m in enumerate(moves) if i != pick_at])
    if not moves:
        return Ranking([], [], [], "deals")
    pick = moves[pick_at]
    unit = "iterations" if result.get("method") == "ismcts" else "deals"
    n_pick = samples_of(pick, result)
    if not n_pick:
        return Ranking([pick, *others], [], [], unit)
    carried, dropped = _carried_and_dropped(result, others, n_pick)
    return Ranking([pick, *carried], dropped, _within_reach(result, pick, dropped), unit)


def _by_samples_then_value(
    result: Mapping[str, Any], moves: list[tuple[int, Mapping[str, Any]]]
) -> list[Mapping[str, Any]]:
    """The moves, most samples first, then by value (a move without a
    value after those with one), then in the search's order."""

    def key(item: tuple[int, Mapping[str, Any]]) -> tuple:
        i, m = item
        n = samples_of(m, result)
        value = m.get("value")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and n != 0:
            return (-(n or 0), False, -float(value), i)
        return (-(n or 0), True, 0.0, i)

    return [m for _, m in sorted(moves, key=key)]


def _carried_and_dropped(
    result: Mapping[str, Any], others: list[Mapping[str, Any]], n_pick: int
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The moves searched at least `CARRIED_SHARE` as much as the pick,
    and the others."""
    carried: list[Mapping[str, Any]] = []
    dropped: list[Mapping[str, Any]] = []
    for m in others:
        n = samples_of(m, result)
        (dropped if n is not None and n < CARRIED_SHARE * n_pick else carried).append(m)
    return carried, dropped


def _within_reach(
    result: Mapping[str, Any], pick: Mapping[str, Any], dropped: list[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The dropped moves whose value, at its widest margin, reaches the
    pick's value less its margin."""
    value = pick.get("value")
    floor = float(value) - (margin_of(pick, result) or 0.0) if isinstance(value, (int, float)) else math.inf
    return [
        m
        for m in dropped
        if isinstance(m.get("value"), (int, float)) and float(m["value"]) + widest_margin(m, result) >= floor
    ]
