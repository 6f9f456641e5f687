"""The reference bots, frozen: the yardsticks the strength tables are
measured against, each a fixed configuration of the shared searches that no
later default may move (their seeded games are replayed move for move:
tests/test_pimc_classic.py, tests/test_pimc_static.py).

`pimc_classic` (`ClassicBot`, its search `classic_search`) is the search as
at commit 36be87b (issue 24), the ladder's Elo 0.  A play-phase decision
averages every opponent hand with its exact probability when they number at
most the exact budget, else sampled hands (PIMC); the duel is the matrix
game over sampled deals, the replacement the static search's sequential
halving (`tacocat.search.decisions`).  What it keeps, whatever its time:

- a fixed minimum before a time limit is read: `MIN_SAMPLES` worlds (a duel
  too) and `MIN_STAGE_DEALS` deals a replacement's stage, where the other
  bots scale the minimum with the budget;
- the clock read between worlds (deals) only, never within one
  (`partial=False` to every search);
- at least `LEAST_MS` of time handed to a search after the set-up;
- worlds weighted by R20 alone, each finished by its own continuation: no
  inference, no round search, the matrix duel, the static replacement
  (`check_classic` refuses the others);
- `REPLACE_EVALS` evaluations and `DUEL_DEALS` deals a decision unless
  given, even with a time budget, and nothing of its time kept back.

`pimc_static` (`static_bot`) is `pimc` as it played before the duel and the
replacement were solved as games (issue 34): `SearchBot` with its
`STATIC_CHOICES` fixed."""

from __future__ import annotations

import functools
import random
from typing import Any, Callable, Sequence

from tacocat.errors import TacocatError
from tacocat.players.bots import DUEL_DEALS, REPLACE_EVALS, Bot, BotBudget, SearchBot, given_or, played
from tacocat.rules.actions import Action
from tacocat.rules.game import DUEL, REPLACE
from tacocat.rules.views import View
from tacocat.search import decisions
from tacocat.search.budget import Budget
from tacocat.search.hint import Ask, Found, HintResult, Knobs, answer, ask_of
from tacocat.search.inference import OFF
from tacocat.search.options import Method
from tacocat.search.pimc import MIN_SAMPLES, PerfectSolver, exact_play, pimc_play
from tacocat.search.results import PlayResult
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler

LEAST_MS = 1.0
"""pimc_classic: the least time a search is handed when the set-up ate its budget."""


def check_classic(choices: BotBudget | Knobs) -> None:
    """The search choices pimc_classic offers none of: inference (R20
    alone: off or uniform), round_search, duel=bayes, replace other than
    static; a one-line `TacocatError`."""
    if choices.inference not in (None, *OFF):
        raise TacocatError(
            f"bot pimc_classic: inference {choices.inference!r} is not offered; the classic search "
            "weights worlds by R20 alone (use bot pimc for inference)"
        )
    if choices.round_search:
        raise TacocatError(
            "bot pimc_classic: round_search is not offered; the classic search keeps its fixed "
            "continuation (use bot pimc for the round search)"
        )
    if (choices.duel, choices.replace) != ("matrix", "static"):
        raise TacocatError(
            "bot pimc_classic: its duel is the matrix game and its replacement the static search "
            "(use bot pimc for duel=bayes or replace=game)"
        )


def classic_search(
    view: View,
    budget: Budget,
    knobs: Knobs = Knobs(),
    *,
    utilities: str | Sequence[float] = "game",
    exact_budget: int = DEFAULT_EXACT_BUDGET,
    solver: PerfectSolver | None = None,
    legal: Sequence[Action] | None = None,
) -> HintResult:
    """pimc_classic's search of `view`'s decision (module docstring),
    answered as `tacocat.search.hint.hint` answers.  `budget`: a count or a
    time (with neither, PIMC's own default); `knobs`: the duel's deals, the
    replacement's evaluations and candidates (each None: the budget's count,
    every discard); `exact_budget`: the play phase enumerates the
    opponent's hands up to this many; `legal`: the view's legal actions
    when the caller has listed them."""
    ask = ask_of(view, budget, Method.AUTO, utilities, exact_budget, solver, knobs, None, legal)
    check_classic(knobs)
    return answer(ask, _CLASSIC_SEARCHES.get(ask.decision, _play)(ask))


