"""A saved game survives a resume the network cut short: a reload during
the resume's request (or a server that does not answer) keeps the game for
the next load, and only the server's answer that the game is gone forgets
it.  (A reload while the board resumed its saved game aborted the view
request, and the failure's handler forgot the game: the browser tests that
plant a saved game and reload failed about 1 run in 4.)"""

from __future__ import annotations

import json

import pytest
from servers import running_server
from test_web_board import ARGS, CHROMIUM, page_of, sync_api, wait_turn

pytestmark = pytest.mark.slow  # a server and a browser


def _saved_game(client) -> dict:
    g = client.post("/v1/new_game", json={"seed": 3, "engine": {"seat": 1, "level": 1}}).json()["result"]
    return {"game": g["game"], "token": g["tokens"]["seats"][0], "seat": 0, "opponent": "level:1", "log": []}


def test_a_resume_without_an_answer_keeps_the_saved_game_and_a_gone_game_is_forgotten():
    with running_server() as client, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            errors: list = []
            page = page_of(browser, errors)
            page.goto(f"{client.base_url}/?delay=0")
            page.wait_for_function("document.body.dataset.ready === '1'")
            saved = _saved_game(client)
            page.evaluate("saved => localStorage.setItem('tacocat-board', JSON.stringify(saved))", saved)
            # The resume's requests get no answer: the game stays saved.
            page.route("**/v1/view", lambda route: route.abort())
            page.reload()
            page.wait_for_function("document.body.dataset.ready === '1'")
            kept = page.evaluate("localStorage.getItem('tacocat-board')")
            assert kept is not None and json.loads(kept)["game"] == saved["game"]
            assert "could not be resumed" in page.text_content("body")
            # The next load, answered, resumes it.
            page.unroute("**/v1/view")
            page.reload()
            assert wait_turn(page) == "replace"
            # A game the server no longer has is forgotten.
            gone = {**saved, "game": "g-no-such-game"}
            page.evaluate("saved => localStorage.setItem('tacocat-board', JSON.stringify(saved))", gone)
            page.evaluate("sessionStorage.removeItem('tacocat-board')")
            page.reload()
            page.wait_for_function("document.body.dataset.ready === '1'")
            assert page.evaluate("localStorage.getItem('tacocat-board')") is None
        finally:
            browser.close()
    assert errors == []
