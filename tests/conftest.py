import json
import os
import resource
import sys
from pathlib import Path

import pytest

# Bytecode caches on for the run and everything it starts: with
# PYTHONDONTWRITEBYTECODE set (as some images set it), each xdist worker
# rewrites every test module again and each `tacocat serve`/`engine` a test
# starts compiles the package again (about 10 of the default loop's ~70 CPU
# seconds).  The caches go to __pycache__, which git ignores.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The conformance vectors sit beside the checkout, read-only (DEVELOPERS.md).
CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


def load_cases(name: str) -> list[dict]:
    path = CONFORMANCE / f"{name}.json"
    if not path.exists():
        pytest.fail(f"conformance vectors missing: {path} (../shared/conformance must sit beside the checkout)")
    return json.loads(path.read_text())["cases"]


# Tests moved to the slow set by measurement, each with the seconds it took
# and why (tests/slow_tests.txt).
SLOW_IDS = frozenset(
    line.split(None, 1)[1]
    for line in (Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
)


@pytest.hookimpl(tryfirst=True)  # before -m/-k deselect: every collected item is seen
def pytest_collection_modifyitems(config, items):
    collected: dict[str, list[str]] = {}
    for item in items:
        nodeid = item.nodeid.removeprefix("tests/")
        collected.setdefault(nodeid.split("[", 1)[0], []).append(nodeid)
        if nodeid in SLOW_IDS:
            item.add_marker(pytest.mark.slow)
    # A line whose test function was collected but none of whose cases
    # matched marks nothing (a renamed parameter): its replacement would run
    # in the default loop unnoticed.  tests/test_slow_list.py checks that the
    # functions themselves exist.
    stale = [(node, collected.get(node.split("[", 1)[0], [])) for node in sorted(SLOW_IDS)]
    stale = [(node, cases) for node, cases in stale if cases and node not in cases]
    if stale:
        lines = "; ".join(
            f"{node} (its cases: {', '.join(c.partition('[')[2].rstrip(']') or '-' for c in cases)})"
            for node, cases in stale
        )
        raise pytest.UsageError(f"tests/conftest.py slow list: {len(stale)} line(s) mark nothing: {lines}")


# TACOCAT_CPU_REPORT=1 lists the tests by the CPU they used, setup, call and
# teardown: this process, the children it waited for, and the live processes
# below it (a server a module's fixture started does a test's searches).
# Unlike --durations, the numbers hardly move with the machine's load, so
# they are what the slow list is cut by.
CPU_REPORT = os.environ.get("TACOCAT_CPU_REPORT", "") not in ("", "0")


def _processes_below() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds so far) of every live process below
    this one (Linux's /proc; empty elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    table: dict[int, tuple[int, float]] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return {}
    for name in entries:
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        table[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    own, below = os.getpid(), {}
    for pid in table:
        parent, hops = table[pid][0], 0
        while parent not in (own, 0, 1) and parent in table and hops < 64:
            parent, hops = table[parent][0], hops + 1
        if parent == own and pid != own:
            below[pid] = table[pid]
    return below


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpu_since(start: tuple[float, dict[int, tuple[int, float]]]) -> float:
    waited = _cpu_seconds() - start[0]
    before, now = start[1], _processes_below()
    live = sum(cpu - (before[pid][1] if pid in before else 0.0) for pid, (_, cpu) in now.items())
    # A child alive at the start and waited for since counts whole in
    # RUSAGE_CHILDREN: take off what it had used before the test.
    reaped = sum(cpu for pid, (parent, cpu) in before.items() if pid not in now and parent == os.getpid())
    return waited + live - reaped


def pytest_runtest_setup(item):
    if CPU_REPORT:
        below = _processes_below()  # before the clock: the scan's own CPU is not the test's
        item._tacocat_cpu_start = (_cpu_seconds(), below)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if CPU_REPORT and call.when == "teardown" and hasattr(item, "_tacocat_cpu_start"):
        outcome.get_result().user_properties.append(("cpu_s", _cpu_since(item._tacocat_cpu_start)))


def pytest_terminal_summary(terminalreporter):
    if not CPU_REPORT:
        return
    rows = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            for key, value in getattr(report, "user_properties", ()):
                if key == "cpu_s":
                    rows.append((value, report.nodeid))
    rows.sort(reverse=True)
    total = sum(v for v, _ in rows)
    terminalreporter.write_line(f"CPU seconds (setup, call and teardown) of {len(rows)} tests: {total:.1f}")
    # Every test, so that each file's owner finds the cost of their own.
    for value, nodeid in rows:
        terminalreporter.write_line(f"{value:7.2f}  {nodeid}")
