"""The round search (issue 24, `tacocat.search.decisions`, `Knobs.round_search`)
through the doors a user has: `tacocat hint --round-search`, and the
protocol's `hint` and `move` field `round_search` (docs/protocol.md).  Asked,
it reaches the search and the answer says so (`round_search` 1 where it
ran, 0 at a play-phase decision; a move's `budget` holds 1); refused in one
line when not a boolean; off or absent, the answer is the one from before
the option existed (seeded, count budgets: only `seconds` differs)."""

from __future__ import annotations

import json
import random

import pytest
from helpers import one_line_error, run_cli
from positions import REPLACE_FLAGS as README_REPLACE
from positions import first_view
from seats import Seated

from tacocat.players.bots import make_bot
from tacocat.protocol.moves import LEVELS
from tacocat.protocol.session import EngineSession
from tacocat.rules.game import DUEL, REPLACE, GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.search.budget import Budget
from tacocat.search.hint import Knobs, hint

SAMPLES = 24
"""A count budget (never time), small enough for a fast test and large
enough that the round search moves the values."""

# The README's replace and duel positions (tacocat hint --help), and a play one.
REPLACE_FLAGS = [*README_REPLACE, "--cap", "2", "--seen", "5 9"]
DUEL_FLAGS = ["--phase", "duel", "--hand", "2 4 8 9 12 12 6"]
PLAY_FLAGS = ["--hand", "2 5 7 9 11 12", "--seen", "3 3 10", "--opponent", "5", "--table", "8", "--attacker", "1"]


def timeless(answer: dict) -> dict:
    """An answer without its think time, the one field a seeded count budget leaves free."""
    return {k: v for k, v in answer.items() if k != "seconds"}


# --------------------------------------------------------------------- the CLI


