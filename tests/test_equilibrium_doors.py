"""The doors to the hidden-hand equilibrium: `tacocat solve --equilibrium`,
`hint --method equilibrium`, the protocol's `solve` in mode equilibrium and
the `pimc_eq` bot (issue 11)."""

import json

import pytest
from helpers import one_line_error
from helpers import run_cli as run

from tacocat.players.bots import make_bot
from tacocat.players.match import play_round
from tacocat.protocol.session import EngineSession
from tacocat.rules.cards import hand
from tacocat.rules.ruleset import STANDARD
from tacocat.search.equilibrium import Endgame, report, solve

SEEN = "1 1 3 3 3 4 4 5 5 6 6 7 7 8 8 9 11 11 12 12"  # 20 face-up cards: 15 unseen
ARGS = ["solve", "--equilibrium", "--hand", "2 9 10", "--seen", SEEN]
VIEW = {  # the same decision as ARGS, as a view: player 0 attacks with 2 9 10, three cards each
    "player": 0,
    "hand": [2, 9, 10],
    "seen": [int(x) for x in SEEN.split()],
    "opponent_hand_size": 3,
    "attacker": 0,
    "table": [],
}


def test_solve_equilibrium_json_has_the_promised_fields_and_matches_the_api():
    r = run(ARGS + ["--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    for key in ("value", "hand_value", "exploitability", "iterations", "moves"):
        assert key in d
    assert d["method"] == "equilibrium" and d["exploitability"] <= 1e-3
    assert abs(sum(m["probability"] for m in d["moves"]) - 1) <= 1e-9
    assert all(set(m) >= {"cards", "probability", "value"} for m in d["moves"])
    # the same numbers from the API
    seen = hand(int(x) for x in SEEN.split())
    res = solve(Endgame(STANDARD, seen, (), (), 0, (3, 3)), hand_of=(0, (2, 9, 10)))  # the door solves for the hand
    api = report(res, 0, (2, 9, 10), (1.0, 0.0, -1.0))
    assert d["hand_regret"] == api["hand_regret"] and 0 <= d["hand_regret"] <= 1e-3
    assert api["value"] == pytest.approx(d["value"], abs=1e-12) and api["moves"] == d["moves"]


def test_solve_equilibrium_human_names_the_method_and_answers_carry_beats():
    r = run(ARGS)
    assert r.exit_code == 0, r.output
    assert "equilibrium of the endgame with hidden hands" in r.stdout and "exploitability" in r.stdout
    d = json.loads(
        run(
            ["solve", "--equilibrium", "--hand", "2 9 10", "--seen", SEEN, "--table", "7", "--opponent", "2", "--json"]
        ).stdout
    )
    assert all(isinstance(m["beats"], bool) for m in d["moves"])


def test_history_sets_the_floor_and_bad_history_is_one_line():
    seen = SEEN + " 2 6"
    ok = run(
        [
            "solve",
            "--equilibrium",
            "--hand",
            "9 10",
            "--seen",
            seen,
            "--history",
            "p1 attacks 2; p0 answers 6 beat",
            "--attacker",
            "0",
            "--json",
        ]
    )
    assert ok.exit_code == 0, ok.output
    # the history's cards count as seen (issue 21): typing them again in --seen changes nothing
    short = run(
        [
            "solve",
            "--equilibrium",
            "--hand",
            "9 10",
            "--seen",
            "1 1",
            "--history",
            "p1 attacks 2; p0 answers 6 beat",
            "--attacker",
            "0",
            "--json",
        ]
    )
    typed = run(
        [
            "solve",
            "--equilibrium",
            "--hand",
            "9 10",
            "--seen",
            "1 1 2 6",
            "--history",
            "p1 attacks 2; p0 answers 6 beat",
            "--attacker",
            "0",
            "--json",
        ]
    )
    assert short.exit_code == 0 and json.loads(short.stdout)["moves"] == json.loads(typed.stdout)["moves"]
    one_line_error(
        run(["solve", "--equilibrium", "--hand", "9 10", "--seen", seen, "--history", "p1 hits 2"]), "history event 1"
    )
    one_line_error(run(["solve", "--equilibrium", "--seen", SEEN]), "--hand")
    one_line_error(run(ARGS + ["--max-hands", "10"]), "--max-hands")


def test_budgets_stop_early_and_say_so():
    # four cards each (41 k sequences): three-card trees are solved to an exploitability of 0.0 within 50 ms
    # since issue 36 plays their answers from three cards in place
    four = ["solve", "--equilibrium", "--hand", "2 9 10 10", "--seen", SEEN]
    d = json.loads(run(four + ["--exploitability", "0", "--time", "300", "--json"]).stdout)
    assert d["stopped"] is True and d["exploitability"] > 0


def test_hint_method_equilibrium_and_auto():
    view = json.dumps(VIEW)
    d = json.loads(
        run(["hint", "--view", "-", "--json", "--method", "equilibrium", "--score", "round"], stdin=view).stdout
    )
    api = json.loads(run(ARGS + ["--json"]).stdout)
    assert d["method"] == "equilibrium" and d["exploitability"] <= 1e-3
    assert sorted(m["probability"] for m in d["strategy"]) == pytest.approx(
        sorted(m["probability"] for m in api["moves"])
    )
    assert d["hand_value"] == pytest.approx(api["hand_value"], abs=1e-12)


def test_protocol_solve_in_mode_equilibrium():
    session = EngineSession()
    view = VIEW
    r = session.handle({"id": 1, "cmd": "solve", "mode": "equilibrium", "view": view})
    assert r["ok"], r
    api = json.loads(run(ARGS + ["--json"]).stdout)
    assert r["result"]["moves"] == api["moves"] and r["result"]["exploitability"] <= 1e-3
    bad = session.handle({"id": 2, "cmd": "solve", "mode": "equilibrium"})
    assert not bad["ok"] and bad["error"]["code"] == "missing_field"
    plain = session.handle({"id": 3, "cmd": "solve"})
    assert not plain["ok"] and plain["error"]["field"] == "position"


def test_equilibrium_bot_is_reproducible_and_plays_legal_moves():
    bots = (make_bot("pimc_eq", samples=20, utilities="round"), make_bot("pimc", samples=20, utilities="round"))
    first = [play_round(bots, f"eq/{d}") for d in range(3)]
    bots2 = (make_bot("pimc_eq", samples=20, utilities="round"), make_bot("pimc", samples=20, utilities="round"))
    assert [play_round(bots2, f"eq/{d}") for d in range(3)] == first
