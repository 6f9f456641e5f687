"""Playing for the game: the game-win probability of every board (R18–R19).

Rounds are independent (every deal reshuffles the whole deck, R6), so for two
equal players the chance of winning the game from a board depends only on
the board and on how often a round on each space is won, drawn or lost:

    G(b) = w(b) * G(b after a player-0 win) + d(b) * G(b) + l(b) * G(b after a player-1 win)

A drawn round keeps the board (R17), so  G(b) = (w G(b_w) + l G(b_l)) / (w + l).
Under the `arrow` tie rule a drawn round on a one-arrow space is won by the
arrow's player, so its draw rate folds into that player's rate.

`G` is player 0's game-win probability; player 1's is 1 - G.  The per-space
rates (player 0's win / draw / loss on each space, measured by self-play of
equal bots, `results/round_rates.py`) live in `solver/data/round_rates.json`
for the standard ruleset; any other ruleset gets symmetric defaults.

A search plays for the game by using as round utilities the *game equity*
2 G - 1 of the board each round outcome leads to (`round_utilities`)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from tacocat.errors import TacocatError
from tacocat.rules.board import Board
from tacocat.rules.play import DEFAULT_UTILITIES, tie_winner
from tacocat.rules.ruleset import SPACES, STANDARD, Ruleset

DATA = Path(__file__).resolve().parents[1] / "data"  # the package's data/ (tacocat/data)
RATES_FILE = DATA / "round_rates.json"
VALUES_FILE = DATA / "game_values.json"

DEFAULT_DRAW = 0.10
"""Draw rate assumed on every space when no measured rates exist."""

ROUND_UTILITIES = DEFAULT_UTILITIES
"""Round-only utilities of (win, drawn round, loss)."""


def _default_rates() -> list[tuple[float, float, float]]:
    w = (1.0 - DEFAULT_DRAW) / 2
    return [(w, DEFAULT_DRAW, w)] * SPACES


@lru_cache(maxsize=None)
def _measured_rates() -> tuple[tuple[float, float, float], ...] | None:
    try:
        data = json.loads(RATES_FILE.read_text())
        rates: list[tuple[float, float, float] | None] = [None] * SPACES
        for row in data["spaces"]:
            rates[int(row["space"])] = (float(row["win0"]), float(row["draw"]), float(row["win1"]))
        known = tuple(r for r in rates if r is not None)
        return known if len(known) == SPACES else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def round_rates(rules: Ruleset = STANDARD) -> list[tuple[float, float, float]]:
    """Player 0's (win, drawn round, loss) rate of a round on each space
    between equal players: measured for the standard ruleset, symmetric
    defaults otherwise."""
    if rules == STANDARD:
        measured = _measured_rates()
        if measured is not None:
            return list(measured)
    return _default_rates()


def _effective(rules: Ruleset, space: int, rates: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """(player 0 wins, player 1 wins) of a decided round on `space`."""
    w, d, l = rates[space]
    tie = tie_winner(rules, rules.arrows[space])  # R17: a drawn showdown may be the arrow's
    if tie == 0:
        w += d
    elif tie == 1:
        l += d
    return w, l


def game_win_table(
    rules: Ruleset = STANDARD, rates: Sequence[tuple[float, float, float]] | None = None
) -> dict[Board, float]:
    """Player 0's game-win probability for every board reachable from the
    start (R5), by a DP over boards."""
    rates = list(rates) if rates is not None else round_rates(rules)
    memo: dict[Board, float] = {}
    _game_win0(Board(), rules, rates, memo)
    return memo


def _game_win0(
    b: Board, rules: Ruleset, rates: Sequence[tuple[float, float, float]], memo: dict[Board, float]
) -> float:
    """Player 0's game-win probability from `b` (the recurrence of the module
    docstring); every undecided board reached is stored in `memo`."""
    if b.winner is not None:
        return 1.0 if b.winner == 0 else 0.0
    if b in memo:
        return memo[b]
    w, l = _effective(rules, b.cat, rates)
    if w + l <= 0:
        value = 0.5
    else:
        after_win = _game_win0(b.after_round(0), rules, rates, memo)
        after_loss = _game_win0(b.after_round(1), rules, rates, memo)
        value = (w * after_win + l * after_loss) / (w + l)
    memo[b] = value
    return value


@lru_cache(maxsize=64)
def _table(rules: Ruleset) -> dict[Board, float]:
    return game_win_table(rules)


def game_win(board: Board, player: int, rules: Ruleset = STANDARD) -> float:
    """`player`'s probability of winning the game from `board` between equal
    players (1 or 0 when the cat is already in a goal)."""
    if player not in (0, 1):
        raise TacocatError(f"player must be 0 or 1, got {player!r}")
    if board.winner is not None:
        return 1.0 if board.winner == player else 0.0
    g0 = _table(rules).get(board)
    if g0 is None:  # a board not reachable from the start (typed in by hand)
        g0 = _game_win0(board, rules, round_rates(rules), {})
    return g0 if player == 0 else 1.0 - g0


def outcome_boards(board: Board, player: int, rules: Ruleset = STANDARD) -> tuple[Board, Board, Board]:
    """The boards after `player` wins, draws and loses the current round."""
    win = board.after_round(player)
    loss = board.after_round(1 - player)
    arrow = rules.arrows[board.cat] if 0 <= board.cat < SPACES else "both"
    tie = tie_winner(rules, arrow)  # R17: a drawn round keeps the board, or is the arrow's
    draw = board if tie is None else win if tie == player else loss
    return win, draw, loss


def round_game_wins(board: Board, player: int, rules: Ruleset = STANDARD) -> tuple[float, float, float]:
    """`player`'s game-win probability after winning, drawing and losing the
    current round."""
    if board.winner is not None:
        raise TacocatError("the game is over: the cat is in a goal", "R19")
    return tuple(game_win(b, player, rules) for b in outcome_boards(board, player, rules))  # type: ignore[return-value]


def _round_units(board: Board, player: int, rules: Ruleset) -> tuple[float, float, float]:
    win, draw, loss = ROUND_UTILITIES
    arrow = rules.arrows[board.cat] if 0 <= board.cat < SPACES else "both"
    tie = tie_winner(rules, arrow)  # R17, as outcome_boards reads it
    return (win, draw if tie is None else win if tie == player else loss, loss)


def round_utilities(
    board: Board, player: int, rules: Ruleset = STANDARD, kind: str | Sequence[float] = "game"
) -> tuple[float, float, float]:
    """`player`'s utilities of (win, tied showdown, loss) of the current round:
    "game" = game equity 2G - 1 of the board each outcome leads to,
    "round" = (1, 0, -1) — a tie being the round of the arrow's player where
    the tie rule gives it to the arrow (R17: +1 or -1 in the middle) —, or an
    explicit triple."""
    if isinstance(kind, str):
        if kind == "round":
            return _round_units(board, player, rules)
        if kind == "game":
            return tuple(2.0 * g - 1.0 for g in round_game_wins(board, player, rules))  # type: ignore[return-value]
        raise TacocatError(f"utilities {kind!r} unknown; expected 'game', 'round' or three numbers")
    from tacocat.core.exact import check_utilities  # the one check of three finite numbers

    try:
        u = tuple(float(x) for x in check_utilities(kind))
    except TacocatError:
        raise TacocatError(f"utilities must be 'game', 'round' or three finite numbers, got {kind!r}") from None
    if len(u) != 3 or not (u[0] >= u[1] >= u[2]) or u[0] == u[2]:
        raise TacocatError(f"utilities (win, draw, loss) must satisfy win >= draw >= loss, win > loss; got {kind!r}")
    return u  # type: ignore[return-value]


def write_values(rules: Ruleset = STANDARD, path: Path = VALUES_FILE) -> dict:
    """Write player 0's game-win probability of every reachable board."""
    table = game_win_table(rules)
    rows = [
        {"cat": b.cat, "covered": sorted(b.covered), "game_win0": round(v, 6)}
        for b, v in sorted(table.items(), key=lambda kv: (len(kv[0].covered), kv[0].cat, sorted(kv[0].covered)))
    ]
    doc = {
        "about": "player 0's game-win probability between equal players, by board (solver/gamevalue.py)",
        "ruleset": rules.name,
        "rates": [list(r) for r in round_rates(rules)],
        "boards": rows,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


if __name__ == "__main__":  # python -m tacocat.search.gamevalue
    doc = write_values()
    print(f"wrote {VALUES_FILE} ({len(doc['boards'])} boards)")
