"""One whole round — deal (R6), replace (R7/R8), duel (R9), play (R10-R16),
showdown (R17) — as an explicit two-player zero-sum extensive-form game
(issue 24, deliverable 3).

The tree is built from the package's own rules: every decision's legal
actions come from `tacocat.rules.actions.legal_actions_of` (what `GameState` and
`View` list), and every rule decision calls the function of `tacocat.rules`
that states it, as `GameState` does: who acts (`replacers`, `choosers`,
`player_to_play`), the duel (`duel_attacker`, `goes_to_showdown`), who
attacks next (`next_attacker`), the end of play (`play_ends`) and the
round's winner with R17's tie (`round_winner`).  Only the state is its own:
kept compactly (hands, the draw pile's counts, the public history), because
the tree has hundreds of thousands of nodes and a step on it (legal actions,
who acts, apply) costs 4 us where a `GameState` step (its checked `apply`
on a clone, which copies lists, not events) costs 31-33 us (h3-r2 and
h3-r3-p0, 1,800 steps of random paths, same run at 3265bfc, load 2.6).  `tests/test_round_game.py`
walks random paths of the tree through a real `GameState` and checks that
both list the same actions, the same public history and the same result, and
`state_of(path)` rebuilds the real `GameState` of any node (the bots are
asked on its `View`).

Chance.  The deal is one chance node whose outcomes are the pairs of dealt
hands (H0, H1), each with its probability under the shuffle (the number of
card subsets that form it, RULES §5).  Draws after a replacement are chance
nodes too: on a two-arrow space (R8) one node after both secret discards,
over the pairs (S0, S1) of drawn multisets (player 0 draws first from the
pile, as `GameState` does; by the shuffle's symmetry S0 is a uniform subset
of the pile and S1 a uniform subset of the rest); on a one-arrow space (R7)
one node after each replacement.  A node with nothing to draw keeps a
one-outcome chance node, so that every node of an information set sits at
the same depth (the best response works level by level).

Simultaneous decisions (R8 replace, R9 duel): player 0 chooses first and
player 1 chooses without seeing it (its information set leaves the pending
choice out), exactly as `play_game` asks them and as OpenSpiel's
`tacocat_turn` plays them.

Information sets (perfect recall): a player's key is (player, the hand it
was dealt, the cards it drew, the round's public history).  Its hand now,
its own earlier choices and everything face up follow from that; the
opponent's hand, the draw pile and the opponent's draws are never in it.
(A `View` is coarser — it forgets which of the cards in hand were drawn —
and a bot's choice is a function of the View, so it is well defined on
these keys.)

Utility: player 0's result of the round, `round_utilities(kind="round")`
= (+1 won, 0 drawn, -1 lost); zero-sum.  A drawn round (R17, tie rule
`redeal`) scores 0: the redeal is the next round, not this one.  Under the
`arrow` tie rule a drawn round on a one-arrow space is won by the arrow's
player (`round_winner`, as `GameState._showdown` reads it)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from typing import Any, Iterator, Sequence

import numpy as np

from tacocat.errors import TacocatError
from tacocat.rules.actions import Action, decision_of, legal_actions_of
from tacocat.rules.board import Board
from tacocat.rules.cards import Hand, hand, remove
from tacocat.rules.events import Decision, DuelEvent, EventKind, PlayEvent, ReplaceEvent
from tacocat.rules.events import Event as GameEvent
from tacocat.rules.game import DUEL, PLAY, REPLACE, GameState, choosers, replacers
from tacocat.rules.play import duel_attacker, goes_to_showdown, next_attacker, play_ends, player_to_play, round_winner
from tacocat.rules.ruleset import CENTRE, Arrow, Ruleset
from tacocat.rules.views import View
from tacocat.search.gamevalue import round_utilities

CHANCE, TERMINAL = -1, 2
"""Node kinds besides the players 0 and 1."""
DRAWS = "draw"
"""The phase of a state whose replacers draw next (a chance node), and a path's step of their draws."""
DEFAULT_MAX_NODES = 3_000_000
"""A tree larger than this is refused before it fills the memory."""

