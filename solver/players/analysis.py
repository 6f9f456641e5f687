"""Post-game analysis: replay a game record, ask `hint` about every decision
a player made, and rank the decisions by the expected value they gave away.

The cost of a decision is the value (by default the game equity, 2 x
game-win chance - 1, of the board each round outcome leads to; or +1/0/-1
for the round alone — from the deciding player's information set, as
`hint` computes it) of the best move the engine found less the value of the
move played.  Sampled values carry a 95% margin
(`tacocat.search.ranking.margin_of`: none on fewer than `FEW_SAMPLES`
deals), an equilibrium's the exploitability it reached; a cost is
*significant* (a costly decision, a mistake) only when it is beyond the
noise of both estimates: larger than the two margins together, so that
the two values' intervals do not touch.  A mistake the
engine itself would have made with less search is said so (`pick_at`):
the search is run again on a third, then a tenth of what it spent, and the
largest of these budgets whose pick is the move played is kept.
Decisions with a single legal move cost nothing and are not searched.

On the game scale a cost reads as game-win percentage points: equity is
2 x game-win chance - 1, so one unit of equity is 50 points
(`POINTS_PER_EQUITY`).  `Analysis.curve` is the game's equity decision by
decision, from player 0's side: the board's equity at each deal (R6, the
game-value table) and, after each searched decision, the value of the move
played as the deciding player saw it (the other player's equity is its
negative: a game has one winner, R19, or is drawn at 0 for both, RULES §8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from tacocat.errors import RecordError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand
from tacocat.rules.events import Decision
from tacocat.rules.game import GameRecord
from tacocat.search.options import Method
from tacocat.search.ranking import margin_of, samples_of
from tacocat.search.results import MoveEval

if TYPE_CHECKING:
    from tacocat.search.hint import HintResult

POINTS_PER_EQUITY = 50.0
"""Game-win percentage points per unit of game equity (2 G - 1)."""
LOWER_BUDGETS = (1 / 3, 1 / 10)
"""The shares of a costly decision's search budget tried again, largest
first, to see whether the move played was the engine's own pick with less search."""


@dataclass(frozen=True)
class CurvePoint:
    """The game's equity at one moment, from player 0's side."""

    index: int
    """Actions played before this point (0 = the first deal)."""
    round: int
    kind: str
    """"deal" (a round starts: the board's equity), "decision" (after a
    searched decision: the value of the move played) or "end"."""
    equity: float
    """Player 0's equity, -1..+1 (game scale: 2 x game-win chance - 1)."""
    player: int | None = None
    """Who decided (decision points)."""

    def for_player(self, player: int) -> float:
        return self.equity if player == 0 else -self.equity

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "round": self.round,
            "kind": self.kind,
            "equity": round(self.equity, 6),
            "player": self.player,
        }


@dataclass
class DecisionReview:
    """One decision of the game as the engine sees it afterwards."""

    index: int
    """Position of the action in the record (0-based)."""
    round: int
    """Round number, 1-based, drawn rounds included."""
    player: int
    decision: str
    """replace, duel, attack or answer."""
    hand: Hand
    """The player's hand before the decision."""
    table: Hand
    """The attack being answered (answers only)."""
    seen: Hand
    """Face-up cards of the round at the time (not the table)."""
    played: Action
    legal: int
    """How many legal moves there were."""
    played_value: float | None = None
    played_stderr: float | None = None
    played_margin: float | None = None
    """95% margin of `played_value` (`tacocat.search.ranking.margin_of`)."""
    played_samples: int | None = None
    """Deals (ISMCTS: iterations) behind `played_value`."""
    best: MoveEval | None = None
    """The engine's best move."""
    best_value: float | None = None
    best_stderr: float | None = None
    best_margin: float | None = None
    best_samples: int | None = None
    pick_at: dict | None = None
    """A costly decision whose move played was the engine's own pick with
    less search: {"share": of the budget, "samples": the budget} (the
    largest of `LOWER_BUDGETS` that picked it), else None."""
    method: str | None = None
    exact: bool = False
    """True when the values are exact (no sampling error)."""
    seconds: float = 0.0
    hint: HintResult | None = field(default=None, repr=False)
    """The engine's whole answer (kept when asked)."""

    @property
    def forced(self) -> bool:
        return self.legal <= 1

    @property
    def cost(self) -> float | None:
        """Expected value given away (>= 0), None when unknown."""
        if self.forced:
            return 0.0
        if self.best_value is None or self.played_value is None:
            return None
        return max(self.best_value - self.played_value, 0.0)

    @property
    def margin(self) -> float | None:
        """The noise of both estimates: the sum of the two values' 95%
        margins (None when exact, or when either value has no margin)."""
        if self.best_margin is None or self.played_margin is None:
            return None
        return self.best_margin + self.played_margin

    @property
    def significant(self) -> bool:
        """The cost is beyond the noise of both estimates (exact values: any
        cost; a value without a margin, too few deals: never)."""
        cost = self.cost
        if not cost:
            return False
        if self.exact:
            return cost > 1e-9
        margin = self.margin
        return margin is not None and cost > margin

    def to_dict(self, with_hint: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "index": self.index,
            "round": self.round,
            "player": self.player,
            "decision": self.decision,
            "hand": list(self.hand),
            "table": list(self.table),
            "seen": list(self.seen),
            "played": self.played.to_dict(),
            "legal": self.legal,
            "played_value": self.played_value,
            "played_stderr": self.played_stderr,
            "best": self.best.to_dict() if self.best is not None else None,
            "best_value": self.best_value,
            "best_stderr": self.best_stderr,
            "played_samples": self.played_samples,
            "best_samples": self.best_samples,
            "cost": self.cost,
            "margin": self.margin,
            "significant": self.significant,
            "pick_at": self.pick_at,
            "method": self.method,
            "exact": self.exact,
            "seconds": round(self.seconds, 4),
        }
        if with_hint:
            d["hint"] = self.hint.to_dict() if self.hint is not None else None
        return d


