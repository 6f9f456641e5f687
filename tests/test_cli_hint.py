"""`tacocat hint`: views built from flags or JSON, bad input as one line,
and the ranked output of the real engine."""

import json

import pytest
from cli_output import output_of
from helpers import one_line_error
from helpers import run_cli as run
from positions import REPLACE_FLAGS

from tacocat.cli.terminal import build_view, parse_board, view_from_json
from tacocat.rules.board import Board
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD

ISSUE_EXAMPLE = [
    "hint",
    "--hand",
    "2 5 7 9 11 12",
    "--seen",
    "3 3 10",
    "--opponent",
    "5",
    "--table",
    "8",
    "--attacker",
    "1",
]


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--hand", "2 13"], ["R1", "rank 13 does not exist", "ranks run from 1 to 12"]),
        (["--hand", "2 five"], ["'five' is not a rank", 'e.g. "2 5 7 12"']),
        (["--hand", "12 12 12"], ["R1", "your hand holds 3 cards of rank 12 but the deck has only 2"]),
        (["--hand", "12 5", "--seen", "12 12"], ["R1", "is a seen 12 also in your hand?"]),
        (["--hand", "5 9", "--table", "8", "--attacker", "0"], ["R12", "player 1 is to answer"]),
        (
            ["--hand", "5 9", "--opponent", "7", "--table", "8"],
            ["R10", "--opponent 7", "give --opponent 1, or leave it out"],
        ),
        (["--hand", "2 5 7", "--phase", "replace", "--board", "cat=1 covered=2,3"], ["R7", "give --cap N"]),
        (["--hand", "2 5 7", "--board", "cat=9"], ["R2", "cat on space 9"]),
        (["--hand", "2 5 7", "--board", "middle"], ["R2", 'expected "cat=N covered=A,B"']),
        (["--hand", "2 5 7", "--phase", "duel", "--table", "4"], ["R10", "only in the play phase"]),
        (["--seen", "3"], ["give your hand", '--hand "2 5 7 9 11 12"']),
        (["--hand", "5 9", "--attacker", "1"], ["player 1 attacks now", "give it with --table"]),
        (["--view", "/no/such/file.json"], ["cannot read view", "No such file"]),
        (["--view", "-", "--hand", "2"], ["--view gives the whole position; drop --hand"]),
        (["--hand", "2 5", "--rules", "/no/rules.toml"], ["cannot read ruleset file"]),
        (
            ["--hand", "2 5", "--opponent", "x"],
            ["'--opponent'", "'x' is not a valid integer", "see tacocat hint --help"],
        ),
        (["--hand"], ["'--hand' requires an argument", "see tacocat hint --help"]),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(args, fragments):
    one_line_error(run(["hint"] + args, stdin=""), *fragments)


@pytest.mark.parametrize(
    "stdin, fragments",
    [
        ("{oops", ["view stdin is not valid JSON", "expected a JSON object"]),
        ("[1, 2]", ["a view must be a JSON object with keys player, hand"]),
        ('{"hand": [2, 5], "colour": 1}', ["unknown view key(s) ['colour']"]),
        ('{"seen": [2]}', ['view is missing "hand"']),
        ('{"hand": [2, 13]}', ["rank 13 does not exist"]),
        ('{"hand": [2, 5], "attacker": "one"}', ["'attacker' must be an integer"]),
    ],
)
def test_bad_json_view(stdin, fragments):
    one_line_error(run(["hint", "--view", "-"], stdin=stdin), *fragments)


def test_help_teaches_with_examples():
    text = output_of(run(["hint", "--help"]))
    assert 'tacocat hint --hand "2 5 7 9 11 12" --seen "3 3 10" --opponent 5 --table 8 --attacker 1' in text
    assert "--view" in text and "--method" in text


