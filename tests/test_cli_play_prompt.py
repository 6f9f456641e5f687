"""`tacocat play` at the prompt: each refusal names its real reason and rule
once (and lists the legal moves once), the prompt commands (undo, history,
score, rules, hint --top/--time), drawn cards, score and game-over lines."""

import builtins
import json

import pytest
from cli_output import output_of
from helpers import PLAY_SCRIPT, run_cli

from tacocat.cli.play_cmd import Session, parse_hint_args, rounds_needed
from tacocat.errors import IllegalMoveError, NotationError
from tacocat.players.bots import make_bot
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.game import DUEL, PLAY, REPLACE, GameRecord, GameState


def position(phase, hands, table=(), attacker=None, replace_cap=None, first_replacer=None):
    """A game state at a chosen decision (cards need not add up to the deck:
    only the legality of the next move is looked at)."""
    state = GameState.new(seed=1)
    state.phase, state.hands, state.table, state.attacker = (
        phase,
        [tuple(hands[0]), tuple(hands[1])],
        tuple(table),
        attacker,
    )
    if first_replacer is not None:
        state.first_replacer = first_replacer
        state.replaced = [first_replacer == "p0", first_replacer == "p1"]
    state.replace_cap = replace_cap
    return state


def prompt(state, lines, monkeypatch, capsys, seat=0):
    """Run a session on `state` with typed `lines` (then the end of input)."""
    feed = iter(lines)

    def fake_input():
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)
    Session(state, seat, make_bot("heuristic"), "heuristic", 1, None, None, {}, color=False).run()
    return capsys.readouterr().out


# The arguments of position() for the decisions more than one test asks at
AT_THE_DUEL = (DUEL, [(3, 9, 11), (4, 5, 6)])
ANSWERING_A_9 = (PLAY, [(2, 5, 10, 12), (3, 4, 6)], (9,), 1)  # player 1 attacked with a 9

# id: (the arguments of position(), the move typed, the rule, the reason):
# every refusal reason the issue lists, and the others
REFUSALS = {
    "answer-count-against-a-single": (
        (PLAY, [(2, 8, 9), (3, 5)], (7,), 1),  # against a 12 the 2 is the only answer: played, not asked
        "answer 2 8",
        "R12",
        "answer 2 8 is 2 cards, but the attack 7 is a single card: each attack card takes exactly one answer card",
    ),
    "answer-count-against-a-set": (
        (PLAY, [(2, 8, 9, 10), (3, 5)], (8, 8), 1),
        "answer 9",
        "R12",
        "answer 9 is 1 card, but the attack 8 8 is 2 cards",
    ),
    "not-the-lowest": (
        ANSWERING_A_9,
        "answer 5",
        "R12",
        "answer 5 does not beat 9, so it would be a sacrifice, and a sacrifice must be your lowest card (2)",
    ),
    "lowest-kept-multi": (
        (PLAY, [(3, 4, 11, 12), (1, 6)], (8, 8), 1),
        "answer 4 11",
        "R12",
        "a sacrifice must be your lowest card (3), which this answer keeps",
    ),
    "beat-impossible": (
        ANSWERING_A_9,
        "answer 2 beat",
        "R13",
        "answer 2 cannot beat every card of 9 in any order",
    ),
    "sacrifice-impossible": (
        (PLAY, [(10, 12), (3,)], (9,), 1),
        "answer 10 sacrifice",
        "R12",
        "answer 10 beats every card of 9 whatever the order: a sacrifice must be a card that does not beat",
    ),
    "last-card": (
        (PLAY, [(4, 5, 6), (1, 2, 3)], (), 0),
        "attack 4 5 6",
        "R11",
        "attack 4 5 6 uses 3 of your 3 cards: an attack keeps one card back, so at most 2",
    ),
    "two-ranks": (
        (PLAY, [(4, 5, 9, 11), (1, 2, 3, 7)], (), 0),
        "4 5",
        "R10",
        "two cards of different ranks are neither a set (one rank) nor a sequence",
    ),
    "not-a-shape": (
        (PLAY, [(4, 4, 5, 6, 9), (1, 2, 3, 7, 8)], (), 0),
        "4 4 5 6",
        "R10",
        "attack 4 4 5 6 is neither a single, a set (cards of one rank) nor a sequence",
    ),
    "replace-cap": (
        (REPLACE, [(1, 2, 3, 4), (5, 6, 7, 8)], (), None, 1, "p1"),
        "replace 1 2",
        "R7",
        "the first replacer discarded 1, so you may discard at most 1, not 2",
    ),
    "duel-two-cards": (
        AT_THE_DUEL,
        "duel 3 9",
        "R9",
        "a duel is exactly one card, not 2",
    ),
    "not-held": (
        AT_THE_DUEL,
        "12",
        "R9",
        "duel 12: player 0 does not hold these cards",
    ),
    "wrong-kind": (
        AT_THE_DUEL,
        "attack 9",
        "R9",
        "player 0 must duel now, not attack",
    ),
}


