"""`tacocat solve` through click's CliRunner: human output, JSON Lines,
and bad input as one `error:` line with a non-zero exit."""

from __future__ import annotations

import json

from helpers import one_line_error, run_cli

from tacocat.rules.play import PlayPosition, play_value


def run(*args: str, input: str | None = None):
    return run_cli(["solve", *args], input)


def test_human_output_value_moves_and_line_of_play():
    r = run("--hands", "2 5 7 9 11 12", "1 3 8 8 10 12", "--attacker", "0")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert out.startswith("P0 [2 5 7 9 11 12]  P1 [1 3 8 8 10 12]  attacker P0\n")
    value = play_value(PlayPosition(((2, 5, 7, 9, 11, 12), (1, 3, 8, 8, 10, 12)), 0), (1, 0, -1))
    assert f"value {value:+}" in out
    assert "attacks of P0" in out
    for attack in ("2", "5", "7", "9", "11", "12"):
        assert any(line.split()[1:2] == [attack] for line in out.splitlines() if line.startswith("  ")), attack
    assert "principal variation:" in out
    assert "  1. P0 attacks " in out
    assert "showdown: P0 " in out
    assert " nodes in " in out


def test_small_position_exact_text():
    r = run("--hands", "2 9", "3 8", "--attacker", "0")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[1].startswith("value +1 (player 0 wins the round under best play)")
    assert lines[2] == "attacks of P0 (value for player 0; * best for P0):"
    assert lines[3].split() == ["2", "-1"]
    assert lines[4].split() == ["*", "9", "+1"]
    assert lines[6] == "  1. P0 attacks 9, P1 sacrifices with 3"
    assert lines[7] == "  showdown: P0 2, P1 8: P0 wins (lower card) (R17)"


def test_table_position_lists_answers():
    r = run("--hands", "2 5 7 9", "1 3 8 10 11 12", "--attacker", "0", "--table", "8 8")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "table [8 8]" in out
    assert "answers of P1 to 8 8" in out
    assert "1 3 sacrifice" in out and "11 12 beat" in out
    assert "  1. (P0 attacked 8 8), P1 " in out


def test_utilities_and_value_only():
    r = run("--hands", "3 9", "4 8", "--attacker", "1", "--utilities", "1 0.5 0", "--value-only")
    assert r.exit_code == 0, r.output
    assert "draw 0.5" in r.stdout
    assert "attacks of" not in r.stdout
    assert "principal variation:" in r.stdout


def test_json_lines_from_stdin():
    lines = [
        {"hands": [[2, 9], [3, 8]], "attacker": 0, "table": []},
        {"hands": [[4, 4, 5, 6, 8, 12], [6, 6, 6, 7, 9, 10, 11]], "attacker": 0, "table": [3]},
        {"hands": [[3, 9], [4, 8]], "attacker": 1, "table": [], "utilities": [1, 0.5, 0]},
    ]
    r = run("--json", input="\n".join(json.dumps(x) for x in lines) + "\n")
    assert r.exit_code == 0, r.output
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 3
    assert out[0]["value"] == 1
    assert out[0]["moves"] == [{"cards": [2], "value": -1}, {"cards": [9], "value": 1}]
    assert out[0]["pv"] == [{"player": 0, "cards": [9]}, {"player": 1, "cards": [3], "beats": False}]
    assert out[1]["value"] == 1
    assert out[1]["moves"][0] == {"cards": [6], "beats": True, "value": 1}
    assert out[2]["utilities"] == [1, 0.5, 0]
    for o in out:
        assert {"value", "moves", "pv", "nodes", "seconds", "showdown", "tt"} <= set(o)


def test_json_lines_from_a_file_with_dash_and_bad_lines(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(
        '{"hands": [[2, 9], [3, 8]], "attacker": 0}\n'
        "this is not json\n"
        "\n"
        '{"hands": [[12, 12, 12], [1, 2, 3]], "attacker": 0}\n'
        '{"hands": [[2, 9], [3, 8, 9]], "attacker": 1}\n'
        '{"hands": [[1], [2]], "attacker": 0}\n'
    )
    r = run("--json", str(path))
    assert r.exit_code == 2
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 5
    assert out[0]["value"] == 1
    assert out[1]["error"]["code"] == "bad_record" and out[1]["line"] == 2
    assert out[2]["error"]["rule"] == "R1" and out[2]["line"] == 4
    assert out[3]["error"]["rule"] == "R10"
    assert out[4]["value"] == 1 and out[4]["moves"] == [] and out[4]["pv"] == []
    r = run("--json", "-", input=path.read_text().splitlines()[0])
    assert r.exit_code == 0 and json.loads(r.stdout)["value"] == 1


def test_bad_input_is_one_line():
    one_line_error(run("--hands", "2 5 13", "1 2 3"), "R1", "13")
    one_line_error(run("--hands", "12 12 12", "1 2 3"), "R1", "rank 12")
    one_line_error(run("--hands", "1 2 3", "4 5"), "R10")
    one_line_error(run("--hands", "2 3", "4 5 6 7", "--table", "8 9"), "R10-R11")
    one_line_error(run("--hands", "1 3", "2 4", "--utilities", "1 x 0"), "utilities")
    one_line_error(run("--hands", "1 3", "2 4", "--utilities", "1 0"), "three numbers")
    one_line_error(run(), "--hands")
    one_line_error(run("--json", "/nonexistent/cases.jsonl"), "cannot read")
    one_line_error(run("--json", "-", "--hands", "1", "2", input=""), "not both")
    one_line_error(run("--hands", "2 5"), "'--hands' requires 2 arguments", "see tacocat solve --help")


def test_help_teaches():
    r = run("--help")
    assert r.exit_code == 0
    assert "Examples:" in r.stdout
    assert 'tacocat solve --hands "2 5 7 9 11 12" "1 3 8 8 10 12" --attacker 0' in r.stdout
    assert "--json" in r.stdout and "--utilities" in r.stdout
