"""The last answers played keep-the-lowest-card in place (`keep_lower`,
issue 22: what made 5-card endgames fit): an answer after which both hold
one card is followed by the showdown, and a lower kept card never does
worse, so `solve` plays it without storing that answer's sequences or its
showdowns.  These tests hold that to the whole game: the same value, and
the profile it returns, completed with those answers, is exactly as
exploitable in the whole tree as `solve` says."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tacocat.errors import PositionError
from tacocat.players.exploitability import endgames
from tacocat.rules.cards import hand
from tacocat.rules.events import PlayEvent
from tacocat.rules.play import answers
from tacocat.search.equilibrium import (
    IN_PLACE,
    KIND_ANSWER_THREE,
    KIND_LAST,
    KIND_LAST_ATTACK,
    _keep_lowest,
    answer_three,
    build,
    exploitability_of,
    keep_lower,
    solve,
    unpack,
)


def _completed_weights(full, kept) -> list[float]:
    """The average strategy of the `kept` tree (played in place below the
    root, `keep_lower`) as weights of the whole tree `full`: the same weight
    on every sequence both trees have; below a node played in place, weight
    1 on attacking with the higher card (two cards each) and on the answer
    that keeps the lowest card (the last answers, `_keep_lowest`)."""
    weights = [0.0] * full.stats()["sequences"]

    def in_place(f: int) -> None:
        kind, actor, k0, k1, _att, _par, act, _beats, first, nchild, _s, _ns = full.node(f)
        if kind == 2:
            return
        level = full.level((k0, k1)[actor])
        for c in range(first, first + nchild):
            info = full.node(c)
            for j, (par, _chi, _w) in enumerate(full.sequences(c)):
                cards = unpack(level[par])
                if kind == 0:  # an attack with two cards each: the higher card
                    best = (max(cards),), None
                elif len(cards) == 3 and len(unpack(act)) == 1:  # a one-card attack answered from three cards
                    move = answer_three(cards, unpack(act))
                    best = tuple(move.cards), move.beats
                else:
                    move = _keep_lowest(cards, unpack(act))
                    best = tuple(move.cards), move.beats
                mine = tuple(sorted(unpack(info[6]))), (bool(info[7]) if kind == 1 else None)
                weights[info[10] + j] = 1.0 if mine == best else 0.0
            in_place(c)

    def walk(f: int, k: int) -> None:
        kind, _actor, *_r, first, nchild, _s, _ns = full.node(f)
        kk, *_kr, kfirst, knchild, _ks, _kns = kept.node(k)
        if kind == 2:
            return
        if kk in IN_PLACE:
            in_place(f)
            return
        kids = {kept.node(c)[6:8]: c for c in range(kfirst, kfirst + knchild)}
        for c in range(first, first + nchild):
            info = full.node(c)
            other = kids[info[6:8]]
            theirs = {par: w for par, _chi, w in kept.sequences(other)}
            for j, (par, _chi, _w) in enumerate(full.sequences(c)):
                weights[info[10] + j] = theirs[par]
            walk(c, other)

    walk(0, 0)
    return weights


# 3 cards: 2.7-3.7 s each (idle), in the slow set; 2 cards in the default loop
@pytest.mark.parametrize("k,i", [(2, 0), (2, 3), *(pytest.param(3, i, marks=pytest.mark.slow) for i in (0, 1, 4))])
def test_the_profile_is_as_exploitable_in_the_whole_game_and_the_value_the_same(k, i):
    eg = endgames(k, i + 1)[i]
    assert keep_lower(eg)
    r = solve(eg, target=1e-6)
    full = build(eg)
    kept = r._engine
    assert kept.stats()["sequences"] < full.stats()["sequences"]  # the last answers' sequences are gone
    full.set_strategy(_completed_weights(full, kept))
    whole, _ = exploitability_of(full)
    assert abs(whole - r.exploitability) <= 1e-9, (whole, r.exploitability)
    assert abs(full.values(0)[0] - r.value) <= 1e-9
    exact = solve(eg, target=1e-6, iterations=400)  # the value of the game does not depend on the tree
    assert abs(exact.value - r.value) <= 1e-4


def test_the_kept_card_is_the_lowest_any_legal_answer_keeps():
    # every two- and three-card hand against every attack it may face last: the solution's answer is legal
    # (R12) and no legal answer keeps a lower card
    for cards in [(1, 4), (4, 4), (3, 9), (2, 5, 9), (6, 6, 7), (1, 1, 12), (5, 8, 8)]:
        attacks = [(a,) for a in range(1, 13)] + ([(a, a) for a in range(1, 13)] if len(cards) == 3 else [])
        for attack in attacks:
            if len(attack) != len(cards) - 1:
                continue
            move = _keep_lowest(hand(cards), hand(attack))
            legal = answers(attack, cards)
            assert (move.cards, move.beats) in legal
            kept = min(c for c in cards if list(cards).count(c) > list(move.cards).count(c))
            for played, _beats in legal:
                rest = list(cards)
                for c in played:
                    rest.remove(c)
                assert kept <= rest[0]


def _history_to(eng, n: int) -> list[PlayEvent]:
    """The public events from the root of `eng`'s tree down to node n."""
    events = []
    while n:
        _kind, _actor, _k0, _k1, _att, parent, act, beats, *_r = eng.node(n)
        p_kind, p_actor, *_p = eng.node(parent)
        beats_or_none = None if p_kind == 0 else bool(beats)
        events.insert(0, PlayEvent("attack" if p_kind == 0 else "answer", p_actor, unpack(act), beats_or_none))
        n = parent
    return events


