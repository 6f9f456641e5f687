"""`tacocat play` driven with piped input: whole scripted games, rejected
moves, end of input, resuming, and the saved record."""

import json
import subprocess

import pytest
from cli_output import output_of
from helpers import PLAY_SCRIPT as SCRIPT
from helpers import one_line_error, tacocat_argv
from helpers import run_cli as run

from tacocat.rules.game import GameRecord


def test_scripted_game_finishes_and_saves_a_replayable_record(tmp_path):
    path = tmp_path / "game.json"
    out = output_of(run(["play", "--opponent", "heuristic", "--seed", "3", "--save", str(path)], SCRIPT))
    assert "you are player 0, the engine (heuristic) player 1; seed 3" in out
    assert "=== round 1: the cat on space 3, 7 cards each ===" in out
    assert "P0 (you) goal << [ 4 ] [ 6 ] [ 9 ] [ 7 ] [ 9 ] [ 6 ] [ 4 ] >> P1 (engine) goal" in out
    assert "two arrows: both replace at the same time, in secret (R8)" in out
    assert "game over: " in out and "record saved to" in out
    assert "[###]" in out  # tiles drawn after the first decided round
    # the script tries cards it does not hold: explained, then asked again
    assert "not legal (R9): duel 12: player 0 does not hold these cards" in out
    assert "legal: duel 1; duel 5; duel 8; duel 10; duel 11" in out
    # each refusal names its rule once and lists the legal moves once
    refusal = out[out.index("not legal (R9): duel 12") :].splitlines()[:3]
    assert refusal[0].count("R9") == 1 and "legal:" not in refusal[0]
    assert refusal[1].startswith("legal: ") and refusal[2] == "duel> 11"
    data = json.loads(path.read_text())
    assert data["format"] == "tacocat-record" and data["seed"] == 3
    assert data["players"] == {"0": "human", "1": "heuristic"}
    state = GameRecord.from_dict(data).replay()
    assert state.over and state.winner in (0, 1)
    assert ("game over: you win" in out) == (state.winner == 0)
    assert ("game over: the engine wins" in out) == (state.winner == 1)


def test_seat_one_and_random_opponent(tmp_path):
    # the random bot attacks with sets and sequences too; "hint"-free
    # scripting then may stall, so only check the opening and the clean stop
    path = tmp_path / "g.json"
    out = output_of(run(["play", "--opponent", "random", "--seat", "1", "--seed", "5", "--save", str(path)], "none\n"))
    assert "you are player 1, the engine (random) player 0" in out
    assert "P0 (engine) goal <<" in out and ">> P1 (you) goal" in out
    assert "input ended before the game did: game saved to" in out
    data = json.loads(path.read_text())
    assert data["players"] == {"1": "human", "0": "random"}
    assert {"player": 1, "kind": "replace", "cards": []} in data["actions"]


def test_end_of_input_saves_and_resume_continues(tmp_path):
    path = tmp_path / "game.json"
    first = output_of(run(["play", "--opponent", "heuristic", "--seed", "3", "--save", str(path)], "none\n"))
    assert f"continue with: tacocat play --resume {path}" in first
    saved = json.loads(path.read_text())
    assert saved["actions"][0] == {"player": 0, "kind": "replace", "cards": []}
    n = len(saved["actions"])
    second = output_of(run(["play", "--resume", str(path)], SCRIPT))
    assert f"resuming after {n} actions, round 1" in second
    assert "game over: " in second
    resumed = json.loads(path.read_text())
    assert resumed["actions"][:n] == saved["actions"]
    # the same game as playing it in one go
    whole = tmp_path / "whole.json"
    output_of(run(["play", "--opponent", "heuristic", "--seed", "3", "--save", str(whole)], SCRIPT))
    assert json.loads(whole.read_text())["actions"] == resumed["actions"]
    one_line_error(run(["play", "--resume", str(path)]), "is already over")