@pytest.mark.parametrize("state_args, typed, rule, reason", list(REFUSALS.values()), ids=list(REFUSALS))
def test_each_refusal_names_its_real_reason_once(state_args, typed, rule, reason, monkeypatch, capsys):
    state = position(*state_args)
    out = prompt(state, [typed], monkeypatch, capsys)
    lines = out.splitlines()
    refusal = [ln for ln in lines if ln.startswith("not legal")]
    assert len(refusal) == 1, out
    assert refusal[0].startswith(f"not legal ({rule}): ") and reason in refusal[0], refusal[0]
    assert refusal[0].count(rule) == 1 and "legal:" not in refusal[0]
    # the legal list follows once (replace: the expected form)
    after = lines[lines.index(refusal[0]) + 1]
    assert after.startswith("legal: ") or after.startswith("expected ")
    assert sum(1 for ln in lines if ln.startswith("legal: ")) <= 1
    if "lowest card" not in reason:  # the old catch-all reason is gone where it is not the reason
        assert "must be the lowest card" not in out


def test_the_engine_refuses_with_the_same_reason_and_rule():
    state = position(PLAY, [(2, 8, 9), (3, 5)], (12,), 1)
    with pytest.raises(IllegalMoveError) as err:
        state.apply(0, Action("answer", (2, 8)))
    assert err.value.rule == "R12" and "each attack card takes exactly one answer card" in err.value.message


def test_a_word_that_is_not_a_command_is_named(monkeypatch, capsys):
    out = prompt(position(*AT_THE_DUEL), ["histroy"], monkeypatch, capsys)
    assert "'histroy' is neither a move nor a command" in out and "is not a rank" not in out


def test_history_score_rules_moves_at_the_prompt():
    script = "score\nrules R12\nrules\nrules R99\nnone\nhistory\nmoves\nquit\n"
    out = run_cli(["play", "--opponent", "heuristic", "--seed", "1"], script).stdout
    assert (
        "score: you 0 rounds won, the engine 0 rounds won; you need 4 more rounds; the engine needs 4 more rounds"
        in out
    )
    assert "R12 Answer\nThe defender answers each attack card with exactly one card" in out
    assert "  R20  Consistent worlds" in out  # the list of rules
    assert "not understood: there is no rule R99; the rules are R1 to R20" in out
    assert (
        "round 1:\n  round dealt: the cat on space 3, 7 cards each\n  you keep the whole hand\n"
        "  the engine keeps the whole hand" in out
    )
    assert "legal: duel " in out
    assert "is not a rank" not in out


def test_hint_with_top_and_time_at_the_prompt(monkeypatch):
    """--time reaches the engine (a budget too small to rank well: only that
    it answers is checked here; test_cli_play ranks with the count budget)."""
    from tacocat.cli import hint_cmd

    real_run_hint, asked = hint_cmd.run_hint, []

    def run_hint(view, **search):
        asked.append(search["time_ms"])
        return real_run_hint(view, **search)

    monkeypatch.setattr(hint_cmd, "run_hint", run_hint)
    out = output_of(
        run_cli(["play", "--opponent", "heuristic", "--seed", "1"], "hint --top 1 --time 5\nhint --top x\nquit\n")
    )
    assert asked == [5] and out.count("best: ") == 1
    assert "not understood: hint: '--top x' not understood; expected hint [--top N] [--time MS] [--all]" in out
    assert parse_hint_args(["--time", "50"]) == (8, 50, False)
    with pytest.raises(NotationError):
        parse_hint_args(["--top", "0"])