def test_an_attack_with_two_cards_each_is_played_in_place_with_the_higher_card_and_answered_keeping_the_lowest():
    # at four cards (a pair attack answered at four leaves two cards each): the node, and the answer after it
    r = solve(endgames(4, 1)[0], target=1e-3)
    eng = r._engine
    node = next(n for n in range(eng.node_count()) if eng.node(n)[0] == KIND_LAST_ATTACK)
    _kind, attacker, *_r = eng.node(node)
    before = _history_to(eng, node)
    for packed_hand in eng.level(2):
        cards = unpack(packed_hand)
        moves = r.strategy(attacker, cards, before)
        assert {m.action.cards for m in moves} == {(c,) for c in cards}  # every legal attack (R11)
        assert [m.action.cards for m in moves if m.probability == 1.0] == [(max(cards),)]
        answered = r.strategy(1 - attacker, cards, [*before, PlayEvent("attack", attacker, (7,))])
        assert [m.action for m in answered if m.probability == 1.0] == [_keep_lowest(cards, (7,))]
        with pytest.raises(PositionError):
            r.strategy(attacker, cards, [*before, PlayEvent("attack", attacker, (7,))])  # the defender's move


def test_utilities_out_of_order_keep_every_answer_and_strategy_answers_in_place():
    eg = endgames(3, 1)[0]
    odd = replace(eg, utilities=(0.0, 1.0, -1.0))
    assert not keep_lower(odd)  # a draw worth more than a win: a lower card may be worse
    assert solve(odd, target=1e-3).sequences == build(odd).stats()["sequences"]  # the whole tree
    # with the usual utilities the nodes played in place have no children: the strategy there is the move
    # played in place, and after an attack with two cards each, the answer to it
    r = solve(eg, target=1e-3)
    eng = r._engine

    def history_to(n: int) -> list[PlayEvent]:
        return _history_to(eng, n)

    kinds = {eng.node(n)[0]: n for n in range(eng.node_count())}
    assert KIND_LAST in kinds and KIND_ANSWER_THREE in kinds
    _kind, defender, k0, k1, _att, _parent, table, *_r = eng.node(kinds[KIND_LAST])
    for packed_hand in eng.level((k0, k1)[defender]):
        cards = unpack(packed_hand)
        moves = r.strategy(defender, cards, history_to(kinds[KIND_LAST]))
        assert {(m.action.cards, m.action.beats) for m in moves} == set(answers(unpack(table), cards))
        assert [m.action for m in moves if m.probability == 1.0] == [_keep_lowest(cards, unpack(table))]
    # a one-card attack answered from three cards: the answer, then the attack with two cards each after it
    # and the last answer to that, each every legal move with the one played in place
    _kind, defender, k0, k1, attacker, _parent, table, *_r = eng.node(kinds[KIND_ANSWER_THREE])
    before = history_to(kinds[KIND_ANSWER_THREE])
    for packed_hand in eng.level(3):
        cards = unpack(packed_hand)
        moves = r.strategy(defender, cards, before)
        assert {(m.action.cards, m.action.beats) for m in moves} == set(answers(unpack(table), cards))
        (played,) = [m.action for m in moves if m.probability == 1.0]
        assert played == answer_three(cards, unpack(table))
        rest = list(cards)
        rest.remove(played.cards[0])
        answered = [*before, PlayEvent("answer", defender, played.cards, played.beats)]
        nxt = defender if played.beats else attacker
        if nxt == defender:
            attacks = r.strategy(defender, rest, answered)
            assert {m.action.cards for m in attacks} == {(c,) for c in rest}  # every legal attack (R11)
            assert [m.action.cards for m in attacks if m.probability == 1.0] == [(max(rest),)]
            with pytest.raises(PositionError):
                r.strategy(attacker, rest, answered)  # not its move
        else:
            last = r.strategy(defender, rest, [*answered, PlayEvent("attack", attacker, (7,))])
            assert [m.action for m in last if m.probability == 1.0] == [_keep_lowest(hand(rest), (7,))]


def test_a_one_card_attack_answered_from_three_cards_beats_with_the_middle_card_if_it_can():
    # R12: the middle card if it beats, else the highest if it beats, else the lowest card's sacrifice
    cases = {
        ((2, 5, 9), 4): ((5,), True),
        ((2, 5, 9), 6): ((9,), True),
        ((2, 5, 9), 10): ((2,), False),
        ((6, 6, 7), 6): ((6,), True),
        ((1, 1, 12), 3): ((12,), True),
        ((5, 8, 8), 9): ((5,), False),
    }
    for (cards, attack), (played, beats) in cases.items():
        move = answer_three(hand(cards), (attack,))
        assert (move.cards, move.beats) == (played, beats)
        assert (move.cards, move.beats) in answers((attack,), cards)
