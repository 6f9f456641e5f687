"""The clock a time budget is counted on (`tacocat.search.budget.Clock`):
every search reads its budget's clock, so a CPU budget buys the same work
whether or not the searching thread is kept off its core.

The tests keep the thread off its core themselves: a `stop` whose
`is_set` sleeps (it is asked between batches, chunks and polls, as a stop
always is), which is what another process holding the core does to a
search: wall time passes, the thread's CPU time does not."""

from __future__ import annotations

import json
import random
import time

import pytest
from cli_output import output_of
from helpers import one_line_error, run_cli

from tacocat.errors import TacocatError
from tacocat.players.bots import make_bot
from tacocat.players.exploitability import endgames
from tacocat.players.match import run_match
from tacocat.rules.actions import Action
from tacocat.rules.game import DUEL, REPLACE, GameState
from tacocat.rules.views import build_view
from tacocat.search.budget import CPU, WALL, Budget, Clock, clock_named
from tacocat.search.decisions import duel_eval, replace_eval
from tacocat.search.equilibrium import EquilibriumStopped, solve
from tacocat.search.hint import hint
from tacocat.search.ismcts import ismcts_play
from tacocat.search.pimc import pimc_play

ANSWER = build_view(hand=(2, 4, 6, 9, 11, 12), seen=(1, 3), opponent=5, attacker=0, table=(8,), player=1)


def _replace_and_duel_views() -> tuple:
    state = GameState.new(seed=4)
    replace = state.view(0)
    assert replace.decision == REPLACE
    for p in state.acting_players():
        state.apply(p, Action("replace", ()))
    while state.phase != DUEL:  # a one-arrow space: the second replacer
        p = state.acting_players()[0]
        state.apply(p, Action("replace", ()))
    return replace, state.view(0)


REPLACE_VIEW, DUEL_VIEW = _replace_and_duel_views()


class Dozing:
    """A stop that is never set and sleeps each time it is asked, until it
    has slept `most` seconds in all: the search's thread is off its core
    (wall time passes, its CPU time does not)."""

    def __init__(self, seconds: float, most: float = 0.25) -> None:
        self.seconds, self.most = seconds, most
        self.asked, self.slept = 0, 0.0

    def is_set(self) -> bool:
        self.asked += 1
        if self.slept < self.most:
            time.sleep(self.seconds)
            self.slept += self.seconds
        return False


SEARCHES = {
    "pimc": lambda b: pimc_play(ANSWER, b, partial=True),
    "ismcts": lambda b: ismcts_play(ANSWER, b),
    "duel": lambda b: duel_eval(DUEL_VIEW, b, exact_budget=-1, partial=True),
    "replace": lambda b: replace_eval(REPLACE_VIEW, b, partial=True),
    "hint": lambda b: hint(ANSWER, b, method="pimc"),
}


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_a_cpu_budget_is_spent_in_cpu_time_while_the_thread_sleeps(name):
    ms, doze = 80.0, Dozing(0.02)
    c0, w0 = time.thread_time(), time.perf_counter()
    SEARCHES[name](Budget(time_ms=ms, clock=CPU, stop=doze, seed=1))
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    slept = doze.slept
    # the sleeps alone would have used up a wall budget, yet the search ran its CPU time
    assert slept > ms / 1000, (name, doze.asked)
    assert 0.8 * ms / 1000 <= cpu <= 4 * ms / 1000 + 0.05, (name, cpu)
    assert wall >= cpu + 0.9 * slept


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_a_wall_budget_counts_the_time_the_thread_sleeps(name):
    ms, doze = 80.0, Dozing(0.04)
    c0 = time.thread_time()
    SEARCHES[name](Budget(time_ms=ms, clock=WALL, stop=doze, seed=1))
    cpu = time.thread_time() - c0
    # the sleeps took the wall budget: the search ran a fraction of it in CPU time
    # (a time budget ends a search only after its minimum sample, which it still took)
    assert doze.asked >= 2 and cpu < 0.5 * ms / 1000, (name, cpu, doze.asked)


