# cython: language_level=3
"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012)
for the play phase (R10–R17), in C.

Private: `tacocat.search.ismcts` validates the view against the rules and
hands over plain lists; the entry points here (`Tree`, `outcome`)
reject with ValueError whatever the fixed C arrays
cannot hold (the boundary policy of `_search.pxd`).  Everything inside
`Tree.run` runs without the GIL.

One iteration
-------------
1. *Determinize*: deal the opponent a hand drawn uniformly from the pool
   it is given (a partial Fisher–Yates shuffle of the pool's cards, so
   every card subset is equally likely — RULES §5).  The caller passes the
   cards the opponent may hold: the unseen pool at or above the floor its
   sacrifices set (R20, `tacocat.search.sampling.HandSampler.opp_pool`), so
   every determinization is a consistent world with its R20 weight.
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

Cost per iteration.  At the observer's own nodes the legal moves are the
same in every determinization (own hand and table are known), so they are
counted once and never regenerated.  At the opponent's nodes the moves
depend on the sampled hand: the legal moves are generated, and when the node
has more children than that (children from other determinizations) each
legal move is looked up in a hash index on (node, move) instead of testing
every child.  Edges (move + UCB statistics) of a node sit side by side in
one pool, so selection reads contiguous memory.

Leaves: the exact search of `tacocat.core._search` (its transposition table, one
per tree) once both hands hold at most `exact_cards` cards; it is the one
exact solver of the package (no private copy here).

