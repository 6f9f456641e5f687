"""`tacocat play`: a whole game against an engine bot in the terminal.

The game is `tacocat.rules.game.GameState`; this module only draws it, reads the
human's moves in plain notation (`cli.notation.parse_move`), lets the bot
choose from its own view, and saves the record after every action.  Input
is read line by line, so a piped script plays as well as a person; the end
of input saves the game and stops cleanly."""

from __future__ import annotations

import inspect
import random
import sys
from pathlib import Path
from typing import Any

import click

from tacocat.cli.notation import (
    MOVE_FORMS,
    CliError,
    arrow_text,
    draw_board,
    format_action,
    format_hint,
    format_history,
    friendly_errors,
    is_terminal,
    parse_move,
    read_json,
    write_json,
)
from tacocat.players.bots import BOTS, choose, make_bot
from tacocat.rules.cards import format_cards
from tacocat.errors import IllegalMoveError, NotationError, RecordError, TacocatError
from tacocat.rules.game import DUEL, REPLACE, GameRecord, GameState
from tacocat.rules.ruleset import load_ruleset

HELP_TEXT = """\
At each prompt type your move in plain notation (the kind word is optional):
  replace   the cards to discard: "2 3", "replace 2 3"; "none" keeps your hand
  duel      one card: "9"
  attack    a single, a set or a sequence: "9", "8 8", "4 5 6" (never your last card)
  answer    one card per attack card: "10", "answer 9 12"; add "beat" or
            "sacrifice" when the same cards could do either
Other commands: hint (the engine's ranked moves), moves (every legal move),
board, help, quit (saves and stops)."""

COMMAND_WORDS = {"hint", "moves", "legal", "board", "help", "?", "quit", "exit", "q"}


class InputEnded(Exception):
    """stdin reached its end (or the user typed quit: args ("quit",))."""


