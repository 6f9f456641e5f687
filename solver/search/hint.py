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
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.events import PLAY_DECISIONS, Phase
from tacocat.rules.game import DUEL, REPLACE, View
from tacocat.rules.ruleset import Ruleset
from tacocat.search.budget import Budget, budget_of, scaled_minimum
from tacocat.search.gamevalue import ROUND_UTILITIES, round_game_wins, round_utilities
from tacocat.search.pimc import MIN_SAMPLES, PerfectSolver, WorldSearch, exact_play, pimc_play
from tacocat.search.results import MixedMove, MoveEval, PlayResult, add_known
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler

METHODS = ("auto", "exact", "pimc", "ismcts", "equilibrium")
"""The hint methods: the one list the CLI and the protocol offer."""
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
    classic: bool = False
    """The search as at commit 36be87b (bot `pimc_classic`): a fixed minimum
    sample (`tacocat.search.pimc.MIN_SAMPLES`) before a time limit is read,
    and worlds weighted by R20 alone (no inference)."""
    inference: str | None = None
    """The model of the opponent's choices that weights the worlds
    (`tacocat.search.inference.MODELS`); None: the hint's own default."""
    round_search: bool = False
    """Replacement and duel searched with the round's real continuation
    (`tacocat.search.decisions`, module docstring); off: the classic search."""


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
    equilibrium: dict | None = None
    """Method "equilibrium": exploitability, hand and endgame values, the
    strategy (`tacocat.search.equilibrium.hint_moves`)."""
    inference: str = "off"
    """The model that weighted the worlds (`tacocat.search.inference`): "off"
    when R20's weights alone were used (no model asked for, nothing to read
    yet this round, or a search that takes no weights: ISMCTS, equilibrium)."""
    effective_samples: float | None = None
    """Inference: the effective sample size (sum w)^2 / sum w^2 of the weighted worlds."""

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
            d.update(self.equilibrium)
        d["inference"] = self.inference
        if self.effective_samples is not None:
            d["effective_samples"] = round(self.effective_samples, 3)
        return d


def _validate(view: Any, method: str) -> View:
    if isinstance(view, Mapping):
        view = View.from_dict(view)
    if not isinstance(view, View):
        raise TacocatError(f"view: expected a View (or its dict form), got {type(view).__name__}")
    if method not in METHODS:
        raise TacocatError(f"method {method!r} unknown; expected one of {', '.join(METHODS)}")
    if view.phase == Phase.OVER:
        raise PositionError("the game is over: there is nothing to decide", "R19")
    if view.decision is None:
        raise PositionError(
            f"player {view.player} has no decision now (phase {view.phase}; acting: {view.acting or 'nobody'})"
        )
    if view.board.winner is not None:
        raise PositionError("the cat is in a goal: the game is over", "R19")
    return view


def _equilibrium_fits(view: View, time_ms: float | None, cards: int | None) -> bool:
    from tacocat.search.equilibrium import small_enough

    return small_enough(view, time_ms, cards)


