"""The round's history (R20): notation, structure checks, and the floor that
the searches use, against R20's definition by replay."""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import load_cases
from helpers import DEEP, deep

from tacocat.errors import PositionError, RecordError
from tacocat.rules.cards import counts
from tacocat.rules.history import (
    PlayEvent,
    answer_floor,
    check_history,
    consistent,
    consistent_by_replay,
    format_history,
    hand_floor,
    history_from_json,
    history_to_json,
    parse_history,
)
from tacocat.rules.play import answers
from tacocat.rules.ruleset import STANDARD


def test_answer_floor_is_exactly_replay_legality():
    """For random attacks and answers: the answer is legal for a holding of
    its cards plus X exactly when every card of X reaches the floor."""
    rng = random.Random(7)
    checked = 0
    for _ in range(deep(40, 120)):
        k = rng.randint(1, 3)
        attack = sorted(rng.randint(1, 12) for _ in range(k))
        holding = sorted(rng.randint(1, 12) for _ in range(k + rng.randint(0, 2)))
        for cards, beats in answers(attack, holding):
            floor = answer_floor(attack, cards, beats)
            for rest in itertools.combinations_with_replacement(range(1, 13), len(holding) - k):
                legal = (tuple(cards), beats) in answers(attack, sorted(cards + rest))
                assert legal == (floor is None or not rest or min(rest) >= floor), (attack, cards, beats, rest)
                checked += 1
    assert checked > deep(600, 2_000)


def test_worked_examples():
    assert answer_floor((9,), (2,), False) == 2
    assert answer_floor((9,), (10,), True) is None
    # RULES §7: 8 8 answered 3 then 4, both sacrificed: the rest is at least 4
    assert answer_floor((8, 8), (3, 4), False) == 4
    # 5 9 answered 6 10 losing: 10 beats 5, 6 sacrificed against 9
    assert answer_floor((5, 9), (6, 10), False) == 6
    # 3 11 answered 3 4 losing: 3 can be the sacrifice (4 beats 3), so only >= 3 is needed
    assert answer_floor((3, 11), (3, 4), False) == 3
    with pytest.raises(PositionError, match="R13"):
        answer_floor((3,), (5,), False)  # 5 beats 3: it cannot lose the trick
    with pytest.raises(PositionError, match="R12"):
        answer_floor((12,), (2, 8), False)  # one card per attack card


def distinct_hands(pool: list[int], size: int, rank: int = 1):
    """Every distinct hand of `size` cards from `pool` (counts of ranks 1..12)."""
    if size == 0:
        yield ()
        return
    if rank > 12:
        return
    for k in range(min(size, pool[rank - 1]), -1, -1):
        for rest in distinct_hands(pool, size - k, rank + 1):
            yield (rank,) * k + rest


def test_conformance_worlds_by_floor_and_by_replay():
    """Every conformance case's count of worlds by the floor; on a seeded
    sample of each case's hands (every hand under TACOCAT_DEEP=1: 76,700
    replays, about 5 s), the floor and a replay of the round agree."""
    rng = random.Random(75)
    for case in load_cases("history_hints"):
        v = case["view"]
        events = history_from_json(v["history"])
        check_history(events, v["attacker"])
        opponent = 1 - v["player"]
        seen = counts(v["hand"] + v["seen"] + v["table"])
        pool = [STANDARD.deck[r - 1] - seen[r] for r in range(1, 13)]
        hands = list(distinct_hands(pool, v["opponent_hand_size"]))
        by_floor = {h for h in hands if consistent(h, events, opponent)}
        assert len(by_floor) == case["expected"]["worlds"]
        replayed = hands if DEEP else rng.sample(hands, min(len(hands), 100))
        assert {h for h in replayed if consistent_by_replay(h, events, opponent)} == by_floor.intersection(replayed)


def test_text_and_json_round_trip():
    text = "p1 attacks 11; p0 answers 6 sacrifice; p1 attacks 4 5 6; p0 answers 7 8 9 beat"
    events = parse_history(text)
    assert format_history(events) == text
    assert history_from_json(history_to_json(events)) == events
    assert events[1] == PlayEvent("answer", 0, (6,), False)
    assert hand_floor(events, 0) == 6


@pytest.mark.parametrize(
    "text, rule",
    [
        ("p1 attacks 11; p1 answers 6 sacrifice", "R12"),  # the attacker cannot answer
        ("p1 attacks 11; p0 answers 12 beat; p1 attacks 4", "R14"),  # p0 won the trick
        ("p1 attacks 4 6; p0 answers 7 8 beat", "R10"),  # not a sequence
        ("p1 attacks 11; p0 answers 6 7 sacrifice", "R12"),  # two cards for one
        ("p0 attacks 11; p1 answers 3 sacrifice; p1 attacks 2", "R14"),  # p0 won with the sacrifice
    ],
)
def test_impossible_histories_name_the_event_and_rule(text, rule):
    with pytest.raises(PositionError) as info:
        check_history(parse_history(text))
    assert info.value.rule == rule and "history event" in str(info.value)


def test_later_play_below_a_sacrifice_is_impossible():
    events = parse_history("p1 attacks 11; p0 answers 6 sacrifice; p1 attacks 9; p0 answers 2 sacrifice")
    with pytest.raises(PositionError, match="R12"):
        hand_floor(events, 0)


@pytest.mark.parametrize(
    "data, field",
    [
        ("x", "list"),
        ([{"event": "attack", "player": 2, "cards": [3]}], "player"),
        ([{"event": "defend", "player": 0, "cards": [3]}], "event"),
        ([{"event": "answer", "player": 0, "cards": [3]}], "beats"),
        ([{"event": "attack", "player": 0, "cards": "3"}], "cards"),
        ([{"event": "attack", "player": 0, "cards": [3], "x": 1}], "unknown"),
    ],
)
def test_bad_json_history_names_the_field(data, field):
    with pytest.raises(RecordError, match=field):
        history_from_json(data)
