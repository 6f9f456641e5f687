"""The duel as a Bayesian game (issue 34, deliverable 1: tacocat.search.duel_game).

Every exact claim is bound to a plain check written here from the rules:
the types and their joint weights by brute force over card subsets of the
public pool, the game's value and both strategies' exploitability by a
linear program (scipy's HiGHS) of the same Bayesian game; with one type a
side, today's matrix game; and the answer reads my view only."""

from __future__ import annotations

import itertools
import random
import threading
from collections import defaultdict

import numpy as np
import pytest
from scipy.optimize import linprog

from tacocat.rules.cards import Hand, hand, remove
from tacocat.rules.game import DUEL, GameState
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search.budget import Budget
from tacocat.search.decisions import KnownHandSampler, cell_outcome, duel_matrix, solve_matrix_game
from tacocat.search.duel_game import build_duel_game, duel_game, gains, solve_bayesian
from tacocat.search.pimc import PerfectSolver
from tacocat.search.sampling import HandSampler

PAIRS = Ruleset.from_dict(
    {
        "name": "pairs",
        "deck": [2] * 6 + [0] * 6,
        "board": [3] * 7,
        "arrows": ["p0", "p0", "p0", "both", "p1", "p1", "p1"],
        "tie": "arrow",
        "max_deals": 5,
    }
)
"""Two cards of each rank 1..6, hands of three: duplicate ranks make the
joint weights of multiset hands differ, and both sides' types are few."""
U = (1.0, 0.0, -1.0)


def duel_start(rules: Ruleset, seed: int) -> tuple[GameState, int] | None:
    """A game played by seeded random legal moves up to a duel that no one
    has chosen yet, and a player to decide it."""
    rng = random.Random(seed)
    state = GameState.new(rules, seed)
    while not state.over:
        players = state.acting_players()
        if state.view(players[0]).decision == DUEL and len(players) == 2:
            return state, rng.choice(players)
        p = rng.choice(players)
        state.apply(p, rng.choice(state.legal_actions(p)))
    return None


def duel_views(rules: Ruleset, count: int, first_seed: int = 0):
    out = []
    seed = first_seed
    while len(out) < count:
        found = duel_start(rules, seed)
        if found is not None:
            out.append((found[0], found[0].view(found[1])))
        seed += 1
    return out


# ------------------------------------------------ the game, built by brute force


def brute_force_game(view) -> tuple[dict[tuple[Hand, Hand], float], list[Hand], list[Hand]]:
    """Joint weights of (my hand, its hand) from the card subsets of the
    public pool (deck less face-up cards): every pair of disjoint card
    subsets counts once, the opponent's hand restricted to the hands my
    real hand leaves (its types are my view's worlds)."""
    pub = list(view.unseen_pool + view.hand)
    n = len(view.hand)
    weight: dict[tuple[Hand, Hand], float] = defaultdict(float)
    for mine in itertools.combinations(range(len(pub)), n):
        left = [k for k in range(len(pub)) if k not in mine]
        m = hand(pub[k] for k in mine)
        for theirs in itertools.combinations(left, n):
            weight[(m, hand(pub[k] for k in theirs))] += 1.0
    opp_types = sorted({o for (m, o) in weight if m == view.hand})
    kept = {(m, o): w for (m, o), w in weight.items() if o in set(opp_types)}
    total = sum(kept.values())
    my_types = sorted({m for (m, o) in kept})
    return {k: w / total for k, w in kept.items()}, my_types, opp_types


def remove_fails(cards: Hand, sub: Hand) -> bool:
    try:
        remove(cards, sub)
    except Exception:
        return True
    return False


