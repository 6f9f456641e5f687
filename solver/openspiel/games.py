"""The game as OpenSpiel Python games (registered on import of `tacocat.openspiel`).

* `tacocat` — the whole game (R1-R19): deals, replacement (R7 one arrow,
  R8 two arrows), the duel (R9), play (R10-R16), showdown (R17), the cat's
  moves (R18) until a goal (R19).  R8 and R9 are OpenSpiel simultaneous-move
  nodes.  `tacocat_turn` is the same game with sequential dynamics: at a
  simultaneous decision player 0 chooses first and player 1 chooses without
  seeing it (the pending choice stays hidden, as in `GameState`), for
  algorithms that need turns (ISMCTS, MCTS).
* `tacocat_play` — the play phase alone (R10-R17) from a fresh deal of
  `hand_size` cards each, `attacker` attacking first.  Both games hold a
  `GameState` and play through it (`tacocat_play` one of a single deal,
  from the moment the hands are dealt), so the rules are `tacocat.rules`'
  own; OpenSpiel adds the chance nodes and the information sets.

Chance: every dealt card and every card drawn after a replacement is one
chance node; its outcomes are the ranks (outcome r - 1) with probability
count/remaining among the cards no one has been dealt (the draw pile is the
rest of a uniform shuffle, so drawing from it is drawing uniformly without
replacement).  With game parameter `seed` >= 0 the deals and draws are
instead those of `GameState.new(rules, seed)` (each chance node has one
outcome of probability 1): a way to replay a recorded game inside OpenSpiel.

Parameters: the ruleset (`ruleset` = `standard` or a .json/.toml file, with
`deck`, `board`, `arrows`, `tie` overriding it; RULESET_PARAMS), `units`;
`tacocat`/`tacocat_turn` also `seed` and `max_deals` (RULES §8: that many
deals without a winner end the game drawn; the ruleset's own `max_deals`
ends it as `GameState` does, whichever comes first); `tacocat_play` also `hand_size`, `attacker`, `cat`.  Example:
`pyspiel.load_game("tacocat_play", {"deck": "2 2 2 2 0 0 0 0 0 0 0 0",
"board": "2 2 2 2 2 2 2", "hand_size": 3})`.

Action ids: see `tacocat.openspiel.codec`.

What a player is shown (RULES §5): `observation_string`/`_tensor` is the
player's information set now — board, own hand, every face-up card of the
round, the table, both hand sizes, the draw pile's size, the round's public
history (and its own secret pending choice in `tacocat_turn`).  The
information state adds what the player remembers (perfect recall): the
hand it was dealt and the cards it drew, each round; the string keeps every
earlier round too, the tensor only the current round (earlier rounds reach
the future only through the board).  Neither reads the opponent's hand, the
draw pile or the opponent's drawn cards.

`resample_from_infostate(player, sampler)` draws a world from the player's
information set with the R20 weights: the opponent's hand uniformly by
card subsets from the unseen pool at or above the opponent's hand floor
(`tacocat.rules.history.hand_floor`), its earlier split between kept and
drawn cards uniformly by card subsets, and (in `tacocat_turn`) its hidden
pending choice uniformly among its legal choices (weighting the opponent's
choices by a model of its play is inference, not a rule).  The world is
rebuilt by replaying the reconstructed chance outcomes and the public actions
from a new game, so its OpenSpiel history is that of the sampled world; it
is a function of the information state and the sampler's numbers only.

Returns (`units`): `game` — `tacocat`: +1 to the game's winner, -1 to the
loser (0 to both when `max_deals` deals end without a winner, RULES §8);
`tacocat_play`: the game equity 2G - 1 of the board the round's result leads
to (`tacocat.search.gamevalue`, the cat at `cat`).  `round` — `tacocat`: rounds
won minus rounds lost; `tacocat_play`: +1 / 0 / -1 for a won / drawn / lost
round."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pyspiel

from tacocat.errors import IllegalMoveError, TacocatError
from tacocat.openspiel.codec import CHANCE_OUTCOMES, ActionCodec
from tacocat.rules.actions import Action
from tacocat.rules.board import Board
from tacocat.rules.cards import Hand, counts, format_cards, hand, remove
from tacocat.rules.events import (
    DealEvent,
    Decision,
    DuelEvent,
    Event,
    EventKind,
    PlayEvent,
    ReplaceEvent,
    ShowdownEvent,
)
from tacocat.rules.game import DUEL, OVER, REPLACE, GameState
from tacocat.rules.history import hand_floor
from tacocat.rules.play import next_attacker
from tacocat.rules.ruleset import ARROW_CHOICES, CENTRE, Arrow, Ruleset, load_ruleset
from tacocat.rules.views import View
from tacocat.search.gamevalue import round_utilities

MAX_DEALS = 200


RULESET_PARAMS = {"ruleset": "standard", "deck": "", "board": "", "arrows": "", "tie": ""}
"""`ruleset`: a name (`standard`) or a .json/.toml file; `deck` (twelve
counts), `board` (seven hand sizes), `arrows` (seven of both/p0/p1) and
`tie` override it, space-separated (game parameter strings cannot hold
commas, so a ruleset is not given inline as JSON)."""


def load_rules(params: dict) -> Ruleset:
    """The ruleset the game parameters name (RULESET_PARAMS), validated (RULES §8)."""
    base = load_ruleset(str(params.get("ruleset", "standard")))
    data = base.to_dict()
    for key in ("deck", "board", "arrows"):
        text = str(params.get(key, "")).strip()
        if text:
            items = text.split()
            try:
                data[key] = items if key == "arrows" else [int(x) for x in items]
            except ValueError:
                raise TacocatError(f"game parameter {key} must be space-separated integers, got {text!r}") from None
    if str(params.get("tie", "")).strip():
        data["tie"] = str(params["tie"]).strip()
    if any(str(params.get(k, "")).strip() for k in ("deck", "board", "arrows", "tie")):
        data["name"] = f"{base.name} (modified)"
    return load_ruleset(data)


class Config(SimpleNamespace):
    """A game's parameters read once (rules, codec, ...).  States keep a
    reference (pyspiel does not keep a Python game's attributes for them)
    and OpenSpiel clones a state by deep-copying its attributes, so the
    config is shared, never copied."""

    def __deepcopy__(self, memo):
        return self


class _Appended(list):
    """A list whose items are never changed once appended: a deep copy
    copies the list, not the items."""

    def __deepcopy__(self, memo):
        return _Appended(self)


class _SamplerRandom:
    """Uniform choices driven by an OpenSpiel probability sampler (a
    callable returning floats in [0, 1)), so that a seeded sampler gives a
    reproducible world."""

    def __init__(self, sampler: Callable[[], float]) -> None:
        self.sampler = sampler

    def below(self, n: int) -> int:
        return min(int(self.sampler() * n), n - 1)

    def take(self, cards: Sequence[int], k: int) -> tuple[Hand, Hand]:
        """k cards drawn uniformly (by card subsets) from `cards`, and the rest."""
        rest = list(cards)
        out = []
        for _ in range(k):
            out.append(rest.pop(self.below(len(rest))))
        return hand(out), hand(rest)


def _remaining(rules: Ruleset, gone: Sequence[int]) -> list[tuple[int, float]]:
    """Chance outcomes: each rank still in `rules`' deck after `gone`."""
    left = counts(rules.deck_cards())
    for c in gone:
        left[c] -= 1
    total = sum(left)
    return [(r - 1, left[r] / total) for r in range(1, 13) if left[r]]


def _dealt_sizes(dealt: int, n: int) -> list[int]:
    """Both hand sizes while the deal is under way (player 0 is dealt first): public."""
    return [min(dealt, n), max(0, dealt - n)]


def _play_events(history: Sequence[Event]) -> list[PlayEvent]:
    return [e for e in history if isinstance(e, PlayEvent)]


def _cards_played(events: Sequence[PlayEvent], player: int) -> list[int]:
    """The cards `player` laid this round, in play order."""
    return [c for e in events if e.player == player for c in e.cards]


# ----------------------------------------------------------------- observers

_PHASES = ("deal", "draw", REPLACE, DUEL, Decision.ATTACK, Decision.ANSWER, "wait", OVER)
"""An observation's phase: the game's, or what the observing player does
now, or a moment OpenSpiel adds (dealing and drawing cards, waiting)."""
_HISTORY_KINDS = (EventKind.REPLACE, EventKind.DUEL, EventKind.ATTACK, EventKind.ANSWER, EventKind.SHOWDOWN)


class Observer:
    """OpenSpiel's PyObserver: `tensor`/`dict` and `string_from` for one
    player's observation (`perfect_recall` False) or information state
    (True).  Every piece is read from the state's `info(player)`, the
    player's information set, never from the hidden hands."""

    def __init__(self, cfg: SimpleNamespace, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; got {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.private = iig_obs_type is None or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.slots = cfg.history_slots
        pieces = [
            ("player", 2),
            ("phase", len(_PHASES)),
            ("cat", 9),
            ("covered", 7),
            ("first_replacer", 3),
            ("replace_cap", 1),
            ("hand", 12),
            ("seen", 12),
            ("table", 12),
            ("my_pending", 12),
            ("hand_sizes", 2),
            ("draw_pile", 1),
            ("attacker", 2),
            ("revealed_discards", 24),
            ("history", self.slots * 32),
        ]
        if self.perfect_recall:
            pieces += [("dealt", 12), ("drawn", 12), ("rounds", 3)]
        self.tensor = np.zeros(sum(n for _, n in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, n in pieces:
            self.dict[name] = self.tensor[at : at + n]
            at += n
        self.dict["history"] = self.dict["history"].reshape(self.slots, 32)

    def set_from(self, state, player: int) -> None:
        info = state.info(player)
        self.tensor.fill(0)
        self._set_public(info, player)
        if self.private:
            self._set_private(info)

    def _set_public(self, info: dict, player: int) -> None:
        """What both players see: the board (R2-R5), the phase, the face-up
        cards and the table, the hand sizes and the pile, the attacker, the
        discards shown, and the round's events."""
        d = self.dict
        d["player"][player] = 1
        d["phase"][_PHASES.index(info["phase"])] = 1
        d["cat"][info["board"].cat + 1] = 1
        for s in info["board"].covered:
            d["covered"][s] = 1
        d["first_replacer"][ARROW_CHOICES.index(info["first_replacer"])] = 1
        d["replace_cap"][0] = -1 if info["replace_cap"] is None else info["replace_cap"]
        _count(d["seen"], info["seen"])
        _count(d["table"], info["table"])
        d["hand_sizes"][:] = info["hand_sizes"]
        d["draw_pile"][0] = info["draw_pile"]
        if info["attacker"] is not None:
            d["attacker"][0 if info["attacker"] == player else 1] = 1
        for p, cards in enumerate(info["revealed_discards"]):
            _count(d["revealed_discards"], cards or (), 12 * p)
        for i, e in enumerate(info["history"][1 : self.slots + 1]):
            _set_event(d["history"][i], e)

    def _set_private(self, info: dict) -> None:
        """What only the player knows: its hand and secret choice (R8-R9);
        with perfect recall, what it was dealt and drew, and the rounds."""
        d = self.dict
        _count(d["hand"], info["hand"])
        _count(d["my_pending"], info["my_pending"] or ())
        if self.perfect_recall:
            _count(d["dealt"], info["dealt"])
            _count(d["drawn"], info["drawn"])
            d["rounds"][:] = info["rounds"]

    def string_from(self, state, player: int) -> str:
        info = state.info(player)
        parts = []
        if self.perfect_recall:
            for r, (history, record) in enumerate(info["past"], 1):
                parts.append(f"round {r}: " + _round_text(history, record, player, self.private))
        b = info["board"]
        now = [f"p{player}", f"cat {b.cat} covered [{' '.join(map(str, sorted(b.covered)))}]", info["phase"]]
        if self.private:
            now += self._private_text(info)
        now.append(f"seen [{format_cards(info['seen'])}] table [{format_cards(info['table'])}]")
        now.append(f"hands {info['hand_sizes'][0]}:{info['hand_sizes'][1]} pile {info['draw_pile']}")
        if info["attacker"] is not None:
            now.append(f"attacker p{info['attacker']}")
        if any(x is not None for x in info["revealed_discards"]):
            now.append(_discarding_text(info["revealed_discards"]))
        now.append("history: " + "; ".join(map(str, info["history"])))
        parts.append(" | ".join(now))
        return "\n".join(parts)

    def _private_text(self, info: dict) -> list[str]:
        """What only the player knows: its hand, what it was dealt and
        drew (perfect recall), its secret choice (R8-R9)."""
        now = [f"hand [{format_cards(info['hand'])}]"]
        if self.perfect_recall:
            now.append(f"dealt [{format_cards(info['dealt'])}] drew [{format_cards(sorted(info['drawn']))}]")
        if info["my_pending"] is not None:
            now.append(f"my secret choice [{format_cards(info['my_pending'])}]")
        return now


def _count(vector: np.ndarray, cards: Iterable[int], at: int = 0) -> None:
    """Count the cards by rank into `vector`, from slot `at`."""
    for c in cards:
        vector[at + c - 1] += 1


def _set_event(row: np.ndarray, e: Event) -> None:
    """One history event's slot: its kind, its player and cards, and
    whether an answer beat."""
    row[_HISTORY_KINDS.index(e.event)] = 1
    if isinstance(e, (ReplaceEvent, PlayEvent)):
        row[5 + e.player] = 1
        _count(row, e.cards, 7 + 12 * e.player)
    elif isinstance(e, (DuelEvent, ShowdownEvent)):  # one card of each player
        for p, c in enumerate(e.cards):
            row[7 + 12 * p + c - 1] += 1
    if isinstance(e, PlayEvent) and e.beats:
        row[31] = 1


def _discarding_text(revealed: Sequence[Hand | None]) -> str:
    """The discards shown so far at a secret replace (R8)."""
    return "discarding " + " ".join(f"p{p} [{format_cards(c)}]" for p, c in enumerate(revealed) if c is not None)


def _round_text(history: Sequence[Event], record: dict, player: int, private: bool) -> str:
    head = (
        f"dealt [{format_cards(record['dealt'])}] drew [{format_cards(sorted(record['drawn']))}]; " if private else ""
    )
    return head + "; ".join(map(str, history))


# --------------------------------------------------------------- base game


class _Game(pyspiel.Game):
    """Shared parameter handling and the observer factory."""

    cfg: Config
    """The game's parameters read once (rules, codec, ...); states keep a
    reference, as pyspiel does not keep a Python game's attributes for them."""

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(self.cfg, iig_obs_type, params)

    def units_param(self, params: dict) -> str:
        units = str(params.get("units", "game"))
        if units not in ("game", "round"):
            raise TacocatError(f"game parameter units must be 'game' or 'round', got {units!r}")
        return units


PLAY_PARAMS = {**RULESET_PARAMS, "hand_size": 0, "attacker": 0, "cat": CENTRE, "units": "round"}
GAME_PARAMS = {**RULESET_PARAMS, "seed": -1, "units": "game", "max_deals": MAX_DEALS}
_SEQUENTIAL, _SIMULTANEOUS = pyspiel.GameType.Dynamics.SEQUENTIAL, pyspiel.GameType.Dynamics.SIMULTANEOUS


def _game_type(short: str, long: str, dynamics, params: dict) -> pyspiel.GameType:
    """The three games differ in name, dynamics and parameters alone."""
    return pyspiel.GameType(
        short_name=short,
        long_name=long,
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=params,
    )


PLAY_TYPE, GAME_TYPE, TURN_TYPE = (
    _game_type(*row)
    for row in (
        ("tacocat_play", "Tacocat Spelled Backwards: the play phase (R10-R17)", _SEQUENTIAL, PLAY_PARAMS),
        ("tacocat", "Tacocat Spelled Backwards (R1-R19), simultaneous R8/R9", _SIMULTANEOUS, GAME_PARAMS),
        (
            "tacocat_turn",
            "Tacocat Spelled Backwards (R1-R19), R8/R9 in turns with the first choice hidden",
            _SEQUENTIAL,
            GAME_PARAMS,
        ),
    )
)


def _game_info(codec: ActionCodec, bound: float, length: int) -> pyspiel.GameInfo:
    """Two players, zero-sum, each utility within [-bound, bound], at most
    `length` nodes (decisions and chance) from the root to a terminal."""
    return pyspiel.GameInfo(
        num_distinct_actions=codec.num_actions,
        max_chance_outcomes=CHANCE_OUTCOMES,
        num_players=2,
        min_utility=-bound,
        max_utility=bound,
        utility_sum=0.0,
        max_game_length=length,
    )


# ------------------------------------------------------------ tacocat_play


class TacocatPlayGame(_Game):
    """The play phase from a fresh deal: `hand_size` cards each (0: the
    number on the cat's space, R2), `attacker` attacks first."""

    def __init__(self, params: dict | None = None) -> None:
        params = {**PLAY_PARAMS, **(params or {})}
        rules = load_rules(params)
        board = Board(cat=int(params["cat"]))
        n = int(params["hand_size"]) or board.hand_size(rules)
        if not 2 <= n <= 12 or 2 * n > rules.deck_size:
            raise TacocatError(
                f"game parameter hand_size must be 2..12 with two hands in the deck of {rules.deck_size}, got {n}", "R2"
            )
        first = int(params["attacker"])
        if first not in (0, 1):
            raise TacocatError(f"game parameter attacker must be 0 or 1, got {first}", "R9")
        units = self.units_param(params)
        codec = ActionCodec(rules, n)
        utilities = round_utilities(board, 0, rules, "game") if units == "game" else (1.0, 0.0, -1.0)
        bound = max(abs(u) for u in utilities)
        # pyspiel.Game's constructor must run before attributes are set.
        super().__init__(
            PLAY_TYPE,
            _game_info(codec, bound, 4 * n),
            params,
        )
        self.cfg = Config(
            rules=rules,
            one_deal=dataclasses.replace(rules, max_deals=1),
            board=board,
            hand_size=n,
            first_attacker=first,
            units=units,
            codec=codec,
            utilities=utilities,
            history_slots=2 * n,
        )

    def new_initial_state(self) -> "TacocatPlayState":
        return TacocatPlayState(self)


class TacocatPlayState(pyspiel.State):
    """A deal in progress (one chance node a card), then the round in its
    play phase as a `GameState` of one deal (`Config.one_deal`): every
    attack and answer is the GameState's to check and apply, so who attacks
    next (R13-R14) and the showdown (R16-R17) are the rules' own.  Cloned
    per step by OpenSpiel's searches: a clone copies the dealt cards and
    the GameState (`GameState.clone`, lists copied, items shared)."""

    def __init__(self, game: TacocatPlayGame) -> None:
        super().__init__(game)
        self.g = game.cfg
        self.dealt: list[int] = _Appended()
        self.gs: GameState | None = None
        """The round once both hands are dealt; over after its showdown."""

    # -- the round, read from the GameState
    @property
    def hands(self) -> list[Hand]:
        """Both hands: empty while dealt; at the end the last card each,
        which the showdown laid face up (R16-R17)."""
        gs = self.gs
        if gs is None:
            return [(), ()]
        if gs.over:
            last = self._showdown().cards
            return [(last[0],), (last[1],)]
        return gs.hands

    @property
    def attacker(self) -> int:
        """Who attacks now (R10, R14); at the end the last trick's winner."""
        gs = self.gs
        if gs is None:
            return self.g.first_attacker
        if gs.over:
            answer = self.events[-1]  # the play ends with an answer (R16)
            return next_attacker(answer.player, answer.beats)
        assert gs.attacker is not None  # the play phase always has one (R10)
        return gs.attacker

    @property
    def table(self) -> Hand:
        return () if self.gs is None else self.gs.table

    @property
    def events(self) -> list[PlayEvent]:
        """The round's attacks and answers so far."""
        return [] if self.gs is None else _play_events(self.gs.history)

    def _showdown(self) -> ShowdownEvent:
        assert self.gs is not None and self.gs.over
        last = self.gs.history[-1]
        assert isinstance(last, ShowdownEvent)  # a round of one deal ends at its showdown (R17, RULES §8)
        return last

    # -- OpenSpiel API
    def current_player(self) -> int:
        gs = self.gs
        if gs is None:
            return pyspiel.PlayerId.CHANCE
        if gs.over:
            return pyspiel.PlayerId.TERMINAL
        return gs.acting_players()[0]

    def _legal_actions(self, player: int) -> list[int]:
        gs = self.gs
        if gs is None or gs.over:
            return []
        return sorted(self.g.codec.encode(a) for a in gs.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return _remaining(self.g.rules, self.dealt)

    def _apply_action(self, action_id: int) -> None:
        if self.gs is None:
            self._deal(int(action_id) + 1)
            return
        player = self.current_player()
        action = self.g.codec.decode(action_id)
        try:
            self.gs.apply(player, action)
        except IllegalMoveError:
            raise TacocatError(
                f"action {action_id} ({action}) is not legal for player {player} now", "R10-R13"
            ) from None

    def _deal(self, rank: int) -> None:
        """One dealt card (R6); the last one begins the play (R10)."""
        n = self.g.hand_size
        if not any(a == rank - 1 for a, _ in self.chance_outcomes()):
            raise TacocatError(f"chance outcome {rank - 1}: no card of rank {rank} is left to deal", "R6")
        self.dealt.append(rank)
        if len(self.dealt) == 2 * n:
            self.gs = GameState.at_play_phase(
                [self.dealt[:n], self.dealt[n:]], self.g.first_attacker, rules=self.g.one_deal, board=self.g.board
            )

    def _action_to_string(self, player: int, action_id: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action_id + 1}"
        return str(self.g.codec.decode(action_id))

    def is_terminal(self) -> bool:
        return self.gs is not None and self.gs.over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        winner = self._showdown().winner
        u = self.g.utilities[0 if winner == 0 else 1 if winner is None else 2]
        return [u, -u]

    def __str__(self) -> str:
        hands = self.hands
        return (
            f"p0 [{format_cards(hands[0])}] p1 [{format_cards(hands[1])}] "
            f"attacker p{self.attacker} table [{format_cards(self.table)}] dealt {self.dealt}"
        )

    # -- the information set
    def info(self, player: int) -> dict[str, Any]:
        """`player`'s information set now (RULES §5); the observers read only this."""
        n = self.g.hand_size
        dealing = self.gs is None
        events, hands, table = self.events, self.hands, self.table
        own = self.dealt[n * player : n * (player + 1)] if dealing else hands[player]
        played = _cards_played(events, player)
        seen = hand([c for e in events for c in e.cards])
        return {
            "phase": self._phase_of(player),
            "board": self.g.board,
            "first_replacer": self.g.board.first_replacer(self.g.rules),
            "replace_cap": None,
            "hand": hand(own),
            "my_pending": None,
            "seen": remove(seen, table) if table else seen,
            "table": table,
            "hand_sizes": _dealt_sizes(len(self.dealt), n) if dealing else [len(hands[0]), len(hands[1])],
            "draw_pile": self.g.rules.deck_size - 2 * n,
            "attacker": None if dealing else self.attacker,
            "revealed_discards": [None, None],
            "history": [DealEvent(n, self.g.board.cat), *events],
            "past": [],
            "dealt": hand(own) if dealing else hand(list(hands[player]) + played),
            "drawn": [],
            "rounds": [0, 0, 0],
        }

    def _phase_of(self, player: int) -> str:
        """What `player` does now: watch the deal, attack or answer (R10,
        R12), wait, or nothing once the round is over."""
        gs = self.gs
        if gs is None:
            return "deal"
        if gs.over:
            return OVER
        kind = gs.decision(player)
        return kind if kind is not None else "wait"

    def game_state(self) -> GameState:
        """This deal as a `GameState` in its play phase (hidden cards
        included, the game's own ruleset), for the bots that read a whole
        state (the oracle): a new one, which the bot may play on."""
        if self.gs is None:
            raise TacocatError("the cards are still being dealt: no game state yet")
        return GameState.at_play_phase(
            self.hands,
            self.attacker,
            events=self.events,
            rules=self.g.rules,
            board=self.g.board,
            ended=self.is_terminal(),
        )

    def view(self, player: int) -> View:
        """`player`'s `View`, what our bots read."""
        return self.game_state().view(player)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "TacocatPlayState":
        """A world from `player_id`'s information set with the R20 weights
        (module doc); reads only that player's information."""
        return resample_play_world(self, int(player_id), _SamplerRandom(probability_sampler))


def resample_play_world(state: Any, me: int, rng: _SamplerRandom) -> Any:
    """A world of `tacocat_play` from player `me`'s information set, drawn
    by `rng` with the R20 weights (module doc) and replayed on a new state
    of `state`'s game: a function of what any state of this game tells
    (its dealt cards, `hands`, `events`, `view`), not of how it keeps them."""
    if len(state.dealt) < 2 * state.g.hand_size:
        return _resample_deal(state, me, rng)
    return _resample_play(state, me, rng)


def _resample_deal(state: Any, me: int, rng: _SamplerRandom) -> Any:
    """While the cards are dealt: the other player's cards so far, uniformly."""
    n = state.g.hand_size
    mine = state.dealt[n * me : n * (me + 1)]
    others = list(remove(state.g.rules.deck_cards(), hand(mine)))
    theirs, _ = rng.take(others, len(state.dealt) - len(mine))
    order = (list(mine) + list(theirs)) if me == 0 else (list(theirs) + list(mine))
    world = state.get_game().new_initial_state()
    for c in order[: len(state.dealt)]:
        world.apply_action(c - 1)
    return world


def _resample_play(state: Any, me: int, rng: _SamplerRandom) -> Any:
    """In play: the opponent's hand from the unseen cards at or above the
    floor its sacrifices set (R20), dealt, then the round replayed."""
    opp = 1 - me
    view = state.view(me)
    events, hands = _play_events(state.events), state.hands
    floor = hand_floor(events, opp)
    pool = [c for c in view.unseen_pool if c >= floor]
    opp_hand, _ = rng.take(pool, len(hands[opp]))
    my_cards = hand(list(hands[me]) + _cards_played(events, me))
    their_cards = hand(list(opp_hand) + _cards_played(events, opp))
    world = state.get_game().new_initial_state()
    for c in my_cards + their_cards if me == 0 else their_cards + my_cards:
        world.apply_action(c - 1)
    for e in events:
        world.apply_action(state.g.codec.encode(Action(e.event, e.cards, e.beats)))
    return world


# ----------------------------------------------------------------- tacocat


class TacocatGame(_Game):
    """The whole game; the ruleset (RULESET_PARAMS), `seed` (-1:
    chance nodes; >= 0: the deals of `GameState.new(rules, seed)`),
    `units`, `max_deals` (RULES §8)."""

    game_type = GAME_TYPE
    simultaneous = True

    def __init__(self, params: dict | None = None) -> None:
        params = {**GAME_PARAMS, **(params or {})}
        rules = load_rules(params)
        units = self.units_param(params)
        max_deals = int(params["max_deals"])
        if max_deals < 1:
            raise TacocatError(f"game parameter max_deals must be at least 1, got {max_deals}")
        top = max(rules.board)
        codec = ActionCodec(rules, top)
        bound = 1.0 if units == "game" else 7.0
        # A round: 2N deal and up to 2N draw chance nodes, two replacements,
        # at most N duels and 2(N - 1) play decisions (counted per decision node).
        per_round = 4 * top + 2 + top + 2 * top
        super().__init__(
            self.game_type,
            _game_info(codec, bound, min(max_deals, rules.max_deals) * per_round),
            params,
        )
        self.cfg = Config(
            rules=rules,
            seed=int(params["seed"]),
            units=units,
            max_deals=max_deals,
            codec=codec,
            history_slots=3 * top + 4,
            simultaneous=self.simultaneous,
        )

    def new_initial_state(self) -> "TacocatState":
        return TacocatState(self)


class TacocatTurnGame(TacocatGame):
    game_type = TURN_TYPE
    simultaneous = False


class TacocatState(pyspiel.State):
    """A `GameState` under OpenSpiel's chance and turn structure."""

    def __init__(self, game: TacocatGame) -> None:
        super().__init__(game)
        self.g = game.cfg
        self.gs = GameState.new(self.g.rules, max(self.g.seed, 0))
        self.dealing: list[int] | None = []
        self.deferred: list[tuple[int, Action]] = []
        """Replacement actions waiting for their draws (R7/R8)."""
        self.draws: list[tuple[int, int]] = []
        """(player, how many) cards to draw, in GameState's order."""
        self.drawn: list[int] = []
        self.records: list[list[dict]] = [self._new_records()]
        """Per round, per player: the hand dealt and the cards drawn (in order)."""
        self.past: list[list[Event]] = _Appended()
        """The public history of every finished round."""
        self.truncated = False

    @staticmethod
    def _new_records() -> list[dict]:
        return [{"dealt": (), "drawn": []}, {"dealt": (), "drawn": []}]

    @property
    def seeded(self) -> bool:
        return self.g.seed >= 0

    # -- structure
    def _chance(self) -> bool:
        return self.dealing is not None or len(self.drawn) < sum(k for _, k in self.draws)

    def current_player(self) -> int:
        if self.gs.over or self.truncated:
            return pyspiel.PlayerId.TERMINAL
        if self._chance():
            return pyspiel.PlayerId.CHANCE
        acting = self.gs.acting_players()
        if self.g.simultaneous and len(acting) == 2:
            return pyspiel.PlayerId.SIMULTANEOUS
        return acting[0]

    def _legal_actions(self, player: int) -> list[int]:
        if self.gs.over or self.truncated or self._chance():
            return []
        acting = self.gs.acting_players()
        if player not in acting or (not self.g.simultaneous and player != acting[0]):
            return []
        return sorted(self.g.codec.encode(a) for a in self.gs.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealing is not None:
            if self.seeded:
                return [((self.gs.hands[0] + self.gs.hands[1])[len(self.dealing)] - 1, 1.0)]
            return _remaining(self.g.rules, self.dealing)
        if self.seeded:
            return [(self.gs.draw_pile[-1 - len(self.drawn)] - 1, 1.0)]
        pile = counts(self.gs.draw_pile)
        for c in self.drawn:
            pile[c] -= 1
        total = sum(pile)
        return [(r - 1, pile[r] / total) for r in range(1, 13) if pile[r]]

    # -- transitions
    def _apply_action(self, action_id: int) -> None:
        if self._chance():
            if not any(a == action_id for a, _ in self.chance_outcomes()):
                raise TacocatError(f"chance outcome {action_id}: no card of rank {action_id + 1} can come now", "R6")
            self._chance_card(int(action_id) + 1)
            return
        self._act(self.current_player(), int(action_id))

    def _apply_actions(self, actions: Sequence[int]) -> None:
        for p in (0, 1):
            self._act(p, int(actions[p]))

    def _chance_card(self, card: int) -> None:
        n = self.gs.board.hand_size(self.g.rules)
        if self.dealing is not None:
            self.dealing.append(card)
            if len(self.dealing) == 2 * n:
                rec = self.records[-1]
                if not self.seeded:
                    self.gs.hands = [hand(self.dealing[:n]), hand(self.dealing[n:])]
                    left = list(self.g.rules.deck_cards())
                    self.gs.draw_pile = list(remove(tuple(left), tuple(sorted(self.dealing))))
                rec[0]["dealt"], rec[1]["dealt"] = self.gs.hands[0], self.gs.hands[1]
                self.dealing = None
            return
        self.drawn.append(card)
        if len(self.drawn) < sum(k for _, k in self.draws):
            return
        if not self.seeded:
            rest = list(remove(hand(self.gs.draw_pile), hand(self.drawn)))
            self.gs.draw_pile = rest + self.drawn[::-1]  # GameState draws from the end
        at = 0
        for p, k in self.draws:
            self.records[-1][p]["drawn"].extend(self.drawn[at : at + k])
            at += k
        deferred = self.deferred
        self.deferred, self.draws, self.drawn = [], [], []
        for p, a in deferred:
            self._apply(p, a)

    def _act(self, player: int, action_id: int) -> None:
        action = self.g.codec.decode(action_id)
        if action not in self.gs.legal_actions(player) or (not self.g.simultaneous and player != self.current_player()):
            raise TacocatError(f"action {action_id} ({action}) is not legal for player {player} now", "R7-R13")
        if self.gs.decision(player) == REPLACE:
            if self.gs.first_replacer == Arrow.BOTH:
                other = self.gs.pending[1 - player]
                if other is None:  # R8: the first secret choice waits for the second
                    self.gs.apply(player, action)
                    return
                self.draws = (
                    [(0, len(other)), (1, len(action.cards))]
                    if player == 1
                    else [(0, len(action.cards)), (1, len(other))]
                )
            else:
                self.draws = [(player, len(action.cards))]
            self.deferred = [(player, action)]
            if sum(k for _, k in self.draws) == 0:
                self.deferred, self.draws = [], []
                self._apply(player, action)
            return
        self._apply(player, action)

    def _apply(self, player: int, action: Action) -> None:
        history = self.gs.history
        self.gs.apply(player, action)
        if self.gs.history is history:
            return
        self.past.append(history)  # the round ended: GameState dealt the next one
        if self.gs.over:
            return
        if self.gs.deals > self.g.max_deals:
            self.truncated = True  # RULES §8 max_deals: a drawn game
            return
        self.records.append(self._new_records())
        self.dealing = []

    def _action_to_string(self, player: int, action_id: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"{'deal' if self.dealing is not None else 'draw'} {action_id + 1}"
        return str(self.g.codec.decode(action_id))

    def is_terminal(self) -> bool:
        return self.gs.over or self.truncated

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]  # terminal rewards only (OpenSpiel's RewardModel.TERMINAL)
        if self.g.units == "round":
            won = [sum(1 for r in self.gs.rounds if r["winner"] == p) for p in (0, 1)]
            return [float(won[0] - won[1]), float(won[1] - won[0])]
        if self.gs.winner is None:
            # a drawn game (RULES §8): cut at the max_deals parameter, or over
            # at the ruleset's max_deals with the cat in no goal
            return [0.0, 0.0]
        return [1.0, -1.0] if self.gs.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        gs = self.gs
        return (
            f"cat {gs.board.cat} covered {sorted(gs.board.covered)} deal {gs.deals} {gs.phase} "
            f"p0 [{format_cards(gs.hands[0])}] p1 [{format_cards(gs.hands[1])}] "
            f"pending {gs.pending} table [{format_cards(gs.table)}]"
        )

    # -- the information set
    def info(self, player: int) -> dict[str, Any]:
        gs = self.gs
        rec = self.records[-1][player]
        won = [sum(1 for r in gs.rounds if r["winner"] == p) for p in (0, 1)]
        drawn_now = list(rec["drawn"]) + self._drawing(player)
        revealed = self._revealed()
        if self.dealing is not None:
            n = gs.board.hand_size(self.g.rules)
            own = hand(self.dealing[n * player : n * (player + 1)])
            phase, sizes, attacker, pending = "deal", _dealt_sizes(len(self.dealing), n), None, None
        else:
            own = gs.hands[player]
            sizes = [len(gs.hands[0]), len(gs.hands[1])]
            attacker = gs.attacker
            pending = gs.pending[player] if revealed[player] is None else None
            phase = self._phase_of(player)
        return {
            "phase": phase,
            "board": gs.board,
            "first_replacer": gs.first_replacer,
            "replace_cap": gs.replace_cap,
            "hand": own,
            "my_pending": pending,
            "seen": hand(gs.discard),
            "table": gs.table,
            "hand_sizes": sizes,
            "draw_pile": len(gs.draw_pile) - len(self.drawn),
            "attacker": attacker,
            "revealed_discards": revealed,
            "history": gs.history,
            "past": [(h, self.records[r][player]) for r, h in enumerate(self.past)],
            "dealt": rec["dealt"] if self.dealing is None else own,
            "drawn": drawn_now,
            "rounds": [won[player], won[1 - player], len(gs.rounds) - won[0] - won[1]],
        }

    def _drawing(self, player: int) -> list[int]:
        """The cards `player` has drawn so far in the replacement being drawn (R7-R8)."""
        out: list[int] = []
        at = 0
        for p, k in self.draws:
            if p == player:
                out += self.drawn[at : at + k]
            at += k
        return out

    def _revealed(self) -> list[Hand | None]:
        """The discards shown while the replacements are drawn: each
        deferred one, and on a two-arrow space the other's choice too (R8)."""
        revealed: list[Hand | None] = [None, None]
        for p, a in self.deferred:
            revealed[p] = a.cards
        if self.deferred and self.gs.first_replacer == Arrow.BOTH:
            other = 1 - self.deferred[0][0]
            revealed[other] = self.gs.pending[other]
        return revealed

    def _phase_of(self, player: int) -> str:
        """What `player` does now, once dealt: nothing at the end, watch a
        draw, its decision, or wait."""
        if self.is_terminal():
            return OVER
        if self._chance():
            return "draw"
        kind = self.gs.decision(player)
        return kind if kind is not None else "wait"

    def game_state(self) -> GameState:
        if self._chance():
            raise TacocatError("cards are being dealt or drawn: no decision state now")
        return self.gs

    def view(self, player: int) -> View:
        return self.game_state().view(player)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "TacocatState":
        """A world from `player_id`'s information set (module doc): the
        opponent's hands and draws reconstructed from public cards and the
        sampler, then the game replayed from its start."""
        if self.seeded:
            raise TacocatError("seed >= 0 fixes every deal: resample needs the game with seed=-1")
        if self._chance():
            raise TacocatError("resample_from_infostate is defined at decision and terminal nodes")
        me, opp = int(player_id), 1 - int(player_id)
        rng = _SamplerRandom(probability_sampler)
        gs = self.gs
        rounds = self.past + ([] if self.is_terminal() else [gs.history])
        plan = []  # per round: [p0 dealt, p1 dealt], [p0 drawn, p1 drawn]
        for r, history in enumerate(rounds):
            dealt, drawn = self._opponent_round(history, r < len(self.past), me, rng)
            mine = self.records[r][me]
            pair_dealt: list[Any] = [None, None]
            pair_drawn: list[Any] = [None, None]
            pair_dealt[me], pair_drawn[me] = mine["dealt"], list(mine["drawn"])
            pair_dealt[opp], pair_drawn[opp] = dealt, drawn
            plan.append((pair_dealt, pair_drawn))
        return self._replay(plan, me, rng)

    def _opponent_round(
        self, history: Sequence[Event], finished: bool, me: int, rng: _SamplerRandom
    ) -> tuple[Hand, list[int]]:
        """The opponent's deal and draw in one round: the cards it showed
        (played, dueled, shown down), in the round now its hidden hand from
        the unseen cards at or above its floor (R20), and of those the
        cards it drew in place of its discard (R7-R8)."""
        opp = 1 - me
        opp_cards = _shown_by(history, opp)
        if not finished:
            floor = hand_floor(_play_events(history), opp)
            view = self.gs.view(me)
            pool = [c for c in view.unseen_pool if c >= floor]
            now, _ = rng.take(pool, len(self.gs.hands[opp]))
            opp_cards += list(now)
        discards = [e.cards for e in history if isinstance(e, ReplaceEvent) and e.player == opp]
        if not discards:
            return hand(opp_cards), []
        taken, kept = rng.take(hand(opp_cards), len(discards[0]))
        return hand(list(kept) + list(discards[0])), list(taken)

    def _replay(self, plan, me: int, rng: _SamplerRandom) -> "TacocatState":
        world = self.get_game().new_initial_state()
        opp = 1 - me
        actions = self._actions_to_replay(opp)
        at = 0
        while not world.is_terminal():
            if world._chance():
                world.apply_action(_planned_card(world, plan[len(world.records) - 1]) - 1)
                continue
            if at == len(actions):
                break
            if world.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
                world.apply_actions(self._pair((actions[at], actions[at + 1])))
                at += 2
                continue
            entry = actions[at]
            at += 1
            world.apply_action(self.g.codec.encode(Action.from_dict(entry)))
        # tacocat_turn: the opponent's hidden pending choice, uniformly among its legal choices.
        if self.gs.pending[opp] is not None and not world.is_terminal() and world.current_player() == opp:
            legal = world.legal_actions(opp)
            world.apply_action(legal[rng.below(len(legal))])
        return world

    def _actions_to_replay(self, opp: int) -> list[dict]:
        """The game's actions, less the opponent's secret choice still
        pending (tacocat_turn, R8-R9): the world draws its own."""
        actions = list(self.gs.actions)
        if self.gs.pending[opp] is not None:
            last = max(i for i, e in enumerate(actions) if e["player"] == opp)
            del actions[last]
        return actions

    def _pair(self, entries: tuple[dict, dict]) -> list[Any]:
        """The two secret choices of a simultaneous node, by seat (R8-R9)."""
        pair: list[Any] = [None, None]
        for entry in entries:
            pair[entry["player"]] = self.g.codec.encode(Action.from_dict(entry))
        return pair


def _shown_by(history: Sequence[Event], player: int) -> list[int]:
    """The cards `player` showed in a round: played (R10-R15), then dueled
    and shown down (R9, R16-R17)."""
    shown = [c for e in _play_events(history) if e.player == player for c in e.cards]
    return shown + [e.cards[player] for e in history if isinstance(e, (DuelEvent, ShowdownEvent))]


def _planned_card(world: TacocatState, planned: tuple[list, list]) -> int:
    """The next card the plan deals or draws in `world`'s round."""
    dealt, drawn = planned
    if world.dealing is not None:
        return (list(dealt[0]) + list(dealt[1]))[len(world.dealing)]
    return [c for p, k in world.draws for c in drawn[p][:k]][len(world.drawn)]


for _type, _game in ((PLAY_TYPE, TacocatPlayGame), (GAME_TYPE, TacocatGame), (TURN_TYPE, TacocatTurnGame)):
    pyspiel.register_game(_type, _game)