@functools.lru_cache(maxsize=256)
def _round_values(board: Board, player: int, rules: Ruleset, utilities: str) -> tuple[tuple, tuple]:
    """(`round_utilities`, `round_game_wins`) of a board, kept: a bot asks
    for the same board at every decision of a round, and the two cost tens
    of microseconds, a tenth of a 1 ms budget between them."""
    return round_utilities(board, player, rules, utilities), round_game_wins(board, player, rules)


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
    (`tacocat.search.budget.Budget`; or the keywords `iterations`, `time_ms`,
    `seed`, `stop`, `progress` as before): its samples are the sample /
    iteration budget, its time a time budget (the first reached ends the
    search; it counts from the budget's `start`, else from the call, set-up
    included); a stop returns the
    best answer so far; progress(fraction) is called now and then.  With
    no budget a sampled play-phase hint takes `DEFAULT_HINT_SAMPLES` deals
    or `DEFAULT_HINT_MS`, the first reached.  Raises `TacocatError`
    subclasses for bad input.  `inference`: the model of the opponent's
    choices that weights the worlds (`tacocat.search.inference`; default
    the knobs', else `DEFAULT_INFERENCE`; "off" or "uniform": R20 alone).
    `legal`: the view's legal actions when the caller has listed them (a
    bot skipping forced moves), so a play-phase search does not list them
    again; they must be `view.legal_actions()`."""
    b = budget_of(budget, "hint")
    t_now = b.now()
    # the budget's clock: from its start (a bot's `choose`), else from now
    t_call = t_now if b.start is None else b.start
    view = _validate(view, method)
    if not isinstance(knobs, Knobs):
        raise TacocatError(f"knobs must be a Knobs, got {type(knobs).__name__}")
    from tacocat.search.inference import InferenceSampler, check_inference, inference_sampler

    asked = (
        inference if inference is not None else knobs.inference if knobs.inference is not None else DEFAULT_INFERENCE
    )
    asked = check_inference(asked)
    if knobs.classic and asked not in ("off", "uniform"):
        raise TacocatError(f"inference {asked!r}: the classic search weights worlds by R20 alone")
    if isinstance(utilities, str):
        util, gw = _round_values(view.board, view.player, view.rules, utilities)
    else:
        util = round_utilities(view.board, view.player, view.rules, utilities)
        gw = round_game_wins(view.board, view.player, view.rules)
    solver = solver or PerfectSolver(view.rules)
    kind = view.decision

    # A time budget is a limit, not a floor (issue 24): the searches' minimum
    # samples scale with it (`scaled_minimum`), the duel and the replacement
    # read the clock within a world too, and the set-up's time is not given
    # back.  The classic search (bot pimc_classic) keeps its fixed minimums.
    classic = knobs.classic
    minimum = MIN_SAMPLES if classic else scaled_minimum(MIN_SAMPLES, b.time_ms)

    def left(samples: int | None = b.samples, ms: float | None = b.time_ms) -> Budget:
        """The budget with what is left of its time after the set-up (the
        classic search: never less than 1 ms; else at least 10 microseconds),
        its clock starting when the search does."""
        if ms is not None:
            ms = max(ms - 1000.0 * (b.now() - t_call), 1.0 if classic else 0.01)
        return b.with_(samples=samples, time_ms=ms, start=None)

    equilibrium = None
    sampler: HandSampler | None = None
    # what every world search of this hint is given besides its budget
    worlds: WorldSearch = {"utilities": util, "solver": solver}
    res: PlayResult | None = None
    if kind in PLAY_DECISIONS and (
        method == "equilibrium" or (method == "auto" and _equilibrium_fits(view, b.time_ms, knobs.equilibrium_cards))
    ):
        # the hidden-hand equilibrium (a separate search: see tacocat.search.equilibrium)
        from tacocat.search.equilibrium import hint_moves

        res, equilibrium = hint_moves(view, util, left())
        used = "equilibrium"
    elif kind in PLAY_DECISIONS:
        used = method
        if legal is not None:
            worlds["actions"] = legal  # listed once, by the caller
        if method == "ismcts":
            from tacocat.search.ismcts import (
                DEFAULT_C,
                DEFAULT_EXACT_CARDS,
                DEFAULT_ROLLOUT,
                check_ismcts_view,
                ismcts_play,
            )

            try:
                check_ismcts_view(view)
            except PositionError:  # hands or pool too big for the packed search: PIMC, said in `method`
                used = "pimc"
                # an iteration count is no deal count: PIMC's own default, within the time given
                res = pimc_play(view, left(None), minimum=minimum, partial=not classic, **worlds)
            else:
                res = ismcts_play(
                    view,
                    left(),
                    utilities=util,
                    threads=knobs.threads,
                    # a knob left at None: the search's own default
                    exact_cards=DEFAULT_EXACT_CARDS if knobs.exact_cards is None else knobs.exact_cards,
                    c_uct=DEFAULT_C if knobs.c_uct is None else knobs.c_uct,
                    rollout=DEFAULT_ROLLOUT if knobs.rollout is None else knobs.rollout,
                )
        else:
            worlds["sampler"] = sampler = inference_sampler(view, asked)
            if method in ("exact", "auto"):
                if method == "exact" and (n_hands := sampler.count()) > EXACT_LIMIT:
                    raise TacocatError(
                        f"method exact: the opponent may hold {n_hands} distinct hands, more than "
                        f"{EXACT_LIMIT}; use auto, pimc or ismcts"
                    )
                limit = EXACT_LIMIT if method == "exact" else exact_budget
                res = exact_play(view, left(), max_hands=limit, minimum=minimum, partial=not classic, **worlds)
            used = "exact"
            if res is None:
                spend = left(DEFAULT_HINT_SAMPLES, DEFAULT_HINT_MS) if b.unlimited else left()
                res = pimc_play(view, spend, minimum=minimum, partial=not classic, **worlds)
                used = "pimc"
    elif kind in (DUEL, REPLACE):
        from tacocat.search import decisions

        if kind == DUEL:
            if knobs.duel_exact_budget is not None:
                limit = knobs.duel_exact_budget
            elif method in ("exact", "auto"):
                limit = EXACT_LIMIT if method == "exact" else exact_budget
            else:
                limit = -1
            samples = knobs.duel_samples if knobs.duel_samples is not None else b.samples
            least = minimum if classic else scaled_minimum(decisions.MIN_DUEL_WORLDS, b.time_ms)
            search = functools.partial(decisions.duel_eval, exact_budget=limit, minimum=least)
        else:
            samples = knobs.replace_samples if knobs.replace_samples is not None else b.samples
            cand = knobs.candidates if knobs.candidates is not None else decisions.DEFAULT_CANDIDATES
            stage = decisions.MIN_STAGE_DEALS if classic else scaled_minimum(decisions.MIN_STAGE_DEALS, b.time_ms)
            search = functools.partial(decisions.replace_eval, candidates=cand, min_stage_deals=stage)
        sampler = inference_sampler(view, asked)
        # the classic search reads the clock between worlds only (not `partial`)
        res = search(
            view,
            left(samples),
            partial=not classic,
            round_search=knobs.round_search,
            utilities=util,
            solver=solver,
            sampler=sampler,
        )
        used = "exact" if res.exact else "pimc"  # a replacement draws unknown cards: never exact
    else:  # pragma: no cover - decision kinds are closed
        raise PositionError(f"unknown decision {kind!r}")

    assert res is not None
    # the model that weighted the worlds, if one did
    inferred = sampler if isinstance(sampler, InferenceSampler) and sampler.active else None
    # MoveEval built whole: `dataclasses.replace` costs three times as much,
    # and a replacement ranks dozens of discards after the time is out
    moves = tuple(
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
        for m in res.moves
    )
    if b.progress is not None:
        b.progress(1.0)
    exact = used == "exact" and res.exact
    return HintResult(
        method=used,
        exact=bool(exact),
        decision=kind,
        moves=moves,
        seconds=b.now() - t_now,
        # A stopped enumeration says how many hands it averaged.
        samples=None if exact or used in ("ismcts", "equilibrium") else res.worlds,
        iterations=res.iterations,
        mixed=res.mixed,
        utilities=util,
        stopped=bool(res.stopped),
        worlds=None if used in ("ismcts", "equilibrium") else res.worlds,
        search=res,
        equilibrium=equilibrium,
        inference=inferred.model.name if inferred is not None else "off",
        effective_samples=inferred.ess() if inferred is not None else None,
    )
