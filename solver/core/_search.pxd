# cython: language_level=3
"""C-level interface of the exact play-phase solver (R10–R17).

Private and trusting: callers validate positions in Python (`tacocat.core.exact`)
and hand over packed integers.  Other Cython modules may ``cimport`` this
file to use the packed-hand helpers, the move generators and the search
without the GIL::

    from tacocat.core._search cimport hand_t, answer_t, SearchCtx, Core, \\
        gen_attacks, gen_answers, search_value, MAX_ATTACKS, MAX_ANSWERS

Packed hand (``hand_t``, 64 bits)
---------------------------------
The count of rank r (1..12) sits in the 4-bit field at bits 4(r-1) .. 4(r-1)+3::

    bit  63..48  47..44  43..40  ...  7..4   3..0
         0       rank12  rank11  ...  rank2  rank1

Counts are at most 15 (hands hold at most MAX_HAND = 12 cards), so adding or
subtracting two packed multisets is plain integer arithmetic whenever the
result is a multiset (no field over- or underflows).  The numeric order of
packed hands compares the highest ranks first.

Answer (``answer_t``, 64 bits)
------------------------------
``cards | BEATS_BIT``: the packed multiset of the defender's cards removed
(bits 0..47) and, in bit 63, whether every answer beats (R13).

Values
------
The search works on *levels* 0..2: each outcome of the round (win, drawn
round, loss, for player 0) gets the dense rank of its utility (two equal
utilities share a level; with two distinct utilities the levels are 0 and 2).
Player 0 maximises the level, player 1 minimises it.  Inside the search a
value is seen from the attacker to move: ``v = level`` for player 0 and
``2 - level`` for player 1 (negamax).  The public functions return player 0's
level.
"""

from libc.stdint cimport uint8_t, int8_t, uint32_t, uint64_t

