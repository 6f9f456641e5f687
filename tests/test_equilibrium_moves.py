"""The CFR core's move generation against the rules module (issue 22,
deliverable 5): at every decision node of the public tree of seeded small
endgames, the moves each hand may take there (its sequences) are exactly
`tacocat.rules.play.attacks` / `answers` for that hand (R10-R13), and a
node's children are exactly the moves some hand there may take."""

from __future__ import annotations

import random

import pytest
from test_equilibrium import tiny_endgames

from tacocat.rules.play import answers, attacks
from tacocat.rules.ruleset import STANDARD
from tacocat.search.equilibrium import Endgame, build, unpack


def walk_and_compare(eng, root_table) -> int:
    """Every decision node: each parent hand's moves equal the rules' moves
    for that hand; returns how many (node, hand) pairs were compared."""
    compared = 0
    stack = [0]
    while stack:
        n = stack.pop()
        kind, actor, k0, k1, _att, _parent, _act, _beats, first, nchild, _s, _ns = eng.node(n)
        if kind == 2:
            continue
        k = (k0, k1)[actor]
        level = eng.level(k)
        by_hand: dict[int, set] = {}
        # an answer node's table: the attack that led to it (at the root, the endgame's table)
        table = (unpack(eng.node(n)[6]) if n != 0 else root_table) if kind == 1 else None
        for c in range(first, first + nchild):
            info = eng.node(c)
            move = (unpack(info[6]), bool(info[7]) if kind == 1 else None)
            for par, _chi, _w in eng.sequences(c):
                by_hand.setdefault(par, set()).add(move)
            stack.append(c)
        for i, moves in by_hand.items():
            cards = unpack(level[i])
            if kind == 0:
                want = {(tuple(a), None) for a in attacks(cards)}
            else:
                want = {(tuple(a), bool(b)) for a, b in answers(table, cards)}
            assert moves == want, (n, cards, table, sorted(moves), sorted(want))
            compared += 1
    return compared


def test_every_hands_moves_at_every_node_are_the_rules_moves():
    compared = 0
    for eg in tiny_endgames(16, seed=21):
        compared += walk_and_compare(build(eg), eg.table)
    assert compared > 1000


@pytest.mark.slow
def test_three_card_endgames_with_a_big_pool():
    rng = random.Random(5)
    deck = list(STANDARD.deck_cards())
    compared = 0
    for _ in range(2):
        rng.shuffle(deck)
        eg = Endgame(STANDARD, tuple(sorted(deck[:22])), (), (), rng.randint(0, 1), (3, 3))
        compared += walk_and_compare(build(eg), ())
    assert compared > 10_000


def test_the_core_checks_its_inputs_at_the_door():
    from tacocat.core import _cfr

    pool = [0] + [3] * 12
    for bad, fragment in [
        (dict(k0=7, k1=7), "1..6"),
        (dict(attacker=2), "attacker"),
        (dict(pool=[0] + [16] + [3] * 11), "15 cards of rank 1"),
        (dict(pool=[0] + [3] * 11), "13 counts"),
        (dict(table=[0, 1] + [0] * 11), "R10"),  # a table on hands of equal size
        (dict(floor0=0), "floors"),
    ]:
        args = dict(pool=pool, k0=3, k1=3, attacker=0, table=[0] * 13, floor0=1, floor1=1)
        args.update(bad)
        with pytest.raises(ValueError, match=fragment):
            _cfr.Engine(
                args["pool"],
                args["k0"],
                args["k1"],
                args["attacker"],
                args["table"],
                args["floor0"],
                args["floor1"],
                (1.0, 0.0, -1.0),
            )