def lp_value(weight, my_types, opp_types, solver) -> tuple[float, dict]:
    """max over my per-hand mixes of sum_O min_j sum_(M, i) w(M, O) x(M, i) u(M, i, O, j),
    by HiGHS; also returns the cells it used, (M, i, O, j) -> my utility."""
    seqs = [(m, i) for m in my_types for i in sorted(set(m))]
    col = {s: k for k, s in enumerate(seqs)}
    nx, nv = len(seqs), len(opp_types)
    cells = {}
    rows, rhs = [], []
    for b, o in enumerate(opp_types):
        for j in sorted(set(o)):
            row = np.zeros(nx + nv)
            row[nx + b] = 1.0  # v_O - sum w x u <= 0
            for m in my_types:
                w = weight.get((m, o), 0.0)
                if w == 0:
                    continue
                for i in sorted(set(m)):
                    u = U[1 - cell_outcome(m, o, i, j, solver)]
                    cells[(m, i, o, j)] = u
                    row[col[(m, i)]] -= w * u
            rows.append(row)
            rhs.append(0.0)
    eq = np.zeros((len(my_types), nx + nv))
    for a, m in enumerate(my_types):
        for i in sorted(set(m)):
            eq[a, col[(m, i)]] = 1.0
    c = np.concatenate([np.zeros(nx), -np.ones(nv)])
    res = linprog(
        c,
        A_ub=np.array(rows),
        b_ub=rhs,
        A_eq=eq,
        b_eq=np.ones(len(my_types)),
        bounds=[(0, None)] * nx + [(None, None)] * nv,
        method="highs",
    )
    assert res.status == 0, res.message
    return -res.fun, cells


def responses(weight, my_types, opp_types, cells, x, y) -> tuple[float, float, float]:
    """(value of x against y, my best response to y, its best response to x), by loops."""

    def per_card(own, others, value_of) -> dict:
        """Each card of hand `own`: its value summed over the other side's hands and mixes."""
        sums = {c: 0.0 for c in set(own)}
        for other in others:
            for c in set(own):
                for d in set(other):
                    sums[c] += value_of(own, c, other, d)
        return sums

    def cell(m, i, o, j):
        # pairs of hands the history rules out have no cell
        w = weight.get((m, o), 0.0)
        return w * cells[(m, i, o, j)] if w else 0.0

    def mine_vs_y(m, i, o, j):
        return y[(o, j)] * cell(m, i, o, j)

    def theirs_vs_x(o, j, m, i):
        return x[(m, i)] * cell(m, i, o, j)

    value = mine = theirs = 0.0
    for m in my_types:
        sums = per_card(m, opp_types, mine_vs_y)
        mine += max(sums.values())
        value += sum(x[(m, i)] * v for i, v in sums.items())
    for o in opp_types:
        theirs += min(per_card(o, my_types, theirs_vs_x).values())
    return value, mine, theirs


def strategies(game, solved) -> tuple[dict, dict]:
    """The solver's averages keyed by (hand, card)."""
    x, y = {}, {}
    k = 0
    for m, cards in zip(game.my_hands, game.my_cards, strict=True):
        for i in cards:
            x[(m, i)] = float(solved.x[k])
            k += 1
    k = 0
    for o, cards in zip(game.opp_hands, game.opp_cards, strict=True):
        for j in cards:
            y[(o, j)] = float(solved.y[k])
            k += 1
    return x, y


