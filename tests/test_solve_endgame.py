"""`tacocat solve --hand ...`: exact endgames through click's CliRunner.

The exact odds are checked against an independent brute force: every card
subset of the unseen pool (each equally likely, RULES §5) as the opponent's
hand, each position solved with the reference minimax `tacocat.rules.play`."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations

import pytest
from helpers import one_line_error, run_cli

from tacocat.rules.play import PlayPosition, move_values, play_value
from tacocat.rules.ruleset import STANDARD


def run(*args: str):
    return run_cli(["solve", *args])


def brute_force(hand, seen, table, opp_size, attacker, player, utilities=(1, 0, -1)):
    """Per move (cards, beats): (win, draw, loss, value) for `player`,
    averaged over every card subset of the unseen pool; and the number of
    distinct opponent hands."""
    pool = []
    used = Counter(hand) + Counter(seen) + Counter(table)
    for r in range(1, 13):
        pool += [r] * (STANDARD.count(r) - used[r])
    subsets = list(combinations(pool, opp_size))
    sums: dict = {}
    for opp in subsets:
        hands = (tuple(sorted(hand)), tuple(sorted(opp)))
        if player == 1:
            hands = hands[::-1]
        pos = PlayPosition(hands, attacker, tuple(sorted(table)))
        for cards, beats, v in move_values(pos, (1, 0, -1)):
            mine = v if player == 0 else -v
            wdl = sums.setdefault((tuple(cards), beats), [0, 0, 0])
            wdl[{1: 0, 0: 1, -1: 2}[mine]] += 1
    out = {}
    for key, (w, d, l) in sums.items():
        n = len(subsets)
        out[key] = (w / n, d / n, l / n, (w * utilities[0] + d * utilities[1] + l * utilities[2]) / n)
    return out, len({tuple(sorted(s)) for s in subsets})


def json_moves(data):
    return {(tuple(m["cards"]), m.get("beats")): (m["win"], m["draw"], m["loss"], m["value"]) for m in data["moves"]}


def check_against_brute_force(data, expected, hands):
    assert data["method"] == "exact" and data["exact"] is True
    assert data["hands"] == hands
    got = json_moves(data)
    assert set(got) == set(expected)
    for key, want in expected.items():
        assert got[key] == pytest.approx(want, abs=1e-9), key
    values = [m["value"] for m in data["moves"]]
    assert values == sorted(values, reverse=True)
    assert data["best"] == data["moves"][0]


CASES = [
    # hand, seen, table, opponent size, attacker, player
    ("2 9", "1 3 5 7", "", 2, 0, 0),
    ("2 9 10", "1 3", "8", 2, 1, 0),
    ("4 6 11", "2 2 9", "", 3, 1, 1),
    ("3 3 7", "12", "", 3, 0, 0),
]


@pytest.mark.parametrize("hand, seen, table, opp, attacker, player", CASES)
def test_exact_odds_equal_brute_force(hand, seen, table, opp, attacker, player):
    args = [
        "--hand",
        hand,
        "--seen",
        seen,
        "--opponent",
        str(opp),
        "--attacker",
        str(attacker),
        "--player",
        str(player),
    ]
    if table:
        args += ["--table", table]
    r = run(*args, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    cards = lambda s: [int(x) for x in s.split()]  # noqa: E731
    expected, hands = brute_force(cards(hand), cards(seen), cards(table), opp, attacker, player)
    check_against_brute_force(data, expected, hands)
    # the human form shows the same odds, rounded
    text = run(*args)
    assert text.exit_code == 0, text.output
    for m in data["moves"]:
        label = " ".join(str(c) for c in m["cards"])
        row = next(
            line
            for line in text.stdout.splitlines()
            if re.match(rf"\s+\d+\s+(attack|answer) {label}( |$)", line)
            and (m.get("beats") is None or ("beat" if m["beats"] else "sacrifice") in line)
        )
        assert f"{100 * m['win']:5.1f}%" in row and f"{m['value']:+7.3f}" in row


def test_pv_lines_replay_as_perfect_play():
    r = run(
        "--hand",
        "2 9 10",
        "--seen",
        "1 3",
        "--table",
        "8",
        "--attacker",
        "1",
        "--opponent",
        "2",
        "--json",
        "--lines",
        "4",
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    best = data["moves"][0]
    assert 1 <= len(data["pv"]) <= 4
    probs = [line["probability"] for line in data["pv"]]
    assert probs == sorted(probs, reverse=True)
    outcomes = {line["outcome"] for line in data["pv"]}
    assert outcomes == {k for k, n in data["best_hands"].items() if n}  # one line per possible outcome
    assert sum(data["best_hands"].values()) == data["hands"]
    pool_size = 38 - 3 - 2 - 1
    for line in data["pv"]:
        opp = tuple(line["opponent"])
        # exact probability: card subsets forming this hand / all subsets
        used = Counter([2, 9, 10, 1, 3, 8])
        ways = 1
        for r_, k in Counter(opp).items():
            n = STANDARD.count(r_) - used[r_]
            ways *= n * (n - 1) // 2 if k == 2 else n
        assert line["probability"] == pytest.approx(ways / (pool_size * (pool_size - 1) / 2))
        steps = line["steps"]
        assert steps[0] == {"player": 1, "cards": [8]}
        assert steps[1] == {"player": 0, "cards": best["cards"], "beats": best["beats"]}
        # replay: every move legal, every move after the best one optimal
        pos = PlayPosition(((2, 9, 10), opp), 1, (8,)).after(steps[1]["cards"], steps[1]["beats"])
        for step in steps[2:]:
            assert step["player"] == pos.to_move
            legal = {(tuple(c), b): v for c, b, v in move_values(pos)}
            key = (tuple(step["cards"]), step.get("beats"))
            assert key in legal
            assert legal[key] == play_value(pos)
            pos = pos.after(*key)
        assert pos.is_showdown
        mine, theirs = pos.hands[0][0], pos.hands[1][0]
        assert line["showdown"] == [mine, theirs]
        assert line["outcome"] == ("win" if mine < theirs else "loss" if mine > theirs else "draw")


def test_human_output_states_exact_and_shows_a_line_of_play():
    r = run("--hand", "2 9 10", "--seen", "1 3 5 7", "--opponent", "3", "--attacker", "0")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "exact: all 347 possible opponent hands enumerated" in out
    first_row = next(line for line in out.splitlines() if line.startswith("  1  attack 10 "))
    assert first_row.split()[-2] == "exact"  # the ±95% column: no sampling error
    assert "best: attack 10" in out
    assert "principal variation: attack 10, then both play perfectly with every card known:" in out
    pv = [line for line in out.splitlines() if line.startswith("  vs ")]
    assert len(pv) == 3
    pattern = re.compile(
        r"  vs [\d ]+ \(p=[\d.e-]+\): you attack 10, opponent answers [\d ]+ \((beats|sacrifice)\); .*"
        r"showdown \d+ v \d+: (you win|opponent wins|drawn round)$"
    )
    for line in pv:
        assert pattern.match(line), line
    json_r = run("--hand", "2 9 10", "--seen", "1 3 5 7", "--opponent", "3", "--attacker", "0", "--json")
    first = json.loads(json_r.stdout)["pv"][0]
    assert pv[0].startswith(f"  vs {' '.join(map(str, first['opponent']))} (p={first['probability']:.3g}): ")


def test_utilities_and_game_score_are_the_askers():
    args = ["--hand", "4 6 11", "--seen", "2 2 9", "--player", "1", "--attacker", "1"]
    data = json.loads(run(*args, "--utilities", "1 0.5 0", "--json").stdout)
    expected, hands = brute_force([4, 6, 11], [2, 2, 9], [], 3, 1, 1, (1, 0.5, 0))
    check_against_brute_force(data, expected, hands)
    data = json.loads(run(*args, "--board", "cat=2 covered=3", "--score", "game", "--json").stdout)
    u = data["utilities"]
    assert u[0] > u[1] > u[2] and u != [1, 0, -1]
    for m in data["moves"]:
        assert m["value"] == pytest.approx(m["win"] * u[0] + m["draw"] * u[1] + m["loss"] * u[2])


def test_perfect_information_line_of_play():
    r = run("--hands", "2 9", "3 8", "--attacker", "0")
    assert r.exit_code == 0, r.output
    assert "  line: P0 attacks 9, P1 answers 3 (sacrifice); showdown 2 v 8: P0 wins" in r.stdout.splitlines()
    r = run("--hands", "2 5 7 9", "1 3 8 10 11 12", "--attacker", "0", "--table", "8 8")
    line = next(x for x in r.stdout.splitlines() if x.startswith("  line: "))
    assert line.startswith("  line: P0 attacks 8 8, P1 answers ")
    assert line.endswith("P1 wins")


def test_budget_is_enforced():
    args = ["--hand", "2 9 10", "--seen", "1 3 5 7", "--opponent", "3"]
    one_line_error(run(*args, "--max-hands", "346"), "347", "--max-hands 346", "tacocat hint")
    assert run(*args, "--max-hands", "347").exit_code == 0
    one_line_error(run(*args, "--max-hands", "0"), "--max-hands")
    one_line_error(run(*args, "--max-hands", "10000000"), "--max-hands")


def test_bad_input_is_one_line():
    one_line_error(run("--hand", "2 9 13"), "rank 13")
    one_line_error(run("--hand", "12 12 12"), "R1", "rank 12")
    one_line_error(run("--hand", "2 12 12", "--seen", "12"), "R1", "seen 12 also in your hand")
    one_line_error(run("--hand", "2 9", "--seen", "4 4 4 4 4"), "R1", "rank 4")
    one_line_error(run("--hand", "2 9", "--hands", "2 9", "3 8"), "not both")
    one_line_error(run("--hands", "2 9", "3 8", "--seen", "4"), "--seen", "--hand")
    one_line_error(run("--hand", "2 9 10", "--json", "out.json"), "--json")
    one_line_error(run("--hand", "2 9 10", "--attacker", "1"), "--table")
    one_line_error(run("--hand", "2 9 10", "--opponent", "5"), "R10")
    one_line_error(run("--hand", "2 9 10", "--opponent", "x"), "--opponent")
    one_line_error(run("--hand", "2 9 10", "--score", "game", "--utilities", "1 0 -1"), "not both")
    one_line_error(run("--hand", "2 9 10", "--board", "cat=9"), "R2")
    one_line_error(run("--hand", "2 9 10", "--value-only"), "--value-only")


def test_help_teaches_both_modes():
    r = run("--help")
    assert r.exit_code == 0
    out = r.stdout
    assert 'tacocat solve --hands "2 5 7 9 11 12" "1 3 8 8 10 12" --attacker 0' in out
    assert 'tacocat solve --hand "2 9 10" --seen "1 3 5 7" --opponent 3 --attacker 0' in out
    for flag in ("--hand ", "--seen", "--opponent", "--player", "--board", "--max-hands", "--lines", "--json"):
        assert flag in out, flag
    assert "tacocat hint" in out and "exact" in out