def test_prompt_commands_and_rejections():
    script = "help\nmoves\nboard\nreplace 13\nduel 5\nanswer 5 beat\nquit\n"
    out = output_of(run(["play", "--opponent", "heuristic", "--seed", "1"], script))
    assert 'replace   the cards to discard: "2 3"' in out  # help
    assert 'legal: discard any 0 to 7 of your cards 2 4 5 6 6 9 11 (96 choices), e.g. "none" or "replace 2"' in out
    assert "not legal (R1): replace cards: rank 13 does not exist; ranks run from 1 to 12" in out
    assert "not legal (R7-R8): player 0 must replace now, not duel" in out
    assert "not legal (R7-R8): player 0 must replace now, not answer" in out
    assert "stopped: the game was not saved (use --save GAME.json to keep it)" in out


def test_hint_at_the_prompt():
    # the engine's own count budget: the same deals, so the same rows, every run
    out = output_of(run(["play", "--opponent", "heuristic", "--seed", "1"], "hint --top 3\nnone\nhint\nquit\n"))
    assert out.count("best: ") == 2
    table = out[out.index("  #  move") :].splitlines()  # the replacement's hint
    assert "method: PIMC, " in out and table[1].startswith("  1  replace ")
    assert [ln[:5] for ln in table[1:4]] == ["  1  ", "  2  ", "  3  "] and table[4].startswith("  ... ")
    assert "more (--top)" in table[4]
    assert "mixed strategy" in out  # the duel hint


def test_search_opponent_with_budget(tmp_path):
    path = tmp_path / "g.json"
    out = output_of(
        run(["play", "--opponent", "pimc", "--strength", "5", "--seed", "2", "--save", str(path)], "none\n")
    )
    assert "the engine (pimc) player 1" in out
    data = json.loads(path.read_text())
    assert data["players"]["1"] == "pimc" and data["bot_budget"] == {"iterations": 5}
    assert [a["player"] for a in data["actions"]] == [0, 1]


def test_bad_options_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    line = one_line_error(run(["play", "--resume", str(bad)]), "is not valid JSON")
    assert line.startswith("error: game record")
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else"}')
    one_line_error(
        run(["play", "--resume", str(other)]),
        'error: not a game record: expected a JSON object with "format": "tacocat-record"',
    )
    one_line_error(run(["play", "--opponent", "nobody"]), "'nobody' is not one of", "see tacocat play --help")
    one_line_error(run(["play", "--seat", "3"]), "'--seat'", "see tacocat play --help")
    # an unwritable --save fails before the game starts
    one_line_error(run(["play", "--save", str(tmp_path / "no-such-dir" / "g.json")], "none\n"), "cannot write")


@pytest.mark.parametrize(
    "budget, fragment",
    [
        ({"iterations": "x"}, "'iterations' must be a positive integer, got 'x'"),
        ({"time_ms": 0}, "'time_ms' must be a positive integer, got 0"),
        ([5], "'bot_budget' must be an object"),
    ],
)
def test_a_hand_edited_bot_budget_is_refused_before_the_game(tmp_path, budget, fragment):
    path = tmp_path / "g.json"
    path.write_text(
        json.dumps(
            {
                "format": "tacocat-record",
                "seed": 1,
                "actions": [],
                "players": {"0": "human", "1": "pimc"},
                "bot_budget": budget,
            }
        )
    )
    one_line_error(run(["play", "--resume", str(path)], "none\n"), fragment)


def test_play_through_the_installed_entry_point(tmp_path):
    """The real `tacocat` executable with a pipe (no terminal) on stdin."""
    path = tmp_path / "game.json"
    proc = subprocess.run(
        tacocat_argv() + ["play", "--opponent", "heuristic", "--seed", "11", "--save", str(path)],
        input=SCRIPT,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "game over: " in proc.stdout
    assert "Traceback" not in proc.stderr
    assert GameRecord.from_dict(json.loads(path.read_text())).replay().over
