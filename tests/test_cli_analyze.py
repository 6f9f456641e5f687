"""`tacocat analyze`: a record played with `tacocat play` is replayed and
every decision reviewed; bad records are one-line errors."""

import json

import pytest

from helpers import PLAY_SCRIPT as SCRIPT
from helpers import one_line_error
from helpers import run_cli as run
from tacocat.players.analysis import analyze
from tacocat.players.bots import make_bot, play_game
from tacocat.rules.game import GameRecord

BUDGET = ["--iterations", "8"]


@pytest.fixture(scope="module")
def played_game(tmp_path_factory):
    """A whole game of `tacocat play` with piped input, saved."""
    path = tmp_path_factory.mktemp("analyze") / "game.json"
    result = run(["play", "--opponent", "heuristic", "--seed", "3", "--save", str(path)], SCRIPT)
    assert result.exit_code == 0 and "game over" in result.stdout, result.output
    return path


def test_analyze_a_played_game(played_game):
    result = run(["analyze", str(played_game), "--player", "0", "--top", "3"] + BUDGET)
    assert result.exit_code == 0, result.output
    out = result.stdout
    record = json.loads(played_game.read_text())
    n = len(record["actions"])
    mine = sum(1 for a in record["actions"] if a["player"] == 0)
    assert f"game from seed 3: {n} actions" in out
    assert f"reviewed {mine} decisions of P0 (human)" in out
    assert "expected value given away" in out
    assert "costliest decisions" in out or "no decision cost anything" in out
    if "costliest decisions" in out:
        assert "played " in out and "better " in out and "cost " in out


def test_analyze_json(played_game):
    result = run(["analyze", str(played_game), "--json", "--top", "4"] + BUDGET)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
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
    first = analyze(record, players=(1,), iterations=8, seed=2, progress=lambda d, t: calls.append((d, t)))
    second = analyze(GameRecord.from_dict(record.to_dict()), players=(1,), iterations=8, seed=2)
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
        ('{"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "duel", "cards": [5]}]}',
         ["action 1 (duel by player 0)", "must replace now, not duel"]),
        ('{"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "replace", "cards": [13]}]}',
         ["rank 13 does not exist"]),
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
    assert "tacocat analyze game.json --player 0 --top 5 --time 500" in help_text
