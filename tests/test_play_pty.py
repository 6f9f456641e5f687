"""A whole game of `tacocat play` through a pseudo-terminal, as a person
plays it: prompt commands (score, rules R12, hint --top 3, history, undo,
and undo of the move that ended the game),
then the saved record replays to the same game and `tacocat analyze`
reads it."""

import json
import os
import re
import subprocess

import pytest
from helpers import run_cli, tacocat_argv

from tacocat.cli.terminal import format_action
from tacocat.rules.game import GameRecord

pexpect = pytest.importorskip("pexpect")

PROMPT = r"(replace|duel|attack|answer)> "


def spawn(args, tmp_path, **env):
    argv = tacocat_argv() + args
    return pexpect.spawn(
        argv[0],
        argv[1:],
        encoding="utf-8",
        timeout=60,
        cwd=str(tmp_path),
        env=dict(os.environ, **env),
        dimensions=(60, 200),
    )


def command(child, line, *expected):
    """Type `line`, expect each pattern in turn, then the next prompt."""
    child.sendline(line)
    for pattern in expected:
        child.expect(pattern)
    child.expect(PROMPT)
    return child.match.group(1)


@pytest.mark.slow  # about 8 s: a whole game, the replay and an analysis
def test_a_whole_game_at_a_terminal(tmp_path):
    path = tmp_path / "game.json"
    child = spawn(["play", "--opponent", "heuristic", "--seed", "5", "--save", str(path)], tmp_path, NO_COLOR="1")
    child.expect(PROMPT)
    decision = child.match.group(1)
    assert decision == "replace"
    decision = command(child, "score", r"score: you 0 rounds won, the engine 0 rounds won; you need 4 more rounds")
    decision = command(child, "rules R12", r"R12 Answer", r"exactly one card of its own")
    decision = command(child, "hint --top 3", r"  1  replace ", r"  3  replace ", r"more \(--top\)", r"best: replace")
    undone = history = last_undone = False
    moves = 0
    while True:
        if decision == "replace":
            child.sendline("none")
        else:
            child.sendline("moves")
            child.expect(r"legal: ([^\r\n]*)\r\n")
            legal = child.match.group(1).split("; ")
            child.expect(PROMPT)
            if decision in ("attack", "answer") and not history and moves > 3:
                command(child, "history", r"round \d+:", r"trick 1: ")
                history = True
            child.sendline(legal[-1])  # the highest card or answer
        moves += 1
        i = child.expect([PROMPT, r"game over: ([^\r\n]*)\r\n"])
        if i == 1:
            over = child.match.group(1)
            child.expect(r"game over \(undo, or Enter to finish\)> ")
            if last_undone:
                child.sendline("")
                break
            # the last move can still be taken back at a terminal
            child.sendline("undo")
            child.expect(r"undone: your ")
            child.expect(PROMPT)
            decision = child.match.group(1)
            last_undone = True
            continue
        decision = child.match.group(1)
        if not undone and moves == 2:  # after the first duel: take it back, then play on
            child.sendline("undo")
            child.expect(r"undone: your duel \d+")
            child.expect(PROMPT)
            decision = child.match.group(1)
            assert decision == "duel"
            undone = True
    child.expect(r"review it with: tacocat analyze")
    child.expect(pexpect.EOF)
    assert undone and history and last_undone

    data = json.loads(path.read_text())
    assert len(data["undos"]) == 2 and data["undos"][0]["taken_back"][0]["kind"] == "duel"
    assert data["undos"][1]["at"] < len(data["actions"])  # the game-ending move, taken back and played again
    state = GameRecord.from_dict(data).replay()
    assert state.over and state.actions == data["actions"]
    won = [sum(1 for r in state.rounds if r["winner"] == p) for p in (0, 1)]
    who = "you win" if state.winner == 0 else "the engine wins"
    drawn = sum(1 for r in state.rounds if r["winner"] is None)
    assert (
        over
        == f"{who}, {won[state.winner]} rounds to {won[1 - state.winner]} ({len(state.rounds)} rounds played"
        + (f", {drawn} round{'s' if drawn != 1 else ''} drawn)" if drawn else ")")
    )

    # the same moves typed into a fresh game (piped) give the same game: the record is the game
    script = "".join(format_action(a) + "\n" for a in data["actions"] if a["player"] == 0)
    again = tmp_path / "again.json"
    result = run_cli(["play", "--opponent", "heuristic", "--seed", "5", "--save", str(again)], script)
    assert result.exit_code == 0 and "game over: " + over in result.stdout
    assert json.loads(again.read_text())["actions"] == data["actions"]

    review = subprocess.run(
        tacocat_argv() + ["analyze", str(path), "--player", "0", "--iterations", "8"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert review.returncode == 0, review.stderr
    assert f"game from seed 5: {len(data['actions'])} actions" in review.stdout
    assert re.search(r"^you gave away \d+\.\d game-win points over \d+ costly decision", review.stdout, re.M)


def test_colour_on_a_terminal_and_not_with_no_color(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    child = pexpect.spawn(
        tacocat_argv()[0],
        tacocat_argv()[1:] + ["play", "--opponent", "heuristic", "--seed", "1"],
        encoding="utf-8",
        timeout=30,
        env=dict(env, TERM="xterm"),
        cwd=str(tmp_path),
    )
    child.expect(PROMPT)
    assert "\x1b[" in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    plain = spawn(["play", "--opponent", "heuristic", "--seed", "1"], tmp_path, NO_COLOR="1")
    plain.expect(PROMPT)
    assert "\x1b[" not in plain.before
    plain.sendline("quit")
    plain.expect(pexpect.EOF)
