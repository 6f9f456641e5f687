"""What a search answers, as plain data: a move with its odds and a card of
a mixed strategy.  Free of the searches (and of the C core), so that the
Python client and other readers of results can use them alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tacocat.rules.actions import Action


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
        if self.stderr is not None:
            d["stderr"] = self.stderr
        if self.game_win is not None:
            d["game_win"] = self.game_win
        if self.visits is not None:
            d["visits"] = self.visits
        return d


@dataclass(frozen=True)
class MixedMove:
    """One card of a mixed strategy (the duel, R9) and its probability."""

    card: int
    probability: float

    def to_dict(self) -> dict[str, Any]:
        return {"cards": [self.card], "probability": self.probability}
