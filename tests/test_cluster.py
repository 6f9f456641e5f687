"""Backends, retries, resuming, Elo and the SPRT (`tacocat.players.cluster`,
`tacocat.players.stats`, `tacocat.players.match`, `tacocat arena`,
`tacocat solve --json`).

The Ray tests start one real local Ray cluster on 127.0.0.1 for the module
(no mock) and compare its numbers with the local ones for the same seed."""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from helpers import deep, one_line_error, tacocat_argv
from helpers import run_cli as run
from servers import free_port

from tacocat.errors import TacocatError
from tacocat.players import stats
from tacocat.players.cluster import Cluster, RunStats, ordered, run_tasks
from tacocat.players.match import run_match
from tacocat.players.stats import SPRT
from tacocat.rules.ruleset import STANDARD

FAST_PIMC = "pimc@samples=8"


# ------------------------------------------------------------ statistics


def test_pentanomial_numbers_agree_with_fastchess():
    # fastchess printed, for Ptnml(0-2) [0, 0, 2, 0, 37] and SPRT [0, 20]:
    # "Elo: 631.91, nElo: 1056.68 ... LLR: 2.96 (-2.94, 2.94)"
    counts = [0, 0, 2, 0, 37]
    e, (lo, hi) = stats.elo_interval(counts, "play")
    assert round(e, 2) == 631.91 and lo < e and hi is None  # an all-but-won match has no upper end
    assert round(stats.nelo(counts, "play"), 2) == 1056.68
    test = SPRT(elo0=0, elo1=20)
    assert round(test.llr(counts, "play"), 2) == 2.96
    assert [round(b, 2) for b in test.bounds] == [-2.94, 2.94]
    assert test.verdict(test.llr(counts, "play")) == "H1"


def test_llr_is_antisymmetric_and_the_mle_meets_its_constraint():
    counts = [3, 11, 40, 17, 6]
    mirrored = counts[::-1]
    test = SPRT(elo0=-15, elo1=15)
    assert test.llr(counts, "play") == pytest.approx(-test.llr(mirrored, "play"), abs=1e-9)
    values = stats.PAIR_VALUES["play"]
    phat = [c / sum(counts) for c in counts]
    for t in (-0.3, 0.0, 0.2):
        p = stats.mle_t_value(values, phat, t)
        mu = sum(a * q for a, q in zip(values, p))
        sd = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(values, p)))
        assert sum(p) == pytest.approx(1) and (mu - 0.5) / sd == pytest.approx(t, abs=1e-9)


def test_game_mode_is_a_trinomial_over_pairs_until_a_game_is_drawn():
    assert stats.pair_counts([-1, 0, 0, 1, 1], "game") == [1, 0, 2, 0, 2]
    assert stats.pair_counts([-1, -0.5, 0, 0.5, 1, 1], "play") == [1, 1, 1, 1, 2]
    # a drawn game (max_deals reached, RULES §8) beside a won one: pair score 3/4
    assert stats.pair_counts([0.5], "game") == [0, 0, 0, 1, 0]
    with pytest.raises(TacocatError, match="not a duplicate result"):
        stats.pair_counts([0.3], "game")
    # without drawn games the SPRT models the trinomial over pairs (LL, WL, WW):
    # the empty draw-only cells are left out, not padded
    assert stats.model_cells([1, 0, 2, 0, 2], "game") == ((0.0, 0.5, 1.0), [1, 2, 2])
    assert stats.model_cells([1, 0, 2, 1, 2], "game") == ((0.0, 0.5, 0.75, 1.0), [1, 2, 1, 2])
    assert stats.model_cells([1, 0, 2, 0, 2], "play") == (stats.PAIR_VALUES["play"], [1, 0, 2, 0, 2])


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("elo0=10,elo1=5", "elo1 must be above elo0"),
        ("elo1=ten", "elo1 must be a number"),
        ("alpha=0.7", "alpha must lie strictly between 0 and 0.5"),
        ("gamma=1", "expected key=value with keys elo0, elo1, alpha, beta"),
    ],
)
def test_bad_sprt_specs(text, fragment):
    with pytest.raises(TacocatError, match=fragment):
        SPRT.parse(text)
    one_line_error(run(["arena", "heuristic", "random", "--sprt", text]), fragment)


