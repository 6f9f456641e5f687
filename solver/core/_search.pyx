# cython: language_level=3
"""The exact perfect-information solver of the play phase (R10–R17), in C.

Private: `tacocat.core.exact` validates positions and calls `Core`; Cython modules
may cimport the declarations in `_search.pxd`.  Everything below the Python
wrapper runs without the GIL and touches no Python object per node.

Search
------
Fail-soft alpha-beta (negamax over the attacker's view of the value, see the
.pxd) on levels 0..2.  An *attack node* (empty table) is a max over the
attacker's attacks; each attack leads to a *table node*, a min over the
defender's distinct answers; an answer that beats hands the attack to the
defender (R14), so the child is seen from the other side (``2 - v``).
Two-card nodes are evaluated directly; only attack nodes of 3+ cards use the
transposition table.

Move ordering ("win cheaply, else lose cheaply"; equivalent cards are merged
because a move is a multiset: two 7s are one choice): the table's best
attack first, then attacks with the highest cards first (dumping high cards
is what wins a showdown with the lower card); answers that beat first, those
with the lowest cards first (beat cheaply), then sacrifices, highest cards
first.  At a table node, before searching any answer, the table is asked
whether one of the answers is already known to refute the attack (enhanced
transposition cutoff, 10-17% fewer nodes).  Measured alternatives, nodes on
8-card deals: lowest attacks first ~8x, biggest attacks first ~1.1x,
sacrifices first ~4x, beating with the highest cards first ~2x.

Transposition table
-------------------
Trade-off: the game has three values and tiny hands, so an entry is cheap to
recompute near the leaves but the tree above eight-card hands is wide; we
store only attack nodes of 3+ cards, keep the *full* key (no collisions, no
verification needed) and pay 16 bytes per entry for it.  Buckets of four
entries share one 64-byte cache line.

Entry (16 bytes, `tc_tt_entry`, size checked when the C file compiles)::

    key   63..48  hand of player 1, bits 0..15
          47..0   hand of player 0 (packed)
    data  63..61  unused (0)
          60..53  generation 1..255 (0: empty)
          52..49  hand size h of the position (3..12)
          48..42  best attack index + 1 in gen_attacks order (0: none)
          41..40  upper bound of the value (attacker's view, 0..2)
          39..38  lower bound
          37..33  ordering id: 9*level(win) + 3*level(draw) + level(loss)
          32      attacker
          31..0   hand of player 1, bits 16..47

The position's full key is key plus data bits 0..37, so searches with
different utility orderings never share an entry.  Values are exact game
values, not search artefacts, so entries stay valid across searches; a
*generation* tells this search's entries from older ones.  `ctx_new_search`
starts a generation; with keep=False (or after `ctx_clear`) older entries
count as empty, which clears the table in O(1) (a real memset happens only
when the 8-bit generation wraps).

Replacement: a store to a position already present intersects the bounds;
otherwise it always writes, over the bucket's entry worth least, where an
empty or invalid entry is worth least of all and a valid entry is worth
``h - 2 * age`` (age = generations since it was stored): big subtrees are
kept, old entries age out.  Ties go to the first entry, so node counts are
deterministic.
"""

from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

# ---- TT data word layout (see module docstring) ----
cdef enum:
    D_ATTACKER = 32
    D_ORDER = 33
    D_LO = 38
    D_HI = 40
    D_BEST = 42
    D_H = 49
    D_GEN = 53

cdef uint64_t DATA_KEY_MASK = ((<uint64_t>1) << 38) - 1
cdef uint64_t DATA_VALUE_CLEAR = ~((<uint64_t>0xF) << D_LO)


# ======================================================================
# Move generation
# ======================================================================

cdef extern from "<assert.h>" nogil:
    # The C assert: compiled out (NDEBUG) in a release build, on in the
    # debug build (TACOCAT_DEBUG=1, see setup.py).  Contracts of the
    # generators, whose output arrays are sized for hands of MAX_HAND cards.
    void c_assert "assert"(bint condition)


cdef int gen_attacks(hand_t hand, hand_t* out) noexcept nogil:
    """R10–R11: singles, sets of 2+ of one rank, sequences of 3+ consecutive
    ranks (one of each), each of at most h - 1 cards.  Order: by lowest rank,
    then singles/sets by size, then sequences by length."""
    cdef int limit = hand_size(hand) - 1
    cdef int n = 0, r, r2, c, size, length
    cdef hand_t seq
    c_assert(limit < MAX_HAND)
    if limit < 1:
        return 0
    for r in range(12):
        c = <int>((hand >> (4 * r)) & 15)
        if c == 0:
            continue
        if c > limit:
            c = limit
        for size in range(1, c + 1):
            out[n] = (<hand_t>size) << (4 * r)
            n += 1
        seq = (<hand_t>1) << (4 * r)
        length = 1
        r2 = r + 1
        while r2 < 12 and ((hand >> (4 * r2)) & 15) != 0:
            length += 1
            if length > limit:
                break
            seq |= (<hand_t>1) << (4 * r2)
            if length >= MIN_SEQUENCE:
                out[n] = seq
                n += 1
            r2 += 1
    c_assert(n <= MAX_ATTACKS)
    return n


