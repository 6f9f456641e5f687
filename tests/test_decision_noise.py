"""`discard_values` (the classic replacement model's plain check) and
results/decision_noise.py, which measures with it what a replacement and
a duel lose to their own sampling (issue 24)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tacocat.errors import PositionError
from tacocat.rules.views import build_view
from tacocat.search.budget import Budget
from tacocat.search.decisions import discard_values, replace_eval

REPLACE = build_view(hand=(1, 2, 5, 6, 7, 9, 11, 12), phase="replace")
RESULTS = Path(__file__).resolve().parent.parent / "results"


def test_every_discard_is_valued_on_the_same_deals():
    keep, middle, lows = (), (5, 6, 7), (1, 2)
    alone = discard_values(REPLACE, [middle], 300, seed=3)
    together = discard_values(REPLACE, [keep, middle, lows], 300, seed=3)
    assert together[1] == alone[0]  # common deals: a discard's value does not depend on its company
    assert all(-1 <= v <= 1 for v in together)
    assert discard_values(REPLACE, [middle], 300, seed=4) != alone  # another seed, other deals


def test_the_search_s_first_choice_is_worth_about_what_the_check_says_is_best():
    # replace_eval at a large budget and the plain check agree to within their noise
    res = replace_eval(REPLACE, Budget(samples=20_000, seed=1), candidates=6)
    ranked = [m.action.cards for m in res.moves[:6]]
    values = discard_values(REPLACE, ranked, 4000, seed=2)
    assert values[0] >= max(values) - 0.05


@pytest.mark.parametrize(("discard", "why"), [((3,), "not a replacement"), ((1, 1), "not a replacement")])
def test_a_discard_the_hand_cannot_make_is_refused_naming_the_rule(discard, why):
    with pytest.raises(PositionError, match=f"{why}.*R7/R8"):
        discard_values(REPLACE, [discard], 10)


def test_the_script_measures_losses_that_cannot_be_negative(capsys):
    sys.path.insert(0, str(RESULTS))
    import decision_noise

    rows = [
        decision_noise.replace_row((v, [24], 1, 400, 400))
        for v in [REPLACE, build_view(hand=(2, 3, 4, 8, 9, 12), phase="replace")]
    ]
    for r in rows:
        assert r["reference_loss"] >= 0 and all(x >= 0 for x in r["loss"][24])
    duel = decision_noise.duel_row((build_view(hand=(2, 4, 8, 9, 12, 12, 6), phase="duel"), [6], 2, 60))
    assert all(x >= -1e-9 for x in duel["loss"][6])  # no mix beats the reference's optimal column mix
    table = decision_noise.summary(rows, [24])
    assert table[0]["samples"] == 24 and table[0]["mean_loss"] >= 0
