"""The web board's hint table ranks a hint as `tacocat hint` does: the
engine's pick first, then the moves by how far the search carried them
(deals or ISMCTS iterations), the moves dropped early summed up in one line
with a "Show all" toggle, and each row's deals shown.

board.js ranks with a port of `tacocat.search.ranking.rank_answer` (the
block between its "BEGIN ranking" and "END ranking" lines): run under node
here against `rank_answer` on the same answers, seeded made-up ones of every
shape the protocol sends and real ones of the search, and against
`rank_moves` on the typed results whose wire form the board gets (the
terminal's ranking).  Then, in Debian's
Chromium, the replacement position that put one-deal rows on top (`tacocat
hint --phase replace --board "cat=4 covered=1,2,3" --hand "1 2 4 5 6 7 9 11
11"`): the pick is row 1, and no row resting on fewer than a tenth of the
pick's deals stands above a row with more."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tacocat.rules.actions import Action
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import load_ruleset
from tacocat.search.budget import Budget
from tacocat.search.hint import HintResult, hint
from tacocat.search.ranking import CARRIED_SHARE, rank_answer, rank_moves
from tacocat.search.results import MoveEval

BOARD_JS = Path(__file__).resolve().parents[1] / "solver" / "protocol" / "web" / "board.js"
STANDARD = load_ruleset(None)
ISSUE_HAND = [1, 2, 4, 5, 6, 7, 9, 11, 11]


def ranking_block() -> str:
    """board.js's port of the ranking, as it ships."""
    source = BOARD_JS.read_text()
    found = re.search(r"^// BEGIN ranking.*?^// END ranking$", source, re.S | re.M)
    assert found, "board.js has no BEGIN ranking ... END ranking block"
    return found.group(0)


def made_up_answer(rng: random.Random) -> dict:
    """A hint answer of a shape the protocol sends: a replacement's halving
    (the pick on most deals, tiers halving, a long tail on one or two),
    equal samples for every move, exact, ISMCTS; with ties in deals and
    values, moves without a value or a margin, and a `best` that is
    missing or names no listed move."""
    kind = rng.choice(["replace", "attack", "answer", "duel"])
    shape = rng.choice(["halving", "shared", "exact", "ismcts", "sparse"])
    n_moves = rng.choice([0, 1, 2, 5, 12, 40])
    moves = []
    for _ in range(n_moves):
        m: dict = {"kind": kind, "cards": rng.sample(range(1, 13), rng.randint(0 if kind == "replace" else 1, 3))}
        if kind == "answer":
            m["beats"] = rng.random() < 0.5
        r = rng.random()
        if r < 0.9:
            m["value"] = rng.choice([round(rng.uniform(-1, 1), 3), 0.5, 1.0, -1.0])
            w = rng.random()
            m.update(win=w, draw=(1 - w) / 2, loss=(1 - w) / 2, game_win=(m["value"] + 1) / 2)
        elif r < 0.95:
            m["value"] = None
        if rng.random() < 0.8:
            m["stderr"] = rng.choice([0.0, round(rng.uniform(0, 0.3), 4)])
        elif rng.random() < 0.5:
            m["stderr"] = None
        if shape in ("halving", "ismcts"):
            m["visits"] = rng.choice([0, 1, 1, 2, 3, 8, 9, 10, 50, 105, 216, 438, 1104, rng.randint(1, 3000)])
        elif shape == "sparse" and rng.random() < 0.5:
            m["visits"] = rng.randint(0, 40)
        moves.append(m)
    method = {"ismcts": "ismcts", "exact": "exact"}.get(shape, "pimc")
    result: dict = {"method": method, "moves": moves}
    if shape == "exact":
        result["exact"] = True
    elif rng.random() < 0.9:
        result["samples"] = rng.choice([0, 1, 5, 9, 10, 300, 1104])
    if rng.random() < 0.8:
        result["utilities"] = rng.choice([[0.76, 0.42, 0.02], [1.0, 0.0, -1.0], []])
    if moves and rng.random() < 0.85:
        best = dict(rng.choice(moves))
        best["cards"] = sorted(best["cards"], reverse=True)  # the same move, its cards in another order
        result["best"] = best
    elif rng.random() < 0.5:
        result["best"] = {"kind": kind, "cards": [13]}
    return result


