"""Decisions outside the trick tree: replacement (R7/R8) and the duel (R9).

Both are evaluated on worlds consistent with the view (RULES §5, the
swappable `HandSampler`), each world finished with the perfect-information
solver.  What is modelled, and how:

Duel (R9).  For each world (opponent hand) and each pair (my card i, their
card j) the round is finished exactly: the higher card attacks and the play
phase is solved with both hands known; a hand of one card after the duel
goes straight to the showdown (R9 ruling).  A tie (i == j) starts another
duel, which is approximated by both players dueling their highest card
(repeated on ties).  Cell (i, j) is the average over the worlds in which
the opponent holds j; the zero-sum matrix game over these cells is solved
exactly (a small simplex, `solve_matrix_game`) and the hint reports my
mixed strategy; a bot samples from it with its seeded RNG.

Replacement (R7/R8).  A world is an opponent hand plus the order of the
draw pile.  For a candidate discard set D: I draw |D| cards; an opponent
who has not replaced yet replaces by a fixed static policy (`static_discard`)
with its cap (my |D| if I replace first under R7, its whole hand under R8)
and draws; then the duel is approximated by both players dueling their
highest card and the play phase is solved exactly.  Candidates are all
legal discard sets, pre-ranked by a static hand score and cut to the best
`candidates`; the survivors go through sequential halving (Karnin et al.
2013) on common worlds, so every candidate at a stage is compared on the
same deals.

The round searched as one (`round_search=True`, issue 24; off, the
classic search above runs unchanged, bit for bit, as `pimc_classic`,
`tacocat.players.reference`):

- Replacement: the opponent's reply is drawn from its model (the static
  policy as a softmax, `tacocat.search.inference.StaticSoftmax`, at the
  reply temperature `REPLY_TEMPERATURE`, or a registered model that
  weights the worlds) instead of `static_discard`; the draw is a quantile
  fixed per world, so every
  candidate meets the same reply when the caps agree (common random
  numbers).  The duel that follows is the world's matrix game, both hands
  known as in any PIMC world, solved (`world_duel`) instead of both
  players dueling their highest card; the play phase is solved exactly.
- Duel: in each cell (my card i, their card j) the play phase is searched
  over the worlds consistent with what the duel revealed (the opponent
  held j): my first play-phase decision is one move for all those worlds,
  the one with the best weighted mean, as PIMC will choose it then,
  instead of the best move of each world (strategy fusion).  If I attack
  first that decision is my attack; if the opponent does, it attacks as
  in its world (best play) and my answer is one move for all the worlds
  in which it made that attack.  Later moves are solved exactly.
  Every cell is still averaged over the same worlds."""

from __future__ import annotations

import math
import random
import threading
from typing import Any, Callable, Iterator, NamedTuple, Protocol, Sequence, TypedDict, Unpack

import numpy as np

from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand, contains, counts, hand, remove
from tacocat.rules.game import DUEL, REPLACE
from tacocat.rules.play import duel_attacker, goes_to_showdown, showdown
from tacocat.rules.ruleset import Arrow
from tacocat.rules.views import View
from tacocat.search.budget import WALL, Budget, Clock, budget_of
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.search.inference import PlayerModel
from tacocat.search.pimc import MIN_SAMPLES, PerfectSolver, rank_moves
from tacocat.search.results import MixedMove, MoveEval, PlayResult
from tacocat.search.sampling import DEFAULT_EXACT_BUDGET, HandSampler, WorldSampler, rng_from

DEFAULT_DUEL_SAMPLES = 400  # a hint: about 0.2 s, value margins near ±0.02
DEFAULT_REPLACE_EVALS = 6000  # a hint: about 0.2 s; bots set their own budgets
MIN_DUEL_WORLDS = 4
"""A duel's minimum sample under a time budget that is a limit (issue 24),
scaled with the budget (`tacocat.search.budget.scaled_minimum`): a duel
world solves a play phase per (my card, their card), dozens of PIMC worlds'
worth, so PIMC's `MIN_SAMPLES` would make even 100 ms a floor."""
MIN_STAGE_DEALS = 8
"""Deals every candidate alive in a stage gets even when the time runs out,
so that no ranking rests on one deal (a few milliseconds)."""
DEFAULT_CANDIDATES = None
"""All legal discard sets (a bot passes a smaller number)."""


# ------------------------------------------------------------ matrix games


