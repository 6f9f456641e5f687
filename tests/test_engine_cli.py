"""`tacocat engine` driven as a subprocess over JSON Lines: a whole game with
bots choosing through `legal` and `hint`, errors in the middle of it, and a
`stop` during a long search.  Runs against the installed `tacocat`."""

from __future__ import annotations

import itertools
import json
import os
import queue
import random
import subprocess
import threading
import time
from typing import Any

import pytest
from helpers import one_line_error, tacocat_argv
from positions import PLAY_VIEW

from tacocat.rules.game import GameRecord


class EngineProcess:
    """`tacocat engine` in a subprocess.  Every stdout line must be a JSON
    response (checked as it arrives); responses are matched by id."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [*tacocat_argv(), "engine", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        self.received: dict[Any, dict] = {}
        self.order: list[Any] = []
        self.not_json: list[bytes] = []
        self.ids = itertools.count(1)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read_stdout(self) -> None:
        for line in self.proc.stdout:
            try:
                self.lines.put(json.loads(line))
            except ValueError:
                self.not_json.append(line)
        self.lines.put(None)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, cmd: str, **fields: Any) -> Any:
        rid = fields.pop("id", None) or next(self.ids)
        self.send_raw(json.dumps({"id": rid, "cmd": cmd, **fields}).encode() + b"\n")
        return rid

    def wait(self, rid: Any, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while rid not in self.received:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"no answer to id {rid!r} within {timeout} s; stderr: {b''.join(self.stderr)[-2000:]!r}"
                )
            try:
                response = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if response is None:
                raise EOFError(f"engine closed stdout; stderr: {b''.join(self.stderr)[-2000:]!r}")
            self.received[response["id"]] = response
            self.order.append(response["id"])
        return self.received.pop(rid)

    def ask(self, cmd: str, timeout: float = 30, **fields: Any) -> dict:
        return self.wait(self.send(cmd, **fields), timeout)

    def result(self, cmd: str, **fields: Any) -> dict:
        response = self.ask(cmd, **fields)
        assert response["ok"], response
        return response["result"]

    def quit(self, timeout: float = 30) -> int:
        response = self.ask("quit", timeout=timeout)
        assert response["ok"] and response["result"]["bye"], response
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


# ---------------------------------------------------------------------- tests


@pytest.fixture
def engine():
    e = EngineProcess("--max-time-ms", "20000")
    yield e
    e.kill()


def best_move(hint_result: dict) -> dict:
    """The move a hint recommends, as an action dict."""
    best = hint_result.get("best")
    move = best if isinstance(best, dict) else hint_result["moves"][best if isinstance(best, int) else 0]
    return {k: move[k] for k in ("kind", "cards", "beats") if k in move and move[k] is not None}


def test_whole_game_with_bots_over_json_lines(engine):
    hello = engine.result("hello")
    assert hello["protocol"] == "3.2"
    opened = engine.result("new_game", seed=2024)
    game, owner, seats = opened["game"], opened["tokens"]["owner"], opened["tokens"]["seats"]
    rng = random.Random(5)
    hints = errors = actions = 0
    while True:
        status = next(g for g in engine.result("games", tokens=[owner])["games"] if g["game"] == game)
        if status["over"]:
            break
        for player in status["acting"]:
            legal = engine.result("legal", game=game, player=player, token=seats[player])
            decision = legal["decision"]
            if player == 0:
                # Player 0 asks the engine (a cheap budget) and plays its best move.
                hint = engine.ask("hint", game=game, player=player, token=seats[player], iterations=8, time_ms=150)
                assert hint["ok"], hint
                action = best_move(hint["result"])
                assert action in legal["actions"], (action, legal["actions"])
                hints += 1
            else:
                action = rng.choice(legal["actions"])
            if actions % 7 == 0:
                # Mistakes in the middle of the game: answered, game unchanged.
                before = engine.result("state", game=game, token=owner)["state"]
                wrong = 1 - player if len(status["acting"]) == 1 else player
                bad = engine.ask(
                    "apply",
                    game=game,
                    player=wrong,
                    token=seats[wrong],
                    action={"kind": "attack" if decision != "attack" else "duel", "cards": [7]},
                )
                assert bad["error"]["code"] == "illegal_action", bad
                engine.send_raw(b"this is not json\n")
                assert engine.wait(None)["error"]["code"] == "bad_json"
                assert engine.result("state", game=game, token=owner)["state"] == before
                errors += 2
            applied = engine.result("apply", game=game, player=player, token=seats[player], action=action)
            assert applied["action"]["kind"] == decision
            actions += 1
    assert status["winner"] in (0, 1)
    assert hints > 0 and errors > 0
    record = engine.result("record", game=game, token=owner)["record"]
    state = engine.result("state", game=game, token=owner)["state"]
    assert GameRecord.from_dict(record).replay().to_dict() == state
    assert engine.quit() == 0
    assert engine.not_json == []  # nothing but protocol lines on stdout


def test_stop_ends_a_long_hint_early():
    # No time cap and an hour's budget: only the stop can end this search,
    # so its answer arriving at all shows that the stop worked.
    engine = EngineProcess()
    try:
        rid = engine.send("hint", view=PLAY_VIEW, time_ms=3_600_000, method="pimc")
        time.sleep(0.5)  # let the search get going
        # Other commands are answered while the search runs.
        assert engine.ask("hello")["ok"]
        queued = engine.send("hint", view=PLAY_VIEW, time_ms=3_600_000)  # waits its turn (protocol 1.1), not busy
        time.sleep(0.2)
        stop = engine.ask("stop")
        assert stop["result"]["stopped"] == 2
        answer = engine.wait(rid, timeout=60)
        assert answer["ok"], answer
        assert answer["stopped"] is True
        assert answer["result"]["moves"], answer
        second = engine.wait(queued, timeout=60)  # stopped before it ran: the least search, at once
        assert second["ok"] and second["stopped"] is True and second["result"]["moves"], second
        # The engine serves on after the stop.
        assert engine.ask("hint", view=PLAY_VIEW, iterations=4, time_ms=200)["ok"]
        assert engine.quit() == 0
    finally:
        engine.kill()


def test_end_of_input_answers_then_exits():
    e = EngineProcess()
    try:
        e.send("hello", id="a")
        e.send_raw(b'{"id": "b", "cmd": "legal", "game": "g1", "player": 0, "token": "t"}\n')
        e.proc.stdin.close()
        assert e.proc.wait(20) == 0
        assert e.wait("a")["ok"]
        assert e.wait("b")["error"]["code"] == "bad_field"
    finally:
        e.kill()


def test_bad_ruleset_file_is_one_line_on_stderr(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"board": [4, 6, 9, 7, 9, 6]}')
    proc = subprocess.run([*tacocat_argv(), "engine", "--rules", str(bad)], input=b"", capture_output=True, timeout=30)
    one_line_error(proc, "R2")
    usage = subprocess.run([*tacocat_argv(), "engine", "--max-line", "5"], input=b"", capture_output=True, timeout=30)
    one_line_error(usage, "'--max-line'", "see tacocat engine --help")


def test_hint_answers_like_tacocat_hint_json(engine):
    """Same view, budget and seed: the engine's hint result is what
    `tacocat hint --view - --json` prints (timing aside).  The budgets are
    counts, never the default time, so the answer does not depend on the
    machine's load; the first leaves seed, method and score at their
    defaults, which must then agree."""
    for extra, flags in (
        ({"iterations": 40}, ["--iterations", "40"]),
        ({"iterations": 12, "seed": 3, "method": "pimc"}, ["--iterations", "12", "--seed", "3", "--method", "pimc"]),
    ):
        ours = engine.result("hint", view=PLAY_VIEW, **extra)
        cli = subprocess.run(
            [*tacocat_argv(), "hint", "--view", "-", "--json", *flags],
            input=json.dumps(PLAY_VIEW).encode(),
            capture_output=True,
            timeout=60,
        )
        assert cli.returncode == 0, cli.stderr
        theirs = json.loads(cli.stdout)
        assert {k: v for k, v in ours.items() if k != "seconds"} == {k: v for k, v in theirs.items() if k != "seconds"}
    assert engine.quit() == 0


@pytest.mark.parametrize("flag", ["--max-time-ms", "--max-searches", "--max-queue", "--max-games", "--max-line"])
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e400"])
def test_every_numeric_flag_of_engine_is_finite_and_in_range(flag, value):
    # In process, with no input: a flag that took the value would serve
    # an empty stdin and exit 0.
    from helpers import run_cli

    one_line_error(run_cli(["engine", flag, value], stdin=""), flag)
