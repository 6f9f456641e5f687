# cython: language_level=3
"""Counterfactual regret minimisation of the hidden-hand play-phase endgame
(R10–R17, information sets R20), in C.

Private: `tacocat.search.equilibrium` builds the inputs (the unseen-by-anyone
pool, each player's hand floor, the root) and wraps the results.  Nothing
below the Python methods of `Engine` touches a Python object.

The game
--------
Chance deals both current hands at once from the pool U (deck - every
face-up card): a pair of multisets (A, B) weighs prod_r U_r! / (A_r! B_r!
(U_r - A_r - B_r)!), the number of ways to pick those card subsets (R6,
R20 weights); hands below their owner's floor weigh 0 (R20, via
`tacocat.rules.history.hand_floor`).  All play is public (R15), so an
information set is (own remaining hand, public node).  The *public tree* has
one node per public history: an attack node (empty table), an answer node
(attack on the table) or a showdown (both hold one card, R16-R17).

Vector form
-----------
Each player's hands of k cards are indexed once (`level k`: every multiset
of k cards of the pool).  Reach probabilities and counterfactual values are
vectors over a level, one entry per private hand, written and read only at
the hands alive at a node.  A *sequence* is (public child, hand of the
acting player at the parent that may legally take the child's action); it
stores the parent hand, the hand it becomes (the parent hand less the cards
played), its regret, average-strategy weight and current strategy; a node's children's
sequences are one contiguous run.  The moves are the core's own
(`_search.gen_attacks` / `gen_answers`, R10-R13, one vocabulary with the
exact solver): each alive hand lists its moves, the (move, hand) pairs are
sorted and grouped into children.  So the whole tree is built once, and
legality is never tested again.

Bounds
------
`estimate` predicts the tree's nodes and sequences before anything is
allocated (Knuth's random-path estimator, stratified over the root's moves,
later moves drawn in proportion to their hands).  `limit` sets a deadline
and a stop callback: every build step and every traversal polls them (the
clock at once while building, every 64 nodes while traversing; the callback
at most every POLL_S), and an aborted call raises `Stopped`.  Inputs are
checked at the door (`pack_cards` / `check_hand`); every allocation is
checked.

Chance weights enter only at showdowns: with c0, c1 the cards each player
played since the root and x, y the last cards, the pair weight is
W(c0, c1) * alpha(x) * beta(y) for x != y and W * gamma(x) for x == y, so a
showdown's counterfactual values cost O(12) with prefix sums.

In place (`keep_lower`, below the root, with win >= draw >= loss): a last
answer (both then hold one card) keeps the lowest card a legal answer keeps,
and an attack with two cards each is made with the higher card; both are
weakly best for every pair of hands (see `tacocat.search.equilibrium.
keep_lower`), so those nodes (`KIND_LAST`, `KIND_LAST_ATTACK`) have no
children and no sequences and are valued where they stand (`_last_answer`,
`_last_attack`): 75-80 % of a 5-card tree's sequences and 81-85 % of its
nodes were the last answers and their showdowns.  So is a one-card attack
answered from three cards (`KIND_ANSWER_THREE`, `_answer_three`): beaten
with the middle card if it beats, else the highest, a sacrifice only when
nothing beats, then the attack with two cards each in place (78 % of the
sequences of issue 36's 5-card tree were those answers: 102 M -> 21 M).  A hand with one legal
move at a node (forced) has a sequence (its hand indices) but no regret or
strategy: a child's free sequences come first, their floats one run
(`fseq`, `nfree`).

Solver: discounted CFR (alpha 1, beta 0; Brown & Sandholm 2019) with the
average weighing iteration t as t^12 (gamma 12, not 2) and predictive regret
matching (the strategy matched on the regrets plus the last instantaneous
regret: Farina, Kroer & Sandholm 2021), alternating updates; subtrees the
opponent never reaches are skipped.  Traversals write and read only the
hands alive after the traverser's last move (`live`, and the opponent's:
`olive`), not whole levels.  The leaves played in place carry most of an
iteration's work: a last answer's defender hands that play the same cards
share one showdown (one chance patch, `_add_cards`), and a last answer to
one card (every `_last_attack` makes one per attack card) fuses its
showdowns into one pass over the hands (`_last_single`).
Each node's current strategy is regret-matched once per iteration, by its
owner's traversal right after the regrets change, and kept for the other
player's traversal and the owner's next one, which would otherwise match the
same regrets again.

Storage: a free sequence's regret, average weight and current probability
are float32 (16 bytes a sequence with its two hand indices), or, in a
`compact` tree, 16-bit codes (10 bytes): a node's children's regrets are
int16 codes of one scale (`Node.rscale`: its largest magnitude / 32767),
their average weights uint16 codes of another (`sscale`), each stored anew
whenever the node's owner updates them (`_put`), the current probabilities
p * 65535.  Rounding errs by at most half a code of the node's largest
entry: what a hand loses to it weighs what the hand weighs at the node
(the idea of postflop-solver's compressed storage).  Matching and the
average's normalisation read the codes unscaled (a node's scale cancels).

Threads (`set_threads`): a traversal's root children are a queue that the
calling thread and its workers take from, largest subtree first, each
walking a child with its own `Scratch` into that child's results
(`_split`); the subtrees share no entry, and the root sums the results in
child order, as one thread does, so the numbers do not depend on the
threads.  Only the calling thread polls the deadline and the stop callback;
the workers read the abort flag it sets.

Deterministic: no randomness anywhere.  Best response: the same traversal
with a max over each hand's actions against the other's average strategy;
it is exact up to floating point (checked against a brute force in the tests).
"""

from libc.math cimport fabs
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, clockid_t, timespec

# one vocabulary with the exact solver: packed hands, their helpers, the move generators, the input checks
from tacocat.core._search cimport (BEATS_BIT, HAND_MASK, MAX_ANSWERS, MAX_ATTACKS, check_hand, gen_answers,
                                   gen_attacks, hand_card, hand_contains, hand_count, hand_highest, hand_lowest,
                                   hand_size, pack_cards)


class Stopped(Exception):
    """The deadline or the stop callback ended a build or a traversal."""


