"""`tacocat play`: a whole game against an engine bot in the terminal.

The game is `tacocat.rules.game.GameState`; this module only draws it, reads the
human's moves in plain notation (`Action.parse`), lets the bot
choose from its own view, and saves the record after every action.  Input
is read line by line, so a piped script plays as well as a person; the end
of input saves the game and stops cleanly."""

from __future__ import annotations

import inspect
import os
import random
import re
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from tacocat.cli.option_table import file_option
from tacocat.cli.search_options import search_options
from tacocat.cli.terminal import (
    CliError,
    arrow_text,
    cards,
    draw_board,
    format_action,
    format_hint,
    format_history,
    friendly_errors,
    interrupt_sets,
    is_terminal,
)
from tacocat.errors import IllegalMoveError, NotationError, RecordError, TacocatError
from tacocat.players.bots import BOTS, choose, make_bot
from tacocat.rules.actions import BEAT_WORDS, FORMS, KIND_WORDS, NONE_WORDS, Action
from tacocat.rules.cards import format_cards, remove
from tacocat.rules.events import ATTACK, DealEvent, Decision, DuelEvent, Event, PlayEvent, ReplaceEvent, ShowdownEvent
from tacocat.rules.files import read_json, write_json
from tacocat.rules.game import DUEL, REPLACE, GameRecord, GameState
from tacocat.rules.play import next_attacker
from tacocat.rules.rulebook import rule, rule_numbers, rule_text
from tacocat.rules.ruleset import load_ruleset

HELP_TEXT = """\
At each prompt type your move in plain notation (the kind word is optional):
  replace   the cards to discard: "2 3", "replace 2 3"; "none" keeps your hand
  duel      one card: "9"
  attack    a single, a set or a sequence: "9", "8 8", "4 5 6" (never your last card)
  answer    one card per attack card: "10", "answer 9 12"; add "beat" or
            "sacrifice" when the same cards could do either
Other commands:
  hint [--top N] [--time MS] [--all]   the engine's ranked moves for your position
  moves      every legal move          undo     back to your previous decision
  history    this round so far         score    rounds won and rounds still needed
  rules [R12] a rule (every refusal names one)
  board      redraw the board          help     this text
  quit       save and stop"""

COMMAND_LIST = "hint, moves, undo, history, score, rules, board, help, quit"
HINT_USAGE = 'hint [--top N] [--time MS] [--all], e.g. "hint --top 3" or "hint --time 2000"'


class InputEnded(Exception):
    """stdin reached its end (or the user typed quit: args ("quit",))."""


def rounds_needed(board: Any, player: int) -> int:
    """Rounds `player` must still win (R18-R19): `Board.rounds_to_win`."""
    return board.rounds_to_win(player)


def drawn_cards(before: tuple, after: tuple, discarded: Sequence[int]) -> tuple:
    """The cards drawn at a replacement: the hand after it less what was
    kept (R7/R8; only the player who drew sees them)."""
    return remove(after, remove(before, tuple(discarded)))


def round_counts(state: GameState) -> tuple[list[int], int]:
    """Rounds won by player 0 and player 1, and rounds drawn (R17)."""
    won = [sum(1 for r in state.rounds if r["winner"] == p) for p in (0, 1)]
    return won, sum(1 for r in state.rounds if r["winner"] is None)


def rounds(n: int, more: str = "") -> str:
    """A count of rounds that reads as one: "1 round", "4 more rounds"."""
    return f"{n} {more + ' ' if more else ''}round{'s' if n != 1 else ''}"


def and_drawn(drawn: int) -> str:
    """The drawn rounds after a count of rounds (R17): ", 1 round drawn", or
    nothing when no round was drawn."""
    return f", {rounds(drawn)} drawn" if drawn else ""


def parse_hint_args(words: list[str]) -> tuple[int | None, int | None, bool]:
    """(top, time_ms, all) of `hint --top N --time MS --all` typed at the prompt:
    8 rows unless --all asks for every move."""
    top: int | None = None
    time_ms: int | None = None
    show_all = False
    i = 0
    while i < len(words):
        flag = words[i]
        if flag == "--all":
            show_all = True
            i += 1
            continue
        if (
            flag not in ("--top", "--time")
            or i + 1 >= len(words)
            or not re.fullmatch(r"\d+", words[i + 1])
            or int(words[i + 1]) < 1
        ):
            raise NotationError(f"hint: {' '.join(words)!r} not understood; expected {HINT_USAGE}")
        value = int(words[i + 1])
        if flag == "--top":
            top = value
        else:
            time_ms = value
        i += 2
    if top is None and not show_all:
        top = 8
    return top, time_ms, show_all