def _play(ask: Ask) -> Found:
    """An attack or an answer: every opponent hand with its exact
    probability when they are few enough, else PIMC."""
    sampler = HandSampler(ask.view)
    worlds = ask.worlds(sampler)
    spend = ask.left(least_ms=LEAST_MS)
    res = exact_play(ask.view, spend, max_hands=ask.exact_budget, minimum=MIN_SAMPLES, partial=False, **worlds)
    if res is not None:
        return Found(res, Method.EXACT, sampler)
    res = pimc_play(ask.view, ask.left(least_ms=LEAST_MS), minimum=MIN_SAMPLES, partial=False, **worlds)
    return Found(res, Method.PIMC, sampler)


def _duel(ask: Ask) -> Found:
    """The matrix game over sampled deals (never an enumeration)."""
    return _on_deals(ask, functools.partial(decisions.duel_eval, exact_budget=-1, minimum=MIN_SAMPLES), DUEL)


def _replace(ask: Ask) -> Found:
    """The static search's candidates by sequential halving."""
    search = functools.partial(
        decisions.replace_eval, candidates=ask.knobs.candidates, min_stage_deals=decisions.MIN_STAGE_DEALS
    )
    return _on_deals(ask, search, REPLACE)


def _on_deals(ask: Ask, search: Callable[..., PlayResult], kind: str) -> Found:
    """A duel or a replacement search on R20's worlds, the knobs' count of
    them (else the budget's), the clock read between deals only."""
    k = ask.knobs
    count = k.duel_samples if kind == DUEL else k.replace_samples
    sampler = HandSampler(ask.view)
    spend = ask.left(ask.budget.samples if count is None else count, least_ms=LEAST_MS)
    res = search(ask.view, spend, partial=False, utilities=ask.utilities, solver=ask.solver, sampler=sampler)
    return Found(res, Method.EXACT if res.exact else Method.PIMC, sampler)  # a replacement is never exact


_CLASSIC_SEARCHES: dict[str, Callable[[Ask], Found]] = {DUEL: _duel, REPLACE: _replace}
"""The duel's and the replacement's searches; a play-phase decision's is `_play`."""


class ClassicBot(SearchBot):
    """pimc_classic (module docstring): `SearchBot`'s budget, clock and
    seeded choices, with `classic_search` for every decision."""

    def __init__(self, **budget) -> None:
        check_classic(BotBudget(**budget))
        super().__init__(Method.PIMC, **budget)
        self.name = "pimc_classic"

    def decision_counts(self, b: BotBudget) -> tuple[int, int]:
        """The budget's counts, else `REPLACE_EVALS` and `DUEL_DEALS`,
        whatever its time."""
        return given_or(b.replace_samples, REPLACE_EVALS), given_or(b.duel_samples, DUEL_DEALS)

    def decide(self, view: View, kind: str, call: Budget, legal: list[Action] | None, rng: random.Random) -> Action:
        """`classic_search`'s move within the call's whole time: nothing
        kept back, no overrun remembered."""
        result = classic_search(
            view,
            call,
            self.knobs,
            utilities=self.utilities,
            exact_budget=self.exact_budget,
            solver=self.solver,
            legal=legal,
        )
        return played(result, kind, rng)


STATIC_CHOICES = {"duel": "matrix", "replace": "static"}
"""pimc_static's fixed search choices: the duel a matrix game over the
worlds (`tacocat.search.decisions.duel_eval`), the replacement the static
search (`tacocat.search.decisions.replace_eval`)."""
_STATIC_WORDS = {"duel": "its duel is the matrix game", "replace": "its replacement is the static search"}


def static_bot(**budget: Any) -> SearchBot:
    """pimc_static (module docstring): kept as a reference whatever `pimc`'s
    defaults become; a budget that asks for another duel or replacement is
    refused in one line."""
    for key, fixed in STATIC_CHOICES.items():
        if budget.get(key, fixed) != fixed:
            raise TacocatError(f"bot pimc_static: {_STATIC_WORDS[key]} (use bot pimc for {key}={budget[key]})")
    bot = SearchBot(Method.PIMC, **{**budget, **STATIC_CHOICES})
    bot.name = "pimc_static"
    return bot


REFERENCE_BOTS: dict[str, Callable[..., Bot]] = {"pimc_classic": ClassicBot, "pimc_static": static_bot}
"""The reference bots by name (`tacocat.players.bots.BOTS` lists them)."""
