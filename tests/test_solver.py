"""The Cython exact solver (tacocat.core._search behind tacocat.core.exact) against the
reference minimax of tacocat.rules.play: every conformance vector, seeded random
positions on three decks with random utilities, the move generators, the
transposition table (reuse, clearing, a tiny table), threads, validation
and the node-count signature of the fixed bench."""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path

import pytest
from conftest import load_cases
from helpers import deep

from tacocat.core import _search
from tacocat.core.exact import (
    MAX_HAND,
    Solver,
    position_from_dict,
    result_to_dict,
    solve,
    solve_json,
    value_only,
)
from tacocat.errors import NotationError, PositionError, RecordError
from tacocat.rules.play import PlayPosition, _answers, _outcome, answers, attacks, move_values, play_value
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search.bench import bench_signature

RESULTS = Path(__file__).resolve().parents[1] / "results"

DECKS = {
    "standard": STANDARD,
    "flat": Ruleset(deck=(3,) * 12, name="flat"),  # 36 cards, 3 of each
    "lumpy": Ruleset(deck=(1, 1, 6, 1, 5, 2, 6, 2, 1, 5, 1, 5), name="lumpy"),  # 36 cards, uneven
}
UTILITY_CHOICES = [
    (1, 0, -1),
    (1.0, 0.0, -1.0),
    (1, 0.5, 0),
    (3, -2, 7),
    (0, 1, -1),
    (-1, 0, 1),
    (1, 1, 0),
    (0, 1, 1),
    (2, 0, 2),
    (5, 5, 5),
    (0.25, -0.75, -0.5),
]
MASK = (1 << 48) - 1


def unpack_answer(x: int) -> tuple[tuple[int, ...], bool]:
    return _search.unpack_hand(x & MASK), bool(x & _search.BEATS)


def reference(pos: PlayPosition, utilities) -> tuple[float, list]:
    value = play_value(pos, utilities)
    return value, sorted(move_values(pos, utilities), key=lambda m: (list(m[0]), m[1]))


def random_position(rng: random.Random, size: int, rules: Ruleset, table_prob: float = 0.4) -> PlayPosition:
    """A random deal of `size` cards each; sometimes the attacker has laid a
    random legal attack already."""
    cards = rng.sample(rules.deck_cards(), 2 * size)
    hands = [tuple(sorted(cards[:size])), tuple(sorted(cards[size:]))]
    attacker = rng.randrange(2)
    table: tuple[int, ...] = ()
    if size >= 2 and rng.random() < table_prob:
        table = rng.choice(attacks(hands[attacker]))
        rest = list(hands[attacker])
        for c in table:
            rest.remove(c)
        hands[attacker] = tuple(rest)
    return PlayPosition((hands[0], hands[1]), attacker, table, rules)


def as_tuples(result) -> list:
    return [(m.cards, m.beats, m.value) for m in result.moves]


# ------------------------------------------------------------ conformance

PLAY_VALUES = load_cases("play_values")


@pytest.mark.parametrize("case", PLAY_VALUES, ids=lambda c: f"{c['hands']}-a{c['attacker']}-t{c['table']}")
def test_play_values_vector(case):
    position, utilities = position_from_dict(case)
    result = solve(position, utilities)
    assert result.value == case["value"]
    got = result_to_dict(result)
    assert got["value"] == case["value"]
    assert got["moves"] == case["moves"]


def test_play_values_through_solve_json():
    for case in PLAY_VALUES:
        out = solve_json({k: case[k] for k in ("hands", "attacker", "table")})
        assert (out["value"], out["moves"]) == (case["value"], case["moves"])


def test_conformance_attacks_and_answers_in_c():
    for case in load_cases("attacks"):
        got = sorted(list(_search.unpack_hand(a)) for a in _search.attacks_packed(_search.pack_hand(case["hand"])))
        assert got == case["attacks"], case
    for case in load_cases("answers"):
        raw = _search.answers_packed(_search.pack_hand(case["attack"]), _search.pack_hand(case["hand"]))
        got = sorted(
            ({"cards": list(c), "beats": b} for c, b in map(unpack_answer, raw)), key=lambda a: (a["cards"], a["beats"])
        )
        assert len(raw) == len(got)
        assert got == case["answers"], case


# ------------------------------------------------------- move generators


