"""The Cython ISMCTS (its move generators and exact leaves are `_search`'s,
tested in test_solver.py): seeded, budgets, statistics, and agreement with
the exact answer where the best move is clear."""

import pytest
from positions import play_view

from tacocat.errors import PositionError
from tacocat.search.budget import Budget
from tacocat.search.hint import hint
from tacocat.search.ismcts import ismcts_play


def test_search_is_seeded_and_counts_add_up():
    v = play_view([1, 4, 7, 9, 12, 12, 5, 3], [], 8)
    a = ismcts_play(v, Budget(samples=4000, seed=1))
    b = ismcts_play(v, Budget(samples=4000, seed=1))
    c = ismcts_play(v, Budget(samples=4000, seed=2))
    key = lambda r: [(m.action, m.visits, m.value) for m in r.moves]  # noqa: E731
    assert key(a) == key(b) and key(a) != key(c)
    assert a.worlds == 4000 and sum(m.visits for m in a.moves) == 4000
    assert [m.visits for m in a.moves] == sorted((m.visits for m in a.moves), reverse=True)
    for m in a.moves:
        assert m.win + m.draw + m.loss == pytest.approx(1.0)
        assert -1 <= m.value <= 1


def test_root_parallel_threads_sum_their_iterations():
    v = play_view([1, 4, 7, 9, 12, 12, 5, 3], [], 8)
    r = ismcts_play(v, Budget(samples=3001, seed=3), threads=2)
    assert r.worlds == 3001 and sum(m.visits for m in r.moves) == 3001


def test_time_budget():
    # A time budget alone: the search runs until the time is up (however
    # many iterations this machine manages in it), then answers.
    v = play_view([1, 4, 7, 9, 12, 12, 5, 3], [], 8)
    r = ismcts_play(v, Budget(time_ms=60, seed=1))
    assert r.worlds >= 1 and sum(m.visits for m in r.moves) == r.worlds
    assert r.seconds >= 0.06 - 1e-6 and not r.stopped


@pytest.mark.parametrize(
    "hand, seen, opp, attacker, table, player",
    [
        ([1, 12], [], 2, 0, (), 0),  # attack the 12, keep the 1
        ([2, 3, 11], [1, 1, 12, 12], 3, 0, (), 0),
        ([1, 6, 12], [], 2, 1, (10,), 0),  # beat 10 with 12 and keep the 1
    ],
)
def test_agrees_with_the_exact_answer_on_clear_positions(hand, seen, opp, attacker, table, player):
    v = play_view(hand, seen, opp, attacker, table, player)
    exact = hint(v, method="exact", utilities="round")
    best = exact.moves[0]
    if len(exact.moves) > 1 and best.value - exact.moves[1].value < 0.1:
        pytest.skip("no clear best move")
    r = ismcts_play(v, Budget(samples=20000, seed=5), exact_cards=0)
    assert r.moves[0].action == best.action


def test_rejects_views_it_cannot_search():
    v = play_view([1, 5, 9], [], 3, attacker=1)
    with pytest.raises(PositionError):
        ismcts_play(v, Budget(samples=10))


def test_defending_against_a_big_attack():
    # I defend 8 cards against a 5-card sequence; the attacker holds 3 more
    v = play_view([3, 5, 5, 6, 7, 9, 10, 11], [], 3, attacker=1, table=(8, 9, 10, 11, 12), player=0)
    r = ismcts_play(v, Budget(samples=2000, seed=1))
    assert {m.action for m in r.moves} == set(v.legal_actions())


def test_values_are_reported_in_the_callers_utilities():
    v = play_view([1, 4, 7, 9, 12, 12, 5, 3], [], 8)
    r = ismcts_play(v, Budget(samples=3000, seed=1), utilities=(0.9, 0.5, 0.1))
    for m in r.moves:
        if m.visits:
            assert 0.1 - 1e-9 <= m.value <= 0.9 + 1e-9
            assert m.value == pytest.approx(0.9 * m.win + 0.5 * m.draw + 0.1 * m.loss)
