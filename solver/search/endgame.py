"""Exact endgame solutions: a play-phase decision where only your own hand
and the face-up cards are known (RULES §5), answered exactly.

`solve_endgame(view)` enumerates every opponent hand consistent with the
view with its exact probability (`tacocat.search.sampling.HandSampler`), solves each
with both hands known (`tacocat.search.hint.hint(view, method="exact")`, i.e.
`tacocat.search.pimc.exact_play`) and adds a principal variation: for the best move,
a few representative opponent hands — the most likely ones, with at least
one for every outcome the best move can have when there is room — and the
perfect-information line of play after the best move against each
(`tacocat.core.exact.solve`).

The odds are exact under the usual double-dummy assumption: after the
move, both sides play perfectly as if every card were known.  A view with
more distinct opponent hands than `max_hands` is refused with
`EnumerationTooLarge` (sampling, `tacocat.search.hint.hint(method="pimc")`, is the
way to go there)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

from tacocat.core.exact import PVStep, solve
from tacocat.errors import TacocatError
from tacocat.rules.cards import Hand
from tacocat.rules.play import PlayPosition, showdown
from tacocat.rules.views import View
from tacocat.search.budget import Budget
from tacocat.search.hint import EXACT_LIMIT, HintResult, hint
from tacocat.search.pimc import PerfectSolver, check_play_view, play_attacker
from tacocat.search.sampling import HandSampler, world_hands

DEFAULT_MAX_HANDS = 20_000
"""Refuse to enumerate more distinct opponent hands than this by default."""
DEFAULT_LINES = 3
"""Representative opponent hands shown in the principal variation."""
OUTCOMES = ("win", "draw", "loss")


class EnumerationTooLarge(TacocatError):
    """More distinct opponent hands than the budget allows."""

    code = "too_many_hands"

    def __init__(self, hands: int, budget: int) -> None:
        self.hands = hands
        self.budget = budget
        super().__init__(
            f"the opponent may hold {hands} distinct hands, more than the budget of {budget} (max_hands); "
            "raise the budget or sample instead (hint with method pimc)"
        )


@dataclass(frozen=True)
class EndgameLine:
    """The best move against one opponent hand, then perfect play by both."""

    opponent: Hand
    """The opponent's hand in this world."""
    probability: Fraction
    """Its exact probability given the view."""
    steps: list[PVStep]
    """The line of play: the attack on the table (if the view has one),
    the best move, then a perfect-information principal variation."""
    showdown: tuple[int, int]
    """(your last card, the opponent's last card)."""
    outcome: str
    """Your round result: "win", "draw" or "loss"."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "opponent": list(self.opponent),
            "probability": float(self.probability),
            "fraction": f"{self.probability.numerator}/{self.probability.denominator}",
            "steps": [s.to_dict() for s in self.steps],
            "showdown": list(self.showdown),
            "outcome": self.outcome,
        }


@dataclass
class EndgameResult:
    """What `solve_endgame` found; values are the asking player's."""

    view: View
    hands: int
    """Distinct opponent hands enumerated."""
    result: HintResult
    """The exact ranking of every move (`tacocat.search.hint.hint`)."""
    lines: list[EndgameLine]
    """Representative lines of play for the best move."""
    best_hands: dict[str, int] = field(default_factory=dict)
    """How many of the opponent hands the best move wins, draws, loses."""
    seconds: float = 0.0

    @property
    def best(self):
        return self.result.moves[0]

    def to_dict(self) -> dict[str, Any]:
        moves = [m.to_dict() for m in self.result.moves]
        return {
            "method": "exact",
            "exact": True,
            "hands": self.hands,
            "player": self.view.player,
            "decision": self.result.decision,
            "table": list(self.view.table),
            "attacker": self.view.attacker,
            "utilities": list(self.result.utilities),
            "moves": moves,
            "best": moves[0] if moves else None,
            "best_hands": dict(self.best_hands),
            "pv": [line.to_dict() for line in self.lines],
            "seconds": self.seconds,
        }


