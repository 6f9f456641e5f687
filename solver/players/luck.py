"""The luck of the cards in a whole game, valued and taken out of its result
(an AIVAT-style correction for `tacocat.players.match`, mode "game").

Why: the duplicate match plays every deal twice with the seats swapped, so
the first round's cards cancel; but whole games diverge after round 1, and
the later rounds' deals (R6) and every replacement draw (R7/R8) are luck
the seat swap does not cancel.  This module values each of those chance
events by a fixed reference that does not depend on the bots and sums
them into a *correction*; a game's luck-adjusted result is its result less
the correction.

The reference.  A round's hands are valued by a linear, antisymmetric
strength  h(H0, H1) = sum_r w[N][r] * (count_r(H0) - count_r(H1)),  with
weights per hand size N and rank r fitted offline by self-play
(`results/luck_weights.py`, stored in `solver/data/luck_weights.json`).
Only differences between weights of one hand size matter: both hands hold
N cards, so a constant added to every w[N][r] changes no term below.
A round's result is worth  A(board) = (E(board after a player-0 round win)
- E(board after a player-1 round win)) / 2  in game units, E = 2G - 1 the
game equity between equal players (`tacocat.search.gamevalue`), so
A(board) = G(after a player-0 win) - G(after a player-1 win).

The correction for player 0 is the sum over the game's chance events of:

- each deal (R6, a redeal after a drawn round too): A(board) * h(H0, H1)
  of the dealt hands.  Its mean is exactly 0: under the shuffle the two
  dealt hands are exchangeable and h is antisymmetric.
- each replacement draw of k cards by player p from the draw pile P (as it
  was right before that draw; under R8 player 0 draws first, then player 1
  from what is left): A(board) * s_p * (sum of w[N] over the drawn cards -
  k * mean of w[N] over P), s_0 = +1, s_1 = -1.  Its mean given everything
  before the draw is exactly 0: no player sees the draw pile's order (RULES
  §5; the oracle bot sees hands, not the pile), so each drawn card is
  uniform over P whatever was discarded.

So the correction has mean 0 for every pair of bots, and the adjusted
result (result - beta * correction, with the fixed factor `beta` fitted
offline on other games, never on the match being scored) has the same mean
as the result: unbiased by construction, whatever the weights.  Good
weights only make its variance smaller.

Mode "play" (one play phase from an 8-card deal, no draws): the only chance
event is the deal, and it is the same in both seatings of a duplicate
deal, so A's two corrections cancel exactly and the adjusted score equals
the raw one (`tacocat.players.match` reports it with variance ratio 1.0)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Sequence

from tacocat.errors import TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.cards import counts
from tacocat.rules.events import ReplaceEvent
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import Ruleset
from tacocat.search.gamevalue import game_win

DATA = Path(__file__).resolve().parents[1] / "data"  # the package's data/ (tacocat/data)
WEIGHTS_FILE = DATA / "luck_weights.json"
RANKS = 12


@dataclass(frozen=True)
class LuckWeights:
    """The reference's weights: `by_size[N]` are w[N][rank 1..12]; `beta`
    scales the whole correction; `about` is the fit's provenance."""

    by_size: dict[int, tuple[float, ...]]
    beta: float = 1.0
    about: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.by_size:
            raise TacocatError("luck weights: no hand size has weights")
        for n, row in self.by_size.items():
            if len(row) != RANKS:
                raise TacocatError(f"luck weights for hand size {n}: expected {RANKS} numbers, got {len(row)}")

    def of(self, n: int) -> tuple[float, ...]:
        """w[n]: the fitted row of hand size n, or of the nearest fitted size
        (smaller on a tie) for a ruleset whose board deals other sizes; any
        fixed row keeps the correction unbiased, a near one keeps it useful."""
        row = self.by_size.get(n)
        if row is not None:
            return row
        return self.by_size[min(self.by_size, key=lambda m: (abs(m - n), m))]

    @classmethod
    def from_dict(cls, data: dict) -> "LuckWeights":
        try:
            by_size = {int(n): tuple(float(x) for x in row) for n, row in data["weights"].items()}
            beta = float(data.get("beta", 1.0))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TacocatError("luck weights: expected {'weights': {N: [12 numbers]}, 'beta': number}") from None
        return cls(by_size, beta, {k: v for k, v in data.items() if k != "weights"})


@lru_cache(maxsize=8)
def load_weights(path: str | None = None) -> LuckWeights:
    """The weights of `path` (default: the package's `data/luck_weights.json`)."""
    file = Path(path) if path is not None else WEIGHTS_FILE
    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise TacocatError(f"luck weights {file}: cannot be read ({exc.__class__.__name__})") from None
    return LuckWeights.from_dict(data)


