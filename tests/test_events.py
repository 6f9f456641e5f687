"""Typed events, phases and decisions (tacocat.rules.events), the
constructors other layers used to fake (`GameState.at_play_phase`,
`Board.rounds_to_win`) and `View` in its own module."""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Mapping

import pytest

from tacocat.rules import events, game, views
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD

EVENTS = [
    (events.DealEvent(9, 3), {"event": "deal", "hand_size": 9, "cat": 3}, "deal 9 cat 3"),
    (events.ReplaceEvent(1, (2, 5)), {"event": "replace", "player": 1, "cards": [2, 5]}, "p1 replaces [2 5]"),
    (events.DuelEvent((9, 4)), {"event": "duel", "cards": [9, 4]}, "duel 9:4"),
    (events.PlayEvent.attack(0, (4, 5, 6)), {"event": "attack", "player": 0, "cards": [4, 5, 6]}, "p0 attacks 4 5 6"),
    (
        events.PlayEvent.answer(1, (3,), False),
        {"event": "answer", "player": 1, "cards": [3], "beats": False},
        "p1 answers 3 sacrifice",
    ),
    (events.ShowdownEvent((2, 2), None), {"event": "showdown", "cards": [2, 2], "winner": None}, "showdown 2:2 drawn"),
    (events.ShowdownEvent((1, 7), 0), {"event": "showdown", "cards": [1, 7], "winner": 0}, "showdown 1:7 p0 wins"),
]


@pytest.mark.parametrize("event, wire, text", EVENTS, ids=[t for _, _, t in EVENTS])
def test_each_event_has_one_wire_form_and_one_text(event, wire, text):
    assert event.to_json() == wire and json.dumps(event.to_json()) == json.dumps(wire)
    assert type(event.to_json()["event"]) is str  # plain JSON, not the enum
    assert str(event) == text
    assert events.event_of(wire) == event and events.event_of(event) is event
    # Its readers read the fields: the wire form is to_json's alone.
    assert event != wire and not isinstance(event, Mapping)
    assert all(getattr(event, k) == (tuple(v) if isinstance(v, list) else v) for k, v in wire.items() if k != "event")
    assert copy.deepcopy(event) is event and pickle.loads(pickle.dumps(event)) == event
    assert hash(event) == hash(events.event_of(dict(wire)))


def test_events_of_different_kinds_or_fields_differ():
    assert events.PlayEvent.attack(0, (3,)) != events.PlayEvent.attack(1, (3,))
    assert events.PlayEvent.answer(0, (3,), True) != events.PlayEvent.answer(0, (3,), False)
    assert events.DuelEvent((3, 4)) != events.ShowdownEvent((3, 4), None)
    assert events.PlayEvent.attack(0, (3,)) != {"event": "attack", "player": 0, "cards": [4]}
    assert "beats" not in events.PlayEvent.attack(0, (3,)).to_json()
    assert "player" not in events.DuelEvent((1, 2)).to_json()


def test_phases_and_decisions_are_the_words_of_the_wire():
    assert [str(p) for p in events.Phase] == ["replace", "duel", "play", "over"]
    assert [f"{d}" for d in events.Decision] == ["replace", "duel", "attack", "answer"]
    assert (
        json.dumps({"phase": events.Phase.PLAY, "decision": events.Decision.ANSWER})
        == '{"phase": "play", "decision": "answer"}'
    )
    assert game.PLAY is events.Phase.PLAY and views.PLAY is events.Phase.PLAY


def test_a_game_writes_typed_events_and_reads_them_back():
    state = GameState.new(STANDARD, 7)
    rng = random.Random(7)
    while not state.rounds:
        for p in state.acting_players():
            state.apply(p, rng.choice(state.legal_actions(p)))
    assert isinstance(state.phase, events.Phase) and all(isinstance(e, events.Event) for e in state.history)
    assert isinstance(state.decision(state.acting_players()[0]), events.Decision)
    doc = json.loads(json.dumps(state.to_dict()))
    again = GameState.from_dict(doc)
    assert again.history == state.history and all(isinstance(e, events.Event) for e in again.history)
    view = state.view(0)
    assert view.play_history == tuple(e for e in view.history if isinstance(e, events.PlayEvent))
    assert views.View.from_dict(json.loads(json.dumps(view.to_dict()))) == view


def test_view_lives_in_its_own_module():
    assert game.View is views.View and views.View.__module__ == "tacocat.rules.views"


PLAYED = (events.PlayEvent.attack(0, (9,)), events.PlayEvent.answer(1, (3,), False), events.PlayEvent.attack(0, (5, 5)))
"""A round's plays so far: player 0 attacked a 9, player 1 sacrificed a 3, 5 5 is on the table."""


def test_at_play_phase_builds_a_consistent_state():
    state = GameState.at_play_phase([(2, 7, 11, 12), (1, 4, 6, 8, 10, 12)], 0, events=PLAYED)
    state.check()  # every card of the deck in one place (R1), attacker + table = defender (R10)
    assert state.phase == events.Phase.PLAY and state.table == (5, 5) and state.attacker == 0
    assert state.history[0] == events.DealEvent(7, Board().cat) and state.history[1:] == list(PLAYED)
    assert sorted(state.discard) == [3, 9] and state.decision(1) == events.Decision.ANSWER
    state.apply(1, Action("answer", (6, 8), True))
    assert state.attacker == 1 and state.table == ()
    over = GameState.at_play_phase([(2,), (4,)], 1, ended=True)
    assert over.over and over.attacker is None


def test_rounds_to_win_counts_the_uncovered_spaces_and_the_goal():
    assert Board().rounds_to_win(0) == 4 and Board().rounds_to_win(1) == 4
    assert Board(cat=1, covered=frozenset({2, 3, 4})).rounds_to_win(1) == 3
    assert Board(cat=0).rounds_to_win(0) == 1 and Board(cat=-1).rounds_to_win(1) == 0


def test_the_searches_read_the_typed_play_history():
    """A search that filtered the history's dicts would see no typed event:
    the equilibrium's endgame and the inference's observations must still
    read the round's attacks and answers from a game's view."""
    from tacocat.search.equilibrium import endgame_from_view
    from tacocat.search.inference import observations

    state = GameState.at_play_phase([(2, 7, 11, 12), (1, 4, 6, 8, 10, 12)], 0, events=PLAYED)
    view = state.view(1)
    assert endgame_from_view(view).history == PLAYED[:2]  # the last attack is the table
    assert observations(view)[3] == [9, 5, 5]  # the cards the opponent played
