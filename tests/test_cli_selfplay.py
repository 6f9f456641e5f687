"""`tacocat selfplay` and the one-line errors of issue 2 (in-process: the
installed console script is run by test_cli_play)."""

import json

from cli_output import output_of
from helpers import one_line_error
from helpers import run_cli as run


def test_selfplay_counts_results():
    args = ["selfplay", "--p0", "heuristic", "--p1", "random", "--games", "20", "--seed", "7", "--json"]
    first = output_of(run(args))
    out = json.loads(first)
    assert out["p0_wins"] + out["p0_losses"] == 20 and out["draws"] == 0
    assert out["p0_wins"] > out["p0_losses"]  # heuristic beats random
    text = output_of(run(["selfplay", "--games", "5", "--seed", "7"]))
    assert "p0 wins" in text and "5 games from seed 7" in text
    # Reproducible from the seed.
    assert output_of(run(args)).split('"seconds"')[0] == first.split('"seconds"')[0]


def test_unplayable_ruleset_is_one_line(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps({"deck": [3] * 11 + [2], "board": [4, 6, 9, 7, 9, 6, 4]}))
    one_line_error(run(["selfplay", "--games", "1", "--rules", str(bad)]), "R1", "35 cards", "9")
    bad.write_text(json.dumps({"deck": {"13": 3}}))
    one_line_error(run(["selfplay", "--games", "1", "--rules", str(bad)]), "R1", "13")
    bad.write_text("{")
    one_line_error(run(["selfplay", "--games", "1", "--rules", str(bad)]), "not valid")
    one_line_error(run(["selfplay", "--p0", "deep-blue"]), "unknown bot")
    one_line_error(run(["selfplay", "--games", "0"]), "'--games': 0 is not in the range", "see tacocat selfplay --help")
