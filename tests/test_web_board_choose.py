"""A board people choose (issue 35), in Debian's Chromium against a server
run in this process: a new game asks before it sets a game in progress
aside, and the last game comes back; a refused move's message clears after
Esc, after a hint and after the next move; the opponents are named in a
player's words, weakest first by the strength results/ladder.md measured
(the shipped /web/opponents.json is results/board_opponents.py's output);
the arrows and the hint's columns have a legend on the page; the round's
earlier tricks have a scroll cue; the game ends on a panel with the winner,
the score by rounds, a rematch with the same settings and the replay.

Skips, with a one-line reason, where Playwright or Chromium is missing."""

from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import test_web_board  # skips, as it does, where Playwright or Chromium is missing
from test_web_board import inside_viewport, play_out, step, wait_turn
from test_web_board_private import SHORT, STANDARD, Watch, board_server, new_game_requests, new_page

browser = test_web_board.browser  # the module-scoped Chromium (see test_web_board_private)

ROOT = Path(__file__).resolve().parents[1]


def _opponents_script():
    spec = importlib.util.spec_from_file_location("board_opponents", ROOT / "results" / "board_opponents.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_opponent_list_is_the_ladder_s():
    script = _opponents_script()
    shipped = (ROOT / "solver" / "protocol" / "web" / "opponents.json").read_text()
    assert shipped == script.render(script.document((ROOT / "results" / "ladder.md").read_text())), (
        "solver/protocol/web/opponents.json is stale: python results/board_opponents.py"
    )
    doc = json.loads(shipped)
    elos = [o["elo"] for o in doc["opponents"]]
    assert elos == sorted(elos) and len(elos) >= 6
    assert {"level:1", "level:5"} <= {o["value"] for o in doc["opponents"]}
    assert not any("oracle" in o["value"] for o in doc["opponents"])  # it sees the other hand: never offered


def open_board(page, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_function("document.body.dataset.ready === '1'")


@contextlib.contextmanager
def board_page(browser, rules=SHORT, size: tuple[int, int] = (1280, 800)) -> Iterator[tuple[Any, Any]]:
    """The board open on a server of its own (`board_server`): the page
    and the server's session; closed after, and no page error on the way."""
    errors: list = []
    with board_server(rules) as (url, session, _):
        page = new_page(browser, errors, *size)
        open_board(page, url)
        yield page, session
        page.close()
    assert errors == []


def start(page, opponent: str, seed: int | None = None) -> None:
    page.select_option("#opponent", opponent)
    page.fill("#seed", "" if seed is None else str(seed))
    page.click("#new-game")
    wait_turn(page)


def refuse_a_duel(page) -> None:
    """Two cards at a duel: refused (R9), with a red message."""
    page.locator("#play").focus()
    page.keyboard.press("1")
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('message').textContent.includes('Refused')")


def test_opponents_are_named_in_words_and_ordered_by_measured_strength(browser):
    doc = json.loads((ROOT / "solver" / "protocol" / "web" / "opponents.json").read_text())
    with board_page(browser) as (page, _):
        options = page.eval_on_selector_all("#opponent option", "os => os.map(o => [o.value, o.textContent])")
        values = [v for v, _ in options]
        measured = [o["value"] for o in doc["opponents"] if o["value"] in values]
        assert values[: len(measured)] == measured  # weakest first, the unmeasured after
        assert len(measured) >= 6
        for value, text in options:
            assert "PIMC" not in text and "pimc" not in text and " ms" not in text, text  # a player's words
            assert "Elo" in text or "not measured" in text, text
        assert dict(options)["level:3"].startswith("Casual (level 3)")
        assert "weakest first" in page.text_content("label:has(#opponent)")
        # the legend of the board's symbols is on the page, not only in a tooltip
        assert page.is_visible("#track-legend") and "replaces first" in page.text_content("#track-legend")


def test_a_new_game_asks_first_and_the_last_game_comes_back(browser):
    with board_page(browser) as (page, _):
        start(page, "level:2", seed=3)
        first = page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game")
        assert not page.is_visible("#restore")
        page.keyboard.press("n")  # a game in progress: asked first
        page.wait_for_selector("#confirm:not([hidden])")
        assert "not over" in page.text_content("#confirm-text")
        page.keyboard.press("Escape")  # keep playing
        page.wait_for_selector("#confirm", state="hidden")
        assert page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game") == first
        page.click("#new-game")
        page.wait_for_selector("#confirm:not([hidden])")
        page.click("#confirm-yes")
        page.wait_for_function(
            "(g) => JSON.parse(localStorage.getItem('tacocat-board')).game !== g "
            "&& !document.body.classList.contains('busy')",
            arg=first,
        )
        second = page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game")
        assert page.is_visible("#restore")
        page.click("#restore")  # the game set aside comes back, and the new one is set aside in its place
        page.wait_for_function("(g) => JSON.parse(localStorage.getItem('tacocat-board')).game === g", arg=first)
        wait_turn(page)
        assert page.evaluate("JSON.parse(localStorage.getItem('tacocat-board-last')).game") == second
        assert "Restored" in page.text_content("#log")


def test_a_refused_move_s_message_clears_after_esc_a_hint_and_the_next_move(browser):
    with board_page(browser, STANDARD) as (page, _):
        start(page, "level:1", seed=5)
        page.locator("#play").focus()
        page.keyboard.press("Enter")  # keep all: the duel follows
        assert wait_turn(page) == "duel"
        refuse_a_duel(page)
        page.keyboard.press("Escape")
        assert page.text_content("#message") == "" and not page.is_visible("#message")
        refuse_a_duel(page)
        page.keyboard.press("Escape")  # the selection clears too
        refuse_a_duel(page)
        page.click("#hint")
        page.wait_for_selector("#hint-table:not([hidden]) tbody tr")
        assert page.text_content("#message") == ""
        assert page.is_visible("#hint-legend") and "whole game" in page.text_content("#hint-legend")
        assert inside_viewport(page, "#hint-legend")
        page.keyboard.press("Escape")
        refuse_a_duel(page)
        page.keyboard.press("Escape")
        page.locator("#play").focus()
        page.keyboard.press("1")
        page.keyboard.press("Enter")  # a legal duel
        wait_turn(page)
        assert page.text_content("#message") == ""


@pytest.mark.slow
def test_the_round_s_earlier_tricks_have_a_scroll_cue(browser):
    """At a round's end on a short window the trick list scrolls: the cue
    says so, and takes the list back to its first line."""
    with board_page(browser, STANDARD, (1280, 640)) as (page, _):
        start(page, "level:2", seed=7)
        seen_cue = False
        for n in range(400):
            decision = wait_turn(page)
            if decision == "over":
                break
            if decision == "round-end":
                if page.evaluate(
                    "(() => { const l = document.getElementById('tricks'); "
                    "return l.scrollHeight > l.clientHeight + 4; })()"
                ):
                    assert page.is_visible("#tricks-cue") and "earlier" in page.text_content("#tricks-cue")
                    page.click("#tricks-cue")
                    page.wait_for_function("document.getElementById('tricks').scrollTop === 0")
                    page.wait_for_selector("#tricks-cue", state="hidden")
                    seen_cue = True
                    break
            step(page, decision)
        assert seen_cue, "no round end overflowed its trick list in this game"


@pytest.mark.slow
def test_the_game_ends_on_a_panel_with_the_score_a_rematch_and_the_replay(browser):
    with board_page(browser) as (page, session):
        watch = Watch(page)  # the new games' requests, from here on
        page.select_option("#seat", "1")
        start(page, "level:2", seed=9)
        play_out(page, 300)
        page.wait_for_selector("#game-over:not([hidden])")
        gid = page.evaluate("JSON.parse(localStorage.getItem('tacocat-board')).game")
        rounds = session._games[gid].rounds
        assert page.locator("#go-rounds tbody tr").count() == len(rounds)
        won = sum(r["winner"] == 1 for r in rounds)
        assert f"you {won}," in page.text_content("#go-score")
        cat = session._games[gid].board.cat
        assert page.text_content("#go-verdict") == ("You win the game!" if cat > 6 else "The engine wins the game.")
        assert inside_viewport(page, "#game-over")
        # the replay from the panel, and back
        page.click("#go-replay")
        page.wait_for_selector("#replay:not([hidden])")
        page.keyboard.press("Escape")
        page.wait_for_selector("#game-over:not([hidden])")
        # a rematch: the same opponent, seat and seed, without a question (the game is over)
        page.select_option("#opponent", "level:1")  # the form changed since: the rematch keeps the game's own
        page.keyboard.press("m")
        page.wait_for_function("(g) => JSON.parse(localStorage.getItem('tacocat-board')).game !== g", arg=gid)
        assert page.is_hidden("#confirm")
        wait_turn(page)
        first, again = new_game_requests(watch)[-2:]
        assert first == again == {"engine": {"seat": 0, "level": 2}, "seed": 9}
