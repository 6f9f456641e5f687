"""The words a player trips over (issue 35, item 7): counts that read as
counts, a forced move played instead of waited for, a refusal that says
the expected form once and no command the prompt does not have, history
errors that name the `;` between events, and the client's action in plain
notation."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from helpers import one_line_error, run_cli
from test_cli_play_prompt import prompt  # a session fed typed lines: seat 0, the heuristic engine

from tacocat.cli.terminal import counted
from tacocat.errors import NotationError, RecordError, TacocatError
from tacocat.players.bots import choose, make_bot
from tacocat.protocol.client import Engine
from tacocat.rules.actions import FORMS
from tacocat.rules.game import DUEL, REPLACE, GameRecord, GameState
from tacocat.rules.history import parse_history

ROOT = Path(__file__).resolve().parents[1]


def at_the_replacement(hands, replace_cap=None):
    """Player 0 to replace; with `replace_cap`, player 1 replaced first and
    discarded that many (R7)."""
    state = GameState.new(seed=1)
    state.hands = [tuple(hands[0]), tuple(hands[1])]
    if replace_cap is not None:
        state.first_replacer, state.replaced, state.replace_cap = "p1", [False, True], replace_cap
    return state


def test_undo_of_one_engine_move_reads_as_one_move():
    # seed 1: both replace in secret (R8): keeping the hand, then undo, takes back the engine's one replacement
    out = run_cli(["play", "--opponent", "heuristic", "--seed", "1"], "none\nundo\nquit\n").stdout
    assert "undone: your replace none and the engine's move after it; back to round 1, your replace" in out
    assert "1 move" not in out


def test_a_cap_of_one_card_says_card(monkeypatch, capsys):
    out = prompt(at_the_replacement([(2, 4, 5, 9), (1, 3, 6, 8)], replace_cap=1), [], monkeypatch, capsys)
    assert "you may discard at most 1 card (R7)" in out
    assert "1 cards" not in out


def test_a_forced_move_is_played_and_said_not_waited_for(monkeypatch, capsys):
    # the first replacer kept its whole hand: "replace none" is the only legal move (R7)
    state = at_the_replacement([(2, 4, 5, 9), (1, 3, 6, 8)], replace_cap=0)
    out = prompt(state, [], monkeypatch, capsys)
    assert "your only legal move, played for you: replace none (R7: the first replacer kept its whole hand)" in out
    assert "replace> " not in out and "duel> " in out  # asked first at the duel
    assert state.phase == DUEL


def a_game_at_a_forced_replacement() -> GameState:
    """A game (heuristic bots, the first seed that gets there) where player
    1 replaced first, kept its hand, and player 0 may discard nothing (R7)."""
    bot = make_bot("heuristic")
    for seed in range(200):
        state, rng = GameState.new(seed=seed), random.Random(seed)
        while not state.over:
            if state.decision(0) == REPLACE and state.replace_cap == 0:
                return state
            player = state.acting_players()[0]
            state.apply(player, choose(bot, state, player, rng))
    raise AssertionError("no seed below 200 reaches a forced replacement")


def test_undo_goes_back_past_a_forced_move(tmp_path):
    state = a_game_at_a_forced_replacement()
    path = tmp_path / "g.json"
    path.write_text(json.dumps(dict(state.record().to_dict(), players={"0": "human", "1": "heuristic"})))
    rounds_before = len(state.rounds)
    out = run_cli(["play", "--resume", str(path)], "undo\nquit\n").stdout
    assert "your only legal move, played for you: replace none" in out
    undone = out[out.index("undone: your ") :].splitlines()[0]
    # back past the forced replacement, to the last real choice: the round before
    assert not undone.startswith("undone: your replace none"), undone
    assert f"back to round {rounds_before}, your " in undone, undone


@pytest.mark.parametrize("typed", ["replace 13", "replace 2 x"])
def test_a_notation_refusal_says_the_expected_form_once(typed, monkeypatch, capsys):
    out = prompt(at_the_replacement([(2, 4, 5, 9), (1, 3, 6, 8)]), [typed], monkeypatch, capsys)
    lines = out.splitlines()
    refusal = next(i for i, ln in enumerate(lines) if ln.startswith("not legal"))
    assert out.count(FORMS[REPLACE]) == 1, out
    assert lines[refusal + 1].startswith("legal: discard any 0 to 4 of your cards 2 4 5 9")


def test_a_refusal_points_to_no_command_the_prompt_lacks(monkeypatch, capsys):
    out = prompt(at_the_replacement([(2, 4, 5, 9), (1, 3, 6, 8)]), ["replace 1"], monkeypatch, capsys)
    assert "not legal (R7-R8): replace 1: player 0 does not hold these cards" in out
    assert "legal lists" not in out and "(legal" not in out
    lines = out.splitlines()
    refusal = next(i for i, ln in enumerate(lines) if ln.startswith("not legal"))
    assert lines[refusal + 1].startswith("legal: discard any 0 to 4 of your cards")


@pytest.mark.parametrize(
    "text",
    [
        "p1 attacks 9 p0 answers 11 beat",  # the ';' left out
        "p1 attacks 9, p0 answers 11 beat",
        "p1 hits 9",
        "p1 attacks 9; p0 answers 11",
        "p1 attacks x",
    ],
)
def test_a_history_syntax_error_names_the_semicolon_between_events(text):
    with pytest.raises((RecordError, NotationError)) as err:
        parse_history(text)
    assert "separated by ';'" in str(err.value) and re.search(r"history event [12]\b", str(err.value)), err.value


def test_a_missing_semicolon_is_named_as_such():
    with pytest.raises(RecordError, match=r"history event 1 .*: two events without the ';' between them"):
        parse_history("p1 attacks 9 p0 answers 11 beat")


def test_a_history_syntax_error_at_the_door_is_one_line():
    one_line_error(
        run_cli(["hint", "--hand", "3 10 11", "--seen", "1 2", "--history", "p1 attacks 9 p0 answers 11 beat"]),
        "history event 1",
        "separated by ';'",
    )


def test_the_client_applies_plain_notation_and_names_the_forms_otherwise():
    with Engine.popen() as engine:
        game = engine.new_game(seed=7)
        applied = engine.apply(game, 0, "replace none")
        assert str(applied.action) == "replace none"
        with pytest.raises(TacocatError, match=r"an action is an Action, a dict like .* or notation naming its kind"):
            engine.apply(game, 1, 42)  # type: ignore[arg-type]
        with pytest.raises(NotationError, match="say what kind of move it is"):
            engine.apply(game, 1, "9")
        assert engine.legal(game, 1)  # nothing was sent for the refused ones: the game goes on


def test_the_api_page_links_only_to_what_the_server_serves():
    # issue 35: /docs pointed to docs/protocol.md, which the server does not serve
    from servers import running_server

    with running_server() as server:
        page = server.get("/docs")
        assert page.status_code == 200
        links = re.findall(r'(?:href|src)="([^"#]+)"', page.text)
        assert links and not [u for u in links if "protocol.md" in u], links
        for url in links:
            assert server.get(url).status_code == 200, url
        description = server.get("/openapi.json").json()["info"]["description"]
    # the page shows this text: it names the document where it lives, and says the server does not serve it
    assert "docs/protocol.md" in description and "not the docs" in description, description


def test_a_one_round_analysis_counts_in_the_singular(tmp_path):
    record = json.loads((ROOT / "docs" / "example_game.json").read_text())
    whole = GameRecord.from_dict(record)
    upto = next(i for i in range(len(record["actions"])) if len(whole.replay(i).rounds) == 1)
    record["actions"] = record["actions"][:upto]  # the first round played, the next not begun
    path = tmp_path / "short.json"
    path.write_text(json.dumps(record))
    out = run_cli(["analyze", str(path), "--player", "1", "--iterations", "5"]).stdout
    assert f"{upto} actions, 1 round, unfinished" in out, out
    assert "1 rounds" not in out, out
    assert [counted(n, "decision") for n in (0, 1, 2)] == ["0 decisions", "1 decision", "2 decisions"]