Event = tuple
"""A public event as a tuple led by its `EventKind` (a `str`): (REPLACE, p,
cards), (DUEL, c0, c1), (ATTACK, p, cards), (ANSWER, p, cards, beats)."""


def _multisets(counts: tuple[int, ...], size: int) -> list[tuple[Hand, float]]:
    """Every multiset of `size` cards from a pile given as counts (index
    r-1 for rank r), with its probability under a uniform draw of `size`
    card subsets (the number of card subsets that form it / all subsets)."""
    total = sum(counts)
    if size > total:
        return []
    out: list[tuple[Hand, float]] = []
    ranks = [r for r in range(12) if counts[r]]

    def rec(i: int, left: int, picked: list[int], ways: int) -> None:
        if i == len(ranks):
            if left == 0:
                out.append((tuple(picked), ways))
            return
        r = ranks[i]
        for k in range(min(counts[r], left) + 1):
            rec(i + 1, left - k, picked + [r + 1] * k, ways * comb(counts[r], k))

    rec(0, size, [], 1)
    denom = comb(total, size)
    return [(h, w / denom) for h, w in out]


def _take(counts: tuple[int, ...], cards: Hand) -> tuple[int, ...]:
    c = list(counts)
    for r in cards:
        c[r - 1] -= 1
        if c[r - 1] < 0:
            raise TacocatError(f"internal: card {r} is not in the pile", "R1")
    return tuple(c)


def draw_outcomes(pile: tuple[int, ...], sizes: Sequence[int]) -> list[tuple[tuple[Hand, ...], float, tuple[int, ...]]]:
    """Every way to draw `sizes` cards in turn from a pile given as counts
    (R7-R8: each replacer draws as many as it discarded, in GameState's
    order): (the multisets drawn, their probability under the shuffle, the
    pile left), in one fixed order."""
    out: list[tuple[tuple[Hand, ...], float, tuple[int, ...]]] = [((), 1.0, pile)]
    for k in sizes:
        out = [(got + (m,), p * q, _take(left, m)) for got, p, left in out for m, q in _multisets(left, k)]
    return out


def add_iset(tree: Any, key: tuple, player: int, actions: tuple[Action, ...]) -> int:
    """The number of the information set `key` in a tree (a `RoundGame`,
    a `ReplaceGame`), added with its player, actions and action slots when
    new; a set lists the same actions at every node (they are a function
    of what the player knows)."""
    i = tree._index.get(key)
    if i is None:
        i = len(tree.keys)
        tree._index[key] = i
        tree.keys.append(key)
        tree.iset_player.append(player)
        tree.iset_actions.append(actions)
        tree.iset_offset.append(tree.slots)
        tree.slots += len(actions)
    elif tree.iset_actions[i] != actions:
        raise TacocatError(f"internal: information set {key} lists different actions at two nodes")
    return i


def freeze_tree(tree: Any) -> None:
    """A tree's building lists made the arrays `round_exploitability`
    reads (a `RoundGame`, a `ReplaceGame`): the nodes' `kind`, `depth`,
    `node_iset`, `utility`, the edges', each action slot's information set
    and each information set's depth, which is one: the best response
    decides each set from its children, level by level."""
    tree.kind = np.array(tree._kind, dtype=np.int8)
    tree.depth = np.array(tree._depth, dtype=np.int32)
    tree.node_iset = np.array(tree._iset, dtype=np.int64)
    tree.utility = np.array(tree._util, dtype=np.float64)
    tree.edge_parent = np.array(tree._ep, dtype=np.int64)
    tree.edge_child = np.array(tree._ec, dtype=np.int64)
    tree.edge_prob = np.array(tree._eprob, dtype=np.float64)
    tree.edge_slot = np.array(tree._eslot, dtype=np.int64)
    tree.iset_player_arr = np.array(tree.iset_player, dtype=np.int8)
    sizes = [len(a) for a in tree.iset_actions]
    tree.slot_iset = np.repeat(np.arange(len(tree.keys)), sizes).astype(np.int64)
    del tree._kind, tree._depth, tree._iset, tree._util, tree._ep, tree._ec, tree._eprob, tree._eslot
    d = np.full(len(tree.keys), -1, dtype=np.int64)
    dec = np.nonzero((tree.kind == 0) | (tree.kind == 1))[0]
    d[tree.node_iset[dec]] = tree.depth[dec]
    if np.any(d[tree.node_iset[dec]] != tree.depth[dec]):
        raise TacocatError("internal: an information set spans two depths")
    tree.iset_depth = d
    tree.max_depth = int(tree.depth.max())