@dataclass
class Analysis:
    """Every reviewed decision of one game."""

    seed: int
    players: tuple[int, ...]
    decisions: list[DecisionReview]
    actions: int
    """Actions in the record."""
    winner: int | None
    """The player whose goal the cat entered; None for an unfinished game
    and for a drawn one (`drawn`)."""
    rounds: list[dict]
    complete: bool = True
    """False when stopped early (`stop`)."""
    utilities: str = "game"
    """The scale of every value: "game" (game equity) or "round"."""
    curve: list[CurvePoint] = field(default_factory=list)
    """The game's equity decision by decision (player 0's side)."""
    over: bool = False
    """The record ends the game: the cat in a goal (R19) or `max_deals` deals
    played (RULES §8)."""
    max_deals: int | None = None
    """The record's ruleset's `max_deals` (RULES §8)."""

    @property
    def drawn(self) -> bool:
        """A drawn game: over at `max_deals` deals with the cat in no goal (RULES §8)."""
        return self.over and self.winner is None

    @property
    def outcome(self) -> str:
        """ "won by player N", "drawn game (max_deals reached)" or "unfinished"."""
        if self.winner is not None:
            return f"won by player {self.winner}"
        return "drawn game (max_deals reached)" if self.over else "unfinished"

    def costliest(self, top: int | None = None, player: int | None = None) -> list[DecisionReview]:
        """Decisions that gave away value, costliest first."""
        rows = [d for d in self.decisions if d.cost and (player is None or d.player == player)]
        rows.sort(key=lambda d: (-(d.cost or 0.0), d.index))
        return rows if top is None else rows[:top]

    def total_cost(self, player: int) -> float:
        return sum(d.cost or 0.0 for d in self.decisions if d.player == player)

    def costly(self, player: int) -> list[DecisionReview]:
        """`player`'s decisions whose cost is clear of the sampling noise."""
        return [d for d in self.decisions if d.player == player and d.significant]

    def points(self, cost: float | None) -> float | None:
        """A cost on the game-win percentage scale (None on the round scale)."""
        if cost is None or self.utilities != "game":
            return None
        return cost * POINTS_PER_EQUITY

    def unknown(self) -> list[DecisionReview]:
        """Decisions whose played move the engine did not score."""
        return [d for d in self.decisions if d.cost is None]

    def to_dict(self, top: int | None = None, with_hints: bool = False) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "players": list(self.players),
            "actions": self.actions,
            "winner": self.winner,
            "over": self.over,
            "drawn": self.drawn,
            "rounds": self.rounds,
            "complete": self.complete,
            "reviewed": len(self.decisions),
            "searched": sum(1 for d in self.decisions if not d.forced),
            "total_cost": {str(p): round(self.total_cost(p), 6) for p in self.players},
            "utilities": self.utilities,
            "points_given_away": {str(p): _round(self.points(self.total_cost(p))) for p in self.players},
            "costly": {str(p): len(self.costly(p)) for p in self.players},
            "costliest": [d.to_dict() for d in self.costliest(top)],
            "decisions": [d.to_dict(with_hints) for d in self.decisions],
            "curve": [c.to_dict() for c in self.curve],
        }


