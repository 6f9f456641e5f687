"""Every rule number the exact core is compiled with (`_search.pxd`) is
the one `tacocat.rules` names: R10's shortest sequence and the largest
hand of RULES section 8."""

from tacocat.core import _search
from tacocat.rules.play import MIN_SEQUENCE, attacks
from tacocat.rules.ruleset import HAND_SIZES


def test_the_core_is_compiled_with_the_rules_numbers():
    assert _search.RULE_CONSTANTS == {"MIN_SEQUENCE": MIN_SEQUENCE, "MAX_HAND": HAND_SIZES[1]}


def test_the_shortest_sequence_is_an_attack_and_one_shorter_is_not():
    run = tuple(range(4, 4 + MIN_SEQUENCE))
    assert run in attacks(run + (12,))
    assert run[:-1] not in attacks(run[:-1] + (12,))
