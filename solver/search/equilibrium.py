"""The equilibrium of a hidden-hand play-phase endgame (R10–R17, R20).

`tacocat.search.endgame` gives the *double-dummy average*: every consistent
opponent hand solved as if, after your move, both sides saw every card.
This module solves the endgame as it is really played: neither player sees
the other's hand, every attack and answer is public (R15), so a player's
information set is (own hand, public history), and the answer is a Nash
equilibrium — a strategy (possibly mixed) for every hand at every public
node — with a number, the *exploitability*, that says how close to it the
answer is.

The game.  From a public state — ruleset, every face-up card of the round,
the round's play history, the table and the attacker, both hand sizes —
chance deals both current hands at once from the cards nobody has seen
(deck − face-up cards), uniformly over card subsets (R6), conditioned on
both players' past answers being legal (R20 for each side, which is a floor
on each hand: `tacocat.rules.history.hand_floor`).  **Ruling: the endgame
does not model how the players got here beyond this consistency** — an
earlier choice says nothing about a hand except what R20 rules out.
Utilities: player 0's worth of (win, drawn round, loss), zero-sum.

Exploitability of a profile (σ0, σ1) is (b0 + b1) / 2, where b_p is the
best-response value of player p against the other's strategy, each in its
own utility; it is 0 exactly at an equilibrium, and a best responder gains
on average that much against the profile (round units with round
utilities).  The best response is exact (the whole tree, every hand).

The solver (`tacocat.core._cfr`): discounted CFR (predictive, the average
weighing iteration t as t^12) over the public tree with one reach vector per
private hand, deterministic (no seed needed, and the same numbers on any
number of threads); it stops at a target exploitability, an iteration
budget, a time budget or `stop`.  A large tree holds its regrets and
strategies in 16 bits (`COMPACT_ABOVE`).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from tacocat.core import _cfr  # type: ignore[attr-defined]  # compiled Cython, no .py or stub for mypy
from tacocat.errors import PositionError, TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand, contains, counts, format_cards, hand
from tacocat.rules.events import Decision
from tacocat.rules.game import PLAY
from tacocat.rules.history import (
    ATTACK,
    History,
    PlayEvent,
    check_history,
    hand_floor,
    history_from_json,
)
from tacocat.rules.play import answers as play_answers
from tacocat.rules.play import next_attacker
from tacocat.rules.ruleset import Ruleset
from tacocat.rules.views import View
from tacocat.search.budget import WALL, Clock

DEFAULT_TARGET = 1e-3
"""Stop when the exploitability is at most this (utility units)."""
DEFAULT_MAX_SEQUENCES = 2**31 - 1
"""The most (public node, hand, action) sequences the core can number (its
sequence ids are 32-bit).  A sequence cap binds only while the tree is
built, never on the size estimate: the estimate is refused by bytes alone
(`DEFAULT_MAX_BYTES`), so an endgame under the byte cap is never turned away
by a sequence count it was only guessed to have."""
DEFAULT_MAX_BYTES = 2_000_000_000
"""Refuse endgames whose tree is estimated (before anything of it is
allocated) to need more bytes than this; servers pass a smaller cap.  A
sequence takes 10 bytes in a compact tree (two hand indices, 16-bit regret,
average weight and current strategy; 16 with float32 ones; 4 when its hand
has no other move), a public node 48 (`NODE_BYTES`): ~190 M sequences at
this cap.  2 GB: the cap issue 22 set
for 5-card endgames, under which 50 of the first 61 seeded 5-card games
were solved (results/equilibrium_five.py); at 1 GB the median one (1.3 GB)
was refused."""
ESTIMATE_PROBES = 512
"""Random root-to-leaf paths of the size estimate (Knuth's estimator,
`_cfr.Engine.estimate`): on the trees `solve` builds (last answers in
place) within 14 % of the real sequences on 13 4-card endgames (128
paths: 0.78-1.33), 0.07 s each; a 5-card one (#9 of the benchmark) 9 %
over its real bytes."""
NODE_BYTES, SEQUENCE_BYTES, FORCED_SEQUENCE_BYTES = 48, 16, 4
"""The core's bytes per public node, per free sequence (two 16-bit hand
indices, float32 regret, average weight and current strategy) and per
forced sequence (a hand with one move there: its hand indices alone)."""
COMPACT_SEQUENCE_BYTES = 10
"""... per free sequence of a compact tree (`COMPACT_ABOVE`): the regret,
average weight and current strategy in 16 bits each."""
COMPACT_ABOVE = 64_000_000
"""`solve` and `build` store a tree whose float32 form is estimated over
this many bytes compact (`_cfr.Engine.set_compact`: 16-bit regrets and
average weights, each node's codes scaled by its largest, and a 16-bit
current strategy): 10 bytes a free sequence, not 16.  Rounding to half a
code of a node's largest entry is noise far below an exploitability of
1e-3 (on 4-card endgames the exploitability curves of both forms agree to
1 % down to 1e-5, tests/test_equilibrium_compact.py), but not below 1e-8:
small trees, whose targets may be that low (the LP cross-check), keep
float32 entries."""
KIND_LAST = 3
"""A public node's kind (`_cfr.Engine.node`) when it is a last answer (the
defender then keeps one card) that `solve` plays keep-the-lowest-card in
place: it has no children and no sequences (`keep_lower`)."""
KIND_LAST_ATTACK = 4
"""... when it is an attack with two cards each that `solve` plays with
the attacker's higher card in place, the answer keeping the lowest card."""
KIND_ANSWER_THREE = 5
"""... when it is a one-card attack answered from three cards (both then
hold two) that `solve` plays in place (`answer_three`)."""
IN_PLACE = (KIND_LAST, KIND_LAST_ATTACK, KIND_ANSWER_THREE)
"""The kinds of the nodes played in place: no children, no sequences."""


def keep_lower(endgame: Endgame) -> bool:
    """Whether the end of play may be played in place without changing
    the game (`solve` does, below the root, whose moves are what is asked
    for).  With win >= draw >= loss (player 0's utilities; player 1's are
    their negatives, the same order):

    - a last answer (one that leaves each player one card: the showdown
      follows, R16-R17) keeps the lowest card it may: a lower kept card is
      never worse against any opponent card, whatever either knows;
    - against that answer, an attack with two cards each is made with the
      higher card: the attacker keeps its lower card, and the defender
      keeps the same card or a higher one (its higher card beats a lower
      attack at least as often, and then it keeps its lower card);
    - before them, a one-card attack answered from three cards (both then
      hold two) is beaten with the middle card if it beats, else with the
      highest, and the lowest is sacrificed only when nothing beats
      (`answer_three`).

    Each is weakly best for every pair of hands, so the value, every best
    response and the exploitability are those of the whole game
    (`tests/test_equilibrium_keep_lower.py` measures the profile in the whole
    tree), and the tree holds neither those moves' sequences nor the nodes
    below them: 75-80 % of a 5-card tree's sequences and 81-85 % of its
    nodes are the last answers and their showdowns, and of what is left
    about 65 % of the sequences are the attacks with two cards each; then
    the answers from three cards were 78 % of issue 36's 5-card tree
    (102 M sequences, 21 M without them)."""
    w, d, lo = endgame.utilities
    return w >= d >= lo


PURIFY_BELOW = 0.005
"""Human output only: a move the equilibrium plays with less probability
than this is shown as never played (0 %) and the others renormalised.  At
exploitability 1e-3 such weights are within the solver's noise; JSON keeps
the exact mix."""
MAX_CARDS = 6
"""The core indexes hands of at most this many cards."""
MAX_THREADS = 16
"""The most threads one solve's traversals run on (`solve(threads=)`)."""


def machine_threads() -> int:
    """The cores this process may run on (at most `MAX_THREADS`): the command
    line's default for `solve --equilibrium --threads`; servers and bots
    keep one per solve (their solves run beside others)."""
    import os

    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, n))