def _matches(move: Action, action: Action) -> bool:
    """`move` is `action`, an answer's beat/sacrifice compared only when both say it."""
    if move.kind != action.kind or move.cards != action.cards:
        return False
    if action.kind == Decision.ANSWER and action.beats is not None and move.beats is not None:
        return bool(move.beats) == bool(action.beats)
    return True


def _stopped(stop: Any) -> bool:
    if stop is None:
        return False
    if hasattr(stop, "is_set"):
        return bool(stop.is_set())
    return bool(stop())


def _spent(result: HintResult) -> int | None:
    """What a search spent, in its budget's unit: a replacement's (candidate,
    deal) evaluations, else its deals or iterations."""
    evaluations = getattr(result.search, "evaluations", None)
    if isinstance(evaluations, int) and evaluations > 0:
        return evaluations
    n = result.iterations if result.method == Method.ISMCTS else result.samples
    return n if isinstance(n, int) and n > 0 else None


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


@dataclass(frozen=True)
class _Ask:
    """How every decision of one analysis is searched (`analyze`'s budget)."""

    iterations: int | None
    time_ms: int | None
    seed: int
    method: str
    utilities: str
    stop: Any
    """The analysis's stop: an event is also handed to each search."""
    keep_hints: bool

    @property
    def event(self) -> Any:
        return self.stop if hasattr(self.stop, "is_set") else None

    def hint(self, view: Any, index: int, samples: int | None = None, method: str | None = None) -> HintResult:
        """`hint` on decision `index` (seed `seed + index`): the analysis's
        budget, or `samples` deals of `method` (a search run again with less)."""
        from tacocat.search.budget import Budget
        from tacocat.search.hint import hint  # the search engine; imported when used

        if samples is None:
            budget = Budget(samples=self.iterations, time_ms=self.time_ms, seed=self.seed + index, stop=self.event)
        else:
            budget = Budget(samples=samples, seed=self.seed + index, stop=self.event)
        return hint(view, budget, method=method or self.method, utilities=self.utilities)


def analyze(
    record: GameRecord | Mapping[str, Any],
    *,
    players: Iterable[int] = (0, 1),
    iterations: int | None = None,
    time_ms: int | None = None,
    seed: int = 0,
    method: str = "auto",
    utilities: str = "game",
    keep_hints: bool = False,
    progress: Callable[[int, int], Any] | None = None,
    stop: Any = None,
) -> Analysis:
    """Review every decision of `players` in a game record with `hint`.

    The budget (`iterations`, `time_ms`, `method`) applies to each decision;
    `utilities` ("game" or "round") is what a round outcome is worth, as in
    `hint`;
    decision i is searched with seed `seed + i`, so an analysis repeats
    exactly.  `progress(done, total)` is called after each decision.
    `stop` (a `threading.Event`, or a callable returning true) ends the
    analysis early (`complete` False); an event is also handed to `hint`."""
    if not isinstance(record, GameRecord):
        record = GameRecord.from_dict(record)
    players = _players(players)
    final = record.replay()  # validates the whole record first
    steps = list(record.steps())
    todo = [i for i, (_, p, _) in enumerate(steps) if p in players]
    ask = _Ask(iterations, time_ms, seed, method, utilities, stop, keep_hints)
    curve = _deal_points(steps, final, utilities)
    reviews: list[DecisionReview] = []
    complete = True
    for done, i in enumerate(todo, 1):
        if _stopped(stop):
            complete = False
            break
        review = _review(steps[i], i, final)
        if not review.forced:
            _search(review, steps[i][0].view(review.player), ask)
        reviews.append(review)
        if review.played_value is not None:
            v = review.played_value if review.player == 0 else -review.played_value
            curve.append(CurvePoint(i + 1, review.round, "decision", v, review.player))
        if progress is not None:
            progress(done, len(todo))
    curve = _curve_ends(curve, final, len(steps), complete, reviews)
    return Analysis(
        utilities=utilities,
        curve=curve,
        seed=record.seed,
        players=players,
        decisions=reviews,
        actions=len(record.actions),
        winner=final.winner,
        over=final.over,
        max_deals=final.rules.max_deals,
        rounds=final.rounds,
        complete=complete,
    )


