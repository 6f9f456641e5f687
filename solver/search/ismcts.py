"""Information-set MCTS for play-phase decisions: the validating Python side
of `tacocat.core._ismcts` (single-observer ISMCTS, Cowling/Powley/Whitehouse 2012;
the algorithm is described there).

Budget (`tacocat.search.budget.Budget`): its `samples` count iterations,
or `time_ms` (the first reached), run in short chunks
so that `stop` and `progress` are honoured.  Root parallelism: `threads`
independent trees (seeds derived from `seed`) whose root statistics are
summed; each tree runs without the GIL.  With an iteration budget and one
thread the result is reproducible from the seed; a time budget is not."""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from tacocat.errors import PositionError, TacocatError
from tacocat.rules.cards import counts
from tacocat.rules.views import View
from tacocat.search.budget import Budget, Clock, budget_of
from tacocat.search.gamevalue import ROUND_UTILITIES
from tacocat.search.options import Rollout
from tacocat.search.pimc import check_play_view
from tacocat.search.results import MoveEval, PlayResult
from tacocat.search.sampling import HandSampler

DEFAULT_ITERATIONS = 50_000
DEFAULT_C = 1.0
"""UCB exploration constant (rewards lie in [-1, 1])."""
DEFAULT_EXACT_CARDS = 4
"""Rollouts switch to the exact solver at this many cards per hand."""
CHUNK_SECONDS = 0.02
ROLLOUTS: dict[str, int] = {Rollout.RANDOM: 0, Rollout.GREEDY: 1}
"""Rollout policies: uniform random moves, or answers that beat as cheaply
as possible else sacrifice the lowest cards (a random answer 1 time in 8);
attacks are uniform random in both."""
DEFAULT_ROLLOUT = Rollout.RANDOM.value


def _tree(
    view: View, utilities: Sequence[float], c_uct: float, exact_cards: int, seed: int, max_nodes: int, rollout: int = 0
):
    from tacocat.core import _ismcts  # type: ignore[attr-defined]  # compiled Cython, no .py or stub for mypy

    # The tree deals the opponent from the cards it may hold (R20: the unseen
    # pool at or above the floor its sacrifices set); the draw pile plays no
    # part in the play phase.
    return _ismcts.Tree(
        list(view.hand),
        list(HandSampler(view).opp_pool),
        view.opponent_hand_size,
        view.player,
        view.attacker,
        list(view.table),
        tuple(float(u) for u in utilities),
        float(c_uct),
        int(exact_cards),
        seed & 0xFFFFFFFFFFFFFFFF,
        int(max_nodes),
        1 << 16,
        int(rollout),
    )


def check_ismcts_view(view: View) -> None:
    """A play-phase view the packed C search can hold (hands of at most 12
    cards, a pool of at most 64 cards, at most 15 of a rank); raises
    PositionError otherwise, so a caller can fall back to PIMC."""
    check_play_view(view)
    mine = len(view.hand) + (len(view.table) if view.attacker == view.player else 0)
    if mine > 12 or view.opponent_hand_size > 12:
        raise PositionError("ISMCTS handles hands of at most 12 cards; use method pimc", "R6")
    pool = view.unseen_pool
    if len(pool) > 64:
        raise PositionError(
            f"ISMCTS handles an unseen pool of at most 64 cards, got {len(pool)}; use method pimc", "R1"
        )
    if max(counts(pool)) > 15:
        raise PositionError("ISMCTS handles at most 15 cards of a rank; use method pimc", "R1")


def ismcts_play(
    view: View,
    budget: Budget | None = None,
    *,
    utilities: Sequence[float] = ROUND_UTILITIES,
    c_uct: float = DEFAULT_C,
    exact_cards: int = DEFAULT_EXACT_CARDS,
    threads: int = 1,
    rollout: str = DEFAULT_ROLLOUT,
    max_nodes: int = 1_000_000,
) -> PlayResult:
    """Search the view's play-phase decision; moves ranked by visits (the
    robust child), each with its mean reward and outcome frequencies.
    `budget.samples` counts iterations (default `DEFAULT_ITERATIONS` when
    the budget has no limit).  A tree holds at most `max_nodes` nodes
    (about 100 bytes each); once full, iterations go on without expanding."""
    b = budget_of(budget, "ismcts_play")
    check_ismcts_view(view)
    iterations = DEFAULT_ITERATIONS if b.unlimited else b.samples
    _check_options(threads, rollout)
    seeds = [random.Random(f"ismcts/{b.seed}/{i}").getrandbits(64) for i in range(threads)]
    scale, shift, norm = _unit_utilities(utilities)
    trees = [_tree(view, norm, c_uct, exact_cards, s, max_nodes, ROLLOUTS[rollout]) for s in seeds]
    clock = b.clock
    t0 = clock.now()
    deadline = b.deadline(t0)
    run = _Run(clock, t0, deadline, threads, _shares(iterations, threads), b.stop, b.progress)
    wall0 = time.perf_counter()
    run.left_s = 0.0 if deadline is None else deadline - clock.now()
    run.all(trees)
    moves = _in_caller_units(merge_roots(view, [t.root_children() for t in trees]), scale, shift)
    total = sum(t.total_iterations for t in trees)
    return PlayResult(
        tuple(moves),
        total,
        False,
        # one thread: the time on the budget's clock; several: the wall time
        # (each thread's CPU clock is its own)
        clock.now() - t0 if threads == 1 else time.perf_counter() - wall0,
        run.stopped,
        iterations=total,
        nodes=sum(t.node_count for t in trees),
    )