def check_threads(threads: object) -> int:
    """`threads` as a thread count, else a `TacocatError` naming the field."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise TacocatError(f"threads must be an integer from 1 to {MAX_THREADS}, got {threads!r}")
    return threads


AUTO_CARDS = 3
"""`hint(method="auto")` uses the equilibrium when both hands hold at most
this many cards (3-card endgames reach 1e-3 well within a second)."""

METHOD_WORDS = {
    "equilibrium": "equilibrium of the endgame with hidden hands (CFR; neither side sees the other's cards)",
    "exact": "double-dummy average (every opponent hand solved as if all cards were face up after this move)",
}


class EndgameTooLarge(TacocatError):
    """More sequences than the memory bound allows."""

    code = "endgame_too_large"


class EquilibriumBusy(TacocatError):
    """A server's equilibrium solves are all taken (`SolveSlots`)."""

    code = "busy"


SERVER_MAX_EQUILIBRIUM = 2
"""Equilibrium solves a server runs at once (each holds its own tree)."""
SERVER_MAX_BYTES = 200_000_000
"""The memory cap of each equilibrium solve on a server: with
`SERVER_MAX_EQUILIBRIUM` at once the trees stay under 400 MB."""
_max_bytes: contextvars.ContextVar[int] = contextvars.ContextVar("equilibrium_max_bytes", default=DEFAULT_MAX_BYTES)
_serving_cap: list[int] = []
"""The byte caps of this process's `SolveSlots` (a server's): `hint(method=
"auto")` outside a slot holds an estimated endgame to the smallest
(`auto_estimate`)."""


class SolveSlots:
    """A server's cap on equilibrium solves running at once: `slot()` is a
    context manager that takes one (else `EquilibriumBusy`, the protocol's
    `busy`) and, inside it, caps every `solve` of this thread at
    `max_bytes`."""

    def __init__(self, limit: int = SERVER_MAX_EQUILIBRIUM, max_bytes: int = SERVER_MAX_BYTES) -> None:
        self.limit = int(limit)
        self.max_bytes = int(max_bytes)
        self.running = 0
        self._lock = threading.Lock()
        _serving_cap[:] = [min([*_serving_cap, self.max_bytes])]

    @contextlib.contextmanager
    def slot(self):
        with self._lock:
            if self.running >= self.limit:
                raise EquilibriumBusy(
                    f"{self.running} equilibrium solve(s) running, the most this server runs at "
                    f"once ({self.limit}); wait for an answer or use another method"
                )
            self.running += 1
        token = _max_bytes.set(self.max_bytes)
        try:
            yield
        finally:
            _max_bytes.reset(token)
            with self._lock:
                self.running -= 1


class EquilibriumStopped(TacocatError):
    """The time budget or `stop` ended the solve before it had a strategy
    (while estimating or building the public tree, or while reporting)."""

    code = "stopped"


@dataclass(frozen=True)
class Endgame:
    """A public play-phase state: what both players know (RULES §5)."""

    rules: Ruleset
    seen: Hand
    """Every face-up card of the round that is not on the table (replacement
    discards, duel cards, every attack and answer of `history`)."""
    history: History
    """The round's play history so far (R15), without the attack on the table."""
    table: Hand
    attacker: int
    sizes: tuple[int, int]
    """Current hand sizes of player 0 and player 1 (the attacker's without the table)."""
    utilities: tuple[float, float, float] = (1.0, 0.0, -1.0)
    """Player 0's worth of (win, drawn round, loss); player 1's is the negative."""

    @property
    def pool(self) -> Hand:
        """The cards nobody has seen: deck − every face-up card (both hands and the draw pile)."""
        left = counts(self.rules.deck_cards())
        for r in self.seen + self.table:
            left[r] -= 1
        return tuple(r for r in range(1, 13) for _ in range(left[r]))

    @property
    def floors(self) -> tuple[int, int]:
        """The least rank each player's current hand may hold (R20)."""
        return hand_floor(self.history, 0), hand_floor(self.history, 1)

    @property
    def to_move(self) -> int:
        return 1 - self.attacker if self.table else self.attacker

    def check(self) -> None:
        """Reject a state that cannot arise, naming the rule."""
        if self.attacker not in (0, 1):
            raise PositionError(f"attacker must be 0 or 1, got {self.attacker!r}", "R10")
        k0, k1 = self.sizes
        att, dfd = self.sizes[self.attacker], self.sizes[1 - self.attacker]
        if self.table:
            if att + len(self.table) != dfd:
                raise PositionError(
                    f"the attacker holds {att} cards and the table {len(self.table)}: "
                    f"the defender must hold {att + len(self.table)} (R10)",
                    "R10",
                )
            if len(self.table) > dfd - 1:
                raise PositionError("an attack keeps at least one card back", "R11")
        elif k0 != k1:
            raise PositionError(f"hands of {k0} and {k1} cards: in play both hold the same number", "R10")
        if min(k0, k1) < 1 or (not self.table and k0 < 2):
            raise PositionError("the play phase is over: both hold one card (R16)", "R16")
        if max(k0, k1) > MAX_CARDS:
            raise PositionError(
                f"the equilibrium solver takes hands of at most {MAX_CARDS} cards, not {max(k0, k1)}", "R2"
            )
        left = counts(self.rules.deck_cards())
        for r in self.seen + self.table:
            left[r] -= 1
            if left[r] < 0:
                raise PositionError(f"more cards of rank {r} face up than the deck holds", "R1")
        played = hand(c for e in self.history for c in e.cards)
        if not contains(self.seen, played):
            raise PositionError(
                f"the history's cards {format_cards(played)} must all be among the face-up cards "
                f"(seen {format_cards(self.seen)}): all play is public",
                "R15",
            )
        check_history(self.history, self.attacker)
        f0, f1 = self.floors
        pool = self.pool
        for p, f in ((0, f0), (1, f1)):
            if sum(1 for r in pool if r >= f) < self.sizes[p]:
                raise PositionError(
                    f"player {p} must hold {self.sizes[p]} cards of rank >= {f} (its sacrifices, R20), "
                    "but the unseen cards hold fewer",
                    "R20",
                )
        if len(pool) < k0 + k1:
            raise PositionError(f"{len(pool)} unseen cards cannot make hands of {k0} and {k1}", "R6")
        # both hands at once: the higher floor's hand from its cards, the other's from what is left above its own
        if sum(1 for r in pool if r >= min(f0, f1)) < k0 + k1:
            raise PositionError(
                f"players 0 and 1 must hold {k0} and {k1} cards of ranks >= {f0} and >= {f1} (their sacrifices, R20), "
                f"but the unseen cards hold {sum(1 for r in pool if r >= min(f0, f1))} of rank >= {min(f0, f1)}",
                "R20",
            )


def endgame_from_view(view: View, utilities: Sequence[float] | None = None) -> Endgame:
    """The endgame of a play-phase view: its face-up cards, its round's play
    history (from `view.history`), table and attacker.  `utilities` are the
    *viewing player's* worth of (win, draw, loss), default round (1, 0, -1)."""
    if view.phase != PLAY:
        raise PositionError(f"the equilibrium solves play-phase endgames, not the {view.phase} phase", "R10")
    events = list(view.play_history)  # typed events (R20 reads the attacks and answers)
    history = history_from_json(events)
    if view.table and history and history[-1].event == ATTACK:
        history = history[:-1]  # the attack on the table is the table
    k = len(view.hand)
    sizes = [0, 0]
    sizes[view.player] = k
    sizes[1 - view.player] = view.opponent_hand_size
    # seen in a view holds every face-up card but the table
    if view.attacker is None:
        raise PositionError("a play-phase view names its attacker", "R10")
    return Endgame(
        view.rules,
        hand(view.seen),
        history,
        hand(view.table),
        view.attacker,
        (sizes[0], sizes[1]),
        player0_utilities(view.player, utilities or (1.0, 0.0, -1.0)),
    )


def player0_utilities(player: int, utilities: Sequence[float]) -> tuple[float, float, float]:
    """Player 0's (win, draw, loss) from `player`'s: zero-sum, so p1 winning is p0 losing."""
    w, d, l = (float(x) for x in utilities)
    return (w, d, l) if player == 0 else (-l, -d, -w)


def packed(cards: Iterable[int]) -> int:
    """The core's form of a multiset: 4 bits per rank, rank 1 lowest."""
    p = 0
    for r in cards:
        p += 1 << (4 * (r - 1))
    return p


