"""The replacement as a game (issue 34, deliverable 2: tacocat.search.replace_game).

Each claim is bound to a plain check written here: the solved subgame's
value against its sequence-form linear program and its best responses;
the tree's chance against a brute force over card-level deals from the
rules (R6-R8); the information sets against what each player sees (my
hand alone; the opponent's hand and, under R7, my discard: never my hand
or my draw); seeded answers; my answer reads my view only; and the
declared option reaches the hint, the bots, the CLI and the protocol."""

from __future__ import annotations

import itertools
import random
import threading
from typing import Any, cast

import numpy as np
import pytest
from click.testing import CliRunner

from tacocat.errors import TacocatError
from tacocat.rules.cards import hand, remove
from tacocat.rules.game import REPLACE, GameState
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search import round_exploitability as rx
from tacocat.search.budget import Budget
from tacocat.search.decisions import world_duel
from tacocat.search.pimc import PerfectSolver
from tacocat.search.replace_game import (
    GUIDED_KEEP,
    GuidedReplaceResult,
    build_replace_game,
    guided_replace,
    replace_game,
)
from tacocat.search.round_game import _multisets
from tacocat.search.sampling import HandSampler

U = (1.0, 0.0, -1.0)


def tiny(centre: str, hand_size: int = 2, deck=(3, 3, 2)) -> Ruleset:
    """A small deck (ranks 1.. with these counts), every space dealing
    `hand_size`, the centre's arrow `centre` (p0: R7, both: R8)."""
    return Ruleset.from_dict(
        {
            "name": f"tiny-{centre}",
            "deck": list(deck) + [0] * (12 - len(deck)),
            "board": [hand_size] * 7,
            "arrows": ["p1", "p1", "p1", centre, "p0", "p0", "p0"],
            "tie": "redeal",
        }
    )


def first_view(rules: Ruleset, seed: int, *, second: bool = False):
    """A seeded deal's replace view of the player who decides first (or,
    `second`, of player 1 after player 0 replaced one card under R7)."""
    state = GameState.new(rules, seed)
    if second:
        state.apply(0, next(a for a in state.legal_actions(0) if len(a.cards) == 1))
        return state.view(1)
    return state.view(state.acting_players()[0])


def game_of(view, samples: int = 50):
    solver = PerfectSolver(view.rules)
    return build_replace_game(view, Budget(samples=samples, seed=0), solver, HandSampler(view), utilities=U)


SHAPES = [("p0", False), ("both", False), ("p0", True)]
"""R7 as the first replacer, R8, R7 as the second replacer."""


SIZES = [
    pytest.param(2, (3, 3, 2), 0, id="h2"),
    pytest.param(2, (3, 3, 2), 1, id="h2-seed1"),
    pytest.param(3, (4, 4, 4), 0, id="h3", marks=pytest.mark.slow),
    pytest.param(3, (4, 4, 4), 1, id="h3-seed1", marks=pytest.mark.slow),
]
"""Hands of 2 (the duel goes to the showdown) and, slower, hands of 3 (one trick of play)."""


@pytest.mark.parametrize("centre,second", SHAPES, ids=["R7-first", "R8", "R7-second"])
@pytest.mark.parametrize("hand_size,deck,seed", SIZES)
def test_the_solved_game_matches_its_linear_program(centre, second, hand_size, deck, seed):
    view = first_view(tiny(centre, hand_size, deck), seed, second=second)
    game = game_of(view)
    tree = cast(Any, game)
    lp, _ = rx.lp_value(tree)
    sol = rx.solve(tree, iterations=600, target=1e-5, check_every=25)
    hi, _ = rx.best_response(tree, sol.strategy, 0)
    lo, _ = rx.best_response(tree, sol.strategy, 1)
    # the value of the game lies between the two best responses, and CFR+'s average reaches it
    assert lo - 1e-9 <= lp <= hi + 1e-9
    assert abs(sol.value - lp) <= (hi - lo) + 1e-9
    assert hi - lo < 2e-4
    # the search's answer says the same game's exploitability
    r = replace_game(view, Budget(samples=50, seed=0), utilities=U, iterations=600, target=1e-5)
    assert r.exploitability < 2e-4 and abs(r.game_value - lp) < 2e-4
    assert r.opponent_replies == (not second)


