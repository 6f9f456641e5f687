"""A drawn game is a draw everywhere (RULES §8 `max_deals`): a game that
reaches its ruleset's `max_deals` deals without a winner is over with no
winner, and every door scores it 0 for both players and counts it as a
draw — selfplay (function and CLI), the duplicate match and its tables
(in this process and in local worker processes), the OpenSpiel games,
`analyze`, the Python client over JSON Lines and the web board's words.

The rulesets: ONE_DEAL stops after the first deal, and on any board the cat
(on space 3, R6) needs four won rounds to reach a goal (R18-R19), so every
game is drawn; FOUR_DEALS lets the stronger bot win some games and draws
the others, so the tables hold wins and draws side by side."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import one_line_error, run_cli, tacocat_argv

from tacocat.players import stats
from tacocat.players.analysis import analyze
from tacocat.players.bots import make_bot, play_game, selfplay
from tacocat.players.match import play_whole_game, run_match
from tacocat.rules.ruleset import Ruleset

ONE_DEAL = {"name": "one deal", "board": [4, 4, 4, 4, 4, 4, 4], "max_deals": 1}
"""Small hands (4 cards on every space) keep the searches of `analyze` quick."""
FOUR_DEALS = {"name": "four deals", "max_deals": 4}
"""The standard board: heuristic against random wins some games in four
deals (four won rounds in a row) and draws the rest."""
BOARD_JS = Path(__file__).resolve().parents[1] / "solver" / "protocol" / "web" / "board.js"


@pytest.fixture(scope="module")
def one_deal_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "one_deal.json"
    path.write_text(json.dumps(ONE_DEAL))
    return path


@pytest.fixture(scope="module")
def four_deals_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "four_deals.json"
    path.write_text(json.dumps(FOUR_DEALS))
    return path


def bots():
    return make_bot("heuristic"), make_bot("random")


def test_the_one_deal_ruleset_ends_every_game_drawn():
    for seed in range(5):
        state = play_game(bots(), seed, Ruleset.from_dict(ONE_DEAL))
        assert state.over and state.winner is None and state.deals == 1 and 0 <= state.board.cat <= 6


# ------------------------------------------------------------------ selfplay


def test_selfplay_counts_drawn_games():
    result = selfplay(bots(), 6, seed=0, rules=Ruleset.from_dict(ONE_DEAL))
    assert (result["p0_wins"], result["draws"], result["p0_losses"]) == (0, 6, 0)
    assert result["rounds"] == 6
    mixed = selfplay(bots(), 20, seed=0, rules=Ruleset.from_dict(FOUR_DEALS))
    assert mixed["p0_wins"] > 0 and mixed["draws"] > 0
    assert mixed["p0_wins"] + mixed["draws"] + mixed["p0_losses"] == 20


def test_selfplay_cli_counts_drawn_games(one_deal_file):
    result = run_cli(["selfplay", "--rules", str(one_deal_file), "--games", "4", "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["p0_wins"], out["draws"], out["p0_losses"]) == (0, 4, 0)
    text = run_cli(["selfplay", "--rules", str(one_deal_file), "--games", "4", "--seed", "2"])
    assert text.exit_code == 0, text.output
    assert "p0 wins 0  draws 4  losses 0" in text.stdout
    assert "4 games drawn: max_deals (1) deals without a winner (RULES §8)" in text.stdout


def test_the_installed_selfplay_counts_drawn_games(one_deal_file):
    r = subprocess.run(
        [*tacocat_argv(), "selfplay", "--rules", str(one_deal_file), "--games", "3", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["draws"] == 3 and "Traceback" not in r.stderr


# ------------------------------------------------------------ match, arena


def test_a_drawn_game_scores_0_for_both_seats():
    rules = Ruleset.from_dict(ONE_DEAL)
    a, b = bots()
    assert play_whole_game((a, b), "0/0", rules) == 0
    assert play_whole_game((b, a), "0/0", rules) == 0


def test_a_match_of_drawn_games_is_even():
    r = run_match("heuristic", "random", deals=5, seed=1, mode="game", rules=Ruleset.from_dict(ONE_DEAL))
    assert (r.wins, r.draws, r.losses) == (0, 10, 0)
    assert r.score == 0 and r.points == 0.5 and r.deal_scores == [0.0] * 5
    assert r.pairs == [0, 0, 5, 0, 0]  # DD: a pair score of 1/2 each deal


def test_a_match_counts_wins_and_draws_side_by_side():
    r = run_match("heuristic", "random", deals=12, seed=3, mode="game", rules=Ruleset.from_dict(FOUR_DEALS))
    results = [x for d in sorted(r.outcomes) for x in r.outcomes[d]]
    assert set(results) <= {-1, 0, 1} and 0 in results and 1 in results
    assert (r.wins, r.draws, r.losses) == (results.count(1), results.count(0), results.count(-1))
    assert r.score == pytest.approx(sum(results) / len(results))
    # a deal with one drawn game and one won game is a pair score of 3/4
    assert r.pairs == stats.pair_counts(r.deal_scores, "game") and sum(r.pairs) == 12
    assert r.pairs[3] == sum(1 for d in r.outcomes.values() if sorted(d) == [0, 1])
    assert r.pairs[3] > 0
    # the SPRT takes the draw-only cells once they are seen
    values, _ = stats.model_cells(r.pairs, "game")
    assert 0.75 in values


def test_the_worker_processes_score_drawn_games_the_same():
    """The cluster path (`run_tasks` on local worker processes) plays the
    same `_deal`, so its numbers are those of this process."""
    rules = Ruleset.from_dict(FOUR_DEALS)
    here = run_match("heuristic", "random", deals=8, seed=3, mode="game", rules=rules)
    there = run_match("heuristic", "random", deals=8, seed=3, mode="game", rules=rules, workers=2)
    assert there.outcomes == here.outcomes
    assert (there.wins, there.draws, there.losses) == (here.wins, here.draws, here.losses)
    assert here.draws > 0


def test_the_arena_table_counts_drawn_games(one_deal_file):
    result = run_cli(["arena", "heuristic", "random", "--rules", str(one_deal_file), "--deals", "3"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if line.strip().startswith("heuristic"))
    assert row.split()[2:6] == ["3", "0", "6", "0"]  # deals, A won, drawn, lost
    assert "drawn: games that reached max_deals (1) deals without a winner (RULES §8)" in result.stdout
    data = json.loads(
        run_cli(["arena", "heuristic", "random", "--rules", str(one_deal_file), "--deals", "3", "--json"]).stdout
    )
    assert (data[0]["wins"], data[0]["draws"], data[0]["losses"], data[0]["score"]) == (0, 6, 0, 0.0)


def test_the_arena_rules_are_part_of_a_resumed_run(one_deal_file, tmp_path):
    out = tmp_path / "run.json"
    assert (
        run_cli(
            ["arena", "heuristic", "random", "--rules", str(one_deal_file), "--deals", "2", "--out", str(out)]
        ).exit_code
        == 0
    )
    assert json.loads(out.read_text())["rules"]["max_deals"] == 1
    one_line_error(run_cli(["arena", "heuristic", "random", "--deals", "2", "--out", str(out)]), "rules")
    one_line_error(
        run_cli(["arena", "heuristic", "random", "--mode", "play", "--rules", str(one_deal_file)]),
        "--rules applies to --mode game",
    )


# ---------------------------------------------------------------- OpenSpiel


def _play_out(game, seed: int):
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(5000):
        if state.is_terminal():
            return state
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in (0, 1)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("the OpenSpiel game did not end")


@pytest.mark.parametrize("name", ["tacocat", "tacocat_turn"])
def test_openspiel_scores_a_drawn_game_0_to_both(name, one_deal_file):
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel not installed (pip install 'tacocat[openspiel]')")
    import tacocat.openspiel  # noqa: F401 - registers the games

    for params in (
        {"ruleset": str(one_deal_file), "seed": 4},  # the ruleset's own max_deals
        {"ruleset": str(one_deal_file)},  # dealt through chance nodes
        {"max_deals": 1, "seed": 4},
    ):  # the game parameter
        game = pyspiel.load_game(name, params)
        for seed in range(3):
            state = _play_out(game, seed)
            assert state.returns() == [0.0, 0.0], (params, seed, str(state))


# ------------------------------------------------------------------ analyze


@pytest.fixture(scope="module")
def drawn_record(tmp_path_factory) -> Path:
    state = play_game(bots(), 5, Ruleset.from_dict(ONE_DEAL))
    assert state.over and state.winner is None
    path = tmp_path_factory.mktemp("analyze") / "drawn.json"
    path.write_text(json.dumps(state.record().to_dict()))
    return path


def test_analyze_reports_a_drawn_game(drawn_record):
    result = analyze(json.loads(drawn_record.read_text()), players=(0,), iterations=8)
    assert result.over and result.winner is None and result.drawn
    assert result.outcome == "drawn game (max_deals reached)"
    data = result.to_dict()
    assert data["drawn"] is True and data["over"] is True and data["winner"] is None
    assert result.curve[-1].kind == "end" and result.curve[-1].equity == 0.0


def test_the_analyze_command_says_drawn(drawn_record):
    result = run_cli(["analyze", str(drawn_record), "--player", "0", "--iterations", "8"])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.endswith("1 round, drawn game (max_deals 1 reached, RULES §8)"), first
    assert "unfinished" not in result.stdout and "won by" not in result.stdout
    data = json.loads(run_cli(["analyze", str(drawn_record), "--player", "0", "--iterations", "8", "--json"]).stdout)
    assert data["drawn"] is True and data["winner"] is None


# ----------------------------------------------------------- Python client


def test_the_client_reads_a_drawn_game_over_json_lines():
    from tacocat.protocol.client import Engine

    with Engine.popen(command=[*tacocat_argv(), "engine"]) as engine:
        game = engine.new_game(seed=6, rules=ONE_DEAL)
        assert not game.over and not game.drawn  # a game in play is not drawn
        for _ in range(200):
            if game.over:
                break
            engine.move(game, game.acting[0], level=1)
        assert game.over and game.winner is None and game.drawn and game.status["winner"] is None
        assert game.status["deals"] == 1


# ---------------------------------------------------------------- web board


def _js_function(source: str, name: str) -> str:
    """The text of `function name(...) { ... }` in `source` (braces balanced)."""
    start = source.index(f"function {name}(")
    depth, i = 0, source.index("{", start)
    while True:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
        if depth == 0:
            return source[start:i]


def test_the_board_never_reads_a_drawn_game_as_a_win():
    source = BOARD_JS.read_text()
    # every place that names the end of a game goes through winnerOf/endOfGameText
    assert not re.search(r"cat < 0 \? 0 : 1", source)
    assert not re.search(r"winner === S\.seat \?", source)
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node to run board.js's end-of-game functions (apt-get install nodejs)")
    drawn = re.search(r'const DRAWN = "[^"]*";', source).group(0)
    # The other seat's names, as the board says them in a game against the engine.
    opponent = [re.search(rf"const {name} = .*;", source).group(0) for name in ("oppName", "oppWord")]
    script = "\n".join(
        [
            drawn,
            'const S = { mode: "engine" };',
            *opponent,
            _js_function(source, "winnerOf"),
            _js_function(source, "endOfGameText"),
            """