@dataclass(eq=False)
class Session:
    """One game at the terminal: the state, who sits where, the bot, the
    save file, and the decisions taken back (`undos`)."""

    state: GameState
    seat: int
    bot: Any
    bot_name: str
    seed: int
    save_path: Path | None
    hint_ms: int | None
    bot_budget: dict
    undos: list[dict] = field(default_factory=list)
    color: bool | None = None  # None: colour on a terminal that wants it
    names: list[str] = field(init=False)
    interactive: bool = field(init=False)

    def __post_init__(self) -> None:
        self.undos = list(self.undos)  # a copy: taking moves back does not change the caller's list
        self.names = ["you", "you"]
        self.names[1 - self.seat] = "the engine"
        self.interactive = is_terminal(sys.stdin)
        if self.color is None:
            self.color = is_terminal(sys.stdout) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        if self.interactive:
            try:
                import readline  # noqa: F401  (line editing and history for input())
            except ImportError:
                pass

    # ----------------------------------------------------------- output
    def say(self, text: str = "", **style: Any) -> None:
        click.echo(self.paint(text, **style), color=self.color)

    def paint(self, text: str, **style: Any) -> str:
        """`text` in colour on a terminal that wants it (not NO_COLOR),
        plain otherwise (pipes, files, tests)."""
        return click.style(text, **style) if self.color and style else text

    def goal_names(self) -> tuple[str, str]:
        return tuple(f"P{p} ({'you' if p == self.seat else 'engine'})" for p in (0, 1))  # type: ignore[return-value]

    def show_board(self) -> None:
        self.say(draw_board(self.state.board, self.state.rules, self.goal_names()))
        arrow = arrow_text(self.state.board, self.state.rules, self.goal_names())
        if arrow and not self.state.over:
            self.say(arrow)

    def show_status(self) -> None:
        s, me = self.state, self.seat
        self.say(
            f"your hand: {format_cards(s.hands[me])}   the engine holds {cards(len(s.hands[1 - me]))}, "
            f"draw pile {cards(len(s.draw_pile))}",
            bold=True,
        )
        if s.discard:
            self.say(f"seen this round: {format_cards(s.discard)}")

    def does(self, p: int, verb: str) -> str:
        """ "you attack" / "the engine attacks"."""
        if p == self.seat:
            return f"you {verb}"
        return f"the engine {verb}es" if verb.endswith(("s", "sh", "ch")) else f"the engine {verb}s"

    def score_text(self) -> str:
        """Rounds won so far and rounds each side still needs (R18-R19)."""
        s, me = self.state, self.seat
        won, drawn = round_counts(s)
        head = f"score: you {rounds(won[me])} won, the engine {rounds(won[1 - me])} won{and_drawn(drawn)}"
        if s.over:
            return head
        need = [rounds_needed(s.board, p) for p in (0, 1)]
        if need[1 - me] < need[me]:
            tail = f"the engine needs {rounds(need[1 - me], 'more')}; you need {rounds(need[me], 'more')}"
        else:
            tail = f"you need {rounds(need[me], 'more')}; the engine needs {rounds(need[1 - me], 'more')}"
        return f"{head}; {tail}"

    def event_text(self, e: Event, following: Event | None = None) -> str:
        """One public event in words; `following` (the next event, if it
        came with it) tells the last trick and the duel before a showdown
        from one that leads to another trick."""
        showdown_next = isinstance(following, ShowdownEvent)
        if isinstance(e, DealEvent):
            return f"round dealt: the cat on space {e.cat}, {e.hand_size} cards each"
        if isinstance(e, ReplaceEvent):
            return self.replace_text(e)
        if isinstance(e, DuelEvent):
            return self.duel_text(e, showdown_next)
        if isinstance(e, PlayEvent) and e.event is ATTACK:
            return f"{self.does(e.player, 'attack')} with {format_cards(e.cards)}"
        if isinstance(e, PlayEvent):
            return self.answer_text(e, showdown_next)
        if isinstance(e, ShowdownEvent):
            return self.showdown_text(e)
        return str(e)

    def replace_text(self, e: ReplaceEvent) -> str:
        """R7/R8: what was discarded, and how many drawn (the cards drawn are
        secret)."""
        p, discarded = e.player, e.cards
        if not discarded:
            return f"{self.does(p, 'keep')} the whole hand"
        return (
            f"{self.does(p, 'discard')} {format_cards(discarded)} "
            f"and draw{'s' if p != self.seat else ''} {cards(len(discarded))}"
        )

    def duel_text(self, e: DuelEvent, showdown_next: bool) -> str:
        """R9: a tie, straight to the showdown, or who attacks first."""
        mine, theirs = e.cards[self.seat], e.cards[1 - self.seat]
        if mine == theirs:
            return f"duel: both {mine}, a tie; both discarded, duel again (R9)"
        if showdown_next:
            return (
                f"duel: you {mine}, the engine {theirs}; one card each is left, "
                "so no tricks: straight to the showdown (R9)"
            )
        who = "you attack" if mine > theirs else "the engine attacks"
        return f"duel: you {mine}, the engine {theirs}: {who} first"

    def answer_text(self, e: PlayEvent, showdown_next: bool) -> str:
        """R12/R13: the answer, who won the trick and who attacks next."""
        p = e.player
        a = next_attacker(p, e.beats)
        how = "every card beats" if e.beats else "a sacrifice"
        if showdown_next:
            result = f"{how}, {self.does(a, 'win')} the last trick; one card each: showdown"
        elif e.beats:
            result = f"{how}, {self.does(p, 'win')} the trick and attack{'s' if p != self.seat else ''} next"
        else:
            result = f"{how}, {self.does(a, 'win')} the trick and attack{'s' if a != self.seat else ''} again"
        return f"{self.does(p, 'answer')} {format_cards(e.cards)}: {result}"

    def showdown_text(self, e: ShowdownEvent) -> str:
        """R17: the last cards, and the round drawn or won."""
        head = f"showdown: you {e.cards[self.seat]}, the engine {e.cards[1 - self.seat]}"
        if e.winner is None:
            return f"{head}: equal ranks, the round is drawn and dealt again on the same space (R17)"
        if e.winner == self.seat:
            return f"{head}: the lower card wins, you win the round; the cat moves toward your goal"
        return f"{head}: the lower card wins, the engine wins the round; the cat moves toward its goal"

    def my_draw(self, e: Event, drawn: tuple | None) -> ReplaceEvent | None:
        """`e` when it is this seat's own replacement of some cards and the
        cards it drew are known (only this seat sees them, R8)."""
        if isinstance(e, ReplaceEvent) and e.player == self.seat and e.cards and drawn is not None:
            return e
        return None

    def report(self, events: Sequence[Event], drawn: tuple | None = None) -> None:
        """Tell the public events of the last action(s); `drawn` are the
        cards you drew at a replacement (only you see them)."""
        for i, e in enumerate(events):
            following = events[i + 1] if i + 1 < len(events) else None
            if isinstance(e, DealEvent):
                self.report_deal(e, after_showdown=i > 0 and isinstance(events[i - 1], ShowdownEvent))
            elif isinstance(e, ShowdownEvent):
                self.report_showdown(e)
            elif mine := self.my_draw(e, drawn):
                self.say(f"you discard {format_cards(mine.cards)} and draw {format_cards(drawn or ())}", fg=None)
            else:
                theirs = getattr(e, "player", self.seat) != self.seat  # a duel is both seats'
                self.say(self.event_text(e, following), fg="yellow" if theirs else None)

    def report_deal(self, e: DealEvent, after_showdown: bool) -> None:
        """A new round: its number, the board, and the score (said already
        just after a showdown)."""
        self.say("")
        n = len(self.state.rounds) + 1
        self.say(f"=== round {n}: the cat on space {e.cat}, {e.hand_size} cards each ===", bold=True)
        self.show_board()
        if not after_showdown:
            self.say(self.score_text(), fg="cyan")

    def report_showdown(self, e: ShowdownEvent) -> None:
        colour = "green" if e.winner == self.seat else None if e.winner is None else "red"
        self.say(self.showdown_text(e), bold=True, fg=colour)
        if not self.state.over:
            self.say(self.score_text(), fg="cyan")

    def drawn_this_round(self) -> tuple | None:
        """The cards you drew at this round's replacement (only you saw
        them), found by replaying the game's actions."""
        state = GameState.new(self.state.rules, self.state.seed)
        drawn = None
        for entry in self.state.actions:
            before = state.hands[self.seat]
            for e in state.apply(entry["player"], Action.from_dict(entry)):
                if isinstance(e, DealEvent):
                    drawn = None
                elif isinstance(e, ReplaceEvent) and e.player == self.seat and e.cards:
                    drawn = drawn_cards(before, state.hands[self.seat], e.cards)
        return drawn

    def history_text(self) -> str:
        """This round's public events so far, tricks numbered."""
        events = self.state.history
        drawn = self.drawn_this_round()
        lines = [f"round {len(self.state.rounds) + 1}:"]
        trick = 0
        for i, e in enumerate(events):
            following = events[i + 1] if i + 1 < len(events) else None
            if isinstance(e, PlayEvent) and e.event is ATTACK:
                trick += 1
                lines.append(f"  trick {trick}: {self.event_text(e)}")
            elif isinstance(e, PlayEvent):
                lines.append(f"           {self.event_text(e, following)}")
            elif mine := self.my_draw(e, drawn):
                lines.append(f"  you discard {format_cards(mine.cards)} and draw {format_cards(drawn or ())}")
            else:
                lines.append(f"  {self.event_text(e, following)}")
        if self.state.table:
            lines.append(f"  now: answer {format_cards(self.state.table)}")
        if trick == 0 and not any(isinstance(e, (ReplaceEvent, DuelEvent)) for e in events):
            lines.append("  (nothing played yet)")
        return "\n".join(lines)

    # ------------------------------------------------------------ saving
    def save(self) -> None:
        if self.save_path is None:
            return
        data = self.state.record().to_dict()
        data["players"] = {str(self.seat): "human", str(1 - self.seat): self.bot_name}
        if self.bot_budget:
            data["bot_budget"] = self.bot_budget
        if self.undos:
            data["undos"] = self.undos
        write_json(self.save_path, data)

    def saved_text(self) -> str:
        if self.save_path is None:
            return "the game was not saved (use --save GAME.json to keep it)"
        return (
            f"game saved to {self.save_path} ({len(self.state.actions)} actions); "
            f"continue with: tacocat play --resume {self.save_path}"
        )

    # ------------------------------------------------------------- input
    def read(self, prompt: str) -> str:
        click.echo(self.paint(prompt, bold=True), nl=False, color=self.color)
        try:
            line = input()
        except EOFError:
            click.echo("")
            raise InputEnded() from None
        if not self.interactive:
            click.echo(line)
        return line

    def apply(self, player: int, action: Any) -> None:
        before = self.state.hands[self.seat]
        events = self.state.apply(player, action)
        self.save()
        drawn = None
        mine = [e for e in events if isinstance(e, ReplaceEvent) and e.player == self.seat]
        if mine:
            drawn = drawn_cards(before, self.state.hands[self.seat], mine[0].cards)
        self.report(events, drawn)

    def undo(self) -> bool:
        """Back to your previous decision: the actions from your last one on
        are taken back, logged in `undos` (so the record says so) and the
        game replayed from the rest.  False when there is nothing to undo."""
        actions = self.state.actions
        mine = [i for i, a in enumerate(actions) if a.get("player") == self.seat]
        if not mine:
            self.say("nothing to undo: you have not moved yet this game")
            return False
        # A forced move would be played again at once: go back past it to a real choice.
        at = next((i for i in reversed(mine) if len(self.legal_before(i)) > 1), None)
        if at is None:
            self.say("nothing to undo: every move of yours so far was your only legal one")
            return False
        taken = [dict(a) for a in actions[at:]]
        self.state = GameRecord(self.state.rules, self.state.seed, [dict(a) for a in actions[:at]]).replay()
        self.undos.append({"at": at, "taken_back": taken})
        self.save()
        engine = len(taken) - 1
        tail = {0: "", 1: " and the engine's move after it"}.get(engine, f" and the engine's {engine} moves after it")
        self.say(
            f"undone: your {format_action(taken[0])}{tail}; back to round {len(self.state.rounds) + 1}, "
            f"your {self.state.decision(self.seat)}",
            fg="magenta",
        )
        return True

    def legal_before(self, at: int) -> list[Action]:
        """Your legal actions when the game's action `at` was taken."""
        actions = [dict(a) for a in self.state.actions[:at]]
        return GameRecord(self.state.rules, self.state.seed, actions).replay().legal_actions(self.seat)

    def refuse(self, exc: TacocatError, decision: str) -> None:
        """A refused line: its one reason (with its rule, once), then what
        is legal (once): a notation error already names the expected form."""
        rule_ = f" ({exc.rule})" if exc.rule else ""
        self.say(f"not legal{rule_}: {exc.message}", fg="red")
        self.say(self.legal_text())

    def human_turn(self) -> None:
        s, me = self.state, self.seat
        decision = s.decision(me)
        assert decision is not None, "human_turn runs only when the human seat has a decision"
        self.show_status()
        legal = s.legal_actions(me)
        if len(legal) == 1:  # nothing to choose: asking would only make the player type it
            why = " (R7: the first replacer kept its whole hand)" if decision == REPLACE else ""
            self.say(f"your only legal move, played for you: {legal[0]}{why}")
            self.apply(me, legal[0])
            return
        self.say_what_to_do(decision)
        while True:
            line = self.read(f"{decision}> ").strip()
            words = line.split()
            if not words:
                continue
            done = self.prompt_command(words)
            if done is None:  # not a command: a move
                done = self.try_move(line, words[0], decision)
            if done:
                return

    def say_what_to_do(self, decision: Decision) -> None:
        """What the decision asks for, before its first prompt."""
        s = self.state
        if decision == Decision.ANSWER:
            n = len(s.table)
            self.say(
                f"answer the attack {format_cards(s.table)}: "
                f"{'one card' if n == 1 else f'{n} cards, one per attack card'} (R12)"
            )
        elif decision == REPLACE and s.replace_cap is not None:
            self.say(f"you may discard at most {cards(s.replace_cap)} (R7)")
        elif decision == DUEL:
            self.say("duel: choose one card in secret; the higher attacks first (R9)")

    def prompt_command(self, words: list[str]) -> bool | None:
        """A command typed at the prompt, run: True when it ended the turn
        (an undo), False when the prompt asks again, None when `words` are
        no command (a move, or neither)."""
        word = words[0].lower()
        if word in ("quit", "exit", "q"):
            raise InputEnded("quit")
        if word == "undo":
            return self.undo()  # after an undo the loop asks again from the state it went back to
        if word == "rules":
            self.show_rules(words[1:])
            return False
        if word == "hint":
            self.hint_command(words[1:])
            return False
        show = self.shows().get(word)
        if show is None:
            return None
        show()
        return False

    def shows(self) -> dict[str, Callable[[], None]]:
        """The prompt's commands that only show something, by their words."""
        return {
            "help": self.show_help,
            "?": self.show_help,
            "moves": self.show_legal,
            "legal": self.show_legal,
            "board": self.show_position,
            "score": self.show_score,
            "history": self.show_history,
        }

    def show_help(self) -> None:
        self.say(HELP_TEXT)

    def show_legal(self) -> None:
        self.say(self.legal_text())

    def show_position(self) -> None:
        self.show_board()
        self.show_status()

    def show_score(self) -> None:
        self.say(self.score_text(), fg="cyan")

    def show_history(self) -> None:
        self.say(self.history_text())

    def hint_command(self, words: list[str]) -> None:
        try:
            top, time_ms, show_all = parse_hint_args(words)
        except NotationError as exc:
            self.say(f"not understood: {exc.message}", fg="red")
            return
        self.show_hint(top, time_ms, show_all)

    def try_move(self, line: str, first: str, decision: Decision) -> bool:
        """The line read as a move and played: True when it was legal."""
        word = first.lower()
        if word.isalpha() and word not in KIND_WORDS and word not in NONE_WORDS and word not in BEAT_WORDS:
            self.say(
                f"'{first}' is neither a move nor a command (commands: {COMMAND_LIST}; "
                f"{'an' if decision[0] in 'aeiou' else 'a'} {decision}: {FORMS[decision]})",
                fg="red",
            )
            return False
        try:
            action = Action.parse(line, decision, self.state.legal_actions(self.seat))
            self.apply(self.seat, action)
            return True
        except (IllegalMoveError, NotationError) as exc:
            self.refuse(exc, decision)
            return False

    def show_rules(self, words: list[str]) -> None:
        if not words:
            self.say("the rules (type 'rules R12' for one; 'tacocat rules' prints the whole page):")
            for n in rule_numbers():
                self.say(f"  R{n:<3} {rule(n)[0]}")
            return
        try:
            self.say(rule_text(" ".join(words)))
        except NotationError as exc:
            self.say(f"not understood: {exc.message}", fg="red")

    def legal_text(self) -> str:
        s, me = self.state, self.seat
        legal = s.legal_actions(me)
        if s.decision(me) == REPLACE:
            cap = len(s.hands[me]) if s.replace_cap is None else s.replace_cap
            return (
                f"legal: discard any 0 to {cap} of your cards {format_cards(s.hands[me])} "
                f'({len(legal)} choices), e.g. "none" or "replace {s.hands[me][0]}"'
            )
        return "legal: " + "; ".join(str(a) for a in legal)

    def show_hint(self, top: int | None = 8, time_ms: int | None = None, show_all: bool = False) -> None:
        """The engine's ranked moves for the human's position.  Ctrl-C during
        the search stops it, shows what it found so far, and the prompt
        comes back: the game goes on (issue 35)."""
        import threading

        from tacocat.cli.hint_cmd import run_hint

        view = self.state.view(self.seat)
        stop = threading.Event()
        try:
            with interrupt_sets(stop):
                result = run_hint(
                    view, time_ms=time_ms or self.hint_ms, iterations=None, seed=0, method="auto", stop=stop
                )
        except (TacocatError, CliError) as exc:
            self.say(f"no hint: {exc}" + (" (stopped by Ctrl-C)" if stop.is_set() else ""))
            return
        if view.play_history:  # the hint dealt only hands consistent with it (R20)
            self.say(f"round so far (tacocat hint --history takes it): {format_history(view.play_history)}")
        if stop.is_set():
            self.say("hint stopped by Ctrl-C: what the search found so far (the game goes on)", fg="yellow")
        self.say(format_hint(result, top=top, show_all=show_all))

    def bot_turn(self, player: int) -> None:
        # One RNG per decision, keyed by the position in the game: a resumed
        # or undone game meets the same engine replies to the same moves.
        rng = random.Random(f"{self.seed}/bot{player}/{len(self.state.actions)}")
        action = choose(self.bot, self.state, player, rng)
        self.apply(player, action)

    # -------------------------------------------------------------- loop
    def run(self) -> int:
        if not self.state.actions:
            self.report(self.state.history)
        else:
            self.say(f"resuming after {len(self.state.actions)} actions, round {len(self.state.rounds) + 1}")
            self.show_board()
            self.say(self.score_text(), fg="cyan")
        self.save()
        try:
            while True:
                while not self.state.over:
                    acting = self.state.acting_players()
                    if self.seat in acting:
                        self.human_turn()
                    else:
                        self.bot_turn(acting[0])
                self.say("")
                self.show_board()
                self.say(self.game_over_text(), bold=True)
                if not (self.interactive and self.last_word()):
                    break
        except InputEnded as stop:
            self.save()
            if self.state.over:
                return self.finished()
            why = "stopped" if stop.args == ("quit",) else "input ended before the game did"
            self.say(f"{why}: {self.saved_text()}")
            return 0
        except KeyboardInterrupt:
            self.save()
            self.say("")
            self.say(f"interrupted: {self.saved_text()}")
            return 130
        return self.finished()

    def last_word(self) -> bool:
        """At a terminal, a last chance to take back the move that ended the
        game (a slip of one key should not lose it): True after an undo."""
        while True:
            line = self.read("game over (undo, or Enter to finish)> ").strip().lower()
            if line != "undo":
                return False
            if self.undo():
                return True

    def finished(self) -> int:
        if self.save_path is not None:
            self.say(f"record saved to {self.save_path}; review it with: tacocat analyze {self.save_path}")
        return 0

    def game_over_text(self) -> str:
        s, me = self.state, self.seat
        won, drawn = round_counts(s)
        played = f"{rounds(len(s.rounds))} played{and_drawn(drawn)}"
        if s.winner is None:
            return f"game over: drawn, no winner after {s.deals} deals (R19); {played}"
        who = "you win" if s.winner == me else "the engine wins"
        return f"game over: {who}, {rounds(won[s.winner])} to {won[1 - s.winner]} ({played})"


