"""The whole-game engine: invariants under random legal play (hypothesis),
records, JSON round-trips, information sets, bad input."""

import json
import random

import pytest
import rulesets
from helpers import deep, random_steps
from hypothesis import given, settings
from hypothesis import strategies as st

from tacocat.errors import IllegalMoveError, RecordError, TacocatError
from tacocat.players.bots import HeuristicBot, RandomBot, play_game
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.events import PlayEvent
from tacocat.rules.game import DUEL, PLAY, GameRecord, GameState
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.rules.views import View

SMALL = Ruleset.from_dict({k: v for k, v in rulesets.SMALL.items() if k != "max_deals"})
"""The shared small ruleset under the default deal limit (these engine tests always played it so)."""


def random_play(seed: int, rules: Ruleset, check):
    """Play a whole game with uniformly random legal actions, calling
    `check(state)` after every action."""
    rng = random.Random(seed)
    state = GameState.new(rules, seed)
    check(state)
    for _ in range(5000):
        if state.over:
            return state
        player = rng.choice(state.acting_players())
        state.apply(player, rng.choice(state.legal_actions(player)))
        check(state)
    raise AssertionError("game did not end")


EXAMPLES = dict(deadline=None, derandomize=True)
"""Hypothesis: seeded (the same examples every run) and without a deadline;
each test's `max_examples` is its CI size, `deep(ci, full)`."""


def invariants(state: GameState) -> None:
    if state.over:
        return
    # Every card of the deck is in exactly one place.
    assert state.places() == list(state.rules.deck_cards())
    if state.phase == PLAY:
        a, d = len(state.hands[state.attacker]), len(state.hands[1 - state.attacker])
        if state.table:
            assert a + len(state.table) == d
        else:
            assert a == d
    assert state.decided_rounds <= 7
    for r in state.rounds:
        assert r["winner"] in (0, 1, None)


@settings(max_examples=deep(20, 60), **EXAMPLES)
@given(seed=st.integers(0, 2**32 - 1), small=st.booleans())
def test_invariants_hold_under_random_legal_play(seed, small):
    state = random_play(seed, SMALL if small else STANDARD, invariants)
    assert state.over and state.winner in (0, 1)
    # R19: at most seven decided rounds.
    assert state.decided_rounds <= 7
    assert len(state.board.covered) == state.decided_rounds


@settings(max_examples=deep(15, 40), **EXAMPLES)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_round_ends_with_one_card_each(seed):
    # The action that ends each round is either the last answer of play
    # (both left with one card, R16) or a duel that leaves one card each
    # (the no-play case of R9): checked as the game is played.
    rng = random.Random(seed)
    state = GameState.new(STANDARD, seed)
    ended = 0
    while not state.over:
        player = rng.choice(state.acting_players())
        action = rng.choice(state.legal_actions(player))
        rounds_before, sizes_before = len(state.rounds), [len(h) for h in state.hands]
        state.apply(player, action)
        if len(state.rounds) > rounds_before:
            ended += 1
            if action.kind == "duel":
                assert sizes_before == [2, 2]
            else:
                assert action.kind == "answer"
                assert sizes_before[player] - len(action.cards) == 1
                assert sizes_before[1 - player] == 1
    assert ended == len(state.rounds) > 0


@settings(max_examples=deep(10, 30), **EXAMPLES)
@given(seed=st.integers(0, 2**32 - 1))
def test_record_replays_to_the_same_final_state(seed):
    state = play_game((HeuristicBot(), RandomBot()), seed)
    text = json.dumps(state.record().to_dict())
    again = GameRecord.from_dict(json.loads(text)).replay()
    assert again.to_dict() == state.to_dict()


@settings(max_examples=deep(15, 30), **EXAMPLES)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40))
def test_state_and_view_json_round_trip(seed, steps):
    state = random_steps(seed, steps)
    d = json.loads(json.dumps(state.to_dict()))
    assert GameState.from_dict(d).to_dict() == state.to_dict()
    if not state.over:
        for p in (0, 1):
            v = state.view(p).to_dict()
            back = View.from_dict(json.loads(json.dumps(v)))
            assert back.to_dict() == v
            assert back.legal_actions() == state.legal_actions(p)


def test_same_seed_same_deal_and_different_seeds_differ():
    a, b, c = GameState.new(seed=11), GameState.new(seed=11), GameState.new(seed=12)
    assert a.to_dict() == b.to_dict()
    assert a.hands != c.hands


def test_view_is_the_information_set():
    state = GameState.new(STANDARD, 5)
    # Centre: two arrows, simultaneous replacement (R8).
    assert state.acting_players() == [0, 1]
    state.apply(0, Action("replace", state.hands[0][:2]))
    v1 = state.view(1)
    assert v1.my_pending is None and v1.history[-1].event == "deal"  # P0's choice stays secret
    assert state.view(0).my_pending == state.hands[0][:2]
    state.apply(1, Action("replace", ()))
    assert state.phase == DUEL
    for p in (0, 1):
        v = state.view(p)
        pool = v.unseen_pool
        assert len(pool) == 38 - len(v.hand) - len(v.seen)
        # The opponent's hand is a sub-multiset of the unseen pool.
        left = list(pool)
        for card in state.hands[1 - p]:
            left.remove(card)
        assert len(v.seen) == 2
        assert v.opponent_hand_size == 7


