"""Exact for the hand that asks (issue 22, deliverable 4): the asking hand's
own regret (`hand_regret`), the solve going on until it is below the target
too, and the human output's purification of tiny probabilities."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli
from test_equilibrium import tiny_endgames

from tacocat.rules.cards import hand
from tacocat.rules.ruleset import STANDARD
from tacocat.search.equilibrium import PURIFY_BELOW, Endgame, Move, hand_regret_of, purified, solve, unpack

SEEN = "1 1 3 3 3 4 4 5 5 6 6 7 7 8 8 9 11 11 12 12"


def test_hand_regrets_weighted_by_chance_add_up_to_the_players_regret():
    # sum over hands of P(hand) * regret(hand) = b_p - (the profile's value for p): an identity of the best response
    for eg in tiny_endgames(8, seed=13):
        r = solve(eg, target=0.0, iterations=3)
        eng = r._engine
        for p in (0, 1):
            total = 0.0
            for code in eng.level(eg.sizes[p]):
                chance = eng.marginal(p, code)
                if chance > 0:
                    total += chance * hand_regret_of(eng, p, unpack(code))
            own_value = r.value_for(p)
            assert total == pytest.approx(r.best_response[p] - own_value, abs=1e-9), (eg, p)


def test_the_solve_goes_on_until_the_asking_hands_regret_is_below_the_target():
    eg = Endgame(STANDARD, hand(int(x) for x in SEEN.split()), (), (), 0, (3, 3))
    plain = solve(eg, target=1e-3)
    asked = solve(eg, target=1e-3, hand_of=(0, (2, 9, 10)))
    assert plain.hand_regret is None and not asked.stopped
    assert asked.exploitability <= 1e-3 and 0 <= asked.hand_regret <= 1e-3
    assert asked.iterations >= plain.iterations
    # the hand's regret as measured afresh on the returned profile
    eng = asked._engine
    eng.best_response()
    assert hand_regret_of(eng, 0, (2, 9, 10)) == pytest.approx(asked.hand_regret, abs=1e-12)


def test_purified_drops_tiny_probabilities_and_renormalises():
    from tacocat.rules.actions import Action

    moves = [
        Move(Action("attack", (9,)), 0.7),
        Move(Action("attack", (2,)), 0.298),
        Move(Action("attack", (10,)), PURIFY_BELOW / 2 * 0.8),
        Move(Action("attack", (9, 10)), 0.0),
    ]
    out = purified(moves)
    assert [m.probability for m in out][2:] == [0.0, 0.0]
    assert sum(m.probability for m in out) == pytest.approx(1.0)
    assert out[0].probability == pytest.approx(0.7 / 0.998)
    alone = purified([Move(Action("attack", (9,)), 0.001), Move(Action("attack", (2,)), 0.001)])
    assert alone[0].probability == 1.0  # the likeliest move is always kept


def test_the_cli_reports_the_hands_regret_in_json_and_in_words():
    args = ["solve", "--equilibrium", "--hand", "2 9 10", "--seen", SEEN]
    d = json.loads(run_cli(args + ["--json"]).stdout)
    assert 0 <= d["hand_regret"] <= 1e-3
    human = run_cli(args)
    assert human.exit_code == 0, human.output
    assert "your hand's own regret" in human.stdout and f"less than {PURIFY_BELOW:.1%}" in human.stdout


def test_the_hands_own_walk_gives_the_full_traversals_numbers_for_every_hand():
    # differential: Engine.hand_values / hand_profile_values (only the public nodes a hand can reach) against
    # best_response + values (the whole tree), every possible hand of both players on seeded endgames
    compared = 0
    for eg in tiny_endgames(40, seed=29):
        eng = solve(eg, target=0.0, iterations=2)._engine
        eng.best_response()
        for p in (0, 1):
            _v, q = eng.values(p)
            for code in eng.level(eg.sizes[p]):
                if eng.marginal(p, code) <= 0:
                    continue
                br, avg = eng.hand_values(p, code)
                assert (br, avg) == (eng.root_value(p, 1, code), eng.root_value(p, 2, code))
                own, q_own = eng.hand_profile_values(p, code)
                assert own == avg
                assert all(b == 0.0 or a == b for a, b in zip(q, q_own))
                compared += 1
    assert compared > 500
