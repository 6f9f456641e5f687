"""The equilibrium solve on several threads (issue 36, deliverable 1): each
traversal's root subtrees are shared out over the threads, every thread
with its own scratch, and the root sums their results in child order, so a
solve gives the same numbers, bit for bit, on one thread or two; the calling
thread alone polls the deadline and `stop`, which still end a threaded
solve; the command line takes `--threads` and says what it used."""

from __future__ import annotations

import json
import threading
import time

import pytest
from helpers import one_line_error
from helpers import run_cli as run

from tacocat.errors import TacocatError
from tacocat.players.exploitability import endgames
from tacocat.rules.cards import hand
from tacocat.rules.ruleset import STANDARD
from tacocat.search.equilibrium import Endgame, EquilibriumStopped, build, keep_lower, solve, unpack

# the benchmark's first 4-card endgame (~93 k sequences, 25 root moves) and one with a table attack against
# five cards (~1.1 M sequences), so that the opponent of the traverser moves at the root too (its values summed
# over the root's children); both over SPLIT_MIN (20 k sequences), under which a traversal keeps one thread
FOUR = endgames(4, 1)[0]
ANSWER = Endgame(STANDARD, hand([1, 1, 2, 2, 5, 5, 9, 12, 3]), (), (7,), 0, (4, 5))


@pytest.mark.parametrize("eg", [FOUR, ANSWER], ids=["attack-at-root", "answer-at-root"])
def test_two_threads_give_the_same_numbers_bit_for_bit(eg):
    runs = []
    for threads in (1, 2):
        eng = build(eg, keep_lower_answers=keep_lower(eg), threads=threads)
        eng.run(6)
        runs.append((eng.best_response(), eng.values(0), eng.values(1), eng.weights(), eng.stats()))
    (br1, v01, v11, w1, st1), (br2, v02, v12, w2, st2) = runs
    assert st2["threads"] == 2 and st2["threaded_traversals"] > 0 and st1["threaded_traversals"] == 0
    assert min(st2["children_walked"]) > 0  # both threads walked some of the root's children
    assert br1 == br2 and v01 == v02 and v11 == v12 and w1 == w2


def test_a_threaded_solve_answers_what_one_thread_answers():
    p, eng = FOUR.to_move, build(FOUR)
    cards = next(unpack(h) for h in eng.level(FOUR.sizes[p]) if eng.marginal(p, h) > 0)
    one = solve(FOUR, hand_of=(p, cards), threads=1)
    two = solve(FOUR, hand_of=(p, cards), threads=2)
    assert (one.value, one.exploitability, one.iterations, one.hand_regret) == (
        two.value,
        two.exploitability,
        two.iterations,
        two.hand_regret,
    )
    assert one.hand_report(p, cards) == two.hand_report(p, cards)
    assert two.threads == 2 and two.to_dict()["threads"] == 2


def test_stop_and_the_deadline_end_a_threaded_solve():
    stop = threading.Event()
    t0 = time.perf_counter()
    threading.Timer(0.3, stop.set).start()
    with pytest.raises(EquilibriumStopped, match="stopped while"):  # as on one thread: stop ends the answer too
        solve(FOUR, target=1e-12, stop=stop, threads=2)
    assert stop.is_set() and time.perf_counter() - t0 < 0.3 + 2.0
    t0 = time.perf_counter()
    try:  # the budget ends it (on a loaded machine, possibly before the first iteration is measured)
        assert solve(FOUR, target=1e-12, time_ms=400, threads=2).stopped
    except EquilibriumStopped as exc:
        assert "time budget (400 ms)" in str(exc)
    assert time.perf_counter() - t0 < 0.4 + 2.0


def test_a_threaded_solve_stopped_inside_an_iteration_unwinds_every_thread():
    eng = build(FOUR, keep_lower_answers=True, threads=2)
    eng.limit(time.monotonic() + 0.01)
    with pytest.raises(Exception, match="stopped inside a CFR iteration"):
        eng.run(10_000)
    eng.limit(0.0)
    eng.run(1)  # the engine still works after the abort (every worker joined)


@pytest.mark.parametrize("bad", [0, 17, 1.5, True, "2"])
def test_bad_threads_name_the_field(bad):
    with pytest.raises(TacocatError, match="threads must be an integer from 1 to 16"):
        solve(FOUR, iterations=1, threads=bad)


def test_cli_threads_says_what_it_used():
    args = ["solve", "--equilibrium", "--hand", "2 9 10", "--seen", "1 1 3 3 3 4 4 5 5 6 6 7 7 8 8 9 11 11 12 12"]
    out = run([*args, "--threads", "2", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["threads"] == 2
    text = run([*args, "--threads", "1"])
    assert text.exit_code == 0 and " on 1 thread (" in text.stdout
    one_line_error(run(["solve", "--hand", "2 9 10", "--seen", "1 3", "--threads", "2"]), "--threads", "--equilibrium")
    one_line_error(run([*args, "--threads", "0"]), "--threads")