Packed hands (`hand_t`), their helpers and the move generators are those of
`_search.pxd`: the count of rank r in bits 4(r-1)..4(r-1)+3; a move
(`answer_t`) is its packed cards, with BEATS_BIT (bit 63) set for an answer
in which every card beats (R13).
"""

from libc.stdint cimport uint64_t, int32_t, int64_t, int8_t, int16_t
from tacocat.core._search cimport (
    SearchCtx, ctx_init, ctx_free, ctx_set_levels, ctx_new_search, search_value,
    hand_t, answer_t, hand_count, hand_card, hand_size, hand_lowest, hand_highest, hand_contains,
    hand_unpack, gen_attacks, gen_answers, MAX_ANSWERS, MAX_HAND, HAND_MASK, BEATS_BIT,
    pack_cards,
)
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.math cimport sqrt, log
from posix.time cimport clock_gettime, clockid_t, timespec, CLOCK_MONOTONIC

cdef enum:
    MAX_MOVES = 2048       # scratch moves per ply, >= MAX_ANSWERS (attacks are fewer)
    MAX_DEPTH = 64         # > 2 * MAX_HAND plies
    MAX_POOL = 64

if <int>MAX_MOVES < <int>MAX_ANSWERS:
    raise ImportError("tacocat.core._ismcts: MAX_MOVES must hold MAX_ANSWERS moves")


# ------------------------------------------------------------ move generation
#
# Packed hands, moves (answer_t: cards | BEATS_BIT) and the attack and
# answer generators are those of `tacocat.core._search`.  ISMCTS's own: the
# legality test of one answer against a table (availability counts at the
# opponent's nodes test each existing child rather than search a generated
# list) and the greedy rollout answer.

ctypedef struct AnswerCtx:
    hand_t attack
    hand_t defender
    int max_a              # highest attack rank
    int cum_a[14]          # cum_a[r] = attack cards of rank >= r


cdef void answer_prepare(AnswerCtx* a, hand_t attack, hand_t defender) noexcept nogil:
    cdef int r, c = 0
    a.attack = attack
    a.defender = defender
    a.max_a = hand_highest(attack)
    a.cum_a[13] = 0
    for r in range(12, 0, -1):
        c += hand_count(attack, r)
        a.cum_a[r] = c


cdef inline bint answer_beats(AnswerCtx* a, hand_t s) noexcept nogil:
    """Every card of `s` can beat a distinct attack card (sorted dominance)."""
    cdef int r, cs = 0
    for r in range(12, 0, -1):
        cs += hand_count(s, r)
        if cs < a.cum_a[r]:
            return False
    return True


cdef inline bint answer_sacrifices(AnswerCtx* a, hand_t s) noexcept nogil:
    """`s` can answer with at least one sacrifice (R12): play the beating
    cards first, then the sacrifices in ascending order.  Cards above the
    lowest card kept (L) must beat; at least one card <= L must be below the
    highest attack card."""
    cdef hand_t rest = a.defender - s, high
    cdef int low_kept = hand_lowest(rest) if rest else 13
    cdef int min_s = hand_lowest(s)
    cdef int k, r, c, take, cs, ca
    cdef int small[13]
    if min_s > low_kept or min_s >= a.max_a:
        return False
    if low_kept >= 12:
        return True
    high = s & ~((<hand_t>1 << (4 * low_kept)) - 1)
    k = hand_size(high)
    if k == 0:
        return True
    # the k smallest attack cards, as counts
    for r in range(13):
        small[r] = 0
    r = 1
    take = k
    while take > 0:
        c = hand_count(a.attack, r)
        if c > take:
            c = take
        small[r] = c
        take -= c
        r += 1
    cs = 0
    ca = 0
    for r in range(12, 0, -1):
        cs += hand_count(high, r)
        ca += small[r]
        if cs < ca:
            return False
    return True


cdef inline bint answer_legal(AnswerCtx* a, answer_t move) noexcept nogil:
    cdef hand_t s = move & HAND_MASK
    if not hand_contains(a.defender, s):
        return False
    if move & BEATS_BIT:
        return answer_beats(a, s)
    return answer_sacrifices(a, s)


cdef answer_t greedy_answer(hand_t attack, hand_t defender) noexcept nogil:
    """Beat every attack card as cheaply as possible (each attack card, from
    the lowest, takes the lowest free card that beats it); when that fails,
    answer with the lowest cards, which is then always a legal sacrifice."""
    cdef hand_t free_ = defender, used = 0
    cdef int a, r, c, m = 0
    cdef bint ok = True
    for a in range(1, 13):
        c = hand_count(attack, a)
        m += c
        while c > 0 and ok:
            r = a
            while r <= 12 and hand_count(free_, r) == 0:
                r += 1
            if r > 12:
                ok = False
                break
            free_ -= hand_card(r)
            used += hand_card(r)
            c -= 1
    if ok:
        return used | BEATS_BIT
    used = 0
    free_ = defender
    while m > 0:
        r = hand_lowest(free_)
        free_ -= hand_card(r)
        used += hand_card(r)
        m -= 1
    return used


# -------------------------------------------------------------- the position

ctypedef struct State:
    hand_t h[2]
    int n            # cards per hand at the start of the trick
    int attacker
    hand_t table     # 0: the attacker is to attack
    int tsize


cdef inline void apply_move(State* s, answer_t move) noexcept nogil:
    cdef hand_t cards = move & HAND_MASK
    cdef int d
    if s.table == 0:
        s.h[s.attacker] -= cards
        s.table = cards
        s.tsize = hand_size(cards)
    else:
        d = 1 - s.attacker
        s.h[d] -= cards
        s.n -= s.tsize
        s.table = 0
        s.tsize = 0
        if move & BEATS_BIT:
            s.attacker = d   # R14: the trick's winner attacks next


cdef inline int gen_moves(State* s, answer_t* out) noexcept nogil:
    if s.table == 0:
        return gen_attacks(s.h[s.attacker], out)   # the attacker holds s.n cards
    return gen_answers(s.table, s.h[1 - s.attacker], out)


cdef inline bint child_legal(State* s, int kind, AnswerCtx* actx, answer_t mv, answer_t* moves,
                             int k) noexcept nogil:
    """Whether move `mv` (a child's) is legal in `s`.  kind 0: an attack,
    tested against the attacker's hand; 1: an answer to one card, searched
    in the legal moves `moves[0..k)`; 2: an answer to 2+ cards, tested
    against the table by `actx` (prepared)."""
    cdef int i
    if kind == 0:
        return hand_contains(s.h[s.attacker], mv) and hand_size(mv) < s.n
    if kind == 1:
        for i in range(k):
            if moves[i] == mv:
                return True
        return False
    return answer_legal(actx, mv)


cdef inline int showdown(State* s) noexcept nogil:
    """R17, player 0's outcome: +1 win, 0 drawn round, -1 loss."""
    cdef int a = hand_lowest(s.h[0]), b = hand_lowest(s.h[1])
    return 1 if a < b else (-1 if a > b else 0)


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


cdef inline double now(clockid_t clock) noexcept nogil:
    # `clock`: the budget's (tacocat.search.budget.Clock.c_id), wall or this thread's CPU
    cdef timespec ts
    clock_gettime(clock, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# --------------------------------------------------------------------- tree

cdef enum:
    LOG_TABLE_SIZE = 1 << 16
    HASH_FROM = 12           # look moves up by hash at opponent nodes with more children

cdef double LOG_TABLE[LOG_TABLE_SIZE]
cdef int _i
LOG_TABLE[0] = 0.0
for _i in range(1, LOG_TABLE_SIZE):
    LOG_TABLE[_i] = log(<double>_i)


ctypedef struct Edge:
    answer_t move        # the public move
    double reward        # sum of the mover's rewards through this edge
    int32_t visits
    int32_t avail        # times this move was legal when its parent was visited
    int32_t child        # the node it leads to
    int8_t mover         # the player who makes `move`

ctypedef struct Node:
    double reward_sq     # sum of squared rewards through this node
    int32_t outcome[3]   # observer's win / drawn round / loss counts through here
    int32_t cbase        # its edges: slots cbase .. cbase + n_children - 1 of the edge pool
    int16_t n_children
    int16_t ccap         # slots reserved in the edge pool
    int16_t n_moves      # observer to move here: how many legal moves (-1: not yet known)


cdef class Tree:
    """One SO-ISMCTS tree for one observer at one play-phase decision.

    Memory layout: nodes hold structure and outcome counts; each node's
    outgoing edges (move and UCB statistics) sit side by side in one pool, so
    selection scans a contiguous run instead of chasing child pointers.  A
    node's run moves to a twice larger one at the pool's end when full."""

    cdef Node* nodes
    cdef int32_t n_nodes
    cdef int32_t capacity
    cdef int32_t max_nodes
    cdef Edge* edges
    cdef int32_t n_edges
    cdef int32_t edge_cap
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
    cdef answer_t* buf           # MAX_MOVES * (MAX_DEPTH + 2) scratch moves
    cdef int64_t iterations
    cdef int64_t depth_sum       # sum over iterations of the selected path's length
    cdef int32_t path_node[MAX_DEPTH]   # parent node of each step
    cdef int16_t path_edge[MAX_DEPTH]   # edge ordinal of each step
    cdef answer_t* hmove         # edge index: open addressing on (node, move) -> edge ordinal
    cdef int32_t* hnode          # -1 marks an empty slot
    cdef int32_t* hord
    cdef int64_t hcap            # power of two, kept at least twice the number of edges
    cdef int64_t hcount
    cdef SearchCtx ctx           # exact leaf search with its own transposition table
    cdef bint ctx_ready

    def __cinit__(self, list my_hand, list pool, int opp_size, int observer, int attacker,
                  list table, tuple utilities, double c_uct=1.0, int exact_cards=4,
                  uint64_t seed=0, int max_nodes=2_000_000, uint64_t tt_entries=1 << 16, int rollout=0):
        cdef int i
        cdef hand_t mine = pack(my_hand, "my_hand"), tab = pack(table, "table")
        cdef uint64_t z
        _check_tree(my_hand, pool, opp_size, observer, attacker, table, utilities, exact_cards, max_nodes, rollout)
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
        self.edge_cap = 4096
        self.nodes = <Node*>malloc(self.capacity * sizeof(Node))
        self.edges = <Edge*>malloc(self.edge_cap * sizeof(Edge))
        self.buf = <answer_t*>malloc(MAX_MOVES * (MAX_DEPTH + 2) * sizeof(answer_t))
        self.hcap = 0
        self.hcount = 0
        self.hmove = NULL
        self.hnode = NULL
        self.hord = NULL
        if self.nodes == NULL or self.buf == NULL or self.edges == NULL or self._hash_grow(1 << 14) != 0:
            raise MemoryError()
        self.ctx_ready = False
        if exact_cards > 0 and tt_entries <= 0:
            raise ValueError("exact leaves (exact_cards > 0) need a transposition table (tt_entries > 0)")
        if exact_cards > 0:
            if ctx_init(&self.ctx, tt_entries) != 0:
                raise MemoryError("cannot allocate the leaf transposition table")
            self.ctx_ready = True
            ctx_set_levels(&self.ctx, 2, 1, 0)
            ctx_new_search(&self.ctx, False)
        self.n_nodes = 1
        self.n_edges = 0
        self._init_node(0)
        self.iterations = 0
        self.depth_sum = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.edges)
        free(self.hmove)
        free(self.hnode)
        free(self.hord)
        free(self.buf)
        if self.ctx_ready:
            ctx_free(&self.ctx)

    cdef inline uint64_t _hash(self, int32_t node, answer_t move) noexcept nogil:
        cdef uint64_t x = move ^ ((<uint64_t>node) * <uint64_t>0x9E3779B97F4A7C15)
        x ^= x >> 29
        x *= <uint64_t>0xBF58476D1CE4E5B9
        x ^= x >> 32
        return x

    cdef int _hash_grow(self, int64_t cap) noexcept nogil:
        """Re-index every edge into a table of `cap` slots; -1 if out of memory."""
        cdef answer_t* hm = <answer_t*>malloc(cap * sizeof(answer_t))
        cdef int32_t* hn = <int32_t*>malloc(cap * sizeof(int32_t))
        cdef int32_t* ho = <int32_t*>malloc(cap * sizeof(int32_t))
        cdef int64_t i, j, mask = cap - 1
        cdef int32_t node
        cdef int c
        if hm == NULL or hn == NULL or ho == NULL:
            free(hm)
            free(hn)
            free(ho)
            return -1
        for i in range(cap):
            hn[i] = -1
        for node in range(self.n_nodes):
            for c in range(self.nodes[node].n_children):
                j = <int64_t>(self._hash(node, self.edges[self.nodes[node].cbase + c].move) & <uint64_t>mask)
                while hn[j] >= 0:
                    j = (j + 1) & mask
                hm[j] = self.edges[self.nodes[node].cbase + c].move
                hn[j] = node
                ho[j] = c
        free(self.hmove)
        free(self.hnode)
        free(self.hord)
        self.hmove, self.hnode, self.hord, self.hcap = hm, hn, ho, cap
        return 0

    cdef inline int _lookup(self, int32_t node, answer_t move) noexcept nogil:
        """The ordinal of `node`'s edge for `move`, or -1."""
        cdef int64_t mask = self.hcap - 1
        cdef int64_t j = <int64_t>(self._hash(node, move) & <uint64_t>mask)
        while self.hnode[j] >= 0:
            if self.hnode[j] == node and self.hmove[j] == move:
                return self.hord[j]
            j = (j + 1) & mask
        return -1

    cdef inline void _init_node(self, int32_t i) noexcept nogil:
        cdef Node* nd = &self.nodes[i]
        nd.reward_sq = 0
        nd.outcome[0] = 0
        nd.outcome[1] = 0
        nd.outcome[2] = 0
        nd.cbase = 0
        nd.n_children = 0
        nd.ccap = 0
        nd.n_moves = -1

    cdef int _add_child(self, int32_t parent, answer_t move, int mover) noexcept nogil:
        """Append an edge and its node; returns the edge ordinal (-1 when full)."""
        cdef Node* grown
        cdef Edge* more
        cdef Node* p
        cdef Edge* e
        cdef int32_t i, base, cap, j
        if self.n_nodes >= self.max_nodes:
            return -1
        if 2 * (self.hcount + 1) > self.hcap:
            if self._hash_grow(2 * self.hcap) != 0:
                return -1
        if self.n_nodes >= self.capacity:
            grown = <Node*>realloc(self.nodes, 2 * self.capacity * sizeof(Node))
            if grown == NULL:
                return -1
            self.nodes = grown
            self.capacity *= 2
        p = &self.nodes[parent]
        if p.n_children == p.ccap:
            cap = 4 if p.ccap == 0 else 2 * p.ccap
            if cap > 16000:
                return -1
            if self.n_edges + cap > self.edge_cap:
                j = 2 * self.edge_cap
                while j < self.n_edges + cap:
                    j *= 2
                more = <Edge*>realloc(self.edges, j * sizeof(Edge))
                if more == NULL:
                    return -1
                self.edges = more
                self.edge_cap = j
            base = self.n_edges
            self.n_edges += cap
            for j in range(p.n_children):
                self.edges[base + j] = self.edges[p.cbase + j]
            p.cbase = base
            p.ccap = cap
        i = self.n_nodes
        self.n_nodes += 1
        self._init_node(i)
        e = &self.edges[p.cbase + p.n_children]
        e.move = move
        e.reward = 0
        e.visits = 0
        e.avail = 1
        e.child = i
        e.mover = mover
        p.n_children += 1
        # index the edge (the table was rebuilt above if it would pass half load)
        j = <int32_t>(self._hash(parent, move) & <uint64_t>(self.hcap - 1))
        while self.hnode[j] >= 0:
            j = (j + 1) & <int32_t>(self.hcap - 1)
        self.hmove[j] = move
        self.hnode[j] = parent
        self.hord[j] = p.n_children - 1
        self.hcount += 1
        return p.n_children - 1

    cdef void _determinize(self, State* s) noexcept nogil:
        cdef int i, j, t
        cdef hand_t opp = 0
        for i in range(self.opp_size):
            j = i + randint(&self.rng, self.pool_size - i)
            t = self.pool[i]
            self.pool[i] = self.pool[j]
            self.pool[j] = t
            opp += hand_card(self.pool[i])
        s[0] = self.root
        s.h[1 - self.observer] = opp

    cdef int _evaluate(self, State* s) noexcept nogil:
        """Random play down to `exact_cards` cards per hand, then exact."""
        cdef int k
        while True:
            if s.table == 0 and s.n <= 1:
                return showdown(s)
            if s.table == 0 and s.n <= self.exact_cards:
                return search_value(&self.ctx, s.h[0], s.h[1], s.attacker, 0) - 1
            if s.table != 0 and self.rollout == 1 and (xorshift(&self.rng) & 7) != 0:
                apply_move(s, greedy_answer(s.table, s.h[1 - s.attacker]))
                continue
            k = gen_moves(s, self.buf)
            apply_move(s, self.buf[randint(&self.rng, k)])

    cdef int _expand(self, State* s, int32_t node, answer_t* moves, int k, int mover) noexcept nogil:
        """Add an edge for one untried legal move (uniform among them) and
        apply it to `s`; returns the edge ordinal (-1 when the tree is full)."""
        cdef int i, c, idx = 0, nc = self.nodes[node].n_children
        cdef Edge* ed = self.edges + self.nodes[node].cbase
        cdef bint found
        cdef answer_t mv
        for i in range(k):
            found = False
            if nc > HASH_FROM:
                found = self._lookup(node, moves[i]) >= 0
            else:
                for c in range(nc):
                    if ed[c].move == moves[i]:
                        found = True
                        break
            if not found:
                moves[idx] = moves[i]
                idx += 1
        mv = moves[randint(&self.rng, idx)]
        c = self._add_child(node, mv, mover)
        apply_move(s, mv)
        return c

    cdef inline double _ucb(self, Edge* e) noexcept nogil:
        cdef double lg = LOG_TABLE[e.avail] if e.avail < LOG_TABLE_SIZE else log(<double>e.avail)
        return e.reward / e.visits + self.c_uct * sqrt(lg / e.visits)

    cdef inline bint _offer(self, Edge* e, double* best_score) noexcept nogil:
        """`e`'s move is legal here: count its availability; whether its UCB
        score beats `best_score` (then raised to it)."""
        cdef double score
        e.avail += 1
        score = self._ucb(e)
        if score > best_score[0]:
            best_score[0] = score
            return True
        return False

    cdef inline int _expand_path(self, State* s, int32_t node, answer_t* moves, int k, int mover,
                                 int depth) noexcept nogil:
        """`_expand`, then record the new edge on the path; returns the new depth."""
        cdef int c = self._expand(s, node, moves, k, mover)
        if c >= 0:
            self.path_node[depth] = node
            self.path_edge[depth] = c
            depth += 1
        return depth

    cdef void _iterate(self) noexcept nogil:
        cdef State s
        cdef int32_t node = 0
        cdef int k = 0, i, c, legal, mover, outcome, idx, best, depth = 0, nc, kind
        cdef double best_score, u
        cdef AnswerCtx actx
        cdef Node* here
        cdef Edge* ed
        cdef Edge* e
        cdef bint hashed
        cdef answer_t* moves = self.buf + MAX_MOVES   # buf[0..MAX_MOVES) is the rollout's
        memset(&actx, 0, sizeof(actx))   # prepared before use; this quiets gcc's -Wmaybe-uninitialized
        self._determinize(&s)
        while not (s.table == 0 and s.n <= 1):
            mover = s.attacker if s.table == 0 else 1 - s.attacker
            here = &self.nodes[node]
            nc = here.n_children
            ed = self.edges + here.cbase
            best = -1
            best_score = -1e300
            if mover == self.observer:
                # The observer's own hand is the same in every determinization
                # (and the table is public), so its legal moves here never
                # change: count them once, then only expand or select.
                if here.n_moves < 0:
                    here.n_moves = gen_moves(&s, moves)
                if nc < here.n_moves:
                    depth = self._expand_path(&s, node, moves, gen_moves(&s, moves), mover, depth)
                    break
                for c in range(nc):
                    if self._offer(&ed[c], &best_score):
                        best = c
            else:
                # Many children from other determinizations: look up this
                # determinization's legal moves instead of testing every
                # child.  Both loops find the same legal children.
                k = gen_moves(&s, moves)
                hashed = nc > HASH_FROM and nc > k
                legal = 0
                if hashed:
                    for i in range(k):
                        c = self._lookup(node, moves[i])
                        if c >= 0:
                            legal += 1
                            if self._offer(&ed[c], &best_score):
                                best = c
                else:
                    if s.table == 0:
                        kind = 0
                    elif s.tsize == 1:
                        kind = 1
                    else:
                        kind = 2
                        answer_prepare(&actx, s.table, s.h[1 - s.attacker])
                    for c in range(nc):
                        if child_legal(&s, kind, &actx, ed[c].move, moves, k):
                            legal += 1
                            if self._offer(&ed[c], &best_score):
                                best = c
                if legal < k:
                    depth = self._expand_path(&s, node, moves, k, mover, depth)
                    break
            e = &ed[best]
            apply_move(&s, e.move)
            self.path_node[depth] = node
            self.path_edge[depth] = best
            depth += 1
            node = e.child
        outcome = self._evaluate(&s)
        # observer's outcome index: 0 win, 1 drawn round, 2 loss
        if self.observer == 1:
            outcome = -outcome
        idx = 1 - outcome
        u = self.util[idx]
        for i in range(depth):
            e = &self.edges[self.nodes[self.path_node[i]].cbase + self.path_edge[i]]
            e.visits += 1
            if e.mover == self.observer:
                e.reward += u
            else:
                e.reward -= u
            here = &self.nodes[e.child]
            here.reward_sq += u * u
            here.outcome[idx] += 1
        self.nodes[0].outcome[idx] += 1
        self.iterations += 1
        self.depth_sum += depth

    def run(self, int64_t iterations=-1, double seconds=-1.0, int clock=CLOCK_MONOTONIC):
        """Run until `iterations` more iterations are done or `seconds` have
        passed on POSIX clock `clock` (the budget's: CLOCK_MONOTONIC or
        CLOCK_THREAD_CPUTIME_ID; a negative value means no limit; one of
        them must be set).  Returns the number of iterations run by this call."""
        cdef int64_t done = 0
        cdef double deadline = 0
        cdef clockid_t cid = <clockid_t>clock
        if iterations < 0 and seconds < 0:
            raise ValueError("run() needs iterations or seconds")
        with nogil:
            if seconds >= 0:
                deadline = now(cid) + seconds
            while iterations < 0 or done < iterations:
                self._iterate()
                done += 1
                if seconds >= 0 and (done & 63) == 0 and now(cid) >= deadline:
                    break
        return done

    @property
    def total_iterations(self):
        return self.iterations

    @property
    def mean_depth(self):
        """Mean number of tree edges on an iteration's path."""
        return self.depth_sum / self.iterations if self.iterations else 0.0

    @property
    def node_count(self):
        return self.n_nodes

    def root_children(self):
        """[(cards tuple, beats flag, visits, avail, reward sum, reward square
        sum, win, draw, loss)] for every expanded root move.  Rewards are
        the observer's (root moves are the observer's)."""
        cdef list out = []
        cdef Edge* e
        cdef Node* nd
        cdef int i
        for i in range(self.nodes[0].n_children):
            e = &self.edges[self.nodes[0].cbase + i]
            nd = &self.nodes[e.child]
            out.append((unpack(e.move & HAND_MASK), bool(e.move & BEATS_BIT), e.visits, e.avail,
                        e.reward, nd.reward_sq, nd.outcome[0], nd.outcome[1], nd.outcome[2]))
        return out

    def determinizations(self, int n):
        """`n` opponent hands dealt exactly as an iteration deals them (step
        1), as sorted tuples: what the search sees, for tests (R20: only
        hands of the pool given).  Advances the tree's random state."""
        cdef State s
        cdef list out = []
        cdef int i
        for i in range(n):
            self._determinize(&s)
            out.append(unpack(s.h[1 - self.observer]))
        return out


# ----------------------------------------------------- Python-level checks

cdef tuple unpack(hand_t h):
    cdef int out[192]
    cdef int n = hand_unpack(h & HAND_MASK, out)
    return tuple([out[i] for i in range(n)])


cdef hand_t pack(cards, str what="cards") except? 0:
    return pack_cards(cards, what, MAX_HAND)


cdef int _check_tree(list my_hand, list pool, int opp_size, int observer, int attacker, list table,
                     tuple utilities, int exact_cards, int max_nodes, int rollout) except -1:
    """What `Tree` can represent: hands of at most MAX_HAND cards that fit
    (attacker's hand + table = defender's, R10), a pool of at most MAX_POOL
    cards and 15 of a rank (the opponent's hand is dealt from it)."""
    cdef int mine = len(my_hand) + (len(table) if attacker == observer else 0)
    cdef int att, dfd
    if observer != 0 and observer != 1 or attacker != 0 and attacker != 1:
        raise ValueError(f"observer and attacker must be 0 or 1, got {observer} and {attacker}")
    pack_cards(pool, "unseen pool", MAX_POOL)
    if mine > MAX_HAND or mine < 1:
        raise ValueError(f"my_hand: {mine} cards in play; expected 1..{MAX_HAND}")
    if not 1 <= opp_size <= min(len(pool), MAX_HAND):
        raise ValueError(f"opp_size {opp_size}: expected 1..{min(len(pool), MAX_HAND)} (at most the unseen pool)")
    att, dfd = len(my_hand), opp_size
    if attacker != observer:
        att, dfd = dfd, att
    if att + len(table) != dfd:
        raise ValueError(f"hand sizes do not fit: attacker {att} + table {len(table)} != defender {dfd}")
    if len(utilities) != 3:
        raise ValueError(f"utilities: expected (win, draw, loss), got {utilities!r}")
    if exact_cards < 0 or max_nodes < 1 or rollout != 0 and rollout != 1:
        raise ValueError(f"exact_cards {exact_cards}, max_nodes {max_nodes}, rollout {rollout}: "
                         "expected exact_cards >= 0, max_nodes >= 1, rollout 0 or 1")
    return 0