const forms = ["log", "prompt", "caption", "replay"];
console.log(JSON.stringify({
  winners: [-1, 0, 3, 6, 7].map((cat) => winnerOf({ cat, covered: [] })),
  drawn: forms.map((f) => endOfGameText(null, 0, f)),
  mine: forms.map((f) => endOfGameText(0, 0, f)),
  theirs: forms.map((f) => endOfGameText(1, 0, f)),
}));""",
        ]
    )
    out = json.loads(
        subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=30, check=True).stdout
    )
    assert out["winners"] == [0, None, None, None, 1]
    for text in out["drawn"]:
        assert "drawn game (max_deals reached)" in text
        assert not re.search(r"\bwins?\b|\bwon\b", text, re.I)
    assert out["mine"][:3] == [
        "You win the game!",
        "You won the game. Press M for a rematch or R to replay it.",
        "you win",
    ]
    assert out["theirs"][:3] == [
        "The engine wins the game.",
        "The engine won the game. Press M for a rematch or R to replay it.",
        "the engine wins",
    ]
    assert out["mine"][3] == "player 0 won" and out["theirs"][3] == "player 1 won"


@pytest.mark.slow
def test_the_board_shows_a_drawn_game_in_a_browser():
    """A one-deal game played to its end over HTTP, then opened on the web
    board (resumed from its saved seat): the caption and the prompt say drawn."""
    import os

    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright missing: pip install -e '.[test]'")
    chromium = os.environ.get("TACOCAT_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(chromium):
        pytest.skip(f"no Chromium at {chromium}: apt-get install chromium (README, Browser tests)")
    from servers import running_server
    from test_web_board import ARGS

    with running_server() as client:
        g = client.post("/v1/new_game", json={"seed": 6, "rules": ONE_DEAL}).json()["result"]
        seats, status = g["tokens"]["seats"], g
        for _ in range(200):
            if status["over"]:
                break
            p = status["acting"][0]
            moved = client.post("/v1/move", json={"game": g["game"], "player": p, "level": 1, "token": seats[p]})
            status = moved.json()["result"]["status"]
        assert status["over"] and status["winner"] is None
        saved = {"game": g["game"], "tokens": g["tokens"], "seat": 0, "opponent": "level:1", "seed": 6, "log": []}
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
            try:
                # bypass_csp: wait_for_function evaluates its string, which the board's policy refuses
                # (tests/test_web_board.py runs the board under its policy)
                page = browser.new_page(bypass_csp=True)
                errors: list = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.set_default_timeout(20_000)
                page.goto(f"{client.base_url}/?delay=0")
                page.evaluate("saved => localStorage.setItem('tacocat-board', JSON.stringify(saved))", saved)
                page.reload()
                page.wait_for_function("document.body.dataset.phase === 'over'")
                caption, prompt = page.text_content("#board-caption"), page.text_content("#prompt")
            finally:
                browser.close()
    assert caption == "Game over after 1 rounds: drawn game (max_deals reached).", caption
    assert "drawn game (max_deals reached)" in prompt and "won" not in prompt, prompt
    assert not errors, errors