@pytest.mark.parametrize("seed", [0, 1, 4])
def test_listed_game_matches_brute_force_and_its_lp(seed):
    """On hands of three from two cards a rank, both sides' types are
    listed: the game's types and joint weights are the brute-force ones,
    and its value and both average strategies' exploitability agree with
    the LP of the same game within 1e-3."""
    ((_, view),) = duel_views(PAIRS, 1, first_seed=10 * seed)
    solver = PerfectSolver(PAIRS)
    game = build_duel_game(view, Budget(seed=seed), solver, HandSampler(view))
    assert game.my_exact and game.opp_exact
    weight, my_types, opp_types = brute_force_game(view)
    assert game.my_hands[0] == view.hand
    assert sorted(game.my_hands) == my_types and sorted(game.opp_hands) == opp_types
    total = game.weight.sum()
    for a, m in enumerate(game.my_hands):
        for b, o in enumerate(game.opp_hands):
            assert game.weight[a, b] / total == pytest.approx(weight.get((m, o), 0.0), abs=1e-12)
    p, ms, os_ = game.payoff(U)
    solved = solve_bayesian(p, ms, os_, target=1e-5)
    v_lp, cells = lp_value(weight, my_types, opp_types, solver)
    x, y = strategies(game, solved)
    value, mine, theirs = responses(weight, my_types, opp_types, cells, x, y)
    assert abs(solved.value - v_lp) <= 1e-3
    assert abs(value - solved.value) <= 1e-9
    assert mine - v_lp <= 1e-3 and v_lp - theirs <= 1e-3  # neither side gains 1e-3 by deviating
    assert solved.my_gain == pytest.approx(mine - value, abs=1e-9)
    assert solved.opponent_gain == pytest.approx(value - theirs, abs=1e-9)
    # the API's answer: the same game, my real hand's part of it
    res = duel_game(view, Budget(seed=seed), solver=solver, target=1e-5)  # the game and the iterations above
    assert res.exact and res.my_types == len(my_types) and res.opponent_types == len(opp_types)
    assert abs(res.whole_value - v_lp) <= 1e-3 and res.exploitability <= 1e-3
    real = {m.card: m.probability for m in res.mixed}
    row = sum(w for (m, _), w in weight.items() if m == view.hand)
    mine_value = (
        sum(
            w * real[i] * y[(o, j)] * cells[(view.hand, i, o, j)]
            for (m, o), w in weight.items()
            if m == view.hand
            for i in set(m)
            for j in set(o)
        )
        / row
    )
    assert res.game_value == pytest.approx(mine_value, abs=1e-9)


def test_solver_matches_lp_on_random_bayesian_games():
    """CFR+ on random games of three types a side, up to four cards a type:
    its value is the LP's within 1e-3 and it names its exploitability."""
    rng = np.random.default_rng(7)
    for _ in range(10):
        mine = rng.integers(1, 5, size=3)
        theirs = rng.integers(1, 5, size=3)
        p = rng.normal(size=(mine.sum(), theirs.sum())) * (rng.random((mine.sum(), theirs.sum())) < 0.8)
        ms = np.concatenate([[0], np.cumsum(mine)[:-1]])
        os_ = np.concatenate([[0], np.cumsum(theirs)[:-1]])
        solved = solve_bayesian(p, ms, os_, iterations=5000, target=1e-5)
        # LP: max sum_b v_b, v_b <= (x'P)_t for t in b, x a distribution per my type
        nx, nv = p.shape[0], len(theirs)
        block = np.repeat(np.arange(nv), theirs)
        a_ub = np.hstack([-p.T, np.eye(nv)[block]])
        a_eq = np.hstack([np.eye(len(mine))[np.repeat(np.arange(len(mine)), mine)].T, np.zeros((len(mine), nv))])
        res = linprog(
            np.concatenate([np.zeros(nx), -np.ones(nv)]),
            A_ub=a_ub,
            b_ub=np.zeros(len(block)),
            A_eq=a_eq,
            b_eq=np.ones(len(mine)),
            bounds=[(0, None)] * nx + [(None, None)] * nv,
            method="highs",
        )
        assert abs(solved.value - (-res.fun)) <= 1e-3
        assert solved.exploitability <= 1e-5
        value, g_mine, g_theirs = gains(p, ms, os_, solved.x, solved.y)
        assert (value, g_mine, g_theirs) == (solved.value, solved.my_gain, solved.opponent_gain)


def test_one_type_a_side_is_the_matrix_game():
    """My real hand alone against one known opponent hand: the matrix game
    of `duel_matrix`'s cells, solved by `solve_matrix_game` (both the value
    and my mix's guarantee)."""
    for state, view in duel_views(STANDARD, 3):
        opp = state.hands[1 - view.player]
        solver = PerfectSolver()
        sampler = KnownHandSampler(opp, view.unseen_pool)
        res = duel_game(view, Budget(seed=1), solver=solver, sampler=sampler, my_types=0, target=1e-6)
        assert res.my_types == 1 and res.opponent_types == 1
        cells = duel_matrix(view.hand, [(opp, 1.0)], U, solver)
        a = cells["su"] / cells["w"]
        _, _, v = solve_matrix_game(a)
        assert res.game_value == pytest.approx(v, abs=1e-3)
        assert res.whole_value == pytest.approx(v, abs=1e-3)
        x = np.array([m.probability for m in res.mixed])
        assert [m.card for m in res.mixed] == cells["rows"]
        assert (x @ a).min() >= v - 1e-3  # my mix guarantees the value