def test_the_equilibrium_core_polls_the_budgets_clock():
    # a 5-card endgame's build takes seconds of CPU: the deadline ends it, read
    # in the Cython core on the thread's CPU clock, while the stop callback sleeps
    doze = Dozing(0.02, most=0.4)
    c0, w0 = time.thread_time(), time.perf_counter()
    with pytest.raises(EquilibriumStopped, match=r"time budget \(300 ms\)"):
        solve(endgames(5, 10)[9], time_ms=300, clock=CPU, stop=doze)  # type: ignore[arg-type]
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    assert doze.slept > 0.3  # a wall clock would have run out while it slept
    assert 0.25 <= cpu <= 1.5 and wall >= cpu + 0.9 * doze.slept


def test_budget_deadlines_read_the_budgets_clock():
    now = [100.0]
    fake = Clock("fake", lambda: now[0], CPU.c_id)
    b = Budget(time_ms=50, clock=fake)
    deadline = b.deadline(b.now())
    assert deadline == pytest.approx(100.05)
    assert not b.out(deadline) and not b.ends(5, 100.0, deadline, 1)
    now[0] = 100.06  # this clock moved, the others did not
    assert b.out(deadline) and b.ends(5, 100.0, deadline, 1) and not b.ends(0, 100.0, deadline, 1)


def test_a_clock_is_named_cpu_or_wall_and_anything_else_is_refused_in_one_line():
    assert clock_named("cpu") is CPU and clock_named("wall") is WALL and clock_named(CPU) is CPU
    with pytest.raises(TacocatError, match="clock must be one of wall, cpu, got 'sun'"):
        clock_named("sun")
    with pytest.raises(TacocatError, match="clock must be a Clock"):
        Budget(clock="cpu")  # type: ignore[arg-type]
    with pytest.raises(TacocatError, match="clock must be one of"):
        make_bot("pimc", time_ms=20, clock="sun")


@pytest.mark.parametrize("name", ["pimc", "pimc_classic", "ismcts", "pimc_eq"])
def test_a_bot_counts_its_time_on_its_clock(name):
    bot = make_bot(name, time_ms=30, clock="cpu", utilities="round")
    assert bot.clock is CPU
    c0 = time.thread_time()
    bot.choose(ANSWER, random.Random(1))
    assert time.thread_time() - c0 >= 0.8 * 0.030 * (0.5 if name == "pimc_classic" else 1) or name == "pimc_eq"


def test_a_count_budget_plays_the_same_whatever_the_clock():
    # a count is a count: the clock matters only to a time budget
    kw = dict(samples=4, replace_samples=16, duel_samples=4, candidates=4)
    a = run_match("pimc", "heuristic", deals=1, seed=3, mode="game", budget=dict(kw, clock="cpu"))
    b = run_match("pimc", "heuristic", deals=1, seed=3, mode="game", budget=dict(kw, clock="wall"))
    assert a.outcomes == b.outcomes


def test_a_match_reports_each_sides_think_time_on_both_clocks():
    r = run_match("pimc", "heuristic", deals=2, seed=1, mode="game", budget={"time_ms": 10, "clock": "cpu"})
    a, b = r.think["a"], r.think["b"]
    assert a["decisions"] > 0 and b["decisions"] > 0
    assert 5 <= a["cpu_ms"] <= 40 and a["wall_ms"] >= 0.9 * a["cpu_ms"]
    assert b["cpu_ms"] < 2  # the heuristic does not search
    assert r.to_dict()["think"] == r.think


def test_arena_takes_clock_and_says_who_does_not_spend_its_budget():
    args = ["arena", "pimc_classic@samples=10", "heuristic", "--deals", "1", "--time", "200", "--clock", "cpu"]
    out = output_of(run_cli(args))
    # its counts (10 worlds, 240 replacement evaluations, 24 duel deals) end its searches long before 200 ms
    assert "pimc_classic@samples=10 spends" in out and "of its 200 ms cpu budget" in out
    js = output_of(run_cli(["arena", "heuristic", "random", "--deals", "1", "--time", "20", "--json"]))
    row = json.loads(js)[0]
    assert row["budget"] == {"time_ms": 20, "clock": "cpu"} and row["think"]["a"]["decisions"] > 0
    one_line_error(run_cli(["arena", "heuristic", "random", "--clock", "sun"]), "--clock", "sun")


def test_selfplay_takes_a_time_budget_on_a_clock():
    out = output_of(run_cli(["selfplay", "--p0", "pimc", "--p1", "heuristic", "--games", "1", "--time", "5", "--json"]))
    assert json.loads(out.splitlines()[-1])["p0"] == "pimc"