@pytest.mark.slow
def test_sprt_stops_early_on_a_large_gap():
    test = SPRT.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    r = run_match(FAST_PIMC, "random", deals=400, seed=1, mode="play", sprt=test)
    assert r.stopped == "sprt" and r.sprt["verdict"] == "H1" and r.deals < 400
    assert r.sprt["llr"] >= test.bounds[1]
    # the stopping point is a property of the deals in order, not of the workers
    two = run_match(FAST_PIMC, "random", deals=400, seed=1, mode="play", sprt=test, workers=2)
    assert (two.deals, two.deal_scores, two.sprt) == (r.deals, r.deal_scores, r.sprt)


def test_sprt_accepts_the_null_between_identical_bots():
    # the same bot with two search seeds: equal strength, but the deals do
    # not all come out even (a bot against its own copy always scores 0).
    # elo1=100 accepts H0 after 51 deals; elo1=50 (TACOCAT_DEEP=1) needs
    # a few hundred.
    test = SPRT.parse(f"elo0=0,elo1={deep(100, 50)}")
    r = run_match(f"{FAST_PIMC},seed=1", f"{FAST_PIMC},seed=2", deals=600, seed=1, mode="play", sprt=test)
    assert r.stopped == "sprt" and r.sprt["verdict"] == "H0" and r.deals < 600
    assert r.sprt["llr"] <= test.bounds[0]
    assert r.elo_ci95[0] < 0 < r.elo_ci95[1]


