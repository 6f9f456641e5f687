# cython: language_level=3
"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012)
for the play phase (R10–R17), in C.

Private and trusting: `solver.ismcts` validates the view and hands over
plain lists.  Everything inside `Tree.run` runs without the GIL.

One iteration
-------------
1. *Determinize*: deal the opponent a hand drawn uniformly from the
   observer's unseen pool (a partial Fisher–Yates shuffle of the pool's
   cards, so every card subset is equally likely — RULES §5).
2. *Select*: from the root, at each node generate the legal moves of the
   determinized state; every existing child whose move is legal here is
   *available*: its availability count goes up and it competes by UCB
   ``mean + c * sqrt(ln(avail) / visits)`` (mean from the mover's point of
   view).  If a legal move has no child yet, expand one chosen uniformly.
3. *Evaluate*: random play until each hand holds at most `exact_cards`
   cards, then the exact outcome by alpha-beta (both hands are known in the
   determinization); `exact_cards = 0` plays random to the showdown.
4. *Back up*: every node on the path counts a visit and adds the reward of
   the player who made its move (observer: ``util[outcome]``; opponent: its
   negation).  Root children also count win/draw/loss.

Nodes are information sets of the observer: because all play is face up
(R15), a node is identified by the sequence of public moves, so the tree is
a plain move tree whose children exist only in some determinizations.

