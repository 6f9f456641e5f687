"""Rulesets as data (RULES §8) and the worked examples of RULES §7."""

import json

import pytest

from tacocat.errors import PositionError, RulesetError
from tacocat.rules.play import PlayPosition, answers, attacks, play_value
from tacocat.rules.ruleset import STANDARD, Ruleset, load_ruleset


def test_standard_ruleset_matches_the_rulings():
    assert STANDARD.deck_size == 38
    assert STANDARD.board == (4, 6, 9, 7, 9, 6, 4)
    assert STANDARD.arrows[3] == "both" and STANDARD.arrows[0] == "p1" and STANDARD.arrows[6] == "p0"
    assert STANDARD.tie == "redeal"


@pytest.mark.parametrize(
    "data, rule, words",
    [
        ({"deck": [3] * 11 + [2], "board": [9, 6, 9, 9, 9, 6, 9]}, "R1", "35 cards"),
        ({"board": [4, 6, 9, 7, 9, 6]}, "R2", "seven spaces"),
        ({"board": [4, 6, 9, 1, 9, 6, 4]}, "R2", "at least 2"),
        ({"deck": {"13": 4}}, "R1", "rank 13"),
        ({"deck": [3] * 11}, "R1", "12 counts"),
        ({"arrows": ["both"] * 6 + ["up"]}, "R3", "'up'"),
        ({"tie": "coin"}, "R17", "coin"),
    ],
)
def test_unplayable_rulesets_are_rejected_naming_the_rule(data, rule, words):
    with pytest.raises(RulesetError) as err:
        Ruleset.from_dict(data)
    assert err.value.rule == rule
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_a_37_card_deck_serves_hand_size_9():
    # RULES §8: playable when the counts sum to at least 4 x the largest hand
    # size; 4 x 9 = 36 <= 37.
    rules = Ruleset.from_dict({"deck": [2, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 1]})
    assert rules.deck_size == 37 and max(rules.board) == 9


def test_ruleset_loads_from_json_and_toml(tmp_path):
    data = {"name": "short", "deck": [4] * 12, "board": [3, 4, 5, 6, 5, 4, 3], "arrows": ["both"] * 7, "tie": "arrow"}
    (tmp_path / "r.json").write_text(json.dumps(data))
    toml = (
        'name = "short"\ndeck = [4,4,4,4,4,4,4,4,4,4,4,4]\nboard = [3,4,5,6,5,4,3]\n'
        'arrows = ["both","both","both","both","both","both","both"]\ntie = "arrow"\n'
    )
    (tmp_path / "r.toml").write_text(toml)
    a, b = load_ruleset(tmp_path / "r.json"), load_ruleset(tmp_path / "r.toml")
    assert a == b and a.deck_size == 48 and a.tie == "arrow"
    assert load_ruleset("standard") is STANDARD


def test_bad_ruleset_files_give_one_line(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(RulesetError, match="not valid"):
        load_ruleset(tmp_path / "bad.json")
    with pytest.raises(RulesetError, match="cannot read"):
        load_ruleset(tmp_path / "missing.json")


# RULES §7, worked examples
def test_worked_examples():
    assert answers([9], [2, 5, 10, 12]) == [((2,), False), ((10,), True), ((12,), True)]
    beats = [a for a in answers([8, 8], [3, 9, 11, 12]) if a[1]]
    assert sorted(c for c, _ in beats) == [(9, 11), (9, 12), (11, 12)]
    got = answers([8, 8], [3, 4, 11, 12])
    assert ((3, 4), False) in got and ((3, 11), False) in got and ((11, 12), True) in got
    assert all(4 not in c or 3 in c for c, _ in got)  # 4 only after 3 is gone
    assert answers([5, 9], [6, 10]) == [((6, 10), False), ((6, 10), True)]
    assert (4, 5, 6) not in attacks([4, 5, 6])  # R11: never the final card
    assert play_value(PlayPosition(((1,), (1,)), 0)) == 0  # R17 drawn round


@pytest.mark.parametrize(
    "hands, attacker, table, rule",
    [
        (((1, 2), (3,)), 0, (), "R10"),
        (((12, 12), (12, 3)), 0, (), "R1"),
        (((2, 3), (4, 5, 6, 8)), 0, (7,), "R10"),
        (((2,), (4, 5, 6)), 0, (7, 9), "R10-R11"),
    ],
)
def test_impossible_positions_name_the_rule(hands, attacker, table, rule):
    with pytest.raises(PositionError) as err:
        PlayPosition(hands, attacker, table)
    assert err.value.rule == rule