def solve_matrix_game(payoff: Sequence[Sequence[float]] | np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Optimal mixed strategies of a zero-sum matrix game: the row player
    maximises `payoff[i][j]`, the column player minimises it.  Returns
    (row strategy, column strategy, value), from the column player's linear
    program  min v  s.t.  A y <= v, sum(y) = 1, y >= 0  solved by scipy's
    HiGHS; the row strategy is the dual of the A y <= v rows."""
    from scipy.optimize import linprog

    a = np.asarray(payoff, dtype=float)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise TacocatError(f"a matrix game needs a non-empty 2-D payoff matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TacocatError("a matrix game needs finite payoffs")
    m, n = a.shape
    # variables [y (n), v]: minimise v
    c = np.zeros(n + 1)
    c[-1] = 1.0
    a_ub = np.hstack([a, -np.ones((m, 1))])
    a_eq = np.zeros((1, n + 1))
    a_eq[0, :n] = 1.0
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(m), A_eq=a_eq, b_eq=[1.0], bounds=[(0, None)] * n + [(None, None)], method="highs"
    )
    if res.status != 0:  # pragma: no cover - a bounded feasible LP always solves
        raise TacocatError(f"the matrix game's linear program failed: {res.message}")
    y = np.clip(res.x[:n], 0.0, None)
    y = y / y.sum()
    x = np.clip(-res.ineqlin.marginals, 0.0, None)
    x = x / x.sum() if x.sum() > 0 else np.full(m, 1.0 / m)
    return x, y, float(res.x[-1])


def solve_matrix_game_fast(
    payoff: np.ndarray, seconds_left: float | None, clock: Clock = WALL
) -> tuple[np.ndarray, np.ndarray, float]:
    """`solve_matrix_game` for a search under a time budget (issue 24: the
    linear program's set-up costs milliseconds, more than a 1 ms budget).
    A pure saddle point (maximin = minimax) is an equilibrium and is taken
    at once; else, with less than `LP_SECONDS` left, regret matching+
    (`RM_ITERATIONS` iterations, averaged strategies: an approximate
    equilibrium; with `seconds_left` given, only as many as fit in it, at
    least `RM_MIN_ITERATIONS`: an iteration costs tens of microseconds, so
    all of them would carry a 1 ms budget past twice its time); else the
    linear program."""
    t_start = clock.now()  # `seconds_left` is on the budget's clock
    a = np.asarray(payoff, dtype=float)
    lo = a.min(axis=1)
    hi = a.max(axis=0)
    i, j = int(np.argmax(lo)), int(np.argmin(hi))
    if lo[i] == hi[j]:
        x, y = np.zeros(a.shape[0]), np.zeros(a.shape[1])
        x[i] = y[j] = 1.0
        return x, y, float(a[i, j])
    if seconds_left is not None and seconds_left >= LP_SECONDS:
        return solve_matrix_game(a)
    m, n = a.shape
    rx, ry = np.zeros(m), np.zeros(n)
    sx, sy = np.zeros(m), np.zeros(n)
    x, y = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
    end = None if seconds_left is None else t_start + seconds_left
    for t in range(1, RM_ITERATIONS + 1):
        if end is not None and t > RM_MIN_ITERATIONS and t % 4 == 1 and clock.now() >= end:
            break
        ux, uy = a @ y, x @ a
        rx = np.maximum(rx + ux - x @ ux, 0.0)
        ry = np.maximum(ry - uy + y @ uy, 0.0)
        total_x, total_y = rx.sum(), ry.sum()  # each summed once: an iteration is a dozen numpy calls
        x = rx / total_x if total_x > 0 else np.full(m, 1.0 / m)
        y = ry / total_y if total_y > 0 else np.full(n, 1.0 / n)
        sx += t * x
        sy += t * y
    x, y = sx / sx.sum(), sy / sy.sum()
    return x, y, float(x @ a @ y)


LP_SECONDS = 0.005
"""Time a duel's linear program needs (a few milliseconds on a loaded core)."""
RM_ITERATIONS = 100
RM_MIN_ITERATIONS = 40
"""Regret matching's iterations when the time is out already: on random
5 x 6 games neither side then gains more than 0.1 by deviating
(tests/test_time_limit.py), where 12 iterations leave 0.25."""


# --------------------------------------------------------- static policies


def static_score(cards: Sequence[int]) -> float:
    """A crude hand score for pre-ranking discards and for modelling the
    opponent's replacement: low cards win the showdown (R17), high cards win
    tricks (R12-R14), middle cards do little."""
    return sum(abs(r - 6.5) for r in cards)


def _expected_card(pool: Sequence[int]) -> float:
    return sum(abs(r - 6.5) for r in pool) / len(pool) if pool else 0.0


def static_rank(cards: Hand, options: list[Hand], pool: Sequence[int]) -> list[Hand]:
    """Discard options ordered by the static score of the hand kept plus the
    expected score of the cards drawn (best first)."""
    e = _expected_card(pool)
    # The kept hand's score is the whole hand's less the discard's: every
    # term is a multiple of 1/2, so both sums are exact in floating point and
    # the key is the one `static_score(remove(cards, d))` gives, without
    # building the kept hand (a 9-card hand has hundreds of options).
    whole = static_score(cards)
    return sorted(options, key=lambda d: (-((whole - static_score(d)) + e * len(d)), len(d), d))


def _ranked_discards(cards: Hand, cap: int, pool: Sequence[int]) -> list[Hand]:
    """`static_rank(cards, every legal discard of at most cap cards, pool)`,
    built rank by rank with each discard's score summed as it grows (a
    9-card hand has hundreds of discards; a 1 ms budget cannot list them
    one Action at a time).  The sort key is `static_rank`'s, and it orders
    distinct discards totally, so the list is the same."""
    e = _expected_card(pool)
    whole = static_score(cards)
    c = counts(cards)
    opts: list[tuple[float, int, Hand]] = [(0.0, 0, ())]
    for r in range(1, 13):
        if not c[r]:
            continue
        v = abs(r - 6.5)
        grown = []
        for score, k, d in opts:
            for t in range(1, min(c[r], cap - k) + 1):
                grown.append((score + t * v, k + t, d + (r,) * t))
        opts += grown
    return [d for _, _, d in sorted(opts, key=lambda o: (-((whole - o[0]) + e * o[1]), o[1], o[2]))]


def static_discard(cards: Hand, cap: int, pool: Sequence[int]) -> Hand:
    """Discard every card whose static worth is below the pool's average,
    worst first, at most `cap` of them."""
    e = _expected_card(pool)
    worst = sorted((r for r in cards if abs(r - 6.5) < e), key=lambda r: abs(r - 6.5))
    return hand(worst[: max(cap, 0)])


class KnownHandSampler(WorldSampler):
    """A world sampler that knows the opponent's hand (the oracle bot):
    only the draw pile's order is random."""

    def __init__(self, opp: Hand, pool: Sequence[int]) -> None:
        self.opp = hand(opp)
        self.rest = list(remove(hand(pool), self.opp))

    def sample(self, rng: random.Random) -> Hand:
        return self.opp

    def deal(self, rng: random.Random) -> tuple[Hand, list[int]]:
        pile = self.rest[:]
        rng.shuffle(pile)
        return self.opp, pile

    def enumerate(self, budget: int | None = None) -> list[tuple[Hand, float]]:
        return [(self.opp, 1.0)]


# ------------------------------------------------------------- finishing


def duel_then_play(me: Hand, opp: Hand, solver: PerfectSolver) -> int:
    """My round outcome (+1/0/-1) when both duel their highest card
    (repeating on ties, R9) and then play perfectly with both hands known."""
    while True:
        if goes_to_showdown(len(me)):
            return showdown((me, opp))
        i, j = me[-1], opp[-1]
        me, opp = me[:-1], opp[:-1]
        if goes_to_showdown(len(me)):
            return showdown((me, opp))
        if (first := duel_attacker(i, j)) is not None:
            return solver.outcome((me, opp), first)


def cell_outcome(me: Hand, opp: Hand, i: int, j: int, solver: PerfectSolver) -> int:
    """My round outcome after I duel `i` and the opponent duels `j`."""
    me, opp = remove(me, (i,)), remove(opp, (j,))
    if goes_to_showdown(len(me)):
        return showdown((me, opp))
    first = duel_attacker(i, j)
    if first is None:
        return duel_then_play(me, opp, solver)
    return solver.outcome((me, opp), first)


# ------------------------------------------------------- a search's start


class SearchOptions(TypedDict, total=False):
    """The options `duel_eval` and `replace_eval` share, each optional:
    `utilities` my worth of (win, drawn round, loss), default
    `ROUND_UTILITIES`; `solver` the perfect-information solver, default a
    new one for the view's rules; `sampler` the worlds (RULES §5), default
    the view's `HandSampler` (an inference sampler weights them);
    `partial` a time budget that is a limit (issue 24: the clock is read
    within a world or deal too), default off (pimc_classic's search);
    `round_search` the round searched as one (module docstring), default
    off."""

    utilities: Sequence[float]
    solver: PerfectSolver | None
    sampler: WorldSampler | None
    partial: bool
    round_search: bool


class _Start(NamedTuple):
    budget: Budget
    t0: float
    utilities: Sequence[float]
    solver: PerfectSolver
    sampler: WorldSampler
    partial: bool
    round_search: bool


def _start(view: View, budget: Budget | None, kind: str, where: str, options: SearchOptions) -> _Start:
    """A decision search's start: its budget, its clock's start and the
    `SearchOptions` with their defaults filled in, once the view is known
    to be at a `kind` decision."""
    unknown = sorted(set(options) - set(SearchOptions.__annotations__))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    b = budget_of(budget, where)
    _check(view, kind)
    t0 = b.now()
    return _Start(
        b,
        t0,
        options.get("utilities", ROUND_UTILITIES),
        options.get("solver") or PerfectSolver(view.rules),
        options.get("sampler") or HandSampler(view),
        options.get("partial", False),
        options.get("round_search", False),
    )


# -------------------------------------------------------------------- duel


def _check(view: View, kind: str) -> None:
    if not isinstance(view, View):
        raise TacocatError(f"expected a View, got {type(view).__name__}")
    if view.decision != kind:
        raise PositionError(
            f"player {view.player} has no {kind} decision here (decision {view.decision})",
            "R9" if kind == DUEL else "R7-R8",
        )


class Worlds(Protocol):
    """Worlds a duel averages, (opponent hand, weight): a list, or deals
    drawn lazily (`_Sampled`)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[tuple[Hand, float]]: ...


class _CellSums:
    """The duel matrix's sums per cell (my card's row, the opponent's
    card's column): weight, weighted utility and its square, weighted
    win/draw/loss, and how many worlds; `duel_eval` makes the means and
    standard errors from them.  The sums are Python floats in nested lists
    until `matrix` makes arrays of them: a cell added to a numpy array
    costs microseconds, and a world of a duel adds dozens of cells after the
    clock has been read (the same IEEE additions either way)."""

    def __init__(self, rows: int, cols: int) -> None:
        self.w, self.su, self.su2, self.n = ([[0.0] * cols for _ in range(rows)] for _ in range(4))
        self.wdl = [[[0.0, 0.0, 0.0] for _ in range(cols)] for _ in range(rows)]

    def add(self, a: int, c: int, p: float, utilities: Sequence[float], idx: int) -> None:
        """One world of weight `p` in cell (a, c), where my outcome has index `idx` (0 win, 1 draw, 2 loss)."""
        u = utilities[idx]
        self.w[a][c] += p
        self.su[a][c] += p * u
        self.su2[a][c] += p * u * u
        self.wdl[a][c][idx] += p
        self.n[a][c] += 1

    def add_sums(self, a: int, c: int, st: Sequence[float]) -> None:
        """Cell (a, c) gains the sums `st` (weight, sum u, sum u^2, win, draw, loss, worlds)."""
        self.w[a][c] += st[0]
        self.su[a][c] += st[1]
        self.su2[a][c] += st[2]
        cell = self.wdl[a][c]
        for t in range(3):
            cell[t] += st[3 + t]
        self.n[a][c] += st[6]

    def matrix(
        self,
        rows: list[int],
        cols: list[int],
        worlds: int,
        live: list[int] | None = None,
        keep: list[int] | None = None,
    ) -> dict:
        """The cells as `duel_matrix` returns them: the rows of indices
        `live` and the columns `keep` (None: all; `live` only with `keep`).
        Each selection indexes as it always did: `x[:, keep]` is laid out
        in memory unlike `x[np.ix_(live, keep)]`, and the layout moves the
        last bits of the matrix game's solution (seeded answers stay
        bit-identical)."""

        def pick(cells: list) -> np.ndarray:
            x = np.array(cells, dtype=float)
            if live is None:
                return x if keep is None else x[:, keep]
            assert keep is not None, "rows are picked only with columns"
            return x[np.ix_(np.asarray(live, dtype=np.intp), np.asarray(keep, dtype=np.intp))]

        wdl = np.array(self.wdl, dtype=float)
        if live is not None:
            wdl = wdl[live]
        return {
            "rows": rows,
            "cols": cols,
            "w": pick(self.w),
            "su": pick(self.su),
            "su2": pick(self.su2),
            "wdl": wdl if keep is None else wdl[:, keep],
            "n": pick(self.n),
            "worlds": worlds,
        }


def _report(progress: Callable[[float], None] | None, k: int, total: int) -> None:
    """`progress` after world `k` of `total`, about twenty times in all."""
    if progress is not None and (k + 1) % max(1, total // 20) == 0:
        progress((k + 1) / total)


def _until_the_clock(
    worlds: Worlds, stop: threading.Event | None, deadline: float | None, minimum: int, clock: Clock
) -> Iterator[tuple[int, Hand, float]]:
    """The worlds of a duel matrix, each with its index, until a stop or
    the deadline (after `minimum` worlds, `Budget.ends`) ends the matrix:
    the clock read between worlds.  The caller finishes each world before
    it asks for the next, so the index is the worlds finished so far."""
    b = Budget(stop=stop, clock=clock)
    t0 = b.now()
    for k, (opp, p) in enumerate(worlds):
        if b.ends(k, t0, deadline, minimum):
            return
        yield k, opp, p


def duel_matrix(
    me: Hand,
    worlds: Worlds,
    utilities: Sequence[float],
    solver: PerfectSolver,
    stop: threading.Event | None = None,
    progress: Callable[[float], None] | None = None,
    deadline: float | None = None,
    minimum: int = MIN_SAMPLES,
    partial: bool = False,
    searched: bool = False,
    clock: Clock = WALL,
) -> dict:
    """Cells (my card, their card) averaged over `worlds` (hand, weight).
    The clock ends the matrix after `minimum` worlds.  `partial` (a time
    budget that is a limit, issue 24) also reads it between the rows of a
    world and between the cells of a row: a world cut short is dropped whole
    once `minimum` worlds are in, and a first world cut short keeps the
    rows it finished (my highest cards first, the duel card every static
    policy plays), the other rows being left out of the game, or, cut
    within its first row, that row's columns it reached.  `searched`: the round search's cells
    (`_duel_matrix_searched`; the clock is read between worlds, as without
    `partial`, which it ignores).  `deadline` is on `clock`, the budget's."""
    if searched:
        return _duel_matrix_searched(me, worlds, utilities, solver, stop, progress, deadline, minimum, clock)
    if partial:
        return _duel_matrix_partial(me, worlds, utilities, solver, stop, progress, deadline, minimum, clock)
    rows = sorted(set(me))
    sums = _CellSums(len(rows), 12)
    used = 0
    for k, opp, p in _until_the_clock(worlds, stop, deadline, minimum, clock):
        for a, i in enumerate(rows):
            for j in sorted(set(opp)):
                sums.add(a, j - 1, p, utilities, 1 - cell_outcome(me, opp, i, j, solver))
        used += 1
        _report(progress, k, len(worlds))
    keep = [c for c in range(12) if sums.w[0][c] > 0]
    return sums.matrix(rows, [c + 1 for c in keep], used, keep=keep)


def _duel_matrix_partial(me, worlds, utilities, solver, stop, progress, deadline, minimum, clock) -> dict:
    """`duel_matrix` with the clock read between rows (its docstring)."""
    rows = sorted(set(me))
    sums = _CellSums(len(rows), 12)
    b = Budget(stop=stop, clock=clock)  # the clock read within a world too
    used = 0
    order = list(range(len(rows)))[::-1]
    for k, opp, p in _until_the_clock(worlds, stop, deadline, minimum, clock):
        cells = []
        cut = False
        for done, a in enumerate(order):
            if done and b.out(deadline) and (used >= minimum or used == 0):
                cut = True
                break
            row: list[tuple[int, int, int]] = []
            for j in sorted(set(opp)):
                # within a row too (a cell of 9-card hands can take a millisecond):
                # once the minimum is in, or in the first world once it has a cell
                if (used >= minimum or (used == 0 and (row or done))) and b.out(deadline):
                    cut = True
                    break
                row.append((a, j, 1 - cell_outcome(me, opp, rows[a], j, solver)))
            if cut and done:
                break  # a later row cut short is left out: the rows kept are whole
            cells += row
            if cut:
                break  # the first row cut short: the columns it reached
        if cut and used:
            break  # dropped whole: every world in the matrix has every row
        for a, j, idx in cells:
            sums.add(a, j - 1, p, utilities, idx)
        used += 1
        _report(progress, k, len(worlds))
        if cut:
            break
    live = [a for a in range(len(rows)) if any(w > 0 for w in sums.w[a])]  # weights are never negative
    keep = [c for c in range(12) if sums.w[live[0]][c] > 0]
    return sums.matrix([rows[a] for a in live], [c + 1 for c in keep], used, live, keep)


def _cell_options(me: Hand, opp: Hand, i: int, j: int, solver: PerfectSolver) -> tuple[object, dict]:
    """The round search's view of cell (i, j) in one world: (group, options),
    `options` my outcome after each move of my first play-phase decision,
    `group` what I know when I make it beyond the duel (the opponent's
    attack, if it attacks first; None if I do).  A cell with no decision of
    mine (a showdown, a tie's re-duel) has one option, None."""
    me2, opp2 = remove(me, (i,)), remove(opp, (j,))
    first = duel_attacker(i, j)
    if goes_to_showdown(len(me2)) or first is None:
        return None, {None: cell_outcome(me, opp, i, j, solver)}
    if first == 0:
        return None, {(c, b): o for c, b, o in solver.move_outcomes((me2, opp2), 0, ())}
    # the opponent attacks as in its world (best play: my worst outcome, the first such attack)
    attacks = solver.move_outcomes((me2, opp2), 1, ())
    worst = min(o for _, _, o in attacks)
    attack = next(c for c, _, o in attacks if o == worst)
    answers = solver.move_outcomes((me2, remove(opp2, attack)), 1, attack)
    return attack, {(c, b): o for c, b, o in answers}


def _duel_matrix_searched(me, worlds, utilities, solver, stop, progress, deadline, minimum, clock) -> dict:
    """`duel_matrix` for the round search (module docstring): each cell's
    first play-phase decision of mine is one move over the worlds in which
    the opponent holds the column's card (and, when it attacks first, made
    the same attack); the clock is read between worlds."""
    rows = sorted(set(me))
    # cell -> group -> option -> [weight, sum u, sum u^2, win, draw, loss, worlds]
    acc: dict[tuple[int, int], dict[object, dict[object, list[float]]]] = {}
    used = 0
    for k, opp, p in _until_the_clock(worlds, stop, deadline, minimum, clock):
        for a, i in enumerate(rows):
            for j in sorted(set(opp)):
                group, options = _cell_options(me, opp, i, j, solver)
                cell = acc.setdefault((a, j), {}).setdefault(group, {})
                for opt, o in options.items():
                    u = utilities[1 - o]
                    st = cell.setdefault(opt, [0.0] * 7)
                    st[0] += p
                    st[1] += p * u
                    st[2] += p * u * u
                    st[3 + 1 - o] += p
                    st[6] += 1
        used += 1
        _report(progress, k, len(worlds))
    cols = sorted({j for (_, j) in acc})
    sums = _CellSums(len(rows), len(cols))
    for (a, j), groups in acc.items():
        c = cols.index(j)
        for options in groups.values():
            # my move: the best weighted mean among the moves every world of the group offers
            n = max(st[6] for st in options.values())
            best = max((st for st in options.values() if st[6] == n), key=lambda st: st[1])
            sums.add_sums(a, c, best)
    return sums.matrix(rows, cols, used)


def _drop(cards: Hand, card: int) -> Hand:
    """A sorted hand less one `card` it holds."""
    k = cards.index(card)
    return cards[:k] + cards[k + 1 :]


def world_duel(me: Hand, opp: Hand, utilities: Sequence[float], solver: PerfectSolver) -> tuple[float, np.ndarray]:
    """The duel's matrix game in one world, both hands known (as every PIMC
    world is): (its value for me, its win/draw/loss probabilities) at the
    equilibrium (`solve_matrix_game_fast`: a saddle point at once, else
    regret matching)."""
    rows, cols = sorted(set(me)), sorted(set(opp))
    idx = np.empty((len(rows), len(cols)), dtype=int)
    for a, i in enumerate(rows):
        me2 = _drop(me, i)
        for c, j in enumerate(cols):
            # `cell_outcome` without its general card removal (a world solves dozens of cells)
            opp2 = _drop(opp, j)
            first = duel_attacker(i, j)
            if goes_to_showdown(len(me2)):
                o = showdown((me2, opp2))
            elif first is None:
                o = duel_then_play(me2, opp2, solver)
            else:
                o = solver.outcome((me2, opp2), first)
            idx[a, c] = 1 - o
    payoff = np.asarray(utilities, dtype=float)[idx]
    x, y, value = solve_matrix_game_fast(payoff, None)
    joint = np.outer(x, y)
    return value, np.array([joint[idx == t].sum() for t in range(3)])


def duel_eval(
    view: View,
    budget: Budget | None = None,
    *,
    exact_budget: int | None = DEFAULT_EXACT_BUDGET,
    minimum: int = MIN_SAMPLES,
    **options: Unpack[SearchOptions],
) -> PlayResult:
    """R9: every duel card with its odds against the opponent's optimal mix
    of the matrix game; `mixed` is my optimal mixed strategy.  Exact (every
    opponent hand with its probability) when the hands number at most
    `exact_budget` (a negative budget: always sample); else `budget.samples`
    sampled deals (default `DEFAULT_DUEL_SAMPLES`, or as many as its time
    allows).  `minimum` and `partial`: see `duel_matrix` (the defaults
    are pimc_classic's).  `round_search`: each cell's play phase
    searched over the worlds the duel leaves (`duel_matrix` searched;
    the clock is then read between worlds only).  The other options:
    `SearchOptions`."""
    b, t0, utilities, solver, sampler, partial, round_search = _start(view, budget, DUEL, "duel_eval", options)
    samples, time_ms, seed, stop, progress = b.samples, b.time_ms, b.seed, b.stop, b.progress
    listed = None
    if exact_budget is None or exact_budget >= 0:
        listed = sampler.enumerate(exact_budget)
    exact = listed is not None
    worlds: Worlds
    if listed is not None:
        worlds = listed
    else:
        rng = rng_from(seed)
        n = samples if samples is not None else (DEFAULT_DUEL_SAMPLES if time_ms is None else 100_000)
        worlds = _Sampled(sampler, rng, n)
    deadline = b.deadline(t0)
    cells = duel_matrix(
        view.hand, worlds, utilities, solver, stop, progress, deadline, minimum, partial, round_search, b.clock
    )
    mean = cells["su"] / cells["w"]
    if partial and stop is not None and stop.is_set():
        # Stopped: the best mix so far at once, without the linear program
        # (a process's first one imports scipy, seconds no stop reaches).
        x, y, value = solve_matrix_game_fast(mean, 0.0, b.clock)
    elif partial and deadline is not None:
        x, y, value = solve_matrix_game_fast(mean, deadline - b.now(), b.clock)
    else:
        x, y, value = solve_matrix_game(mean)
    moves = []
    sampled = not exact
    # Elementwise work for every row at once (a row's own numpy calls cost
    # microseconds each, after the time is out); the products and sums stay
    # row by row, as they always were, so the values are the same to the bit.
    odds = cells["wdl"] / cells["w"][:, :, None]
    if sampled:
        spread = y * y * np.clip(cells["su2"] / cells["w"] - mean**2, 0.0, None) / np.maximum(cells["n"] - 1, 1)
    for a, r in enumerate(cells["rows"]):
        win, draw, loss = (y @ odds[a]).tolist()
        stderr = math.sqrt(float(np.sum(spread[a]))) if sampled else None
        moves.append(MoveEval(Action("duel", (r,)), win, draw, loss, float(mean[a] @ y), stderr))
    prob = {r: float(p) for r, p in zip(cells["rows"], x, strict=True)}
    moves = rank_moves(moves)
    # equal values are common at an equilibrium: among them, the likelier pure move first
    moves.sort(key=lambda m: (-round(m.value, 9), -prob[m.action.cards[0]]))
    complete = exact and cells["worlds"] == len(worlds)
    return PlayResult(
        tuple(moves),
        cells["worlds"],
        complete,
        b.now() - t0,
        b.stopped(),
        mixed=tuple(MixedMove(r, prob[r]) for r in cells["rows"]),
        game_value=float(value),
        opponent_mix=tuple(MixedMove(c, float(p)) for c, p in zip(cells["cols"], y, strict=True)),
    )


class _Sampled:
    """`n` sampled worlds of weight 1, drawn lazily (a time budget may stop
    early)."""

    def __init__(self, sampler: WorldSampler, rng: random.Random, n: int) -> None:
        self.sampler, self.rng, self.n = sampler, rng, n

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[tuple[Hand, float]]:
        weigh = getattr(self.sampler, "weight", None) if getattr(self.sampler, "active", False) else None
        for _ in range(self.n):
            h = self.sampler.sample(self.rng)
            # inference: importance weights (tacocat.search.inference)
            yield h, (1.0 if weigh is None else weigh(h))


def sample_mixed(mixed: Sequence[MixedMove], rng: random.Random) -> Action:
    """Draw a duel card from a mixed strategy with a seeded RNG."""
    r = rng.random()
    acc = 0.0
    for m in mixed:
        acc += m.probability
        if r < acc:
            return Action("duel", (m.card,))
    return Action("duel", (max(mixed, key=lambda m: m.probability).card,))


# ----------------------------------------------------------------- replace


def replace_eval(
    view: View,
    budget: Budget | None = None,
    *,
    candidates: int | None = DEFAULT_CANDIDATES,
    min_stage_deals: int = MIN_STAGE_DEALS,
    **options: Unpack[SearchOptions],
) -> PlayResult:
    """R7/R8: candidate discard sets (the best `candidates` by the static
    score, all by default) ranked by sequential halving over common worlds;
    `budget.samples` is the total number of (candidate, world) evaluations
    (default: the larger of `DEFAULT_REPLACE_EVALS` and 8 per candidate;
    with a time limit, as many as it allows).  A stage's clock is read
    after `min_stage_deals` deals.  `partial` (a time budget that is a
    limit, issue 24) also reads the whole budget's clock within a deal:
    once the minimum is in, a deal cut short is dropped whole, and a first
    deal cut short keeps the candidates it reached (the static score's best
    first); the defaults are pimc_classic's.  `round_search`: the
    opponent's reply drawn from its model and the duel solved as the
    world's matrix game (module docstring).  The other options:
    `SearchOptions`."""
    start = _start(view, budget, REPLACE, "replace_eval", options)
    ranked, samples = _replace_candidates(view, start.budget, candidates)
    halving = _Halving(view, start, ranked, samples, min_stage_deals)
    halving.run()
    return halving.result()


def _replace_candidates(view: View, b: Budget, candidates: int | None) -> tuple[list[Hand], int]:
    """The discards `replace_eval` compares (the legal ones, RULES R7/R8,
    without building an Action each: the static score's best `candidates`,
    keeping every card added) and its evaluation budget."""
    cap = len(view.hand) if view.replace_cap is None else view.replace_cap
    ranked_all = _ranked_discards(view.hand, cap, view.unseen_pool)
    n_cand = len(ranked_all) if candidates is None else min(max(1, candidates), len(ranked_all))
    samples = b.samples
    if samples is None:
        samples = max(DEFAULT_REPLACE_EVALS, 8 * n_cand) if b.time_ms is None else 10**9
    if samples < 1:
        raise TacocatError(f"samples must be at least 1, got {samples}")
    ranked = ranked_all[:n_cand]
    if () not in ranked:  # keeping every card is always legal (R7/R8: any k from 0)
        ranked.append(())
    return ranked, samples


class _Halving:
    """`replace_eval`'s sequential halving (Karnin et al. 2013) over common
    worlds: its state and its steps.  Every candidate alive in a stage is
    evaluated on the same deals, one deal for all of them in turn, so they
    always have as many deals when the budget ends the stage (an evaluation
    budget: its share; a time budget: the time left shared among the
    stages left)."""

    def __init__(self, view: View, start: _Start, ranked: list[Hand], samples: int, min_stage_deals: int) -> None:
        self.view, self.start, self.ranked, self.samples = view, start, ranked, samples
        self.min_stage_deals = min_stage_deals
        b = start.budget
        self.deadline = b.deadline(start.t0)
        self.rng = rng_from(b.seed)
        self.opp_cap = _opponent_cap(view)
        self.worlds: list[tuple[Hand, list[int]]] = []
        self.finish = self._round_finish() if start.round_search else None
        self.stats: dict[Hand, list[Any]] = {d: [0, 0.0, 0.0, [0, 0, 0]] for d in ranked}  # n, sum u, sum u^2, wdl
        self.alive = list(ranked)
        self.rounds = max(1, math.ceil(math.log2(len(self.alive)))) if len(self.alive) > 1 else 1
        self.per_round = max(1, samples // self.rounds)
        self.eliminated: list[tuple[int, Hand]] = []
        self.used = 0
        self.stage = 0
        self.out_of_time = False

    def _round_finish(self) -> Callable[[Hand, int], tuple[float, np.ndarray]]:
        """The round search's finish of (discard, deal k): the opponent's
        reply at a quantile per world of its model's discard distribution,
        from a stream of its own (the worlds' stream is the classic search's)."""
        view, st = self.view, self.start
        model = reply_model(st.sampler, view)
        replies = random.Random(f"replies/{st.budget.seed}")
        quantiles: list[float] = []

        def finish(d: Hand, k: int) -> tuple[float, np.ndarray]:
            while len(quantiles) <= k:
                quantiles.append(replies.random())
            return _replace_round(
                view.hand, d, self.worlds[k], self.opp_cap, model, quantiles[k], st.utilities, st.solver
            )

        return finish

    def run(self) -> None:
        """Stages until the time, the budget or the candidates run out."""
        b = self.start.budget
        while True:
            self._stage()
            self.stage += 1
            if b.progress is not None:
                t0, deadline = self.start.t0, self.deadline
                b.progress(
                    min(1.0, self.used / self.samples)
                    if deadline is None
                    else min(1.0, (b.now() - t0) / (deadline - t0))
                )
            if self.out_of_time or len(self.alive) == 1 or self.used >= self.samples:
                break
            self._halve()

    def _stage(self) -> None:
        """One stage: deals for every candidate alive up to the stage's share."""
        b, t0 = self.start.budget, self.start.t0
        k = self.stats[self.alive[0]][0]
        target = max(1, self.per_round // len(self.alive)) + k
        # When the candidates are a power of two, halving leaves one of them
        # only after `rounds` stages, and a sample budget that is not spent
        # yet gives that lone survivor one more stage (stage == rounds): it
        # has the time left, as the last stage always does.
        stages_left = max(1, self.rounds - self.stage)
        now = b.now()
        stage_end = None if self.deadline is None else now + (self.deadline - now) / stages_left
        while k < target:
            # A stop ends the search at once (a server enforces its time cap
            # with it); the time budget, or a stage's share of it, only after
            # MIN_STAGE_DEALS, so no move is ranked on a handful of deals.
            if b.ends(k, t0, stage_end, self.min_stage_deals):
                self.out_of_time = b.out(self.deadline)
                break
            while len(self.worlds) <= k:
                self.worlds.append(self.start.sampler.deal(self.rng))
            outcomes = self._deal(k)
            if len(outcomes) < len(self.alive) and k > 0:
                self.out_of_time = True
                break
            self._record(outcomes)
            self.used += len(outcomes)
            k += 1
            if len(outcomes) < len(self.alive):
                self.out_of_time = True
                self.alive = [d for d, _ in outcomes]
                break

    def _deal(self, k: int) -> list[tuple[Hand, Any]]:
        """Deal `k` finished for each candidate alive (fewer when the clock cuts it)."""
        st = self.start
        b, t0, partial = st.budget, st.t0, st.partial
        outcomes: list[tuple[Hand, Any]] = []
        for d in self.alive:
            if k > 0 and b.ends(k, t0, self.deadline if partial else None, self.min_stage_deals):
                break  # this deal is dropped whole: every candidate keeps the same deals
            if self.finish is not None:
                outcomes.append((d, self.finish(d, k)))
            else:
                outcomes.append(
                    (
                        d,
                        _replace_outcome(
                            self.view.hand, d, self.worlds[k], self.opp_cap, self.view.unseen_pool, st.solver
                        ),
                    )
                )
            if k == 0 and b.ends(len(outcomes), t0, None, len(self.alive)):
                break  # stopped within a slow first deal: the candidates it reached, one deal each
            if k == 0 and partial and b.out(self.deadline):
                break  # out of time within the first deal: likewise
        return outcomes

    def _record(self, outcomes: list[tuple[Hand, Any]]) -> None:
        utilities = self.start.utilities
        for d, o in outcomes:
            s = self.stats[d]
            if self.finish is not None:
                u, probs = o
                s[0] += 1
                s[1] += u
                s[2] += u * u
                s[3] = [s[3][t] + float(probs[t]) for t in range(3)]
                continue
            idx = 1 - o
            u = utilities[idx]
            s[0] += 1
            s[1] += u
            s[2] += u * u
            s[3][idx] += 1

    def _halve(self) -> None:
        """The better half of the candidates alive goes on."""
        alive = sorted(self.alive, key=lambda d: -self.stats[d][1] / self.stats[d][0])
        keep = max(1, len(alive) // 2)
        for d in alive[keep:]:
            self.eliminated.append((self.stage, d))
        self.alive = alive[:keep]

    def result(self) -> PlayResult:
        """Survivors rank above every eliminated candidate, later eliminations higher."""
        stage_out = {d: 10**6 for d in self.alive}
        for st, d in self.eliminated:
            stage_out[d] = st
        moves = []
        for d in self.ranked:
            n, su, su2, wdl = self.stats[d]
            if n == 0:
                continue
            mean = su / n
            var = max(su2 / n - mean * mean, 0.0)
            moves.append(
                (
                    stage_out[d],
                    MoveEval(
                        Action("replace", d),
                        wdl[0] / n,
                        wdl[1] / n,
                        wdl[2] / n,
                        mean,
                        math.sqrt(var / (n - 1)) if n > 1 else None,
                        visits=n,
                    ),
                )
            )
        moves.sort(key=lambda t: (-t[0], -t[1].value, len(t[1].action.cards)))
        b = self.start.budget
        return PlayResult(
            tuple(m for _, m in moves),
            len(self.worlds),
            False,
            b.now() - self.start.t0,
            b.stopped(),
            evaluations=self.used,
            candidates=len(self.ranked),
        )


def _opponent_cap(view: View) -> Callable[[int], int] | None:
    """Does the opponent still replace, and with what cap once I discard k
    cards?  None: it replaced already (R7)."""
    if view.first_replacer == Arrow.BOTH:
        return lambda k: view.opponent_hand_size  # R8: any number
    if view.first_replacer == f"p{view.player}":
        return lambda k: k  # R7: at most my count
    return None


def discard_values(
    view: View, discards: Sequence[Hand], deals: int, seed: int = 0, solver: PerfectSolver | None = None
) -> list[float]:
    """Each discard's mean round result (+1/0/-1) under the classic
    replacement model (module docstring), every discard on the same
    `deals` seeded deals: a plain check of what `replace_eval` ranks
    (results/decision_noise.py measures its sampling loss with it)."""
    _check(view, REPLACE)
    cap = len(view.hand) if view.replace_cap is None else view.replace_cap
    for d in discards:
        if len(d) > cap or not contains(view.hand, d):
            raise PositionError(
                f"discard {list(d)}: not a replacement of hand {list(view.hand)} of at most {cap} (R7/R8)"
            )
    solver = solver or PerfectSolver(view.rules)
    sampler, rng, opp_cap = HandSampler(view), rng_from(seed), _opponent_cap(view)
    sums = [0] * len(discards)
    for _ in range(deals):
        world = sampler.deal(rng)
        for n, d in enumerate(discards):
            sums[n] += _replace_outcome(view.hand, hand(d), world, opp_cap, view.unseen_pool, solver)
    return [t / deals for t in sums]


def _my_draw(mine: Hand, discard: Hand, world: tuple[Hand, list[int]]) -> tuple[Hand, Hand, list[int]]:
    """A world after I replace `discard` (R7/R8): my hand, drawn from the
    pile's end, the opponent's hand and the pile left for its reply."""
    opp, pile = world
    k = len(discard)
    drawn = pile[len(pile) - k :] if k else []
    return hand(remove(mine, discard) + tuple(drawn)), opp, pile[: len(pile) - k]


def _their_draw(opp: Hand, discard: Hand, pile: list[int]) -> Hand:
    """The opponent's hand after it replaces `discard`, drawn from the pile's end."""
    return hand(remove(opp, discard) + tuple(pile[len(pile) - len(discard) :])) if discard else opp


def _replace_outcome(mine: Hand, discard: Hand, world: tuple[Hand, list[int]], opp_cap, pool, solver) -> int:
    me, opp, rest = _my_draw(mine, discard, world)
    if opp_cap is not None:
        opp = _their_draw(opp, static_discard(opp, opp_cap(len(discard)), pool), rest)
    return duel_then_play(me, opp, solver)


REPLY_TEMPERATURE = 0.25
"""The static softmax's temperature for the opponent's reply in the round
search.  Inference weighs worlds by the same model at its own temperature
(1: the best fit to pimc_classic's discards), broad on purpose: it explains
actions already seen, and no world may lose all its weight to one odd
discard.  A reply the search decides against is another matter: drawn at
T = 1 the opponent errs often (on a deck of ranks 1 and 2, holding 2 2 it
keeps both 38% of the time, holding 1 2 it throws the 1 away 19%), and
the search learns to count on those errors.  On h2-r2
(results/round_exploitability.py) player 0, dealt 1 2 and replacing first
(R7), keeps both (worth +0.20 a deal against a best reply) or discards the
2 (+0.04: it lets the opponent, capped at one card, replace too); with
the reply at T = 1 the search valued them +0.19 and +0.17 (20,000 deals),
level 5's 30 deals a candidate chose the discard, and the bot lost 0.043
a round to a best response (0.010 on h3-r2).  At T = 0.1 to 0.5 both
rulesets are at 0, as plain PIMC is."""


def reply_model(sampler: WorldSampler | None, view: View) -> PlayerModel:
    """The model the round search draws the opponent's reply from: the
    static policy as a softmax at `REPLY_TEMPERATURE` (or at the inference
    model's temperature if that is lower); a registered model that
    weights the worlds (one fitted to recorded games) is its own reply."""
    from tacocat.search.inference import StaticSoftmax, model_of

    model = getattr(sampler, "model", None) if getattr(sampler, "active", False) else None
    if model is not None and not isinstance(model, StaticSoftmax):
        return model
    t = REPLY_TEMPERATURE if model is None else min(model.temperature, REPLY_TEMPERATURE)
    return model_of("policy", t, rules=view.rules)


def _replace_round(
    mine: Hand,
    discard: Hand,
    world: tuple[Hand, list[int]],
    opp_cap,
    model: PlayerModel,
    quantile: float,
    utilities: Sequence[float],
    solver: PerfectSolver,
) -> tuple[float, np.ndarray]:
    """The round search's finish of one (discard, world): my draw, the
    opponent's reply at `quantile` of its model, the world's duel game."""
    me, opp, rest = _my_draw(mine, discard, world)
    if opp_cap is not None:
        sample = getattr(model, "sample_discard", None)
        cap = opp_cap(len(discard))
        opp = _their_draw(opp, sample(opp, cap, quantile) if sample is not None else static_discard(opp, cap, ()), rest)
    if goes_to_showdown(len(me)):
        o = showdown((me, opp))
        probs = np.zeros(3)
        probs[1 - o] = 1.0
        return float(utilities[1 - o]), probs
    return world_duel(me, opp, utilities, solver)
