"""Helpers the tests share: running `tacocat` in-process or as the installed
executable, the one-line error contract, a script that finishes a game of
`tacocat play` against the heuristic bot, and a random walk through a game."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tacocat.cli.main import app
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD, Ruleset

# A script that finishes any game against the heuristic bot (which attacks
# with single cards): a rejected line is asked again, so each decision takes
# the first legal line of the cycle.  "none" keeps the hand at a
# replacement; the ranks from 12 down then play the highest card held at a
# duel or an attack, and the highest answer that beats (else the forced
# sacrifice of the lowest card).
CYCLE = "none\n" + "".join(f"{r}\n" for r in range(12, 0, -1))
PLAY_SCRIPT = CYCLE * 150


# The slow tests' sizes.  CI runs everything (`python -m pytest`), so a
# slow test there checks enough to fail on a real bug in minutes; the deep
# run (TACOCAT_DEEP=1, for a release or a nightly) checks the full counts
# the tests were first written with.
DEEP = os.environ.get("TACOCAT_DEEP", "") not in ("", "0")


def deep(ci: int, full: int) -> int:
    """A slow test's size: `ci` in the CI run, `full` under TACOCAT_DEEP=1."""
    return full if DEEP else ci


def deep_only(why: str):
    """A case that runs only under TACOCAT_DEEP=1 (a release or nightly
    run): `why` names the cheaper case that checks the same in every run."""
    return pytest.mark.skipif(not DEEP, reason=f"TACOCAT_DEEP=1 only: {why}")


def run_cli(args: list[str], stdin: str | None = None) -> Result:
    """`tacocat ARGS` in-process, through click's CliRunner."""
    return CliRunner().invoke(app, args, input=stdin)


def tacocat_argv() -> list[str]:
    """The installed `tacocat` (tests run against the installed package)."""
    beside = Path(sys.executable).parent / "tacocat"  # this interpreter's own script, before PATH's
    exe = str(beside) if beside.exists() else shutil.which("tacocat")
    return [exe] if exe else [sys.executable, "-m", "tacocat.cli.main"]


def one_line_error(result: Result | subprocess.CompletedProcess, *fragments: str) -> str:
    """The contract of every bad input: exit status 2, nothing on stdout,
    one line `error: ...` on stderr holding every fragment, no traceback.
    Takes a CliRunner result or a finished subprocess; returns the line."""
    if isinstance(result, subprocess.CompletedProcess):
        status, out, err = result.returncode, _text(result.stdout), _text(result.stderr)
    else:
        status, out, err = result.exit_code, result.stdout, result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert status == 2, (status, out, err)
    assert out == "", out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _text(data: Any) -> str:
    return data.decode() if isinstance(data, bytes) else data or ""


def random_steps(seed: int, steps: int, rules: Ruleset = STANDARD) -> GameState:
    """A game after up to `steps` uniformly random legal actions."""
    rng = random.Random(seed)
    state = GameState.new(rules, seed)
    for _ in range(steps):
        if state.over:
            break
        p = rng.choice(state.acting_players())
        state.apply(p, rng.choice(state.legal_actions(p)))
    return state