# ------------------------------------------------------------ view building
def test_view_from_flags_matches_the_game():
    notes = []
    view = build_view(hand=(2, 5, 7, 9, 11, 12), seen=(3, 3, 10), table=(8,), opponent=5, attacker=1, notes=notes)
    assert notes == []
    assert view.decision == "answer" and view.acting == (0,)
    assert view.draw_pile_size == 38 - 6 - 3 - 1 - 5
    assert [str(a) for a in view.legal_actions()] == [
        "answer 2 sacrifice",
        "answer 9 beat",
        "answer 11 beat",
        "answer 12 beat",
    ]


def test_lenient_opponent_count_before_the_attack():
    notes = []
    view = build_view(hand=(2, 5, 7, 9, 11, 12), seen=(3, 3, 10), table=(8,), opponent=6, attacker=1, notes=notes)
    assert view.opponent_hand_size == 5
    assert notes and "counting 5 in their hand now" in notes[0]


def test_lenient_note_goes_to_stderr_not_stdout():
    result = run(ISSUE_EXAMPLE[:6] + ["6"] + ISSUE_EXAMPLE[7:] + ["--iterations", "20", "--json"])
    assert "note: the opponent held 6 cards before attacking with 1; counting 5" in result.stderr
    assert "note:" not in result.stdout


def test_defaults_follow_the_rules():
    attack = build_view(hand=(3, 6, 6, 11), seen=(1, 2, 9, 12))
    assert attack.decision == "attack" and attack.attacker == 0 and attack.opponent_hand_size == 4
    duel = build_view(hand=(2, 4, 6, 8, 9, 12, 12), phase="duel")
    assert duel.decision == "duel" and duel.opponent_hand_size == 7 and duel.draw_pile_size == 24
    second = build_view(
        hand=(1, 3, 4, 4, 8, 10, 11, 12, 12), seen=(5, 9), phase="replace", cap=2, board=parse_board("cat=2 covered=3")
    )
    assert second.decision == "replace" and second.replace_cap == 2 and second.first_replacer == "p1"
    assert max(len(a.cards) for a in second.legal_actions()) == 2


def test_board_notation():
    assert parse_board("cat=3 covered=2,4") == Board(3, frozenset({2, 4}))
    assert parse_board(None, 1, "2 3") == Board(1, frozenset({2, 3}))
    assert parse_board(None) == Board()


def test_json_view_short_and_full_forms_agree():
    short = {"player": 1, "hand": [4, 9], "seen": [], "opponent_hand_size": 1, "attacker": 0, "table": [7]}
    view = view_from_json(short)
    assert view.player == 1 and view.decision == "answer"
    again = view_from_json(json.loads(json.dumps(view.to_dict())))
    assert again.to_dict() == view.to_dict()
    state = GameState.new(seed=4)
    assert view_from_json(state.view(0).to_dict()).to_dict() == state.view(0).to_dict()


# ------------------------------------------------------------- the engine
def test_issue_example_ranks_every_answer():
    out = output_of(run(ISSUE_EXAMPLE + ["--iterations", "200", "--seed", "1"]))
    assert "you: answer (play phase, cat on space 3); hand 2 5 7 9 11 12; the opponent holds 5" in out
    assert "attack on the table: 8; seen: 3 3 10" in out
    assert "method: PIMC over 200 sampled deals, each solved with every card known; 95% margin" in out
    assert "win   draw   loss    value    ±95%  game win" in out
    assert "value: expected game equity" in out
    for move in ("answer 2 sacrifice", "answer 9 beat", "answer 11 beat", "answer 12 beat"):
        assert move in out
    assert "best: answer" in out