def _players(players: Iterable[int]) -> tuple[int, ...]:
    """The players to review, checked: 0 and/or 1."""
    chosen = tuple(sorted(set(players)))
    if not chosen or any(p not in (0, 1) for p in chosen):
        raise RecordError(f"players to analyse must be 0 and/or 1, got {list(chosen)}")
    return chosen


def _deal_points(steps: list, final: Any, utilities: str) -> list[CurvePoint]:
    """The curve's point at every deal: the board's equity as the round
    starts (R6, the game-value table; 0 on the round scale)."""
    from tacocat.search.gamevalue import game_win

    curve: list[CurvePoint] = []

    def deal_point(i: int) -> None:
        state = steps[i][0] if i < len(steps) else final
        if state.over:
            return
        equity = 2.0 * game_win(state.board, 0, state.rules) - 1.0 if utilities == "game" else 0.0
        curve.append(CurvePoint(i, len(state.rounds) + 1, "deal", equity))

    deal_point(0)
    for i in range(1, len(steps) + 1):
        after = steps[i][0] if i < len(steps) else final
        if len(after.rounds) > len(steps[i - 1][0].rounds):  # action i - 1 ended a round: a new deal
            deal_point(i)
    return curve


def _review(step: tuple, i: int, final: Any) -> DecisionReview:
    """Decision `i` as it stood, not yet searched."""
    state, player, action = step
    return DecisionReview(
        index=i,
        round=len(state.rounds) + 1,
        player=player,
        decision=state.decision(player) or action.kind,
        hand=state.hands[player],
        table=state.table,
        seen=state.view(player).seen,
        # as the engine resolved it: an answer's `beats` filled in when the record left it out
        played=Action.from_dict(final.actions[i]),
        legal=len(state.legal_actions(player)),
    )


def _search(review: DecisionReview, view: Any, ask: _Ask) -> None:
    """Fill `review` from the engine's hint on its decision: the best move's
    value and the played move's, their margins, and whether a costly move
    played was the engine's own pick with less search."""
    result = ask.hint(view, review.index)
    _read_hint(review, result)
    if review.significant and not review.exact and result.method in (Method.PIMC, Method.ISMCTS):
        review.pick_at = _pick_at(review, view, ask, _spent(result) or 0, result.method)
    if ask.keep_hints:
        review.hint = result


def _read_hint(review: DecisionReview, result: HintResult) -> None:
    """The values of the best move and of the move played, as the hint gives them."""
    moves = result.moves
    best = result.best if moves else None
    review.method = result.method
    review.exact = result.exact
    review.seconds = _num(result.seconds) or 0.0
    review.best = best
    if best is not None:
        review.best_value = _num(best.value)
        review.best_stderr = _num(best.stderr)
        review.best_margin = margin_of(best, result)
        review.best_samples = samples_of(best, result)
    mine = next((m for m in moves if _matches(m.action, review.played)), None)
    if mine is not None:
        review.played_value = _num(mine.value)
        review.played_stderr = _num(mine.stderr)
        review.played_margin = margin_of(mine, result)
        review.played_samples = samples_of(mine, result)
    noise = result.equilibrium.exploitability if result.equilibrium is not None else None
    if result.method == Method.EQUILIBRIUM and noise is not None:
        # CFR's values are as good as its exploitability: no sampling, no standard error
        review.best_margin = review.played_margin = noise


def _pick_at(review: DecisionReview, view: Any, ask: _Ask, spent: int, method: str) -> dict | None:
    """The largest of `LOWER_BUDGETS` of what the search spent whose pick
    is the move played: {"share", "samples"}, else None."""
    for share in LOWER_BUDGETS if spent else ():
        samples = max(1, int(spent * share))
        again = ask.hint(view, review.index, samples=samples, method=method)
        if again.moves and _matches(again.action, review.played):
            return {"share": round(share, 4), "samples": samples}
    return None


def _curve_ends(
    curve: list[CurvePoint], final: Any, actions: int, complete: bool, reviews: list[DecisionReview]
) -> list[CurvePoint]:
    """The curve in order: its end point when the game is over (+1/-1 for
    a win, 0 drawn), cut after the last reviewed decision when stopped early."""
    if final.over:
        end = 0.0 if final.winner is None else (1.0 if final.winner == 0 else -1.0)
        curve.append(CurvePoint(actions, len(final.rounds), "end", end))
    if not complete:
        last = reviews[-1].index + 1 if reviews else 0
        curve = [c for c in curve if c.kind == "decision" or c.index <= last]
    curve.sort(key=lambda c: (c.index, c.kind != "decision"))
    return curve
