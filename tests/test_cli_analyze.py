"""`tacocat analyze`: a record played with `tacocat play` is replayed and
every decision reviewed; bad records are one-line errors."""

import json
import re

import pytest
from cli_output import output_of
from helpers import PLAY_SCRIPT as SCRIPT
from helpers import one_line_error
from helpers import run_cli as run

from tacocat.players.analysis import analyze
from tacocat.players.bots import make_bot, play_game
from tacocat.rules.game import GameRecord

# A count budget small enough for a whole game's analysis in well under a
# second: the tests check the review's shape and sums, not how good it is
ITERATIONS = 2
BUDGET = ["--iterations", str(ITERATIONS)]


@pytest.fixture(scope="module")
def played_game(tmp_path_factory):
    """A whole game of `tacocat play` with piped input, saved."""
    path = tmp_path_factory.mktemp("analyze") / "game.json"
    assert "game over" in output_of(
        run(["play", "--opponent", "heuristic", "--seed", "3", "--save", str(path)], SCRIPT)
    )
    return path


@pytest.fixture(scope="module")
def player_0_review(played_game):
    """`tacocat analyze` of player 0's decisions: the text (--top 3) and the JSON."""
    text = output_of(run(["analyze", str(played_game), "--player", "0", "--top", "3"] + BUDGET))
    doc = json.loads(output_of(run(["analyze", str(played_game), "--player", "0", "--json"] + BUDGET)))
    return text, doc


def test_analyze_a_played_game(played_game, player_0_review):
    out = player_0_review[0]
    record = json.loads(played_game.read_text())
    n = len(record["actions"])
    mine = sum(1 for a in record["actions"] if a["player"] == 0)
    assert f"game from seed 3: {n} actions" in out
    assert f"reviewed {mine} decisions of P0 (human)" in out
    assert re.search(r"^you gave away \d+\.\d game-win points over \d+ costly decisions?", out, re.M)
    assert "equity of P0 (human), game-win % after every searched decision" in out
    assert "costliest decisions" in out or "no decision cost anything" in out
    if "costliest decisions" in out:
        assert "played " in out and "better " in out and "cost " in out


def test_analyze_json(played_game):
    data = json.loads(output_of(run(["analyze", str(played_game), "--json", "--top", "4"] + BUDGET)))
    record = json.loads(played_game.read_text())
    assert data["actions"] == len(record["actions"]) and data["reviewed"] == len(record["actions"])
    assert data["players"] == [0, 1] and data["names"]["1"] == "P1 (heuristic)"
    assert len(data["costliest"]) <= 4
    costs = [d["cost"] for d in data["costliest"]]
    assert costs == sorted(costs, reverse=True) and all(c > 0 for c in costs)
    for d in data["decisions"]:
        assert d["played"] == {k: v for k, v in record["actions"][d["index"]].items() if k != "player"}
        if d["legal"] == 1:
            assert d["cost"] == 0 and d["best"] is None


def test_analysis_api_is_repeatable():
    state = play_game((make_bot("heuristic"), make_bot("random")), seed=9)
    record = state.record()
    calls = []
    first = analyze(record, players=(1,), iterations=ITERATIONS, seed=2, progress=lambda d, t: calls.append((d, t)))
    second = analyze(GameRecord.from_dict(record.to_dict()), players=(1,), iterations=ITERATIONS, seed=2)
    assert [d.cost for d in first.decisions] == [d.cost for d in second.decisions]
    assert all(d.player == 1 for d in first.decisions)
    total = sum(1 for a in record.actions if a["player"] == 1)
    assert calls[-1] == (total, total) and len(calls) == total
    assert first.winner == state.winner


@pytest.mark.parametrize(
    "content, fragments",
    [
        ("{oops", ["is not valid JSON"]),
        ('{"format": "tacocat-state"}', ['not a game record: expected a JSON object with "format": "tacocat-record"']),
        ('{"format": "tacocat-record", "seed": 1}', ["game record is missing 'actions'"]),
        (
            '{"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "duel", "cards": [5]}]}',
            ["action 1 (duel by player 0)", "must replace now, not duel"],
        ),
        (
            '{"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "replace", "cards": [13]}]}',
            ["rank 13 does not exist"],
        ),
    ],
)
def test_bad_records(tmp_path, content, fragments):
    path = tmp_path / "bad.json"
    path.write_text(content)
    one_line_error(run(["analyze", str(path)]), *fragments)


def test_missing_file_and_help():
    one_line_error(run(["analyze", "/no/such/game.json"]), "error: cannot read game record '/no/such/game.json'")
    one_line_error(run(["analyze"]), "Missing argument 'GAME.json'", "see tacocat analyze --help")
    help_text = run(["analyze", "--help"]).output
    assert "tacocat analyze game.json --player 0 --top 5 --time 200" in help_text


def test_equity_curve_and_points_scale(played_game):
    """The curve starts at the first deal's board equity, has a point per
    searched decision and a deal point per round, and ends at the result;
    costs read as game-win points at 50 per unit of equity."""
    data = json.loads(played_game.read_text())
    result = analyze(GameRecord.from_dict(data), players=(0,), iterations=ITERATIONS)
    curve = result.curve
    state = GameRecord.from_dict(data).replay()
    assert curve[0].kind == "deal" and curve[0].index == 0 and abs(curve[0].equity) < 1e-9  # centre: even
    assert curve[-1].kind == "end" and curve[-1].equity == (1.0 if state.winner == 0 else -1.0)
    assert sum(1 for c in curve if c.kind == "deal") == len(state.rounds)
    scored = [d for d in result.decisions if d.played_value is not None]
    assert sum(1 for c in curve if c.kind == "decision") == len(scored)
    for d in scored:  # player 0's side: its own values as they are
        point = next(c for c in curve if c.kind == "decision" and c.index == d.index + 1)
        assert point.equity == d.played_value and point.for_player(1) == -d.played_value
    assert [c.index for c in curve] == sorted(c.index for c in curve)
    assert result.points(0.1) == pytest.approx(5.0)
    # round utilities have no game-win points (the first decisions are enough to say so)
    opening = GameRecord.from_dict(dict(data, actions=data["actions"][:3]))
    assert analyze(opening, players=(0,), iterations=ITERATIONS, utilities="round").points(0.1) is None


def test_summary_line_matches_the_json(player_0_review):
    text, doc = player_0_review
    costly = [d for d in doc["decisions"] if d["significant"]]
    points = 50 * sum(d["cost"] for d in costly)
    line = f"you gave away {points:.1f} game-win points over {len(costly)} costly decision"
    assert line in text, (line, text)
    assert doc["costly"] == {"0": len(costly)} and doc["viewer"] == 0
    assert doc["curve"][0]["kind"] == "deal" and doc["curve"][-1]["kind"] == "end"


def test_plot_writes_a_png(played_game, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "curve.png"
    out = output_of(run(["analyze", str(played_game), "--player", "0", "--plot", str(png)] + BUDGET))
    assert f"equity curve drawn in {png}" in out
    head = png.read_bytes()[:8]
    assert head == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_plot_without_matplotlib_is_one_line_error(played_game, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails as if not installed
    one_line_error(
        run(["analyze", str(played_game), "--plot", str(tmp_path / "c.png")] + BUDGET),
        "--plot needs matplotlib: pip install 'tacocat[plot]'",
    )


def test_sparkline():
    from tacocat.cli.analyze_cmd import sparkline

    assert sparkline([0, 50, 100], set()) == "▁▅█"
    assert sparkline([0, 50, 100, 10], {0, 2}) == "▁▅|█▁"
    assert sparkline([0, 99.9], set(), unicode=False) == "_@"
