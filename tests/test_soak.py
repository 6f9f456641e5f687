"""A bounded soak: thousands of mixed valid and invalid requests through an
`EngineSession`, and a smaller number through `tacocat engine`.  No crash,
every request answered with its id, no `internal` error, games intact, and
memory that does not keep growing.  The driver is results/soak.py (run it
for a bigger soak)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SOAK_PATH = Path(__file__).resolve().parents[1] / "results" / "soak.py"


@pytest.fixture(scope="module")
def soak():
    spec = importlib.util.spec_from_file_location("tacocat_soak", SOAK_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_soak_session(soak):
    report = soak.soak_session(6000, seed=11)
    assert report["problems"] == 0, report["examples"]
    answers = report["answers"]
    assert sum(answers.values()) == report["requests"] == 6000
    assert answers.get("internal", 0) == 0
    assert answers["ok"] > 1500 and len(answers) >= 8  # valid play and most error codes exercised
    assert report["kinds"]["apply"] > 500 and report["kinds"]["hint"] > 20 and report["kinds"]["solve"] > 20
    mem = report["memory"]
    # Python heap after the warm-up vs the end (the engine's size-capped
    # memo caches emptied before both readings): generous, yet a leak of a
    # game, view or search result per request (several KiB each, 4800
    # requests) would break it.
    growth = mem["traced_end_kib"] - mem["traced_after_warmup_kib"]
    assert growth < 4 * 1024, mem
    assert mem["rss_end_kib"] - mem["rss_after_warmup_kib"] < 64 * 1024, mem


def test_soak_subprocess(soak):
    report = soak.soak_process(2000, seed=12)
    assert report["problems"] == 0, report["examples"]
    assert report["exit_status"] == 0 and report["quit"] is True
    assert sum(report["answers"].values()) == report["requests"]
    assert report["raw_bad_lines"] > 10
    mem = report["memory"]
    assert mem["rss_end_kib"] - mem["rss_after_warmup_kib"] < 64 * 1024, mem