def _int_arg(value: Any, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f"at least {low}"
        raise TacocatError(f"{name} must be an integer {span}, got {value!r}")
    return value


def solve_endgame(
    view: View,
    *,
    max_hands: int = DEFAULT_MAX_HANDS,
    utilities: str | Sequence[float] = "round",
    lines: int = DEFAULT_LINES,
    progress: Callable[..., None] | None = None,
) -> EndgameResult:
    """Solve the play-phase decision of `view` exactly over every opponent
    hand (see the module docstring).  `utilities`: "round" (+1 / 0 / -1,
    the default), "game" (game equity of the board each outcome leads to)
    or your own worth of (win, drawn round, loss).  Raises
    `EnumerationTooLarge` beyond `max_hands` hands (at most
    `tacocat.search.hint.EXACT_LIMIT`), other `TacocatError`s for bad input."""
    t0 = time.perf_counter()
    check_play_view(view)
    max_hands = _int_arg(max_hands, "max_hands", 1, EXACT_LIMIT)
    lines = _int_arg(lines, "lines", 0)
    sampler = HandSampler(view)
    n = sampler.count()
    if n > max_hands:
        raise EnumerationTooLarge(n, max_hands)
    solver = PerfectSolver(view.rules)
    result = hint(view, Budget(progress=progress), method="exact", utilities=utilities, solver=solver)
    if not result.exact or not result.moves:  # pragma: no cover - exact never stops without `stop`
        raise TacocatError("the exact enumeration did not finish")
    best = result.moves[0].action
    beats = best.beats if best.kind == "answer" else None

    attacker = play_attacker(view)
    worlds, tally = _outcomes_of(view, sampler, solver, attacker, best.cards, beats)
    chosen = _representatives(worlds, lines)
    out_lines = [_line(view, attacker, best.cards, beats, p, opp, mine) for p, opp, mine in chosen]
    return EndgameResult(view, n, result, out_lines, tally, time.perf_counter() - t0)


def _outcomes_of(
    view: View, sampler: HandSampler, solver: PerfectSolver, attacker: int, cards: Hand, beats: bool | None
) -> tuple[list, dict[str, int]]:
    """The best move's outcome against every hand, to pick representatives:
    (probability, hand, outcome) most likely first, and the outcomes' tally."""
    worlds = []
    tally = dict.fromkeys(OUTCOMES, 0)
    for opp, _ in sampler.iter_hands():  # every hand, in `enumerate`'s order
        after = PlayPosition(world_hands(view, opp), attacker, view.table, view.rules).after(cards, beats)
        o = solver.outcome(after.hands, after.attacker, after.table)
        mine = OUTCOMES[1 - (o if view.player == 0 else -o)]
        tally[mine] += 1
        worlds.append((sampler.probability(opp), opp, mine))
    worlds.sort(key=lambda w: (-w[0], list(w[1])))
    return worlds, tally


def _line(view: View, attacker: int, cards: Hand, beats: bool | None, p: Fraction, opp: Hand, mine: str) -> EndgameLine:
    """The principal variation after the best move against hand `opp`, to
    the showdown (R16-R17)."""
    start = PlayPosition(world_hands(view, opp), attacker, view.table, view.rules)
    steps = [PVStep(attacker, view.table, None)] if view.table else []
    steps.append(PVStep(view.player, cards, beats))
    after = start.after(cards, beats)
    if after.is_showdown:
        final = (after.hands[0][0], after.hands[1][0])
    else:
        pv = solve(after, moves=False)
        steps += pv.pv
        if pv.showdown is None:  # pragma: no cover - solve gives its variation unless told not to
            raise TacocatError(f"internal: no principal variation against {opp}")
        final = pv.showdown
    mine_last, their_last = final[view.player], final[1 - view.player]
    outcome = OUTCOMES[1 - showdown(((mine_last,), (their_last,)))]  # R17, from my side
    if outcome != mine:  # pragma: no cover - the two solvers agree (tests/test_solver.py)
        raise TacocatError(f"internal: the line against {opp} ends in a {outcome}, the search said {mine}")
    return EndgameLine(opp, p, steps, (mine_last, their_last), outcome)


def _representatives(worlds: list, n: int) -> list:
    """The `n` most likely worlds, except that every outcome of the best
    move gets one (its most likely world) when `n` leaves room."""
    if n <= 0:
        return []
    firsts: dict[str, int] = {}
    for i, (_, _, mine) in enumerate(worlds):
        firsts.setdefault(mine, i)
    if len(firsts) > n:
        return worlds[:n]
    picked = set(firsts.values())
    for i in range(len(worlds)):
        if len(picked) >= n:
            break
        picked.add(i)
    return [worlds[i] for i in sorted(picked)]