ctypedef uint64_t hand_t      # packed rank counts, layout above
ctypedef uint64_t answer_t    # packed cards removed | BEATS_BIT

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__GNUC__) || defined(__clang__)
    static inline int tc_ctz64(uint64_t x) { return __builtin_ctzll(x); }
    static inline int tc_clz64(uint64_t x) { return __builtin_clzll(x); }
    #else
    static inline int tc_ctz64(uint64_t x) { int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
    static inline int tc_clz64(uint64_t x) { int n = 0; while (!(x >> 63)) { x <<= 1; n++; } return n; }
    #endif
    /* One transposition-table entry: 16 bytes, layout in _search.pyx. */
    typedef struct { uint64_t key; uint64_t data; } tc_tt_entry;
    typedef char tc_tt_entry_is_16_bytes[(sizeof(tc_tt_entry) == 16) ? 1 : -1];
    """
    int tc_ctz64(uint64_t x) noexcept nogil    # x != 0
    int tc_clz64(uint64_t x) noexcept nogil    # x != 0
    ctypedef struct tc_tt_entry:
        uint64_t key
        uint64_t data

cdef enum:
    RANK_BITS = 4                 # bits per rank count in hand_t
    MAX_HAND = 12                 # most cards in one hand the solver accepts
    MIN_SEQUENCE = 3              # R10: tacocat.rules.play.MIN_SEQUENCE (a test holds them equal)
    MAX_ATTACKS = 96              # > 12 singles + 12 sets + 55 sequences
    MAX_ANSWERS = 1848            # >= 2 * C(12, 6): (cards, beats) pairs
    TT_BUCKET = 4                 # entries per bucket (one 64-byte line)

cdef extern from *:
    """
    #define TC_HAND_MASK  0x0000FFFFFFFFFFFFULL
    #define TC_BEATS_BIT  0x8000000000000000ULL
    #define TC_NIBBLES    0x0000111111111111ULL
    """
    uint64_t HAND_MASK "TC_HAND_MASK"     # the 48 bits of a packed hand
    uint64_t BEATS_BIT "TC_BEATS_BIT"     # answer_t flag: every answer beats
    uint64_t NIBBLES "TC_NIBBLES"         # one card of every rank


ctypedef struct SearchCtx:
    tc_tt_entry* tt          # 64-byte aligned table, n_entries entries
    void* tt_raw             # what malloc returned (freed by ctx_free)
    uint64_t n_entries       # power of two, >= TT_BUCKET
    uint64_t bucket_mask     # n_entries / TT_BUCKET - 1
    uint32_t gen             # current generation 1..255 (0 marks an empty entry)
    uint32_t first_gen       # entries stored in first_gen..gen are valid
    uint64_t order_bits      # ordering id (level triple) placed in the key
    int8_t level[3]          # player 0's level of win, draw, loss
    int8_t sd[2][3]          # attacker-view value: [attacker][lower, equal, higher card]
    answer_t* buf            # answer stack: (MAX_HAND + 1) * MAX_ANSWERS entries
    uint64_t nodes           # attack + table nodes visited
    uint64_t probes          # TT look-ups
    uint64_t hits            # look-ups that found the position
    uint64_t stores          # TT writes
    uint64_t evictions       # stores that replaced another valid position


# ---- the boundary: what a Python caller hands over, checked once ----------
# Every Python-facing entry point of _search and _ismcts packs cards with
# `pack_cards` and checks packed hands with `check_hand`: what the fixed C
# arrays cannot hold is a ValueError at the door, never a write past an array.

cdef hand_t pack_cards(object cards, str what, int most) except? 0
cdef int check_hand(hand_t h, str what) except -1

# ---- packed-hand helpers (inline in every module that cimports them) ----

cdef inline int hand_count(hand_t h, int rank) noexcept nogil:
    """Cards of `rank` (1..12) in `h`."""
    return <int>((h >> (RANK_BITS * (rank - 1))) & 15)

cdef inline hand_t hand_card(int rank) noexcept nogil:
    """The packed one-card hand holding `rank`."""
    return (<hand_t>1) << (RANK_BITS * (rank - 1))

cdef inline int hand_size(hand_t h) noexcept nogil:
    """Number of cards in `h` (sum of the twelve counts)."""
    cdef uint64_t x = (h & <uint64_t>0x0F0F0F0F0F0F) + ((h >> 4) & <uint64_t>0x0F0F0F0F0F0F)
    return <int>((x * <uint64_t>0x0101010101010101) >> 56)

cdef inline int hand_lowest(hand_t h) noexcept nogil:
    """Lowest rank in `h` (h non-empty)."""
    return (tc_ctz64(h) >> 2) + 1

cdef inline int hand_highest(hand_t h) noexcept nogil:
    """Highest rank in `h` (h non-empty)."""
    return ((63 - tc_clz64(h)) >> 2) + 1

cdef inline bint hand_contains(hand_t h, hand_t sub) noexcept nogil:
    """Whether multiset `sub` is contained in `h` (bits 0..47; a BEATS_BIT is
    ignored).  SWAR: the even and the odd ranks' counts are spread to 8-bit
    lanes; a lane of (a | 0x80) - b loses its top bit exactly when a < b."""
    cdef uint64_t E = <uint64_t>0x0F0F0F0F0F0F, H = <uint64_t>0x808080808080
    if ((((h & E) | H) - (sub & E)) & H) != H:
        return False
    return (((((h >> 4) & E) | H) - ((sub >> 4) & E)) & H) == H

cdef inline int hand_unpack(hand_t h, int* out) noexcept nogil:
    """Write the ranks of `h` in ascending order to `out`; return how many."""
    cdef int n = 0, r, c
    while h:
        r = tc_ctz64(h) >> 2
        c = <int>((h >> (4 * r)) & 15)
        while c:
            out[n] = r + 1
            n += 1
            c -= 1
        h &= ~((<hand_t>15) << (4 * r))
    return n


# ---- move generation and search (defined in _search.pyx) ----

cdef int gen_attacks(hand_t hand, hand_t* out) noexcept nogil
    # R10–R11: every distinct attack from `hand` into out[0..MAX_ATTACKS); returns the count.
cdef int gen_answers(hand_t attack, hand_t defender, answer_t* out) noexcept nogil
    # R12–R13: every distinct answer into out[0..MAX_ANSWERS); defender holds > |attack| cards.

cdef int ctx_init(SearchCtx* ctx, uint64_t tt_entries) noexcept nogil
    # allocate; tt_entries rounded down to a power of two >= TT_BUCKET; -1 if out of memory
cdef void ctx_free(SearchCtx* ctx) noexcept nogil
cdef void ctx_clear(SearchCtx* ctx) noexcept nogil
    # forget every stored position (O(1) unless the generation counter wraps)
cdef void ctx_new_search(SearchCtx* ctx, bint keep) noexcept nogil
    # next generation; keep=False also invalidates what earlier searches stored
cdef void ctx_set_levels(SearchCtx* ctx, int win, int draw, int loss) noexcept nogil
    # player 0's level (0..2) of each outcome; selects the TT ordering id

cdef int search_value(SearchCtx* ctx, hand_t h0, hand_t h1, int attacker, hand_t table) noexcept nogil
    # player 0's level under best play; table == 0 means the attacker is to attack
cdef int search_moves(SearchCtx* ctx, hand_t h0, hand_t h1, int attacker, hand_t table,
                      answer_t* moves, int8_t* levels) noexcept nogil
    # every root move (attacks, or answers when table != 0) with player 0's level after it;
    # moves/levels hold MAX_ANSWERS; returns the count (0 at a showdown)
cdef int search_pv(SearchCtx* ctx, hand_t h0, hand_t h1, int attacker, hand_t table,
                   answer_t* moves, uint8_t* players, int capacity) noexcept nogil
    # a principal variation down to the showdown; returns its length


cdef class Core:
    cdef SearchCtx ctx      # the C search state; Cython callers pass &core.ctx
    cdef bint busy          # a search is running (one thread per Core)
    cdef int _enter(self, int win, int draw, int loss) except -1
