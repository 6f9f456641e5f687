"""The Cython boundary holds one policy: every Python-facing entry point of
`_search` and `_ismcts` rejects with ValueError what its fixed C arrays
cannot hold (hands over 12 cards, 16+ cards of a rank, pools over 64 cards,
hand sizes that do not fit), instead of writing past an array or answering
nonsense."""

import pytest

from tacocat.core import _ismcts, _search

UTIL = (1.0, 0.0, -1.0)


def tree(my_hand=(2, 5), pool=tuple(range(1, 13)) * 3, opp_size=2, observer=0, attacker=0, table=(), **kw):
    args = dict(c_uct=1.0, exact_cards=4, seed=1, max_nodes=1000, tt_entries=1 << 10, rollout=0)
    args.update(kw)
    return _ismcts.Tree(list(my_hand), list(pool), opp_size, observer, attacker, list(table), UTIL, *args.values())


def test_a_representable_tree_runs():
    t = tree()
    assert t.run(iterations=50) == 50 and t.root_children()


@pytest.mark.parametrize(
    "kw, fragment",
    [
        ({"pool": [r for r in range(1, 13) for _ in range(8)]}, "more than 64 cards"),  # 96-card pool
        ({"pool": [7] * 16 + [1, 2]}, "more than 15 cards of rank 7"),
        ({"pool": [0, 1, 2]}, "not a rank"),
        ({"pool": [1, 2, 3], "opp_size": 4, "my_hand": (1, 2, 3, 4)}, "at most the unseen pool"),
        ({"my_hand": tuple(range(1, 13)) + (1,), "opp_size": 12}, "more than 12 cards"),
        ({"my_hand": (2, 5, 7)}, "hand sizes do not fit"),
        ({"observer": 2}, "0 or 1"),
        ({"attacker": -1}, "0 or 1"),
        ({"rollout": 5}, "rollout 0 or 1"),
        ({"max_nodes": 0}, "max_nodes >= 1"),
        ({"table": (13,)}, "not a rank"),
    ],
)
def test_tree_rejects_what_it_cannot_represent(kw, fragment):
    with pytest.raises(ValueError, match=fragment):
        tree(**kw)


def test_ismcts_exact_leaves_need_a_table():
    # the leaves are _search's exact solver (tested below); without its table there is none
    with pytest.raises(ValueError, match="need a transposition table"):
        tree(tt_entries=0)
    assert tree(tt_entries=0, exact_cards=0).run(iterations=20) == 20  # random play to the showdown


def test_search_entry_points_reject_unrepresentable_hands():
    with pytest.raises(ValueError, match="more than 15 cards of rank 3"):
        _search.pack_hand([3] * 16)
    with pytest.raises(ValueError, match="not a rank"):
        _search.pack_hand([13])
    with pytest.raises(ValueError, match="not a rank"):
        _search.pack_hand([True])
    big = _search.pack_hand(list(range(1, 13)) + [1])  # 13 cards: packable, but no hand of the solver
    with pytest.raises(ValueError, match="at most 12 cards"):
        _search.attacks_packed(big)
    with pytest.raises(ValueError, match="at most 12 cards"):
        _search.answers_packed(_search.pack_hand([5]), big)
    with pytest.raises(ValueError, match="not a packed hand"):
        _search.attacks_packed(1 << 60)
    core = _search.Core(1 << 10)
    one, two = _search.pack_hand([1]), _search.pack_hand([2])
    assert core.value(one, two, 0, 0, 2, 1, 0) == 2  # the lower last card wins (R17)
    with pytest.raises(ValueError, match="attacker must be 0 or 1"):
        core.value(one, two, 3, 0, 2, 1, 0)
    with pytest.raises(ValueError, match="levels"):
        core.moves(one, two, 0, 0, 3, 1, 0)
    with pytest.raises(ValueError, match="do not fit"):
        core.pv(one, _search.pack_hand([2, 3]), 0, 0, 2, 1, 0)
