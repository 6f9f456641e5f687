"""A bot's time budget counts from `choose` (issue 24, deliverable 4): the
clock starts when the bot is asked, the legal actions are listed once, and
each search stops with the clock counted from that start.  These tests read
the mechanism (the start handed down, the worlds a search takes when its
time is gone, what is listed), never a wall time."""

from __future__ import annotations

import collections
import random
import time

import pytest

from tacocat.errors import TacocatError
from tacocat.players.bots import make_bot
from tacocat.rules.views import View, build_view
from tacocat.search import hint as hint_module
from tacocat.search.budget import MAX_SAMPLES, Budget
from tacocat.search.decisions import duel_eval, replace_eval
from tacocat.search.pimc import _batches, exact_play, pimc_play

ATTACK = build_view(hand=(2, 3, 5, 7, 8, 9, 10, 12), opponent=8)
DUEL = build_view(hand=(2, 4, 8, 9, 12, 12, 6), phase="duel")
REPLACE = build_view(hand=(1, 2, 5, 6, 7, 9, 11, 12), phase="replace")
GONE = 10.0
"""Seconds before now at which a budget whose time is gone began."""


def test_a_budget_s_deadline_counts_from_its_own_start():
    assert Budget(time_ms=5, start=10.0).deadline(99.0) == pytest.approx(10.005)
    assert Budget(time_ms=5).deadline(99.0) == pytest.approx(99.005)
    assert Budget(samples=5, start=10.0).deadline(99.0) is None


@pytest.mark.parametrize("start", ["now", True, float("nan")])
def test_a_bad_start_is_refused(start):
    with pytest.raises(TacocatError, match="start"):
        Budget(time_ms=5, start=start)


def test_a_play_search_whose_time_is_gone_takes_its_minimum_only():
    gone = time.perf_counter() - GONE
    for partial in (False, True):
        res = pimc_play(ATTACK, Budget(time_ms=50, seed=1, start=gone), minimum=3, partial=partial)
        assert res.worlds == 3
    res = exact_play(ATTACK, Budget(time_ms=50, seed=1, start=gone), max_hands=None, minimum=2, partial=True)
    assert res is not None and res.worlds == 2 and res.stopped


def test_a_duel_whose_time_is_gone_keeps_the_cells_of_its_first_row():
    res = duel_eval(
        DUEL, Budget(time_ms=50, seed=1, start=time.perf_counter() - GONE), exact_budget=-1, minimum=1, partial=True
    )
    # the first row is my highest card; the clock, read between its cells, cut it after one cell
    assert [m.card for m in res.mixed] == [12]
    assert res.mixed[0].probability == 1.0 and len(res.opponent_mix) == 1


def test_a_replacement_whose_time_is_gone_evaluates_one_candidate():
    res = replace_eval(
        REPLACE,
        Budget(time_ms=50, seed=1, start=time.perf_counter() - GONE),
        candidates=8,
        min_stage_deals=1,
        partial=True,
    )
    assert res.evaluations == 1


def test_batches_past_the_deadline_hold_one_world_each():
    unpaced = _batches(None, 1)
    assert [next(unpaced) for _ in range(5)] == [1, 2, 4, 8, 16]  # each yield takes no time: doubling
    paced = _batches(None, 1, deadline=time.perf_counter() - GONE)
    assert [next(paced) for _ in range(5)] == [1, 1, 1, 1, 1]


class _Seen:
    """What a bot's search (`hint`, or the module's `search`) was handed:
    its budget and its `legal` list."""

    def __init__(self, monkeypatch, module=hint_module, search: str = "hint") -> None:
        self.calls: list[tuple[Budget, list | None, float]] = []
        real = getattr(module, search)

        def spy(view, budget=None, *args, **kw):
            self.calls.append((budget, kw.get("legal"), time.perf_counter()))
            return real(view, budget, *args, **kw)

        monkeypatch.setattr(module, search, spy)