class Session:
    """One game at the terminal: the state, who sits where, the bot, the
    save file."""

    def __init__(self, state: GameState, seat: int, bot: Any, bot_name: str, seed: int,
                 save: Path | None, hint_ms: int | None, bot_budget: dict) -> None:
        self.state = state
        self.seat = seat
        self.bot = bot
        self.bot_name = bot_name
        self.bot_budget = bot_budget
        self.bot_rng = random.Random(f"{seed}/bot{1 - seat}")
        self.save_path = save
        self.hint_ms = hint_ms
        self.names = ["you", "you"]
        self.names[1 - seat] = "engine"
        self.interactive = is_terminal(sys.stdin)
        if self.interactive:
            try:
                import readline  # noqa: F401  (line editing and history for input())
            except ImportError:
                pass

    # ----------------------------------------------------------- output
    def say(self, text: str = "") -> None:
        click.echo(text)

    def name(self, p: int) -> str:
        return self.names[p]

    def goal_names(self) -> tuple[str, str]:
        return tuple(f"P{p} ({self.names[p]})" for p in (0, 1))  # type: ignore[return-value]

    def show_board(self) -> None:
        self.say(draw_board(self.state.board, self.state.rules, self.goal_names()))
        arrow = arrow_text(self.state.board, self.state.rules, self.goal_names())
        if arrow and not self.state.over:
            self.say(arrow)

    def show_status(self) -> None:
        s, me = self.state, self.seat
        self.say(f"your hand: {format_cards(s.hands[me])}   engine holds {len(s.hands[1 - me])}, draw pile {len(s.draw_pile)}")
        if s.discard:
            self.say(f"seen this round: {format_cards(s.discard)}")

    def does(self, p: int, verb: str) -> str:
        """"you attack" / "engine attacks"."""
        if p == self.seat:
            return f"you {verb}"
        return f"engine {verb}es" if verb.endswith(("s", "sh", "ch")) else f"engine {verb}s"

    def report(self, events: list[dict]) -> None:
        """Tell the public events of the last action(s)."""
        for e in events:
            kind = e.get("event")
            if kind == "deal":
                n = len(self.state.rounds) + 1
                self.say("")
                self.say(f"=== round {n}: the cat on space {e['cat']}, {e['hand_size']} cards each ===")
                self.show_board()
            elif kind == "replace":
                p, cards = e["player"], e["cards"]
                if cards:
                    self.say(f"{self.does(p, 'discard')} {format_cards(cards)} and draw{'s' if p != self.seat else ''} {len(cards)}")
                else:
                    self.say(f"{self.does(p, 'keep')} the whole hand")
            elif kind == "duel":
                c = e["cards"]
                mine, theirs = c[self.seat], c[1 - self.seat]
                if mine == theirs:
                    self.say(f"duel: both {mine}, a tie; both discarded, duel again (R9)")
                else:
                    who = "you attack" if mine > theirs else "the engine attacks"
                    self.say(f"duel: you {mine}, engine {theirs}: {who} first")
            elif kind == "attack":
                self.say(f"{self.does(e['player'], 'attack')} with {format_cards(e['cards'])}")
            elif kind == "answer":
                p = e["player"]
                if e["beats"]:
                    result = f"every card beats, {self.does(p, 'win')} the trick and attack{'s' if p != self.seat else ''} next"
                else:
                    a = 1 - p
                    result = f"a sacrifice, {self.does(a, 'win')} the trick and attack{'s' if a != self.seat else ''} again"
                self.say(f"{self.does(p, 'answer')} {format_cards(e['cards'])}: {result}")
            elif kind == "showdown":
                c, w = e["cards"], e["winner"]
                head = f"showdown: you {c[self.seat]}, engine {c[1 - self.seat]}"
                if w is None:
                    self.say(f"{head}: equal ranks, the round is drawn and dealt again (R17)")
                elif w == self.seat:
                    self.say(f"{head}: the lower card wins, you win the round; the cat moves toward your goal")
                else:
                    self.say(f"{head}: the lower card wins, the engine wins the round; the cat moves toward its goal")

    # ------------------------------------------------------------ saving
    def save(self) -> None:
        if self.save_path is None:
            return
        data = self.state.record().to_dict()
        data["players"] = {str(self.seat): "human", str(1 - self.seat): self.bot_name}
        if self.bot_budget:
            data["bot_budget"] = self.bot_budget
        write_json(self.save_path, data)

    def saved_text(self) -> str:
        if self.save_path is None:
            return "the game was not saved (use --save GAME.json to keep it)"
        return f"game saved to {self.save_path} ({len(self.state.actions)} actions); continue with: tacocat play --resume {self.save_path}"

    # ------------------------------------------------------------- input
    def read(self, prompt: str) -> str:
        click.echo(prompt, nl=False)
        try:
            line = input()
        except EOFError:
            click.echo("")
            raise InputEnded() from None
        if not self.interactive:
            click.echo(line)
        return line

    def apply(self, player: int, action: Any) -> None:
        events = self.state.apply(player, action)
        self.save()
        self.report(events)

    def human_turn(self) -> None:
        s, me = self.state, self.seat
        decision = s.decision(me)
        self.show_status()
        if decision == "answer":
            self.say(f"the engine attacks with {format_cards(s.table)}: answer every card")
        elif decision == REPLACE and s.replace_cap is not None:
            self.say(f"you may discard at most {s.replace_cap} cards (R7)")
        elif decision == DUEL:
            self.say("duel: choose one card in secret; the higher attacks first (R9)")
        while True:
            line = self.read(f"{decision}> ").strip()
            word = line.lower()
            if not word:
                continue
            if word in ("quit", "exit", "q"):
                raise InputEnded("quit")
            if word in ("help", "?"):
                self.say(HELP_TEXT)
                continue
            if word in ("moves", "legal"):
                self.say(self.legal_text())
                continue
            if word == "board":
                self.show_board()
                self.show_status()
                continue
            if word == "hint":
                self.show_hint()
                continue
            try:
                action = parse_move(line, decision, s.legal_actions(me))
                self.apply(me, action)
                return
            except (IllegalMoveError, NotationError) as exc:
                self.say(f"not legal: {exc}")
                if decision == REPLACE:
                    self.say(f"expected {MOVE_FORMS[decision]} ('help' for notation)")
                else:
                    self.say(self.legal_text())

    def legal_text(self) -> str:
        s, me = self.state, self.seat
        legal = s.legal_actions(me)
        if s.decision(me) == REPLACE:
            cap = len(s.hands[me]) if s.replace_cap is None else s.replace_cap
            return (f"legal: discard any 0 to {cap} of your cards {format_cards(s.hands[me])} "
                    f"({len(legal)} choices), e.g. \"none\" or \"replace {s.hands[me][0]}\"")
        return "legal: " + "; ".join(format_action(a) for a in legal)

    def show_hint(self) -> None:
        from tacocat.cli.hint_cmd import run_hint

        view = self.state.view(self.seat)
        try:
            result = run_hint(view, time_ms=self.hint_ms, iterations=None, seed=0, method="auto")
        except (TacocatError, CliError) as exc:
            self.say(f"no hint: {exc}")
            return
        if view.play_history:  # the hint dealt only hands consistent with it (R20)
            self.say(f"round so far (tacocat hint --history takes it): {format_history(view.play_history)}")
        self.say(format_hint(result.to_dict(), top=8))

    def bot_turn(self, player: int) -> None:
        action = choose(self.bot, self.state, player, self.bot_rng)
        self.apply(player, action)

    # -------------------------------------------------------------- loop
    def run(self) -> int:
        s = self.state
        if not s.actions:
            self.report(s.history)
        else:
            self.say(f"resuming after {len(s.actions)} actions, round {len(s.rounds) + 1}")
            self.show_board()
        self.save()
        try:
            while not s.over:
                acting = s.acting_players()
                if self.seat in acting:
                    self.human_turn()
                else:
                    self.bot_turn(acting[0])
        except InputEnded as stop:
            self.save()
            why = "stopped" if stop.args == ("quit",) else "input ended before the game did"
            self.say(f"{why}: {self.saved_text()}")
            return 0
        except KeyboardInterrupt:
            self.save()
            self.say("")
            self.say(f"interrupted: {self.saved_text()}")
            return 130
        self.say("")
        self.show_board()
        won = s.winner == self.seat
        mine = sum(1 for r in s.rounds if r["winner"] == self.seat)
        theirs = sum(1 for r in s.rounds if r["winner"] == 1 - self.seat)
        self.say(f"game over: {'you win' if won else 'the engine wins'} ({mine} rounds to {theirs}, {len(s.rounds)} played)")
        if self.save_path is not None:
            self.say(f"record saved to {self.save_path}; review it with: tacocat analyze {self.save_path}")
        return 0