def test_json_output_is_the_hint_result():
    data = json.loads(output_of(run(ISSUE_EXAMPLE + ["--iterations", "200", "--seed", "1", "--json"])))
    assert data["decision"] == "answer"
    assert data["method"] in ("exact", "pimc", "ismcts")
    moves = data["moves"]
    assert {(tuple(m["cards"]), m["beats"]) for m in moves} == {
        ((2,), False),
        ((9,), True),
        ((11,), True),
        ((12,), True),
    }
    for m in moves:
        assert abs(m["win"] + m["draw"] + m["loss"] - 1) < 1e-6
    assert data["best"]["cards"] == moves[0]["cards"]
    values = [m["value"] for m in moves]
    assert values == sorted(values, reverse=True)
    # the same seed and budget give the same answer
    again = output_of(run(ISSUE_EXAMPLE + ["--iterations", "200", "--seed", "1", "--json"]))
    assert json.loads(again)["moves"] == moves


def test_round_score_values_win_minus_loss():
    data = json.loads(output_of(run(ISSUE_EXAMPLE + ["--iterations", "100", "--score", "round", "--json"])))
    assert data["utilities"] == [1.0, 0.0, -1.0]
    for m in data["moves"]:
        assert m["value"] == pytest.approx(m["win"] - m["loss"])
    text = output_of(run(ISSUE_EXAMPLE + ["--iterations", "100", "--score", "round"]))
    assert "value: round won +1, drawn 0, lost -1" in text


def test_ismcts_reports_iterations():
    assert "method: ISMCTS with 300 iterations" in output_of(
        run(ISSUE_EXAMPLE + ["--method", "ismcts", "--iterations", "300"])
    )


def test_small_endgame_is_exact():
    # one card unseen: I hold 4 9 and answer a 7, the opponent's last card
    # is the one 12 not yet seen
    seen = list(STANDARD.deck_cards())
    for card in (4, 9, 7, 12):
        seen.remove(card)
    view = json.dumps({"player": 0, "hand": [4, 9], "seen": seen, "opponent_hand_size": 1, "attacker": 1, "table": [7]})
    data = json.loads(output_of(run(["hint", "--view", "-", "--json", "--method", "exact"], stdin=view)))
    assert data["exact"] is True
    # beating with 9 leaves 4 < 12, sacrificing 4 leaves 9 < 12: both win
    assert {(tuple(m["cards"]), m["beats"]) for m in data["moves"]} == {((4,), False), ((9,), True)}
    assert all(m["win"] == pytest.approx(1.0) for m in data["moves"])
    text = output_of(run(["hint", "--view", "-", "--method", "exact"], stdin=view))
    assert "method: exact enumeration" in text and "double-dummy average" in text
    # auto: an endgame this small is solved as the hidden-hand equilibrium, and says so (issue 11)
    auto = json.loads(output_of(run(["hint", "--view", "-", "--json"], stdin=view)))
    assert auto["method"] == "equilibrium" and auto["exploitability"] <= 1e-3
    text = output_of(run(["hint", "--view", "-"], stdin=view))
    assert "method: equilibrium of the endgame with hidden hands" in text


def test_other_phases():
    data = json.loads(
        output_of(run(["hint", "--phase", "duel", "--hand", "2 4 6 8 9 12 12", "--iterations", "30", "--json"]))
    )
    assert data["decision"] == "duel"
    assert {m["cards"][0] for m in data["moves"]} == {2, 4, 6, 8, 9, 12}
    assert abs(sum(m["probability"] for m in data["mixed"]) - 1) < 1e-6
    text = output_of(run(["hint", "--phase", "duel", "--hand", "2 4 6 8 9 12 12", "--iterations", "30"]))
    assert "mixed strategy (a simultaneous choice: play at random with these odds):" in text
    data = json.loads(
        output_of(run(["hint", *REPLACE_FLAGS, "--cap", "1", "--seen", "5", "--iterations", "10", "--json"]))
    )
    assert data["decision"] == "replace"
    assert all(len(m["cards"]) <= 1 for m in data["moves"])


def test_the_asking_player_is_you_in_either_seat():
    out = output_of(
        run(["hint", "--player", "1", "--hand", "4 9", "--opponent", "1", "--attacker", "0", "--table", "7"])
    )
    assert out.splitlines()[0].startswith("you: answer")