def test_attack_generation_equals_reference_on_random_hands():
    rng = random.Random(101)
    pool = [r for r in range(1, 13) for _ in range(4)]
    for _ in range(4000):
        hand = sorted(rng.sample(pool, rng.randint(1, MAX_HAND)))
        got = sorted(list(_search.unpack_hand(a)) for a in _search.attacks_packed(_search.pack_hand(hand)))
        assert got == [list(a) for a in attacks(hand)], hand


@pytest.mark.parametrize("count", [300, pytest.param(3000, marks=pytest.mark.slow)])
def test_answer_generation_equals_reference_on_random_hands(count):
    """Distinct (cards, beats) answers, each exactly once, for legal attacks
    and for arbitrary multisets (the characterisation does not need a
    legal attack)."""
    rng = random.Random(202)
    pool = [r for r in range(1, 13) for _ in range(4)]
    checked = 0
    while checked < count:
        n = rng.randint(2, 8)
        cards = rng.sample(pool, n + 9)
        defender, rest = sorted(cards[:n]), sorted(cards[n:])
        if checked % 2 == 0:
            options = [a for a in attacks(rest) if len(a) <= n - 1]
            if not options:
                continue
            attack = list(rng.choice(options))
        else:
            attack = sorted(rng.sample(rest, rng.randint(1, min(n - 1, 5))))
        raw = _search.answers_packed(_search.pack_hand(attack), _search.pack_hand(defender))
        got = sorted(map(unpack_answer, raw))
        assert len(set(got)) == len(got), (attack, defender)
        assert got == sorted(answers(attack, defender)), (attack, defender)
        checked += 1
    _answers.cache_clear()


def test_packing_round_trip():
    rng = random.Random(5)
    for _ in range(500):
        hand = tuple(sorted(rng.choices(range(1, 13), k=rng.randint(0, MAX_HAND))))
        assert _search.unpack_hand(_search.pack_hand(hand)) == hand


# --------------------------------------------------- random positions


def _random_cases(seed: int, count: int, sizes: list[int], weights: list[int]):
    rng = random.Random(seed)
    names = list(DECKS)
    for i in range(count):
        rules = DECKS[names[i % len(names)]]
        size = rng.choices(sizes, weights)[0]
        utilities = (1, 0, -1) if rng.random() < 0.4 else rng.choice(UTILITY_CHOICES)
        yield random_position(rng, size, rules), utilities


@pytest.mark.parametrize("count", [60, pytest.param(deep(800, 2000), marks=pytest.mark.slow)])
def test_random_positions_equal_reference(count):
    """Seeded positions (60 in the fast loop, 800 in CI, 2,000 under
    TACOCAT_DEEP=1), hand sizes 1-6, both
    attackers, tables or not, three decks, random utilities (ties included):
    value and every move's value."""
    solver = Solver(4, keep_tt=True)
    seen = {"tables": 0, "attackers": set(), "sizes": set(), "utilities": set()}
    for i, (pos, utilities) in enumerate(_random_cases(7, count, [1, 2, 3, 4, 5, 6], [6, 14, 24, 28, 22, 6])):
        result = solve(pos, utilities, tt=solver)
        value, moves = reference(pos, utilities)
        assert result.value == value, (pos, utilities)
        assert as_tuples(result) == moves, (pos, utilities)
        assert value_only(pos, utilities) == value
        seen["tables"] += bool(pos.table)
        seen["attackers"].add(pos.attacker)
        seen["sizes"].add(len(pos.hands[pos.defender]))
        seen["utilities"].add(utilities)
        if i % 200 == 199:
            _outcome.cache_clear()
    assert seen["tables"] > count // 4 and seen["attackers"] == {0, 1} and seen["sizes"] == {1, 2, 3, 4, 5, 6}
    assert len(seen["utilities"]) == len(set(UTILITY_CHOICES))
    _outcome.cache_clear()
    _answers.cache_clear()


@pytest.mark.slow
@pytest.mark.parametrize("size", [7, 8])
def test_big_random_positions_equal_reference(size):
    """A few seven- and eight-card positions (the reference is slow there):
    tables keep most of them affordable."""
    rng = random.Random(1000 + size)
    count = 0
    for i in range(4 if size == 7 else 3):
        rules = list(DECKS.values())[i % 3]
        pos = random_position(rng, size, rules, table_prob=0.0 if i == 0 else 1.0)
        if not pos.table:
            pos = random_position(rng, size, rules, table_prob=0.0)
        utilities = (1, 0, -1) if i % 2 == 0 else (1, 0.5, 0)
        result = solve(pos, utilities)
        assert (result.value, as_tuples(result)) == reference(pos, utilities), pos
        count += 1
        _outcome.cache_clear()
    _answers.cache_clear()
    assert count >= 3