def unpack(p: int) -> Hand:
    return tuple(r for r in range(1, 13) for _ in range((p >> (4 * (r - 1))) & 15))


@dataclass(frozen=True)
class Move:
    """One move of a hand at an information set."""

    action: Action
    probability: float
    """Its probability in the (average) equilibrium strategy."""
    value: float | None = None
    """The hand's expected utility after it, both sides playing the solution
    afterwards (root information sets only)."""
    win: float | None = None
    draw: float | None = None
    loss: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"cards": list(self.action.cards)}
        if self.action.kind == Decision.ANSWER:
            d["beats"] = bool(self.action.beats)
        d["probability"] = self.probability
        if self.value is not None:
            d["value"] = self.value
        for k in ("win", "draw", "loss"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        return d


@dataclass(frozen=True)
class Check:
    """One exploitability measurement during the solve (for cost curves)."""

    iterations: int
    seconds: float
    exploitability: float
    hand_regret: float | None = None
    """The asking hand's regret when it was measured too (`hand_regret_of`: once the exploitability is at the
    target)."""


@dataclass(frozen=True)
class EquilibriumResult:
    """What `solve` found.  Values are player 0's unless a method says otherwise."""

    endgame: Endgame
    value: float
    """Player 0's expected utility of the endgame under the solution, over every deal."""
    exploitability: float
    best_response: tuple[float, float]
    """(b0, b1): each player's best-response value against the other's strategy."""
    iterations: int
    seconds: float
    nodes: int
    sequences: int
    memory_bytes: int
    """Bytes the core holds for the tree, regrets, strategies and scratch while solving."""
    peak_bytes: int
    """The most it held at once: the tree's arrays grow by doubling while it is built."""
    hands: tuple[int, ...]
    """Distinct hands of 1, 2, ... cards the core indexes."""
    curve: tuple[Check, ...]
    stopped: bool
    """True when `stop` or a budget ended the solve before the target."""
    _engine: Any = field(repr=False, compare=False)
    hand_regret: float | None = None
    """The asking hand's own regret (`hand_regret_of`) of the strategy
    returned; None without an asking hand, or when the budget cut the last
    iteration short (the strategy was not measured)."""
    hand_of: tuple[int, tuple[int, ...]] | None = None
    """(player, cards) of the asking hand, or None."""
    measured_at: int = 0
    """The iteration of the last exploitability check; below `iterations`
    when the budget cut a chunk short (the strategy then holds part of the
    iterations after it)."""
    threads: int = 1
    """The threads its traversals ran on."""
    compact: bool = False
    """Whether the tree held its regrets and strategies in 16 bits (`COMPACT_ABOVE`)."""
    hand_checks: int = 0
    """Iterations after which the asking hand's regret was measured by its own walk (`curve` holds the
    exploitability checks)."""
    _lock: Any = field(repr=False, compare=False, default_factory=threading.Lock)
    _reports: dict = field(repr=False, compare=False, default_factory=dict)
    """hand_report's answers by (player, hand): each costs two traversals of the tree."""

    # ------------------------------------------------------------ queries
    def node_after(self, history: Sequence[PlayEvent]) -> int:
        """The public node reached by these events after the endgame's start
        (a table attack at the root is already played)."""
        n, past = self._reach(history)
        if past:
            raise PositionError(f"event {past[0]} is played in place (`keep_lower`): no node follows it", "R16")
        return n

    def _reach(self, history: Sequence[PlayEvent]) -> tuple[int, Sequence[PlayEvent]]:
        """The last node of the tree these events reach, and the events past
        it when it is played in place (`IN_PLACE`: no node follows it)."""
        n = 0
        for i, e in enumerate(history):
            kind, actor, *_rest, first, nchild, _s, _ns = self._engine.node(n)
            if kind in IN_PLACE:
                return n, history[i:]
            if kind == 2 or actor != e.player:
                raise PositionError(f"event {e} does not follow the endgame's public tree", "R14")
            want = packed(e.cards)
            for c in range(first, first + nchild):
                info = self._engine.node(c)
                if info[6] == want and (e.event == ATTACK or bool(info[7]) == bool(e.beats)):
                    n = c
                    break
            else:
                raise PositionError(f"event {e} is not a move any consistent hand can make here", "R20")
        return n, ()

    def strategy(self, player: int, cards: Sequence[int], history: Sequence[PlayEvent] = ()) -> list[Move]:
        """The solution's strategy for `player` holding `cards` at the public
        node after `history` (from the endgame's start): every legal move
        with its probability.  Below a node played in place, the move played
        in place (`in_place_moves`)."""
        n, past = self._reach(history)
        kind, actor, k0, k1, _att, _par, table, *_r, first, nchild, _s, _ns = self._engine.node(n)
        if past:
            # the events since the node played in place: whose move it is, with how many cards, what is attacked
            last = past[-1]
            actor = 1 - last.player if last.event == ATTACK else next_attacker(last.player, last.beats)  # R12 / R13-R14
            k = (k0, k1)[player] - sum(len(e.cards) for e in past if e.player == player)
            attack = hand(last.cards) if last.event == ATTACK else ()
            if player != actor:
                raise PositionError(f"player {player} does not act at this point", "R14")
            self._hand_index(hand(cards), k, player)
            return in_place_moves(hand(cards), attack)
        if kind == 2 or actor != player:
            raise PositionError(f"player {player} does not act at this point", "R14")
        i = self._hand_index(hand(cards), (k0, k1)[player], player)
        if kind in IN_PLACE:
            return in_place_moves(hand(cards), unpack(table) if kind != KIND_LAST_ATTACK else ())
        moves = []
        for c in range(first, first + nchild):
            info = self._engine.node(c)
            for par, _chi, w in self._engine.sequences(c):
                if par == i:
                    moves.append((self._action(kind, info), w))
        total = sum(w for _, w in moves)
        return [Move(a, (w / total) if total > 0 else 1.0 / len(moves)) for a, w in moves]

    def _hand_index(self, cards: Hand, k: int, player: int) -> int:
        if len(cards) != k:
            raise PositionError(f"player {player} holds {k} cards here, not {len(cards)}", "R10")
        try:
            return self._engine.level(k).index(packed(cards))
        except ValueError:
            raise PositionError(f"hand {format_cards(cards)} is not among the unseen cards", "R20") from None

    @staticmethod
    def _action(kind: int, info: tuple) -> Action:
        cards = unpack(info[6])
        return Action(Decision.ATTACK, cards) if kind == 0 else Action(Decision.ANSWER, cards, bool(info[7]))

    def hand_report(self, player: int, cards: Sequence[int]) -> tuple[float, list[Move]]:
        """At the endgame's start, for the player to move holding `cards`:
        the hand's value under the solution (its own utility) and every move
        with probability, value and win/draw/loss chances, most likely first."""
        kind, actor, k0, k1, *_r, first, nchild, _s, _ns = self._engine.node(0)
        if actor != player:
            raise PositionError(f"player {player} does not move first in this endgame", "R14")
        cards = hand(cards)
        if (player, cards) in self._reports:
            value, kept = self._reports[(player, cards)]
            return value, list(kept)
        i = self._hand_index(cards, (k0, k1)[player], player)
        eng = self._engine
        p_hand = eng.marginal(player, packed(cards))
        if p_hand <= 0:
            raise PositionError(f"hand {format_cards(cards)} is impossible here (R20 floor or the unseen cards)", "R20")
        u = self.endgame.utilities
        own = u if player == 0 else (-u[2], -u[1], -u[0])  # the player's worth of (win, draw, loss)
        with self._lock:
            # win and loss chances as the values of indicator games (player 0's order: win, draw, loss);
            # a draw is the rest, and the move's value follows from the three (two walks of the hand's
            # own part of the tree, not four)
            outcome_q = []
            try:
                for ind in ((1, 0, 0), (0, 0, 1)):
                    eng.set_utilities(ind if player == 0 else tuple(-x for x in ind[::-1]))
                    outcome_q.append(eng.hand_profile_values(player, packed(cards))[1])
            except _cfr.Stopped:
                raise EquilibriumStopped("the equilibrium solve was stopped while reporting its moves") from None
            finally:
                eng.set_utilities(u)
        rows: list[tuple[Action, float, float, float, float, float]] = []
        off = 0
        for c in range(first, first + nchild):
            info = eng.node(c)
            seqs = eng.sequences(c)
            for j, (par, _chi, w) in enumerate(seqs):
                if par == i:
                    win, loss = outcome_q[0][off + j] / p_hand, outcome_q[1][off + j] / p_hand
                    draw = 1.0 - win - loss
                    rows.append(
                        (self._action(kind, info), w, own[0] * win + own[1] * draw + own[2] * loss, win, draw, loss)
                    )
            off += len(seqs)
        total = sum(m[1] for m in rows)
        out = [
            Move(a, (w / total) if total > 0 else 1.0 / len(rows), v, win, draw, loss)
            for a, w, v, win, draw, loss in rows
        ]
        out.sort(key=lambda m: (-m.probability, -(m.value or 0.0)))
        self._reports[(player, cards)] = (sum(m.probability * (m.value or 0.0) for m in out), tuple(out))
        return self._reports[(player, cards)][0], out

    def value_for(self, player: int) -> float:
        """The endgame's value for `player`, in its own utility."""
        return self.value if player == 0 else -self.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": "equilibrium",
            "value": self.value,
            "exploitability": self.exploitability,
            "best_response": list(self.best_response),
            "iterations": self.iterations,
            "seconds": self.seconds,
            "nodes": self.nodes,
            "sequences": self.sequences,
            "memory_bytes": self.memory_bytes,
            "peak_bytes": self.peak_bytes,
            "stopped": self.stopped,
            "threads": self.threads,
            "compact": self.compact,
        }