@lru_cache(maxsize=None)
def _actions(kind: str, own: Hand, cap: int | None, table: Hand) -> tuple[Action, ...]:
    """The package's legal actions (RULES §6): the list GameState and View give."""
    return tuple(legal_actions_of(kind, own, cap, table))


@dataclass
class _S:
    """A compact round state (everything, hidden cards included)."""

    hands: tuple[Hand, Hand]
    pile: tuple[int, ...]
    dealt: tuple[Hand, Hand]
    drawn: tuple[Hand, Hand]
    history: tuple[Event, ...]
    phase: str  # replace, draw, duel, play
    pending: tuple[Hand | None, Hand | None] = (None, None)
    cap: int | None = None
    replaced: tuple[bool, bool] = (False, False)
    attacker: int | None = None
    table: Hand = ()
    to_draw: tuple[int, ...] = ()
    """Players whose draws the next chance node deals, in GameState's order."""


class TreeArrays:
    """A game tree in the array form `round_exploitability` reads, made by
    `freeze_tree` from the building lists (see `RoundGame`)."""

    keys: list[tuple]
    iset_player: list[int]
    iset_actions: list[tuple[Action, ...]]
    iset_offset: list[int]
    slots: int
    kind: np.ndarray
    depth: np.ndarray
    node_iset: np.ndarray
    utility: np.ndarray
    edge_parent: np.ndarray
    edge_child: np.ndarray
    edge_prob: np.ndarray
    edge_slot: np.ndarray
    iset_player_arr: np.ndarray
    slot_iset: np.ndarray
    iset_depth: np.ndarray
    max_depth: int


