"""`tacocat arena`: duplicate matches between bots through
`tacocat.players.match.run_match`, as a table and as JSON."""

import json

import pytest
from cli_output import output_of
from helpers import one_line_error
from helpers import run_cli as run


def test_two_bots_table():
    result = run(["arena", "heuristic", "random", "--deals", "6", "--seed", "2"])
    out = output_of(result)
    assert "duplicate games, 6 deals a pairing (each played twice, seats swapped), seed 2" in out
    assert "A won  drawn   lost   score A  95% CI" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("heuristic"))
    cells = row.split()
    assert cells[:3] == ["heuristic", "random", "6"]
    assert int(cells[3]) + int(cells[4]) + int(cells[5]) == 12
    lo, hi = float(cells[7].strip("[,")), float(cells[8].strip("]"))
    assert -1 <= lo <= float(cells[6]) <= hi <= 1
    assert "heuristic vs random" in result.stderr  # the progress bar's label


def test_all_pairings_json_play_mode(tmp_path):
    out_file = tmp_path / "arena.json"
    result = run(
        [
            "arena",
            "heuristic",
            "random",
            "pimc",
            "--mode",
            "play",
            "--deals",
            "3",
            "--iterations",
            "4",
            "--json",
            "--out",
            str(out_file),
        ]
    )
    rows = json.loads(output_of(result))
    assert [(r["a"], r["b"]) for r in rows] == [("heuristic", "random"), ("heuristic", "pimc"), ("random", "pimc")]
    for r in rows:
        assert r["deals"] == 3
        lo, hi = r["ci95"]
        assert -1 <= lo <= r["score"] <= hi <= 1
        assert r["wins"] + r["draws"] + r["losses"] == 6
        assert r["points"] == (r["score"] + 1) / 2
    saved = json.loads(out_file.read_text())
    assert saved["results"] == rows and saved["mode"] == "play"
    table = run(["arena", "heuristic", "random", "pimc", "--mode", "play", "--deals", "3", "--iterations", "4"])
    assert "duplicate play phases, 3 deals a pairing" in output_of(table)
    assert "standing (mean score against the others):" in table.stdout


def test_repeatable():
    a = run(["arena", "heuristic", "random", "--deals", "5", "--seed", "4", "--json"])
    b = run(["arena", "heuristic", "random", "--deals", "5", "--seed", "4", "--json"])
    scores = lambda r: [(x["score"], x["ci95"]) for x in json.loads(output_of(r))]  # noqa: E731
    assert scores(a) == scores(b)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["heuristic"], "name at least two bots"),
        (["heuristic", "grandmaster"], "unknown bot(s) grandmaster; expected some of"),
        (["random", "random"], "a bot is named twice"),
        (["heuristic", "random", "--deals", "0"], "'--deals': 0 is not in the range x>=1"),
    ],
)
def test_bad_arguments(args, fragment):
    one_line_error(run(["arena"] + args), fragment)


def test_help():
    text = run(["arena", "--help"]).output
    assert "tacocat arena heuristic random --deals 200" in text and "Known bots:" in text