def _engine(endgame: Endgame, core=_cfr, *built: int):
    """The core engine of an endgame, its hand levels only (no tree yet);
    `core`: a build of the core (`tacocat.search.bench.core_build`), `built`: (max_sequences,)
    to build the tree at once."""
    endgame.check()
    f0, f1 = endgame.floors
    return core.Engine(
        counts(endgame.pool),
        endgame.sizes[0],
        endgame.sizes[1],
        endgame.attacker,
        counts(endgame.table),
        f0,
        f1,
        endgame.utilities,
        *built,
    )


def _stopped(what: str, time_ms: float | None, stop: threading.Event | None) -> EquilibriumStopped:
    if time_ms is None or (stop is not None and stop.is_set()):
        return EquilibriumStopped(f"the equilibrium solve was stopped while {what}")
    return EquilibriumStopped(
        f"the equilibrium solve ran out of its time budget ({time_ms:g} ms) while {what}; "
        "give it more time (time_ms, --time) or use the double-dummy method (method exact, "
        "or solve without --equilibrium)"
    )


def estimate(
    endgame: Endgame,
    engine=None,
    enough: float = 0.0,
    keep_lower_answers: bool = False,
    threads: int = 1,
    compact: bool | None = None,
) -> tuple[float, float, int]:
    """(public nodes, sequences, bytes) the endgame's tree is estimated to
    take, before any of it is allocated; `enough`: stop refining once the
    estimate is under this many sequences.  The tree `build` makes with the
    same `keep_lower_answers` (`solve`'s: `keep_lower(endgame)`), `threads`
    and `compact` (None: as `build` chooses, `COMPACT_ABOVE`), or
    `engine`'s own."""
    eng = engine if engine is not None else _engine(endgame)
    if engine is None:
        eng.keep_lower = keep_lower_answers
        eng.set_threads(check_threads(threads))
    nodes, seqs, forced, need = _estimate(eng, enough)
    if engine is None and (compact if compact is not None else need > COMPACT_ABOVE):
        eng.set_compact(True)
        need = _need(eng, nodes, seqs, forced)
    return nodes, seqs, need


def _estimate(eng, enough: float) -> tuple[float, float, float, int]:
    """(public nodes, sequences, forced sequences, bytes) of `eng`'s tree, estimated."""
    nodes, seqs, forced = eng.estimate(ESTIMATE_PROBES, enough=enough)
    return nodes, seqs, forced, _need(eng, nodes, seqs, forced)


def _need(eng, nodes: float, seqs: float, forced: float) -> int:
    """The bytes of a tree of that size in `eng`'s storage (`compact` or float32), its fixed vectors included."""
    free = COMPACT_SEQUENCE_BYTES if getattr(eng, "compact", False) else SEQUENCE_BYTES  # an older core: float32
    return int(nodes * NODE_BYTES + (seqs - forced) * free + forced * FORCED_SEQUENCE_BYTES + eng.stats()["bytes"])


def build(
    endgame: Endgame,
    max_sequences: int = DEFAULT_MAX_SEQUENCES,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    deadline: float = 0.0,
    stop: threading.Event | None = None,
    time_ms: float | None = None,
    keep_lower_answers: bool = False,
    clock: Clock = WALL,
    threads: int = 1,
    compact: bool | None = None,
    core=None,
    sized: Callable[[], None] | None = None,
):
    """The core engine of an endgame (the public tree, every hand; with
    `keep_lower_answers` (and `keep_lower`), the last answers below the
    root played in place, as `solve` does).  Its
    size is estimated first: over `max_bytes`, it is refused
    (`EndgameTooLarge`) before the tree is allocated; the build itself
    stops at the bytes and at `max_sequences` (only the real count is held
    to it: an estimate is a guess within about 20 %).  `deadline` (seconds on
    `clock`, the budget's; 0: none) and `stop` end the estimate and the build
    (`EquilibriumStopped`); both are polled at least every 10 ms.
    `threads`: the traversals' threads (their scratch is in the estimate);
    `compact`: 16-bit entries (None: when the float32 tree is estimated over
    `COMPACT_ABOVE`).  `core`: another build of the core (`tacocat.search.
    bench.core_build`, for benchmarks; one without threads or compact
    storage ignores them).  `sized()` is called once the estimate has
    accepted the tree, before it is built."""
    core = _cfr if core is None else core
    eng = _engine(endgame, core)
    newer = hasattr(eng, "set_threads")  # an older build has neither threads nor compact storage
    if newer:
        eng.set_threads(check_threads(threads))
    if keep_lower_answers and not keep_lower(endgame):
        raise TacocatError("the last answers keep the lowest card only with win >= draw >= loss utilities")
    eng.keep_lower = keep_lower_answers
    eng.limit(deadline, stop.is_set if stop is not None else None, clock.c_id)
    try:
        # a tree far under the caps (a tenth) needs one path below each root move, not the full estimate
        nodes, seqs, forced, need = _estimate(eng, enough=min(max_sequences, max_bytes / SEQUENCE_BYTES) / 10)
    except core.Stopped:
        raise _stopped("estimating the size of the public tree", time_ms, stop) from None
    if newer and (compact if compact is not None else need > COMPACT_ABOVE):
        eng.set_compact(True)
        need = _need(eng, nodes, seqs, forced)
    fixed = eng.stats()["bytes"]
    per_seq = (need - fixed) / max(seqs, 1.0)  # the nodes' and the forced sequences' share included
    hard = int(min(max_sequences, max(0, (max_bytes - fixed)) / per_seq))
    if need > max_bytes:
        room = NARROW_SECONDS if not deadline else min(NARROW_SECONDS, deadline - clock.now())
        narrower = _narrower(endgame, eng, max_bytes, room) if core is _cfr else None
        raise EndgameTooLarge(
            f"the endgame needs about {need / 1e6:.0f} MB ({nodes / 1e6:.2g} M public nodes, {seqs / 1e6:.2g} M "
            f"(node, hand, move) sequences, estimated), over the cap of {max_bytes / 1e6:.0f} MB"
            + (f" ({narrower})" if narrower else "")
            + "; fewer unseen cards or smaller hands are needed (or use the double-dummy method)"
        )
    if sized is not None:
        sized()
    try:
        reserve = int(min(hard, seqs * 1.1))  # the estimate is within a few per cent
        eng.build(hard, reserve, int(reserve * (1.0 - forced / max(seqs, 1.0))))
    except core.Stopped:
        raise _stopped(f"building the public tree (about {seqs / 1e6:.2g} M sequences)", time_ms, stop) from None
    except MemoryError:
        raise EndgameTooLarge(
            f"the endgame has more than {hard} (public node, hand, move) sequences (the cap of "
            f"{min(max_bytes, hard * per_seq + fixed) / 1e6:.0f} MB); fewer unseen cards or smaller hands are needed "
            "(or use the double-dummy method)"
        ) from None
    return eng