def cli_hint(*args: str) -> dict:
    r = run_cli(["hint", *args, "--iterations", str(SAMPLES), "--seed", "3", "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("flags", [REPLACE_FLAGS, DUEL_FLAGS], ids=["replace", "duel"])
def test_cli_round_search_reaches_the_search_and_says_so(flags):
    classic = cli_hint(*flags)
    searched = cli_hint(*flags, "--round-search")
    assert "round_search" not in classic  # off: the answer from before the option
    assert searched["round_search"] == 1
    assert searched["method"] == classic["method"] and searched["decision"] == classic["decision"]
    # the values are the round search's: the engine asked with the knob, not the classic search
    assert [m["value"] for m in searched["moves"]] != [m["value"] for m in classic["moves"]]


def test_cli_round_search_off_is_todays_answer():
    from tacocat.cli.terminal import view_from_flags
    from tacocat.rules.ruleset import load_ruleset

    view = view_from_flags(
        hand="2 4 8 9 12 12 6",
        seen="",
        history=None,
        table="",
        opponent=None,
        attacker=None,
        phase="duel",
        cap=None,
        player=0,
        board=None,
        rules=load_ruleset(None),
    )
    engine = hint(view, Budget(samples=SAMPLES, seed=3)).to_dict()
    assert timeless(cli_hint(*DUEL_FLAGS)) == timeless(engine)
    engine_rs = hint(view, Budget(samples=SAMPLES, seed=3), knobs=Knobs(round_search=True)).to_dict()
    assert timeless(cli_hint(*DUEL_FLAGS, "--round-search")) == {**timeless(engine_rs), "round_search": 1}


def test_cli_round_search_at_a_play_decision_says_it_did_nothing():
    classic = cli_hint(*PLAY_FLAGS)
    searched = cli_hint(*PLAY_FLAGS, "--round-search")
    assert searched.pop("round_search") == 0
    assert timeless(searched) == timeless(classic)
    r = run_cli(["hint", *PLAY_FLAGS, "--iterations", "8", "--round-search"])
    assert r.exit_code == 0, r.output
    assert "round search: no effect here" in r.stdout


def test_cli_round_search_text_says_what_it_changed():
    r = run_cli(["hint", *DUEL_FLAGS, "--iterations", "8", "--round-search"])
    assert r.exit_code == 0, r.output
    assert "round search: each duel cell's play phase searched" in r.stdout
    assert "round search" not in run_cli(["hint", *DUEL_FLAGS, "--iterations", "8"]).stdout


def test_cli_round_search_takes_no_value():
    one_line_error(run_cli(["hint", *DUEL_FLAGS, "--round-search=yes"]), "--round-search", "does not take a value")


def test_cli_help_teaches_the_round_search():
    text = " ".join(run_cli(["hint", "--help"]).stdout.split())
    assert "--round-search" in text and "8x" in text and "Default off" in text


# ---------------------------------------------------------------- the protocol


def client() -> Seated:
    return Seated(EngineSession().handle)


def answer(c: Seated, request: dict) -> dict:
    r = c.handle({"id": 1, **request})
    assert r["ok"], r
    return r["result"]


def refused(c: Seated, request: dict) -> dict:
    r = c.handle({"id": 1, **request})
    assert not r["ok"], r
    return r["error"]


@pytest.mark.parametrize("kind", [REPLACE, DUEL])
def test_protocol_hint_takes_round_search(kind):
    view = first_view(kind, 2)
    c = client()
    asked = {"cmd": "hint", "view": view.to_dict(), "iterations": SAMPLES, "seed": 4}
    classic = answer(c, asked)
    assert timeless(answer(c, {**asked, "round_search": False})) == timeless(classic)  # off: as before
    assert "round_search" not in classic
    searched = answer(c, {**asked, "round_search": True})
    assert searched["round_search"] == 1 and searched["inference"] == classic["inference"]
    engine = hint(view, Budget(samples=SAMPLES, seed=4), knobs=Knobs(round_search=True)).to_dict()
    assert timeless(searched) == {**timeless(engine), "round_search": 1}


def test_protocol_hint_round_search_at_a_play_decision_reports_0():
    c = client()
    view = {"player": 1, "hand": [4, 9, 11], "seen": [], "opponent_hand_size": 2, "attacker": 0, "table": [7]}
    asked = {"cmd": "hint", "view": view, "iterations": 8, "method": "pimc"}
    searched = answer(c, {**asked, "round_search": True})
    assert searched.pop("round_search") == 0
    assert timeless(searched) == timeless(answer(c, asked))
    endgame = answer(c, {"cmd": "hint", "view": view, "method": "endgame", "round_search": True})
    assert endgame["round_search"] == 0


@pytest.mark.parametrize("bad", ["yes", 1, 0, None, [True]])
@pytest.mark.parametrize("cmd", ["hint", "move"])
def test_protocol_refuses_a_round_search_that_is_not_a_boolean(cmd, bad):
    c = client()
    answer(c, {"cmd": "new_game", "seed": 5})
    error = refused(c, {"cmd": cmd, "game": "g1", "player": 0, "iterations": 4, "round_search": bad})
    assert error["code"] == "bad_field" and error["field"] == "round_search"
    assert "'round_search' must be boolean" in error["message"] and "\n" not in error["message"]


def test_protocol_move_takes_round_search_in_its_budget():
    c = client()
    answer(c, {"cmd": "new_game", "seed": 5})
    asked = {"cmd": "move", "game": "g1", "player": 0, "level": 3, "seed": 9, "apply": False}
    classic = answer(c, asked)
    assert timeless(answer(c, {**asked, "round_search": False})) == timeless(classic)  # off: as before
    assert "round_search" not in classic["budget"]
    searched = answer(c, {**asked, "round_search": True})
    name, level = LEVELS[3]
    assert searched["budget"] == {**level, "round_search": 1}
    # the bot the budget names is the one that chose: the bot spec pimc@round_search=1
    view = GameState.new(STANDARD, 5).view(0)
    bot = make_bot(name, **level, round_search=1)
    assert searched["action"] == bot.choose(view, random.Random(9)).to_dict()
    by_name = {k: v for k, v in asked.items() if k != "level"} | {"bot": "pimc", "iterations": 4, "round_search": True}
    assert answer(c, by_name)["budget"] == {"samples": 4, "round_search": 1}


def test_protocol_move_at_a_plain_level_does_not_list_search_options_it_ignores():
    # levels 1-2 (random, heuristic) do not search: an answer's budget says
    # what the bot used, so the search options stay out of it
    c = client()
    answer(c, {"cmd": "new_game", "seed": 5})
    for level in (1, 2):
        asked = {"cmd": "move", "game": "g1", "player": 0, "level": level, "seed": 9, "apply": False}
        plain = answer(c, {**asked, "round_search": True, "inference": "policy"})
        assert plain["budget"] == {} and timeless(plain) == timeless(answer(c, asked)), plain
    by_name = {"cmd": "move", "game": "g1", "player": 0, "bot": "heuristic", "seed": 9, "apply": False}
    assert answer(c, {**by_name, "round_search": True, "inference": "policy"})["budget"] == {}


def test_protocol_move_round_search_with_the_classic_bot_is_one_line():
    c = client()
    answer(c, {"cmd": "new_game", "seed": 5})
    r = c.handle({"id": 1, "cmd": "move", "game": "g1", "player": 0, "bot": "pimc_classic", "round_search": True})
    assert not r["ok"], r
    assert "round_search is not offered" in r["error"]["message"] and "\n" not in r["error"]["message"]