def test_the_bot_s_clock_starts_when_choose_is_called(monkeypatch):
    seen = _Seen(monkeypatch)
    bot = make_bot("pimc", time_ms=5, seed=0)
    before = time.perf_counter()
    bot.choose(ATTACK, random.Random(0))
    ((budget, _, called),) = seen.calls
    assert budget.time_ms == 5  # nothing kept back yet: no decision of this kind before
    assert before <= budget.start <= called  # the clock started in choose, before hint was called


def test_a_play_decision_lists_its_legal_actions_once(monkeypatch):
    seen = _Seen(monkeypatch)
    listed = collections.Counter()
    real = View.legal_actions

    def counting(view):
        listed["n"] += 1
        return real(view)

    monkeypatch.setattr(View, "legal_actions", counting)
    make_bot("pimc", time_ms=5, seed=0).choose(ATTACK, random.Random(0))
    ((_, legal, _),) = seen.calls
    assert listed["n"] == 1  # by the bot, to skip a forced move; the search takes that list
    assert legal == real(ATTACK)


def test_a_forced_move_is_played_without_a_search(monkeypatch):
    seen = _Seen(monkeypatch)
    one = build_view(hand=(7, 7, 7), phase="duel")  # one distinct card: one legal duel
    assert make_bot("pimc", time_ms=5, seed=0).choose(one, random.Random(0)).cards == (7,)
    assert seen.calls == []


def test_the_time_a_kind_ran_over_is_kept_back_from_its_next_search(monkeypatch):
    seen = _Seen(monkeypatch)
    bot = make_bot("pimc", time_ms=10, seed=0)
    bot._overruns["attack"] = collections.deque([0.5, 3.0, 2.0])
    bot._overruns["duel"] = collections.deque([-1.0])
    assert bot.reserve_ms("attack") == 2.0  # the median of the overruns
    assert bot.reserve_ms("duel") == 0.0  # a search that finished early keeps nothing back
    assert bot.reserve_ms("answer") == 0.0  # nothing known yet
    bot._overruns["answer"] = collections.deque([40.0])
    assert bot.reserve_ms("answer") == 10 * bot.RESERVE_SHARE  # never more than a share of the budget
    bot.choose(ATTACK, random.Random(0))
    ((budget, _, _),) = seen.calls
    assert budget.time_ms == 8.0
    assert len(bot._overruns["attack"]) == 4  # this decision's overrun joins them


def test_the_classic_bot_keeps_nothing_back(monkeypatch):
    from tacocat.players import reference

    seen = _Seen(monkeypatch, reference, "classic_search")
    bot = make_bot("pimc_classic", time_ms=10, seed=0)
    bot.choose(ATTACK, random.Random(0))
    bot.choose(ATTACK, random.Random(1))
    assert [b.time_ms for b, _, _ in seen.calls] == [10, 10]
    assert bot._overruns == {}


@pytest.mark.parametrize(
    ("name", "budget", "evaluations", "deals"),
    [
        ("pimc", {"time_ms": 5}, MAX_SAMPLES, MAX_SAMPLES),  # a time budget is spent: the clock ends them
        ("pimc", {"time_ms": 5, "replace_samples": 50, "duel_samples": 7}, 50, 7),  # counts given are kept
        ("pimc", {}, 240, 24),  # no time: the counts bound the search
        ("pimc_classic", {"time_ms": 5}, 240, 24),  # the classic search keeps its caps whatever its time
    ],
)
def test_a_time_budget_runs_the_replacement_and_the_duel_to_the_clock(monkeypatch, name, budget, evaluations, deals):
    from tacocat.search import decisions

    asked: dict[str, int | None] = {}
    for kind, search in (("replace", decisions.replace_eval), ("duel", decisions.duel_eval)):

        def spy(view, b, *args, _kind=kind, _search=search, **kw):
            asked[_kind] = b.samples
            return _search(view, b, *args, **kw)

        monkeypatch.setattr(decisions, f"{kind}_eval", spy)
    bot = make_bot(name, seed=0, **budget)
    bot.choose(REPLACE, random.Random(0))
    bot.choose(DUEL, random.Random(0))
    assert asked == {"replace": evaluations, "duel": deals}