def test_seeded_answers_repeat():
    """The same seed and count budget give the same answer (a solver that
    has seen other positions too); another seed draws other types."""
    ((_, view),) = duel_views(STANDARD, 1, first_seed=3)
    a = duel_game(view, Budget(samples=12, seed=5))
    warm = PerfectSolver()
    duel_game(view, Budget(samples=12, seed=9), solver=warm)
    b = duel_game(view, Budget(samples=12, seed=5), solver=warm)
    assert (a.mixed, a.game_value, a.opponent_mix, a.iterations, a.exploitability) == (
        b.mixed,
        b.game_value,
        b.opponent_mix,
        b.iterations,
        b.exploitability,
    )
    assert [(m.action, m.value) for m in a.moves] == [(m.action, m.value) for m in b.moves]
    c = duel_game(view, Budget(samples=12, seed=6))
    assert (c.game_value, c.whole_value) != (a.game_value, a.whole_value)


def legal_mix(res, view) -> None:
    cards = [m.card for m in res.mixed]
    assert cards == sorted(set(view.hand))
    probs = np.array([m.probability for m in res.mixed])
    assert (probs >= 0).all() and abs(probs.sum() - 1.0) <= 1e-9


def test_stop_and_tiny_budgets_return_a_legal_mix():
    ((_, view),) = duel_views(STANDARD, 1, first_seed=4)
    stop = threading.Event()
    stop.set()
    res = duel_game(view, Budget(stop=stop, seed=1), exact_budget=-1)
    legal_mix(res, view)
    assert res.stopped and res.opponent_types <= 4 and res.seconds < 1.0
    res = duel_game(view, Budget(time_ms=1, seed=1), exact_budget=-1, minimum=1)
    legal_mix(res, view)
    assert res.opponent_types >= 1 and res.seconds < 1.0


def test_answer_reads_my_view_only():
    """Two games equal for me but for the opponent's real hand (cards
    swapped between its hand and the draw pile) give the same answer."""
    for state, view in duel_views(STANDARD, 3, first_seed=20):
        twin = state.clone()
        q = 1 - view.player
        theirs, pile = list(twin.hands[q]), twin.draw_pile[:]
        k = next(k for k, c in enumerate(pile) if c not in theirs)
        theirs[0], pile[k] = pile[k], theirs[0]
        twin.hands[q], twin.draw_pile = hand(theirs), pile
        assert twin.hands[q] != state.hands[q]
        assert twin.view(view.player) == view
        a = duel_game(view, Budget(samples=10, seed=2))
        b = duel_game(twin.view(view.player), Budget(samples=10, seed=2))
        assert (a.mixed, a.game_value, a.moves) == (b.mixed, b.game_value, b.moves)


def test_my_real_hand_meets_the_samplers_worlds():
    """Sampled: my real hand's pairs weigh what the sampler's worlds weigh
    (each draw 1, as `duel_eval`'s), my other types only the opponent hands
    they leave possible."""
    ((_, view),) = duel_views(STANDARD, 1, first_seed=5)
    game = build_duel_game(view, Budget(samples=30, seed=3), PerfectSolver(), HandSampler(view), exact_budget=-1)
    assert not game.my_exact and not game.opp_exact and game.used == 30
    assert np.all(game.weight[0] == 1.0)
    pub = view.unseen_pool + view.hand
    for a, m in enumerate(game.my_hands):
        for b, o in enumerate(game.opp_hands):
            fits = not remove_fails(remove(hand(pub), m), o)
            assert (game.weight[a, b] > 0) == fits
            assert ((a, b) in game.cells) == fits