def typed_of(answer: dict) -> HintResult:
    """A typed result of a made-up answer's shape: its moves (a move
    without a value at 0, the pick its first move), method, samples and
    utilities."""
    moves = [
        MoveEval(
            Action(m["kind"], tuple(m["cards"]), m.get("beats")),
            m.get("win", 0.5),
            m.get("draw", 0.0),
            m.get("loss", 0.5),
            m.get("value") if m.get("value") is not None else 0.0,
            stderr=m.get("stderr"),
            game_win=m.get("game_win"),
            visits=m.get("visits"),
        )
        for m in answer["moves"]
    ]
    u = answer.get("utilities") or [1.0, 0.0, -1.0]
    return HintResult(
        answer["method"], bool(answer.get("exact")), "attack", moves, 0.0, answer.get("samples"), utilities=tuple(u)
    )


def real_answers() -> list[HintResult]:
    """Hints of the search itself, small budgets: a replacement at the
    issue's position (sequential halving), and seeded games' decisions by
    PIMC and by ISMCTS."""
    answers = [hint(issue_state().view(0), Budget(samples=1104, seed=1))]
    rng = random.Random(7)
    state = GameState.new(STANDARD, seed=7)
    for step in range(60):
        if state.over:
            break
        player = state.acting_players()[0]
        if step % 6 == 0:
            for method in ("auto", "ismcts"):
                answers.append(hint(state.view(player), Budget(samples=60, seed=step), method=method))
        state.apply(player, rng.choice(state.legal_actions(player)))
    return answers


def issue_state() -> GameState:
    """The issue's replacement: the cat on space 4 with 1-3 covered, the
    player's hand 1 2 4 5 6 7 9 11 11, the opponent's nine cards and the
    draw pile made of the rest of the deck."""
    doc = GameState.new(STANDARD, seed=1).to_dict()
    rest = sorted((Counter({r + 1: n for r, n in enumerate(STANDARD.deck)}) - Counter(ISSUE_HAND)).elements())
    theirs = rest[::2][:9]
    pile = sorted((Counter(rest) - Counter(theirs)).elements())
    doc.update(
        board={"cat": 4, "covered": [1, 2, 3]},
        deals=4,
        hands=[ISSUE_HAND, theirs],
        draw_pile=pile,
        first_replacer="p0",  # the arrow on space 4 (R7)
        history=[{"event": "deal", "hand_size": 9, "cat": 4}],
    )
    return GameState.from_dict(doc)


def python_ranking(result: dict | HintResult) -> dict:
    """rank_answer's ranking of a wire answer, or rank_moves's of a typed
    result, as indices into its moves."""
    r = rank_moves(result) if isinstance(result, HintResult) else rank_answer(result)
    moves = result.moves if isinstance(result, HintResult) else result.get("moves") or []
    at = lambda m: next(i for i, x in enumerate(moves) if x is m)  # noqa: E731
    return {
        "rows": [at(m) for m in r.rows],
        "dropped": [at(m) for m in r.dropped],
        "withinReach": [at(m) for m in r.within_reach],
        "unit": r.unit,
    }


