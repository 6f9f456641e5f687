"""`GameState.clone` copies the lists and shares their items: playing on a
clone, to the end of the game, never changes the original (its document
before and after is the same), and a deep copy is a clone (OpenSpiel
clones a state by deep-copying its attributes)."""

from __future__ import annotations

import copy
import random

from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD


def _play_out(state: GameState, rng: random.Random) -> None:
    while not state.over:
        for p in state.acting_players():
            state.apply(p, rng.choice(state.legal_actions(p)))


def test_playing_a_clone_to_the_end_leaves_the_original_as_it_was():
    checked = 0
    for seed in range(5):
        state, rng = GameState.new(STANDARD, seed), random.Random(seed)
        while not state.over:
            before = state.to_dict()
            for twin in (state.clone(), copy.deepcopy(state)):
                assert twin.to_dict() == before
                _play_out(twin, random.Random(checked))
                assert state.to_dict() == before
                checked += 1
            for p in state.acting_players():
                state.apply(p, rng.choice(state.legal_actions(p)))
    assert checked > 80


def test_a_clone_shares_no_list_with_its_original():
    state = GameState.new(STANDARD, 3)
    twin = state.clone()
    for name, value in vars(state).items():
        if isinstance(value, list):
            assert getattr(twin, name) is not value, name
