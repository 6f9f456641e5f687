"""Long work that talks (issue 35, item 6): `tacocat solve --equilibrium`
and `tacocat analyze` show a bar with the fraction done and the time left
on a terminal, and a line at least every 5 s when stderr is a pipe; Ctrl-C
during a long hint in `tacocat play` stops the search and the game goes
on."""

from __future__ import annotations

import io
import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest
from helpers import run_cli, tacocat_argv

from tacocat.cli.solve_cmd import FIRST_CHUNK_PER_BUILD, EquilibriumProgress, equilibrium_time_left
from tacocat.cli.terminal import Progress, duration_text, interrupt_sets

ROOT = Path(__file__).resolve().parents[1]

# a 4-card equilibrium endgame, 34 unseen: about a second of CFR (solve --help's example, fewer cards seen)
EQUILIBRIUM = ["solve", "--equilibrium", "--hand", "2 5 9 11", "--seen", "1 1 3 3"]
BAR = re.compile(r"\[#* *\]\s+(\d+)%")
LEFT = re.compile(r"about (\d+(?:\.\d)?) s left")


class Recorder(io.StringIO):
    """A stream that notes when each write came, a terminal or a pipe."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty
        self.times: list[float] = []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.times.append(time.monotonic())
        return super().write(text)


# ------------------------------------------------------------- the reporter


def test_the_time_left_follows_the_pace_and_counts_down():
    clock = [100.0]
    p = Progress("analysing", total=10, stream=Recorder(tty=True))
    p._now = lambda: clock[0]
    p.start = p.told_at = 100.0
    clock[0] = 104.0
    p.update(2)  # 2 of 10 in 4 s: 16 s to go
    assert p.time_left() == pytest.approx(16.0)
    clock[0] = 110.0  # 6 s later, nothing new: 10 s to go
    assert p.time_left() == pytest.approx(10.0)
    text = p.text()
    assert BAR.search(text).group(1) == "20" and "2/10" in text and "about 10 s left" in text, text
    clock[0] = 125.0  # past the estimate: said so, not a negative time
    assert "longer than estimated" in p.text() and "-" not in p.text().split("]")[1]


def test_a_time_left_the_caller_gives_moves_the_bar_with_the_clock():
    clock = [0.0]
    p = Progress("equilibrium", stream=Recorder(tty=True))
    p._now = lambda: clock[0]
    p.start = 0.0
    clock[0] = 10.0
    p.report(left_s=30.0, note="CFR: 5 iterations")
    assert p.shown_fraction() == pytest.approx(0.25)
    clock[0] = 25.0
    assert p.shown_fraction() == pytest.approx(25.0 / 40.0) and p.time_left() == pytest.approx(15.0)
    assert "CFR: 5 iterations" in p.text()


def test_durations_read_as_waits():
    assert [duration_text(s) for s in (0.42, 8.0, 12.4, 125, 3780)] == [
        "0.4 s",
        "8.0 s",
        "12 s",
        "2 min 05 s",
        "1 h 03 min",
    ]


def test_on_a_terminal_the_bar_is_redrawn_between_callbacks_and_cleared():
    stream = Recorder(tty=True)
    with Progress("searching", stream=stream) as p:
        p(0.5)
        time.sleep(0.7)  # no callback: the reporter's own thread redraws
    text = stream.getvalue()
    assert len(stream.times) >= 3
    assert text.count("\r") >= 3 and BAR.search(text).group(1) == "50" and LEFT.search(text), text
    assert text.endswith("\r") and text.rstrip("\r").split("\r")[-1].strip() == ""  # cleared at the end


def test_stdout_printed_under_the_bar_starts_on_a_clear_line():
    stream = Recorder(tty=True)
    with Progress("solving positions", total=2, stream=stream) as p:
        p.update(1)
        p.draw()
        with p.paused():
            said_before = stream.getvalue()
        p.update(1)
    assert BAR.search(said_before) and said_before.endswith("\r"), said_before
    assert said_before.rstrip("\r").split("\r")[-1].strip() == ""  # the bar's line blanked, the cursor at its start


@pytest.mark.slow  # 9 s of waiting (no CPU): the real interval
def test_a_pipe_hears_a_line_at_least_every_five_seconds():
    assert Progress.PIPE_EVERY_S < 5
    stream = Recorder(tty=False)
    start = time.monotonic()
    with Progress("analysing", total=4, stream=stream) as p:
        p.update(1)
        time.sleep(9.0)  # one long decision: no callback at all
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("analysing: 25% (1/4), ") for line in lines), lines
    assert "\r" not in stream.getvalue()
    stamps = [start, *(t for t, w in zip(stream.times, lines))]
    assert max(b - a for a, b in zip(stamps, stamps[1:])) < 5.0, stamps


def test_a_short_task_on_a_pipe_prints_nothing():
    stream = Recorder(tty=False)
    with Progress("searching", stream=stream) as p:
        p(0.9)
    assert stream.getvalue() == ""


# ------------------------------------------------------------- the equilibrium's estimate


def test_the_equilibrium_estimate_reads_the_power_law_of_its_checks():
    assert equilibrium_time_left(2.0, [], 1e-3) == pytest.approx(FIRST_CHUNK_PER_BUILD * 2.0)
    assert equilibrium_time_left(0.0, [], 1e-3) is None
    # exploitability falling as t^-2 from 0.016 at 5 iterations: 1e-3 at 20; a second a stride's iteration
    checks = [(5, 8.0, 0.016), (10, 14.0, 0.004)]
    left = equilibrium_time_left(2.0, checks, 1e-3)
    per = 6.0 / 6  # the stride's seconds over its iterations and its check
    assert left == pytest.approx(per * ((20 - 10) + 2 * max(2.0, 20 / 8) + 3))
    # at the target: only the asking hand's regret is left
    assert equilibrium_time_left(2.0, [*checks, (20, 26.0, 9e-4)], 1e-3) < left


def test_equilibrium_progress_says_the_tree_and_each_check():
    stream = Recorder(tty=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stderr", stream)
        mp.setenv("COLUMNS", "200")  # the whole line: a narrower terminal cuts the note
        with EquilibriumProgress(0.001) as info:
            time.sleep(0.3)
            info({"stage": "sized"})
            time.sleep(0.3)
            info({"stage": "built", "nodes": 257517, "sequences": 1795985, "bytes": 30.5e6, "seconds": 1.7})
            info({"stage": "iterating", "iterations": 8, "exploitability": 0.0078, "seconds": 5.5})
            time.sleep(0.3)
    text = stream.getvalue()
    assert "sizing the endgame's public tree" in text and "building the endgame's public tree" in text
    assert "tree built: 257,517 public nodes, 1,795,985 sequences, 30.5 MB in 1.7 s" in text
    assert "CFR: 8 iterations, exploitability 0.0078 (target 0.001)" in text
    assert BAR.search(text) and LEFT.search(text), text
    assert text.endswith("\r")  # the line is cleared at the end


# ------------------------------------------------------------- the commands, piped


@pytest.mark.slow  # a second of CFR (4 s under load)
def test_solve_equilibrium_piped_says_its_fraction_and_time_left(monkeypatch):
    monkeypatch.setattr(Progress, "PIPE_EVERY_S", 0.1)
    result = run_cli(EQUILIBRIUM)
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("equilibrium: ")]
    assert len(lines) >= 3, result.stderr
    assert any(re.search(r"^equilibrium: \d+%, [\d.]+ s so far, about [\d.]+ s left; CFR: ", ln) for ln in lines), lines
    assert "\r" not in result.stderr and "equilibrium:" not in result.stdout


@pytest.mark.slow  # an analysis of 56 decisions
def test_analyze_piped_says_decisions_done_and_time_left(monkeypatch, tmp_path):
    monkeypatch.setattr(Progress, "PIPE_EVERY_S", 0.1)
    result = run_cli(["analyze", str(ROOT / "docs" / "example_game.json"), "--player", "0", "--iterations", "20"])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("analysing: ")]
    assert lines, result.stderr
    assert any(re.search(r"^analysing: \d+% \(\d+/\d+\), [\d.]+ s so far, about [\d.]+ s left$", ln) for ln in lines)
    assert "analysing" not in result.stdout


# ------------------------------------------------------------- the commands, at a terminal


def spawn(args, tmp_path):
    """`tacocat ARGS` in a pseudo-terminal (test_play_pty's, which needs pexpect)."""
    pytest.importorskip("pexpect")
    from test_play_pty import spawn as pty_spawn

    return pty_spawn(args, tmp_path, NO_COLOR="1")


@pytest.mark.slow  # a second of CFR and an analysis, each in its own process
def test_at_a_terminal_solve_and_analyze_draw_a_bar_with_the_time_left(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    child = spawn(EQUILIBRIUM, tmp_path)
    child.expect(r"equilibrium \[#* *\]\s+\d+%  [\d.]+ s, about [\d.]+ s left  (first CFR iterations|CFR: )")
    child.expect(r"your hand 2 5 9 11: value")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    game = str(ROOT / "docs" / "example_game.json")
    child = spawn(["analyze", game, "--player", "0", "--iterations", "20"], tmp_path)
    child.expect(r"analysing \[#* *\]\s+\d+%  \d+/\d+  [\d.]+ s, about [\d.]+ s left")
    child.expect(r"costliest decisions|no decision cost anything")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# ------------------------------------------------------------- Ctrl-C keeps the game


def test_ctrl_c_in_the_block_sets_the_stop_and_a_second_interrupts():
    stop = threading.Event()
    with interrupt_sets(stop):
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 5
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)  # the handler runs in this (the main) thread between bytecodes
        assert stop.is_set()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow  # a play session in a pseudo-terminal
def test_ctrl_c_during_a_long_hint_stops_it_and_the_game_goes_on(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    save = tmp_path / "g.json"
    child = spawn(["play", "--opponent", "heuristic", "--seed", "1", "--save", str(save)], tmp_path)
    child.expect(r"replace> ")
    child.sendline("hint --time 60000")
    child.expect(r"searching")  # the search has begun: its bar is on the screen
    asked = time.monotonic()
    child.sendintr()
    child.expect(r"hint stopped by Ctrl-C: what the search found so far \(the game goes on\)")
    child.expect(r"best: replace")
    child.expect(r"replace> ")  # the prompt is back, the same decision
    assert time.monotonic() - asked < 20  # stopped, not run to its 60 s
    child.sendline("none")
    child.expect(r"duel> ")  # the game goes on
    child.sendline("quit")
    child.expect(r"stopped: ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "interrupted" not in (child.before or "")
    assert save.exists()


def test_a_batch_of_positions_piped_counts_them(monkeypatch, tmp_path):
    import tacocat.cli.solve_cmd as solve_cmd

    monkeypatch.setattr(Progress, "PIPE_EVERY_S", 0.05)
    real = solve_cmd._solve_line

    def slow(*args, **kwargs):
        time.sleep(0.04)  # a position that takes a while, without the CPU
        return real(*args, **kwargs)

    monkeypatch.setattr(solve_cmd, "_solve_line", slow)
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"hands": [[2, 9], [3, 8]], "attacker": 0}\n\n' * 10)
    result = run_cli(["solve", "--json", str(cases)])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 10
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("solving positions: ")]
    assert any(
        re.search(r"^solving positions: \d+% \(\d+/10\), [\d.]+ s so far, about [\d.]+ s left$", ln) for ln in lines
    )


@pytest.mark.slow  # an analysis in its own process, stopped a few seconds in
def test_ctrl_c_during_an_analysis_prints_what_was_reviewed(tmp_path):
    import subprocess

    argv = tacocat_argv() + ["analyze", str(ROOT / "docs" / "example_game.json"), "--time", "2000"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path) as proc:
        assert proc.stderr.readline().startswith("analysing ...")  # piped: the task is named, the review begun
        time.sleep(1.0)
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert time.monotonic() - asked < 20  # not the 40-odd searches of 2 s each
    m = re.search(
        r"^stopped by Ctrl-C: (\d+) of 56 decisions reviewed \(the last one on less search than asked\)$", out, re.M
    )
    assert m and 1 <= int(m.group(1)) < 56, out
    assert "Traceback" not in err
    assert "costliest decisions" in out or "no decision cost anything" in out


@pytest.mark.slow  # a hint in its own process, stopped once its first progress line is out (4 s)
def test_ctrl_c_during_a_hint_prints_the_best_answer_so_far(tmp_path):
    import subprocess

    view = ["--hand", "2 5 7 9 11 12", "--seen", "3 3 10", "--opponent", "5", "--table", "8", "--attacker", "1"]
    argv = tacocat_argv() + ["hint", *view, "--time", "60000"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path) as proc:
        assert proc.stderr.readline().startswith("searching: ")  # piped: the search is under way
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert time.monotonic() - asked < 20  # not its 60 s
    assert "(stopped early)" in out and re.search(r"^best: answer \d+", out, re.M), out
    assert "Traceback" not in err