def bot_budget(strength: int | None, time_ms: int | None, clock: str = "wall") -> dict:
    budget: dict = {}
    if strength is not None:
        budget["iterations"] = strength
    if time_ms is not None:
        budget["time_ms"] = time_ms
        budget["clock"] = clock
    return budget


def saved_budget(data: dict) -> dict:
    """The bot's budget a saved game carries (`bot_budget`), checked: a
    hand-edited record must not crash the bot in the middle of the game."""
    raw = data.get("bot_budget")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise RecordError(f"game record 'bot_budget' must be an object like {{\"iterations\": 50}}, got {raw!r}")
    budget = {}
    for key in ("iterations", "time_ms"):
        if key in raw:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise RecordError(f"game record 'bot_budget' {key!r} must be a positive integer, got {value!r}")
            budget[key] = value
    if "clock" in raw:
        if raw["clock"] not in ("cpu", "wall"):
            raise RecordError(f"game record 'bot_budget' 'clock' must be \"cpu\" or \"wall\", got {raw['clock']!r}")
        budget["clock"] = raw["clock"]
    return budget


def build_bot(name: str, budget: dict) -> Any:
    """The engine's bot; a budget key the bot does not use is ignored."""
    return make_bot(name, **budget)


OPPONENTS = sorted(BOTS)
SEARCH_BOTS = [name for name in OPPONENTS if name not in ("random", "heuristic", "oracle")]
"""The bots --strength and --time give a budget to (the others ignore one)."""
DEFAULT_OPPONENT = "pimc" if "pimc" in BOTS else "heuristic"