Packed hands (`hand_t`) use the layout of `_search.pxd`: the count of rank r
in bits 4(r-1)..4(r-1)+3.  A move is its packed cards, with bit 63 set for
an answer in which every card beats (R13).
"""

from libc.stdint cimport uint64_t, int32_t, int64_t, int8_t, int16_t
from solver._search cimport SearchCtx, ctx_init, ctx_free, ctx_set_levels, ctx_new_search, search_value
from libc.stdlib cimport malloc, realloc, free
from libc.math cimport sqrt, log
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

ctypedef uint64_t hand_t

cdef enum:
    MAX_HAND = 12          # most cards per hand (validated in Python)
    MAX_MOVES = 2048       # >= 2 * C(12, 6) answers; attacks are fewer
    MAX_DEPTH = 64         # > 2 * MAX_HAND plies
    MAX_POOL = 64

cdef uint64_t BEATS = (<uint64_t>1) << 63
cdef uint64_t CARDS = (<uint64_t>1 << 48) - 1


# --------------------------------------------------------------- packed hands

cdef inline int cnt(hand_t h, int r) noexcept nogil:
    return <int>((h >> (4 * (r - 1))) & 15)

cdef inline hand_t one(int r) noexcept nogil:
    return (<hand_t>1) << (4 * (r - 1))

cdef inline int size_of(hand_t h) noexcept nogil:
    cdef uint64_t x = (h & <uint64_t>0x0F0F0F0F0F0F) + ((h >> 4) & <uint64_t>0x0F0F0F0F0F0F)
    return <int>((x * <uint64_t>0x0101010101010101) >> 56)

cdef inline int lowest(hand_t h) noexcept nogil:
    # h != 0
    return (__builtin_ctzll(h) >> 2) + 1

cdef inline int highest(hand_t h) noexcept nogil:
    return ((63 - __builtin_clzll(h)) >> 2) + 1

cdef inline bint contains(hand_t h, hand_t sub) noexcept nogil:
    cdef int r
    for r in range(12):
        if ((sub >> (4 * r)) & 15) > ((h >> (4 * r)) & 15):
            return False
    return True

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) noexcept nogil
    int __builtin_clzll(unsigned long long x) noexcept nogil


# ------------------------------------------------------------ move generation

cdef int gen_attacks(hand_t h, int n, uint64_t* out) noexcept nogil:
    """R10–R11: every distinct attack of a hand of `n` cards (at most n-1)."""
    cdef int limit = n - 1, k = 0, r, c, s, length
    cdef hand_t seq
    if limit < 1:
        return 0
    for r in range(1, 13):
        c = cnt(h, r)
        if c == 0:
            continue
        if c > limit:
            c = limit
        for s in range(1, c + 1):
            out[k] = one(r) * <uint64_t>s
            k += 1
        seq = one(r)
        length = 1
        while r + length <= 12 and cnt(h, r + length) > 0 and length < limit:
            seq += one(r + length)
            length += 1
            if length >= 3:
                out[k] = seq
                k += 1
    return k


ctypedef struct AnswerCtx:
    hand_t attack
    hand_t defender
    int m                  # attack size
    int max_a              # highest attack rank
    int cum_a[14]          # cum_a[r] = attack cards of rank >= r
    int ranks[12]          # distinct ranks of the defender
    int counts[12]
    int nranks
    uint64_t* out
    int k


cdef void answer_prepare(AnswerCtx* a, hand_t attack, hand_t defender) noexcept nogil:
    cdef int r, c = 0
    a.attack = attack
    a.defender = defender
    a.m = size_of(attack)
    a.max_a = highest(attack)
    a.cum_a[13] = 0
    for r in range(12, 0, -1):
        c += cnt(attack, r)
        a.cum_a[r] = c
    a.nranks = 0
    for r in range(1, 13):
        if cnt(defender, r):
            a.ranks[a.nranks] = r
            a.counts[a.nranks] = cnt(defender, r)
            a.nranks += 1


cdef inline bint answer_beats(AnswerCtx* a, hand_t s) noexcept nogil:
    """Every card of `s` can beat a distinct attack card (sorted dominance)."""
    cdef int r, cs = 0
    for r in range(12, 0, -1):
        cs += cnt(s, r)
        if cs < a.cum_a[r]:
            return False
    return True


cdef inline bint answer_sacrifices(AnswerCtx* a, hand_t s) noexcept nogil:
    """`s` can answer with at least one sacrifice (R12): play the beating
    cards first, then the sacrifices in ascending order.  Cards above the
    lowest card kept (L) must beat; at least one card <= L must be below the
    highest attack card."""
    cdef hand_t rest = a.defender - s, high
    cdef int low_kept = lowest(rest) if rest else 13
    cdef int min_s = lowest(s)
    cdef int k, r, c, take, cs, ca
    cdef int small[13]
    if min_s > low_kept or min_s >= a.max_a:
        return False
    if low_kept >= 12:
        return True
    high = s & ~((<hand_t>1 << (4 * low_kept)) - 1)
    k = size_of(high)
    if k == 0:
        return True
    # the k smallest attack cards, as counts
    for r in range(13):
        small[r] = 0
    r = 1
    take = k
    while take > 0:
        c = cnt(a.attack, r)
        if c > take:
            c = take
        small[r] = c
        take -= c
        r += 1
    cs = 0
    ca = 0
    for r in range(12, 0, -1):
        cs += cnt(high, r)
        ca += small[r]
        if cs < ca:
            return False
    return True


cdef void answer_enum(AnswerCtx* a, int idx, int left, hand_t s) noexcept nogil:
    cdef int c, take
    if left == 0:
        if answer_beats(a, s):
            a.out[a.k] = s | BEATS
            a.k += 1
        if answer_sacrifices(a, s):
            a.out[a.k] = s
            a.k += 1
        return
    if idx >= a.nranks:
        return
    c = a.counts[idx]
    if c > left:
        c = left
    for take in range(c, -1, -1):
        answer_enum(a, idx + 1, left - take, s + one(a.ranks[idx]) * <uint64_t>take)


cdef int gen_answers(hand_t attack, hand_t defender, uint64_t* out) noexcept nogil:
    """R12–R13: every distinct answer (cards removed, beats flag)."""
    cdef AnswerCtx a
    cdef int r, low
    if size_of(attack) == 1:
        # fast path: a single attack card
        r = lowest(attack)
        low = lowest(defender)
        a.k = 0
        for low in range(r, 13):
            if cnt(defender, low):
                out[a.k] = one(low) | BEATS
                a.k += 1
        low = lowest(defender)
        if low < r:
            out[a.k] = one(low)
            a.k += 1
        return a.k
    answer_prepare(&a, attack, defender)
    a.out = out
    a.k = 0
    answer_enum(&a, 0, a.m, 0)
    return a.k


cdef inline bint answer_legal(AnswerCtx* a, uint64_t move) noexcept nogil:
    cdef hand_t s = move & CARDS
    if not contains(a.defender, s):
        return False
    if move & BEATS:
        return answer_beats(a, s)
    return answer_sacrifices(a, s)


cdef uint64_t greedy_answer(hand_t attack, hand_t defender) noexcept nogil:
    """Beat every attack card as cheaply as possible (each attack card, from
    the lowest, takes the lowest free card that beats it); when that fails,
    answer with the lowest cards, which is then always a legal sacrifice."""
    cdef hand_t free_ = defender, used = 0
    cdef int a, r, c, m = 0
    cdef bint ok = True
    for a in range(1, 13):
        c = cnt(attack, a)
        m += c
        while c > 0 and ok:
            r = a
            while r <= 12 and cnt(free_, r) == 0:
                r += 1
            if r > 12:
                ok = False
                break
            free_ -= one(r)
            used += one(r)
            c -= 1
    if ok:
        return used | BEATS
    used = 0
    free_ = defender
    while m > 0:
        r = lowest(free_)
        free_ -= one(r)
        used += one(r)
        m -= 1
    return used


# -------------------------------------------------------------- the position

ctypedef struct State:
    hand_t h[2]
    int n            # cards per hand at the start of the trick
    int attacker
    hand_t table     # 0: the attacker is to attack
    int tsize


cdef inline void apply_move(State* s, uint64_t move) noexcept nogil:
    cdef hand_t cards = move & CARDS
    cdef int d
    if s.table == 0:
        s.h[s.attacker] -= cards
        s.table = cards
        s.tsize = size_of(cards)
    else:
        d = 1 - s.attacker
        s.h[d] -= cards
        s.n -= s.tsize
        s.table = 0
        s.tsize = 0
        if move & BEATS:
            s.attacker = d   # R14: the trick's winner attacks next


cdef inline int gen_moves(State* s, uint64_t* out) noexcept nogil:
    if s.table == 0:
        return gen_attacks(s.h[s.attacker], s.n, out)
    return gen_answers(s.table, s.h[1 - s.attacker], out)


cdef inline int showdown(State* s) noexcept nogil:
    """R17, player 0's outcome: +1 win, 0 drawn round, -1 loss."""
    cdef int a = lowest(s.h[0]), b = lowest(s.h[1])
    return 1 if a < b else (-1 if a > b else 0)