cdef int _dominating(answer_t* out, int n_out, const int* avail, const int* need,
                     const int* below, int r, int chosen, int m, hand_t acc) noexcept nogil:
    # Every count vector x[r'] <= avail[r'] (ranks r' <= r still open) with
    # chosen + sum x = m and, for every rank v, (cards chosen >= v) >= need[v]:
    # i.e. the chosen cards sorted ascending dominate the matching attack
    # cards pairwise (Hall's condition).  Emits acc | chosen cards.
    cdef int lo, hi, x
    if chosen == m:
        out[n_out] = acc
        return n_out + 1
    if r == 0 or chosen + below[r] < m:
        return n_out
    lo = need[r] - chosen
    if lo < 0:
        lo = 0
    hi = avail[r]
    if hi > m - chosen:
        hi = m - chosen
    x = hi
    while x >= lo:
        n_out = _dominating(out, n_out, avail, need, below, r - 1, chosen + x, m,
                            acc + ((<hand_t>x) << (4 * (r - 1))))
        x -= 1
    return n_out


cdef inline void _fill_need(int* need, const int* t, int m) noexcept nogil:
    # need[v] = cards >= v among the m lowest attack cards t[0..m) (ascending)
    cdef int r, i
    for r in range(14):
        need[r] = 0
    for i in range(m):
        need[t[i]] += 1
    for r in range(11, 0, -1):
        need[r] += need[r + 1]


cdef int gen_answers(hand_t attack, hand_t defender, answer_t* out) noexcept nogil:
    """R12–R13: every distinct (cards removed, all beat) answer, each once.

    Attack t1 <= ... <= tk, defender's hand d1 <= ... <= dn (k <= n).

    * beats=True: the k-card sub-multisets R of the hand whose sorted cards
      dominate the attack pairwise (r_i >= t_i).  Any order of answering
      works, since a beating answer need not be the lowest card.
    * beats=False: R = {d1..ds} + B, s >= 1 sacrifices, where
      d_i < t_(k-s+i) for i = 1..s and B is a (k-s)-card sub-multiset of
      d_(s+1)..d_n dominating t1..t_(k-s) pairwise.

    Why (sacrifice = a non-beating answer, R12):
    1. Beats first.  Playing every beating answer before the sacrifices keeps
       the play legal: at each sacrifice the hand left is a subset of the one
       in the original order and still holds the sacrificed card, so that
       card is still the lowest.  So the sacrifices S are the s lowest cards
       of the hand less the beating cards B, taken in ascending order.
    2. Sacrifices against the highest attack cards, beats against the
       lowest: swapping a sacrificed attack card a with a beaten one a' > a
       keeps both answers legal (c < a < a', b >= a' > a).
    3. S is the s lowest cards of the whole hand: if some b in B is lower
       than some c in S, answer a_c with b (b < c < a_c, still a sacrifice,
       and b is the lowest card left) and a_b with c (c > b >= a_b, a beat).
       Repeating this makes S = {d1..ds}; then B comes from the rest.
    Conversely every such (S, B) is played by beating first, then
    sacrificing d1, d2, ... in order.  The condition on s fails for s + 1
    whenever it fails for s, so s stops at the first failure.

    Distinctness: an R with sacrifices may arise for several s; it is
    emitted only at its largest s.  R found at s also works at s + 1 exactly
    when s + 1 sacrifices pass the condition and B holds a card of rank
    d_(s+1) (the rest of B still dominates, shifted by one), so at such s
    the search leaves rank d_(s+1) out of B.  Beats=True sets are distinct
    count vectors by construction.  Tests compare every answer set with
    `tacocat.rules.play.answers`.
    """
    cdef int t[16]
    cdef int d[16]
    cdef int avail[13]
    cdef int need[14]
    cdef int below[13]
    cdef int k = hand_unpack(attack, t)
    cdef int n = hand_unpack(defender, d)
    cdef int n_out = 0, r, i, j, s, m, ok
    cdef hand_t prefix
    c_assert(1 <= k <= n <= MAX_HAND)
    if k == 1:
        # Fast path: beat with any rank >= t1, or sacrifice the lowest card.
        for r in range(t[0], 13):
            if (defender >> (4 * (r - 1))) & 15:
                out[n_out] = hand_card(r) | BEATS_BIT
                n_out += 1
        if d[0] < t[0]:
            out[n_out] = hand_card(d[0])
            n_out += 1
        return n_out
    avail[0] = 0
    below[0] = 0
    for r in range(1, 13):
        avail[r] = <int>((defender >> (4 * (r - 1))) & 15)
        below[r] = below[r - 1] + avail[r]
    _fill_need(need, t, k)   # the whole attack
    n_out = _dominating(out, 0, avail, need, below, 12, 0, k, BEATS_BIT)
    # Sacrifices.
    prefix = 0
    for s in range(1, k + 1):
        ok = 1
        for i in range(s):
            if d[i] >= t[k - s + i]:
                ok = 0
                break
        if not ok:
            break   # once s sacrifices fail, s + 1 fail too
        prefix += hand_card(d[s - 1])
        avail[d[s - 1]] -= 1
        m = k - s
        if m == 0:
            out[n_out] = prefix
            n_out += 1
            break
        _fill_need(need, t, m)   # the m lowest attack cards
        # canonical s: if s + 1 sacrifices work, B must not hold rank d[s]
        j = 1
        for i in range(s + 1):
            if d[i] >= t[k - s - 1 + i]:
                j = 0
                break
        if j:
            r = avail[d[s]]
            avail[d[s]] = 0
        for i in range(1, 13):
            below[i] = below[i - 1] + avail[i]
        n_out = _dominating(out, n_out, avail, need, below, 12, 0, m, prefix)
        if j:
            avail[d[s]] = r
    c_assert(n_out <= MAX_ANSWERS)
    return n_out