def bot_budget(strength: int | None, time_ms: int | None) -> dict:
    budget: dict = {}
    if strength is not None:
        budget["iterations"] = strength
    if time_ms is not None:
        budget["time_ms"] = time_ms
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
    return budget


def build_bot(name: str, budget: dict) -> Any:
    """The engine's bot; a budget key the bot does not use is ignored."""
    return make_bot(name, **budget)


OPPONENTS = sorted(BOTS)
DEFAULT_OPPONENT = "pimc" if "pimc" in BOTS else "heuristic"


@click.command(name="play")
@click.option("--opponent", type=click.Choice(OPPONENTS), default=None, help=f"The engine's bot (default {DEFAULT_OPPONENT}).")
@click.option("--strength", type=click.IntRange(1), default=None, help="Search budget of a search bot: sampled deals or iterations per move.")
@click.option("--time", "time_ms", type=click.IntRange(1), default=None, help="Search time of a search bot, milliseconds per move.")
@click.option("--seat", type=click.IntRange(0, 1), default=None, help="Your seat: 0 (goal on the left) or 1 (goal on the right); default 0.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals and of the bot: the same seed and moves replay the same game.")
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml); standard by default.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None, help="Write the game record to this file after every action.")
@click.option("--resume", "resume_path", type=click.Path(dir_okay=False), default=None, help="Continue a saved game (and keep saving to it unless --save says otherwise).")
@click.option("--hint-time", type=click.IntRange(1), default=None, help="Milliseconds the engine spends on a 'hint' at the prompt (default: the engine's own budget, under a second).")
@friendly_errors
def command(opponent, strength, time_ms, seat, seed, rules_path, save_path, resume_path, hint_time):
    """Play a whole game against the engine, one prompt per decision.

    The board shows the seven spaces with the hand size dealt on each, the
    tiles (###), the cat (^) and both goals.  You see your hand, the face-up
    cards of the round and the engine's moves; type yours in plain notation.
    A rejected move is explained and asked again.

    \b
    At any prompt:
      8 8 / answer 9 12 / none / duel 9   a move (kind word optional)
      hint    the engine's ranked moves for your position
      moves   every legal move;  board  redraw;  help  notation
      quit    save and stop (so does the end of input, e.g. Ctrl-D)

    \b
    Examples:
      tacocat play --opponent heuristic --seed 7 --save game.json
      tacocat play --opponent pimc --time 500 --seat 1
      tacocat play --resume game.json
      printf 'none\\n12\\n12\\n' | tacocat play --opponent random --save g.json   # scripted"""
    budget = bot_budget(strength, time_ms)
    if resume_path is not None:
        data = read_json(resume_path, "game record")
        record = GameRecord.from_dict(data)
        if rules_path is not None:
            raise CliError("--rules cannot change the ruleset of a saved game; drop --rules with --resume")
        state = record.replay()
        players = data.get("players") if isinstance(data.get("players"), dict) else {}
        human = [int(k) for k, v in players.items() if v == "human" and k in ("0", "1")]
        if seat is None:
            seat = human[0] if human else 0
        if opponent is None:
            saved = players.get(str(1 - seat))
            opponent = saved if saved in OPPONENTS else DEFAULT_OPPONENT
        if not budget:
            budget = saved_budget(data)
        save = Path(save_path or resume_path)
        seed = record.seed
        if state.over:
            raise CliError(f"the game in {resume_path} is already over; review it with: tacocat analyze {resume_path}")
    else:
        state = GameState.new(load_ruleset(rules_path), seed)
        save = Path(save_path) if save_path else None
    seat = 0 if seat is None else seat
    opponent = opponent or DEFAULT_OPPONENT
    bot = build_bot(opponent, budget)
    session = Session(state, seat, bot, opponent, seed, save, hint_time, budget)
    session.save()  # an unwritable --save fails here, before the game starts
    click.echo(f"tacocat: you are player {seat}, the engine ({opponent}) player {1 - seat}; seed {seed}. Type 'help' for notation.")
    code = session.run()
    if code:
        sys.exit(code)


command.help = inspect.cleandoc(command.help or "") + (  # after the dedented docstring
    "\n\nOpponents: " + ", ".join(OPPONENTS)
    + " (pimc and ismcts search; --strength/--time set their budget; oracle cheats: it sees your hand)"
)