cdef int exact(State* s, int alpha, int beta, uint64_t* buf) noexcept nogil:
    """Player 0's outcome under best play (fail-hard alpha-beta on -1/0/1).
    `buf` has room for MAX_MOVES moves per remaining ply."""
    cdef int k, i, v, best, mover
    cdef State c
    if s.table == 0 and s.n <= 1:
        return showdown(s)
    k = gen_moves(s, buf)
    mover = s.attacker if s.table == 0 else 1 - s.attacker
    if mover == 0:
        best = -2
        for i in range(k):
            c = s[0]
            apply_move(&c, buf[i])
            v = exact(&c, alpha, beta, buf + MAX_MOVES)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                if alpha >= beta or v == 1:
                    break
    else:
        best = 2
        for i in range(k):
            c = s[0]
            apply_move(&c, buf[i])
            v = exact(&c, alpha, beta, buf + MAX_MOVES)
            if v < best:
                best = v
                if v < beta:
                    beta = v
                if alpha >= beta or v == -1:
                    break
    return best


# ---------------------------------------------------------------------- RNG

cdef inline uint64_t xorshift(uint64_t* st) noexcept nogil:
    """xorshift64*: small, fast, good enough for sampling and rollouts."""
    cdef uint64_t x = st[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    st[0] = x
    return x * <uint64_t>0x2545F4914F6CDD1D

cdef inline int randint(uint64_t* st, int n) noexcept nogil:
    return <int>((xorshift(st) >> 33) % <uint64_t>n)


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# --------------------------------------------------------------------- tree

cdef enum:
    LOG_TABLE_SIZE = 1 << 16

cdef double LOG_TABLE[LOG_TABLE_SIZE]
cdef int _i
LOG_TABLE[0] = 0.0
for _i in range(1, LOG_TABLE_SIZE):
    LOG_TABLE[_i] = log(<double>_i)


ctypedef struct Node:
    uint64_t move        # the public move into this node
    double reward        # sum of rewards of `mover`
    double reward_sq     # sum of squared rewards (for a standard error)
    int32_t parent
    int32_t cbase        # children: slots cbase .. cbase + n_children - 1 of the child pool
    int32_t visits
    int32_t avail        # times this node's move was legal when its parent was visited
    int32_t outcome[3]   # observer's win / drawn round / loss counts through here
    int16_t n_moves      # observer to move here: how many legal moves (-1: not yet known)
    int16_t n_children
    int16_t ccap         # slots reserved in the child pool
    int8_t mover         # player who made `move`


cdef class Tree:
    """One SO-ISMCTS tree for one observer at one play-phase decision."""

    cdef Node* nodes
    cdef int32_t n_nodes
    cdef int32_t capacity
    cdef int32_t max_nodes
    cdef State root
    cdef int observer
    cdef int pool[MAX_POOL]
    cdef int pool_size
    cdef int opp_size
    cdef double util[3]          # observer's utility of win, drawn round, loss
    cdef double c_uct
    cdef int exact_cards
    cdef int rollout             # 0: uniform random moves; 1: greedy answers (random 1 in 8)
    cdef uint64_t rng
    cdef uint64_t* buf           # MAX_MOVES * (MAX_DEPTH + 2) scratch moves
    cdef int64_t iterations
    cdef int32_t path[MAX_DEPTH]
    cdef uint64_t* cpool_moves   # child pool: each node's children's moves, contiguous
    cdef int32_t* cpool_idx      # ... and their node indices
    cdef int32_t cpool_size
    cdef int32_t cpool_cap
    cdef int64_t depth_sum       # sum over iterations of the selected path's length
    cdef SearchCtx ctx           # exact leaf search with its own transposition table
    cdef bint ctx_ready

    def __cinit__(self, list my_hand, list pool, int opp_size, int observer, int attacker,
                  list table, tuple utilities, double c_uct=1.0, int exact_cards=4,
                  uint64_t seed=0, int max_nodes=2_000_000, uint64_t tt_entries=1 << 16, int rollout=0):
        cdef int r, i
        cdef hand_t mine = 0, tab = 0
        cdef uint64_t z
        for r in my_hand:
            mine += one(r)
        for r in table:
            tab += one(r)
        self.observer = observer
        self.pool_size = len(pool)
        for i in range(self.pool_size):
            self.pool[i] = pool[i]
        self.opp_size = opp_size
        for i in range(3):
            self.util[i] = utilities[i]
        self.c_uct = c_uct
        self.exact_cards = exact_cards
        self.rollout = rollout
        # splitmix64 of the seed: never a zero xorshift state
        z = seed + <uint64_t>0x9E3779B97F4A7C15
        z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
        z = z ^ (z >> 31)
        self.rng = z if z else 1
        self.root.h[observer] = mine
        self.root.h[1 - observer] = 0
        self.root.attacker = attacker
        self.root.table = tab
        self.root.tsize = len(table)
        self.root.n = len(my_hand) + (len(table) if attacker == observer else 0)
        self.max_nodes = max_nodes
        self.capacity = 1024
        self.nodes = <Node*>malloc(self.capacity * sizeof(Node))
        self.buf = <uint64_t*>malloc(MAX_MOVES * (MAX_DEPTH + 2) * sizeof(uint64_t))
        self.cpool_cap = 4096
        self.cpool_size = 0
        self.cpool_moves = <uint64_t*>malloc(self.cpool_cap * sizeof(uint64_t))
        self.cpool_idx = <int32_t*>malloc(self.cpool_cap * sizeof(int32_t))
        if self.nodes == NULL or self.buf == NULL or self.cpool_moves == NULL or self.cpool_idx == NULL:
            raise MemoryError()
        self.ctx_ready = False
        if exact_cards > 0 and tt_entries > 0:
            if ctx_init(&self.ctx, tt_entries) != 0:
                raise MemoryError("cannot allocate the leaf transposition table")
            self.ctx_ready = True
            ctx_set_levels(&self.ctx, 2, 1, 0)
            ctx_new_search(&self.ctx, False)
        self.n_nodes = 1
        self._init_node(0, 0, -1, 1 - (attacker if not table else 1 - attacker))
        self.iterations = 0
        self.depth_sum = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.buf)
        free(self.cpool_moves)
        free(self.cpool_idx)
        if self.ctx_ready:
            ctx_free(&self.ctx)

    cdef inline void _init_node(self, int32_t i, uint64_t move, int32_t parent, int mover) noexcept nogil:
        cdef Node* nd = &self.nodes[i]
        nd.move = move
        nd.reward = 0
        nd.reward_sq = 0
        nd.parent = parent
        nd.cbase = 0
        nd.ccap = 0
        nd.visits = 0
        nd.avail = 0
        nd.outcome[0] = 0
        nd.outcome[1] = 0
        nd.outcome[2] = 0
        nd.n_moves = -1
        nd.n_children = 0
        nd.mover = mover

    cdef int32_t _add_child(self, int32_t parent, uint64_t move, int mover) noexcept nogil:
        cdef Node* grown
        cdef int32_t i
        if self.n_nodes >= self.max_nodes:
            return -1
        if self.n_nodes >= self.capacity:
            grown = <Node*>realloc(self.nodes, 2 * self.capacity * sizeof(Node))
            if grown == NULL:
                return -1
            self.nodes = grown
            self.capacity *= 2
        i = self.n_nodes
        self.n_nodes += 1
        cdef Node* p = &self.nodes[parent]
        cdef int32_t base, cap, j
        cdef uint64_t* gm
        cdef int32_t* gi
        if p.n_children == p.ccap:
            # move this node's children to a fresh, twice as large run at the
            # end of the pool (the old run is abandoned: amortised O(1))
            cap = 4 if p.ccap == 0 else 2 * p.ccap
            if cap > 32000:
                return -1
            if self.cpool_size + cap > self.cpool_cap:
                j = 2 * self.cpool_cap
                while j < self.cpool_size + cap:
                    j *= 2
                gm = <uint64_t*>realloc(self.cpool_moves, j * sizeof(uint64_t))
                if gm == NULL:
                    return -1
                self.cpool_moves = gm
                gi = <int32_t*>realloc(self.cpool_idx, j * sizeof(int32_t))
                if gi == NULL:
                    return -1
                self.cpool_idx = gi
                self.cpool_cap = j
            base = self.cpool_size
            self.cpool_size += cap
            for j in range(p.n_children):
                self.cpool_moves[base + j] = self.cpool_moves[p.cbase + j]
                self.cpool_idx[base + j] = self.cpool_idx[p.cbase + j]
            p.cbase = base
            p.ccap = cap
        self._init_node(i, move, parent, mover)
        self.nodes[i].avail = 1
        self.cpool_moves[p.cbase + p.n_children] = move
        self.cpool_idx[p.cbase + p.n_children] = i
        p.n_children += 1
        return i

    cdef void _determinize(self, State* s) noexcept nogil:
        cdef int i, j, t
        cdef hand_t opp = 0
        for i in range(self.opp_size):
            j = i + randint(&self.rng, self.pool_size - i)
            t = self.pool[i]
            self.pool[i] = self.pool[j]
            self.pool[j] = t
            opp += one(self.pool[i])
        s[0] = self.root
        s.h[1 - self.observer] = opp

    cdef int _evaluate(self, State* s) noexcept nogil:
        """Random play down to `exact_cards` cards per hand, then exact."""
        cdef int k
        while True:
            if s.table == 0 and s.n <= 1:
                return showdown(s)
            if s.table == 0 and s.n <= self.exact_cards:
                if self.ctx_ready:
                    return search_value(&self.ctx, s.h[0], s.h[1], s.attacker, 0) - 1
                return exact(s, -1, 1, self.buf)
            if s.table != 0 and self.rollout == 1 and (xorshift(&self.rng) & 7) != 0:
                apply_move(s, greedy_answer(s.table, s.h[1 - s.attacker]))
                continue
            k = gen_moves(s, self.buf)
            apply_move(s, self.buf[randint(&self.rng, k)])

    cdef int32_t _expand(self, State* s, int32_t node, uint64_t* moves, int k, int mover) noexcept nogil:
        """Add a child for one untried legal move (uniform among them) and
        apply it to `s`; returns the child (-1 when the tree is full)."""
        cdef int i, idx = 0
        cdef int32_t child
        cdef bint found
        cdef uint64_t mv
        cdef Node* here = &self.nodes[node]
        cdef uint64_t* cm = self.cpool_moves + here.cbase
        cdef int c, nc = here.n_children
        for i in range(k):
            found = False
            for c in range(nc):
                if cm[c] == moves[i]:
                    found = True
                    break
            if not found:
                moves[idx] = moves[i]
                idx += 1
        mv = moves[randint(&self.rng, idx)]
        child = self._add_child(node, mv, mover)
        apply_move(s, mv)
        return child

    cdef inline double _ucb(self, Node* nd) noexcept nogil:
        cdef double lg = LOG_TABLE[nd.avail] if nd.avail < LOG_TABLE_SIZE else log(<double>nd.avail)
        return nd.reward / nd.visits + self.c_uct * sqrt(lg / nd.visits)

    cdef void _iterate(self) noexcept nogil:
        cdef State s
        cdef int32_t node = 0, child, best, depth = 0
        cdef int k, i, legal, mover, outcome, idx
        cdef double score, best_score, u
        cdef uint64_t mv
        cdef AnswerCtx actx
        cdef Node* nd
        cdef Node* here
        cdef bint ok
        cdef int c
        cdef uint64_t* cm
        cdef uint64_t* moves = self.buf + MAX_MOVES   # buf[0..MAX_MOVES) is the rollout's
        self._determinize(&s)
        self.path[0] = 0
        depth = 1
        while not (s.table == 0 and s.n <= 1):
            mover = s.attacker if s.table == 0 else 1 - s.attacker
            here = &self.nodes[node]
            best = -1
            best_score = -1e300
            if mover == self.observer:
                # The observer's own hand is the same in every determinization
                # (and the table is public), so its legal moves here never
                # change: count them once, then only expand or select.
                if here.n_moves < 0:
                    here.n_moves = gen_moves(&s, moves)
                if here.n_children < here.n_moves:
                    k = gen_moves(&s, moves)
                    child = self._expand(&s, node, moves, k, mover)
                    if child >= 0:
                        self.path[depth] = child
                        depth += 1
                    break
                for i in range(here.n_children):
                    child = self.cpool_idx[here.cbase + i]
                    nd = &self.nodes[child]
                    nd.avail += 1
                    score = self._ucb(nd)
                    if score > best_score:
                        best_score = score
                        best = child
            else:
                k = gen_moves(&s, moves)
                if s.table != 0 and s.tsize > 1:
                    answer_prepare(&actx, s.table, s.h[1 - s.attacker])
                legal = 0
                cm = self.cpool_moves + here.cbase
                for c in range(here.n_children):
                    mv = cm[c]
                    if s.table == 0:
                        ok = contains(s.h[s.attacker], mv) and size_of(mv) < s.n
                    elif s.tsize == 1:
                        ok = False
                        for i in range(k):
                            if moves[i] == mv:
                                ok = True
                                break
                    else:
                        ok = answer_legal(&actx, mv)
                    if ok:
                        legal += 1
                        child = self.cpool_idx[here.cbase + c]
                        nd = &self.nodes[child]
                        nd.avail += 1
                        score = self._ucb(nd)
                        if score > best_score:
                            best_score = score
                            best = child
                if legal < k:
                    child = self._expand(&s, node, moves, k, mover)
                    if child >= 0:
                        self.path[depth] = child
                        depth += 1
                    break
            apply_move(&s, self.nodes[best].move)
            node = best
            self.path[depth] = node
            depth += 1
        outcome = self._evaluate(&s)
        # observer's outcome index: 0 win, 1 drawn round, 2 loss
        if self.observer == 1:
            outcome = -outcome
        idx = 1 - outcome
        u = self.util[idx]
        for i in range(1, depth):
            nd = &self.nodes[self.path[i]]
            nd.visits += 1
            if nd.mover == self.observer:
                nd.reward += u
            else:
                nd.reward -= u
            nd.reward_sq += u * u
            nd.outcome[idx] += 1
        self.nodes[0].visits += 1
        self.nodes[0].outcome[idx] += 1
        self.iterations += 1
        self.depth_sum += depth - 1

    def run(self, int64_t iterations=-1, double seconds=-1.0):
        """Run until `iterations` more iterations are done or `seconds` have
        passed (a negative value means no limit; one of them must be set).
        Returns the number of iterations run by this call."""
        cdef int64_t done = 0
        cdef double deadline = 0
        if iterations < 0 and seconds < 0:
            raise ValueError("run() needs iterations or seconds")
        with nogil:
            if seconds >= 0:
                deadline = now() + seconds
            while iterations < 0 or done < iterations:
                self._iterate()
                done += 1
                if seconds >= 0 and (done & 63) == 0 and now() >= deadline:
                    break
        return done

    @property
    def total_iterations(self):
        return self.iterations

    @property
    def mean_depth(self):
        """Mean number of tree nodes below the root on an iteration's path."""
        return self.depth_sum / self.iterations if self.iterations else 0.0

    @property
    def node_count(self):
        return self.n_nodes

    def root_children(self):
        """[(cards tuple, beats flag, visits, avail, reward sum, reward square
        sum, win, draw, loss)] for every expanded root move.  Rewards are
        the observer's (root moves are the observer's)."""
        cdef list out = []
        cdef Node* nd
        cdef int i
        for i in range(self.nodes[0].n_children):
            nd = &self.nodes[self.cpool_idx[self.nodes[0].cbase + i]]
            out.append((unpack(nd.move & CARDS), bool(nd.move & BEATS), nd.visits, nd.avail,
                        nd.reward, nd.reward_sq, nd.outcome[0], nd.outcome[1], nd.outcome[2]))
        return out