def test_undo_goes_back_to_your_previous_decision_and_is_recorded(tmp_path):
    path = tmp_path / "g.json"
    # seed 1: keep the hand, duel 11, then take the duel back and duel 9 instead
    out = run_cli(
        ["play", "--opponent", "heuristic", "--seed", "1", "--save", str(path)], "undo\nnone\n11\nundo\n9\nquit\n"
    ).stdout
    assert "nothing to undo: you have not moved yet this game" in out
    assert "undone: your duel 11 and the engine's 2 moves after it; back to round 1, your duel" in out
    data = json.loads(path.read_text())
    assert data["undos"] == [
        {
            "at": 2,
            "taken_back": [
                {"player": 0, "kind": "duel", "cards": [11]},
                {"player": 1, "kind": "duel", "cards": [12]},
                {"player": 1, "kind": "attack", "cards": [9]},
            ],
        }
    ]
    assert data["actions"][2] == {"player": 0, "kind": "duel", "cards": [9]}
    state = GameRecord.from_dict(data).replay()  # the record replays as it stands
    assert state.actions == data["actions"]
    # the line taken back replays too: the log says exactly what was undone
    GameRecord.from_dict(dict(data, actions=data["actions"][:2] + data["undos"][0]["taken_back"])).replay()
    resumed = run_cli(["play", "--resume", str(path)], "quit\n")
    assert resumed.exit_code == 0
    assert json.loads(path.read_text())["undos"] == data["undos"]  # kept on resume


def test_history_names_the_cards_you_drew():
    out = run_cli(
        ["play", "--opponent", "pimc", "--strength", "5", "--seed", "1"], "replace 2 4\nhistory\nquit\n"
    ).stdout
    assert out.count("you discard 2 4 and draw 8 9") == 2  # as it happened, and in the history


def test_drawn_cards_score_lines_and_the_game_over_line(tmp_path):
    out = run_cli(["play", "--opponent", "heuristic", "--seed", "3"], PLAY_SCRIPT).stdout
    assert "you discard 9 and draw 12" in out  # round 2 of seed 3: the card drawn is named
    assert "the engine needs 3 more rounds; you need 4 more rounds" in out
    # the last trick is not told as "attacks next" right before the showdown
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("showdown: ") and lines[i - 1].startswith(("you answer", "the engine answers")):
            assert "attack" not in lines[i - 1].split(":", 1)[1] and "showdown" in lines[i - 1]
    assert "game over: the engine wins, 4 rounds to 1 (5 rounds played)" in out
    assert out.count("score: ") == 5  # at the start, then after each round but the last


def test_a_fresh_seed_by_default_printed_for_replay():
    first = run_cli(["play", "--opponent", "heuristic"], "quit\n").stdout
    second = run_cli(["play", "--opponent", "heuristic"], "quit\n").stdout
    seeds = [int(o.split("; seed ")[1].split(" ")[0]) for o in (first, second)]
    assert f"(play these deals again with --seed {seeds[0]})" in first
    assert seeds[0] != seeds[1]  # a one-in-a-million clash would fail here
    again = run_cli(["play", "--opponent", "heuristic", "--seed", str(seeds[0])], "quit\n").stdout
    hand = lambda o: o[o.index("your hand: ") :].splitlines()[0]  # noqa: E731
    assert hand(again) == hand(first)


def test_rounds_needed_follows_the_tiles():
    assert rounds_needed(Board(), 0) == 4 and rounds_needed(Board(), 1) == 4
    board = Board(cat=4, covered=frozenset({3}))
    assert rounds_needed(board, 1) == 3 and rounds_needed(board, 0) == 4  # 2, 1, 0 and the goal
    assert rounds_needed(Board(cat=1, covered=frozenset({2, 3, 4})), 1) == 3


def test_colour_only_where_wanted(monkeypatch, capsys):
    state = position(*AT_THE_DUEL)
    feed = iter(["12"])
    monkeypatch.setattr(builtins, "input", lambda: next(feed))
    session = Session(state, 0, make_bot("heuristic"), "heuristic", 1, None, None, {}, color=True)
    with pytest.raises(StopIteration):
        session.human_turn()
    assert "\x1b[" in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert Session(state, 0, make_bot("heuristic"), "heuristic", 1, None, None, {}).color is False