def test_the_sprt_is_tested_after_every_deal_then_every_half_percent():
    from tacocat.players.match import sprt_due

    assert not sprt_due(1) and all(sprt_due(n) for n in range(2, 400))
    assert [n for n in range(400, 410) if sprt_due(n)] == [400, 402, 404, 406, 408]
    tests = sum(sprt_due(n) for n in range(1, 100_001))
    assert tests < 200 * (3 + math.log(100_000 / 200))
    gaps = [n for n in range(1, 100_001) if sprt_due(n)]
    assert all(b - a <= max(1, a // 200) + 1 for a, b in zip(gaps, gaps[1:]))


def test_identical_deterministic_bots_leave_the_normalized_sprt_undecided():
    r = run_match("heuristic", "heuristic", deals=30, seed=1, mode="play", sprt=SPRT())
    assert r.pairs == [0, 0, 30, 0, 0] and r.elo == 0 and r.nelo is None
    assert r.sprt["verdict"] is None and r.stopped is None and r.deals == 30


# ------------------------------------------------------------ local backend


def _square(x):
    return x * x


def test_run_tasks_every_item_once_any_batch_and_worker_count():
    items = list(range(37))
    for cluster in (Cluster(), Cluster("local", 2), Cluster("local", 2, batch=5), Cluster("local", 1, batch=8)):
        got = list(run_tasks(_square, items, cluster))
        assert sorted(i for i, _ in got) == items and all(v == i * i for i, v in got)
        assert list(ordered(iter(got))) == [(i, i * i) for i in items]


def test_run_tasks_with_no_items_can_be_closed():
    # every caller wraps run_tasks in contextlib.closing, which needs close()
    # (an `iter(())` has none; found by mypy)
    with contextlib.closing(run_tasks(abs, [], Cluster("local", 1))) as results:
        assert list(results) == []


def test_killed_worker_mid_match_still_gives_every_deal_once():
    expected = run_match(FAST_PIMC, "random", deals=24, seed=3, mode="play")
    seen: list[int] = []

    def on_deal(d, x, y, extra):
        if not seen:
            # a result has just come back and both workers hold a batch: kill one
            victim = multiprocessing.active_children()[0]
            os.kill(victim.pid, signal.SIGKILL)
        seen.append(d)

    r = run_match(
        FAST_PIMC, "random", deals=24, seed=3, mode="play", cluster=Cluster("local", 2, batch=3), on_deal=on_deal
    )
    assert r.retried >= 1
    assert sorted(seen) == list(range(24))  # exactly once each
    assert r.deal_scores == expected.deal_scores and r.to_dict()["score"] == expected.score


def test_a_resumed_match_plays_only_the_missing_deals():
    full = run_match("heuristic", "random", deals=20, seed=7, mode="play")
    known = {d: full.outcomes[d] for d in range(0, 20, 2)}
    played: list[int] = []
    again = run_match(
        "heuristic", "random", deals=20, seed=7, mode="play", known=known, on_deal=lambda d, *_: played.append(d)
    )
    assert sorted(played) == list(range(1, 20, 2))
    assert again.deal_scores == full.deal_scores and again.elo == full.elo


def test_cluster_option_errors():
    one_line_error(run(["arena", "heuristic", "random", "--cluster", "two words"]), "--cluster: expected ray, local")
    one_line_error(
        run(["solve", "--hands", "2 9", "3 8", "--workers", "2"]), "give them with --hands positions as JSON Lines"
    )


def test_out_file_resumes_and_refuses_another_run(tmp_path):
    out = tmp_path / "run.json"
    first = run(
        ["arena", "heuristic", "random", "--mode", "play", "--deals", "6", "--seed", "2", "--json", "--out", str(out)]
    )
    assert first.exit_code == 0, first.output
    saved = json.loads(out.read_text())
    assert sorted(d for d, _, _ in saved["outcomes"]["heuristic vs random"]) == list(range(6))
    more = run(
        ["arena", "heuristic", "random", "--mode", "play", "--deals", "10", "--seed", "2", "--json", "--out", str(out)]
    )
    assert "resuming from" in more.stderr and "6 deals already played" in more.stderr
    fresh = run(["arena", "heuristic", "random", "--mode", "play", "--deals", "10", "--seed", "2", "--json"])
    strip = lambda text: [{k: v for k, v in r.items() if k not in ("seconds", "think")} for r in json.loads(text)]  # noqa: E731
    assert strip(more.stdout) == strip(fresh.stdout)
    one_line_error(
        run(["arena", "heuristic", "random", "--mode", "play", "--deals", "6", "--seed", "3", "--out", str(out)]),
        "holds a run with seed 2, not 3",
    )


def test_arena_table_shows_elo_and_the_sprt_verdict():
    result = run(
        [
            "arena",
            FAST_PIMC,
            "random",
            "--mode",
            "play",
            "--deals",
            "300",
            "--seed",
            "1",
            "--sprt",
            "elo0=0,elo1=10,alpha=0.05,beta=0.05",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "Elo A [95% CI]" in result.stdout
    assert f"{FAST_PIMC} vs random: H1 accepted: A is at least 10 stronger after" in result.stdout
    row = next(line for line in result.stdout.splitlines() if line.strip().startswith(FAST_PIMC))
    assert int(row.split()[2]) < 300


STOP_DEALS = 1500
"""Deals of the interrupted arena: enough that an idle machine cannot finish
them between the first saved deals and the signal (120 could).  The rerun
that completes the run asks for fewer (a few past the last saved deal):
resuming is the same with any count, and 1500 deals twice a case cost
minutes of CPU."""


def _arena_argv(out: Path, *extra: str, deals: int = STOP_DEALS) -> list[str]:
    return tacocat_argv() + [
        "arena",
        "heuristic",
        FAST_PIMC,
        "--mode",
        "play",
        "--deals",
        str(deals),
        "--workers",
        "2",
        "--batch",
        "2",
        "--seed",
        "5",
        "--json",
        "--out",
        str(out),
        *extra,
    ]


def _as_from_a_terminal() -> None:
    # A command started in the background by a non-interactive shell (as a
    # CI runner may start the tests) inherits SIGINT ignored, and so would the
    # arena, which then rightly ignores Ctrl-C too.  The arena under test is
    # started the way a terminal starts it: SIGINT at its default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_deals(out: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if sum(len(v) for v in json.loads(out.read_text())["outcomes"].values()) >= n:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    raise AssertionError("the arena saved no deals in time")


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "sigterm on ray"])
def test_stopping_keeps_the_partial_table_and_a_rerun_completes_it(tmp_path, how):
    # on Ray, ray.init puts its own handler on SIGTERM: the run must still stop cleanly
    extra = ("--cluster", "ray") if how == "sigterm on ray" else ()
    if extra:
        pytest.importorskip("ray", reason="ray is not installed (pip install 'tacocat[cluster]')")
    out = tmp_path / "run.json"
    proc = subprocess.Popen(
        _arena_argv(out, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_as_from_a_terminal,
    )
    try:
        _wait_for_deals(out, 4, proc)
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
        else:
            proc.send_signal(signal.SIGTERM)  # the parent only
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == (130 if how == "ctrl-c" else 143), stderr
    assert "Traceback" not in stderr and "run the same command to resume" in stderr
    partial = json.loads(stdout)[0]
    assert partial["partial"] and 0 < partial["deals"] < STOP_DEALS
    saved = json.loads(out.read_text())["outcomes"][f"heuristic vs {FAST_PIMC}"]
    assert len(saved) >= partial["deals"] and len({d for d, _, _ in saved}) == len(saved)
    # The rerun resumes: it plays the deals missing below its count (the
    # gaps the workers left, and 8 past the last saved) and its table is
    # that of a whole run of as many deals.
    deals = max(d for d, _, _ in saved) + 9
    rerun = subprocess.run(_arena_argv(out, deals=deals), capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{len(saved)} deals already played" in rerun.stderr, rerun.stderr
    whole = run_match("heuristic", FAST_PIMC, deals=deals, seed=5, mode="play")
    got = json.loads(rerun.stdout)[0]
    assert got["deals"] == deals and got["score"] == whole.score and got["pairs"] == whole.pairs


# ------------------------------------------------------------------- Ray


def _positions(n: int, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        deck = list(STANDARD.deck_cards())
        rng.shuffle(deck)
        k = rng.randint(2, 6)
        lines.append(
            json.dumps(
                {"hands": [sorted(deck[:k]), sorted(deck[k : 2 * k])], "attacker": rng.randint(0, 1), "table": []}
            )
        )
    return "\n".join(lines + ["not json"]) + "\n"


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'tacocat[cluster]')")
    from tacocat.players.cluster import start_ray

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the crash test's task function
    opened = start_ray(Cluster("ray", workers=2))
    if opened:  # a private cluster: every server on the loopback interface
        assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
        assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}
    yield ray
    if opened:
        ray.shutdown()


@pytest.mark.slow
def test_ray_arena_gives_exactly_the_local_numbers(ray_cluster):
    local = run_match(FAST_PIMC, "random", deals=16, seed=9, mode="play")
    on_ray = run_match(FAST_PIMC, "random", deals=16, seed=9, mode="play", cluster=Cluster("ray", 2, batch=3))
    assert on_ray.deal_scores == local.deal_scores and on_ray.outcomes == local.outcomes
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k not in ("seconds", "think")}  # noqa: E731
    assert strip(on_ray) == strip(local)
    cli = run(
        [
            "arena",
            "heuristic",
            "random",
            "--mode",
            "play",
            "--deals",
            "12",
            "--seed",
            "4",
            "--json",
            "--cluster",
            "ray",
            "--workers",
            "2",
        ]
    )
    ref = run(["arena", "heuristic", "random", "--mode", "play", "--deals", "12", "--seed", "4", "--json"])
    assert cli.exit_code == 0, cli.output
    assert [r | {"seconds": 0, "think": 0} for r in json.loads(cli.stdout)] == [
        r | {"seconds": 0, "think": 0} for r in json.loads(ref.stdout)
    ]


@pytest.mark.slow
def test_ray_batch_solve_gives_exactly_the_local_output(ray_cluster):
    text = _positions(30, seed=2)
    local = run(["solve", "--json"], stdin=text)
    on_ray = run(["solve", "--json", "--cluster", "ray", "--batch", "4"], stdin=text)
    two = run(["solve", "--json", "--workers", "2"], stdin=text)
    assert local.exit_code == on_ray.exit_code == two.exit_code == 2  # the bad last line

    def strip(r):
        return [
            {k: v for k, v in json.loads(x).items() if k not in ("seconds", "think")} for x in r.stdout.splitlines()
        ]

    assert len(strip(local)) == 31 and strip(on_ray) == strip(local) == strip(two)
    assert strip(local)[-1]["line"] == 31


_CRASH_MARK: dict = {}


def _crash_once(item):
    """Kill the worker process the first time item 5 is seen (marker file)."""
    mark, i = item
    if i == 5 and not os.path.exists(mark):
        Path(mark).write_text("crashed")
        os._exit(1)
    return i


@pytest.mark.slow
def test_ray_reruns_the_task_of_a_dead_worker(ray_cluster, tmp_path):
    mark = str(tmp_path / "crashed")
    got = list(run_tasks(_crash_once, [(mark, i) for i in range(12)], Cluster("ray", 2, batch=2), RunStats()))
    assert os.path.exists(mark)  # a worker did die
    assert sorted(i for i, _ in got) == list(range(12)) and all(v == i for i, v in got)


@pytest.mark.slow
def test_an_existing_cluster_by_address_gives_the_local_numbers(ray_cluster, tmp_path):
    # a separate head node on the loopback interface (`ray start --head`), joined by address
    ray_exe = Path(sys.executable).with_name("ray")
    if not ray_exe.exists():
        pytest.skip("the ray command is not installed beside this Python")
    port = free_port()
    env = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    temp = tempfile.mkdtemp(prefix="rayh", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    head = subprocess.Popen(
        [
            str(ray_exe),
            "start",
            "--head",
            "--block",
            "--port",
            str(port),
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "2",
            "--include-dashboard",
            "false",
            "--disable-usage-stats",
            "--temp-dir",
            temp,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "head.log").open("w"),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        import socket

        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and head.poll() is None, (tmp_path / "head.log").read_text()[-2000:]
                time.sleep(0.5)
        args = ["arena", "heuristic", "random", "--mode", "play", "--deals", "10", "--seed", "6", "--json"]
        joined = subprocess.run(
            tacocat_argv() + args + ["--cluster", f"127.0.0.1:{port}"],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert joined.returncode == 0, joined.stderr[-2000:]
        local = run(args)
        strip = lambda text: [{k: v for k, v in r.items() if k not in ("seconds", "think")} for r in json.loads(text)]  # noqa: E731
        assert strip(joined.stdout) == strip(local.stdout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)  # the head's own processes, started in their own session
        shutil.rmtree(temp, ignore_errors=True)


def test_an_address_where_no_cluster_listens_is_one_line():
    # in a process of its own: a Ray session open here (the module's cluster) would be used instead
    argv = tacocat_argv() + ["arena", "heuristic", "random", "--deals", "2", "--cluster"]
    for address, fragment in (
        (f"127.0.0.1:{free_port()}", "no Ray cluster answers at 127.0.0.1:"),
        ("6379", "expected host:port"),
    ):
        one_line_error(subprocess.run(argv + [address], capture_output=True, text=True, timeout=120), fragment)
