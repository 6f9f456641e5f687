"""`tacocat_play`'s state built on `GameState` plays exactly as the state
it replaced (frozen in `frozen_play_state.py`): on seeded deals of several
rulesets (the arrow tie rule of R17 included) and random play, every node
has the same player, legal actions or chance outcomes, returns, string,
`info()`, observation and information-state strings and tensors, game
state and resampled worlds; an illegal action is refused alike; a clone
is independent of its original."""

from __future__ import annotations

import random

import pytest
from frozen_play_state import FrozenPlayGame
from helpers import deep

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel not installed (pip install 'tacocat[openspiel]')")

from tacocat.errors import TacocatError  # noqa: E402
from tacocat.openspiel.games import TacocatPlayGame  # noqa: E402

TINY = {"deck": "2 2 2 2 0 0 0 0 0 0 0 0", "board": "2 2 2 2 2 2 2"}
ONE_ARROW_TIE = {"arrows": "p1 p1 p1 p0 p0 p0 p0", "tie": "arrow"}
CONFIGS = [
    {"hand_size": 2},
    {"hand_size": 3, "attacker": 1},
    {"hand_size": 5, "units": "game"},
    {"hand_size": 8},
    {"hand_size": 9, "attacker": 1, "units": "game", "cat": 2},
    {**TINY, "hand_size": 3},
    {**TINY, "hand_size": 4, "attacker": 1},
    {**ONE_ARROW_TIE, "hand_size": 4},  # the centre's arrow is p0's: a tie is its win (R17)
    {**ONE_ARROW_TIE, "hand_size": 6, "cat": 1, "attacker": 1, "units": "game"},  # p1's arrow
    {**TINY, **ONE_ARROW_TIE, "hand_size": 3, "cat": 5},
]


def same_node(new, old) -> None:
    """Everything OpenSpiel and our readers ask of a state, asked of both."""
    assert str(new) == str(old)
    assert new.history() == old.history()
    assert new.current_player() == old.current_player()
    assert new.is_terminal() == old.is_terminal()
    assert new.returns() == old.returns()
    if new.is_chance_node():
        assert new.chance_outcomes() == old.chance_outcomes()
    for p in (0, 1):
        assert new.legal_actions(p) == old.legal_actions(p)
        assert new.info(p) == old.info(p)
        assert new.observation_string(p) == old.observation_string(p)
        assert new.information_state_string(p) == old.information_state_string(p)
        assert new.observation_tensor(p) == old.observation_tensor(p)
        assert new.information_state_tensor(p) == old.information_state_tensor(p)
    assert (new.hands, new.table, new.attacker, new.events, new.dealt) == (
        old.hands,
        old.table,
        old.attacker,
        old.events,
        old.dealt,
    )
    if not new.is_chance_node():
        assert new.game_state().to_dict() == old.game_state().to_dict()
        for p in (0, 1):
            assert new.view(p) == old.view(p)


def same_worlds(new, old, seed: str) -> None:
    """R20 resampling reads the same information and draws the same world."""
    for p in (0, 1):
        a = new.resample_from_infostate(p, random.Random(f"{seed}/{p}").random)
        b = old.resample_from_infostate(p, random.Random(f"{seed}/{p}").random)
        assert type(a) is type(new) and type(b) is type(old)
        assert str(a) == str(b) and a.history() == b.history()
        assert a.information_state_string(p) == b.information_state_string(p) == new.information_state_string(p)


def same_refusal(new, old, rng: random.Random) -> None:
    """An action that is not legal now is refused by both, with the same words."""
    legal = set(new.legal_actions())
    illegal = [a for a in range(new.get_game().num_distinct_actions()) if a not in legal]
    if not illegal:
        return
    a = rng.choice(illegal)
    errors = []
    for s in (new, old):
        with pytest.raises(TacocatError) as got:
            s.apply_action(a)
        errors.append((got.value.message, got.value.rule))
    assert errors[0] == errors[1]


def run_differential(deals: int, seed: str) -> int:
    """`deals` seeded deals through both states; the number of nodes compared."""
    nodes = 0
    for i in range(deals):
        rng = random.Random(f"{seed}/{i}")
        params = CONFIGS[i % len(CONFIGS)]
        new = TacocatPlayGame(params).new_initial_state()
        old = FrozenPlayGame(params).new_initial_state()
        while True:
            same_node(new, old)
            nodes += 1
            if new.is_terminal():
                break
            if rng.random() < 0.15:
                same_worlds(new, old, f"{seed}/{i}/{nodes}")
            if new.is_chance_node():
                outcomes, probs = zip(*new.chance_outcomes())
                a = rng.choices(outcomes, probs)[0]
            else:
                if rng.random() < 0.1:
                    same_refusal(new, old, rng)
                a = rng.choice(new.legal_actions())
            if rng.random() < 0.2:  # a clone plays on; its original stays as it was
                before = str(new)
                twin = new.clone()
                twin.apply_action(a)
                assert str(new) == before and type(twin) is type(new)
                new = twin
            else:
                new.apply_action(a)
            old.apply_action(a)
    return nodes


def test_the_play_state_on_game_state_plays_as_before():
    assert run_differential(200, "play-state") > 2000


@pytest.mark.slow
def test_the_play_state_on_game_state_plays_as_before_on_thousands_of_deals():
    run_differential(deep(3000, 20000), "play-state-slow")


@pytest.mark.parametrize("params", [CONFIGS[7], CONFIGS[9]])
def test_openspiel_random_simulation_with_the_arrow_tie(params):
    """pyspiel's own checks on `tacocat_play` where a tie is the arrow's (R17)."""
    game = pyspiel.load_game("tacocat_play", params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
