"""What should I do now?  `hint(view)` ranks every move of the view's
decision with its round odds, expected utility and game-win probability.

Methods (`method=`):

- "exact": play-phase decisions — every distinct opponent hand with its exact
  probability (`tacocat.search.sampling`), each solved with the perfect-information
  solver (`tacocat.search.pimc.exact_play`); duel — the same worlds feed the matrix
  game (`tacocat.search.decisions`).  Replacement draws unknown cards, so it is
  never exact: asking "exact" there falls back to sampling.
- "pimc": sampled opponent hands, each solved exactly (`iterations` = number
  of samples; for a replacement, the number of candidate evaluations).
- "ismcts": information-set MCTS (`tacocat.search.ismcts`, play phase; other
  decisions fall back to sampling).
- "equilibrium": play-phase decisions — the equilibrium of the endgame with
  hidden hands (`tacocat.search.equilibrium`, CFR to exploitability 1e-3 or
  `iterations` / `time_ms`); moves come likeliest first with their
  equilibrium probabilities in `mixed`.  Other decisions are sampled, as with "pimc".
- "auto": the equilibrium for play-phase endgames of at most
  `tacocat.search.equilibrium.AUTO_CARDS` cards a hand (unless `time_ms` is
  below `AUTO_MIN_MS`); else exact when the opponent's possible hands number at most
  `exact_budget` (also when `iterations` or `time_ms` is given), else
  PIMC.

Utilities: by default the search plays for the game — a round outcome is
worth the game equity 2 G - 1 of the board it leads to (`tacocat.search.gamevalue`),
so "value" is the expected equity in [-1, 1] and "game_win" = (value + 1) / 2
for a search that plays the rest of the game as the equal players the table
assumes.  `utilities="round"` scores a round 1 / 0 / -1 instead."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.events import PLAY_DECISIONS, Phase
from tacocat.rules.game import DUEL, REPLACE
from tacocat.rules.ruleset import Ruleset
from tacocat.rules.views import View
from tacocat.search.budget import Budget, budget_of, scaled_minimum
from tacocat.search.gamevalue import ROUND_UTILITIES, round_game_wins, round_utilities
from tacocat.search.options import METHODS, Method
from tacocat.search.pimc import MIN_SAMPLES, PerfectSolver, WorldSearch, exact_play, pimc_play
from tacocat.search.results import MixedMove, MoveEval, PlayResult, add_known
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler

if TYPE_CHECKING:  # the subgame searches load numpy: imported where they run
    from tacocat.search.duel_game import SubgameResult
    from tacocat.search.equilibrium import EquilibriumHint

DEFAULT_HINT_SAMPLES = 3000
DEFAULT_HINT_MS = 500
"""A sampled play-phase hint with no budget given takes `DEFAULT_HINT_SAMPLES`
deals or `DEFAULT_HINT_MS` milliseconds, the first reached: about what a
hint may take.  3000 deals give a 95% margin near ±0.01 on a value (the
table states every row's margin); a position that solves fast stays
reproducible from the seed, a slow one (8-card hands on a loaded machine)
stops at the time.  Give `iterations` for a result reproducible anywhere."""
EXACT_LIMIT = 200_000
DEFAULT_INFERENCE = "off"
"""The inference model of a hint when none is asked for (issue 24: the
default is whatever measures stronger, results/strength_whole.md)."""


@dataclass(frozen=True)
class Knobs:
    """How a search is shaped beyond its budget: what a bot sets and a user
    rarely does.  `tacocat.players.bots.SearchBot` passes its own; `hint`
    takes the defaults.  None means the search's own default."""

    duel_samples: int | None = None
    """Duel: sampled deals (instead of the budget's samples)."""
    duel_exact_budget: int | None = None
    """Duel: enumerate hands exactly up to this many (-1: always sample)."""
    replace_samples: int | None = None
    """Replacement: evaluations (instead of the budget's samples)."""
    candidates: int | None = None
    """Replacement: discard sets compared (the static score's best)."""
    threads: int = 1
    """ISMCTS: root-parallel trees."""
    exact_cards: int | None = None
    """ISMCTS: rollouts switch to the exact solver at this many cards."""
    c_uct: float | None = None
    """ISMCTS: the UCB exploration constant."""
    rollout: str | None = None
    """ISMCTS: the rollout policy."""
    equilibrium_cards: int | None = None
    """Play phase, method auto: the hidden-hand equilibrium for endgames of at
    most this many cards a hand (None: `tacocat.search.equilibrium.AUTO_CARDS`;
    0: never, as plain PIMC bots ask)."""
    inference: str | None = None
    """The model of the opponent's choices that weights the worlds
    (`tacocat.search.inference.MODELS`); None: the hint's own default."""
    round_search: bool = False
    """Replacement and duel searched with the round's real continuation
    (`tacocat.search.decisions`, module docstring); off: each world's own
    continuation (the search `pimc_classic` keeps, `tacocat.players.reference`)."""
    duel: str = "matrix"
    """The duel's search: "matrix" (`tacocat.search.decisions.duel_eval`) or
    "bayes" (a Bayesian game over both players' hands, `tacocat.search.duel_game`)."""
    replace: str = "static"
    """The replacement's search: "static" (`tacocat.search.decisions.replace_eval`)
    or "game" (solved as a game with the opponent's reply, `tacocat.search.replace_game`)."""


@dataclass(frozen=True)
class HintResult:
    """A ranked answer to one decision; immutable."""

    method: str
    """"exact", "pimc" or "ismcts": what actually ran."""
    exact: bool
    """True when the odds average every consistent opponent hand exactly."""
    decision: str
    """The decision the moves answer (a `Decision`'s word: attack, answer, replace or duel)."""
    moves: tuple[MoveEval, ...]
    """Every evaluated move, best first."""
    seconds: float
    samples: int | None = None
    """Worlds evaluated (sampled methods)."""
    iterations: int | None = None
    """ISMCTS iterations."""
    mixed: tuple[MixedMove, ...] | None = None
    """Duel only: my optimal mixed strategy."""
    utilities: tuple[float, float, float] = ROUND_UTILITIES
    """Utilities of (win, drawn round, loss) used for `value`."""
    stopped: bool = False
    """True when `stop` (or the time limit of an exact enumeration) cut the search short."""
    worlds: int | None = None
    """Distinct consistent opponent hands averaged (exact), or deals sampled."""
    search: PlayResult | None = None
    """The search's own result, with its typed extras (ISMCTS nodes, the
    duel's game value and opponent mix, replacement evaluations)."""
    equilibrium: EquilibriumHint | None = None
    """Method "equilibrium": exploitability, hand and endgame values, the
    strategy (`tacocat.search.equilibrium.hint_moves`)."""
    inference: str = "off"
    """The model that weighted the worlds (`tacocat.search.inference`): "off"
    when R20's weights alone were used (no model asked for, nothing to read
    yet this round, or a search that takes no weights: ISMCTS, equilibrium)."""
    effective_samples: float | None = None
    """Inference: the effective sample size (sum w)^2 / sum w^2 of the weighted worlds."""
    subgame: SubgameResult | None = None
    """A duel or a replacement solved as a game (`Knobs.duel` "bayes",
    `Knobs.replace` "game" or "guided"): the search's result, with its types
    on each side, their compatible pairs, the iterations and the
    exploitability of the solution within the subgame."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "moves", tuple(self.moves))

    @property
    def best(self) -> MoveEval:
        """The top-ranked move."""
        return self.moves[0]

    @property
    def action(self) -> Action:
        """The recommended action (for a duel: the likeliest pure move)."""
        return self.moves[0].action

    def to_dict(self) -> dict[str, Any]:
        moves = [m.to_dict() for m in self.moves]
        d: dict[str, Any] = {"method": self.method, "exact": self.exact}
        add_known(d, samples=self.samples, iterations=self.iterations, worlds=self.worlds)
        d.update(seconds=self.seconds, decision=self.decision, moves=moves, best=moves[0] if moves else None)
        if self.mixed is not None:
            d["mixed"] = [m.to_dict() for m in self.mixed]
        d["utilities"] = list(self.utilities)
        if self.stopped:
            d["stopped"] = True
        if self.equilibrium is not None:
            d.update(self.equilibrium.to_dict())
        d["inference"] = self.inference
        if self.effective_samples is not None:
            d["effective_samples"] = round(self.effective_samples, 3)
        if self.subgame is not None:
            d["subgame"] = self.subgame.subgame_dict()
        return d


def _equilibrium_fits(view: View, time_ms: float | None, cards: int | None) -> bool:
    from tacocat.search.equilibrium import small_enough

    return small_enough(view, time_ms, cards)


@functools.lru_cache(maxsize=256)
def _round_values(board: Board, player: int, rules: Ruleset, utilities: str) -> tuple[tuple, tuple]:
    """(`round_utilities`, `round_game_wins`) of a board, kept: a bot asks
    for the same board at every decision of a round, and the two cost tens
    of microseconds, a tenth of a 1 ms budget between them."""
    return round_utilities(board, player, rules, utilities), round_game_wins(board, player, rules)


LEAST_LEFT_MS = 0.01
"""The least time a search is handed when the set-up ate its budget (`Ask.left`)."""


@dataclass(frozen=True)
class Ask:
    """One hint request once checked (`ask_of`): what every search of the
    table reads, and what `answer` makes the hint's answer with."""

    view: View
    budget: Budget
    method: str
    knobs: Knobs
    inference: str
    """The model asked for (`check_inference`'s canonical name)."""
    utilities: tuple[float, float, float]
    solver: PerfectSolver
    exact_budget: int
    legal: Sequence[Action] | None
    t_call: float
    """The budget's clock at the start of its time: the budget's `start`, else the call."""
    t_asked: float
    """The budget's clock when the hint was asked (its answer's `seconds` count from it)."""
    game_wins: tuple[float, float, float]
    """The game won after a round won, drawn, lost (`round_game_wins`)."""

    @property
    def decision(self) -> str:
        """The view's decision (`_checked` refused a view without one)."""
        kind = self.view.decision
        assert kind is not None
        return kind

    @property
    def exact_limit(self) -> int | None:
        """The opponent's hands a search enumerates exactly, at most:
        `EXACT_LIMIT` for method exact, the exact budget for auto; None for
        the sampled methods."""
        if self.method == Method.EXACT:
            return EXACT_LIMIT
        return self.exact_budget if self.method == Method.AUTO else None

    @property
    def minimum(self) -> int:
        """The worlds a play-phase search collects before it reads the clock
        (issue 24: a time budget is a limit, so the minimum scales with it)."""
        return scaled_minimum(MIN_SAMPLES, self.budget.time_ms)

    def left(
        self, samples: int | None | str = "budget", ms: float | None | str = "budget", least_ms: float = LEAST_LEFT_MS
    ) -> Budget:
        """The budget with what is left of its time after the set-up (at
        least `least_ms`), its clock starting when the search does;
        `samples` and `ms` replace the budget's own when given."""
        b = self.budget
        samples = b.samples if samples == "budget" else samples
        ms = b.time_ms if ms == "budget" else ms
        if ms is not None:
            ms = max(float(ms) - 1000.0 * (b.now() - self.t_call), least_ms)
        return b.with_(samples=samples, time_ms=ms, start=None)

    def worlds(self, sampler: HandSampler | None = None) -> WorldSearch:
        """What every play-phase world search is given besides its budget
        (the legal actions when the caller listed them: listed once)."""
        w: WorldSearch = {"utilities": self.utilities, "solver": self.solver}
        if sampler is not None:
            w["sampler"] = sampler
        if self.legal is not None:
            w["actions"] = self.legal
        return w


@dataclass
class Found:
    """What a search of the table found, and how."""

    result: PlayResult
    method: str
    """What actually ran ("exact", "pimc", "ismcts" or "equilibrium")."""
    sampler: HandSampler | None = None
    equilibrium: EquilibriumHint | None = None


def _checked(view: Any, method: str, knobs: Any, inference: str | None) -> tuple[View, str]:
    """The one validation of a hint request: the view (or its dict form) at
    a decision, a known method, the knobs, the inference model; the view
    and the model's canonical name, else a one-line `TacocatError`."""
    view = _as_view(view)
    if method not in METHODS:
        raise TacocatError(f"method {method!r} unknown; expected one of {', '.join(METHODS)}")
    _check_decision(view)
    return view, _model_asked(knobs, inference)


def _as_view(view: Any) -> View:
    """A `View`, read from its dict form when given one."""
    if isinstance(view, Mapping):
        view = View.from_dict(view)
    if not isinstance(view, View):
        raise TacocatError(f"view: expected a View (or its dict form), got {type(view).__name__}")
    return view


def _check_decision(view: View) -> None:
    """The player has a decision: the game is not over (R19)."""
    if view.phase == Phase.OVER:
        raise PositionError("the game is over: there is nothing to decide", "R19")
    if view.decision is None:
        raise PositionError(
            f"player {view.player} has no decision now (phase {view.phase}; acting: {view.acting or 'nobody'})"
        )
    if view.board.winner is not None:
        raise PositionError("the cat is in a goal: the game is over", "R19")


def _model_asked(knobs: Any, inference: str | None) -> str:
    """The inference model's canonical name: the call's, else the knobs',
    else the default."""
    from tacocat.search.inference import check_inference

    if not isinstance(knobs, Knobs):
        raise TacocatError(f"knobs must be a Knobs, got {type(knobs).__name__}")
    return check_inference(
        inference if inference is not None else knobs.inference if knobs.inference is not None else DEFAULT_INFERENCE
    )


def _equilibrium_search(ask: Ask) -> Found:
    """The hidden-hand equilibrium of a play-phase endgame (`tacocat.search.equilibrium`)."""
    from tacocat.search.equilibrium import hint_moves

    res, equilibrium = hint_moves(ask.view, ask.utilities, ask.left())
    return Found(res, Method.EQUILIBRIUM, equilibrium=equilibrium)


def _ismcts_search(ask: Ask) -> Found:
    """ISMCTS; PIMC where the hands or the pool are too big for its packed search (said in `method`)."""
    from tacocat.search.ismcts import DEFAULT_C, DEFAULT_EXACT_CARDS, DEFAULT_ROLLOUT, check_ismcts_view, ismcts_play

    try:
        check_ismcts_view(ask.view)
    except PositionError:
        # an iteration count is no deal count: PIMC's own default, within the time given
        res = pimc_play(ask.view, ask.left(None), minimum=ask.minimum, partial=True, **ask.worlds())
        return Found(res, Method.PIMC)
    k = ask.knobs
    res = ismcts_play(
        ask.view,
        ask.left(),
        utilities=ask.utilities,
        threads=k.threads,
        # a knob left at None: the search's own default
        exact_cards=DEFAULT_EXACT_CARDS if k.exact_cards is None else k.exact_cards,
        c_uct=DEFAULT_C if k.c_uct is None else k.c_uct,
        rollout=DEFAULT_ROLLOUT if k.rollout is None else k.rollout,
    )
    return Found(res, Method.ISMCTS)


def _world_search(ask: Ask) -> Found:
    """Every consistent opponent hand with its exact probability when they
    are few enough (method exact: up to `EXACT_LIMIT`; auto: up to
    `exact_budget`), else (or when the enumeration did not fit) PIMC."""
    from tacocat.search.inference import inference_sampler

    sampler = inference_sampler(ask.view, ask.inference)
    worlds = ask.worlds(sampler)
    res = None
    if (limit := ask.exact_limit) is not None:
        if ask.method == Method.EXACT and (n_hands := sampler.count()) > EXACT_LIMIT:
            raise TacocatError(
                f"method exact: the opponent may hold {n_hands} distinct hands, more than "
                f"{EXACT_LIMIT}; use auto, pimc or ismcts"
            )
        res = exact_play(ask.view, ask.left(), max_hands=limit, minimum=ask.minimum, partial=True, **worlds)
    if res is not None:
        return Found(res, Method.EXACT, sampler)
    b = ask.budget
    spend = ask.left(DEFAULT_HINT_SAMPLES, DEFAULT_HINT_MS) if b.unlimited else ask.left()
    res = pimc_play(ask.view, spend, minimum=ask.minimum, partial=True, **worlds)
    return Found(res, Method.PIMC, sampler)


def _duel_search(ask: Ask) -> Found:
    """The duel's matrix game over the worlds (`tacocat.search.decisions.duel_eval`)."""
    from tacocat.search import decisions

    k = ask.knobs
    if k.duel_exact_budget is not None:
        limit = k.duel_exact_budget
    else:
        limit = -1 if ask.exact_limit is None else ask.exact_limit
    samples = k.duel_samples if k.duel_samples is not None else ask.budget.samples
    least = scaled_minimum(decisions.MIN_DUEL_WORLDS, ask.budget.time_ms)
    if k.duel == "bayes":
        from tacocat.search.duel_game import duel_game

        if k.round_search:
            raise TacocatError("duel bayes values its cells with both hands known: round_search is the matrix duel's")
        # the opponent's hands listed whenever they are few (up to the hint's exact budget), even for a
        # bot whose matrix duel always samples: a Bayesian game on a dozen sampled hands is too noisy
        listed = ask.exact_budget if limit < 0 else limit
        return _decision_search(ask, functools.partial(duel_game, exact_budget=listed, minimum=least), samples)
    search = functools.partial(decisions.duel_eval, exact_budget=limit, minimum=least)
    return _decision_search(ask, search, samples)


def _replace_search(ask: Ask) -> Found:
    """The replacement's discards ranked by simulated draws (`tacocat.search.decisions.replace_eval`)."""
    from tacocat.search import decisions

    k = ask.knobs
    samples = k.replace_samples if k.replace_samples is not None else ask.budget.samples
    cand = k.candidates if k.candidates is not None else decisions.DEFAULT_CANDIDATES
    stage = scaled_minimum(decisions.MIN_STAGE_DEALS, ask.budget.time_ms)
    if k.replace == "game":
        from tacocat.search.replace_game import GAME_CANDIDATES, replace_game

        if k.round_search:
            raise TacocatError("replace game solves the opponent's reply itself: round_search is the static search's")
        cut = GAME_CANDIDATES if k.candidates is None else min(k.candidates, GAME_CANDIDATES)  # each is a subtree
        return _decision_search(
            ask, functools.partial(replace_game, candidates=cut, exact_budget=ask.exact_budget), samples
        )
    if k.replace == "guided":
        from tacocat.search.replace_game import guided_replace

        if k.round_search:
            raise TacocatError("replace guided solves the opponent's reply itself: round_search is the static search's")
        guided = functools.partial(
            guided_replace, candidates=cand, min_stage_deals=stage, exact_budget=ask.exact_budget
        )
        return _decision_search(ask, guided, samples)
    search = functools.partial(decisions.replace_eval, candidates=cand, min_stage_deals=stage)
    return _decision_search(ask, search, samples)


def _decision_search(ask: Ask, search: Callable[..., PlayResult], samples: int | None) -> Found:
    """A duel or a replacement search run on the hint's worlds."""
    from tacocat.search.inference import inference_sampler

    sampler = inference_sampler(ask.view, ask.inference)
    res = search(
        ask.view,
        ask.left(samples),
        partial=True,  # the clock read within a world or a deal too
        round_search=ask.knobs.round_search,
        utilities=ask.utilities,
        solver=ask.solver,
        sampler=sampler,
    )
    # a replacement draws unknown cards: never exact
    return Found(res, Method.EXACT if res.exact else Method.PIMC, sampler)


_PLAY_SEARCHES: dict[str, Callable[[Ask], Found]] = {
    Method.EQUILIBRIUM: _equilibrium_search,
    Method.ISMCTS: _ismcts_search,
    Method.EXACT: _world_search,
    Method.PIMC: _world_search,
    Method.AUTO: _world_search,
}
"""A play-phase decision's search by method ("auto" looks first whether the
endgame's equilibrium fits, `_search_of`)."""
_DECISION_SEARCHES: dict[str, Callable[[Ask], Found]] = {DUEL: _duel_search, REPLACE: _replace_search}
"""The duel's and the replacement's searches, whatever the method."""


def _search_of(ask: Ask) -> Callable[[Ask], Found]:
    kind = ask.decision
    if kind not in PLAY_DECISIONS:
        return _DECISION_SEARCHES[kind]
    if ask.method == Method.AUTO and _equilibrium_fits(ask.view, ask.budget.time_ms, ask.knobs.equilibrium_cards):
        return _equilibrium_search
    return _PLAY_SEARCHES[ask.method]


def hint(
    view: View,
    budget: Budget | None = None,
    *,
    method: str = "auto",
    utilities: str | Sequence[float] = "game",
    exact_budget: int = DEFAULT_EXACT_BUDGET,
    solver: PerfectSolver | None = None,
    knobs: Knobs = Knobs(),
    inference: str | None = None,
    legal: Sequence[Action] | None = None,
) -> HintResult:
    """Rank every move of `view`'s decision (see the module docstring): the
    one dispatcher of the searches, which bots call too.  `budget`
    (`tacocat.search.budget.Budget`): its samples are the sample /
    iteration budget, its time a time budget (the first reached ends the
    search; it counts from the budget's `start`, else from the call, set-up
    included); a stop returns the best answer so far; progress(fraction)
    is called now and then.  With no budget a sampled play-phase hint
    takes `DEFAULT_HINT_SAMPLES` deals or `DEFAULT_HINT_MS`, the first
    reached.  Raises `TacocatError` subclasses for bad input.
    `inference`: the model of the opponent's choices that weights the
    worlds (`tacocat.search.inference`; default the knobs', else
    `DEFAULT_INFERENCE`; "off" or "uniform": R20 alone).  `legal`: the
    view's legal actions when the caller has listed them (a bot skipping
    forced moves), so a play-phase search does not list them again; they
    must be `view.legal_actions()`."""
    ask = ask_of(view, budget, method, utilities, exact_budget, solver, knobs, inference, legal)
    return answer(ask, _search_of(ask)(ask))


def ask_of(
    view: Any, budget: Budget | None, method: str, utilities: Any, exact_budget: int, solver: Any, knobs: Any,
    inference: str | None, legal: Sequence[Action] | None,
) -> Ask:  # fmt: skip
    """A request checked (`_checked`, the one validation; `hint`'s
    arguments) with its round values and its clock's start, ready for a
    search of the table (or of a reference bot's own, `tacocat.players.reference`)."""
    b = budget_of(budget, "hint")
    t_now = b.now()
    view, asked = _checked(view, method, knobs, inference)
    if isinstance(utilities, str):
        util, gw = _round_values(view.board, view.player, view.rules, utilities)
    else:
        util = round_utilities(view.board, view.player, view.rules, utilities)
        gw = round_game_wins(view.board, view.player, view.rules)
    return Ask(
        view,
        b,
        method,
        knobs,
        asked,
        util,
        solver or PerfectSolver(view.rules),
        exact_budget,
        legal,
        # the budget's clock: from its start (a bot's `choose`), else from now
        t_now if b.start is None else b.start,
        t_now,
        gw,
    )


def answer(ask: Ask, found: Found) -> HintResult:
    """The hint's answer from what its search found, its seconds counted
    from the request: each move's game-win probability added."""
    from tacocat.search.inference import InferenceSampler

    seconds = ask.budget.now() - ask.t_asked
    res, used = found.result, found.method
    # the model that weighted the worlds, if one did
    sampler = found.sampler
    inferred = sampler if isinstance(sampler, InferenceSampler) and sampler.active else None
    moves = _with_game_win(res.moves, ask.game_wins)
    if ask.budget.progress is not None:
        ask.budget.progress(1.0)
    exact = used == Method.EXACT and res.exact
    sampled = used not in (Method.ISMCTS, Method.EQUILIBRIUM)
    return HintResult(
        method=used,
        exact=bool(exact),
        decision=ask.decision,
        moves=moves,
        seconds=seconds,
        # A stopped enumeration says how many hands it averaged.
        samples=res.worlds if sampled and not exact else None,
        iterations=res.iterations,
        mixed=res.mixed,
        utilities=ask.utilities,
        stopped=bool(res.stopped),
        worlds=res.worlds if sampled else None,
        search=res,
        equilibrium=found.equilibrium,
        inference=inferred.model.name if inferred is not None else "off",
        effective_samples=inferred.ess() if inferred is not None else None,
        subgame=_subgame_of(res),
    )


def _with_game_win(moves: Sequence[MoveEval], gw: tuple) -> tuple[MoveEval, ...]:
    """Each searched move with its game-win probability (`gw`: the game won
    after a round won, drawn, lost).  MoveEval built whole:
    `dataclasses.replace` costs three times as much, and a replacement
    ranks dozens of discards after the time is out."""
    return tuple(
        m
        if m.visits == 0
        else MoveEval(
            m.action,
            m.win,
            m.draw,
            m.loss,
            m.value,
            m.stderr,
            m.win * gw[0] + m.draw * gw[1] + m.loss * gw[2],
            m.visits,
        )
        for m in moves
    )


def _subgame_of(res: PlayResult) -> SubgameResult | None:
    """The search's result when it solved a duel or a replacement as a game (None for any other search)."""
    game = sys.modules.get("tacocat.search.duel_game")  # not loaded: no search of this hint was one
    return res if game is not None and isinstance(res, game.SubgameResult) else None