def test_principal_variation_is_legal_and_reaches_the_value():
    rng = random.Random(33)
    for i in range(300):
        rules = list(DECKS.values())[i % 3]
        pos = random_position(rng, rng.randint(1, 8), rules)
        utilities = rng.choice(UTILITY_CHOICES)
        result = solve(pos, utilities)
        here = pos
        for step in result.pv:
            assert step.player == here.to_move
            assert (step.cards, step.beats) in here.moves()
            here = here.after(step.cards, step.beats)
        assert here.is_showdown
        assert result.showdown == (here.hands[0][0], here.hands[1][0])
        a, b = result.showdown
        outcome = 0 if a < b else 1 if a == b else 2
        assert utilities[outcome] == result.value
        assert result.outcome == ("win", "draw", "loss")[outcome]


# ------------------------------------------------------ transposition table


def _positions(seed: int, count: int, sizes=(5, 6, 7, 8)) -> list[PlayPosition]:
    rng = random.Random(seed)
    return [random_position(rng, rng.choice(sizes), STANDARD, table_prob=0.3) for _ in range(count)]


def test_tt_reuse_and_clear_give_identical_results():
    positions = _positions(41, 60)
    fresh = [as_tuples(Solver(1, keep_tt=False).solve(p)) for p in positions]
    kept = Solver(1, keep_tt=True)
    first = [as_tuples(kept.solve(p)) for p in positions]
    again = [as_tuples(kept.solve(p)) for p in positions]  # warm table
    mixed = [as_tuples(kept.solve(p, (1, 0.5, 0))) for p in positions]  # another ordering in the same table
    third = [as_tuples(kept.solve(p)) for p in positions]
    kept.clear()
    cleared = [as_tuples(kept.solve(p)) for p in positions]
    assert fresh == first == again == third == cleared
    assert mixed == [as_tuples(Solver(1, keep_tt=False).solve(p, (1, 0.5, 0))) for p in positions]
    # a warm table finds the positions again
    kept.solve(positions[0])
    warm = kept.solve(positions[0])
    assert warm.tt.hits > 0 and warm.nodes <= Solver(1, keep_tt=False).solve(positions[0]).nodes


def test_clearing_makes_node_counts_repeatable():
    positions = _positions(42, 30)
    solver = Solver(1, keep_tt=False)
    a = [solver.solve(p).nodes for p in positions]
    b = [solver.solve(p).nodes for p in positions]
    c = [Solver(1).solve(p).nodes for p in positions]
    assert a == b == c


def test_tiny_tt_forces_replacement_and_stays_exact():
    positions = _positions(43, 40, sizes=(6, 7, 8))
    big = Solver(16, keep_tt=False)
    tiny = Solver(tt_entries=4, keep_tt=True)
    assert tiny.entries == 4
    evictions = 0
    for p in positions:
        result = tiny.solve(p, (1, 0.5, 0) if p.attacker else (1, 0, -1))
        expected = big.solve(p, (1, 0.5, 0) if p.attacker else (1, 0, -1))
        assert as_tuples(result) == as_tuples(expected)
        evictions += result.tt.evictions
    assert evictions > 0
    # and against the reference on small hands
    rng = random.Random(44)
    for _ in range(150):
        pos = random_position(rng, rng.randint(3, 5), STANDARD)
        assert as_tuples(tiny.solve(pos)) == reference(pos, (1, 0, -1))[1]
    _outcome.cache_clear()


def test_tt_sizes():
    assert Solver(tt_entries=1000).entries == 512
    assert Solver(1).entries == (1 << 20) // _search.TT_ENTRY_BYTES
    assert _search.TT_ENTRY_BYTES == 16


# ------------------------------------------------------------------ threads


def test_threads_search_in_parallel():
    positions = _positions(45, 40, sizes=(7, 8))
    expected = [as_tuples(Solver(4, keep_tt=False).solve(p)) for p in positions]
    results: dict[int, list] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            solver = Solver(4)
            results[k] = [as_tuples(solver.solve(p)) for p in positions]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(results[k] == expected for k in range(4))