# ======================================================================
# Search state
# ======================================================================

cdef int ctx_init(SearchCtx* ctx, uint64_t tt_entries) noexcept nogil:
    cdef uint64_t n = TT_BUCKET
    memset(ctx, 0, sizeof(SearchCtx))
    while n * 2 <= tt_entries:
        n *= 2
    ctx.tt_raw = calloc(n * sizeof(tc_tt_entry) + 64, 1)   # zero pages arrive lazily
    ctx.buf = <answer_t*>malloc((MAX_HAND + 1) * MAX_ANSWERS * sizeof(answer_t))
    if ctx.tt_raw == NULL or ctx.buf == NULL:
        ctx_free(ctx)
        return -1
    ctx.tt = <tc_tt_entry*>(((<uintptr_t>ctx.tt_raw) + 63) & ~(<uintptr_t>63))
    ctx.n_entries = n
    ctx.bucket_mask = n // TT_BUCKET - 1
    ctx.gen = 1
    ctx.first_gen = 1
    ctx_set_levels(ctx, 2, 1, 0)
    return 0


cdef void ctx_free(SearchCtx* ctx) noexcept nogil:
    free(ctx.tt_raw)
    free(ctx.buf)
    ctx.tt_raw = NULL
    ctx.tt = NULL
    ctx.buf = NULL
    ctx.n_entries = 0


cdef void ctx_clear(SearchCtx* ctx) noexcept nogil:
    if ctx.gen >= 255:
        memset(ctx.tt, 0, ctx.n_entries * sizeof(tc_tt_entry))
        ctx.gen = 1
    else:
        ctx.gen += 1
    ctx.first_gen = ctx.gen


cdef void ctx_new_search(SearchCtx* ctx, bint keep) noexcept nogil:
    if not keep:
        ctx_clear(ctx)
    elif ctx.gen >= 255:
        # the generation wraps: forget everything rather than misread ages
        ctx_clear(ctx)
    else:
        ctx.gen += 1


cdef void ctx_set_levels(SearchCtx* ctx, int win, int draw, int loss) noexcept nogil:
    cdef int p
    ctx.level[0] = win
    ctx.level[1] = draw
    ctx.level[2] = loss
    ctx.order_bits = (<uint64_t>(9 * win + 3 * draw + loss)) << D_ORDER
    # sd[attacker][c]: the attacker's view of a showdown where the attacker's
    # last card is lower (c=0), equal (1) or higher (2) than the defender's.
    ctx.sd[0][0] = win
    ctx.sd[0][1] = draw
    ctx.sd[0][2] = loss
    ctx.sd[1][0] = 2 - loss
    ctx.sd[1][1] = 2 - draw
    ctx.sd[1][2] = 2 - win


# ======================================================================
# Transposition table
# ======================================================================

