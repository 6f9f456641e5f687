"""`tacocat bench`: the fixed bench's node count is the signature the
solver test pins (results/bench_solver.md), and the speeds are numbers."""

import json
import math
import re
from pathlib import Path

from helpers import one_line_error, run_cli

from tacocat.search.bench import bench_signature

RECORDED = Path(__file__).resolve().parent.parent / "results" / "bench_solver.md"
SMALL = ["--repeat", "2", "--positions", "1", "--deals", "20", "--iterations", "500"]


def pinned() -> int:
    return int(re.search(r"bench signature: (\d+) nodes", RECORDED.read_text()).group(1))


def test_bench_json_reports_the_pinned_signature_and_speeds():
    result = run_cli(["bench", "--json"] + SMALL)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"]["nodes"] == bench_signature() == pinned()
    assert data["exact"]["positions"] == 42 and data["exact"]["repeats"] == 2
    for value in (
        data["exact"]["nodes_per_second"],
        data["exact"]["solves_per_second"],
        data["pimc"]["deals_per_second"],
        data["ismcts"]["iterations_per_second"],
    ):
        assert isinstance(value, float) and math.isfinite(value) and value > 0
    assert data["pimc"]["deals_per_position"] == 20 and data["ismcts"]["iterations_per_position"] == 500


def test_bench_text_names_the_signature():
    result = run_cli(["bench"] + SMALL)
    assert result.exit_code == 0, result.output
    assert f"bench signature: {pinned()} nodes" in result.stdout
    assert re.search(r"nodes/s, [\d,]+ solves/s", result.stdout)
    assert re.search(r"[\d,]+ deals/s", result.stdout) and re.search(r"[\d,]+ iterations/s", result.stdout)
    assert "bench: exact ..." in result.stderr  # progress on stderr, stdout clean


def test_bench_bad_option():
    one_line_error(run_cli(["bench", "--repeat", "0"]), "'--repeat'", "see tacocat bench --help")