NARROW_SECONDS = 3.0
"""At most this many CPU seconds a refusal spends looking for the narrower
hands that would fit (`_narrower`: 0.1-0.3 s an estimate at 6 cards)."""
NARROW_PROBES = 64
"""Random paths of each of its estimates (an eighth of the size estimate's)."""


def _narrower(endgame: Endgame, eng, max_bytes: int, seconds: float) -> str | None:
    """How much narrower the hands must be for a refused endgame to fit:
    the R20 floors (the least rank a hand may hold, from its sacrifices) a
    history would have to set, the lower floor (both, when equal) raised
    one rank at a time until the tree's estimate (`NARROW_PROBES` paths,
    stored as `build` would) is under `max_bytes`; as words for the
    refusal, or None when none fits (the unseen cards cannot make hands
    that narrow) or `seconds` of CPU run out."""
    t0 = time.process_time()
    floors, pool = list(endgame.floors), endgame.pool
    k = endgame.sizes

    def holds(f: list[int]) -> bool:  # the unseen cards still make both hands
        return all(sum(1 for r in pool if r >= f[p]) >= k[p] for p in (0, 1)) and (
            sum(1 for r in pool if r >= min(f)) >= k[0] + k[1]
        )

    while time.process_time() - t0 < seconds:
        low = min(floors)
        for up in ([p for p in (0, 1) if floors[p] == low], [0], [1]):
            raised = [f + (p in up) for p, f in enumerate(floors)]
            if holds(raised):
                floors = raised
                break
        else:
            return None
        trial = _cfr.Engine(
            counts(pool), k[0], k[1], endgame.attacker, counts(endgame.table), floors[0], floors[1], endgame.utilities
        )
        trial.keep_lower = eng.keep_lower
        trial.set_threads(eng.threads)
        nodes, seqs, forced = trial.estimate(NARROW_PROBES)
        if _need(trial, nodes, seqs, forced) > COMPACT_ABOVE:
            trial.set_compact(True)
        need = _need(trial, nodes, seqs, forced)
        if need <= max_bytes:
            return (
                f"a history whose sacrifices (R20) left player 0 no card below {floors[0]} and player 1 none "
                f"below {floors[1]} would fit: about {need / 1e6:.0f} MB"
            )
    return None


FIRST_ITERATION_GUESS = 10.0
"""A budgeted solve starts iterating only if this many times its estimate
and build's seconds are left: the first iteration, its check and the answer
(two to four traversals more) take 8-9 times the build on 4- and 5-card
trees (an iteration ~3x, a best response ~3x, a player's values ~2x)."""
FIRST_CHECK = 5
"""The first exploitability check (the uniform profile is not measured):
with the core's predictive DCFR (gamma 8, alpha 1.5) half the 3-card benchmark
endgames are at 1e-3 after 5 iterations, the 4-card ones after 6-9; each
check costs about an iteration (the best response traverses the whole
tree)."""
CONVERGENCE_SLOPE = 4.0
"""log(exploitability) falls about this fast in log(iterations) around 1e-3
(the 3-card curves, iterations 5-8: 3.9-4.8); the guess before two checks
have shown the slope."""


