"""What a search answers, as plain data: a move with its odds, a card of a
mixed strategy and a search's whole result.  Free of the searches (and of
the C core), so that the Python client and other readers of results can use
them alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tacocat.rules.actions import Action


def add_known(d: dict[str, Any], **fields: Any) -> None:
    """Add to `d`, in the order given, the fields a search filled in: a
    field left None (the search does not measure it) stays out of the dict,
    and so out of the wire form."""
    d.update((name, value) for name, value in fields.items() if value is not None)


@dataclass(frozen=True)
class MoveEval:
    """One candidate move with its odds, from the asking player's side."""

    action: Action
    win: float
    """Probability of winning the round."""
    draw: float
    """Probability of a drawn round (R17)."""
    loss: float
    value: float
    """Expected utility (see `tacocat.search.gamevalue.round_utilities`)."""
    stderr: float | None = None
    """Standard error of `value` (sampled methods only)."""
    game_win: float | None = None
    """Probability of winning the game (when a board is known)."""
    visits: int | None = None
    """ISMCTS: iterations through this move."""

    def to_dict(self) -> dict[str, Any]:
        d = self.action.to_dict()
        d.update(win=self.win, draw=self.draw, loss=self.loss, value=self.value)
        add_known(d, stderr=self.stderr, game_win=self.game_win, visits=self.visits)
        return d


@dataclass(frozen=True)
class MixedMove:
    """One card of a mixed strategy (the duel, R9) and its probability."""

    card: int
    probability: float

    def to_dict(self) -> dict[str, Any]:
        return {"cards": [self.card], "probability": self.probability}


@dataclass(frozen=True)
class PlayResult:
    """What one search found; immutable.  The fields after `stopped` are
    filled by the searches they concern (None elsewhere)."""

    moves: tuple[MoveEval, ...]
    """Every evaluated move, best first."""
    worlds: int
    """Distinct hands averaged (exact), deals sampled, or ISMCTS iterations."""
    exact: bool
    seconds: float
    stopped: bool = False
    mixed: tuple[MixedMove, ...] | None = None
    """Duel: my optimal mixed strategy over my distinct cards."""
    game_value: float | None = None
    """Duel: the value of the matrix game."""
    opponent_mix: tuple[MixedMove, ...] | None = None
    """Duel: the opponent's optimal mixed strategy over the ranks it may hold."""
    iterations: int | None = None
    """ISMCTS: iterations run (all trees)."""
    nodes: int | None = None
    """ISMCTS: tree nodes (all trees)."""
    evaluations: int | None = None
    """Replacement: (candidate, deal) evaluations."""
    candidates: int | None = None
    """Replacement: candidate discards compared."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "moves", tuple(self.moves))