def test_default_solver_is_per_thread():
    pos = _positions(46, 1, sizes=(8,))[0]
    out: list = []
    t = threading.Thread(target=lambda: out.append(as_tuples(solve(pos))))
    t.start()
    t.join()
    assert out == [as_tuples(solve(pos))]


# --------------------------------------------------------------- validation


def _unchecked(hands, attacker, table=()) -> PlayPosition:
    # bypass PlayPosition's own validation to reach solve()'s
    pos = object.__new__(PlayPosition)
    object.__setattr__(pos, "hands", (tuple(sorted(hands[0])), tuple(sorted(hands[1]))))
    object.__setattr__(pos, "attacker", attacker)
    object.__setattr__(pos, "table", tuple(sorted(table)))
    object.__setattr__(pos, "rules", STANDARD)
    return pos


@pytest.mark.parametrize(
    "hands, attacker, table, rule",
    [
        (((1, 2, 3), (4, 5)), 0, (), "R10"),  # different sizes, no table
        (((12, 12, 12), (1, 2, 3)), 0, (), "R1"),  # three 12s, the deck holds two
        (((1, 1), (1, 2)), 1, (), "R1"),
        (((2, 3), (4, 5, 6, 7)), 0, (8, 9), "R10-R11"),  # 8 9 is no attack
        (((), (4, 5, 6)), 0, (8, 9, 10), "R10-R11"),  # the attack used the final card (R11)
        (((2, 3), (4, 5, 6, 7)), 0, (8,), "R10"),  # sizes do not add up
        (((), ()), 0, (), "R16"),
    ],
)
def test_bad_positions_raise_position_error_naming_the_rule(hands, attacker, table, rule):
    with pytest.raises(PositionError) as exc:
        PlayPosition(hands, attacker, table)
    assert exc.value.rule == rule
    with pytest.raises(PositionError) as exc:
        solve(_unchecked(hands, attacker, table))
    assert exc.value.rule == rule
    with pytest.raises(PositionError):
        value_only(_unchecked(hands, attacker, table))
    with pytest.raises(PositionError):
        solve_json({"hands": [list(hands[0]), list(hands[1])], "attacker": attacker, "table": list(table)})


def test_bad_documents_and_utilities():
    with pytest.raises(RecordError):
        position_from_dict({"attacker": 0})
    with pytest.raises(RecordError):
        position_from_dict({"hands": [[1, 2]], "attacker": 0})
    with pytest.raises(RecordError):
        position_from_dict({"hands": [[1], [2]], "attacker": 2})
    with pytest.raises(RecordError):
        position_from_dict([1, 2])
    with pytest.raises(NotationError):
        position_from_dict({"hands": [[1, 13], [2, 3]], "attacker": 0})
    with pytest.raises(NotationError):
        position_from_dict({"hands": [[1], [2]], "attacker": 0, "utilities": [1, 0]})
    with pytest.raises(NotationError):
        solve(PlayPosition(((1,), (2,)), 0), (1, float("nan"), 0))
    big = Ruleset(deck=(4,) * 12, board=(4, 6, 9, 7, 9, 6, 4))
    cards = big.deck_cards()
    with pytest.raises(PositionError, match="at most 12"):
        solve(PlayPosition((cards[:13], cards[13:26]), 0, (), big))


def test_other_rules_through_the_dict_form():
    case = {"hands": [[3, 3, 3, 3], [1, 1, 1, 12]], "attacker": 0, "rules": {"deck": [4] * 12}}
    pos, _ = position_from_dict(case)
    assert pos.rules.deck == (4,) * 12
    assert solve_json(case)["value"] == play_value(pos, (1, 0, -1))
    with pytest.raises(PositionError):
        solve_json(dict(case, rules="standard"))


# -------------------------------------------------------------- the bench


def test_bench_node_count_is_deterministic_and_recorded():
    first = bench_signature()
    assert first == bench_signature()
    recorded = RESULTS / "bench_solver.md"
    assert recorded.exists(), "results/bench_solver.md is missing: run results/bench_solver.py to record the bench"
    m = re.search(r"bench signature: (\d+) nodes", recorded.read_text())
    assert m, "results/bench_solver.md has no bench signature line"
    assert first == int(m.group(1)), (
        "the solver's bench node count drifted from results/bench_solver.md: "
        "rerun results/bench_solver.py if the change is intended"
    )
