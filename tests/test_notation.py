"""One text form per value type: `Action` and `Board` print the plain
notation `tacocat play` accepts (README "Notation") and read it back."""

import dataclasses
import itertools

import pytest
from helpers import random_steps
from hypothesis import given, settings
from hypothesis import strategies as st

from tacocat.errors import NotationError, PositionError
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.ruleset import STANDARD, Ruleset

# Four of each rank: the most ties between an answer that beats and one that
# sacrifices, and sets of four.
FOURS = Ruleset.from_dict({"name": "fours", "deck": [4] * 12})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 60), fours=st.booleans())
def test_every_legal_action_prints_what_parses_back(seed, steps, fours):
    state = random_steps(seed, steps, FOURS if fours else STANDARD)
    assert Board.parse(str(state.board)) == state.board
    for player in state.acting_players():
        legal = state.legal_actions(player)
        assert legal
        for a in legal:
            text = str(a)
            assert Action.parse(text) == a, text
            assert Action.parse(text, state.decision(player), legal) == a, text
            if a.kind == "answer":
                # Without beat/sacrifice the legal list settles it when the
                # cards allow one result only.
                bare = f"answer {' '.join(map(str, a.cards))}"
                if sum(b.cards == a.cards for b in legal) == 1:
                    assert Action.parse(bare, legal=legal) == a
                else:
                    with pytest.raises(NotationError, match="R13"):
                        Action.parse(bare, legal=legal)


def test_every_board_prints_what_parses_back():
    # every board there is (the cat on a space or a goal, any spaces covered
    # but the cat's): a few hundred, cheaper than sampling them
    boards = [
        Board(cat, frozenset(covered))
        for cat in range(-1, 8)
        for size in range(8)
        for covered in itertools.combinations(range(7), size)
        if cat not in covered
    ]
    assert len(boards) == 704
    for board in boards:
        assert Board.parse(str(board)) == board, board


def test_action_text_forms():
    assert str(Action("answer", (7,), True)) == "answer 7 beat"
    assert str(Action("answer", (2, 9), False)) == "answer 2 9 sacrifice"
    assert str(Action("replace", ())) == "replace none"
    assert str(Action("replace", (3, 2))) == "replace 2 3"
    assert str(Action("attack", (4, 5, 6))) == "attack 4 5 6"
    assert str(Action("duel", (9,))) == "duel 9"


def test_parse_the_documented_forms():
    assert Action.parse("8 8", "attack") == Action("attack", (8, 8))
    assert Action.parse("attack 4,5,6") == Action("attack", (4, 5, 6))
    assert Action.parse("none", "replace") == Action("replace", ())
    assert Action.parse("replace 3 2") == Action("replace", (2, 3))
    assert Action.parse("answer 12 9") == Action("answer", (9, 12))
    assert Action.parse("6 10 sacrifice", "answer") == Action("answer", (6, 10), False)
    assert Action.parse("answer 7 (beats)") == Action("answer", (7,), True)  # the old printed form
    both = [Action("answer", (6, 10), True), Action("answer", (6, 10), False)]
    with pytest.raises(NotationError, match="say which"):
        Action.parse("6 10", "answer", both)
    # the legal list also names the decision
    assert Action.parse("9", legal=[Action("duel", (9,))]) == Action("duel", (9,))
    with pytest.raises(NotationError, match="rank 13 does not exist"):
        Action.parse("13", "duel")
    with pytest.raises(NotationError, match="an attack needs cards"):
        Action.parse("none", "attack")
    with pytest.raises(NotationError, match="what kind of move"):
        Action.parse("4 5 6")
    with pytest.raises(NotationError, match="only qualify an answer"):
        Action.parse("attack 4 beat")


def test_board_forms_and_errors():
    assert Board.parse("cat=3 covered=2,4") == Board(3, frozenset({2, 4}))
    assert Board.parse("covered=2 4") == Board(3, frozenset({2, 4}))
    assert Board.parse(None, cat=1, covered="2 3") == Board(1, frozenset({2, 3}))
    assert Board.parse("cat=5", cat=1) == Board(5)
    assert Board.parse("cat=3 covered=none") == Board.parse("") == Board()
    assert str(Board(2, frozenset({3, 1}))) == "cat=2 covered=1,3"
    with pytest.raises(NotationError, match="not understood"):
        Board.parse("kat=3")
    with pytest.raises(NotationError, match="R4"):
        Board.parse("cat=3 covered=x")
    with pytest.raises(PositionError, match="R4"):
        Board.parse("cat=3 covered=3")


def test_a_view_is_immutable():
    view = random_steps(3, 10).view(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hand = (1, 2)
    assert isinstance(view.acting, tuple) and isinstance(view.history, tuple) and isinstance(view.rounds, tuple)
