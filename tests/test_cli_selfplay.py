"""`tacocat selfplay` and the one-line errors of issue 2, through the real
console script."""

import json
import subprocess

from helpers import one_line_error, tacocat_argv


def tacocat(*args, stdin=None):
    return subprocess.run([*tacocat_argv(), *args], input=stdin, capture_output=True, text=True, timeout=300)


def test_selfplay_counts_results():
    r = tacocat("selfplay", "--p0", "heuristic", "--p1", "random", "--games", "30", "--seed", "7", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["p0_wins"] + out["p0_losses"] == 30 and out["draws"] == 0
    assert out["p0_wins"] > out["p0_losses"]  # heuristic beats random
    text = tacocat("selfplay", "--games", "5", "--seed", "7")
    assert "p0 wins" in text.stdout and "5 games from seed 7" in text.stdout
    # Reproducible from the seed.
    assert (
        tacocat("selfplay", "--games", "30", "--seed", "7", "--json").stdout.split('"seconds"')[0]
        == r.stdout.split('"seconds"')[0]
    )


def test_unplayable_ruleset_is_one_line(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps({"deck": [3] * 11 + [2], "board": [4, 6, 9, 7, 9, 6, 4]}))
    one_line_error(tacocat("selfplay", "--games", "1", "--rules", str(bad)), "R1", "35 cards", "9")
    bad.write_text(json.dumps({"deck": {"13": 3}}))
    one_line_error(tacocat("selfplay", "--games", "1", "--rules", str(bad)), "R1", "13")
    bad.write_text("{")
    one_line_error(tacocat("selfplay", "--games", "1", "--rules", str(bad)), "not valid")
    one_line_error(tacocat("selfplay", "--p0", "deep-blue"), "unknown bot")
    one_line_error(
        tacocat("selfplay", "--games", "0"), "'--games': 0 is not in the range", "see tacocat selfplay --help"
    )