def test_the_tree_deals_as_the_shuffle_does():
    """My real hand's value of each discard against an opponent who always
    keeps its hand, by the tree and by brute force over every card-level
    deal of the opponent's hand and the draw pile's top (R6, R7)."""
    rules = tiny("p0")
    view = first_view(rules, 3)
    game = game_of(view)
    tree = cast(Any, game)
    sigma = rx.uniform(tree)
    for i, (key, acts) in enumerate(zip(game.keys, game.iset_actions, strict=True)):
        if key[0] == "opponent":
            off = game.iset_offset[i]
            sigma[off : off + len(acts)] = [1.0 if not a.cards else 0.0 for a in acts]
    v = rx.values(tree, sigma)
    real = game.keys.index(("me", view.hand))
    nodes = np.nonzero(game.node_iset == real)[0]
    parent_prob = {int(c): p for c, p in zip(game.edge_child, game.edge_prob, strict=True) if c in set(nodes)}
    solver = PerfectSolver(rules)
    cards = list(view.unseen_pool)  # distinct card ids by position
    n = len(view.hand)
    for k, act in enumerate(game.iset_actions[real]):
        off = game.iset_offset[real] + k
        child = {int(game.edge_parent[e]): int(game.edge_child[e]) for e in np.nonzero(game.edge_slot == off)[0]}
        weight = sum(parent_prob[int(x)] for x in nodes)
        tree_value = sum(parent_prob[int(x)] * v[child[int(x)]] for x in nodes) / weight
        d = act.cards
        total, count = 0.0, 0
        for opp_ids in itertools.combinations(range(len(cards)), n):
            rest = [i for i in range(len(cards)) if i not in opp_ids]
            opp = hand(cards[i] for i in opp_ids)
            for top in itertools.permutations(rest, len(d)):
                me = hand(remove(view.hand, d) + tuple(cards[i] for i in top))
                total += world_duel(me, opp, U, solver)[0]
                count += 1
        assert tree_value == pytest.approx(total / count, abs=1e-9), d


@pytest.mark.parametrize("centre", ["p0", "both"])
def test_each_information_set_holds_what_its_player_sees(centre):
    """My sets: one node per opponent hand my hand meets (the opponent's
    hand is not in my key).  The opponent's: under R7 (its hand, my
    discard), one node per (my hand that could make that discard, my draw);
    under R8 (its hand), one per (my hand, my discard): my hand and my draw
    are never in its key."""
    view = first_view(tiny(centre, 3, (4, 4, 4)), 2)
    game = game_of(view)
    pub = hand(view.unseen_pool + view.hand)
    node_count = np.bincount(game.node_iset[game.node_iset >= 0], minlength=len(game.keys))
    pairs = [(m, o) for m in game.my_hands for o in game.opp_hands if not _clash(pub, m, o)]
    mine = {m: [a.cards for a in game.iset_actions[game.keys.index(("me", m))]] for m in game.my_hands}
    for i, key in enumerate(game.keys):
        if key[0] == "me":
            assert len(key) == 2
            assert node_count[i] == sum(1 for m, _ in pairs if m == key[1])
        elif centre == "p0":
            _, o, d = key
            expected = sum(
                len(_multisets(tuple(_counts(remove(remove(pub, m), o))), len(d)))
                for m, o2 in pairs
                if o2 == o and d in mine[m]
            )
            assert node_count[i] == expected, key
        else:
            assert len(key) == 2
            o = key[1]
            assert node_count[i] == sum(len(mine[m]) for m, o2 in pairs if o2 == o), key


def _counts(cards):
    return [sum(1 for c in cards if c == r) for r in range(1, 13)]


def _clash(pub, m, o) -> bool:
    return any(_counts(m)[r] + _counts(o)[r] > _counts(pub)[r] for r in range(12))


def standard_view(seed: int):
    state = GameState.new(STANDARD, seed)
    return state, state.view(state.acting_players()[0])


def test_a_seed_gives_the_same_answer():
    _, view = standard_view(5)
    a = replace_game(view, Budget(samples=4, seed=7))
    b = replace_game(view, Budget(samples=4, seed=7))
    assert [(m.action, m.value) for m in a.moves] == [(m.action, m.value) for m in b.moves]
    assert a.discard_mix == b.discard_mix and a.nodes == b.nodes and a.iterations == b.iterations
    assert abs(sum(p for _, p in a.discard_mix) - 1) < 1e-9
    assert {m.action.cards for m in a.moves} == {d for d, _ in a.discard_mix}