# ----------------------------------------------------- Python-level checks

cdef tuple unpack(hand_t h):
    cdef list out = []
    cdef int r, c
    for r in range(1, 13):
        for c in range(cnt(h, r)):
            out.append(r)
    return tuple(out)


cdef hand_t pack(cards) except? 0:
    cdef hand_t h = 0
    for r in cards:
        h += one(r)
    return h


def attacks(cards):
    """Distinct attacks (for tests against `solver.play.attacks`)."""
    cdef uint64_t out[MAX_MOVES]
    cdef int k = gen_attacks(pack(cards), len(cards), out)
    return sorted((unpack(out[i]) for i in range(k)), key=list)


def answers(attack, defender):
    """Distinct answers (for tests against `solver.play.answers`)."""
    cdef uint64_t* out = <uint64_t*>malloc(MAX_MOVES * sizeof(uint64_t))
    cdef int k
    try:
        k = gen_answers(pack(attack), pack(defender), out)
        return sorted(((unpack(out[i] & CARDS), bool(out[i] & BEATS)) for i in range(k)),
                      key=lambda a: (list(a[0]), a[1]))
    finally:
        free(out)


def outcome(hand0, hand1, int attacker, table=()):
    """Player 0's outcome (+1 / 0 / -1) under best play, by the leaf solver
    (for tests against `solver.play.play_value`)."""
    cdef State s
    cdef uint64_t* buf = <uint64_t*>malloc(MAX_MOVES * (MAX_DEPTH + 2) * sizeof(uint64_t))
    cdef int v
    s.h[0] = pack(hand0)
    s.h[1] = pack(hand1)
    s.attacker = attacker
    s.table = pack(table)
    s.tsize = len(table)
    s.n = len(hand1 if attacker == 0 else hand0)
    try:
        with nogil:
            v = exact(&s, -1, 1, buf)
        return v
    finally:
        free(buf)