def next_check_after(curve: Sequence[Check], target: float) -> int:
    """The iteration of the next exploitability check: where the power law
    through the last two checks (or `CONVERGENCE_SLOPE` from the last one)
    reaches `target`, at least one and at most max(4, t/2) iterations on.
    A check costs about an iteration, so aiming at the crossing saves both
    the checks of a fixed schedule and the iterations it overshoots by.
    Once the exploitability is at the target only the asking hand's regret
    can be left, and it is measured after every iteration (`_Iterations`:
    its walk costs a few per cent of one): the next iteration."""
    t, e = curve[-1].iterations, curve[-1].exploitability
    if e <= target:
        return t + 1
    slope = CONVERGENCE_SLOPE
    if len(curve) >= 2 and curve[-2].iterations > 0:
        t0, e0 = curve[-2].iterations, curve[-2].exploitability
        if e0 > e > 0:
            slope = math.log(e0 / e) / math.log(t / t0)
        else:
            return t + max(4, t // 4)  # no progress measured: the fixed stride
    if slope <= 0 or e <= 0 or t <= 0 or target <= 0:
        return t + max(4, t // 4)
    return _crossing(t, e, slope, target)


def _crossing(t: int, e: float, slope: float, target: float) -> int:
    """Where a curve at e after t iterations, falling as t^-slope, reaches
    `target`: at least t + 1, at most t + max(4, t/2)."""
    most = t + max(4, t // 2)
    if slope <= 0 or e <= target or target <= 0:
        return most if slope <= 0 else t + 1
    # in logs: a nearly flat stretch of the curve (slope near 0) puts the
    # crossing beyond any float, and it is capped at `most` anyway
    log_cross = math.log(t) + math.log(e / target) / slope
    if log_cross >= math.log(most):
        return most
    return int(max(t + 1, math.ceil(math.exp(log_cross))))


def exploitability_of(engine) -> tuple[float, tuple[float, float]]:
    """(exploitability, (b0, b1)) of the engine's average profile."""
    b0, b1 = engine.best_response()
    return (b0 + b1) / 2.0, (b0, b1)


def hand_regret_of(engine, player: int, cards: Sequence[int]) -> float:
    """What `player` holding `cards` at the root gains, on average over the
    deals where it holds them, by a best response (every later move of
    that hand included) instead of the average profile, in its own
    utility.  One walk of the public nodes that hand can reach
    (`Engine.hand_values`: a few per cent of a best response's cost, and
    the same numbers)."""
    p = packed(cards)
    chance = engine.marginal(player, p)
    if chance <= 0:
        raise PositionError(
            f"hand {format_cards(hand(cards))} is impossible here (R20 floor or the unseen cards)", "R20"
        )
    if hasattr(engine, "hand_values"):
        br, avg = engine.hand_values(player, p)
    else:  # an older core's build (`solve(core=)`, results' `--old`): the last best response, the profile valued
        br = engine.root_value(player, 1, p)
        engine.values(player)
        avg = engine.root_value(player, 2, p)
    return max(0.0, (br - avg) / chance)


def solve(
    endgame: Endgame | View,
    *,
    target: float = DEFAULT_TARGET,
    iterations: int | None = None,
    time_ms: float | None = None,
    stop: threading.Event | None = None,
    progress: Callable[[float], None] | None = None,
    max_sequences: int = DEFAULT_MAX_SEQUENCES,
    max_bytes: int | None = None,
    utilities: Sequence[float] | None = None,
    info: Callable[[dict[str, Any]], None] | None = None,
    hand_of: tuple[int, Sequence[int]] | None = None,
    clock: Clock = WALL,
    threads: int = 1,
    compact: bool | None = None,
    core=None,
) -> EquilibriumResult:
    """Solve an endgame (or a play-phase view's endgame) to `target`
    exploitability, or until `iterations`, `time_ms` or `stop` ends it,
    whichever comes first.  `max_bytes`: default `DEFAULT_MAX_BYTES`, or
    the cap of the server's `SolveSlots.slot()` this runs in.  With `hand_of` = (player, cards) (a view's own
    hand by default) it also goes on until that hand's own regret
    (`hand_regret_of`) is at most `target`.

    Bounded: the tree's size is estimated first and refused over
    `max_bytes`, the build beyond it or `max_sequences` (`EndgameTooLarge`); the time budget and
    `stop` are polled at least every 10 ms while estimating, building and
    iterating.  Iterations are planned to leave time for the answer; one
    cut short keeps the exploitability last measured (`measured_at`).
    Stopped before a strategy exists: `EquilibriumStopped`.  Other
    `TacocatError`s for bad input.  `info`, if given, hears how it goes:
    once the estimate accepts the tree {"stage": "sized"}, once the tree
    is built {"stage": "built", "nodes", "sequences",
    "bytes", "seconds"}, then after every exploitability check {"stage":
    "iterating", "iterations", "exploitability", "seconds"}, and after
    every check of the asking hand's regret alone {"stage": "hand",
    "iterations", "hand_regret", "seconds"} (a front door
    shows it; the build of a large endgame takes much of the time).

    `threads`: each traversal's work is shared out over this many threads
    (the root's subtrees, `_cfr.Engine.set_threads`); the answer is the
    same, bit for bit, on any number.  A budget on a CPU clock (a match's)
    counts the calling thread's time only: give such a solve one thread.
    `compact`: the tree's regrets and strategies in 16 bits (None: when its
    float32 form would take over `COMPACT_ABOVE` bytes; `build`).  `core`:
    another build of the core, for benchmarks (`build`)."""
    endgame, hand_of = _solve_inputs(endgame, target, iterations, time_ms, utilities, hand_of)
    threads = check_threads(threads)
    if max_bytes is None:
        max_bytes = _max_bytes.get()
    t0 = time.perf_counter()
    # `time_ms` is counted on `clock` (a match's CPU clock, a person's wall clock)
    m0 = clock.now()
    deadline = m0 + time_ms / 1000.0 if time_ms is not None else 0.0
    eng = build(
        endgame,
        max_sequences,
        max_bytes=max_bytes,
        deadline=deadline,
        stop=stop,
        time_ms=time_ms,
        keep_lower_answers=keep_lower(endgame),
        clock=clock,
        threads=threads,
        compact=compact,
        core=core,
        sized=None if info is None else lambda: info({"stage": "sized"}),
    )
    built_s = clock.now() - m0
    if hand_of is not None:
        _check_hand(eng, endgame, *hand_of)
    if info is not None:
        built = eng.stats()
        info(
            {
                "stage": "built",
                "nodes": built["nodes"],
                "sequences": built["sequences"],
                "bytes": built["bytes"],
                "seconds": time.perf_counter() - t0,
            }
        )
    run = _Iterations(eng, endgame, target, hand_of, t0, (_cfr if core is None else core).Stopped)
    run.iterate(iterations, deadline, built_s, clock, stop, info, progress)
    return run.answer(time_ms, stop)


def _solve_inputs(
    endgame: Endgame | View,
    target: float,
    iterations: int | None,
    time_ms: float | None,
    utilities: Sequence[float] | None,
    hand_of: tuple[int, Sequence[int]] | None,
) -> tuple[Endgame, tuple[int, Sequence[int]] | None]:
    """`solve`'s endgame (a view's, its own hand asking by default) and asking hand, the budgets checked."""
    if isinstance(endgame, View):
        if hand_of is None:
            hand_of = (endgame.player, tuple(endgame.hand))
        endgame = endgame_from_view(endgame, utilities)
    if not isinstance(endgame, Endgame):
        raise TacocatError(f"solve needs an Endgame or a View, got {type(endgame).__name__}")
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not target >= 0:
        raise TacocatError(f"target exploitability must be a number >= 0, got {target!r}")
    if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1):
        raise TacocatError(f"iterations must be a positive integer, got {iterations!r}")
    if time_ms is not None and (isinstance(time_ms, bool) or not isinstance(time_ms, (int, float)) or not time_ms > 0):
        raise TacocatError(f"time_ms must be a positive number, got {time_ms!r}")
    return endgame, hand_of


class _Iterations:
    """`solve`'s CFR iterations on a built engine, chunk by chunk between
    checks, and its answer.  Without an asking hand the checks are of the
    exploitability (`next_check_after`).  With one, the hand's own regret
    is measured after every iteration (`hand_regret_of`: a few per cent of
    an iteration) while it is above the target, which it is long after the
    exploitability is (a hand's regret is a conditional one), and the
    exploitability is measured once the hand's regret is at the target (on
    its own schedule from there if it is not at the target yet).  Under a
    deadline the exploitability is also measured after `FIRST_CHECK`
    iterations, and whenever one more iteration and its measurement would
    not fit, so that an answer cut short says what its strategy is worth."""

    def __init__(
        self, eng, endgame: Endgame, target: float, hand_of, t0: float, stopped_by: type[BaseException]
    ) -> None:
        self.eng, self.endgame, self.target, self.hand_of, self.t0 = eng, endgame, target, hand_of, t0
        self.stopped_by = stopped_by
        self.curve: list[Check] = []
        self.stopped = False
        self.expl: float | None = None
        self.br: tuple[float, float] = (math.nan, math.nan)
        self.hreg: float | None = None
        self.hreg_at = -1
        """The iteration `hreg` was measured at."""
        self.t_iter = self.t_measure = 0.0
        self.fresh = False
        """Whether the profile is the one last measured (its exploitability)."""
        self.measured_at = 0
        self.cheap_hand = hand_of is not None and hasattr(eng, "hand_values")
        """The hand's regret by its own walk (an older core's `--old` build measures it by a best response)."""
        self.next_check = 1 if self.cheap_hand else FIRST_CHECK
        self.hand_checks = 0
        """Iterations after which the asking hand's regret was measured by its own walk."""

    def done(self) -> bool:
        """At the target on the profile held: the exploitability, and the asking hand's regret."""
        return (
            self.fresh
            and self.expl is not None
            and self.expl <= self.target
            and (self.hand_of is None or (self.hreg is not None and self.hreg <= self.target))
        )

    def hand_first(self) -> bool:
        """An asking hand whose regret, measured cheaply, is not at the target yet."""
        return self.cheap_hand and (self.hreg is None or self.hreg > self.target)

    def measure_hand(self) -> float:
        h = self.hand_of
        self.hreg = hand_regret_of(self.eng, h[0], h[1])
        self.hreg_at = self.eng.iterations
        return self.hreg

    def measure(self) -> float:
        """The profile's exploitability, and the asking hand's regret (unless just measured)."""
        e, self.br = exploitability_of(self.eng)
        self.expl = e
        if self.hand_of is not None and self.hreg_at != self.eng.iterations:
            if self.cheap_hand or e <= self.target:  # an older core: after a best response, once at the target
                self.measure_hand()
        return e

    def chunk(self, iterations: int | None, deadline: float, built_s: float, clock: Clock) -> int:
        """The iterations to run before the next check; 0: the budget ends the solve here."""
        eng = self.eng
        n = self.next_check - eng.iterations
        if iterations is not None:
            n = min(n, iterations - eng.iterations)
        if deadline and self.expl is None:
            # nothing measured yet: one iteration, then its check (the core stops either at the deadline), if
            # the guess from the build leaves room for them and the answer; else the budget is said at once
            # rather than overrun by an answer after the deadline (a server stops the solve soon after it)
            return 0 if clock.now() + FIRST_ITERATION_GUESS * built_s > deadline else 1
        if deadline:
            # leave room for the check after the chunk and for the answer (about one more check)
            room = deadline - clock.now() - 2 * self.t_measure
            n = min(n, int(room / max(self.t_iter, 1e-9)))
            return max(n, 0)
        return max(n, 1)

    def _measure_now(self, deadline: float, clock: Clock, last: bool) -> bool:
        """Whether this iteration's check is of the exploitability (not the asking hand's regret alone);
        `last`: the iteration budget ends here."""
        if last or not self.hand_first():
            return True
        if deadline:
            if self.expl is None and self.eng.iterations >= FIRST_CHECK:
                return True
            # the measurement's cost before any: about an iteration's (a best response walks the whole tree)
            t_measure = self.t_measure or 1.2 * self.t_iter
            return clock.now() + self.t_iter + 2 * t_measure > deadline
        return False

    def step(self, n: int, clock: Clock, deadline: float = 0.0, last: bool = False) -> bool:
        """n iterations and a check; False when the budget or `stop` cut them short.  `last`: the
        iteration budget ends after them."""
        tr = clock.now()
        try:
            self.fresh = False  # the profile is no longer the one measured
            self.eng.run(max(n, 1))
            self.t_iter = (clock.now() - tr) / max(n, 1)
            if self.hand_first():
                self.measure_hand()
                self.hand_checks += 1
                if not self._measure_now(deadline, clock, last):
                    self.next_check = self.eng.iterations + 1
                    return True
            tm = clock.now()
            expl = self.measure()
            self.t_measure = clock.now() - tm
            self.fresh = True
        except self.stopped_by:
            return False
        self.measured_at = self.eng.iterations
        self.curve.append(Check(self.eng.iterations, time.perf_counter() - self.t0, expl, self.hreg))
        self.next_check = self.eng.iterations + 1 if self.hand_first() else next_check_after(self.curve, self.target)
        return True

    def iterate(
        self,
        iterations: int | None,
        deadline: float,
        built_s: float,
        clock: Clock,
        stop: threading.Event | None,
        info: Callable[[dict[str, Any]], None] | None,
        progress: Callable[[float], None] | None,
    ) -> None:
        """Iterate to the target, or until `iterations`, the deadline or `stop` (`stopped`)."""
        # No check of the uniform profile: it is far from any target (a check costs about an iteration), and
        # progress starts from the exploitability's bound, half the utility range (b0 <= max u, b1 <= -min u)
        first = (max(self.endgame.utilities) - min(self.endgame.utilities)) / 2.0
        while not self.done():
            if (iterations is not None and self.eng.iterations >= iterations) or (stop is not None and stop.is_set()):
                self.stopped = True
                return
            n = self.chunk(iterations, deadline, built_s, clock)
            checks = len(self.curve)
            last = iterations is not None and self.eng.iterations + n >= iterations
            if n < 1 or not self.step(n, clock, deadline, last):
                self.stopped = True
                return
            if len(self.curve) == checks:
                # the asking hand's regret alone was measured
                if info is not None:
                    info(
                        {
                            "stage": "hand",
                            "iterations": self.eng.iterations,
                            "hand_regret": self.hreg,
                            "seconds": time.perf_counter() - self.t0,
                        }
                    )
                continue
            expl = self.curve[-1].exploitability
            if info is not None:
                info(
                    {
                        "stage": "iterating",
                        "iterations": self.eng.iterations,
                        "exploitability": expl,
                        "seconds": self.curve[-1].seconds,
                    }
                )
            if progress is not None and first > 0 and expl > 0:
                progress(min(1.0, max(0.0, math.log(first / expl) / math.log(first / max(self.target, 1e-12)))))

    def answer(self, time_ms: float | None, stop: threading.Event | None) -> EquilibriumResult:
        """The result: the profile's value (and the asking hand's regret if the last chunk was measured)."""
        eng, hand_of = self.eng, self.hand_of
        if self.expl is None:
            raise _stopped("running and measuring the first iteration", time_ms, stop)
        # the answer: no deadline (the iterations left it room), `stop` still ends it
        eng.limit(0.0, stop.is_set if stop is not None else None)
        try:
            if hand_of is not None and self.hreg_at != eng.iterations:
                # the answer's hand regret is its strategy's: measured here unless the budget cut the last
                # iteration short (then no number is honest for it)
                self.hreg = hand_regret_of(eng, hand_of[0], hand_of[1]) if self.fresh else None
            v, _ = eng.values(0)
        except self.stopped_by:
            raise _stopped("evaluating the strategy found", time_ms, stop) from None
        st = eng.stats()
        return EquilibriumResult(
            self.endgame,
            v,
            self.expl,
            self.br,
            eng.iterations,
            time.perf_counter() - self.t0,
            st["nodes"],
            st["sequences"],
            st["bytes"],
            st["peak_bytes"],
            tuple(st["hands"]),
            tuple(self.curve),
            self.stopped,
            eng,
            hand_regret=self.hreg,
            hand_of=(hand_of[0], hand(hand_of[1])) if hand_of is not None else None,
            measured_at=self.measured_at,
            threads=st.get("threads", 1),
            compact=bool(getattr(eng, "compact", False)),
            hand_checks=self.hand_checks,
        )


def _keep_lowest(cards: Hand, attack: Hand) -> Action:
    """The last answer the solution plays (`keep_lower`): of the legal
    answers (R12, `tacocat.rules.play`), the one that keeps the lowest card."""

    def kept(played: Hand) -> int:
        rest = list(cards)
        for c in played:
            rest.remove(c)
        return min(rest)

    played, beats = min(play_answers(attack, cards), key=lambda a: (kept(a[0]), not a[1]))
    return Action(Decision.ANSWER, played, beats)


def answer_three(cards: Hand, attack: Hand) -> Action:
    """The answer `solve` plays in place to a one-card attack from three
    cards u <= v <= w (`keep_lower`): beat with v if v beats, else with w
    if w beats, else sacrifice u (R12).  Both then hold two cards, and the
    rest is played in place: the attacker attacks with its higher card and
    the answer keeps the lowest card.  A beat leaves the defender u (its
    lowest card) to keep and the other card to attack with; v keeps u and
    attacks with w, the highest attack any beat leaves, and against a
    higher attack the opponent keeps the same card or a higher one.  A
    sacrifice leaves v or w to keep against the attacker's lower card:
    never better than u against its lower card or a higher one.  So it is
    weakly best for every pair of hands."""
    (u, v, w), (y,) = sorted(cards), attack
    if v >= y:
        return Action(Decision.ANSWER, (v,), True)
    if w >= y:
        return Action(Decision.ANSWER, (w,), True)
    return Action(Decision.ANSWER, (u,), False)


def in_place_moves(cards: Hand, attack: Hand) -> list[Move]:
    """Every legal move (R10-R12) at a decision played in place
    (`keep_lower`), the one played with probability 1: with two cards each
    and nothing on the table, the attack with the higher card; a one-card
    attack answered from three cards, `answer_three`; a last answer, the one
    that keeps the lowest card (`_keep_lowest`)."""
    if not attack:
        return [Move(Action(Decision.ATTACK, (c,)), 1.0 if c == max(cards) else 0.0) for c in sorted(set(cards))]
    best = answer_three(cards, attack) if len(cards) == 3 and len(attack) == 1 else _keep_lowest(cards, attack)
    return [
        Move(Action(Decision.ANSWER, played, beats), 1.0 if (played, beats) == (best.cards, best.beats) else 0.0)
        for played, beats in play_answers(attack, cards)
    ]


def _check_hand(eng, endgame: Endgame, player: int, cards: Sequence[int]) -> None:
    cards = hand(cards)
    if player not in (0, 1):
        raise PositionError(f"player must be 0 or 1, got {player!r}", "R14")
    if len(cards) != endgame.sizes[player]:
        raise PositionError(f"player {player} holds {endgame.sizes[player]} cards here, not {len(cards)}", "R10")
    if eng.marginal(player, packed(cards)) <= 0:
        raise PositionError(f"hand {format_cards(cards)} is impossible here (R20 floor or the unseen cards)", "R20")


def report(result: EquilibriumResult, player: int, cards: Sequence[int], utilities: Sequence[float]) -> dict[str, Any]:
    """The answer for the player to move holding `cards` (the shape of
    `tacocat solve --equilibrium --json` and the protocol's equilibrium solve)."""
    hand_value, moves = result.hand_report(player, cards)
    return {
        "method": "equilibrium",
        "method_words": METHOD_WORDS["equilibrium"],
        "player": player,
        "value": result.value_for(player),
        "hand_value": hand_value,
        "exploitability": result.exploitability,
        "hand_regret": (
            result.hand_regret
            if result.hand_of is not None and result.hand_of[0] == player and tuple(result.hand_of[1]) == hand(cards)
            else None
        ),
        "iterations": result.iterations,
        "seconds": result.seconds,
        "stopped": result.stopped,
        "nodes": result.nodes,
        "sequences": result.sequences,
        "memory_bytes": result.memory_bytes,
        "peak_bytes": result.peak_bytes,
        "threads": result.threads,
        "compact": result.compact,
        "utilities": list(utilities),
        "moves": [m.to_dict() for m in moves],
    }


AUTO_MIN_MS = 1000
"""...and no time budget, or one of at least this many milliseconds (3-card
endgames from real games reach 1e-3 in at most 0.3 s, results/exploitability.md)."""


AUTO_ESTIMATE_CARDS = 5
"""`hint(method="auto")` also solves the equilibrium of an endgame of up to
this many cards a hand (above `AUTO_CARDS`) when its size estimate says the
solve ends within the time budget (`auto_estimate`)..."""
AUTO_ESTIMATE_MIN_MS = 5000
"""...given a budget of at least this many milliseconds (a bot's second per
move never pays for the estimate: a 4-card solve takes about a second, a
5-card one tens)."""
SOLVE_SECONDS_PER_SEQUENCE = 3.0e-6
"""A solve's CPU seconds per sequence of its tree, estimate and build
included, to exploitability 1e-3 and the asking hand's regret 1e-3 (the
threads' CPU summed).  Since the answers from three cards are played in
place (`answer_three`) a sequence carries more of the leaves' work: 1.6-3.5
us on five 5-card solves (#2, #9, #10, #67 of results/equilibrium_five.py
and issue 36's command: 58 s for 21 M), median 1.8; before, 1.25 us (the
published 5-card run: a median 110 CPU s for a median 88 M sequences)."""
AUTO_MARGIN = 1.5
"""The prediction times this must fit what is left of the budget (the
estimate is within about 15 % of the tree; the iterations a solve needs vary)."""
_auto_guesses: dict = {}
_auto_lock = threading.Lock()


def auto_estimate(view: View, time_ms: float) -> dict[str, Any]:
    """How long `hint(method="auto")` expects the equilibrium of `view`'s
    endgame to take, from its size estimate (`ESTIMATE_PROBES` paths: 0.1-0.4
    CPU s at 5 cards) and
    `SOLVE_SECONDS_PER_SEQUENCE`: {"sequences", "bytes", "seconds",
    "estimate_seconds", "budget_ms", "fits"}.  Fits: within the bytes cap
    (in a server, its `SolveSlots`' cap even outside a slot) and, with `AUTO_MARGIN`, within
    what the budget leaves after the estimate.  One that fits is kept for
    the answer of the hint that asked (`hint_moves` says why the
    equilibrium was chosen)."""
    t0 = time.perf_counter()
    eg = endgame_from_view(view)
    eng = _engine(eg)
    eng.keep_lower = keep_lower(eg)
    nodes, seqs, forced = eng.estimate(ESTIMATE_PROBES)
    if nodes * NODE_BYTES + seqs * SEQUENCE_BYTES > COMPACT_ABOVE:
        eng.set_compact(True)
    need = _need(eng, nodes, seqs, forced)
    spent = time.perf_counter() - t0
    seconds = seqs * SOLVE_SECONDS_PER_SEQUENCE
    guess = {
        "sequences": int(seqs),
        "bytes": need,
        "seconds": seconds,
        "estimate_seconds": spent,
        "budget_ms": time_ms,
        "fits": need <= min([_max_bytes.get(), *_serving_cap]) and AUTO_MARGIN * seconds <= time_ms / 1000.0 - spent,
    }
    if guess["fits"]:  # the equilibrium runs next, for this hand: its answer reads the guess
        with _auto_lock:
            if len(_auto_guesses) > 64:
                _auto_guesses.clear()
            _auto_guesses[(_public(eg), view.player, tuple(view.hand))] = guess
    return guess


def _public(eg: Endgame) -> Endgame:
    """An endgame's public state alone (its utilities set aside): the key of `auto_estimate`'s guesses."""
    return Endgame(eg.rules, eg.seen, eg.history, eg.table, eg.attacker, eg.sizes)


def small_enough(view: View, time_ms: float | None = None, cards: int | None = None) -> bool:
    """Whether `hint(method="auto")` should use the equilibrium: a play-phase
    decision with both hands of at most `cards` (default `AUTO_CARDS`)
    cards, and a time budget (if any) that leaves room to reach the target;
    by default also an endgame of up to `AUTO_ESTIMATE_CARDS` cards a hand
    whose solve `auto_estimate` expects to end within a budget of at least
    `AUTO_ESTIMATE_MIN_MS`."""
    limit = AUTO_CARDS if cards is None else cards
    if view.phase != PLAY:
        return False
    most = max(len(view.hand), view.opponent_hand_size)
    if most <= limit:
        return time_ms is None or time_ms >= AUTO_MIN_MS
    if cards is not None or most > AUTO_ESTIMATE_CARDS or time_ms is None or time_ms < AUTO_ESTIMATE_MIN_MS:
        return False
    try:
        return bool(auto_estimate(view, time_ms)["fits"])
    except TacocatError:
        return False  # no endgame the equilibrium solves: the other methods say why


def purified(moves: Sequence[Move], below: float = PURIFY_BELOW) -> list[Move]:
    """The moves with every probability under `below` shown as 0 and the
    rest renormalised (human output; `PURIFY_BELOW`).  The likeliest move
    is always kept."""
    keep = [m.probability >= below or j == 0 for j, m in enumerate(moves)]
    total = sum(m.probability for m, k in zip(moves, keep) if k)
    return [
        Move(m.action, (m.probability / total) if k else 0.0, m.value, m.win, m.draw, m.loss)
        for m, k in zip(moves, keep)
    ]


@dataclass(frozen=True)
class EquilibriumHint:
    """What a hint's equilibrium solve found, beside its moves
    (`tacocat.search.hint.HintResult.equilibrium`)."""

    method_words: str
    """What ran, in a player's words (and why, when method auto chose it)."""
    hand_value: float
    """My hand's value under the equilibrium."""
    endgame_value: float
    """The endgame's value for me over the hands the history allows (R20)."""
    exploitability: float
    hand_regret: float | None
    """What my hand alone could still gain by a best response."""
    cfr_iterations: int
    strategy: tuple[Move, ...]
    """My hand's moves with their equilibrium probabilities, likeliest first."""
    threads: int
    compact: bool
    """Regrets and strategy sums kept in 16 bits (`docs/equilibrium.md`)."""
    auto_estimate: dict[str, Any] | None = None
    """Method auto: the estimate it chose the equilibrium by (`small_enough`)."""

    def to_dict(self) -> dict[str, Any]:
        """The answer's equilibrium fields."""
        d: dict[str, Any] = {
            "method_words": self.method_words,
            "hand_value": self.hand_value,
            "endgame_value": self.endgame_value,
            "exploitability": self.exploitability,
            "hand_regret": self.hand_regret,
            "cfr_iterations": self.cfr_iterations,
            "strategy": [{"kind": m.action.kind, **m.to_dict()} for m in self.strategy],
            "threads": self.threads,
            "compact": self.compact,
        }
        if self.auto_estimate is not None:
            d["auto_estimate"] = self.auto_estimate
        return d


def hint_moves(view: View, utilities: Sequence[float], budget):
    """For `tacocat.search.hint`: (a `PlayResult` whose moves come likeliest
    under the equilibrium first, what the solve found: `EquilibriumHint`).
    `budget` is a `tacocat.search.budget.Budget`: its samples are CFR
    iterations, its time and stop end the solve."""
    from tacocat.search.results import MoveEval, PlayResult

    r = solve(
        view,
        utilities=utilities,
        iterations=budget.samples,
        time_ms=budget.time_ms,
        stop=budget.stop,
        progress=budget.progress,
        clock=budget.clock,
    )
    hand_value, moves = r.hand_report(view.player, view.hand)
    with _auto_lock:
        guess = _auto_guesses.pop((_public(r.endgame), view.player, tuple(view.hand)), None)
    # hand_report fills every outcome of a root move
    evals = tuple(MoveEval(m.action, m.win or 0.0, m.draw or 0.0, m.loss or 0.0, m.value or 0.0) for m in moves)
    words = METHOD_WORDS["equilibrium"]
    if guess is not None:  # method auto chose the equilibrium by its estimate (`small_enough`): it says so
        words = (
            f"{words}; chosen by method auto: a {max(r.endgame.sizes)}-card endgame "
            f"estimated at {guess['sequences'] / 1e6:.3g} M sequences, {guess['bytes'] / 1e6:.0f} MB and about "
            f"{guess['seconds']:.2g} s, within the {guess['budget_ms'] / 1000:g} s budget"
        )
    found = EquilibriumHint(
        words,
        hand_value,
        r.value_for(view.player),
        r.exploitability,
        r.hand_regret,
        r.iterations,
        tuple(moves),
        r.threads,
        r.compact,
        guess,
    )
    return PlayResult(moves=evals, worlds=0, exact=False, seconds=r.seconds, stopped=r.stopped), found