def _check_options(threads: int, rollout: str) -> None:
    if threads < 1:
        raise TacocatError(f"threads must be at least 1, got {threads}")
    if rollout not in ROLLOUTS:
        raise TacocatError(f"rollout {rollout!r} unknown; expected one of {', '.join(ROLLOUTS)}")


def _in_caller_units(moves: list[MoveEval], scale: float, shift: float) -> list[MoveEval]:
    """The moves' values mapped back from win = 1, loss = -1 (`_unit_utilities`)."""
    return [
        m
        if not m.visits
        else replace(m, value=m.value * scale + shift, stderr=None if m.stderr is None else m.stderr * abs(scale))
        for m in moves
    ]


def _unit_utilities(utilities: Sequence[float]) -> tuple[float, float, tuple[float, float, float]]:
    """The scale and shift that map the utilities to win = 1, loss = -1,
    and the mapped utilities: the search runs on those (an affine map
    keeps the best moves and keeps the UCB constant meaningful) and
    reports in the caller's units."""
    uw, ud, ul = (float(u) for u in utilities)
    scale = (uw - ul) / 2 if uw != ul else 1.0
    shift = (uw + ul) / 2
    return scale, shift, ((uw - shift) / scale, (ud - shift) / scale, (ul - shift) / scale)


def _shares(iterations: int | None, threads: int) -> list[int] | None:
    """Each thread's share of the iterations (None: the time decides)."""
    if iterations is None:
        return None
    return [iterations // threads + (1 if i < iterations % threads else 0) for i in range(threads)]


@dataclass
class _Run:
    """One search over several trees, a thread each: their shares, the
    deadline, the stop, and whether a stop ended it."""

    clock: Clock
    t0: float
    deadline: float | None
    threads: int
    share: list[int] | None
    stop: threading.Event | None
    progress: Callable[[float], None] | None
    left_s: float = 0.0
    """The time the budget had left when the threads started."""
    stopped: bool = False

    def all(self, trees: list) -> None:
        if self.threads == 1:
            self.work(0, trees[0])
            return
        pool = [threading.Thread(target=self.work, args=(i, tree)) for i, tree in enumerate(trees)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()

    def work(self, i: int, tree: Any) -> None:
        """Tree `i`'s search, a chunk at a time until it must answer."""
        clock = self.clock
        # A thread's CPU clock starts at its own origin: the deadline it
        # reads is this thread's now plus the time the budget has left.
        end = self.deadline if self.deadline is None or self.threads == 1 else clock.now() + self.left_s
        last = clock.now()
        while True:
            now = self._goes_on(i, tree, end)
            if now is None:
                return
            left = -1 if self.share is None else self.share[i] - tree.total_iterations
            secs = CHUNK_SECONDS if end is None else max(min(CHUNK_SECONDS, end - now), 0.0)
            tree.run(iterations=left, seconds=secs, clock=clock.c_id)
            if self.progress is not None and i == 0 and clock.now() - last > 0.05:
                last = self._report(self.progress, tree, end)

    def _goes_on(self, i: int, tree: Any, end: float | None) -> float | None:
        """The time now if tree `i` searches on: its share not done, and
        (once it has an iteration) no stop asked and the deadline not passed."""
        if self.share is not None and tree.total_iterations >= self.share[i]:
            return None
        if self.stop is not None and self.stop.is_set() and tree.total_iterations > 0:
            self.stopped = True
            return None
        now = self.clock.now()
        if end is not None and now >= end and tree.total_iterations > 0:
            return None
        return now

    def _report(self, progress: Callable[[float], None], tree: Any, end: float | None) -> float:
        """Tell the fraction done, by iterations or by time; the time told."""
        last = self.clock.now()
        frac = 0.0
        if self.share is not None:
            frac = tree.total_iterations / max(self.share[0], 1)
        if end is not None and self.deadline is not None:
            frac = max(frac, 1.0 - (end - last) / (self.deadline - self.t0))
        progress(min(frac, 1.0))
        return last


def merge_roots(view: View, roots: list[list[tuple]]) -> list[MoveEval]:
    """Sum root statistics of several trees; every legal move is listed
    (never-expanded ones last, with zero visits)."""
    stats: dict[tuple, list[float]] = {}
    for children in roots:
        for cards, beats, visits, _avail, rsum, rsq, w, d, l in children:
            key = (tuple(cards), beats if view.table else None)
            s = stats.setdefault(key, [0, 0.0, 0.0, 0, 0, 0])
            s[0] += visits
            s[1] += rsum
            s[2] += rsq
            s[3] += w
            s[4] += d
            s[5] += l
    out: list[tuple[float, int, MoveEval]] = []
    for i, action in enumerate(view.legal_actions()):
        key = (action.cards, action.beats if action.kind == "answer" else None)
        got = stats.get(key)
        if not got or got[0] == 0:
            out.append((0, i, MoveEval(action, 0.0, 0.0, 0.0, 0.0, None, visits=0)))
            continue
        n = got[0]
        mean = got[1] / n
        var = max(got[2] / n - mean * mean, 0.0)
        stderr = math.sqrt(var / (n - 1)) if n > 1 else None
        out.append((n, i, MoveEval(action, got[3] / n, got[4] / n, got[5] / n, mean, stderr, visits=int(n))))
    out.sort(key=lambda t: (-t[0], -t[2].value, t[1]))
    return [m for _, _, m in out]