cdef inline tc_tt_entry* _bucket(SearchCtx* ctx, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef uint64_t x = k0 ^ (k1 * <uint64_t>0x9E3779B97F4A7C15)
    x ^= x >> 31
    x *= <uint64_t>0xD6E8FEB86659FD93
    x ^= x >> 32
    return ctx.tt + (x & ctx.bucket_mask) * TT_BUCKET


cdef inline bint _valid(SearchCtx* ctx, uint64_t data) noexcept nogil:
    cdef uint32_t g = <uint32_t>((data >> D_GEN) & 255)
    return g >= ctx.first_gen and g <= ctx.gen


cdef inline tc_tt_entry* _probe(SearchCtx* ctx, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef tc_tt_entry* b = _bucket(ctx, k0, k1)
    cdef int i
    ctx.probes += 1
    for i in range(TT_BUCKET):
        if b[i].key == k0 and (b[i].data & DATA_KEY_MASK) == k1 and _valid(ctx, b[i].data):
            ctx.hits += 1
            return b + i
    return NULL


cdef void _store(SearchCtx* ctx, uint64_t k0, uint64_t k1, int lo, int hi, int best, int h) noexcept nogil:
    cdef tc_tt_entry* b = _bucket(ctx, k0, k1)
    cdef tc_tt_entry* victim = b
    cdef int i, worth, victim_worth = 1 << 30, olo, ohi
    cdef bint same = False
    cdef uint64_t data
    ctx.stores += 1
    for i in range(TT_BUCKET):
        data = b[i].data
        if _valid(ctx, data):
            if b[i].key == k0 and (data & DATA_KEY_MASK) == k1:
                olo = <int>((data >> D_LO) & 3)
                ohi = <int>((data >> D_HI) & 3)
                if olo > lo:
                    lo = olo
                if ohi < hi:
                    hi = ohi
                if best == 0:
                    best = <int>((data >> D_BEST) & 127)
                victim = b + i
                same = True
                break
            worth = <int>((data >> D_H) & 15) - 2 * <int>(ctx.gen - ((data >> D_GEN) & 255))
        else:
            worth = -(1 << 20)
        if worth < victim_worth:
            victim = b + i
            victim_worth = worth
    if not same and victim_worth > -(1 << 20):
        ctx.evictions += 1
    victim.key = k0
    victim.data = (k1 | ((<uint64_t>lo) << D_LO) | ((<uint64_t>hi) << D_HI)
                   | ((<uint64_t>best) << D_BEST) | ((<uint64_t>h) << D_H)
                   | ((<uint64_t>ctx.gen) << D_GEN))


# ======================================================================
# Search
# ======================================================================

cdef inline int _showdown(SearchCtx* ctx, int p, int a, int d) noexcept nogil:
    # attacker p holds a, defender holds d (R17: lower card wins)
    if a < d:
        return ctx.sd[p][0]
    if a == d:
        return ctx.sd[p][1]
    return ctx.sd[p][2]


cdef int _two(SearchCtx* ctx, hand_t A, hand_t D, int p) noexcept nogil:
    # Both hold two cards: the attacker plays a single, the defender answers
    # it, then the showdown.  Attacker's view.
    cdef int a1 = hand_lowest(A), a2 = hand_highest(A)
    cdef int d1 = hand_lowest(D), d2 = hand_highest(D)
    cdef int best = -1, m, x, y, i, c
    ctx.nodes += 1
    for i in range(2):
        if i == 0:
            x = a2
            y = a1
        else:
            if a1 == a2:
                break
            x = a1
            y = a2
        ctx.nodes += 1
        if d1 >= x:
            # only beats: keep d2 (beat with d1) or d1 (beat with d2)
            m = _showdown(ctx, p, y, d2)
            c = _showdown(ctx, p, y, d1)
            if c < m:
                m = c
        else:
            m = _showdown(ctx, p, y, d2)   # sacrifice d1
            if d2 >= x:
                c = _showdown(ctx, p, y, d1)
                if c < m:
                    m = c
        if m > best:
            best = m
            if best >= 2:
                break
    return best


cdef inline void _sort_desc(uint64_t* keys, int n) noexcept nogil:
    # insertion sort, descending (short lists)
    cdef int i, j
    cdef uint64_t v
    for i in range(1, n):
        v = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < v:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = v


cdef inline void _key(SearchCtx* ctx, hand_t A, hand_t D, int p, uint64_t* k0, uint64_t* k1) noexcept nogil:
    # the full key of attack node (attacker p holds A, the defender D): the
    # entry's key word and data bits 0..37 (layout in the module docstring)
    if p == 0:
        k0[0] = A | (D << 48)
        k1[0] = (D >> 16) | ctx.order_bits
    else:
        k0[0] = D | (A << 48)
        k1[0] = (A >> 16) | ((<uint64_t>1) << D_ATTACKER) | ctx.order_bits


cdef inline tc_tt_entry* _find(SearchCtx* ctx, hand_t A, hand_t D, int p) noexcept nogil:
    cdef uint64_t k0, k1
    _key(ctx, A, D, p, &k0, &k1)
    return _probe(ctx, k0, k1)


cdef inline int _upper(SearchCtx* ctx, hand_t A, hand_t D, int p) noexcept nogil:
    # the table's upper bound on the attack node's value (3: unknown)
    cdef tc_tt_entry* e = _find(ctx, A, D, p)
    return <int>((e.data >> D_HI) & 3) if e != NULL else 3


cdef inline int _lower(SearchCtx* ctx, hand_t A, hand_t D, int p) noexcept nogil:
    # the table's lower bound on the attack node's value (-1: unknown)
    cdef tc_tt_entry* e = _find(ctx, A, D, p)
    return <int>((e.data >> D_LO) & 3) if e != NULL else -1


cdef inline void _order_answers(answer_t* buf, int n) noexcept nogil:
    # Beat cheaply, else lose cheaply: answers that beat first, those whose
    # cards are lowest first (the packed order compares the highest rank
    # first); then sacrifices, highest cards first.
    cdef int j
    for j in range(n):
        if buf[j] & BEATS_BIT:
            buf[j] ^= HAND_MASK
    _sort_desc(buf, n)
    for j in range(n):
        if buf[j] & BEATS_BIT:
            buf[j] ^= HAND_MASK


cdef int _table(SearchCtx* ctx, hand_t A, hand_t D, int p, int h, hand_t attack,
                int alpha, int beta, answer_t* buf) noexcept nogil:
    # Table node: attacker p has laid `attack` and holds A (h cards); the
    # defender holds D (h + |attack| cards).  Min over the distinct answers,
    # attacker's view, fail-soft in (alpha, beta).
    cdef int n = gen_answers(attack, D, buf)
    cdef int m = 3, j, c, b
    cdef answer_t ans
    ctx.nodes += 1
    _order_answers(buf, n)
    if h >= 3 and alpha >= 0:
        # enhanced transposition cutoff: an answer whose position the table
        # already bounds at or below alpha refutes the attack at once
        for j in range(n):
            ans = buf[j]
            if ans & BEATS_BIT:
                c = 2 - _lower(ctx, D - (ans & HAND_MASK), A, 1 - p)
            else:
                c = _upper(ctx, A, D - ans, p)
            if c <= alpha:
                return c
    for j in range(n):
        ans = buf[j]
        b = beta if beta < m else m
        if ans & BEATS_BIT:
            c = 2 - _search(ctx, D - (ans & HAND_MASK), A, 1 - p, h, 2 - b, 2 - alpha, buf + n)
        else:
            c = _search(ctx, A, D - ans, p, h, alpha, b, buf + n)
        if c < m:
            m = c
            if m <= alpha or m <= 0:
                break
    return m


cdef int _search(SearchCtx* ctx, hand_t A, hand_t D, int p, int h,
                 int alpha, int beta, answer_t* buf) noexcept nogil:
    # Attack node: attacker p holds A, the defender D, both h cards.  Max
    # over attacks, attacker's view, fail-soft in (alpha, beta).
    cdef hand_t atk[MAX_ATTACKS]
    cdef uint64_t keys[MAX_ATTACKS]
    cdef uint64_t k0, k1, data
    cdef tc_tt_entry* e
    cdef int n, i, idx, v, best = -1, best_idx = -1, tt_best = -1, lo, hi, alpha0, beta0
    cdef hand_t a
    if h == 1:
        ctx.nodes += 1
        return _showdown(ctx, p, hand_lowest(A), hand_lowest(D))
    if h == 2:
        return _two(ctx, A, D, p)
    ctx.nodes += 1
    _key(ctx, A, D, p, &k0, &k1)
    e = _probe(ctx, k0, k1)
    if e != NULL:
        data = e.data
        lo = <int>((data >> D_LO) & 3)
        hi = <int>((data >> D_HI) & 3)
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo - 1 > alpha:
            alpha = lo - 1
        if hi + 1 < beta:
            beta = hi + 1
        tt_best = <int>((data >> D_BEST) & 127) - 1
    alpha0 = alpha
    beta0 = beta
    n = gen_attacks(A, atk)
    # order: the table's best attack first, then the highest cards first
    for i in range(n):
        keys[i] = ((atk[i] << 8) | <uint64_t>i)
    if tt_best >= 0:
        keys[tt_best] |= (<uint64_t>1) << 63
    _sort_desc(keys, n)
    for i in range(n):
        idx = <int>(keys[i] & 255)
        a = atk[idx]
        v = _table(ctx, A - a, D, p, h - hand_size(a), a, alpha, beta, buf)
        if v > best:
            best = v
            best_idx = idx
            if v > alpha:
                alpha = v
                if v >= beta or v >= 2:
                    break
    # bounds from the (possibly narrowed) window
    if best <= alpha0:
        lo = 0
        hi = best
    elif best >= beta0:
        lo = best
        hi = 2
    else:
        lo = best
        hi = best
    _store(ctx, k0, k1, lo, hi, best_idx + 1, h)
    return best


# ======================================================================
# Root functions
# ======================================================================

cdef int search_value(SearchCtx* ctx, hand_t h0, hand_t h1, int attacker, hand_t table) noexcept nogil:
    cdef hand_t A = h0 if attacker == 0 else h1
    cdef hand_t D = h1 if attacker == 0 else h0
    cdef int v
    if table == 0:
        v = _search(ctx, A, D, attacker, hand_size(A), -1, 3, ctx.buf)
    else:
        v = _table(ctx, A, D, attacker, hand_size(A), table, -1, 3, ctx.buf)
    return v if attacker == 0 else 2 - v


cdef int search_moves(SearchCtx* ctx, hand_t h0, hand_t h1, int attacker, hand_t table,
                      answer_t* moves, int8_t* levels) noexcept nogil:
    cdef hand_t A = h0 if attacker == 0 else h1
    cdef hand_t D = h1 if attacker == 0 else h0
    cdef int h = hand_size(A), n, i, v
    cdef answer_t ans
    if table == 0:
        if h <= 1:
            return 0
        n = gen_attacks(A, moves)
        for i in range(n):
            v = _table(ctx, A - moves[i], D, attacker, h - hand_size(moves[i]), moves[i], -1, 3, ctx.buf)
            levels[i] = v if attacker == 0 else 2 - v
        return n
    n = gen_answers(table, D, moves)
    for i in range(n):
        ans = moves[i]
        if ans & BEATS_BIT:
            v = 2 - _search(ctx, D - (ans & HAND_MASK), A, 1 - attacker, h, -1, 3, ctx.buf)
        else:
            v = _search(ctx, A, D - ans, attacker, h, -1, 3, ctx.buf)
        levels[i] = v if attacker == 0 else 2 - v
    return n


cdef int search_pv(SearchCtx* ctx, hand_t h0, hand_t h1, int attacker, hand_t table,
                   answer_t* moves, uint8_t* players, int capacity) noexcept nogil:
    cdef hand_t A = h0 if attacker == 0 else h1
    cdef hand_t D = h1 if attacker == 0 else h0
    cdef hand_t tmp
    cdef hand_t atk[MAX_ATTACKS]
    cdef uint64_t keys[MAX_ATTACKS]
    cdef answer_t* buf = ctx.buf
    cdef int p = attacker, level = search_value(ctx, h0, h1, attacker, table)
    cdef int length = 0, h, n, i, t, v
    cdef answer_t ans
    while length < capacity:
        t = level if p == 0 else 2 - level     # the value, attacker's view
        h = hand_size(A)
        if table == 0:
            if h <= 1:
                break
            n = gen_attacks(A, atk)
            for i in range(n):
                keys[i] = (atk[i] << 8) | <uint64_t>i
            _sort_desc(keys, n)
            for i in range(n):
                table = atk[keys[i] & 255]
                if _table(ctx, A - table, D, p, h - hand_size(table), table, t - 1, t + 1, buf) == t:
                    break
            A -= table
            moves[length] = table
            players[length] = p
            length += 1
        else:
            n = gen_answers(table, D, buf)
            _order_answers(buf, n)
            ans = buf[0]
            for i in range(n):
                ans = buf[i]
                if ans & BEATS_BIT:
                    v = 2 - _search(ctx, D - (ans & HAND_MASK), A, 1 - p, h, 1 - t, 3 - t, buf + n)
                else:
                    v = _search(ctx, A, D - ans, p, h, t - 1, t + 1, buf + n)
                if v == t:
                    break
            moves[length] = ans
            players[length] = 1 - p
            length += 1
            D -= ans & HAND_MASK
            table = 0
            if ans & BEATS_BIT:
                tmp = A
                A = D
                D = tmp
                p = 1 - p
    return length


# ======================================================================
# Python wrapper
# ======================================================================

# The Python-facing functions check just enough to keep memory safe (hand
# sizes within the fixed arrays, counts within a rank's 4 bits); the rules
# are checked in tacocat.rules (PlayPosition) before tacocat.core.exact
# calls in.  _ismcts checks its own entry points with the same two functions.

cdef hand_t pack_cards(object cards, str what, int most) except? 0:
    """The packed hand of an iterable of ranks 1..12 holding at most `most`
    cards and at most 15 of a rank (a rank's 4 bits); ValueError otherwise."""
    cdef hand_t h = 0
    cdef int rank, n = 0
    for r in cards:
        if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 12:
            raise ValueError(f"{what}: {r!r} is not a rank 1..12")
        rank = r
        if hand_count(h, rank) == 15:
            raise ValueError(f"{what}: more than 15 cards of rank {rank} (a packed hand holds 15 of a rank)")
        n += 1
        if n > most:
            raise ValueError(f"{what}: more than {most} cards")
        h += hand_card(rank)
    return h


cdef int check_hand(hand_t h, str what) except -1:
    if h & ~HAND_MASK or hand_size(h) > MAX_HAND:
        raise ValueError(f"{what}: {h:#x} is not a packed hand of at most {MAX_HAND} cards")
    return 0


cdef int _check_position(hand_t h0, hand_t h1, int attacker, hand_t table, int win, int draw, int loss) except -1:
    cdef hand_t A, D
    check_hand(h0, "hand 0")
    check_hand(h1, "hand 1")
    check_hand(table, "table")
    if attacker != 0 and attacker != 1:
        raise ValueError(f"attacker must be 0 or 1, got {attacker}")
    if not (0 <= win <= 2 and 0 <= draw <= 2 and 0 <= loss <= 2):
        raise ValueError(f"levels must lie in 0..2, got {win}, {draw}, {loss}")
    A = h0 if attacker == 0 else h1
    D = h1 if attacker == 0 else h0
    if hand_size(A) < 1 or hand_size(A) + hand_size(table) != hand_size(D):
        raise ValueError("hand sizes do not fit: the attacker's hand plus the table must equal the defender's, both non-empty")
    return 0


RULE_CONSTANTS = {"MIN_SEQUENCE": MIN_SEQUENCE, "MAX_HAND": MAX_HAND}
"""The rule numbers the core is compiled with (`_search.pxd`), for the test
that holds them equal to `tacocat.rules`'."""


def pack_hand(cards):
    """The packed hand_t of an iterable of ranks 1..12 (at most 15 of a rank)."""
    return pack_cards(cards, "cards", 12 * 15)


def unpack_hand(hand_t h):
    """The ranks of a packed hand (bits 0..47; a BEATS flag is ignored),
    ascending, as a tuple."""
    cdef int out[192]
    cdef int n = hand_unpack(h & HAND_MASK, out)
    return tuple([out[i] for i in range(n)])


def attacks_packed(hand_t hand):
    """gen_attacks as a list of packed attacks (generation order)."""
    cdef hand_t out[MAX_ATTACKS]
    check_hand(hand, "hand")
    cdef int n = gen_attacks(hand, out)
    return [out[i] for i in range(n)]


def answers_packed(hand_t attack, hand_t defender):
    """gen_answers as a list of answer_t (packed cards | BEATS if all beat)."""
    cdef answer_t* out
    cdef int n
    check_hand(attack, "attack")
    check_hand(defender, "defender")
    if attack == 0 or hand_size(defender) < hand_size(attack):
        raise ValueError("the attack must be non-empty and the defender hold at least as many cards")
    out = <answer_t*>malloc(MAX_ANSWERS * sizeof(answer_t))
    if out == NULL:
        raise MemoryError()
    try:
        n = gen_answers(attack, defender, out)
        return [out[i] for i in range(n)]
    finally:
        free(out)


cdef inline uint64_t _choose(int n, int k) noexcept nogil:
    cdef uint64_t x = 1
    cdef int i
    for i in range(k):
        x = x * (n - i) // (i + 1)
    return x


cdef int _sub_hands(hand_t pool, const int* ranks, int n_ranks, int i, int left, hand_t cards, uint64_t mult,
                    const int* room, list out) except -1:
    # Ranks ascending, and per rank the most copies first: the order of
    # tacocat.search.sampling.HandSampler.iter_hands, so both list the same hands
    # in the same order (a seeded shuffle of the list then agrees too).
    cdef int r, c, t
    if left == 0:
        out.append((cards, mult))
        return 0
    if i == n_ranks or room[i] < left:
        return 0
    r = ranks[i]
    c = hand_count(pool, r)
    t = c if c < left else left
    while t >= 0:
        _sub_hands(pool, ranks, n_ranks, i + 1, left - t, cards + t * hand_card(r), mult * _choose(c, t), room, out)
        t -= 1
    return 0


def sub_hands(hand_t pool, int size):
    """Every distinct sub-multiset of `size` cards of the packed `pool`, as
    [(packed hand, multiplicity)]: the multiplicity is the number of card
    subsets of the pool that form it (prod over ranks of C(pool_r, k_r))."""
    cdef int ranks[12]
    cdef int room[13]
    cdef int n = 0, r, i
    cdef list out = []
    if pool & ~HAND_MASK:
        raise ValueError(f"pool: {pool:#x} is not a packed hand")
    if not 0 <= size <= MAX_HAND:
        raise ValueError(f"size must lie in 0..{MAX_HAND}, got {size}")
    for r in range(1, 13):
        if hand_count(pool, r):
            ranks[n] = r
            n += 1
    room[n] = 0
    for i in range(n - 1, -1, -1):
        room[i] = room[i + 1] + hand_count(pool, ranks[i])
    _sub_hands(pool, ranks, n, 0, size, 0, 1, room, out)
    return out


TT_ENTRY_BYTES = sizeof(tc_tt_entry)
BEATS = BEATS_BIT
LIMITS = {"max_hand": MAX_HAND, "max_attacks": MAX_ATTACKS, "max_answers": MAX_ANSWERS}


cdef class Core:
    """The search state of one thread: a transposition table of `tt_entries`
    entries (rounded down to a power of two, at least 4) and counters.
    Methods take packed hands and player 0's levels of (win, draw, loss) and
    release the GIL while searching.  One search at a time per Core."""

    def __cinit__(self, uint64_t tt_entries=1 << 20):
        if ctx_init(&self.ctx, tt_entries) != 0:
            raise MemoryError(f"cannot allocate a transposition table of {tt_entries} entries")
        self.busy = False

    def __dealloc__(self):
        ctx_free(&self.ctx)

    cdef int _enter(self, int win, int draw, int loss) except -1:
        # called with the position checked (_check_position) just before
        if self.busy:
            raise RuntimeError("this solver is already searching in another thread; use one Solver per thread")
        self.busy = True
        ctx_set_levels(&self.ctx, win, draw, loss)
        return 0

    def new_search(self, bint keep=True):
        """Start a generation; keep=False forgets earlier positions."""
        ctx_new_search(&self.ctx, keep)

    def clear(self):
        """Forget every stored position."""
        ctx_clear(&self.ctx)

    def reset_stats(self):
        self.ctx.nodes = self.ctx.probes = self.ctx.hits = self.ctx.stores = self.ctx.evictions = 0

    @property
    def stats(self):
        return {
            "nodes": self.ctx.nodes,
            "probes": self.ctx.probes,
            "hits": self.ctx.hits,
            "stores": self.ctx.stores,
            "evictions": self.ctx.evictions,
            "entries": self.ctx.n_entries,
            "bytes": self.ctx.n_entries * sizeof(tc_tt_entry),
        }

    def value(self, hand_t h0, hand_t h1, int attacker, hand_t table, int win, int draw, int loss):
        """Player 0's level under best play."""
        cdef int v
        _check_position(h0, h1, attacker, table, win, draw, loss)
        self._enter(win, draw, loss)
        try:
            with nogil:
                v = search_value(&self.ctx, h0, h1, attacker, table)
        finally:
            self.busy = False
        return v

    def moves(self, hand_t h0, hand_t h1, int attacker, hand_t table, int win, int draw, int loss):
        """[(move, player 0's level after it)] for every root move."""
        cdef answer_t* mv = <answer_t*>malloc(MAX_ANSWERS * sizeof(answer_t))
        cdef int8_t* lv = <int8_t*>malloc(MAX_ANSWERS * sizeof(int8_t))
        cdef int n = 0
        _check_position(h0, h1, attacker, table, win, draw, loss)
        if mv == NULL or lv == NULL:
            free(mv)
            free(lv)
            raise MemoryError()
        try:
            self._enter(win, draw, loss)
            try:
                with nogil:
                    n = search_moves(&self.ctx, h0, h1, attacker, table, mv, lv)
            finally:
                self.busy = False
            return [(mv[i], lv[i]) for i in range(n)]
        finally:
            free(mv)
            free(lv)

    def tally(self, int player, hand_t own, int attacker, hand_t table, object opponents, object weights,
              double u_win, double u_draw, double u_loss, double[::1] acc, double total):
        """Solve, with both hands known, the world of every opponent hand in
        `opponents` (packed) and add its weight to `player`'s outcome counts
        of each root move: for the i-th move, ``acc[5i + k] += w`` with k = 0
        win, 1 drawn round, 2 loss (R17), ``acc[5i + 3] += w * u_k`` and
        ``acc[5i + 4] += w * u_k**2``.  `player` holds `own` and must be the
        one to move, so the moves are the same in every world; they are
        returned (answer_t words, generation order) with `total` plus the
        weights, added in order (the sums equal adding world by world)."""
        cdef Py_ssize_t n = len(opponents), w_i
        cdef hand_t* opp
        cdef double* wt
        cdef answer_t* mv
        cdef int8_t* lv
        cdef int m = 0, i, k
        cdef double u[3]
        cdef double x
        cdef bint attacking = table == 0
        if player != 0 and player != 1:
            raise ValueError(f"player must be 0 or 1, got {player}")
        if len(weights) != n:
            raise ValueError("opponents and weights differ in length")
        if (attacker == player) != attacking:
            raise ValueError(f"player {player} is not the one to move (attacker {attacker}, table {table:#x})")
        u[0] = u_win
        u[1] = u_draw
        u[2] = u_loss
        if n == 0:
            return [], total
        opp = <hand_t*>malloc(n * sizeof(hand_t))
        wt = <double*>malloc(n * sizeof(double))
        mv = <answer_t*>malloc(MAX_ANSWERS * sizeof(answer_t))
        lv = <int8_t*>malloc(MAX_ANSWERS * sizeof(int8_t))
        try:
            if opp == NULL or wt == NULL or mv == NULL or lv == NULL:
                raise MemoryError()
            for w_i in range(n):
                opp[w_i] = opponents[w_i]
                wt[w_i] = weights[w_i]
                if player == 0:
                    _check_position(own, opp[w_i], attacker, table, 2, 1, 0)
                else:
                    _check_position(opp[w_i], own, attacker, table, 2, 1, 0)
            self._enter(2, 1, 0)
            try:
                with nogil:
                    for w_i in range(n):
                        if player == 0:
                            m = search_moves(&self.ctx, own, opp[w_i], attacker, table, mv, lv)
                        else:
                            m = search_moves(&self.ctx, opp[w_i], own, attacker, table, mv, lv)
                        if acc.shape[0] < 5 * m:
                            break
                        x = wt[w_i]
                        for i in range(m):
                            # lv: player 0's level (2 win, 1 draw, 0 loss)
                            k = 2 - lv[i] if player == 0 else lv[i]
                            acc[5 * i + k] += x
                            acc[5 * i + 3] += x * u[k]
                            acc[5 * i + 4] += x * u[k] * u[k]
                        total += x
            finally:
                self.busy = False
            if acc.shape[0] < 5 * m:
                raise ValueError(f"acc holds {acc.shape[0]} numbers, {5 * m} needed for {m} moves")
            return [mv[i] for i in range(m)], total
        finally:
            free(opp)
            free(wt)
            free(mv)
            free(lv)

    def pv(self, hand_t h0, hand_t h1, int attacker, hand_t table, int win, int draw, int loss):
        """A principal variation: [(player, move)] down to the showdown."""
        cdef answer_t mv[2 * MAX_HAND + 2]
        cdef uint8_t who[2 * MAX_HAND + 2]
        cdef int n
        _check_position(h0, h1, attacker, table, win, draw, loss)
        self._enter(win, draw, loss)
        try:
            with nogil:
                n = search_pv(&self.ctx, h0, h1, attacker, table, mv, who, 2 * MAX_HAND + 2)
        finally:
            self.busy = False
        return [(who[i], mv[i]) for i in range(n)]