@click.command(name="play")
@click.option(
    "--opponent", type=click.Choice(OPPONENTS), default=None, help=f"The engine's bot (default {DEFAULT_OPPONENT})."
)
@click.option(
    "--strength",
    type=click.IntRange(1),
    default=None,
    help="Search budget of a search bot: sampled deals or iterations per move.",
)
@search_options(
    time="Search time of a search bot, milliseconds per move.",
    clock={
        "default": "wall",
        "help": "What --time counts: wall, elapsed time (the default: you wait on it), or cpu, "
        "the engine's own CPU time (the same strength on a loaded machine, slower answers).",
    },
)
@click.option(
    "--seat",
    type=click.IntRange(0, 1),
    default=None,
    help="Your seat: 0 (goal on the left) or 1 (goal on the right); default 0.",
)
@search_options(
    seed={
        "default": None,
        "show_default": False,
        "help": "Seed of the deals and of the bot (default: a fresh one, printed): "
        "the same seed and moves replay the same game.",
    }
)
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml); standard by default.")
@file_option("--save", "save_path", help="Write the game record to this file after every action.")
@file_option(
    "--resume", "resume_path", help="Continue a saved game (and keep saving to it unless --save says otherwise)."
)
@click.option(
    "--hint-time",
    type=click.IntRange(1),
    default=None,
    help="Milliseconds the engine spends on a 'hint' at the prompt (default: the engine's own budget, under a second).",
)
@friendly_errors
def command(opponent, strength, time_ms, clock, seat, seed, rules_path, save_path, resume_path, hint_time):
    """Play a whole game against the engine, one prompt per decision.

    The board shows the seven spaces with the hand size dealt on each, the
    tiles (###), the cat (^) and both goals.  You see your hand, the face-up
    cards of the round and the engine's moves; type yours in plain notation.
    A rejected move is explained and asked again.  A move that is your only
    legal one (replace none after a first replacer who kept its hand, R7)
    is played for you and said; undo goes back past it.

    \b
    At any prompt:
      8 8 / answer 9 12 / none / duel 9   a move (kind word optional)
      hint [--top N] [--time MS] [--all]   the engine's ranked moves for you
      moves    every legal move;   undo   back to your previous decision
      history  this round so far;  score  rounds won and still needed
      rules R12   read a rule (every refusal names one)
      board  redraw;  help  notation;  quit  save and stop (so does Ctrl-D)

    Without --seed a fresh seed is drawn and printed: give it to --seed to
    play the same deals again.  At a terminal, the move that ended the game
    can still be taken back ("undo" at the game-over prompt).  An undo is
    kept in the saved record: its "actions" are the game as it stands (they
    replay to it) and its "undos" list what was taken back, where.  Colour on a terminal, plain
    text when piped or when NO_COLOR is set.

    \b
    Examples:
      tacocat play --opponent heuristic --seed 7 --save game.json
      tacocat play --opponent pimc --time 500 --seat 1
      tacocat play --resume game.json
      printf 'none\\n12\\n12\\n' | tacocat play --opponent random --seed 11 --save g.json   # scripted"""
    budget = bot_budget(strength, time_ms, clock)
    asked = Asked(rules_path, save_path, seat, seed, opponent, budget)
    start = new_game(asked) if resume_path is None else resumed_game(resume_path, asked)
    check_budget_use(start.opponent, strength, time_ms)
    bot = build_bot(start.opponent, start.budget)
    session = Session(
        start.state, start.seat, bot, start.opponent, start.seed, start.save, hint_time, start.budget, start.undos
    )
    session.save()  # an unwritable --save fails here, before the game starts
    replay = f" (play these deals again with --seed {start.seed})" if start.fresh else ""
    click.echo(
        f"tacocat: you are player {start.seat}, the engine ({start.opponent}) player {1 - start.seat}; "
        f"seed {start.seed}{replay}. Type 'help' for the notation and commands."
    )
    code = session.run()
    if code:
        sys.exit(code)