def test_my_answer_reads_my_view_only():
    """Two deals that differ only in the opponent's hand and the draw pile
    give me the same view, hence the same answer."""
    state, view = standard_view(11)
    me = view.player
    other = GameState.new(STANDARD, 11)
    opp, pile = list(other.hands[1 - me]), list(other.draw_pile)
    opp[0], pile[0] = pile[0], opp[0]  # a card of its hand swapped with one of the pile
    other.hands[1 - me] = hand(opp)
    other.draw_pile = pile
    assert other.view(me) == view and other.hands[1 - me] != state.hands[1 - me]
    a = replace_game(view, Budget(samples=3, seed=2))
    b = replace_game(other.view(me), Budget(samples=3, seed=2))
    assert [(m.action, m.value) for m in a.moves] == [(m.action, m.value) for m in b.moves]


def test_a_stop_answers_with_what_was_built():
    _, view = standard_view(4)
    stop = threading.Event()
    stop.set()
    r = replace_game(view, Budget(samples=10**6, seed=0, stop=stop))
    assert r.stopped and r.opponent_types >= 1 and r.moves


def test_the_game_refuses_what_it_is_not():
    state, view = standard_view(0)
    with pytest.raises(TacocatError, match="round_search"):
        replace_game(view, Budget(samples=2), round_search=True)
    state.apply(view.player, state.legal_actions(view.player)[0])
    state.apply(1 - view.player, state.legal_actions(1 - view.player)[0])
    assert state.view(0).decision != REPLACE
    with pytest.raises(TacocatError, match="no replace decision"):
        replace_game(state.view(0), Budget(samples=2))


def test_the_replacement_game_is_asked_for_by_the_declared_option():
    from tacocat.players.bots import make_bot
    from tacocat.search.hint import Knobs, hint

    _, view = standard_view(3)
    res = hint(view, Budget(samples=3, seed=1), knobs=Knobs(replace="game"))
    sub = res.to_dict()["subgame"]
    assert sub["solved"] == "replacement game" and sub["opponent_types"] >= 1 and sub["nodes"] > 0
    assert sub["opponent_replies"] is True and sum(m["probability"] for m in sub["mix"]) <= 1 + 1e-9
    assert hint(view, Budget(samples=30, seed=1)).subgame is None  # the static search, as before
    bot = make_bot("pimc", replace="game", replace_samples=3, candidates=6, seed=2)
    assert bot.choose(view, random.Random(0)) in view.legal_actions()
    with pytest.raises(TacocatError, match="pimc_static: its replacement is the static search"):
        make_bot("pimc_static", replace="game")
    with pytest.raises(TacocatError, match="replace"):
        make_bot("pimc", replace="dynamic")


def test_the_hint_command_says_what_it_solved():
    from tacocat.cli.main import app

    out = CliRunner().invoke(
        app,
        ["hint", "--phase", "replace", "--hand", "1 3 4 4 8 10 11 12 12", "--replace", "game", "--iterations", "3"],
    )
    assert out.exit_code == 0, out.output
    assert "solved as a game: your discard, the draws, the opponent's replacement" in out.output
    assert "its strategy for your hand" in out.output


def test_the_protocol_hint_takes_the_option():
    from tacocat.protocol.session import EngineSession

    _, view = standard_view(3)
    r = EngineSession().handle({"id": 1, "cmd": "hint", "view": view.to_dict(), "iterations": 3, "replace": "game"})
    assert r["ok"], r
    assert r["result"]["subgame"]["solved"] == "replacement game"
    bad = EngineSession().handle({"id": 2, "cmd": "hint", "view": view.to_dict(), "replace": "dynamic"})
    assert not bad["ok"] and "replace" in bad["error"]["message"]


# ------------------------------------------------- the guided replacement


def seven_card_rules(centre: str) -> Ruleset:
    """The standard deck, every space dealing 7 (no world duel in the leaves), the centre's arrow `centre`."""
    d = STANDARD.to_dict()
    d.update(name=f"seven-{centre}", board=[7] * 7, arrows=["p1", "p1", "p1", centre, "p0", "p0", "p0"])
    return Ruleset.from_dict(d)