def js_rankings(answers: list[dict]) -> list[dict]:
    """board.js's rankMoves on each answer, as indices into its moves."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node to run board.js's ranking (apt-get install nodejs)")
    script = "\n".join(
        [
            ranking_block(),
            "const answers = JSON.parse(require('fs').readFileSync(0, 'utf8'));",
            """console.log(JSON.stringify(answers.map((a) => {
  const r = rankMoves(a), at = (m) => (a.moves || []).indexOf(m);
  return { rows: r.rows.map(at), dropped: r.dropped.map(at), withinReach: r.withinReach.map(at), unit: r.unit };
})));""",
        ]
    )
    done = subprocess.run(
        [node, "-e", script], input=json.dumps(answers), capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(done.stdout)


def same_rankings(answers: list[dict] | list[HintResult]) -> list[dict]:
    """Each answer's ranking, board.js's and rank_answer's being equal (a
    typed result: board.js's on its wire form and rank_moves's on it)."""
    wire = [a.to_dict() if isinstance(a, HintResult) else a for a in answers]
    wire = json.loads(json.dumps(wire))  # as the board receives them: through JSON
    js = js_rankings(wire)
    assert len(js) == len(answers)
    ours = [python_ranking(a) for a in wire]
    for i, (answer, theirs, mine) in enumerate(zip(wire, js, ours)):
        assert theirs == mine, f"answer {i} ranks differently: {json.dumps(answer)[:400]}"
    for i, (answer, theirs) in enumerate(zip(answers, js)):
        if isinstance(answer, HintResult):
            assert python_ranking(answer) == theirs, f"typed result {i} ranks differently: {wire[i]}"[:400]
    return ours


def test_the_board_ranks_made_up_hints_as_rank_answer_does():
    rng = random.Random(35)
    ours = same_rankings([made_up_answer(rng) for _ in range(400)])
    # the comparison saw every case: a summary line with moves within reach
    # and without, ISMCTS's unit, a pick with no deals, an empty answer
    assert any(r["dropped"] and not r["withinReach"] for r in ours)
    assert any(r["withinReach"] for r in ours) and any(r["unit"] == "iterations" for r in ours)
    assert any(r["rows"] and not r["dropped"] for r in ours) and any(not r["rows"] for r in ours)


def test_the_board_ranks_the_wire_form_of_typed_results_as_the_terminal_does():
    rng = random.Random(32)
    typed = [typed_of(made_up_answer(rng)) for _ in range(400)]
    ours = same_rankings(typed)
    assert any(r["dropped"] and not r["withinReach"] for r in ours)
    assert any(r["withinReach"] for r in ours) and any(r["unit"] == "iterations" for r in ours)


@pytest.mark.slow
def test_the_board_ranks_the_search_s_hints_as_rank_moves_does():
    ours = same_rankings(real_answers())
    # the issue's replacement: the pick first, most of the 384 discards dropped
    assert len(ours[0]["dropped"]) > 300 and ours[0]["rows"][0] == 0
    assert any(r["unit"] == "iterations" for r in ours[1:])


# ------------------------------------------------------------ the browser


def deals_column(page) -> list[tuple[str, str]]:
    """Each move row of the hint table: (its move, its deals cell)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#hint-table tbody tr.move')]
            .map((tr) => [tr.cells[1].textContent, tr.cells[tr.cells.length - 1].textContent])"""
    )


@pytest.mark.slow
def test_the_board_puts_the_pick_first_and_sums_up_the_moves_dropped_early():
    """The issue's replacement, opened on the board (resumed from its saved
    seat, as test_drawn_games opens a game): row 1 is the pick on the most
    deals, no row on fewer than a tenth of the pick's deals stands above a
    row on more, the table is `rank_answer`'s on the answer the page got, and
    "Show all" lists every move and folds them back."""
    test_web_board = pytest.importorskip("test_web_board")  # skips, as it does, without Playwright or Chromium
    from servers import running_server

    with running_server("--max-time-ms", "5000") as client:
        made = client.post(
            "/v1/new_game", json={"state": issue_state().to_dict(), "engine": {"seat": 1, "level": 1}}
        ).json()
        assert made["ok"], made
        game = made["result"]
        saved = {"game": game["game"], "token": game["tokens"]["seats"][0], "seat": 0, "opponent": "level:1", "log": []}
        with test_web_board.sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=test_web_board.CHROMIUM, args=test_web_board.ARGS)
            try:
                errors: list = []
                page = test_web_board.page_of(browser, errors)
                page.goto(f"{client.base_url}/?delay=0")
                page.evaluate("saved => localStorage.setItem('tacocat-board', JSON.stringify(saved))", saved)
                page.reload()
                assert test_web_board.wait_turn(page) == "replace"
                assert page.locator("#my-hand .card").count() == len(ISSUE_HAND)
                page.click("#hint")
                page.wait_for_selector("#hint-table:not([hidden]) tbody tr.move")
                answer = page.evaluate("S.hint")
                rows = deals_column(page)
                summary = page.text_content("#hint-table tr.more")
                page.click("#hint-all")
                every = deals_column(page)
                page.click("#hint-all")
                folded = deals_column(page)
                legend = page.text_content("#hint-legend")
                status = page.text_content("#hint-status")
            finally:
                browser.close()
    assert errors == []
    ranking = rank_answer(answer)
    text = lambda m: ("replace " + " ".join(map(str, m["cards"]))) if m["cards"] else "keep all (replace nothing)"  # noqa: E731
    # row 1: the engine's pick, on the most deals
    assert rows[0][0] == text(answer["best"]) and status.startswith(f"Best: {text(answer['best'])} ")
    deals = [int(n) for _, n in rows]
    assert deals[0] == max(deals) == answer["best"]["visits"] > 1000
    # no row on fewer than a tenth of the pick's deals above a row on more
    for i, n in enumerate(deals):
        if n < CARRIED_SHARE * deals[0]:
            assert all(later <= n for later in deals[i:]), deals
    # the rows are rank_answer's, the dropped ones summed up in one line
    assert [m for m, _ in rows] == [text(m) for m in ranking.rows[:8]]
    assert len(ranking.dropped) > 300
    assert summary.startswith(f"{len(ranking.dropped)} more dropped after ") and "Show all" in summary
    assert [m for m, _ in every] == [text(m) for m in ranking.ranked] and len(every) == len(answer["moves"])
    assert folded == rows
    assert "deals" in legend and "whole game" in legend