cdef inline double _now(clockid_t clock) noexcept nogil:
    # `clock` is the budget's (tacocat.search.budget.Clock.c_id): CLOCK_MONOTONIC
    # is Python's time.monotonic() on Linux, CLOCK_THREAD_CPUTIME_ID its
    # time.thread_time(), so deadlines pass as floats
    cdef timespec ts
    clock_gettime(clock, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec

ctypedef float real   # regrets and strategy weights (and the current strategy) of a tree that is not `compact`
cdef double REG_CODE = 32767.0    # `compact`: a regret is an int16 code times its node's `rscale`
cdef double SUM_CODE = 65535.0    # ... an average weight a uint16 code times `sscale`, a current probability / this

cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    /* max(x, 0) as one maxsd: gcc turns the plain ternary into a branch, and libm's fmax is a call */
    static inline double cfr_pos(double x) { return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(x), _mm_setzero_pd())); }
    #else
    static inline double cfr_pos(double x) { return x > 0 ? x : 0.0; }
    #endif
    """
    double _pos "cfr_pos"(double x) noexcept nogil   # max(x, 0) without a branch on a regret's sign

cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t* thread, const void* attr, void* (*start)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t thread, void** ret)

cdef extern from *:
    """
    /* the threads of one traversal share the abort flag and the queue of root children (`_split`) */
    static inline int cfr_load(int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static inline void cfr_store(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    static inline int cfr_take(int* p) { return __atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL); }
    """
    int cfr_load(int* p) noexcept nogil
    void cfr_store(int* p, int v) noexcept nogil
    int cfr_take(int* p) noexcept nogil

cdef extern from "<time.h>" nogil:
    int nanosleep(const timespec* req, timespec* rem)

cdef double ALPHA = 1.0, BETA = 0.0
cdef double GAMMA = 12.0
# the average strategy weighs iteration t as t^12 (DCFR's own gamma is 2): with predictive matching, 1e-3 in
# a median 5 iterations at 3 cards instead of 13, 6-9 at 4 cards instead of 14-18 (results/equilibrium_speed.py,
# gamma 8); positive regrets discounted by t / (t + 1) (alpha 1, DCFR's own 1.5): since the answers from three
# cards are played in place (issue 36), 1e-6 at 3 cards in a median 21.5 iterations, not 45.5 (20 endgames),
# 1e-3 at 4 cards in 7, not 8.5 (6), issue 36's command with its hand's regret in 19, not 26
cdef double POLL_S = 0.01   # the stop callback (which takes the GIL) is asked at most this often

cdef enum:
    MAXK = 6
    MAXDEPTH = 16
    KIND_ATTACK = 0
    KIND_ANSWER = 1
    KIND_SHOWDOWN = 2
    KIND_LAST = 3       # a last answer played keep-the-lowest-card in place (`keep_lower`): no children, no sequences
    KIND_LAST_ATTACK = 4   # an attack with two cards each, played with the higher card in place (`keep_lower`)
    KIND_ANSWER_THREE = 5  # a one-card attack answered from three cards (both then hold two), played in place
    L2_MAX = 80         # two-card hands of 12 ranks: at most 78
    L3_MAX = 368        # three-card hands of 12 ranks: at most 364
    BREAKDOWN_FIELDS = 4
    MAX_KEEP = 256      # distinct tables of the last answers (an attack of h - 1 cards: at most ~80)
    NZ_MAX = 128        # the hands `_nonzero` lists on the stack (a level-2 vector: at most 78, 12 ranks)
    MAX_THREADS = 16    # threads of one traversal (`threads`)
    SPLIT_MIN = 20000   # sequences below which a traversal stays on one thread (a thread's start costs ~50 us)

cdef struct Scratch:
    # one thread's traversal vectors, per depth: reach, values, strategy, action values; `_last_answer`'s groups
    double* pbuf[MAXDEPTH][2]
    double* vbuf[MAXDEPTH]
    double* cbuf[MAXDEPTH]
    double* sbuf[MAXDEPTH]
    double* qbuf[MAXDEPTH]
    double* rbuf        # one node's new regrets' prediction and average weights, before they are stored
    double* tbuf
    int32_t* gmark      # per level-(k - 1) hand, its group there, else -1
    double* gbuf        # each group's one-card vector (16 a group)
    uint32_t ticks
    int poller          # 1: this thread reads the clock and asks the stop callback (one per traversal)

cdef struct Worker:
    void* engine        # the Engine (borrowed: the calling thread holds it until every worker is joined)
    int t               # its scratch, `scr[t]`

cdef struct Pair:
    uint64_t key        # action: packed cards << 1 | beats
    int32_t hand        # index of a hand (in its level) that may take it

cdef int cmp_key(const void* x, const void* y) noexcept nogil:
    cdef uint64_t p = (<const uint64_t*>x)[0]
    cdef uint64_t q = (<const uint64_t*>y)[0]
    return (p > q) - (p < q)

cdef struct Chance:
    double W            # the chance weight of the cards played since the root (over Z)
    double al[13]       # by rank: one more card of it for player 0, for player 1, for both (F's ratios)
    double be[13]
    double ga[13]

cdef struct Factors:
    # a last answer to one card (`_last_single`), by level-1 index i (one rank each): the node's chance
    # factors of one more card of i's rank for the traverser p (m), its opponent (t), both (ga); and, once the
    # defender has answered with that card: the weight's factor (fw) and its rank's m, t, ga (mP, tP, gP)
    # (m, t, ga and mP, tP, gP in that order, 64 entries apart: `_last_single` reads one or the other by index)
    double m[16]
    double t[16]
    double ga[16]
    double fw[16]
    double mP[16]
    double tP[16]
    double gP[16]

cdef struct Node:
    uint64_t act        # cards of the action leading here (packed), 0 at the root
    int32_t first       # first child id
    int32_t seq         # first sequence of this node (as a child): its hands, free ones first
    int32_t nseq
    int32_t parent
    int32_t fseq        # the first regret / strategy entry of its free sequences (`nfree`, in that order)
    uint16_t nchild
    uint16_t nfree      # sequences of hands with another move too; the rest (forced) hold no regret or strategy
    uint8_t kind
    uint8_t actor       # who acts here (kind attack / answer)
    uint8_t k0, k1      # hand sizes here
    uint8_t beats       # the action leading here: an answer that beats
    uint8_t attacker
    float rscale        # `compact`: the scale of the regrets of this node's children's free sequences (one run)
    float sscale        # ... of their average weights (1 each when not compact: the entries are floats)


cdef class Engine:
    """The public tree of one endgame and the solver's state."""

    cdef int U[13]
    cdef int K
    cdef int lsize[MAXK + 1]
    cdef uint64_t* lhand[MAXK + 1]
    cdef int32_t* lcode[MAXK + 1]
    cdef Node* nodes
    cdef int64_t nnodes, cap_nodes
    cdef uint16_t* spar
    cdef uint16_t* schi
    # regrets, average weights and the current (regret-matched) strategy, one entry per free sequence:
    # float32 each, or (`compact`) 16-bit codes with a scale per node (`Node.rscale`, `sscale`)
    cdef void* sreg
    cdef void* ssum
    cdef void* scur     # the current strategy, matched once per iteration by its owner
    cdef readonly bint compact
    cdef int esz        # bytes of one entry: 4, or 2 when compact
    cdef int64_t nseq, cap_seq, max_seq
    cdef int64_t nflt, cap_flt   # regret / strategy entries: the free sequences only
    cdef uint16_t* hmoves        # build scratch: each hand's moves at the node being built
    cdef int64_t peak   # most bytes the tree arrays held at once (growth slack included)
    cdef int max_node_seq
    cdef double F[13][9][9]
    cdef double FA[13][9][9]     # F[r][a+1][b] / F[r][a][b]: one more card of rank r for player 0 at a showdown
    cdef double FB[13][9][9]     # ... for player 1
    cdef double FG[13][9][9]     # ... for both
    cdef int rank1[16]           # the rank of each one-card hand (level 1)
    cdef double Z
    cdef double u_win, u_draw, u_loss
    cdef uint8_t* allowed[2]
    cdef uint16_t* root_live[2]   # the allowed root hands of each player, as indices (the root's `live`)
    cdef int nroot_live[2]
    cdef int root_k[2]
    cdef int root_att
    cdef uint64_t root_table
    cdef public int iterations
    cdef bint too_big
    # traversal scratch, one per thread: scr[0] the calling thread's (the poller), scr[1..] the workers'
    cdef Scratch scr[MAX_THREADS]
    cdef int nscr               # scratches allocated
    cdef readonly int threads   # threads of each traversal (`set_threads`)
    # a traversal on several threads (`_split`): the root's children, largest subtree first, are a queue;
    # each thread walks the children it takes with its own scratch into per-child results, which the
    # calling thread then sums in child order: the same floating-point sums as on one thread
    cdef int32_t* split_order
    cdef double* split_v        # per root child, the traverser's values after it (the opponent moving)
    cdef uint8_t* split_on      # ... whether it was walked (else pruned: the opponent never plays it)
    cdef int split_next, split_done
    cdef int split_p
    cdef double* split_mine
    cdef double* split_opp
    cdef double split_tot
    cdef double* split_sig
    cdef double* split_q        # per root sequence, its value (the traverser moving): scr[0].qbuf[0]
    cdef const uint16_t* split_live
    cdef int split_nlive
    cdef const uint16_t* split_olive
    cdef int split_nolive
    cdef Worker workers[MAX_THREADS]
    cdef int64_t splits         # traversals shared out so far
    cdef int64_t split_taken[MAX_THREADS]   # root children each thread walked, so far
    cdef int maxm
    cdef double dpos, dneg, dstrat
    cdef public int plus   # 1: CFR+ (regrets floored at 0, linear averaging)
    # DCFR's discounts (Brown & Sandholm 2019): positive regrets by t^alpha / (t^alpha + 1), negative ones by
    # t^beta / (t^beta + 1), the average's earlier weights by ((t - 1) / t)^gamma; `predictive`: the current
    # strategy is matched on the regrets plus the last instantaneous regret (a prediction of the next one,
    # Farina, Kroer & Sandholm 2021)
    cdef public double alpha, beta, gamma
    cdef public int predictive
    cdef public int noprune
    # the last answer (one attack card, two cards in the defender's hand, both keep one) is played
    # keep-the-lower-card below the root: with win >= draw >= loss that is weakly best against every
    # opponent card, so the game's value, every best response and the exploitability are unchanged,
    # and the tree holds neither that answer's sequences nor its showdowns (75-80 % of the sequences
    # and 81-85 % of the nodes of a 5-card tree).  Set before `estimate` and `build`
    cdef public bint keep_lower
    # per distinct last-answer table (`_keep_table`): the level-1 index of the card each defender hand keeps
    cdef uint8_t* kept[MAX_KEEP]
    # ... and the level-(k - 1) index of the cards it plays (its hand less the kept card): the hands of a
    # group that plays the same cards share one showdown (`_last_answer`)
    cdef uint16_t* kplay[MAX_KEEP]
    cdef int idx1[13]          # the level-1 index of each rank in the pool
    cdef uint64_t kept_table[MAX_KEEP]
    cdef int nkept
    cdef int single_slot[13]   # the `kept` slot of a one-card attack of each rank
    cdef uint16_t* every1      # 0, 1, ..., the indices of level 1
    # `KIND_ANSWER_THREE`, per attack rank y: each three-card defender hand's answer played in place (the card's
    # rank * 2 + 1 if it beats: `_three_tables`) and the level-2 index of the two cards it keeps
    cdef uint8_t* three_key[13]
    cdef uint16_t* three_rest[13]
    cdef int mode   # 0: DCFR, 1: best response, 2: evaluate the average profile
    cdef bint one_hand   # modes 1, 2: only the traverser's one hand (`hand_values`): its moves alone walked
    cdef double* root_q   # action values at the root for mode 2
    cdef uint8_t* mbuf[MAXDEPTH][2]
    # bounds: every build step and traversal polls `_poll` (the clock every
    # 64 calls, the stop callback every POLL_S), and unwinds once it is set
    cdef double deadline        # seconds on `clock`; 0: none
    cdef clockid_t clock        # the deadline's POSIX clock (`limit`)
    cdef double next_callback
    cdef object stop_cb         # a callable returning True to stop, or None
    cdef public bint aborted
    cdef public bint built
    cdef int64_t reserve, reserve_free
    cdef double* rootv[3][2]     # [mode][player]: root counterfactual values of the last traversal
    # build scratch: one node's (action, hand) pairs, its children's first pairs, one hand's moves
    cdef Pair* pairs
    cdef int64_t pairs_cap
    cdef Pair* raw            # the pairs as generated (hand order), before they are grouped by action
    cdef uint64_t* hkey       # an open-addressing table action key -> slot: the distinct keys of one node
    cdef int32_t* hval        # per slot: the key's pair count, then its next place in `pairs`
    cdef uint64_t* dkeys      # the distinct keys, sorted
    cdef int64_t hcap
    cdef int32_t* gstart
    cdef int64_t gcap
    cdef uint64_t atk[MAX_ATTACKS]
    cdef uint64_t ans[MAX_ANSWERS]
    cdef uint64_t upool      # the pool packed (4 bits a rank)

    def __cinit__(self):
        self.nodes = NULL
        self.hmoves = NULL
        self.spar = NULL
        self.schi = NULL
        self.sreg = NULL
        self.ssum = NULL
        self.scur = NULL
        self.compact = False
        self.esz = sizeof(real)
        self.root_q = NULL
        self.nkept = 0
        self.every1 = NULL
        for k in range(13):
            self.three_key[k] = NULL
            self.three_rest[k] = NULL
        memset(self.scr, 0, sizeof(self.scr))
        self.nscr = 0
        self.threads = 1
        self.split_order = NULL
        self.split_v = NULL
        self.split_on = NULL
        self.splits = 0
        memset(self.split_taken, 0, sizeof(self.split_taken))
        for k in range(MAXK + 1):
            self.lhand[k] = NULL
            self.lcode[k] = NULL
        for d in range(MAXDEPTH):
            self.mbuf[d][0] = NULL
            self.mbuf[d][1] = NULL
        self.allowed[0] = NULL
        self.allowed[1] = NULL
        self.root_live[0] = NULL
        self.root_live[1] = NULL
        self.pairs = NULL
        self.pairs_cap = 0
        self.raw = NULL
        self.hkey = NULL
        self.hval = NULL
        self.dkeys = NULL
        self.hcap = 0
        for d in range(3):
            self.rootv[d][0] = NULL
            self.rootv[d][1] = NULL
        self.gstart = NULL
        self.gcap = 0
        self.alpha = ALPHA
        self.beta = BETA
        self.gamma = GAMMA
        self.predictive = 1

    def __dealloc__(self):
        free(self.nodes); free(self.hmoves); free(self.spar); free(self.schi); free(self.sreg); free(self.ssum); free(self.scur); free(self.root_q)
        for k in range(MAXK + 1):
            free(self.lhand[k]); free(self.lcode[k])
        for d in range(MAXDEPTH):
            free(self.mbuf[d][0]); free(self.mbuf[d][1])
        free(self.allowed[0]); free(self.allowed[1]); free(self.pairs); free(self.gstart)
        free(self.root_live[0]); free(self.root_live[1])
        free(self.raw); free(self.hkey); free(self.hval); free(self.dkeys); free(self.every1)
        for d in range(self.nscr):
            _scratch_free(&self.scr[d])
        free(self.split_order); free(self.split_v); free(self.split_on)
        for d in range(self.nkept):
            free(self.kept[d]); free(self.kplay[d])
        for d in range(13):
            free(self.three_key[d]); free(self.three_rest[d])
        for d in range(3):
            free(self.rootv[d][0]); free(self.rootv[d][1])

    def __init__(self, pool_counts, int k0, int k1, int attacker, table_counts, int floor0, int floor1,
                 utilities, long max_sequences=-1):
        """pool_counts / table_counts: 13 counts (index 0 unused); k0, k1 the
        current hand sizes (the attacker's without the table); utilities:
        player 0's worth of (win, drawn round, loss).  The public tree is
        built by `build` (at once when `max_sequences` is given)."""
        cdef int r, a, b, k, i
        cdef double base
        cdef bint ok
        cdef uint64_t tab = 0
        # the door: what the fixed C arrays cannot hold is a ValueError here, never a write past an array
        if len(pool_counts) != 13 or len(table_counts) != 13:
            raise ValueError("pool and table: 13 counts each (index 0 unused)")
        if min(k0, k1) < 1 or max(k0, k1) > MAXK:
            raise ValueError(f"hand sizes {k0} and {k1}: each must lie in 1..{MAXK}")
        if attacker not in (0, 1) or not (1 <= floor0 <= 13 and 1 <= floor1 <= 13):
            raise ValueError(f"attacker {attacker} (0 or 1), floors {floor0}, {floor1} (1..13)")
        self.upool = pack_cards([r for r in range(1, 13) for _ in range(int(pool_counts[r]))], "pool", 15 * 12)
        tab = pack_cards([r for r in range(1, 13) for _ in range(int(table_counts[r]))], "table", MAXK - 1)
        check_hand(tab, "table")
        if tab and hand_size(tab) != (k1 if attacker == 0 else k0) - (k0 if attacker == 0 else k1):
            raise ValueError("the table must hold the defender's cards less the attacker's (R10)")
        for r in range(13):
            self.U[r] = hand_count(self.upool, r) if r else 0
        self.K = max(k0, k1)
        self.u_win, self.u_draw, self.u_loss = float(utilities[0]), float(utilities[1]), float(utilities[2])
        for r in range(13):
            for a in range(9):
                for b in range(9):
                    self.F[r][a][b] = 0.0
        for r in range(1, 13):
            for a in range(9):
                for b in range(9):
                    if a + b <= self.U[r]:
                        self.F[r][a][b] = _fact(self.U[r]) / (_fact(a) * _fact(b) * _fact(self.U[r] - a - b))
        # a showdown's chance factors, F[a+1][b] / F[a][b] etc. (R6 weights of the last cards), once
        for r in range(13):
            for a in range(9):
                for b in range(9):
                    base = self.F[r][a][b]
                    ok = base > 0 and a + 1 < 9 and b + 1 < 9
                    self.FA[r][a][b] = self.F[r][a + 1][b] / base if ok else 0.0
                    self.FB[r][a][b] = self.F[r][a][b + 1] / base if ok else 0.0
                    self.FG[r][a][b] = self.F[r][a + 1][b + 1] / base if ok else 0.0
        self._levels()
        for r in range(13):
            self.idx1[r] = -1
        for i in range(self.lsize[1]):
            self.rank1[i] = hand_lowest(self.lhand[1][i])
            self.idx1[self.rank1[i]] = i
        self.maxm = 1
        for k in range(1, self.K + 1):
            if self.lsize[k] > self.maxm:
                self.maxm = self.lsize[k]
        if self.maxm > 65535:
            raise ValueError("too many distinct hands")
        self.root_k[0], self.root_k[1] = k0, k1
        self.root_att = attacker
        self.root_table = tab
        for i in range(2):
            k = k0 if i == 0 else k1
            self.allowed[i] = <uint8_t*>calloc(self.lsize[k] + 1, 1)
            if self.allowed[i] == NULL:
                raise MemoryError("the hand masks do not fit in memory")
            self.root_live[i] = <uint16_t*>malloc((self.lsize[k] + 1) * sizeof(uint16_t))
            if self.root_live[i] == NULL:
                raise MemoryError("the hand masks do not fit in memory")
            self.nroot_live[i] = 0
            for a in range(self.lsize[k]):
                self.allowed[i][a] = hand_lowest(self.lhand[k][a]) >= (floor0 if i == 0 else floor1)
                if self.allowed[i][a]:
                    self.root_live[i][self.nroot_live[i]] = a
                    self.nroot_live[i] += 1
        for d in range(MAXDEPTH):
            self.mbuf[d][0] = <uint8_t*>calloc(self.maxm, 1)
            self.mbuf[d][1] = <uint8_t*>calloc(self.maxm, 1)
            if self.mbuf[d][0] == NULL or self.mbuf[d][1] == NULL:
                raise MemoryError("the traversal vectors do not fit in memory")
        for d in range(3):
            for i in range(2):
                self.rootv[d][i] = <double*>calloc(self.maxm, sizeof(double))
                if self.rootv[d][i] == NULL:
                    raise MemoryError("the traversal vectors do not fit in memory")
        self.built = False
        if max_sequences >= 0:
            self.build(max_sequences)

    def set_compact(self, bint compact):
        """Store the regrets, average weights and current strategy in 16
        bits (a scale per node) instead of float32: 10 bytes a free
        sequence, not 16.  Before `build` (and `estimate`, for its bytes)."""
        if self.built or self.nnodes > 0:
            raise ValueError("the storage is chosen before the tree is built")
        self.compact = compact
        self.esz = 2 if compact else sizeof(real)

    def build(self, long max_sequences, long reserve=0, long reserve_free=-1):
        """Build the public tree, refusing (MemoryError) beyond `max_sequences`
        sequences, ending early (Stopped) at the `limit`.  `reserve`: the
        sequences to allocate at once (an estimate), so that the arrays need
        not grow by doubling; `reserve_free`: of them, the free ones (with a
        regret and a strategy; default all)."""
        cdef int d
        if self.built:
            raise ValueError("the tree is already built")
        self.max_seq = max_sequences
        self.reserve = min(reserve, max_sequences) if reserve > 0 else 0
        self.reserve_free = min(reserve_free, self.reserve) if reserve_free >= 0 else self.reserve
        self.hmoves = <uint16_t*>calloc(self.maxm + 1, sizeof(uint16_t))
        if self.hmoves == NULL:
            raise MemoryError("the build scratch does not fit in memory")
        if self.keep_lower and self.K >= 2:
            self.every1 = <uint16_t*>malloc(16 * sizeof(uint16_t))
            if self.every1 == NULL:
                raise MemoryError("the last-answer scratch does not fit in memory")
            for d in range(self.lsize[1]):
                self.every1[d] = d
            for d in range(1, 13):
                self.single_slot[d] = self._keep_table(hand_card(d)) if self.U[d] else -1
                if self.U[d] and self.single_slot[d] < 0:
                    raise MemoryError("the last-answer tables do not fit in memory")
        if self.keep_lower and self.K >= 3:
            self._three_tables()
        self._build()
        if self.aborted:
            raise Stopped("stopped while building the public tree")
        if self.too_big:
            raise MemoryError(f"more than {max_sequences} sequences")
        # give back the growth slack: the tree does not change from here on
        if self.nseq > 0:
            self.cap_seq = self.nseq
            self.spar = <uint16_t*>realloc(self.spar, self.cap_seq * sizeof(uint16_t))
            self.schi = <uint16_t*>realloc(self.schi, self.cap_seq * sizeof(uint16_t))
        if self.nflt > 0:
            self.cap_flt = self.nflt
            self.sreg = realloc(self.sreg, self.cap_flt * self.esz)
            self.ssum = realloc(self.ssum, self.cap_flt * self.esz)
        free(self.hmoves)
        self.hmoves = NULL
        self.cap_nodes = self.nnodes
        self.nodes = <Node*>realloc(self.nodes, self.cap_nodes * sizeof(Node))
        self.scur = malloc((self.nflt + 1) * self.esz)
        if self.scur == NULL:
            raise MemoryError("the current strategy does not fit in memory")
        self.root_q = <double*>calloc(self.max_node_seq + 1, sizeof(double))
        if (self.root_q == NULL or (self.nseq > 0 and (self.spar == NULL or self.schi == NULL))
                or (self.nflt > 0 and (self.sreg == NULL or self.ssum == NULL)) or self.nodes == NULL):
            raise MemoryError("the public tree does not fit in memory")
        self.nscr = 0
        self._scratches(max(1, self.threads))
        self._split_plan()
        for d in range(self.nnodes):   # float entries are their own values; a code is scaled once it is stored
            self.nodes[d].rscale = 0.0 if self.compact else 1.0
            self.nodes[d].sscale = 0.0 if self.compact else 1.0
        self._normaliser()
        self._match_all()
        self.iterations = 0
        self.built = True

    cdef int _keep_table(self, uint64_t table) noexcept nogil:
        """The slot of `kept` for a last answer to `table` (made once): for
        every defender hand of |table| + 1 cards, the lowest card it may keep,
        over every legal answer (R12: `gen_answers`); -1 out of memory."""
        cdef int slot, k = hand_size(table) + 1, i, x, n, best
        cdef uint64_t D, played
        for slot in range(self.nkept):
            if self.kept_table[slot] == table:
                return slot
        if self.nkept == MAX_KEEP:
            return -1
        slot = self.nkept
        self.kept[slot] = <uint8_t*>malloc(self.lsize[k] + 1)
        self.kplay[slot] = <uint16_t*>malloc((self.lsize[k] + 1) * sizeof(uint16_t))
        if self.kept[slot] == NULL or self.kplay[slot] == NULL:
            free(self.kept[slot])
            free(self.kplay[slot])
            return -1
        for i in range(self.lsize[k]):
            D = self.lhand[k][i]
            best = 99
            n = gen_answers(table, D, self.ans)
            for x in range(n):
                played = self.ans[x] & HAND_MASK
                if hand_lowest(D - played) < best:
                    best = hand_lowest(D - played)
            self.kept[slot][i] = self.idx(hand_card(best)) if best < 99 else 0
            self.kplay[slot][i] = self.idx(D - hand_card(best)) if best < 99 else 0
        self.kept_table[slot] = table
        self.nkept += 1
        return slot

    cdef int _three_tables(self) except -1:
        """`three_key`, `three_rest`: the answer `KIND_ANSWER_THREE` plays
        for every three-card hand u <= v <= w against every one-card attack
        y: beat with v if v beats, else with w if w beats, else sacrifice u
        (`tacocat.search.equilibrium.answer_three`, the same rule)."""
        cdef int y, i, u, v, w, b, beats
        cdef uint64_t D
        for y in range(1, 13):
            if not self.U[y]:
                continue
            self.three_key[y] = <uint8_t*>malloc(self.lsize[3] + 1)
            self.three_rest[y] = <uint16_t*>malloc((self.lsize[3] + 1) * sizeof(uint16_t))
            if self.three_key[y] == NULL or self.three_rest[y] == NULL:
                raise MemoryError("the three-card answer tables do not fit in memory")
            for i in range(self.lsize[3]):
                D = self.lhand[3][i]
                u = hand_lowest(D)
                v = hand_lowest(D - hand_card(u))
                w = hand_highest(D)
                if v >= y:
                    b, beats = v, 1
                elif w >= y:
                    b, beats = w, 1
                else:
                    b, beats = u, 0
                self.three_key[y][i] = <uint8_t>(2 * b + beats)
                self.three_rest[y][i] = <uint16_t>self.idx(D - hand_card(b))
        return 0

    cdef inline int _in_place(self, uint64_t table, int k0, int k1, int attacker, int depth) noexcept nogil:
        # a node played in place (`keep_lower`), never the root (its moves are asked for): a last answer
        # (KIND_LAST), an attack with two cards each (KIND_LAST_ATTACK) or a one-card attack answered from three
        # cards (KIND_ANSWER_THREE), else 0
        if not self.keep_lower or depth == 0:
            return 0
        if table != 0 and (k1 if attacker == 0 else k0) == hand_size(table) + 1:
            return KIND_LAST
        if table == 0 and k0 == 2 and k1 == 2:
            return KIND_LAST_ATTACK
        if table != 0 and hand_size(table) == 1 and (k1 if attacker == 0 else k0) == 3:
            return KIND_ANSWER_THREE
        return 0

    cdef void _match_all(self) noexcept nogil:
        # every node's current strategy from its regrets (uniform on a fresh tree)
        cdef int64_t n
        for n in range(self.nnodes):
            if self.nodes[n].kind != KIND_SHOWDOWN:
                self._rematch(&self.scr[0], n, self.scr[0].sbuf[0])

    cdef inline void _rematch(self, Scratch* S, int64_t n, double* sig, const double* src=NULL) noexcept nogil:
        # regret matching at node n into `scur` (after its owner's regrets changed; on `src` if given);
        # `sig`: scratch.  Compact: a probability's code is p * 65535 rounded (1 and 0 exact)
        cdef Node* nd = &self.nodes[n]
        cdef Node* ch
        cdef int64_t j, off = 0
        cdef int c
        if nd.nchild == 0:
            return
        self._strategy(S, n, sig, False, src)
        for c in range(nd.nchild):   # the free sequences' entries (a forced one's strategy is 1)
            ch = &self.nodes[nd.first + c]
            for j in range(ch.nfree):
                if self.compact:
                    (<uint16_t*>self.scur)[ch.fseq + j] = <uint16_t>(sig[off + j] * SUM_CODE + 0.5)
                else:
                    (<real*>self.scur)[ch.fseq + j] = <real>sig[off + j]
            off += ch.nseq

    cdef inline void _current(self, int64_t n, double* sig) noexcept nogil:
        # the current strategy at node n, as `_strategy` gave it when its regrets last changed
        cdef Node* nd = &self.nodes[n]
        cdef Node* ch
        cdef int64_t j, off = 0
        cdef int c
        if nd.nchild == 0:
            return
        for c in range(nd.nchild):
            ch = &self.nodes[nd.first + c]
            if self.compact:
                for j in range(ch.nfree):
                    sig[off + j] = (<const uint16_t*>self.scur)[ch.fseq + j] * (1.0 / SUM_CODE)
            else:
                for j in range(ch.nfree):
                    sig[off + j] = (<const real*>self.scur)[ch.fseq + j]
            for j in range(ch.nfree, ch.nseq):
                sig[off + j] = 1.0
            off += ch.nseq

    # ------------------------------------------------------------ levels
    cdef int _levels(self) except -1:
        cdef int k, n, code_size, i, j
        cdef int cards[16]
        cdef uint64_t p
        for k in range(1, self.K + 1):
            n = _count_multisets(self.U, k)
            self.lsize[k] = n
            self.lhand[k] = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
            code_size = 1
            for i in range(k):
                code_size *= 13
            self.lcode[k] = <int32_t*>malloc(code_size * sizeof(int32_t))
            if self.lhand[k] == NULL or self.lcode[k] == NULL:
                raise MemoryError("the hand levels do not fit in memory")
            for i in range(code_size):
                self.lcode[k][i] = -1
            n = 0
            _fill_multisets(self.U, 1, k, 0, self.lhand[k], &n)
            for i in range(n):
                self.lcode[k][_code(self.lhand[k][i])] = i
        return 0

    cdef inline int idx(self, uint64_t p) noexcept nogil:
        return self.lcode[hand_size(p)][_code(p)]

    # ------------------------------------------------------------ build
    cdef void _note_peak(self) noexcept nogil:
        cdef int64_t now = (self.cap_nodes * sizeof(Node) + self.cap_seq * 2 * sizeof(uint16_t)
                            + self.cap_flt * 2 * self.esz)
        if now > self.peak:
            self.peak = now

    cdef int64_t _new_nodes(self, int n) noexcept nogil:
        cdef int64_t first = self.nnodes
        cdef Node* grown
        if self.nnodes + n > self.cap_nodes:
            self.cap_nodes = max(2 * self.cap_nodes, self.nnodes + n + 1024)
            grown = <Node*>realloc(self.nodes, self.cap_nodes * sizeof(Node))
            if grown == NULL:
                self.too_big = True
                return -1
            self.nodes = grown
            self._note_peak()
        memset(&self.nodes[first], 0, n * sizeof(Node))
        self.nnodes += n
        return first

    cdef int64_t _new_seqs(self, int n) noexcept nogil:
        cdef int64_t first = self.nseq, cap
        if self.nseq + n > self.max_seq:
            self.too_big = True
            return -1
        if self.nseq + n > self.cap_seq:
            cap = _grown_cap(self.nseq, n, self.cap_seq, self.reserve, self.reserve, self.max_seq)
            # one array at a time, each kept if the next fails (freed with the engine)
            if (_grow(<void**>&self.spar, cap * sizeof(uint16_t)) < 0
                    or _grow(<void**>&self.schi, cap * sizeof(uint16_t)) < 0):
                self.too_big = True
                return -1
            self.cap_seq = cap
            self._note_peak()
        self.nseq += n
        return first

    cdef int64_t _new_floats(self, int n) noexcept nogil:
        # the regret and average-strategy entries of n free sequences (as `_new_seqs`, for the floats)
        cdef int64_t first = self.nflt, cap
        if self.nflt + n > self.cap_flt:
            cap = _grown_cap(self.nflt, n, self.cap_flt, self.reserve_free, self.reserve, self.max_seq)
            if (_grow(&self.sreg, cap * self.esz) < 0
                    or _grow(&self.ssum, cap * self.esz) < 0):
                self.too_big = True
                return -1
            self.cap_flt = cap
            self._note_peak()
        self.nflt += n
        return first

    cdef void _build(self):
        cdef int64_t root
        cdef int k, i
        self.nnodes = 0
        self.cap_nodes = 0
        self.nseq = 0
        self.cap_seq = 0
        self.nflt = 0
        self.cap_flt = 0
        self.too_big = False
        self.max_node_seq = 0
        root = self._new_nodes(1)
        self.nodes[root].parent = -1
        self.nodes[root].k0 = self.root_k[0]
        self.nodes[root].k1 = self.root_k[1]
        self.nodes[root].attacker = self.root_att
        self._root_masks()
        with nogil:
            self._expand(root, self.root_table, 0, 0, 0)

    cdef int _moves(self, uint64_t table, int k, uint8_t* alive) noexcept nogil:
        """Every (action, hand) pair of the alive hands of k cards at a node
        with `table` on it, from the core's move generators (R10-R13,
        `_search.gen_attacks` / `gen_answers`), into `self.pairs` sorted by
        action key (packed cards << 1 | beats), then hand index; returns how
        many (-1: out of memory).  Equal keys form one child, in hand order."""
        cdef int i, x, n, np = 0
        cdef int64_t want = <int64_t>self.lsize[k] * (MAX_ANSWERS if table else MAX_ATTACKS)
        cdef uint64_t R
        cdef Pair* grown
        if want > self.pairs_cap:
            # at most the alive hands times the moves one hand has; grown to the need of this level
            want = 0
            for i in range(self.lsize[k]):
                if alive[i]:
                    R = self.lhand[k][i]
                    want += gen_attacks(R, self.atk) if table == 0 else gen_answers(table, R, self.ans)
            if want > self.pairs_cap:
                grown = <Pair*>realloc(self.pairs, (want + 64) * sizeof(Pair))
                if grown == NULL:
                    return -1
                self.pairs = grown
                grown = <Pair*>realloc(self.raw, (want + 64) * sizeof(Pair))
                if grown == NULL:
                    return -1
                self.raw = grown
                self.pairs_cap = want + 64
        for i in range(self.lsize[k]):
            if not alive[i]:
                continue
            R = self.lhand[k][i]
            if table == 0:
                n = gen_attacks(R, self.atk)
                for x in range(n):
                    self.raw[np].key = self.atk[x] << 1
                    self.raw[np].hand = i
                    np += 1
            else:
                n = gen_answers(table, R, self.ans)
                for x in range(n):
                    self.raw[np].key = ((self.ans[x] & HAND_MASK) << 1) | (1 if self.ans[x] & BEATS_BIT else 0)
                    self.raw[np].hand = i
                    np += 1
        if self._group_pairs(np) < 0:
            return -1
        return np

    cdef inline int64_t _slot(self, uint64_t key, int64_t mask) noexcept nogil:
        cdef int64_t h = <int64_t>(((key * <uint64_t>0x9E3779B97F4A7C15) >> 32) & <uint64_t>mask)
        while self.hval[h] >= 0 and self.hkey[h] != key:
            h = (h + 1) & mask
        return h

    cdef int _group_pairs(self, int np) noexcept nogil:
        """`self.raw` (hand order) into `self.pairs` sorted by (action key,
        hand): the distinct keys are counted in a hash table and sorted (a
        node has far fewer actions than pairs), then every pair is placed
        after its key's predecessors, in hand order as generated.  The same
        order as a full sort of the pairs at a fraction of the cost."""
        cdef int64_t m = 64, mask, h, i, nd = 0, at = 0
        cdef void* grown
        while m < 2 * np:
            m *= 2
        if m > self.hcap:
            grown = realloc(self.hkey, m * sizeof(uint64_t))
            if grown == NULL:
                return -1
            self.hkey = <uint64_t*>grown
            grown = realloc(self.hval, m * sizeof(int32_t))
            if grown == NULL:
                return -1
            self.hval = <int32_t*>grown
            grown = realloc(self.dkeys, m * sizeof(uint64_t))
            if grown == NULL:
                return -1
            self.dkeys = <uint64_t*>grown
            self.hcap = m
        mask = m - 1
        memset(self.hval, 0xFF, m * sizeof(int32_t))   # every slot empty (-1)
        for i in range(np):
            h = self._slot(self.raw[i].key, mask)
            if self.hval[h] < 0:
                self.hkey[h] = self.raw[i].key
                self.hval[h] = 0
                self.dkeys[nd] = self.raw[i].key
                nd += 1
            self.hval[h] += 1
        qsort(self.dkeys, nd, sizeof(uint64_t), cmp_key)
        for i in range(nd):
            h = self._slot(self.dkeys[i], mask)
            at += self.hval[h]
            self.hval[h] = <int32_t>(at - self.hval[h])
        for i in range(np):
            h = self._slot(self.raw[i].key, mask)
            self.pairs[self.hval[h]] = self.raw[i]
            self.hval[h] += 1
        return 0

    cdef int _groups(self, int np) noexcept nogil:
        """Split the sorted pairs into children: self.gstart[c] is the first
        pair of child c (and gstart[nact] == np); returns nact (-1: no memory)."""
        cdef int i, nact = 0
        cdef int32_t* grown
        if np + 1 > self.gcap:
            grown = <int32_t*>realloc(self.gstart, (np + 1) * sizeof(int32_t))
            if grown == NULL:
                return -1
            self.gstart = grown
            self.gcap = np + 1
        for i in range(np):
            if i == 0 or self.pairs[i].key != self.pairs[i - 1].key:
                self.gstart[nact] = i
                nact += 1
        self.gstart[nact] = np
        return nact

    cdef inline bint _fits(self, uint64_t S, uint64_t played, uint64_t a) noexcept nogil:
        # a hand S beside every card played since the root and the action: within the pool?
        return hand_contains(self.upool - played - a, S)

    cdef void _other_alive(self, int ko, uint8_t* other, uint8_t* out, uint64_t played, uint64_t a) noexcept nogil:
        # the other player's hands still within the pool once `a` is face up too
        cdef int j
        cdef uint64_t room = self.upool - played - a
        memset(out, 0, self.maxm)
        for j in range(self.lsize[ko]):
            out[j] = other[j] and hand_contains(room, self.lhand[ko][j])

    cdef void _expand(self, int64_t n, uint64_t table, int depth, uint64_t c0, uint64_t c1) noexcept nogil:
        cdef Node* nd = &self.nodes[n]
        cdef int att = nd.attacker, actor, k, j, nact, c, cnt, np, g
        cdef int k0 = nd.k0, k1 = nd.k1
        cdef uint64_t a, key
        cdef uint8_t* alive
        cdef uint8_t* other
        cdef int64_t first, s0, ch, f0
        cdef int total_seq = 0, nfree, x
        if table == 0 and k0 == 1 and k1 == 1:
            nd.kind = KIND_SHOWDOWN
            return
        g = self._in_place(table, k0, k1, att, depth)
        if g == KIND_LAST:
            nd.kind = KIND_LAST
            nd.actor = 1 - att
            nd.first = self._keep_table(table)   # no children: the slot of its kept cards
            if nd.first < 0:
                self.too_big = True
            return
        if g == KIND_LAST_ATTACK:
            nd.kind = KIND_LAST_ATTACK
            nd.actor = att
            return
        if g == KIND_ANSWER_THREE:
            nd.kind = KIND_ANSWER_THREE
            nd.actor = 1 - att
            return
        if self._poll_now():
            return
        if depth + 1 >= MAXDEPTH:
            self.too_big = True
            return
        actor = att if table == 0 else 1 - att
        nd.kind = KIND_ATTACK if table == 0 else KIND_ANSWER
        nd.actor = actor
        k = k0 if actor == 0 else k1
        alive = self.mbuf[depth][actor]
        other = self.mbuf[depth][1 - actor]
        # the actions some alive hand may take, each with the hands that may;
        # children get ids in key order, their sequences in hand order
        np = self._moves(table, k, alive)
        nact = self._groups(np) if np >= 0 else -1
        if nact < 0:
            self.too_big = True
            return
        first = self._new_nodes(nact)
        if first < 0:
            return
        nd = &self.nodes[n]
        nd.first = <int32_t>first
        nd.nchild = <uint16_t>nact
        # each hand's moves here: a hand with one (forced) gets a sequence without a regret or a strategy
        for j in range(np):
            self.hmoves[self.pairs[j].hand] = 0
        for j in range(np):
            self.hmoves[self.pairs[j].hand] += 1
        for c in range(nact):
            key = self.pairs[self.gstart[c]].key
            a = key >> 1
            ch = first + c
            self.nodes[ch].act = a
            self.nodes[ch].beats = <uint8_t>(key & 1) if table != 0 else 0
            self.nodes[ch].parent = <int32_t>n
            self.nodes[ch].k0 = k0 - (hand_size(a) if actor == 0 else 0)
            self.nodes[ch].k1 = k1 - (hand_size(a) if actor == 1 else 0)
            if table == 0:
                self.nodes[ch].attacker = att
            else:
                self.nodes[ch].attacker = actor if (key & 1) else att
            cnt = self.gstart[c + 1] - self.gstart[c]
            s0 = self._new_seqs(cnt)
            if s0 < 0:
                return
            self.nodes[ch].seq = <int32_t>s0
            self.nodes[ch].nseq = cnt
            total_seq += cnt
            # the free hands first, then the forced ones, each in hand order
            nfree = 0
            for j in range(cnt):
                g = self.pairs[self.gstart[c] + j].hand
                if self.hmoves[g] > 1:
                    self.spar[s0 + nfree] = <uint16_t>g
                    nfree += 1
            x = nfree
            for j in range(cnt):
                g = self.pairs[self.gstart[c] + j].hand
                if self.hmoves[g] <= 1:
                    self.spar[s0 + x] = <uint16_t>g
                    x += 1
            for j in range(cnt):
                self.schi[s0 + j] = <uint16_t>self.idx(self.lhand[k][self.spar[s0 + j]] - a)
            f0 = self._new_floats(nfree)
            if f0 < 0:
                return
            self.nodes[ch].fseq = <int32_t>f0
            self.nodes[ch].nfree = <uint16_t>nfree
            memset(<char*>self.sreg + f0 * self.esz, 0, nfree * self.esz)
            memset(<char*>self.ssum + f0 * self.esz, 0, nfree * self.esz)
        if total_seq > self.max_node_seq:
            self.max_node_seq = total_seq
        for c in range(nact):
            ch = first + c
            a = self.nodes[ch].act
            # the child's masks: the actor's hands after the action, the other's still within the pool
            memset(self.mbuf[depth + 1][actor], 0, self.maxm)
            for j in range(self.nodes[ch].nseq):
                self.mbuf[depth + 1][actor][self.schi[self.nodes[ch].seq + j]] = 1
            self._other_alive(k1 if actor == 0 else k0, other, self.mbuf[depth + 1][1 - actor], c0 + c1, a)
            self._expand(ch, a if table == 0 else 0, depth + 1,
                         c0 + (a if actor == 0 else 0), c1 + (a if actor == 1 else 0))
            if self.too_big or self.aborted:
                break

    cdef void _probe(self, uint64_t* rng, double* est, Pair* root_pairs, int32_t* root_start,
                     int root_child, double* brk) noexcept nogil:
        """One random path from the root's child `root_child` to a leaf
        (Knuth's estimator, stratified over the root's children, each later
        child drawn with probability proportional to its sequences and
        weighted by the inverse): adds to est[0] the public nodes and to
        est[1] the sequences below that child, an unbiased estimate.  The root's moves: `root_pairs`, its
        children's first pairs `root_start` (as `_moves` / `_groups` give)."""
        cdef uint64_t table = self.root_table, c0 = 0, c1 = 0, a, key
        cdef int k0 = self.root_k[0], k1 = self.root_k[1], att = self.root_att, depth = 0, actor, k, nact, np, c, j
        cdef double weight = 1.0
        cdef Pair* P
        cdef int32_t* G
        while (not (table == 0 and k0 == 1 and k1 == 1) and depth + 1 < MAXDEPTH
               and not self._in_place(table, k0, k1, att, depth)):
            if self._poll_now():
                return
            actor = att if table == 0 else 1 - att
            k = k0 if actor == 0 else k1
            if depth == 0:
                P, G, c = root_pairs, root_start, root_child
            else:
                np = self._moves(table, k, self.mbuf[depth][actor])
                nact = self._groups(np) if np > 0 else 0
                if nact <= 0:
                    return
                est[0] += weight * nact
                est[1] += weight * np
                est[2] += weight * self._forced(np)
                if brk != NULL:
                    self._tally(brk, weight, table, k, k0 + k1 - k, np, nact)
                # a child with probability (its hands / all pairs): subtrees grow with the hands that reach them
                rng[0] ^= rng[0] << 13
                rng[0] ^= rng[0] >> 7
                rng[0] ^= rng[0] << 17
                j = <int>((rng[0] >> 11) % <uint64_t>np)
                c = 0
                while self.gstart[c + 1] <= j:
                    c += 1
                weight *= <double>np / (self.gstart[c + 1] - self.gstart[c])
                P, G = self.pairs, self.gstart
            key = P[G[c]].key
            a = key >> 1
            memset(self.mbuf[depth + 1][actor], 0, self.maxm)
            for j in range(G[c], G[c + 1]):
                self.mbuf[depth + 1][actor][self.idx(self.lhand[k][P[j].hand] - a)] = 1
            self._other_alive(k1 if actor == 0 else k0, self.mbuf[depth][1 - actor], self.mbuf[depth + 1][1 - actor],
                              c0 + c1, a)
            if actor == 0:
                c0 += a
                k0 -= hand_size(a)
            else:
                c1 += a
                k1 -= hand_size(a)
            if table == 0:
                table = a
            else:
                att = actor if (key & 1) else att
                table = 0
            depth += 1

    cdef void _tally(self, double* brk, double weight, uint64_t table, int k, int ko, int np, int nact) noexcept nogil:
        # `estimate(breakdown=True)`: one node of a probe, by kind and the actor's hand size: nodes, sequences,
        # sequences of a hand with one legal move (forced), children that are showdowns
        cdef double* row = brk + ((1 if table else 0) * (MAXK + 1) + k) * BREAKDOWN_FIELDS
        cdef int forced = self._forced(np)
        row[0] += weight
        row[1] += weight * np
        row[2] += weight * forced
        if table and k - 1 == 1 and ko == 1:
            row[3] += weight * nact

    cdef int _forced(self, int np) noexcept nogil:
        # of the np pairs `_moves` generated (in hand order, `raw`), those of a hand with one move
        cdef int i, run = 1, forced = 0
        for i in range(1, np + 1):
            if i < np and self.raw[i].hand == self.raw[i - 1].hand:
                run += 1
            else:
                forced += run == 1
                run = 1
        return forced

    cdef void _root_masks(self):
        cdef int i, j, k
        for i in range(2):
            k = self.root_k[i]
            memset(self.mbuf[0][i], 0, self.maxm)
            for j in range(self.lsize[k]):
                self.mbuf[0][i][j] = self.allowed[i][j]

    def estimate(self, int probes, uint64_t seed=0x9E3779B97F4A7C15, double enough=0.0, bint breakdown=False):
        """(public nodes, sequences, forced sequences) of the tree `build` would make, estimated
        from about `probes` random paths, as many below each of the root's
        children (nothing of the tree is allocated).  The paths go in passes
        of one below each child; with `enough` > 0 it stops after the pass
        whose estimate is below `enough` sequences (a tree far under a cap
        needs no precision).  `breakdown`: also a dict (kind, actor's hand
        size) -> [nodes, sequences, forced sequences, showdown children]
        below the root, estimated the same way."""
        cdef double est[3]
        cdef double* brk = NULL
        cdef double* sub = NULL   # per root child: nodes, sequences summed over the passes
        cdef double nodes, seqs, forced
        cdef uint64_t rng = seed | 1
        cdef int i, c, nact, np, passes, actor, k, done = 0, root_forced = 0
        cdef Pair* root_pairs = NULL
        cdef int32_t* root_start = NULL
        if self.root_table == 0 and self.root_k[0] == 1 and self.root_k[1] == 1:
            return (1.0, 0.0, 0.0, {}) if breakdown else (1.0, 0.0, 0.0)
        self._root_masks()
        actor = self.root_att if self.root_table == 0 else 1 - self.root_att
        k = self.root_k[actor]
        with nogil:
            np = self._moves(self.root_table, k, self.mbuf[0][actor])
            nact = self._groups(np) if np > 0 else 0
            root_forced = self._forced(np) if np > 0 else 0
            # the traversal scratch is sized by the most sequences under one node, the root's in practice:
            # `stats` then counts it before the build (the build sets it again)
            if np > self.max_node_seq:
                self.max_node_seq = np
        if np < 0 or nact < 0:
            raise MemoryError("the root's moves do not fit in memory")
        root_pairs = <Pair*>malloc((np + 1) * sizeof(Pair))
        root_start = <int32_t*>malloc((nact + 1) * sizeof(int32_t))
        sub = <double*>calloc(3 * nact + 3, sizeof(double))
        if breakdown:
            brk = <double*>calloc(2 * (MAXK + 1) * BREAKDOWN_FIELDS, sizeof(double))
        if (breakdown and brk == NULL) or root_pairs == NULL or root_start == NULL or sub == NULL:
            free(root_pairs)
            free(root_start)
            free(sub)
            free(brk)
            raise MemoryError("the root's moves do not fit in memory")
        memcpy(root_pairs, self.pairs, np * sizeof(Pair))
        memcpy(root_start, self.gstart, (nact + 1) * sizeof(int32_t))
        passes = max(1, (probes + nact - 1) // max(nact, 1))
        nodes = 1.0 + nact
        seqs = np
        forced = root_forced
        try:
            with nogil:
                for i in range(passes):
                    for c in range(nact):
                        est[0] = 0.0
                        est[1] = 0.0
                        est[2] = 0.0
                        self._probe(&rng, est, root_pairs, root_start, c, brk)
                        sub[3 * c] += est[0]
                        sub[3 * c + 1] += est[1]
                        sub[3 * c + 2] += est[2]
                        if self.aborted:
                            break
                    if self.aborted:
                        break
                    done = i + 1
                    nodes = 1.0 + nact
                    seqs = np
                    forced = root_forced
                    for c in range(nact):
                        nodes += sub[3 * c] / done
                        seqs += sub[3 * c + 1] / done
                        forced += sub[3 * c + 2] / done
                    if enough > 0 and seqs < enough:
                        break
            if brk != NULL:
                table = {(kind, k): [brk[(kind * (MAXK + 1) + k) * BREAKDOWN_FIELDS + f] / max(done, 1)
                                     for f in range(BREAKDOWN_FIELDS)]
                         for kind in range(2) for k in range(1, MAXK + 1)
                         if brk[(kind * (MAXK + 1) + k) * BREAKDOWN_FIELDS] > 0}
        finally:
            free(root_pairs)
            free(root_start)
            free(sub)
            free(brk)
        if self.aborted:
            raise Stopped("stopped while estimating the tree")
        if breakdown:
            return nodes, seqs, forced, table
        return nodes, seqs, forced

    cdef bint _poll(self, Scratch* S) noexcept nogil:
        """True once the deadline has passed or the stop callback said so
        (the clock is read every 64 calls: for cheap steps, a traversal's nodes).  Only the calling
        thread's scratch polls (`poller`): another thread of a traversal reads the flag it sets."""
        if S.poller == 0:
            return cfr_load(<int*>&self.aborted) != 0
        if self.aborted:
            return True
        S.ticks += 1
        if S.ticks & 63:
            return False
        return self._poll_now()

    cdef bint _poll_now(self) noexcept nogil:
        """`_poll` reading the clock at once (for steps that may take a millisecond: building a node)."""
        cdef double t
        cdef bint stop = False
        if self.aborted:
            return True
        t = _now(self.clock)
        if self.deadline > 0 and t >= self.deadline:
            cfr_store(<int*>&self.aborted, 1)
        elif t >= self.next_callback:
            self.next_callback = t + POLL_S
            with gil:
                if self.stop_cb is not None:
                    try:
                        stop = bool(self.stop_cb())
                    except BaseException:
                        stop = True
            if stop:
                cfr_store(<int*>&self.aborted, 1)
        return self.aborted

    def limit(self, double deadline=0.0, stop=None, int clock=CLOCK_MONOTONIC):
        """Bound what follows: a deadline on POSIX clock `clock` (0: none;
        the budget's clock, `time.monotonic()` or `time.thread_time()`) and
        a callable returning True to stop; clears an earlier abort."""
        self.deadline = deadline
        self.clock = <clockid_t>clock
        self.stop_cb = stop
        self.next_callback = 0.0
        self.aborted = False

    # ------------------------------------------------------------ chance
    cdef void _normaliser(self):
        cdef int i, j, r, k0 = self.root_k[0], k1 = self.root_k[1]
        cdef double z = 0.0, w
        cdef uint64_t A, B
        for i in range(self.lsize[k0]):
            if not self.allowed[0][i]:
                continue
            A = self.lhand[k0][i]
            for j in range(self.lsize[k1]):
                if not self.allowed[1][j]:
                    continue
                B = self.lhand[k1][j]
                w = 1.0
                for r in range(1, 13):
                    w *= self.F[r][hand_count(A, r)][hand_count(B, r)]
                    if w == 0.0:
                        break
                z += w
        self.Z = z

    def normaliser(self):
        return self.Z

    def marginal(self, int player, uint64_t packed):
        """The chance weight of `player` holding `packed` at the root (over Z)."""
        cdef int j, r, ko = self.root_k[1 - player]
        cdef double z = 0.0, w
        cdef uint64_t B
        cdef int i = self.idx(packed) if hand_size(packed) == self.root_k[player] else -1
        if i < 0 or not self.allowed[player][i]:
            return 0.0
        for j in range(self.lsize[ko]):
            if not self.allowed[1 - player][j]:
                continue
            B = self.lhand[ko][j]
            w = 1.0
            for r in range(1, 13):
                w *= self.F[r][hand_count(packed if player == 0 else B, r)][hand_count(B if player == 0 else packed, r)]
            z += w
        return z / self.Z if self.Z > 0 else 0.0

    cdef void _chance(self, uint64_t c0, uint64_t c1, Chance* ch) noexcept nogil:
        # a showdown's chance factors (R6 weights) once c0 and c1 have been played since the root
        cdef int r, a, b
        ch.W = 1.0 / self.Z
        for r in range(1, 13):
            a = hand_count(c0, r)
            b = hand_count(c1, r)
            ch.W *= self.F[r][a][b]
            ch.al[r] = self.FA[r][a][b]
            ch.be[r] = self.FB[r][a][b]
            ch.ga[r] = self.FG[r][a][b]

    cdef void _showdown(self, int p, double* opp, double* out, uint64_t c0, uint64_t c1) noexcept nogil:
        cdef Chance ch
        self._chance(c0, c1, &ch)
        self._showdown_of(p, opp, out, &ch)

    cdef inline void _add_cards(self, Chance* ch, uint64_t c0, uint64_t c1, uint64_t a, int who) noexcept nogil:
        # `ch` (the chance factors once c0, c1 are played) made those once `who` has played `a` too: only
        # a's ranks change, each by the ratios FA / FB one card at a time (not all twelve made again)
        cdef int r, x, y, t
        cdef uint64_t rest = a
        while rest:
            r = hand_lowest(rest)
            x = hand_count(c0, r)
            y = hand_count(c1, r)
            for t in range(hand_count(rest, r)):
                if who == 0:
                    ch.W *= self.FA[r][x][y]
                    x += 1
                else:
                    ch.W *= self.FB[r][x][y]
                    y += 1
            rest &= ~(<uint64_t>15 << (4 * (r - 1)))
            ch.al[r] = self.FA[r][x][y]
            ch.be[r] = self.FB[r][x][y]
            ch.ga[r] = self.FG[r][x][y]

    cdef void _showdown_after(self, int p, double* opp, double* out, Chance* base, uint64_t c0, uint64_t c1,
                              uint64_t a, int who) noexcept nogil:
        """The showdown after `who` answers `a` at a node whose chance factors
        (c0, c1 played) are `base`: the answer changes only its ranks'
        factors (`_add_cards`, on a copy: not all twelve made again for
        every showdown, most of the tree's nodes are showdowns)."""
        cdef Chance ch = base[0]
        self._add_cards(&ch, c0, c1, a, who)
        self._showdown_of(p, opp, out, &ch)

    cdef void _showdown_of(self, int p, double* opp, double* out, Chance* ch) noexcept nogil:
        # player p's values of its last card against the opponent's last-card reach `opp`, both over level 1
        cdef int r, x, n1 = self.lsize[1]
        cdef double pre[14]
        cdef double W = ch.W, u_lo, u_hi, u_eq, tot
        cdef double* mine    # p's factor of one more card of a rank (al for player 0), the opponent's
        cdef double* theirs
        cdef double* ga = ch.ga
        if W == 0.0:
            for x in range(n1):
                out[x] = 0.0
            return
        if p == 0:
            mine, theirs = ch.al, ch.be
            u_lo, u_hi, u_eq = W * self.u_loss, W * self.u_win, W * self.u_draw   # opponent lower: I lose
        else:
            mine, theirs = ch.be, ch.al
            u_lo, u_hi, u_eq = -W * self.u_win, -W * self.u_loss, -W * self.u_draw  # opponent (p0) lower: p0 wins
        # pre[i]: sum over opponent last cards of index < i of factor * reach
        pre[0] = 0.0
        for x in range(n1):
            pre[x + 1] = pre[x] + theirs[self.rank1[x]] * opp[x]
        tot = pre[n1]
        for x in range(n1):
            r = self.rank1[x]
            out[x] = mine[r] * (pre[x] * u_lo + (tot - pre[x + 1]) * u_hi) + ga[r] * opp[x] * u_eq

    # ------------------------------------------------------------ traversal
    cdef inline double _entry(self, bint average, const double* src, int64_t f, int64_t o) noexcept nogil:
        # a free sequence's regret or average weight as `_strategy` reads it: from `src` (by sequence offset
        # o) if given, else the stored entry f; a compact code unscaled (matching and the average's
        # normalisation do not depend on a node's scale)
        if src != NULL:
            return src[o]
        if self.compact:
            return (<const uint16_t*>self.ssum)[f] if average else (<const int16_t*>self.sreg)[f]
        return (<const real*>self.ssum)[f] if average else (<const real*>self.sreg)[f]

    cdef inline double _reg(self, Node* nd, int64_t f) noexcept nogil:
        # the regret of free sequence f, a child's of node nd
        if self.compact:
            return (<const int16_t*>self.sreg)[f] * <double>nd.rscale
        return (<const real*>self.sreg)[f]

    cdef inline double _sum(self, Node* nd, int64_t f) noexcept nogil:
        # the average weight of free sequence f, a child's of node nd
        if self.compact:
            return (<const uint16_t*>self.ssum)[f] * <double>nd.sscale
        return (<const real*>self.ssum)[f]

    cdef void _put(self, Node* nd, const double* v, bint average) noexcept nogil:
        """Store node nd's children's free regrets (or average weights) from
        `v` (by sequence offset): float32 each, or (`compact`) codes of the
        node's largest magnitude, its new scale (round to nearest: an
        entry is off by at most half a code, 1/65534 of that magnitude, so
        the error weighs what the node weighs)."""
        cdef Node* ch
        cdef int64_t j, off = 0
        cdef int c
        cdef double m = 0.0, inv
        cdef int16_t* rc
        cdef uint16_t* sc
        if not self.compact:
            for c in range(nd.nchild):
                ch = &self.nodes[nd.first + c]
                for j in range(ch.nfree):
                    if average:
                        (<real*>self.ssum)[ch.fseq + j] = <real>v[off + j]
                    else:
                        (<real*>self.sreg)[ch.fseq + j] = <real>v[off + j]
                off += ch.nseq
            return
        for c in range(nd.nchild):
            ch = &self.nodes[nd.first + c]
            for j in range(ch.nfree):
                m = max(m, fabs(v[off + j]))
            off += ch.nseq
        if average:
            nd.sscale = <float>(m / SUM_CODE)
            inv = nd.sscale
        else:
            nd.rscale = <float>(m / REG_CODE)
            inv = nd.rscale
        inv = 1.0 / inv if inv > 0 else 0.0   # of the scale as stored (float32): code * scale is the value
        off = 0
        for c in range(nd.nchild):
            ch = &self.nodes[nd.first + c]
            if average:
                sc = <uint16_t*>self.ssum + ch.fseq
                for j in range(ch.nfree):   # round half up by truncation (libm's lrint is a call here)
                    sc[j] = <uint16_t>min(<int32_t>(v[off + j] * inv + 0.5), 65535)
            else:
                rc = <int16_t*>self.sreg + ch.fseq
                for j in range(ch.nfree):   # the same, shifted to truncate a positive number
                    rc[j] = <int16_t>max(-32767, min(<int32_t>(v[off + j] * inv + 32768.5) - 32768, 32767))
            off += ch.nseq

    cdef void _strategy(self, Scratch* S, int64_t n, double* sig, bint average, const double* src=NULL) noexcept nogil:
        """The actor's strategy at node n for every sequence of its children,
        in sequence order (regret matching, or the average).  A child's free
        sequences (a hand with another move too) come first and read their
        entries of one contiguous run (`fseq`); a forced one is played with
        probability 1 and has no entry.  `src`: regrets to match instead of
        the stored ones (by sequence offset)."""
        cdef Node* nd = &self.nodes[n]
        cdef Node* ch
        cdef double* den = S.cbuf[MAXDEPTH - 1]
        cdef double* cnt = S.vbuf[MAXDEPTH - 1]
        cdef int64_t j, s, f, off
        cdef const uint16_t* par = self.spar
        cdef double d, c
        cdef int h, k
        if nd.nchild == 0:
            return
        # only the actor's hands at this node are read: clear those (not the whole level).  Branch-free
        # sums (_pos: a regret's sign is a coin flip to the branch predictor) of each hand's positive
        # regrets and of its actions; then each sequence is pos(w) * A[h] + B[h], with A = 1/sum, B = 0
        # for a hand with a positive regret, A = 0, B = 1/actions (uniform) for one without (its pos(w)
        # are all 0).  A and B are made once per hand, at its first sequence, in place of the sums: A
        # in `den`, B in `cnt` as -1 - B (at most -1: the mark that the hand is done; -1 - c is exact
        # 0 for B = 0, so a small probability keeps its precision)
        for k in range(nd.nchild):
            ch = &self.nodes[nd.first + k]
            for j in range(ch.nfree):
                h = par[ch.seq + j]
                den[h] = 0.0
                cnt[h] = 0.0
        off = 0
        for k in range(nd.nchild):
            ch = &self.nodes[nd.first + k]
            s, f = ch.seq, ch.fseq
            for j in range(ch.nfree):
                h = par[s + j]
                den[h] += _pos(self._entry(average, src, f + j, off + j))
                cnt[h] += 1.0
            off += ch.nseq
        off = 0
        for k in range(nd.nchild):
            ch = &self.nodes[nd.first + k]
            s, f = ch.seq, ch.fseq
            for j in range(ch.nfree):
                h = par[s + j]
                c = cnt[h]
                if c > 0:
                    d = den[h]
                    if d > 0:
                        den[h] = 1.0 / d
                        cnt[h] = -1.0
                    else:
                        den[h] = 0.0
                        cnt[h] = -1.0 - 1.0 / c
                sig[off + j] = _pos(self._entry(average, src, f + j, off + j)) * den[h] + (-1.0 - cnt[h])
            for j in range(ch.nfree, ch.nseq):
                sig[off + j] = 1.0
            off += ch.nseq

    cdef void _walk(self, Scratch* S, int64_t n, int p, double* mine, double* opp, double opp_tot, double* out, uint64_t c0,
                    uint64_t c1, int depth, const uint16_t* live, int nlive, const uint16_t* olive,
                    int nolive) noexcept nogil:
        """Counterfactual values of traverser p's hands at node n into `out`
        (p's level), given p's reach `mine` and the opponent's reach `opp`
        (`opp_tot`: its sum).  Reach vectors hold the hands alive at the node
        (the ones its sequences or its showdown read); other entries may be
        stale, so they are never read (a level-1 reach reaching a showdown is
        written whole).  `live`: p's hands that may be alive here (those
        after p's last move: its child's sequences' hands, or the root's
        allowed ones), the only entries of `out` written and read, not the
        whole level: most nodes see a small part of it.  `olive`: the
        opponent's, after its last move (the only entries of `opp` the last
        answers read: the others may be stale)."""
        cdef Node* nd = &self.nodes[n]
        cdef Node* ch
        cdef int kp = nd.k0 if p == 0 else nd.k1
        cdef int ko = nd.k1 if p == 0 else nd.k0
        cdef int c, j, off, kc, i, h
        cdef int64_t s, s0, f
        cdef double tot, sg, best, q, inst
        cdef double* qd
        cdef double* pd
        cdef double* td
        cdef double* sig
        cdef double* child_reach
        cdef double* child_v
        cdef uint64_t a
        cdef Chance base
        cdef bint to_showdown, split
        if nd.kind == KIND_SHOWDOWN:
            self._showdown(p, opp, out, c0, c1)   # writes every one-card hand
            return
        if nd.kind == KIND_LAST:
            self._chance(c0, c1, &base)
            self._last_answer(S, nd.act, nd.actor, nd.first, p, opp, out, &base, c0, c1, live, nlive, olive, nolive)
            return
        if nd.kind == KIND_LAST_ATTACK:
            self._last_attack(S, nd.actor, p, opp, out, c0, c1, live, nlive, olive, nolive)
            return
        if nd.kind == KIND_ANSWER_THREE:
            self._answer_three(S, hand_lowest(nd.act), 1 - nd.actor, p, opp, out, c0, c1, live, nlive, olive, nolive)
            return
        for j in range(nlive):
            out[live[j]] = 0.0
        if self._poll(S):
            return
        tot = opp_tot
        if tot == 0.0 and not self.noprune:
            # the opponent never gets here: every counterfactual value is 0, so
            # only the discount and the average strategy (own reach) change
            if self.mode == 0:
                self._average_only(S, n, p, mine, depth)
            return
        sig = S.sbuf[depth]
        child_reach = S.pbuf[depth][0]
        child_v = S.vbuf[depth]
        # a node whose children are showdowns (the last answer): their chance factors once, patched per answer
        to_showdown = nd.nchild > 0 and self.nodes[nd.first].kind == KIND_SHOWDOWN
        if to_showdown:
            self._chance(c0, c1, &base)
        # the strategy played here: the current one while iterating, else the average (a best responder has none)
        if self.mode == 0:
            self._current(n, sig)
        elif self.mode == 2 or nd.actor != p:
            self._strategy(S, n, sig, True)
        # the root's children on several threads (`_split`), their results summed below as one thread sums them
        split = (depth == 0 and self.threads > 1 and self.nscr > 1 and self.split_order != NULL and not to_showdown
                 and self.nseq >= SPLIT_MIN and not self.one_hand)
        if split:
            self._split(S, p, mine, opp, opp_tot, sig, live, nlive, olive, nolive)
            if self.aborted:
                return
        if nd.actor == p:
            if self.mode == 1:
                for j in range(nlive):
                    out[live[j]] = -1e300
            off = 0
            for c in range(nd.nchild):
                ch = &self.nodes[nd.first + c]
                a = ch.act
                kc = kp - hand_size(a)
                if self.one_hand:
                    # the one hand (live[0]) walks only the moves it may make: its sequence of this child, if any
                    s = _sequence_of(self.spar, ch.seq, ch.nseq, live[0])
                    if s >= 0:
                        if to_showdown:
                            self._showdown_after(p, opp, child_v, &base, c0, c1, a, p)
                        else:
                            self._walk(S, nd.first + c, p, child_reach, opp, opp_tot, child_v,
                                       c0 + (a if p == 0 else 0), c1 + (a if p == 1 else 0), depth + 1,
                                       &self.schi[s], 1, olive, nolive)
                        q = child_v[self.schi[s]]
                        if self.mode == 1:
                            if q > out[live[0]]:
                                out[live[0]] = q
                        else:
                            out[live[0]] += sig[off + (s - ch.seq)] * q
                            if depth == 0:
                                self.root_q[off + (s - ch.seq)] = q
                    off += ch.nseq
                    continue
                if split:   # its sequences' values are in qbuf[0] already
                    pass
                elif to_showdown:   # its value does not read p's own reach
                    self._showdown_after(p, opp, child_v, &base, c0, c1, a, p)
                else:
                    if self.mode == 0:
                        for j in range(ch.nseq):
                            s = ch.seq + j
                            child_reach[self.schi[s]] = mine[self.spar[s]] * sig[off + j]
                    self._walk(S, nd.first + c, p, child_reach, opp, opp_tot, child_v,
                               c0 + (a if p == 0 else 0), c1 + (a if p == 1 else 0), depth + 1,
                               &self.schi[ch.seq], ch.nseq, olive, nolive)
                for j in range(ch.nseq):
                    s = ch.seq + j
                    q = S.qbuf[depth][off + j] if split else child_v[self.schi[s]]
                    S.qbuf[depth][off + j] = q
                    if self.mode == 1:
                        if q > out[self.spar[s]]:
                            out[self.spar[s]] = q
                    else:
                        out[self.spar[s]] += sig[off + j] * q
                    if self.mode == 2 and depth == 0:
                        self.root_q[off + j] = q
                off += ch.nseq
            if self.mode == 1:
                for j in range(nlive):
                    if out[live[j]] == -1e300:
                        out[live[j]] = 0.0
            if self.mode == 0 and off > 0:
                # the free sequences' regrets and averages (a forced hand's regret is 0: its one move is its
                # value): the new ones made in `qd` (in place of the action values) and `tbuf`, then stored
                # (`_put`: a compact node's scale follows its largest)
                qd = S.qbuf[depth]
                pd = S.rbuf
                td = S.tbuf
                off = 0
                for c in range(nd.nchild):
                    ch = &self.nodes[nd.first + c]
                    for j in range(ch.nfree):
                        s = ch.seq + j
                        f = ch.fseq + j
                        h = self.spar[s]
                        q = self._reg(nd, f)
                        # the discount without a branch on the regret's sign: dneg everywhere, dpos - dneg more
                        # if positive
                        inst = qd[off + j] - out[h]
                        q = q * self.dneg + _pos(q) * (self.dpos - self.dneg) + inst
                        if self.plus == 1 and q < 0:
                            q = 0.0
                        qd[off + j] = q
                        # predictive: matched on R + r, kept as R (a float tree matches the float32 of R + r)
                        pd[off + j] = (q + inst) if self.compact else <double>(<real>(q + inst))
                        td[off + j] = self._sum(nd, f) * self.dstrat + mine[h] * sig[off + j]
                    off += ch.nseq
                self._put(nd, qd, False)
                self._put(nd, td, True)
                self._rematch(S, n, sig, pd if self.predictive else NULL)
        else:
            off = 0
            for c in range(nd.nchild):
                if split:
                    if self.split_on[c]:
                        for j in range(nlive):
                            out[live[j]] += self.split_v[<int64_t>c * self.maxm + live[j]]
                    continue
                ch = &self.nodes[nd.first + c]
                a = ch.act
                kc = ko - hand_size(a)
                if kc == 1:  # a showdown reads the whole level (a last answer only the child's hands)
                    for j in range(self.lsize[kc]):
                        child_reach[j] = 0.0
                tot = 0.0
                for j in range(ch.nseq):
                    s = ch.seq + j
                    q = opp[self.spar[s]] * sig[off + j]
                    child_reach[self.schi[s]] = q
                    tot += q
                off += ch.nseq
                if tot == 0.0 and not self.noprune:
                    if self.mode == 0:
                        self._average_only(S, nd.first + c, p, mine, depth + 1)
                    continue
                if to_showdown:
                    self._showdown_after(p, child_reach, child_v, &base, c0, c1, a, 1 - p)
                else:
                    self._walk(S, nd.first + c, p, mine, child_reach, tot, child_v,
                               c0 + (a if p == 1 else 0), c1 + (a if p == 0 else 0), depth + 1, live, nlive,
                               &self.schi[ch.seq], ch.nseq)
                for j in range(nlive):
                    out[live[j]] += child_v[live[j]]

    cdef void _split(self, Scratch* S, int p, double* mine, double* opp, double opp_tot, double* sig,
                     const uint16_t* live, int nlive, const uint16_t* olive, int nolive) noexcept nogil:
        """The root's children walked on `threads` threads: each takes the
        next child from the queue (largest subtree first) and walks it with
        its own scratch, writing that child's results where the root reads
        them (its sequences' values into `split_q`, or the traverser's
        values after the opponent's move into `split_v`).  The subtrees
        share no node, regret or strategy entry, and each child's arithmetic
        is the same whichever thread walks it, so a solve on any number of
        threads gives the same numbers.  The calling thread alone polls the
        deadline and the stop callback (also while it waits for the others)."""
        cdef int t, nt = min(self.threads, self.nscr), started = 0
        cdef pthread_t th[MAX_THREADS]
        cdef bint ok[MAX_THREADS]
        cdef timespec nap
        self.split_p = p
        self.split_mine = mine
        self.split_opp = opp
        self.split_tot = opp_tot
        self.split_sig = sig
        self.split_live = live
        self.split_nlive = nlive
        self.split_olive = olive
        self.split_nolive = nolive
        self.split_q = S.qbuf[0]
        self.split_next = 0
        self.split_done = 0
        self.splits += 1
        for t in range(1, nt):
            self.workers[t].engine = <void*>self
            self.workers[t].t = t
            ok[t] = pthread_create(&th[t], NULL, _split_worker, &self.workers[t]) == 0
            started += ok[t]
        self._split_loop(S)
        nap.tv_sec = 0
        nap.tv_nsec = 200000
        while cfr_load(&self.split_done) < started:
            self._poll_now()
            nanosleep(&nap, NULL)
        for t in range(1, nt):
            if ok[t]:
                pthread_join(th[t], NULL)

    cdef void _split_loop(self, Scratch* T) noexcept nogil:
        # one thread's share of `_split`: root children from the queue until it is empty or the traversal stops
        cdef int c, n = self.nodes[0].nchild
        while not self._poll(T):
            c = cfr_take(&self.split_next)
            if c >= n:
                break
            self._split_child(T, self.split_order[c])
            self.split_taken[T - &self.scr[0]] += 1

    cdef void _split_child(self, Scratch* T, int c) noexcept nogil:
        # `_walk`'s work at the root for its child c (as its loops do it), on scratch T, into split_q / split_v
        cdef Node* nd = &self.nodes[0]
        cdef Node* ch = &self.nodes[nd.first + c]
        cdef int p = self.split_p, j, kc
        cdef int kp = nd.k0 if p == 0 else nd.k1
        cdef int ko = nd.k1 if p == 0 else nd.k0
        cdef int64_t s, off = ch.seq - self.nodes[nd.first].seq
        cdef uint64_t a = ch.act
        cdef double* child_reach = T.pbuf[0][0]
        cdef double* child_v = T.vbuf[0]
        cdef double* sig = self.split_sig
        cdef double tot, q
        if nd.actor == p:
            if self.mode == 0:
                for j in range(ch.nseq):
                    s = ch.seq + j
                    child_reach[self.schi[s]] = self.split_mine[self.spar[s]] * sig[off + j]
            self._walk(T, nd.first + c, p, child_reach, self.split_opp, self.split_tot, child_v,
                       a if p == 0 else 0, a if p == 1 else 0, 1, &self.schi[ch.seq], ch.nseq,
                       self.split_olive, self.split_nolive)
            for j in range(ch.nseq):
                self.split_q[off + j] = child_v[self.schi[ch.seq + j]]
            return
        kc = ko - hand_size(a)
        if kc == 1:
            for j in range(self.lsize[kc]):
                child_reach[j] = 0.0
        tot = 0.0
        for j in range(ch.nseq):
            s = ch.seq + j
            q = self.split_opp[self.spar[s]] * sig[off + j]
            child_reach[self.schi[s]] = q
            tot += q
        self.split_on[c] = 0
        if tot == 0.0 and not self.noprune:
            if self.mode == 0:
                self._average_only(T, nd.first + c, p, self.split_mine, 1)
            return
        self._walk(T, nd.first + c, p, self.split_mine, child_reach, tot, child_v,
                   a if p == 1 else 0, a if p == 0 else 0, 1, self.split_live, self.split_nlive,
                   &self.schi[ch.seq], ch.nseq)
        for j in range(self.split_nlive):
            self.split_v[<int64_t>c * self.maxm + self.split_live[j]] = child_v[self.split_live[j]]
        self.split_on[c] = 1

    cdef int _scratches(self, int n) except -1:
        # scratches for n threads (those not there yet)
        cdef int t
        n = min(n, MAX_THREADS)
        for t in range(self.nscr, n):
            if _scratch_alloc(&self.scr[t], self.maxm, self.max_node_seq, self.keep_lower and self.K >= 2) < 0:
                _scratch_free(&self.scr[t])
                raise MemoryError("the traversal vectors do not fit in memory")
            self.scr[t].poller = t == 0
            self.nscr = t + 1
        return 0

    cdef int _split_plan(self) except -1:
        # the queue of `_split`: the root's children by the sequences of their subtrees, largest first (a
        # long subtree started last would leave the other threads idle); and its per-child results
        cdef int nch = self.nodes[0].nchild if self.nnodes > 0 else 0, c, i
        cdef int32_t* top
        cdef int64_t* size
        cdef int64_t n
        free(self.split_order)
        free(self.split_v)
        free(self.split_on)
        self.split_order = NULL
        self.split_v = NULL
        self.split_on = NULL
        if nch < 2 or self.nodes[0].kind == KIND_SHOWDOWN:
            return 0
        top = <int32_t*>malloc(self.nnodes * sizeof(int32_t))
        size = <int64_t*>calloc(nch, sizeof(int64_t))
        self.split_order = <int32_t*>malloc(nch * sizeof(int32_t))
        self.split_v = <double*>calloc(<int64_t>nch * self.maxm, sizeof(double))
        self.split_on = <uint8_t*>calloc(nch, 1)
        if top == NULL or size == NULL or self.split_order == NULL or self.split_v == NULL or self.split_on == NULL:
            free(top)
            free(size)
            raise MemoryError("the traversal vectors do not fit in memory")
        # a node's parent has a lower id: one pass finds every node's root child
        top[0] = -1
        for n in range(1, self.nnodes):
            top[n] = <int32_t>(n - self.nodes[0].first) if self.nodes[n].parent == 0 else top[self.nodes[n].parent]
            size[top[n]] += self.nodes[n].nseq + 1
        for c in range(nch):
            self.split_order[c] = c
        for c in range(1, nch):   # insertion sort, largest first, ties by child order
            i = c
            while i > 0 and size[self.split_order[i - 1]] < size[self.split_order[i]]:
                self.split_order[i - 1], self.split_order[i] = self.split_order[i], self.split_order[i - 1]
                i -= 1
        free(top)
        free(size)
        return 0

    def set_threads(self, int n):
        """Walk each traversal on n threads (1..16): the root's children
        shared out, the same numbers as on one thread.  Set before `build`
        for `stats` and the size estimate to count their scratch."""
        if not 1 <= n <= MAX_THREADS:
            raise ValueError(f"threads must lie in 1..{MAX_THREADS}, got {n}")
        self.threads = n
        if self.built:
            self._scratches(n)

    def root_split(self):
        """The sequences below each of the root's children (its share of a traversal on several threads)."""
        cdef int nch = self.nodes[0].nchild if self.nnodes > 0 else 0
        out = [0] * nch
        top = [-1] * self.nnodes
        for n in range(1, self.nnodes):
            top[n] = (n - self.nodes[0].first) if self.nodes[n].parent == 0 else top[self.nodes[n].parent]
            out[top[n]] += self.nodes[n].nseq
        return out

    cdef void _last_attack(self, Scratch* S, int att, int p, double* opp, double* out, uint64_t c0, uint64_t c1,
                           const uint16_t* live, int nlive, const uint16_t* olive, int nolive) noexcept nogil:
        """Traverser p's values at an attack with two cards each, played in
        place (`KIND_LAST_ATTACK`): the attacker attacks with its higher
        card and the defender keeps its lowest (`_last_answer`).  Against an
        answer that keeps the lowest card, attacking with the higher card is
        weakly best for every pair of hands: the attacker keeps the lower
        card, and the defender keeps the same card or a higher one (its
        higher card beats a lower attack at least as often).  The hands are
        grouped by the card they attack with; one last answer per card
        (`_last_single`), the node's chance factors made once and patched
        at the attack card's rank."""
        cdef int n1 = self.lsize[1], i, j, x, y, h, iy, ca, cb
        cdef int dfd = 1 - att
        cdef double grp[13][16]
        cdef bint used[13]
        cdef uint64_t A, a
        cdef Chance base, after
        cdef Factors fc
        cdef double W
        cdef double sv[7]
        cdef uint16_t nz[NZ_MAX]
        cdef const uint16_t* dl = olive
        cdef int ndl = nolive
        if self._poll(S):
            return
        self._chance(c0, c1, &base)
        self._factors(p, dfd, &base, c0, c1, &fc)
        after = base
        if p == att and nolive <= NZ_MAX:
            # the defender's hands it plays at all, once for the (up to 12) last answers below, each a pass
            # over them: most of a late iteration's reach is 0 (regret matching zeroes the worse moves)
            ndl = _nonzero(opp, olive, nolive, nz)
            dl = nz
        for y in range(13):
            used[y] = False
        if p != att:
            # the defender: the attacker's reach over its alive hands, grouped by the card it attacks with, as
            # a reach of the card it keeps
            for j in range(nlive):
                out[live[j]] = 0.0
            for j in range(nolive):
                h = olive[j]
                if opp[h] == 0.0:
                    continue
                A = self.lhand[2][h]
                x = hand_lowest(A)
                y = hand_lowest(A - hand_card(x))
                if not used[y]:
                    for i in range(n1):
                        grp[y][i] = 0.0
                    used[y] = True
                grp[y][self.idx1[x]] += opp[h]
        for y in range(13):
            if p == att:   # the card attacked with by p's live hands
                used[y] = False
        if p == att:
            for j in range(nlive):
                A = self.lhand[2][live[j]]
                used[hand_lowest(A - hand_card(hand_lowest(A)))] = True
        for y in range(13):
            if not used[y]:
                continue
            # the attack card y: one more card of rank y for the attacker (W and rank y's factors, patched in
            # `fc` and put back)
            a = hand_card(y)
            iy = self.idx1[y]
            self._add_cards(&after, c0, c1, a, att)   # rank y's factors and W, put back below (not a copy of
            W = after.W                                # all 40: the copy was a fifth of this function's time)
            sv[0], sv[1], sv[2], sv[3] = fc.m[iy], fc.t[iy], fc.ga[iy], fc.fw[iy]
            sv[4], sv[5], sv[6] = fc.mP[iy], fc.tP[iy], fc.gP[iy]
            self._factor_at(p, dfd, &after, c0 + (a if att == 0 else 0), c1 + (a if att == 1 else 0), &fc, iy)
            if p == att:   # the values of p's last card x <= y after attacking with y (level 1 is in rank
                # order: the first iy + 1 cards), read below
                self._last_single(dfd, self.single_slot[y], p, opp, grp[y], &fc, W, self.every1, iy + 1, dl, ndl,
                                  False)
            else:
                self._last_single(dfd, self.single_slot[y], p, grp[y], out, &fc, W, live, nlive, self.every1, n1, True)
            fc.m[iy], fc.t[iy], fc.ga[iy], fc.fw[iy] = sv[0], sv[1], sv[2], sv[3]
            fc.mP[iy], fc.tP[iy], fc.gP[iy] = sv[4], sv[5], sv[6]
            after.W, after.al[y], after.be[y], after.ga[y] = base.W, base.al[y], base.be[y], base.ga[y]
        if p == att:
            # out[A] for p's live two-card hands {x <= y}: the last answer to y, p keeping x
            for j in range(nlive):
                h = live[j]
                A = self.lhand[2][h]
                x = hand_lowest(A)
                y = hand_lowest(A - hand_card(x))
                out[h] = grp[y][self.idx1[x]]

    cdef void _answer_three(self, Scratch* S, int y, int att, int p, double* opp, double* out, uint64_t c0,
                            uint64_t c1, const uint16_t* live, int nlive, const uint16_t* olive,
                            int nolive) noexcept nogil:
        """Traverser p's values at a one-card attack y answered from three
        cards, played in place (`KIND_ANSWER_THREE`): the defender's hand
        u <= v <= w beats with v if it can, else with w, and sacrifices u
        only when nothing beats (`_three_tables`).  Both then hold two
        cards, and that attack is played in place too, so the answer is
        weakly best for every pair of hands (`tacocat.search.equilibrium.
        answer_three`).  The defender's hands are grouped by their answer
        (its card and whether it beats): each group is one attack with two
        cards each (`_last_attack`) after it, the defender's hands as the
        two cards they keep, the next attacker the defender if it beat."""
        cdef int dfd = 1 - att, j, g, d, n2, nxt
        cdef int count[26]
        cdef int start[27]
        cdef uint16_t order[L3_MAX]
        cdef uint16_t two[L3_MAX]
        cdef double reach2[L2_MAX]
        cdef double v2[L2_MAX]
        cdef const uint8_t* key = self.three_key[y]
        cdef const uint16_t* rest = self.three_rest[y]
        cdef const uint16_t* hands = live if p == dfd else olive
        cdef int nh = nlive if p == dfd else nolive
        cdef uint64_t b
        for g in range(26):
            count[g] = 0
        for j in range(nh):   # the defender's hands by answer (a counting sort: groups in key order)
            d = hands[j]
            if p != dfd and opp[d] == 0.0:
                continue
            count[key[d]] += 1
        start[0] = 0
        for g in range(26):
            start[g + 1] = start[g] + count[g]
            count[g] = start[g]
        for j in range(nh):
            d = hands[j]
            if p != dfd and opp[d] == 0.0:
                continue
            order[count[key[d]]] = <uint16_t>d
            count[key[d]] += 1
        if p != dfd:
            for j in range(nlive):
                out[live[j]] = 0.0
        for g in range(26):
            n2 = start[g + 1] - start[g]
            if n2 == 0:
                continue
            b = hand_card(g >> 1)
            nxt = dfd if (g & 1) else att
            for j in range(n2):
                two[j] = rest[order[start[g] + j]]
            if p == dfd:
                # p's hands of the group as the two cards they keep, against the attacker's reach
                self._last_attack(S, nxt, p, opp, v2, c0 + (b if dfd == 0 else 0), c1 + (b if dfd == 1 else 0),
                                  two, n2, olive, nolive)
                for j in range(n2):
                    out[order[start[g] + j]] = v2[two[j]]
            else:
                # the group's reach as the defender's two kept cards; p's values after it added up
                for j in range(n2):
                    reach2[two[j]] = opp[order[start[g] + j]]
                self._last_attack(S, nxt, p, reach2, v2, c0 + (b if dfd == 0 else 0), c1 + (b if dfd == 1 else 0),
                                  live, nlive, two, n2)
                for j in range(nlive):
                    out[live[j]] += v2[live[j]]
            if self.aborted:
                return

    cdef void _factors(self, int p, int who, Chance* base, uint64_t c0, uint64_t c1, Factors* fc) noexcept nogil:
        # a last answer's `Factors` at a node (c0, c1 played; `base` their chance factors), `who` defending
        cdef int i
        for i in range(self.lsize[1]):
            self._factor_at(p, who, base, c0, c1, fc, i)

    cdef inline void _factor_at(self, int p, int who, Chance* base, uint64_t c0, uint64_t c1, Factors* fc,
                                int i) noexcept nogil:
        cdef int r = self.rank1[i], a = hand_count(c0, r), b = hand_count(c1, r)
        fc.m[i] = base.al[r] if p == 0 else base.be[r]
        fc.t[i] = base.be[r] if p == 0 else base.al[r]
        fc.ga[i] = base.ga[r]
        if who == 0:
            fc.fw[i] = self.FA[r][a][b]
            a += 1
        else:
            fc.fw[i] = self.FB[r][a][b]
            b += 1
        fc.mP[i] = self.FA[r][a][b] if p == 0 else self.FB[r][a][b]
        fc.tP[i] = self.FB[r][a][b] if p == 0 else self.FA[r][a][b]
        fc.gP[i] = self.FG[r][a][b]

    cdef void _last_answer(self, Scratch* S, uint64_t table, int who, int slot, int p, double* opp, double* out, Chance* base,
                           uint64_t c0, uint64_t c1, const uint16_t* live, int nlive, const uint16_t* olive,
                           int nolive) noexcept nogil:
        """Traverser p's values at a last answer played keep-the-lowest-card
        (`KIND_LAST`; `base`: the chance factors of c0, c1): the defender's
        answer is a function of its hand (the cards other than the one it
        keeps), so each hand's answer is one showdown (`_showdown_after`), as
        its child would be.  The hands that play the same cards differ only
        in the card they keep: they share that showdown (the defender's
        reach summed by kept card, one showdown per group; or, for the
        defender, one showdown's values read at each kept card).  A best
        response is the same: keeping the lowest card is weakly best.
        `olive`: the opponent's hands that may be alive (its other entries
        of `opp` are stale)."""
        cdef int k = hand_size(table) + 1, n1 = self.lsize[1], j, x, d, kx, g, ng = 0, pi
        cdef const uint8_t* kept = self.kept[slot]
        cdef const uint16_t* kplay = self.kplay[slot]
        cdef const uint64_t* hands = self.lhand[k]
        cdef const uint64_t* played = self.lhand[k - 1]
        cdef int32_t* gmark = S.gmark
        cdef double* gbuf = S.gbuf
        cdef double* v
        cdef double val[16]
        cdef Factors fc
        cdef double w
        cdef uint16_t nz[NZ_MAX]
        if self._poll(S):
            return
        if k == 2:
            self._factors(p, who, base, c0, c1, &fc)
            if who != p and nolive <= NZ_MAX:   # the defender's hands it plays at all (as `_last_attack`)
                nolive = _nonzero(opp, olive, nolive, nz)
                olive = nz
            self._last_single(who, slot, p, opp, out, &fc, base.W, live, nlive, olive, nolive, False)
            return
        if who == p:
            # each live hand's value: its group's showdown (made at the group's first hand) at its kept card
            for j in range(nlive):
                d = live[j]
                pi = kplay[d]
                g = _group_slot(gmark, pi, &ng)
                if g < 0:
                    g = -1 - g
                    self._showdown_after(p, opp, &gbuf[16 * g], base, c0, c1, played[pi], p)
                out[d] = gbuf[16 * g + kept[d]]
        else:
            # the defender's reach, summed per group by kept card; then one showdown per group
            for j in range(nlive):
                out[live[j]] = 0.0
            for j in range(nolive):
                d = olive[j]
                w = opp[d]
                if w == 0.0:
                    continue
                g = _group_slot(gmark, kplay[d], &ng)
                if g < 0:
                    g = -1 - g
                    v = &gbuf[16 * g]
                    for x in range(n1):
                        v[x] = 0.0
                v = &gbuf[16 * g]
                v[kept[d]] += w
            for j in range(nolive):   # the groups in order of first hand (for the showdowns below)
                d = olive[j]
                if opp[d] == 0.0:
                    continue
                pi = kplay[d]
                g = gmark[pi]
                if g < 0:
                    continue
                gmark[pi] = -1
                self._showdown_after(p, &gbuf[16 * g], val, base, c0, c1, played[pi], who)
                for x in range(nlive):
                    out[live[x]] += val[live[x]]
            return
        for j in range(nlive):   # the marks back to -1 for the next call
            gmark[kplay[live[j]]] = -1

    cdef void _last_single(self, int who, int slot, int p, double* opp, double* out, Factors* fc, double W,
                           const uint16_t* live, int nlive, const uint16_t* olive, int nolive,
                           bint add) noexcept nogil:
        """`_last_answer` to a one-card attack (most of them: every trick
        played down to two cards each ends in one), its showdowns fused.  A
        defender hand answers with one card (its group) and keeps one; group
        r's showdown differs from the node's only in its weight W_r and in
        rank r's factors.  So a sum over groups is one showdown over the sum
        of the groups' weighted reach, corrected at the one last card whose
        factor the group changes; and a defender hand's value is the node's
        prefix sums of the attacker's reach, corrected at the one card.
        O(hands + 12), not a 12-card showdown per group.  `fc`, `W`: the
        node's chance factors (`_factors`); `add`: p's values added to `out`
        (the defender's, at a `_last_attack`)."""
        cdef int n1 = self.lsize[1], i, j, d, y, pi, e
        cdef const uint8_t* kept = self.kept[slot]
        cdef const uint16_t* kplay = self.kplay[slot]
        cdef double* m = fc.m
        cdef double* t = fc.t
        cdef double* fw = fc.fw
        cdef double dT[16]    # the opponent's factor's change, once the defender answered with that card, times its reach
        cdef double H[16]     # the defender's reach by kept card, times W_r / W and its factor (summed over groups)
        cdef double E[16]     # ... times W_r / W and the draw's factor
        cdef double L[32]     # group r's share of H below (L[r]) and above (L[16 + r]) rank r's card: the correction
        cdef double pre[17]
        cdef double u_lo, u_hi, u_eq, w, h, tot, v
        if p == 0:
            u_lo, u_hi, u_eq = W * self.u_loss, W * self.u_win, W * self.u_draw   # opponent lower: I lose
        else:
            u_lo, u_hi, u_eq = -W * self.u_win, -W * self.u_loss, -W * self.u_draw  # opponent (p0) lower: p0 wins
        # Below, the selections are branch-free (which card is higher is a coin flip to the branch predictor):
        # a factor is the group's own (`mP`: 64 entries on, `Factors`) where the kept card is the answered one's
        # rank (y == pi), and a correction is multiplied by a comparison (0 or 1)
        if who == p:
            # p's hand plays pi and keeps y, against the attacker's last card
            pre[0] = 0.0
            for i in range(n1):
                pre[i + 1] = pre[i] + t[i] * opp[i]
                dT[i] = (fc.tP[i] - t[i]) * opp[i]
            # one loop a value of `add` (a literal: the inlined loop has no test of it, which kept the loop's
            # values off the registers)
            if add:
                _defender_values(live, nlive, kplay, kept, pre, pre[n1], dT, m, fw, opp, u_lo, u_hi, u_eq, out, True)
            else:
                _defender_values(live, nlive, kplay, kept, pre, pre[n1], dT, m, fw, opp, u_lo, u_hi, u_eq, out, False)
            return
        for i in range(n1):
            H[i] = 0.0
            E[i] = 0.0
            L[i] = 0.0
            L[16 + i] = 0.0
        for j in range(nolive):
            d = olive[j]
            w = opp[d]
            pi = kplay[d]
            y = kept[d]
            e = y + 64 * (y == pi)
            w *= fw[pi]
            h = m[16 + e] * w
            E[y] += m[32 + e] * w
            H[y] += h
            L[pi + 16 * (y > pi)] += h * (y != pi)   # one read-modify-write, not two (one of them adding 0)
        pre[0] = 0.0
        for i in range(n1):
            pre[i + 1] = pre[i] + H[i]
        tot = pre[n1]
        for j in range(nlive):   # p's last card x: every group's showdown, group x's factors put right
            i = live[j]
            v = (m[i] * (pre[i] * u_lo + (tot - pre[i + 1]) * u_hi) + E[i] * u_eq
                 + (fc.mP[i] - m[i]) * (L[i] * u_lo + L[16 + i] * u_hi))
            if add:
                out[i] += v
            else:
                out[i] = v

    cdef void _average_only(self, Scratch* S, int64_t n, int p, double* mine, int depth) noexcept nogil:
        """One iteration of traverser p in a subtree the opponent does not
        reach: exactly what the full walk would do there (instantaneous
        regrets are 0), without the opponent's vectors or showdowns."""
        cdef Node* nd = &self.nodes[n]
        cdef Node* ch
        cdef int kp = nd.k0 if p == 0 else nd.k1
        cdef int c, j, off = 0, kc
        cdef int64_t s, f
        cdef double tot = 0.0, q
        cdef double* sig = S.sbuf[depth]
        cdef double* child_reach = S.pbuf[depth][0]
        if nd.kind >= KIND_SHOWDOWN or self._poll(S):   # a showdown or a node played in place
            return
        if nd.actor != p:
            for c in range(nd.nchild):
                self._average_only(S, nd.first + c, p, mine, depth + 1)
            return
        self._current(n, sig)
        for c in range(nd.nchild):   # whether any hand here is reached (reads only the alive ones)
            ch = &self.nodes[nd.first + c]
            for j in range(ch.nseq):
                tot += mine[self.spar[ch.seq + j]]
        for c in range(nd.nchild):   # the node's entries first (`_put` stores a node's at once), then below
            ch = &self.nodes[nd.first + c]
            for j in range(ch.nfree):
                s = ch.seq + j
                f = ch.fseq + j
                q = self._reg(nd, f)
                q = q * self.dneg + _pos(q) * (self.dpos - self.dneg)   # as in `_walk`: no branch on the sign
                if self.plus == 1 and q < 0:
                    q = 0.0
                S.rbuf[off + j] = q
                S.tbuf[off + j] = self._sum(nd, f) * self.dstrat + mine[self.spar[s]] * sig[off + j]
            off += ch.nseq
        self._put(nd, S.rbuf, False)
        self._put(nd, S.tbuf, True)
        off = 0
        for c in range(nd.nchild):
            ch = &self.nodes[nd.first + c]
            kc = kp - hand_size(ch.act)
            if tot > 0.0 or self.dpos != 1.0 or self.dneg != 1.0 or self.dstrat != 1.0:
                for j in range(ch.nseq):
                    s = ch.seq + j
                    child_reach[self.schi[s]] = mine[self.spar[s]] * sig[off + j]
                self._average_only(S, nd.first + c, p, child_reach, depth + 1)
            off += ch.nseq
        # no new regret matching: the discount scales every positive regret of a hand by the same dpos,
        # so its current strategy (their shares) stays what it was, up to float32 rounding

    cdef double _root(self, int p, int mode) noexcept nogil:
        cdef int j, k = self.root_k[p], ko = self.root_k[1 - p]
        cdef Scratch* S = &self.scr[0]
        cdef double* mine = S.pbuf[MAXDEPTH - 1][0]
        cdef double* opp = S.pbuf[MAXDEPTH - 1][1]
        cdef double* out = S.cbuf[MAXDEPTH - 2]
        cdef double v = 0.0, tot = 0.0
        for j in range(self.lsize[k]):
            mine[j] = self.allowed[p][j]
        for j in range(self.lsize[ko]):
            opp[j] = self.allowed[1 - p][j]
        self.mode = mode
        for j in range(self.lsize[ko]):
            tot += opp[j]
        for j in range(self.lsize[k]):
            out[j] = 0.0
        self._walk(S, 0, p, mine, opp, tot, out, 0, 0, 0, self.root_live[p], self.nroot_live[p], self.root_live[1 - p],
                   self.nroot_live[1 - p])
        for j in range(self.lsize[k]):
            v += out[j] * self.allowed[p][j]
            self.rootv[mode][p][j] = out[j]
        return v

    cdef double _hand_root(self, int p, int mode, int i) noexcept nogil:
        # `_root` for player p's root hand i alone (`one_hand`): its counterfactual value
        cdef int j, ko = self.root_k[1 - p]
        cdef Scratch* S = &self.scr[0]
        cdef double* mine = S.pbuf[MAXDEPTH - 1][0]
        cdef double* opp = S.pbuf[MAXDEPTH - 1][1]
        cdef double* out = S.cbuf[MAXDEPTH - 2]
        cdef double tot = 0.0
        cdef uint16_t one = <uint16_t>i
        mine[i] = self.allowed[p][i]
        for j in range(self.lsize[ko]):
            opp[j] = self.allowed[1 - p][j]
            tot += opp[j]
        out[i] = 0.0
        self.mode = mode
        self.one_hand = True
        self._walk(S, 0, p, mine, opp, tot, out, 0, 0, 0, &one, 1, self.root_live[1 - p], self.nroot_live[1 - p])
        self.one_hand = False
        return out[i]

    def _root_hand(self, str who, int p, uint64_t packed):
        # the level index of player p's root hand `packed`, checked (`who`: the method asking)
        if p not in (0, 1) or hand_size(packed) != self.root_k[p]:
            raise ValueError(f"{who}: player 0 or 1, a hand of the root size")
        if self.nnodes == 0 or self.root_q == NULL:
            raise ValueError(f"{who}: no tree built")
        cdef int i = self.idx(packed)
        if i < 0:
            raise ValueError(f"{who}: the hand is not in the pool")
        return i

    def hand_profile_values(self, int p, uint64_t packed):
        """`values(p)` for player p's root hand `packed` alone: its
        counterfactual value under the average profile, and the values of
        the root sequences in sequence order (the hand's own; every other
        entry 0), from the walk `hand_values` makes.  The same numbers as
        `values` makes for that hand."""
        cdef int i, j, total = 0
        cdef double v
        i = self._root_hand("hand_profile_values", p, packed)
        for c in range(self.nodes[0].nchild):
            total += self.nodes[self.nodes[0].first + c].nseq
        for j in range(total):
            self.root_q[j] = 0.0
        with nogil:
            v = self._hand_root(p, 2, i)
        if self.aborted:
            raise Stopped("stopped while valuing a hand")
        return v, [self.root_q[j] for j in range(total)]

    def hand_values(self, int p, uint64_t packed):
        """(best-response value, average-profile value) of player p's root
        hand `packed` against the other's average strategy, counterfactual
        as `root_value` gives them: the same numbers as `best_response` and
        `values` make for that hand, from a walk of only the public nodes
        the hand can reach (its own moves alone below each of its decisions:
        a small part of the tree), on the calling thread."""
        cdef int i
        cdef double br, avg
        i = self._root_hand("hand_values", p, packed)
        with nogil:
            br = self._hand_root(p, 1, i)
            avg = self._hand_root(p, 2, i) if not self.aborted else 0.0
        if self.aborted:
            raise Stopped("stopped while valuing a hand")
        return br, avg

    def root_value(self, int p, int mode, uint64_t packed):
        """The counterfactual value (over every deal, not divided by the
        hand's own chance) of player p's root hand `packed` in the last
        traversal of `mode` (1: best response, 2: the average profile)."""
        cdef int i
        if mode not in (1, 2) or p not in (0, 1) or hand_size(packed) != self.root_k[p]:
            raise ValueError("root_value: mode 1 or 2, player 0 or 1, a hand of the root size")
        i = self.idx(packed)
        if i < 0:
            raise ValueError("root_value: the hand is not in the pool")
        return self.rootv[mode][p][i]

    # ------------------------------------------------------------ Python API
    def run(self, int n):
        """n more DCFR iterations (both players, alternating).  Stopped by the
        `limit` inside one, the profile holds part of that iteration
        (`iterations` counts it)."""
        cdef int i, p
        cdef double t, ta
        with nogil:
            for i in range(n):
                self.iterations += 1
                t = self.iterations
                ta = t ** 1.5
                if self.plus == 2:
                    self.dpos = 1.0
                    self.dneg = 1.0
                    self.dstrat = 1.0
                elif self.plus:
                    self.dpos = 1.0
                    self.dneg = 1.0
                    self.dstrat = (t - 1.0) / t
                else:
                    ta = t ** self.alpha
                    self.dpos = ta / (ta + 1.0) if self.iterations > 1 else 1.0
                    self.dneg = (t ** self.beta) / (t ** self.beta + 1.0) if self.iterations > 1 else 1.0
                    self.dstrat = (((t - 1.0) / t) ** self.gamma) if self.iterations > 1 else 1.0
                for p in range(2):
                    self._root(p, 0)
                if self.aborted:
                    break
        if self.aborted:
            raise Stopped("stopped inside a CFR iteration")

    def best_response(self):
        """(player 0's best-response value against player 1's average strategy,
        player 1's against player 0's), each in its own utility."""
        cdef double b0, b1
        with nogil:
            b0 = self._root(0, 1)
            b1 = self._root(1, 1)
        if self.aborted:
            raise Stopped("stopped inside a best response")
        return b0, b1

    def values(self, int p):
        """Player p's value of the average profile, and the values of p's
        sequences at the root (counterfactual, unnormalised by the hand's
        chance), in sequence order."""
        cdef double v
        cdef int j, total = 0
        with nogil:
            v = self._root(p, 2)
        if self.aborted:
            raise Stopped("stopped while evaluating the profile")
        for c in range(self.nodes[0].nchild):
            total += self.nodes[self.nodes[0].first + c].nseq
        return v, [self.root_q[j] for j in range(total)]

    def set_utilities(self, utilities):
        """Player 0's worth of (win, drawn round, loss) from now on (e.g. (1, 0, 0)
        to read a profile's win probability with `values`)."""
        self.u_win, self.u_draw, self.u_loss = float(utilities[0]), float(utilities[1]), float(utilities[2])

    def set_strategy(self, weights):
        """Overwrite the average-strategy weights (one per sequence): a fixed
        profile to measure with `best_response`."""
        cdef int64_t n, j
        cdef Node* nd
        if len(weights) != self.nseq:
            raise ValueError("one weight per sequence")
        cdef double* v
        cdef Node* ch
        cdef int c, off
        if not self.built:
            raise ValueError("set_strategy: the tree is not built")
        v = self.scr[0].tbuf
        for n in range(self.nnodes):   # a forced sequence has no weight: its hand's one move is played
            nd = &self.nodes[n]
            off = 0
            for c in range(nd.nchild):
                ch = &self.nodes[nd.first + c]
                for j in range(ch.nfree):
                    v[off + j] = float(weights[ch.seq + j])
                off += ch.nseq
            if nd.nchild:
                self._put(nd, v, True)

    def stats(self):
        # a built tree's free sequences hold 16 bytes (10 `compact`): two hand indices, the regret, average
        # and current strategy; a forced one 4, its hand indices (the current strategy is allocated once the
        # build is done: `peak` counts the build's 12 (8) bytes)
        cdef int64_t tree = (self.cap_nodes * sizeof(Node) + self.cap_seq * 2 * sizeof(uint16_t)
                             + self.cap_flt * 3 * self.esz)
        cdef int64_t mem = tree
        cdef int k
        for k in range(1, self.K + 1):
            mem += (self.lsize[k] + 1) * sizeof(uint64_t)
            mem += _pow13(k) * sizeof(int32_t)
        # the root values and the build masks once, each thread's scratch (`Scratch`) per thread
        nt = max(self.threads, self.nscr)
        mem += MAXDEPTH * (self.maxm * sizeof(double) + 2 * self.maxm)
        mem += nt * MAXDEPTH * (4 * self.maxm * sizeof(double) + 2 * (self.max_node_seq + 1) * sizeof(double))
        if self.keep_lower and self.K >= 2:
            mem += nt * self.maxm * (16 * sizeof(double) + sizeof(int32_t))
        if self.split_v != NULL:
            mem += self.nodes[0].nchild * (self.maxm * sizeof(double) + 5)
        for k in range(self.nkept):
            mem += (self.lsize[hand_size(self.kept_table[k]) + 1] + 1) * (1 + sizeof(uint16_t))
        for k in range(13):
            if self.three_key[k] != NULL:
                mem += (self.lsize[3] + 1) * (1 + sizeof(uint16_t))
        return {"nodes": self.nnodes, "sequences": self.nseq, "forced": self.nseq - self.nflt, "bytes": mem,
                "threads": self.threads, "threaded_traversals": self.splits,
                "children_walked": [self.split_taken[k] for k in range(max(self.threads, 1))],
                "node_bytes": sizeof(Node),
                "peak_bytes": mem - tree + max(self.peak, tree),
                "hands": [self.lsize[k] for k in range(1, self.K + 1)]}

    def level(self, int k):
        """Every hand of k cards, as packed counts (4 bits per rank)."""
        return [self.lhand[k][i] for i in range(self.lsize[k])]

    def node(self, int64_t n):
        """(kind, actor, k0, k1, attacker, parent, action packed, beats, first child, children, first seq, seqs)."""
        cdef Node* nd = &self.nodes[n]
        return (nd.kind, nd.actor, nd.k0, nd.k1, nd.attacker, nd.parent, nd.act, nd.beats, nd.first, nd.nchild,
                nd.seq, nd.nseq)

    def node_count(self):
        return self.nnodes

    def sequences(self, int64_t n):
        """(parent hand index, child hand index, average weight) of node n's
        sequences: first those of hands with another move (in hand order),
        then the forced ones, weight 1."""
        cdef Node* nd = &self.nodes[n]
        cdef Node* par = &self.nodes[nd.parent] if nd.parent >= 0 else nd
        return [(self.spar[nd.seq + j], self.schi[nd.seq + j], self._sum(par, nd.fseq + j) if j < nd.nfree else 1.0)
                for j in range(nd.nseq)]

    def weights(self):
        """The average-strategy weight of every sequence (a forced one's: 1)."""
        out = [1.0] * self.nseq
        cdef int64_t n, j
        for n in range(self.nnodes):
            for j in range(self.nodes[n].nfree):
                out[self.nodes[n].seq + j] = self._sum(&self.nodes[self.nodes[n].parent], self.nodes[n].fseq + j)
        return out


cdef void* _split_worker(void* arg) noexcept nogil:
    # a worker thread of `_split`: its share of the root's children, then it says it is done
    cdef Worker* w = <Worker*>arg
    (<Engine>w.engine)._split_loop(&(<Engine>w.engine).scr[w.t])
    cfr_take(&(<Engine>w.engine).split_done)
    return NULL


cdef int _scratch_alloc(Scratch* s, int maxm, int max_node_seq, bint groups) noexcept nogil:
    # a thread's traversal vectors (`Scratch`); -1 out of memory (what was allocated is freed with it)
    cdef int d
    for d in range(MAXDEPTH):
        s.pbuf[d][0] = <double*>calloc(maxm, sizeof(double))
        s.pbuf[d][1] = <double*>calloc(maxm, sizeof(double))
        s.vbuf[d] = <double*>calloc(maxm, sizeof(double))
        s.cbuf[d] = <double*>calloc(maxm, sizeof(double))
        s.sbuf[d] = <double*>calloc(max_node_seq + 1, sizeof(double))
        s.qbuf[d] = <double*>calloc(max_node_seq + 1, sizeof(double))
        if (s.pbuf[d][0] == NULL or s.pbuf[d][1] == NULL or s.vbuf[d] == NULL or s.cbuf[d] == NULL
                or s.sbuf[d] == NULL or s.qbuf[d] == NULL):
            return -1
    s.rbuf = <double*>calloc(max_node_seq + 1, sizeof(double))
    s.tbuf = <double*>calloc(max_node_seq + 1, sizeof(double))
    if s.rbuf == NULL or s.tbuf == NULL:
        return -1
    if groups:
        s.gmark = <int32_t*>malloc(maxm * sizeof(int32_t))
        s.gbuf = <double*>malloc(<int64_t>maxm * 16 * sizeof(double))
        if s.gmark == NULL or s.gbuf == NULL:
            return -1
        for d in range(maxm):
            s.gmark[d] = -1
    return 0


cdef void _scratch_free(Scratch* s) noexcept nogil:
    cdef int d
    for d in range(MAXDEPTH):
        free(s.pbuf[d][0]); free(s.pbuf[d][1]); free(s.vbuf[d]); free(s.cbuf[d]); free(s.sbuf[d]); free(s.qbuf[d])
    free(s.gmark); free(s.gbuf); free(s.rbuf); free(s.tbuf)
    memset(s, 0, sizeof(Scratch))


cdef inline int64_t _sequence_of(const uint16_t* spar, int64_t first, int n, int hand) noexcept nogil:
    # the sequence of a child's run (`first`, n of them) whose parent hand is `hand`; -1 if the move is not its
    cdef int64_t s
    for s in range(first, first + n):
        if spar[s] == hand:
            return s
    return -1


cdef inline void _defender_values(const uint16_t* live, int nlive, const uint16_t* kplay, const uint8_t* kept,
                                  const double* pre, double tot, const double* dT, const double* m,
                                  const double* fw, const double* opp, double u_lo, double u_hi, double u_eq,
                                  double* out, bint add) noexcept nogil:
    # `_last_single`'s defender hands (p defending): hand d answers with kplay[d] and keeps kept[d]; its value
    # from the prefix sums `pre` of the attacker's reach (`tot` in all), corrected at the answered card (`dT`),
    # written to out[d] or (`add`) added to it
    cdef int j, d, pi, y, e
    cdef double lo, hi, v
    for j in range(nlive):
        d = live[j]
        pi = kplay[d]
        y = kept[d]
        lo = pre[y] + dT[pi] * (pi < y)
        hi = (tot - pre[y + 1]) + dT[pi] * (pi > y)
        e = y + 64 * (y == pi)
        v = fw[pi] * (m[e] * (lo * u_lo + hi * u_hi) + m[32 + e] * opp[y] * u_eq)
        if add:
            out[d] += v
        else:
            out[d] = v


cdef inline int _nonzero(const double* w, const uint16_t* hands, int n, uint16_t* out) noexcept nogil:
    # the hands of `hands` whose weight in `w` is not 0, in order, into `out`; their count.  Branch-free
    # (whether a reach is 0 is a coin flip to the branch predictor): every hand written, kept by advancing
    cdef int j, m = 0
    for j in range(n):
        out[m] = hands[j]
        m += w[hands[j]] != 0.0
    return m


cdef inline int _group_slot(int32_t* gmark, int pi, int* ng) noexcept nogil:
    # the slot of the group of hands that play level-(k - 1) hand pi at a last answer (`_last_answer`):
    # its slot if the group has one, else a new one (the next of *ng), returned as -1 - slot so that the
    # caller makes the group's vector once
    cdef int g = gmark[pi]
    if g >= 0:
        return g
    g = ng[0]
    ng[0] += 1
    gmark[pi] = g
    return -1 - g


cdef int _grow(void** array, size_t size) noexcept nogil:
    # realloc in place of *array; on failure the old block stays (-1)
    cdef void* grown = realloc(array[0], size)
    if grown == NULL:
        return -1
    array[0] = grown
    return 0

cdef inline int64_t _grown_cap(int64_t used, int n, int64_t cap, int64_t first_reserve, int64_t reserve,
                               int64_t limit) noexcept nogil:
    # A growing array's next capacity: the estimate's reservation at the
    # first growth; past a (close) estimate, a quarter more, not double;
    # with no estimate, double.  Never above `limit`.
    if cap == 0 and first_reserve >= n:
        return first_reserve
    if reserve > 0:
        return min(max(cap + cap // 4, used + n + 4096), limit)
    return min(max(2 * cap, used + n + 4096), limit)

cdef double _fact(int n) noexcept nogil:
    cdef double f = 1.0
    cdef int i
    for i in range(2, n + 1):
        f *= i
    return f

cdef int _pow13(int k) noexcept nogil:
    cdef int i, v = 1
    for i in range(k):
        v *= 13
    return v

cdef int _code(uint64_t p) noexcept nogil:
    cdef int r, i, code = 0, mult = 1
    for r in range(1, 13):
        for i in range(hand_count(p, r)):
            code += r * mult
            mult *= 13
    return code

cdef int _count_multisets(int* U, int k) noexcept nogil:
    cdef int ways[16]
    cdef int nw[16]
    cdef int r, j, t
    for j in range(k + 1):
        ways[j] = 0
    ways[0] = 1
    for r in range(1, 13):
        for j in range(k + 1):
            nw[j] = 0
        for j in range(k + 1):
            if ways[j]:
                for t in range(min(U[r], k - j) + 1):
                    nw[j + t] += ways[j]
        for j in range(k + 1):
            ways[j] = nw[j]
    return ways[k]

cdef void _fill_multisets(int* U, int r, int left, uint64_t cur, uint64_t* out, int* n) noexcept nogil:
    cdef int t
    if left == 0:
        out[n[0]] = cur
        n[0] += 1
        return
    if r > 12:
        return
    for t in range(min(U[r], left), -1, -1):
        _fill_multisets(U, r + 1, left - t, cur + hand_card(r) * t, out, n)
