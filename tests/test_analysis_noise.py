"""`analyze` calls a decision costly only beyond the noise of both values,
says when a mistake was the engine's own pick with less search, and keeps
the cost labels of its PNG apart (issue 35, item 2)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re

import pytest
from cli_output import output_of
from helpers import run_cli as run

from tacocat.players.analysis import Analysis, CurvePoint, DecisionReview, analyze
from tacocat.players.bots import make_bot, play_game
from tacocat.rules.actions import Action
from tacocat.search.hint import HintResult
from tacocat.search.results import MoveEval


def review(**values) -> DecisionReview:
    base = dict(
        index=0,
        round=1,
        player=0,
        decision="replace",
        hand=(1, 2),
        table=(),
        seen=(),
        played=Action("replace", (1,)),
        legal=4,
    )
    return DecisionReview(**{**base, **values})


def test_a_cost_within_the_two_margins_together_is_not_costly():
    # cost 0.035; margins ±0.0196 each: beyond their root sum of squares (0.028), not beyond their sum (0.039)
    d = review(best_value=0.5, played_value=0.465, best_margin=0.0196, played_margin=0.0196)
    assert d.cost == pytest.approx(0.035)
    assert d.margin == pytest.approx(0.0392) and not d.significant
    assert review(best_value=0.5, played_value=0.45, best_margin=0.0196, played_margin=0.0196).significant


def test_a_value_on_a_handful_of_deals_makes_no_costly_decision():
    # two deals that fell alike: a standard error of 0 is no margin
    d = review(best_value=0.5, played_value=-0.5, best_margin=0.0196, played_margin=None, played_samples=2)
    assert d.margin is None and not d.significant
    assert review(best_value=0.5, played_value=-0.5, exact=True).significant  # exact values: any cost


SPENT = 300


def fake_hint(view, budget, *, method="auto", utilities="game"):
    """A stand-in search: with the whole budget the first legal move is
    clearly best; with less search, the last legal move is."""
    legal = view.legal_actions()
    favourite = legal[0] if budget.samples >= SPENT else legal[-1]
    moves = [
        MoveEval(a, 0.5, 0.0, 0.5, 0.9 if a == favourite else 0.0, stderr=0.001, visits=budget.samples) for a in legal
    ]
    moves.sort(key=lambda m: -m.value)
    return HintResult(
        "pimc", False, view.decision or "", moves, 0.0, samples=budget.samples, utilities=(1.0, 0.0, -1.0)
    )


def test_a_mistake_that_was_the_engines_pick_with_less_search_says_so(monkeypatch):
    import tacocat.search.hint

    monkeypatch.setattr(tacocat.search.hint, "hint", fake_hint)
    record = play_game((make_bot("random"), make_bot("random")), seed=5).record()
    result = analyze(record, iterations=SPENT)
    costly = [d for d in result.decisions if d.significant]
    steps = list(record.steps())
    # the stand-in's pick with a third of the budget: the last legal move
    last = [d for d in costly if d.played == steps[d.index][0].legal_actions(d.player)[-1]]
    assert last and len(last) < len(costly)
    for d in costly:
        assert d.pick_at == ({"share": round(1 / 3, 4), "samples": SPENT // 3} if d in last else None), d
        assert d.to_dict()["pick_at"] == d.pick_at


def test_an_equilibriums_cost_is_measured_against_its_exploitability(monkeypatch):
    # before: an equilibrium's values carry no standard error, so no decision it scored was ever costly
    import tacocat.search.hint
    from tacocat.search.equilibrium import EquilibriumHint

    def equilibrium_hint(view, budget, *, method="auto", utilities="game"):
        result = fake_hint(view, budget, method=method, utilities=utilities)
        return dataclasses.replace(
            result,
            method="equilibrium",
            equilibrium=EquilibriumHint("equilibrium", 0.0, 0.0, 1e-3, None, 10, (), 1, False),
            moves=tuple(dataclasses.replace(m, stderr=None, visits=None) for m in result.moves),
            samples=None,
        )

    monkeypatch.setattr(tacocat.search.hint, "hint", equilibrium_hint)
    record = play_game((make_bot("random"), make_bot("random")), seed=5).record()
    costly = [d for d in analyze(record, iterations=SPENT).decisions if d.cost]
    assert costly and all(d.margin == pytest.approx(2e-3) and d.significant for d in costly)
    assert all(d.pick_at is None for d in costly)  # an equilibrium is not searched again with less


def test_cost_labels_in_the_png_do_not_overlap():
    pytest.importorskip("matplotlib")
    from tacocat.cli.analyze_cmd import curve_figure

    # three costly decisions in a row, two by the viewer and one by its opponent, at one equity
    decisions = [
        review(index=i, player=p, best_value=0.4, played_value=0.1, exact=True) for i, p in ((9, 0), (10, 0), (11, 1))
    ]
    curve = [CurvePoint(0, 1, "deal", 0.0)] + [CurvePoint(i, 1, "decision", 0.2, i % 2) for i in range(1, 40)]
    result = Analysis(seed=0, players=(0, 1), decisions=decisions, actions=40, winner=None, rounds=[], curve=curve)
    fig, labels = curve_figure(result, 0, {0: "P0", 1: "P1"}, "test")
    renderer = fig.canvas.get_renderer()
    boxes = [label.get_window_extent(renderer) for label in labels]
    assert len(boxes) == 3
    for a, b in itertools.combinations(boxes, 2):
        assert min(a.x1, b.x1) <= max(a.x0, b.x0) or min(a.y1, b.y1) <= max(a.y0, b.y0), (a, b)
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_analyze_prints_which_mistakes_were_the_engines_pick(monkeypatch, tmp_path):
    import tacocat.search.hint

    monkeypatch.setattr(tacocat.search.hint, "hint", fake_hint)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(play_game((make_bot("random"), make_bot("random")), seed=5).record().to_dict()))
    out = output_of(run(["analyze", str(path), "--iterations", str(SPENT), "--top", "50"]))
    assert f"(the engine's own pick with a third of this search ({SPENT // 3} samples))" in out
    assert re.search(r"costly decisions?(?: \([^)]*\))?; \d+ of them the engine's own pick with less search", out), out


def test_a_margin_below_the_last_digit_is_not_printed_as_zero():
    from tacocat.cli.analyze_cmd import _small

    assert [_small(0.04, 1), _small(0.05, 1), _small(1.94, 1), _small(0.0004, 3)] == ["<0.1", "0.1", "1.9", "<0.001"]