@dataclass
class Start:
    """Where a game at the terminal starts: a new deal or a saved game,
    with who sits where, the bot's name and budget, and the save file."""

    state: GameState
    seat: int
    opponent: str
    budget: dict
    save: Path | None
    seed: int
    undos: list
    fresh: bool = False
    """A seed drawn now (printed, so the deals can be played again)."""


@dataclass(frozen=True)
class Asked:
    """The game options the command line gave (None: not given)."""

    rules_path: str | None
    save_path: str | None
    seat: int | None
    seed: int | None
    opponent: str | None
    budget: dict


def new_game(asked: Asked) -> Start:
    """A new game: a seed drawn when none is given."""
    fresh = asked.seed is None
    # a new deal each game when no seed is given; printed so it can be replayed
    seed = secrets.randbelow(1_000_000) if asked.seed is None else asked.seed
    state = GameState.new(load_ruleset(asked.rules_path), seed)
    save = Path(asked.save_path) if asked.save_path else None
    seat = 0 if asked.seat is None else asked.seat
    return Start(state, seat, asked.opponent or DEFAULT_OPPONENT, asked.budget, save, seed, [], fresh)


def resumed_game(resume_path: str, asked: Asked) -> Start:
    """The saved game to go on with: the options given must agree with it
    (its ruleset, seat and seed are the record's), the others are read
    from it."""
    data = read_json(resume_path, "game record")
    record = GameRecord.from_dict(data)
    if asked.rules_path is not None:
        raise CliError("--rules cannot change the ruleset of a saved game; drop --rules with --resume")
    state = record.replay()
    players = data.get("players") if isinstance(data.get("players"), dict) else {}
    seat = saved_seat(players, asked.seat)
    opponent = asked.opponent
    if opponent is None:
        saved = players.get(str(1 - seat))
        opponent = saved if saved in OPPONENTS else DEFAULT_OPPONENT
    budget = asked.budget or saved_budget(data)
    save = Path(asked.save_path or resume_path)
    if asked.seed is not None and asked.seed != record.seed:
        raise CliError(f"--seed {asked.seed}: the saved game has seed {record.seed}; drop --seed with --resume")
    undos = data.get("undos") if isinstance(data.get("undos"), list) else []
    if state.over:
        raise CliError(f"the game in {resume_path} is already over; review it with: tacocat analyze {resume_path}")
    return Start(state, seat, opponent, budget, save, record.seed, undos)


def saved_seat(players: dict, seat: int | None) -> int:
    """The human's seat of a saved game (its `players`); --seat must agree."""
    human = [int(k) for k, v in players.items() if v == "human" and k in ("0", "1")]
    if seat is not None and human and seat != human[0]:
        raise CliError(f"--seat {seat}: you sat in seat {human[0]} of the saved game; drop --seat with --resume")
    if seat is None:
        seat = human[0] if human else 0
    return seat


def check_budget_use(opponent: str, strength: int | None, time_ms: int | None) -> None:
    """--strength and --time give a search bot its budget: an error for a bot that does not search."""
    if opponent not in SEARCH_BOTS and (strength is not None or time_ms is not None):
        flag = "--strength" if strength is not None else "--time"
        raise CliError(
            f"{flag} sets the budget of a search bot, but the engine ({opponent}) does not search: drop "
            f"{flag}, or choose a searching --opponent ({', '.join(SEARCH_BOTS)})"
        )


command.help = inspect.cleandoc(command.help or "") + (  # after the dedented docstring
    "\n\nOpponents: "
    + ", ".join(OPPONENTS)
    + " (pimc and ismcts search; --strength/--time set their budget; oracle cheats: it sees your hand)"
)