def hand_strength(h0: Sequence[int], h1: Sequence[int], w: Sequence[float]) -> float:
    """h(H0, H1) = sum_r w[r] (count_r(H0) - count_r(H1)): player 0's edge
    in the reference, antisymmetric (swapping the hands negates it)."""
    c0, c1 = counts(h0), counts(h1)
    return sum(w[r - 1] * (c0[r] - c1[r]) for r in range(1, RANKS + 1))


def round_scale(board: Board, rules: Ruleset) -> float:
    """A(board): half the game-equity swing between a player-0 and a
    player-1 round win here, G(b after 0 wins) - G(b after 1 wins)."""
    return game_win(board.after_round(0), 0, rules) - game_win(board.after_round(1), 0, rules)


def deal_term(board: Board, hands: Sequence[Sequence[int]], rules: Ruleset, weights: LuckWeights) -> float:
    """Player 0's luck of a deal (R6): A(board) * h(H0, H1); mean 0 over the shuffle."""
    n = board.hand_size(rules)
    return round_scale(board, rules) * hand_strength(hands[0], hands[1], weights.of(n))


def draw_term(
    board: Board, player: int, drawn: Sequence[int], pile: Sequence[int], rules: Ruleset, weights: LuckWeights
) -> float:
    """Player 0's luck of `player`'s replacement draw (R7/R8) of `drawn` from
    `pile` (the draw pile right before the draw): A(board) * s_p * (sum of
    w over the drawn cards - k * mean of w over the pile); mean 0 over the
    drawn cards, each uniform over the pile."""
    k = len(drawn)
    if k == 0:
        return 0.0
    if len(pile) < k:
        raise TacocatError(f"luck: a draw of {k} cards from a draw pile of {len(pile)}")
    w = weights.of(board.hand_size(rules))
    got = sum(w[c - 1] for c in drawn)
    expected = k * sum(w[c - 1] for c in pile) / len(pile)
    sign = 1.0 if player == 0 else -1.0
    return round_scale(board, rules) * sign * (got - expected)


class _Replay(GameState):
    """A game replayed from actions `GameState.apply` already checked when
    it was played: each is taken as recorded, without listing the legal
    ones again (that listing is most of a replay's time)."""

    def _resolve(self, player, kind, action):
        if action.kind != kind:
            raise TacocatError(f"luck: the recorded {action.kind} by player {player} is not the game's next decision")
        return action


class LuckTerm(NamedTuple):
    """One chance event of a game and player 0's luck from it."""

    kind: str
    """"deal" (R6) or "draw" (R7/R8)."""
    deal: int
    """The deal it belongs to, 1 for the first (`GameState.deals`)."""
    player: int | None
    """Who drew (None for a deal)."""
    value: float


def luck_terms(state: GameState, weights: LuckWeights | None = None) -> list[LuckTerm]:
    """Every chance event of the game `state` (finished or not) and player
    0's luck from it, found by replaying it from its ruleset, seed and
    actions (`GameState.actions`); raises TacocatError when the replay does
    not reach the same rounds and board (a state not played from its seed,
    e.g. one made by `GameState.at_play_phase`)."""
    weights = weights or load_weights()
    rules = state.rules
    game = _Replay.new(rules, state.seed)
    terms = [LuckTerm("deal", game.deals, None, deal_term(game.board, game.hands, rules, weights))]
    for entry in state.actions:
        entry = dict(entry)
        player = entry.pop("player")
        deals, board, pile = game.deals, game.board, list(game.draw_pile)
        events = game.apply(player, Action.from_dict(entry))
        for e in events:
            if isinstance(e, ReplaceEvent) and e.cards:
                # cards are drawn from the end of the pile (`GameState._discard_and_draw`)
                k = len(e.cards)
                drawn, rest = pile[len(pile) - k :], pile[: len(pile) - k]
                terms.append(LuckTerm("draw", deals, e.player, draw_term(board, e.player, drawn, pile, rules, weights)))
                pile = rest
        if game.deals == deals and pile != game.draw_pile:
            raise TacocatError("luck: the replayed draws do not leave the game's draw pile")
        if game.deals != deals:  # the round ended and the next one was dealt
            terms.append(LuckTerm("deal", game.deals, None, deal_term(game.board, game.hands, rules, weights)))
    same = (game.rounds, game.board, game.deals, game.phase, game.hands, game.draw_pile) == (
        state.rounds,
        state.board,
        state.deals,
        state.phase,
        state.hands,
        state.draw_pile,
    )
    if not same:
        raise TacocatError("luck: replaying the game from its seed and actions does not give the same game")
    return terms


def game_correction(state: GameState, weights: LuckWeights | None = None) -> float:
    """Player 0's luck over the whole game `state`, in game units (±1 a
    game): beta * the sum of its `luck_terms`.  Player 0's luck-adjusted
    result is its result less this; player 1's correction is minus it."""
    weights = weights or load_weights()
    return weights.beta * sum(t.value for t in luck_terms(state, weights))
