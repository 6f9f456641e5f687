"""A plain, slow reference for the hidden-hand endgame (no trust in the
CFR core): the game tree written out deal by deal with the rules module's
own move lists (`tacocat.rules.play`), a brute-force best response, and the
sequence-form linear program solved by scipy's HiGHS."""

from __future__ import annotations

from collections import defaultdict
from math import comb

from tacocat.rules.cards import counts, remove
from tacocat.rules.play import answers, attacks


def multisets(pool_counts, k, floor=1):
    out = []

    def rec(r, left, cur):
        if left == 0:
            out.append(tuple(cur))
            return
        if r > 12:
            return
        for t in range(min(pool_counts[r], left), -1, -1):
            rec(r + 1, left - t, cur + [r] * t)

    rec(floor, k, [])
    return out


def deals(endgame):
    """Every pair of current hands with its chance probability (R6, R20)."""
    pc = counts(endgame.pool)
    f0, f1 = endgame.floors
    out = []
    for a in multisets(pc, endgame.sizes[0], f0):
        ca = counts(a)
        rest = [pc[r] - ca[r] for r in range(13)]
        for b in multisets(rest, endgame.sizes[1], f1):
            cb = counts(b)
            w = 1
            for r in range(1, 13):
                w *= comb(pc[r], ca[r]) * comb(pc[r] - ca[r], cb[r])
            out.append((a, b, w))
    z = sum(w for *_, w in out)
    return [(a, b, w / z) for a, b, w in out]


def moves(hands, attacker, table):
    """(actor, [(cards, beats)]) at a node, or (None, []) at the showdown."""
    if not table:
        if len(hands[0]) == 1 and len(hands[1]) == 1:
            return None, []
        return attacker, [(a, None) for a in attacks(hands[attacker])]
    d = 1 - attacker
    return d, list(answers(table, hands[d]))


def step(hands, attacker, table, actor, cards, beats):
    h = list(hands)
    h[actor] = remove(h[actor], cards)
    if not table:
        return (h[0], h[1]), attacker, cards
    return (h[0], h[1]), (actor if beats else attacker), ()


def utility0(endgame, hands):
    a, b = hands[0][0], hands[1][0]
    w, d, l = endgame.utilities
    return w if a < b else l if a > b else d


def best_response_value(endgame, p, sigma):
    """Player p's best-response value against `sigma(player, hand, history)
    -> {(cards, beats): probability}` for the other player, by brute force.
    p's information set after a history is its current hand, which with
    p's played cards fixes its dealt hand, so the best response is found
    hand by hand: a max over p's moves, an average over the opponent's
    (weighted by chance and sigma), every move listed by `tacocat.rules.play`."""
    by_hand = defaultdict(list)
    for a, b, w in deals(endgame):
        own, opp = (a, b) if p == 0 else (b, a)
        by_hand[own].append((opp, w))
    sign = 1.0 if p == 0 else -1.0

    def value(own, attacker, table, history, worlds):
        hands = (own, worlds[0][0]) if p == 0 else (worlds[0][0], own)
        actor, ms = moves(hands, attacker, table)
        if actor is None:
            return sum(w * sign * utility0(endgame, (own, opp) if p == 0 else (opp, own)) for opp, w in worlds)
        if actor == p:
            best = None
            for cards, beats in ms:
                nh, na, nt = step(hands, attacker, table, actor, cards, beats)
                v = value(nh[p], na, nt, history + ((actor, cards, beats),), worlds)
                best = v if best is None or v > best else best
            return best
        split = defaultdict(list)
        for opp, w in worlds:
            hs = (own, opp) if p == 0 else (opp, own)
            for (cards, beats), pr in sigma(actor, opp, history).items():
                if pr > 0:
                    nh, na, nt = step(hs, attacker, table, actor, cards, beats)
                    split[(cards, beats, na, nt)].append((nh[actor], w * pr))
        return sum(
            value(own, na, nt, history + ((actor, cards, beats),), ws) for (cards, beats, na, nt), ws in split.items()
        )

    return sum(value(own, endgame.attacker, endgame.table, (), worlds) for own, worlds in by_hand.items())


def sequence_form_value(endgame):
    """The endgame's value for player 0 from the sequence-form LP (HiGHS)."""
    # scipy and numpy only here: collecting the tests need not load them
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    seqs = [{(): 0}, {(): 0}]  # player -> {sequence key: index}
    infosets = [{}, {}]  # player -> {infoset key: parent sequence index}
    inf_actions = [defaultdict(list), defaultdict(list)]
    payoff = defaultdict(float)

    def seq_index(p, key):
        if key not in seqs[p]:
            seqs[p][key] = len(seqs[p])
        return seqs[p][key]

    def walk(hands, attacker, table, history, last, prob):
        actor, ms = moves(hands, attacker, table)
        if actor is None:
            payoff[(last[0], last[1])] += prob * utility0(endgame, hands)
            return
        info = (hands[actor], history)
        if info not in infosets[actor]:
            infosets[actor][info] = last[actor]
        for cards, beats in ms:
            s = seq_index(actor, (info, cards, beats))
            if s not in inf_actions[actor][info]:
                inf_actions[actor][info].append(s)
            nl = list(last)
            nl[actor] = s
            nh, na, nt = step(hands, attacker, table, actor, cards, beats)
            walk(nh, na, nt, history + ((actor, cards, beats),), tuple(nl), prob)

    for a, b, w in deals(endgame):
        walk((a, b), endgame.attacker, endgame.table, (), (0, 0), w)

    n0, n1 = len(seqs[0]), len(seqs[1])

    # E x = e: x[empty] = 1; for each p0 infoset, sum of its sequences = parent
    def constraints(p):
        rows, cols, vals = [0], [0], [1.0]
        for i, (info, parent) in enumerate(infosets[p].items(), 1):
            rows.append(i)
            cols.append(parent)
            vals.append(-1.0)
            for s in inf_actions[p][info]:
                rows.append(i)
                cols.append(s)
                vals.append(1.0)
        m = len(infosets[p]) + 1
        return coo_matrix((vals, (rows, cols)), shape=(m, len(seqs[p]))).tocsr(), m

    E, m0 = constraints(0)
    F, m1 = constraints(1)
    keys = list(payoff)
    A = coo_matrix(([payoff[k] for k in keys], ([k[0] for k in keys], [k[1] for k in keys])), shape=(n0, n1)).tocsr()
    # variables [x (n0), z (m1)]: max f^T z  s.t.  F^T z - A^T x <= 0,  E x = e,  x >= 0
    from scipy.sparse import csr_matrix, hstack

    c = np.zeros(n0 + m1)
    c[n0] = -1.0  # f = (1, 0, ...): the root constraint's multiplier
    A_ub = hstack([-A.T, F.T]).tocsr()
    b_ub = np.zeros(n1)
    A_eq = hstack([E, csr_matrix((m0, m1))]).tocsr()
    b_eq = np.zeros(m0)
    b_eq[0] = 1.0
    bounds = [(0, None)] * n0 + [(None, None)] * m1
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return -res.fun
