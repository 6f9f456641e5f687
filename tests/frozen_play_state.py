"""`TacocatPlayState` as it was before it was built on `GameState`
(solver/openspiel/games.py at debdaf7), frozen: it kept its own hands,
table and attacker and wrote who attacks next (R13-R14) and the showdown
(R17, tie on an arrow) itself.  The reference of the differential test
(tests/test_openspiel_play_state.py) and of the clone benchmark
(results/clone_cost.py); its own logic is never edited.  What was never
the state's logic is shared with games.py, as it always shared the
module's helpers: the R20 resampling (`resample_play_world`), which reads
only what any state of the game tells (dealt cards, hands, events, the
view) and replays the world on a new state of the state's own game, so
the differential still compares the worlds each state's own rules replay."""

from __future__ import annotations

from typing import Any

import pyspiel

from tacocat.errors import TacocatError
from tacocat.openspiel.games import (
    TacocatPlayGame,
    _Appended,
    _cards_played,
    _dealt_sizes,
    _remaining,
    _SamplerRandom,
    resample_play_world,
)
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand, format_cards, hand, remove
from tacocat.rules.events import DealEvent, Decision, Event, PlayEvent
from tacocat.rules.game import OVER, GameState
from tacocat.rules.play import answers, attacks
from tacocat.rules.views import View


class FrozenPlayGame(TacocatPlayGame):
    """`tacocat_play` whose states are the frozen ones (a clone or a
    resampled world is one too)."""

    def new_initial_state(self) -> "FrozenPlayState":  # type: ignore[override]
        return FrozenPlayState(self)


class FrozenPlayState(pyspiel.State):
    """A deal in progress, then the play phase; kept lean (tuples, no
    copies of the rules) because OpenSpiel's searches clone it per step."""

    def __init__(self, game: TacocatPlayGame) -> None:
        super().__init__(game)
        self.g = game.cfg
        self.dealt: list[int] = []
        self.hands: list[Hand] = [(), ()]
        self.attacker = self.g.first_attacker
        self.table: Hand = ()
        self.events: list[PlayEvent] = _Appended()
        self.done = False
        self.winner: int | None = None

    # -- OpenSpiel API
    def current_player(self) -> int:
        if self.done:
            return pyspiel.PlayerId.TERMINAL
        if len(self.dealt) < 2 * self.g.hand_size:
            return pyspiel.PlayerId.CHANCE
        return 1 - self.attacker if self.table else self.attacker

    def _moves(self, player: int) -> list[Action]:
        if self.done or len(self.dealt) < 2 * self.g.hand_size or player != self.current_player():
            return []
        if self.table:
            return [Action(Decision.ANSWER, c, b) for c, b in answers(self.table, self.hands[player])]
        return [Action(Decision.ATTACK, a) for a in attacks(self.hands[player])]

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.g.codec.encode(a) for a in self._moves(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return _remaining(self.g.rules, self.dealt)

    def _apply_action(self, action_id: int) -> None:
        n = self.g.hand_size
        if len(self.dealt) < 2 * n:
            rank = int(action_id) + 1
            if not any(a == action_id for a, _ in self.chance_outcomes()):
                raise TacocatError(f"chance outcome {action_id}: no card of rank {rank} is left to deal", "R6")
            self.dealt.append(rank)
            if len(self.dealt) == 2 * n:
                self.hands = [hand(self.dealt[:n]), hand(self.dealt[n:])]
            return
        player = self.current_player()
        action = self.g.codec.decode(action_id)
        if action not in self._moves(player):
            raise TacocatError(f"action {action_id} ({action}) is not legal for player {player} now", "R10-R13")
        self.hands[player] = remove(self.hands[player], action.cards)
        if action.kind == Decision.ATTACK:
            event = PlayEvent.attack(player, action.cards)
            self.table = action.cards
        else:
            event = PlayEvent.answer(player, action.cards, bool(action.beats))
            self.table = ()
            self.attacker = player if action.beats else 1 - player  # R13-R14
            if len(self.hands[0]) == 1 and len(self.hands[1]) == 1:
                self._showdown()
        self.events.append(event)

    def _showdown(self) -> None:
        a, b = self.hands[0][0], self.hands[1][0]
        winner = 0 if a < b else 1 if b < a else None
        arrow = self.g.board.first_replacer(self.g.rules)
        if winner is None and self.g.rules.tie == "arrow" and arrow != "both":
            winner = 0 if arrow == "p0" else 1  # R17 option tie=arrow
        self.winner, self.done = winner, True

    def _action_to_string(self, player: int, action_id: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action_id + 1}"
        return str(self.g.codec.decode(action_id))

    def is_terminal(self) -> bool:
        return self.done

    def returns(self) -> list[float]:
        if not self.done:
            return [0.0, 0.0]
        u = self.g.utilities[0 if self.winner == 0 else 1 if self.winner is None else 2]
        return [u, -u]

    def __str__(self) -> str:
        return (
            f"p0 [{format_cards(self.hands[0])}] p1 [{format_cards(self.hands[1])}] "
            f"attacker p{self.attacker} table [{format_cards(self.table)}] dealt {self.dealt}"
        )

    # -- the information set
    def _seen(self) -> Hand:
        seen = [c for e in self.events for c in e.cards]
        return remove(hand(seen), self.table) if self.table else hand(seen)

    def info(self, player: int) -> dict[str, Any]:
        """`player`'s information set now (RULES §5); the observers read only this."""
        n = self.g.hand_size
        dealing = len(self.dealt) < 2 * n
        own = self.dealt[n * player : n * (player + 1)] if dealing else self.hands[player]
        played = _cards_played(self.events, player)
        return {
            "phase": self._phase_of(player, dealing),
            "board": self.g.board,
            "first_replacer": self.g.board.first_replacer(self.g.rules),
            "replace_cap": None,
            "hand": hand(own),
            "my_pending": None,
            "seen": self._seen(),
            "table": self.table,
            "hand_sizes": [len(self.hands[0]), len(self.hands[1])] if not dealing else _dealt_sizes(len(self.dealt), n),
            "draw_pile": self.g.rules.deck_size - 2 * n,
            "attacker": None if dealing else self.attacker,
            "revealed_discards": [None, None],
            "history": self._history(),
            "past": [],
            "dealt": hand(own) if dealing else hand(list(self.hands[player]) + played),
            "drawn": [],
            "rounds": [0, 0, 0],
        }

    def _phase_of(self, player: int, dealing: bool) -> str:
        """What `player` does now: watch the deal, attack or answer (R10,
        R12), wait, or nothing once the round is over."""
        if dealing:
            return "deal"
        if self.done:
            return OVER
        if self.current_player() == player:
            return Decision.ANSWER if self.table else Decision.ATTACK
        return "wait"

    def _history(self) -> list[Event]:
        return [DealEvent(self.g.hand_size, self.g.board.cat), *self.events]

    def game_state(self) -> GameState:
        """This deal as a `GameState` in its play phase (hidden cards
        included), for the bots that read a whole state (the oracle)."""
        if len(self.dealt) < 2 * self.g.hand_size:
            raise TacocatError("the cards are still being dealt: no game state yet")
        return GameState.at_play_phase(
            self.hands, self.attacker, events=self.events, rules=self.g.rules, board=self.g.board, ended=self.done
        )

    def view(self, player: int) -> View:
        """`player`'s `View`, what our bots read."""
        return self.game_state().view(player)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "FrozenPlayState":
        """A world from `player_id`'s information set (the shared R20 draw,
        module doc)."""
        return resample_play_world(self, int(player_id), _SamplerRandom(probability_sampler))