def test_the_guided_correction_is_zero_where_the_game_is_the_static_evaluation():
    """Replacing last (R7, the opponent replaced already) on 7-card hands,
    the game has no reply and its leaves duel the highest cards, as the
    static evaluation does: on the game's own worlds the two agree, so
    every correction is 0 and the scores are the static values."""
    state = GameState.new(seven_card_rules("p0"), 3)
    state.apply(0, next(a for a in state.legal_actions(0) if len(a.cards) == 3))
    r = guided_replace(state.view(1), Budget(samples=300, seed=4), utilities=U)
    assert not r.exact_draws and not r.opponent_replies and r.my_types == 1 and r.opponent_types >= 2
    assert len(r.corrections) == len(r.static_values) == GUIDED_KEEP
    assert all(abs(c) < 1e-12 for _, c in r.corrections)
    static = dict(r.static_values)
    assert [m.value for m in r.moves[:GUIDED_KEEP]] == pytest.approx(sorted(static.values(), reverse=True), abs=1e-12)


def test_the_guided_choice_is_the_best_static_value_plus_correction():
    """As the first replacer (R7) the reply is in the game: each kept
    discard's score is its static value plus its correction, the best is
    played (a pure choice), and the kept discards are the static search's
    best, which the same seed ranks the same way alone."""
    from tacocat.search.decisions import replace_eval

    view = first_view(seven_card_rules("p0"), 5)
    b = Budget(samples=300, seed=9)
    r = guided_replace(view, b, utilities=U)
    static = replace_eval(view, b, utilities=U)
    assert [d for d, _ in r.static_values] == [m.action.cards for m in static.moves[:GUIDED_KEEP]]
    assert r.opponent_replies and r.static_evaluations == static.evaluations
    score = {d: v + c for (d, v), (_, c) in zip(r.static_values, r.corrections, strict=True)}
    assert [m.value for m in r.moves[:GUIDED_KEEP]] == pytest.approx(sorted(score.values(), reverse=True), abs=1e-12)
    assert r.discard_mix == ((r.moves[0].action.cards, 1.0),) and r.moves[0].action.cards in score
    assert {d for d, _ in r.game_mix} == set(score) and abs(sum(p for _, p in r.game_mix) - 1) < 1e-9
    again = guided_replace(view, b, utilities=U)
    assert [(m.action, m.value) for m in again.moves] == [(m.action, m.value) for m in r.moves]
    # every kept discard of the game's own: the static evaluation on its worlds differs from the game's value
    assert any(abs(c) > 1e-9 for _, c in r.corrections)


def test_the_guided_replacement_scores_by_the_game_where_the_draws_are_exact():
    view = first_view(tiny("p0", 3, (4, 4, 4)), 1)
    r = guided_replace(view, Budget(samples=200, seed=0), utilities=U)
    assert r.exact_draws and r.corrections == () and r.opponent_types == len(HandSampler(view).enumerate())
    solved = {m.action.cards: m.value for m in r.moves[: len(r.static_values)]}
    assert set(solved) == {d for d, _ in r.static_values}


def test_the_guided_replacement_is_asked_for_by_the_declared_option():
    from tacocat.players.bots import make_bot
    from tacocat.search.hint import Knobs, hint

    _, view = standard_view(3)
    res = hint(view, Budget(samples=40, seed=1), knobs=Knobs(replace="guided"))
    assert res.to_dict()["subgame"]["solved"] == "replacement game"
    assert isinstance(res.search, GuidedReplaceResult) and res.action.cards == res.search.discard_mix[0][0]
    bot = make_bot("pimc", replace="guided", replace_samples=40, candidates=6, seed=2)
    assert bot.choose(view, random.Random(0)) == bot.choose(view, random.Random(0))
    with pytest.raises(TacocatError, match="pimc_static: its replacement is the static search"):
        make_bot("pimc_static", replace="guided")
    with pytest.raises(TacocatError, match="round_search"):
        guided_replace(view, Budget(samples=2), round_search=True)


def test_the_hint_command_says_what_the_guided_search_did():
    from tacocat.cli.main import app

    out = CliRunner().invoke(
        app,
        ["hint", "--phase", "replace", "--hand", "1 3 4 4 8 10 11 12 12", "--replace", "guided", "--iterations", "600"],
    )
    assert out.exit_code == 0, out.output
    assert f"the static search's best {GUIDED_KEEP} discards" in out.output
    assert "static value + correction = score: replace" in out.output and "the best score is played" in out.output