def test_one_arrow_replacement_caps_the_second_replacer():
    state = GameState.new(STANDARD, 3, board=Board(cat=2, covered=frozenset({3})))
    assert state.first_replacer == "p1" and state.acting_players() == [1]
    state.apply(1, Action("replace", state.hands[1][:2]))
    assert state.acting_players() == [0]
    assert max(len(a.cards) for a in state.legal_actions(0)) == 2
    with pytest.raises(IllegalMoveError, match="at most 2"):
        state.apply(0, Action("replace", state.hands[0][:3]))


def test_illegal_moves_leave_the_state_unchanged():
    state = GameState.new(STANDARD, 9)
    for p in (0, 1):
        state.apply(p, Action("replace", ()))
    before = state.to_dict()
    with pytest.raises(IllegalMoveError, match="R7-R8|R9"):
        state.apply(0, Action("attack", (state.hands[0][0],)))
    missing = next(r for r in range(1, 13) if r not in state.hands[0])
    with pytest.raises(IllegalMoveError, match="does not hold"):
        state.apply(0, Action("duel", (missing,)))
    assert state.to_dict() == before
    with pytest.raises(IllegalMoveError, match="not player"):
        GameState.new(STANDARD, 3, board=Board(cat=2, covered=frozenset({3}))).apply(0, Action("replace", ()))


def test_duel_ties_are_discarded_and_dueled_again():
    for seed in range(200):
        state = GameState.new(STANDARD, seed)
        for p in (0, 1):
            state.apply(p, Action("replace", ()))
        common = sorted(set(state.hands[0]) & set(state.hands[1]))
        if common:
            break
    r = common[0]
    state.apply(0, Action("duel", (r,)))
    state.apply(1, Action("duel", (r,)))
    assert state.phase == DUEL and len(state.hands[0]) == 6 and state.discard[-2:] == [r, r]


def test_answer_without_beats_is_resolved_when_unambiguous():
    s = GameState.at_play_phase([(1, 2), (3, 9, 12)], 0, events=[PlayEvent.attack(0, (8,))])
    assert s.table == (8,) and s.decision(1) == "answer"
    s.apply(1, Action("answer", (9,)))
    assert s.history[-1].beats is True and s.attacker == 1


def test_malformed_records_give_one_line_errors():
    for bad, words in [
        ({}, "not a game record"),
        ({"format": "tacocat-record", "actions": []}, "missing 'seed'"),
        (
            {"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "attack", "cards": [1]}]},
            "action 1",
        ),
        (
            {"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "replace", "cards": [13]}]},
            "rank 13",
        ),
    ]:
        with pytest.raises(TacocatError) as err:
            GameRecord.from_dict(bad).replay()
        assert words in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(RecordError):
        GameState.from_dict({"format": "tacocat-state", "seed": 1})


@pytest.mark.slow
def test_ten_thousand_games_smoke_subset():
    # The full 10,000-game run lives in results/selfplay_10k.py; here a slice.
    games = deep(80, 200)
    wins = [0, 0]
    for seed in range(games):
        wins[play_game((RandomBot(), RandomBot()), seed).winner] += 1
    assert sum(wins) == games and min(wins) > games // 4


def test_bad_bot_budgets_and_state_documents_name_the_field():
    from tacocat.players.bots import make_bot

    with pytest.raises(TacocatError, match="budget: iterations must be a whole number"):
        make_bot("pimc", iterations="x")
    with pytest.raises(RecordError, match="missing the field 'rules'"):
        GameState.from_dict({"format": "tacocat-state", "seed": 1})


def test_apply_returns_the_public_events_it_caused():
    state = GameState.new(STANDARD, 21)
    assert state.apply(0, Action("replace", ())) == []  # R8: a secret choice reveals nothing yet
    events = state.apply(1, Action("replace", ()))
    assert [e.event for e in events] == ["replace", "replace"]
    seen_showdown = False
    rng = random.Random(4)
    while not state.over and not seen_showdown:
        p = state.acting_players()[0]
        events = state.apply(p, rng.choice(state.legal_actions(p)))
        kinds = [e.event for e in events]
        if "showdown" in kinds:
            seen_showdown = True
            if not state.over:
                assert kinds[-1] == "deal"  # the next round's deal comes with it
    assert seen_showdown


@settings(max_examples=deep(20, 40), **EXAMPLES)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 30), swap=st.integers(0, 100))
def test_a_view_never_shows_the_hidden_cards(seed, steps, swap):
    # RULES §5: swapping a card of player 1's hand with a draw-pile card
    # changes nothing player 0 can see.
    state = random_steps(seed, steps)
    if state.over or not state.hands[1] or not state.draw_pile:
        return
    other = state.clone()
    opp = list(other.hands[1])
    i, j = swap % len(opp), swap % len(other.draw_pile)
    opp[i], other.draw_pile[j] = other.draw_pile[j], opp[i]
    other.hands[1] = tuple(sorted(opp))
    assert other.view(0).to_dict() == state.view(0).to_dict()