@dataclass
class RoundGame(TreeArrays):
    """The round on `rules` with the cat on `cat`, built as flat arrays.

    Nodes are numbered in creation order; `kind[n]` is CHANCE, 0, 1 or
    TERMINAL; `depth[n]` its depth.  Edges (`edge_parent`, `edge_child`)
    carry a chance probability (`edge_prob`, 1 on decision edges) and, on
    a decision edge, the information-set action slot (`edge_slot`, -1 on
    chance edges).  Information set i has key `keys[i]`, player
    `iset_player[i]`, actions `iset_actions[i]` in slots
    `iset_offset[i]` ... +len; `iset_path[i]` is one path to one of its
    nodes (chance outcomes and actions) for `state_of`.  `utility[n]` is
    player 0's result at a terminal node."""

    rules: Ruleset
    cat: int = CENTRE
    max_nodes: int = DEFAULT_MAX_NODES
    keys: list[tuple] = field(default_factory=list)
    iset_player: list[int] = field(default_factory=list)
    iset_actions: list[tuple[Action, ...]] = field(default_factory=list)
    iset_offset: list[int] = field(default_factory=list)
    iset_path: list[tuple] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.board = Board(cat=self.cat)
        self.n = self.board.hand_size(self.rules)
        self.first = self.board.first_replacer(self.rules)
        self.util = round_utilities(self.board, 0, self.rules, "round")
        self._index: dict[tuple, int] = {}
        self._kind: list[int] = []
        self._depth: list[int] = []
        self._iset: list[int] = []
        self._util: list[float] = []
        self._ep: list[int] = []
        self._ec: list[int] = []
        self._eprob: list[float] = []
        self._eslot: list[int] = []
        self.slots = 0
        self._build()

    # ---------------------------------------------------------------- building
    def _node(self, kind: int, depth: int, iset: int = -1, util: float = 0.0) -> int:
        if len(self._kind) >= self.max_nodes:
            raise TacocatError(
                f"the round on this ruleset has more than {self.max_nodes} nodes: too large to solve here "
                "(choose a smaller deck or hand size, RULES §8)"
            )
        self._kind.append(kind)
        self._depth.append(depth)
        self._iset.append(iset)
        self._util.append(util)
        return len(self._kind) - 1

    def _edge(self, parent: int, child: int, prob: float, slot: int) -> None:
        self._ep.append(parent)
        self._ec.append(child)
        self._eprob.append(prob)
        self._eslot.append(slot)

    def key_of(self, s: _S, player: int) -> tuple:
        """The information set of `player` at `s` (module docstring)."""
        return (player, s.dealt[player], s.drawn[player], s.history)

    def _iset_of(self, s: _S, player: int, actions: tuple[Action, ...], path: tuple) -> int:
        i = add_iset(self, self.key_of(s, player), player, actions)
        if i == len(self.iset_path):  # new: the path that reached it first
            self.iset_path.append(path)
        return i

    def _build(self) -> None:
        deck = tuple(self.rules.deck)
        root = self._node(CHANCE, 0)
        for h0, p0 in _multisets(deck, self.n):
            rest = _take(deck, h0)
            for h1, p1 in _multisets(rest, self.n):
                s = _S(
                    hands=(h0, h1),
                    pile=_take(rest, h1),
                    dealt=(h0, h1),
                    drawn=((), ()),
                    history=(),
                    phase=REPLACE,
                )
                child = self._expand(s, 1, ((EventKind.DEAL, h0, h1),))
                self._edge(root, child, p0 * p1, -1)
        self._finish()

    def acting(self, s: _S) -> int:
        """Who acts at `s` (player 0 first at a simultaneous decision)."""
        if s.phase == REPLACE:
            return replacers(self.first, s.replaced, s.pending)[0]
        if s.phase == DUEL:
            return choosers(s.pending)[0]
        return player_to_play(int(s.attacker or 0), s.table)  # the attacker is set whenever the phase is play (R9)

    def legal(self, s: _S, player: int) -> tuple[Action, ...]:
        """The legal actions of `player`, who acts at `s` (the cap is set on a one-arrow space only, R7)."""
        return _actions(decision_of(player, (player,), s.phase, s.table), s.hands[player], s.cap, s.table)

    def _expand(self, s: _S, depth: int, path: tuple) -> int:
        if s.phase == DRAWS:
            node = self._node(CHANCE, depth)
            for outcome, prob, nxt in self.draws(s):
                self._edge(node, self._expand(nxt, depth + 1, path + ((DRAWS, outcome),)), prob, -1)
            return node
        player = self.acting(s)
        actions = self.legal(s, player)
        iset = self._iset_of(s, player, actions, path)
        node = self._node(player, depth, iset)
        off = self.iset_offset[iset]
        for a_i, action in enumerate(actions):
            after = self.apply(s, player, action)
            if isinstance(after, float):
                child = self._node(TERMINAL, depth + 1, util=after)
            else:
                child = self._expand(after, depth + 1, path + ((player, action),))
            self._edge(node, child, 1.0, off + a_i)
        return node

    # ------------------------------------------------------------- transitions
    def draws(self, s: _S) -> Iterator[tuple[tuple[Hand, ...], float, _S]]:
        """The chance outcomes of a draw node: the multisets drawn by each
        player in `s.to_draw` (in GameState's order), with probabilities."""
        sizes = [len(s.pending[p] or ()) for p in s.to_draw]
        for got, prob, pile in draw_outcomes(s.pile, sizes):
            hands, drawn = list(s.hands), list(s.drawn)
            for p, m in zip(s.to_draw, got, strict=True):
                hands[p] = hand(remove(hands[p], s.pending[p]) + m)  # type: ignore[arg-type]
                drawn[p] = hand(drawn[p] + m)
            replaced = list(s.replaced)
            for p in s.to_draw:
                replaced[p] = True
            nxt = _S(
                hands=(hands[0], hands[1]),
                pile=pile,
                dealt=s.dealt,
                drawn=(drawn[0], drawn[1]),
                history=s.history,
                phase=DUEL if all(replaced) else REPLACE,
                cap=s.cap,
                replaced=(replaced[0], replaced[1]),
            )
            yield got, prob, nxt

    def apply(self, s: _S, player: int, action: Action) -> _S | float:
        """The state after `player`'s action, or player 0's utility when the
        round ends (R17)."""
        if s.phase == REPLACE:
            return self._replace(s, player, action.cards)
        if s.phase == DUEL:
            return self._duel(s, player, action.cards[0])
        return self._play(s, player, action)

    def _replace(self, s: _S, player: int, cards: Hand) -> _S:
        """R7: one replacer's discard, face up at once, its count the cap of
        the second's; R8: both discards in secret, revealed together.  The
        draws follow (a chance node)."""
        pending = list(s.pending)
        pending[player] = cards
        if self.first == Arrow.BOTH:
            if player == 0:
                return _with(s, pending=(pending[0], pending[1]))
            events: tuple[Event, ...] = ((EventKind.REPLACE, 0, pending[0]), (EventKind.REPLACE, 1, pending[1]))
            to_draw: tuple[int, ...] = (0, 1)
            cap = None
        else:
            events = ((EventKind.REPLACE, player, cards),)
            to_draw = (player,)
            cap = len(cards) if s.cap is None else s.cap
        return _with(
            s, pending=(pending[0], pending[1]), history=s.history + events, phase=DRAWS, to_draw=to_draw, cap=cap
        )

    def _duel(self, s: _S, player: int, card: int) -> _S | float:
        """R9: both duel cards revealed together; one card each left goes
        to the showdown, equal ranks duel again, else the higher attacks."""
        if player == 0:
            return _with(s, pending=((card,), None))
        c0, c1 = s.pending[0][0], card  # type: ignore[index]
        hands = (remove(s.hands[0], (c0,)), remove(s.hands[1], (c1,)))
        hist = s.history + ((EventKind.DUEL, c0, c1),)
        if goes_to_showdown(len(hands[0])):
            return self._showdown(hands)
        first = duel_attacker(c0, c1)
        if first is None:
            return _with(s, hands=hands, history=hist, pending=(None, None))
        return _with(s, hands=hands, history=hist, pending=(None, None), phase=PLAY, attacker=first)

    def _play(self, s: _S, player: int, action: Action) -> _S | float:
        """R10-R16: an attack lies on the table; an answer ends the trick,
        whose winner attacks next, or the play (then the showdown)."""
        held = list(s.hands)
        held[player] = remove(held[player], action.cards)
        hands = (held[0], held[1])
        if action.kind == Decision.ATTACK:
            return _with(
                s, hands=hands, table=action.cards, history=s.history + ((EventKind.ATTACK, player, action.cards),)
            )
        if play_ends(hands):
            return self._showdown(hands)
        return _with(
            s,
            hands=hands,
            table=(),
            attacker=next_attacker(player, action.beats),
            history=s.history + ((EventKind.ANSWER, player, action.cards, bool(action.beats)),),
        )

    def _showdown(self, hands: tuple[Hand, Hand]) -> float:
        """R17: player 0's utility of the round's end (the tie on an arrow included, `round_winner`)."""
        winner = round_winner(hands, self.rules, self.first)
        win, draw, loss = self.util
        return win if winner == 0 else loss if winner == 1 else draw

    # ----------------------------------------------------------------- arrays
    def _finish(self) -> None:
        freeze_tree(self)

    # ------------------------------------------------------------------ sizes
    @property
    def nodes(self) -> int:
        return len(self.kind)

    def counts(self) -> dict[str, int]:
        """Sizes: nodes, terminal nodes, information sets and action slots per player."""
        p = np.array(self.iset_player)
        return {
            "nodes": int(self.nodes),
            "terminals": int(np.sum(self.kind == TERMINAL)),
            "chance_nodes": int(np.sum(self.kind == CHANCE)),
            "decision_nodes": int(np.sum((self.kind == 0) | (self.kind == 1))),
            "infosets_p0": int(np.sum(p == 0)),
            "infosets_p1": int(np.sum(p == 1)),
            "slots": int(self.slots),
        }

    # ------------------------------------------------- the real GameState
    def state_of(self, path: tuple) -> GameState:
        """The package's `GameState` after `path` (a deal, then chance
        draws and actions as this tree writes them): the deck is laid out so
        that `GameState` deals and draws exactly those cards."""
        (_, h0, h1), rest = path[0], path[1:]
        draws: list[Hand] = []
        for step in rest:
            if step[0] == DRAWS:
                draws.extend(step[1])
        pile = list(remove(self.rules.deck_cards(), tuple(sorted(h0 + h1))))
        tail: list[int] = []
        for m in draws:
            pile = list(remove(tuple(sorted(pile)), m))
            tail = list(m)[::-1] + tail  # the first drawn sits at the end (pop)
        state = GameState.new(self.rules, 0, self.board)
        state.hands = [h0, h1]
        state.draw_pile = pile + tail
        for step in rest:
            if step[0] != DRAWS:
                state.apply(step[0], step[1])
        return state

    def view_of(self, iset: int) -> View:
        """The acting player's `View` at information set `iset`."""
        return self.state_of(self.iset_path[iset]).view(self.iset_player[iset])

    def random_path(self, rng: random.Random) -> tuple[tuple, float, list[tuple[int, tuple, tuple]]]:
        """A path from the root to a terminal node, every choice uniform
        (chance by its probabilities), player 0's result, and each decision
        on the way as (its index in the path, the actor's information-set
        key, the legal actions): for tests against `GameState`."""
        decisions: list[tuple[int, tuple, tuple]] = []
        deck = tuple(self.rules.deck)
        h0 = _pick(_multisets(deck, self.n), rng)
        rest = _take(deck, h0)
        h1 = _pick(_multisets(rest, self.n), rng)
        s: _S | float = _S(
            hands=(h0, h1), pile=_take(rest, h1), dealt=(h0, h1), drawn=((), ()), history=(), phase=REPLACE
        )
        path: tuple = ((EventKind.DEAL, h0, h1),)
        while not isinstance(s, float):
            if s.phase == DRAWS:
                outs = list(self.draws(s))
                x, acc = rng.random(), 0.0
                for got, prob, nxt in outs:
                    acc += prob
                    if x < acc:
                        break
                path += ((DRAWS, got),)
                s = nxt
                continue
            player = self.acting(s)
            legal = self.legal(s, player)
            decisions.append((len(path), self.key_of(s, player), legal))
            action = rng.choice(legal)
            path += ((player, action),)
            s = self.apply(s, player, action)
        return path, s, decisions


def _pick(options: list[tuple[Hand, float]], rng: random.Random) -> Hand:
    x, acc = rng.random(), 0.0
    for h, p in options:
        acc += p
        if x < acc:
            return h
    return options[-1][0]


def _with(s: _S, **changes) -> _S:
    d = dict(s.__dict__)
    d.update(changes)
    return _S(**d)


def events_of(history: Sequence[GameEvent]) -> tuple[Event, ...]:
    """A `GameState` round history in this module's event tuples (the deal
    and the showdown left out)."""
    out: list[Event] = []
    for e in history:
        if isinstance(e, ReplaceEvent):
            out.append((EventKind.REPLACE, e.player, tuple(e.cards)))
        elif isinstance(e, DuelEvent):
            out.append((EventKind.DUEL, e.cards[0], e.cards[1]))
        elif isinstance(e, PlayEvent) and e.event is EventKind.ATTACK:
            out.append((EventKind.ATTACK, e.player, tuple(e.cards)))
        elif isinstance(e, PlayEvent):
            out.append((EventKind.ANSWER, e.player, tuple(e.cards), bool(e.beats)))
    return tuple(out)
