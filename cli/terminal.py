"""What the terminal reads and shows, shared by the commands: views from flags, drawing the board,
formatting engine results, turning user errors into one line.  Nothing here
decides anything about the game, and nothing here reads notation of its
own: cards, moves and boards are read by the types of the rules layer
(`parse_cards`, `Action.parse`, `Board.parse`; README "Notation")."""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import click

from tacocat.errors import NotationError, PositionError, TacocatError
from tacocat.rules.actions import KINDS, Action
from tacocat.rules.board import Board
from tacocat.rules.cards import format_cards, parse_cards
from tacocat.rules.events import Decision
from tacocat.rules.game import PLAY, REPLACE
from tacocat.rules.history import ATTACK, format_history, hand_floor, parse_history
from tacocat.rules.ruleset import SPACES, STANDARD, Arrow, Ruleset
from tacocat.rules.views import View, build_view
from tacocat.rules.views import view_from_json as _view_from_json
from tacocat.search.options import Method
from tacocat.search.ranking import FEW_SAMPLES, Ranking, margin_of, rank_moves, samples_of
from tacocat.search.results import MoveEval

if TYPE_CHECKING:
    from tacocat.search.hint import HintResult
    from tacocat.search.replace_game import GuidedReplaceResult


# --------------------------------------------------------------- errors
class CliError(click.ClickException):
    """A user error shown as one line `error: ...`, exit status 2 (the same
    form `cli.main.main` gives a `TacocatError`, also under CliRunner)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


def friendly_errors(func: Callable) -> Callable:
    """Decorate a command body: a `TacocatError` becomes a `CliError`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TacocatError as exc:
            raise CliError(str(exc)) from None

    return wrapper


def stderr() -> Any:
    # Looked up at call time: click's test runner swaps sys.stderr.
    return sys.stderr


# ----------------------------------------------------------- board, rules
def parse_board(text: str | None, cat: int | None = None, covered: str | None = None) -> Board:
    """A round's board from "cat=3 covered=2,4" and/or the --cat/--covered
    flags: each flag gives a field the text leaves out; a field the text
    and a flag both give differently is refused, naming both flags."""
    board = Board.parse(text, cat=cat, covered=covered)
    if text and text.strip():
        # Board.parse lets the text win, so a flag it overrode differs from the result.
        if cat is not None and board.cat != cat:
            raise NotationError(
                f"--board says cat={board.cat} but --cat says {cat}: give the cat's space once "
                "(drop --cat, or cat= from --board)"
            )
        # the flag alone, with the cat in a goal so that no covered space can clash with it
        flag_covered = Board.parse(None, cat=-1, covered=covered).covered if covered is not None else None
        if flag_covered is not None and board.covered != flag_covered:
            said = ",".join(map(str, sorted(board.covered))) or "none"
            raise NotationError(
                f"--board says covered={said} but --covered says {covered!r}: give the covered "
                "spaces once (drop --covered, or covered= from --board)"
            )
    if not 0 <= board.cat < SPACES:
        raise PositionError(f"cat on space {board.cat}: a round is played with the cat on a space 0..6", "R2")
    return board


def view_from_json(data: Any, notes: list[str] | None = None) -> View:
    """A view from JSON; on the command line its `rules` may name a file."""
    return _view_from_json(data, notes, allow_rule_files=True)


def draw_board(board: Board, rules: Ruleset = STANDARD, names: Sequence[str] = ("P0", "P1")) -> str:
    """The board as two lines of text: each space shows the hand size dealt
    there (R2), `###` a tile (R4); a caret marks the cat."""
    left = f"{names[0]} goal <<"
    right = f">> {names[1]} goal"
    cells = ["[###]" if i in board.covered else f"[{rules.board[i]:^3}]" for i in range(SPACES)]
    line = f"{left} " + " ".join(cells) + f" {right}"
    if board.cat < 0:
        col = len(left) // 2
    elif board.cat >= SPACES:
        col = len(left) + 1 + 6 * SPACES + 1 + len(right) // 2
    else:
        col = len(left) + 1 + 6 * board.cat + 2
    marker = " " * col + "^ cat"
    if 0 <= board.cat < SPACES:
        marker += f" (space {board.cat}: {rules.board[board.cat]} cards each)"
    else:
        marker += " in a goal"
    return line + "\n" + marker


def arrow_text(board: Board, rules: Ruleset, names: Sequence[str] = ("P0", "P1")) -> str:
    """Who replaces first on the cat's space (R3)."""
    if not 0 <= board.cat < SPACES:
        return ""
    a = rules.arrows[board.cat]
    if a == Arrow.BOTH:
        return "two arrows: both replace at the same time, in secret (R8)"
    p = 0 if a == Arrow.P0 else 1
    return f"arrow: {names[p]} replaces first, the other at most as many (R7)"


# ------------------------------------------------------------------ views
def view_from_flags(**flags: Any) -> View:
    """The asking player's view from the flags `tacocat hint` and `tacocat
    solve --hand` share (`build_view`'s keywords, cards in plain notation,
    each error naming its flag); the notes `build_view` makes (a lenient
    reading) go to stderr.  The cards of --history count as seen
    (`seen_with_history`), so they need not be typed again in --seen."""
    history = flags.get("history")
    if isinstance(history, str) and history.strip():
        try:
            events = parse_history(history)
        except TacocatError:
            events = None  # build_view reports it, naming --history
        if events is not None:
            flags["history"] = events
            flags["seen"] = seen_with_history(parse_cards(flags.get("seen"), "--seen"), events)
    notes: list[str] = []
    view = build_view(**flags, notes=notes, label="--")
    for note in notes:
        click.echo(note, err=True)
    return view


def seen_with_history(seen: Sequence[int], events: Sequence[Any]) -> tuple[int, ...]:
    """--seen with the cards of the history's attacks and answers (R15:
    all of play is face up), an attack still to answer left out (it is the
    --table).  A card in both counts once: for each rank the larger of the
    two counts, so a --seen that already lists the history's cards (as
    before) means the same; a rank face up more often than the history
    shows (a duel 9, then an attack 9) is listed that often in --seen."""
    done = list(events)
    if done and done[-1].event == ATTACK:
        done.pop()
    shown = [c for e in done for c in e.cards]
    out: list[int] = []
    for rank in sorted(set(seen) | set(shown)):
        out += [rank] * max(list(seen).count(rank), shown.count(rank))
    return tuple(out)


def require_decision(view: View) -> None:
    """A `CliError` unless the view's player has something to decide."""
    if view.decision is not None:
        return
    if view.phase == PLAY and not view.table and view.attacker != view.player:
        raise CliError(
            f"player {view.attacker} attacks now: player {view.player} has nothing to decide until the attack "
            f"is on the table (give it with --table, e.g. --table 8)"
        )
    raise CliError(f"player {view.player} has no decision to make in this position")


def counted(n: int, noun: str) -> str:
    """A count that reads as one: "1 round", "5 rounds" (nouns that take an s)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def cards(n: int) -> str:
    """A count of cards that cannot read as a card: "1 card", "5 cards"."""
    return counted(n, "card")


def describe_view(view: View, names: Sequence[str] | None = None) -> str:
    """One or two lines: whose decision, hand, table, what is seen."""
    names = names or ("player 0", "player 1")
    me, opp = names[view.player], names[1 - view.player]
    decision = view.decision or "nothing to decide"
    lines = [
        f"{me}: {decision} ({view.phase} phase, cat on space {view.board.cat}); hand {format_cards(view.hand)}; "
        f"{opp} holds {cards(view.opponent_hand_size)}; draw pile {cards(view.draw_pile_size)}"
    ]
    extra = []
    if view.table:
        extra.append(f"attack on the table: {format_cards(view.table)}")
    if view.phase == REPLACE and view.replace_cap is not None:
        extra.append(f"may discard at most {cards(view.replace_cap)} (R7)")
    if view.seen:
        extra.append(f"seen: {format_cards(view.seen)}")
    if extra:
        lines.append("; ".join(extra))
    events = view.play_history
    if events:
        floor = hand_floor(events, 1 - view.player)
        why = (
            f": {opp} holds only cards of rank {floor} or more (R20, its sacrifices)"
            if floor > 1
            else f" ({opp}'s answers rule out no hand, R20)"
        )
        lines.append(f"history: {format_history(events)}{why}")
    return "\n".join(lines)


# ------------------------------------------------------------------ moves
def format_action(action: Action | Mapping[str, Any]) -> str:
    """A move in the plain notation the prompts accept (`str(Action)`), also
    for the JSON form of a move in an engine result."""
    if isinstance(action, Mapping):
        if action.get("kind") not in KINDS:
            return "-"
        action = Action(action["kind"], tuple(action.get("cards", ())), action.get("beats"))
    return str(action)


# ------------------------------------------------------------ hint output
def method_text(result: HintResult) -> str:
    """How a hint was computed and how sure it is, in one line."""
    method = result.method
    tail = f", {result.seconds:.2f} s"
    if result.stopped:
        tail += " (stopped early)"
    if method == Method.EQUILIBRIUM:
        hidden = "neither side sees the other's cards"
        return f"method: equilibrium of the endgame with hidden hands ({hidden}){_reached(result)}{tail}"
    if result.exact:
        return (
            f"method: exact enumeration of every possible opponent hand, each solved as if all cards were face "
            f"up after this move (double-dummy average; no sampling error){tail}"
        )
    if method == Method.EXACT:
        return (
            f"method: exact enumeration cut short after {result.samples} opponent hands: a partial "
            f"double-dummy average, not exact (give more --time){tail}"
        )
    unc = _uncertainty_text(result)
    if method == Method.PIMC:
        n = result.samples if result.samples is not None else result.iterations
        if result.decision == Decision.REPLACE:
            return (
                f"method: PIMC, {n} sampled deals shared among the candidate discards by sequential "
                f"halving (n = deals per move){unc}{tail}"
            )
        return f"method: PIMC over {n} sampled deals, each solved with every card known{unc}{tail}"
    if method == Method.ISMCTS:
        return f"method: ISMCTS with {result.iterations} iterations{unc}{tail}"
    return f"method: {method}{unc}{tail}"


def _reached(result: HintResult) -> str:
    """How close an equilibrium got: its exploitability after its iterations."""
    found = result.equilibrium
    if found is None:
        return ""
    return f"; exploitability {found.exploitability:.2g} after {found.cfr_iterations} CFR iterations"


def _uncertainty_text(result: HintResult) -> str:
    """A sampled hint's 95% margins: the widest, the best move's when
    narrower, and a word on the rows too thin to have one."""
    moves = result.moves
    margins = [x for x in (margin_of(m, result) for m in moves) if x is not None]
    if not margins:
        return ""
    best = margin_of(moves[0], result)
    unc = f"; 95% margin of a value up to ±{max(margins):.3f}"
    if best is not None and max(margins) > best:
        unc += f" (best move ±{best:.3f})"
    if len(margins) < sum(1 for m in moves if m.visits != 0):
        unit = "iterations" if result.method == Method.ISMCTS else "deals"
        unc += f"; rows without a margin rest on fewer than {FEW_SAMPLES} {unit}, too few to tell"
    return unc


def value_text(result: HintResult) -> str:
    """What `value` means for this result."""
    u = result.utilities
    if len(u) == 3 and list(u) != [1.0, 0.0, -1.0]:
        return (
            f"value: expected game equity (2 x game-win chance - 1) after this round; "
            f"round won {_signed(u[0])}, drawn {_signed(u[1])}, lost {_signed(u[2])}"
        )
    return "value: round won +1, drawn 0, lost -1"


def _signed(x: float) -> str:
    return f"{round(x, 3) + 0.0:+.3f}"


def _pct(x: Any) -> str:
    return f"{100 * x:5.1f}%" if isinstance(x, (int, float)) else "    - "


def dropped_text(ranking: Ranking[MoveEval], result: HintResult) -> str | None:
    """One line for the moves the search dropped early (`Ranking.dropped`):
    how many, after how few deals, and whether any could still reach the pick."""
    dropped = ranking.dropped
    if not dropped:
        return None
    counts = [samples_of(m, result) or 0 for m in dropped]
    lo, hi = min(counts), max(counts)
    unit = ranking.unit if hi != 1 else ranking.unit[:-1]
    span = f"{lo}" if lo == hi else f"{lo}–{hi}"
    head = (
        f"{len(dropped)} more explored in only {span} {unit}"
        if ranking.unit == "iterations"
        else f"{len(dropped)} more dropped after {span} {unit}"
    )
    reach = ranking.within_reach
    if not reach:
        return f"{head}: none within reach of the pick (--all lists them)"
    # the best-supported of them: a one-deal value is the noise the line warns of
    top = max(reach, key=lambda m: (samples_of(m, result) or 0, float(m.value)))
    n = samples_of(top, result) or 0
    return (
        f"{head}: {len(reach)} of them not ruled out on so few {ranking.unit}, e.g. {format_action(top.action)} "
        f"at {float(top.value):+.3f} on {n} (--all lists them)"
    )


def format_hint(result: HintResult, top: int | None = None, show_all: bool = False) -> str:
    """A hint as a table: move, win/draw/loss % of the round, expected
    value, its 95% margin and the deals behind it, ranked by what the search
    knows (`tacocat.search.ranking.rank_moves`): the engine's pick first,
    then the moves the search carried furthest.  The moves it dropped early
    get one summary line, or rows of their own with `show_all`."""
    ranking = rank_moves(result)
    moves = ranking.ranked if show_all else ranking.rows
    shown = moves if top is None else moves[:top]
    table = _HintTable(
        width=max([len(format_action(m.action)) for m in shown] + [4]),
        game=any(m.game_win is not None for m in shown),
        n=any(m.visits is not None for m in shown),
        exact=result.exact,
    )
    lines = [method_text(result), table.head()]
    lines += [table.row(i, m, result) for i, m in enumerate(shown, 1)]
    if len(moves) > len(shown):
        lines.append(f"  ... {len(moves) - len(shown)} more (--top)")
    if not show_all:
        summary = dropped_text(ranking, result)
        if summary:
            lines.append(summary)
    lines.append(value_text(result))
    lines += mixed_text(result)
    lines += replacement_game_text(result)
    best = best_text(result, ranking, table.n)
    if best:
        lines.append(best)
    return "\n".join(lines)


@dataclass(frozen=True)
class _HintTable:
    """The columns of a hint's table: the move's width, and whether the
    game-win and the samples columns are shown."""

    width: int
    game: bool
    n: bool
    exact: bool
    """Every row exact: no margin to show."""

    def head(self) -> str:
        head = f"  #  {'move':<{self.width}}    win   draw   loss    value    ±95%"
        if self.game:
            head += "  game win"
        if self.n:
            head += "      n"
        return head

    def row(self, i: int, m: MoveEval, result: HintResult) -> str:
        margin_ = margin_of(m, result)
        margin = f"{margin_:7.3f}" if margin_ is not None else "  exact" if self.exact else "      -"
        row = (
            f"{i:3}  {format_action(m.action):<{self.width}}  "
            f"{_pct(m.win)} {_pct(m.draw)} {_pct(m.loss)}  {m.value:+7.3f}  {margin}"
        )
        if self.game:
            row += f"    {_pct(m.game_win)}"
        if self.n:
            row += f"  {m.visits:5}" if m.visits is not None else "      -"
        return row


def mixed_text(result: HintResult) -> list[str]:
    """A mixed strategy's lines (a duel, an equilibrium): the moves with
    their odds, and the Bayesian game a duel was solved as."""
    kind = result.decision or "duel"
    odds = [(format_action(Action(kind, (m.card,))), m.probability) for m in result.mixed or ()] or [
        (format_action(m.action), m.probability) for m in (result.equilibrium.strategy if result.equilibrium else ())
    ]
    mixed = [(a, p) for a, p in odds if not isinstance(p, (int, float)) or p > 0.0005]
    if not mixed:
        return []
    lines = [
        "equilibrium strategy (play at random with these odds):"
        if result.method == Method.EQUILIBRIUM
        else "mixed strategy (a simultaneous choice: play at random with these odds):"
    ]
    lines.append("  " + ", ".join(f"{a} {_pct(p).strip()}" for a, p in mixed))
    sub = result.subgame
    if sub is not None:
        lines.append(
            f"  solved as a Bayesian game over {sub.my_types} x {sub.opponent_types} hands "
            f"(each hand of either player its own card), exploitability {sub.exploitability:.1e}"
        )
    return lines


def best_text(result: HintResult, ranking: Ranking[MoveEval], has_n: bool) -> str | None:
    """The engine's pick, and what it rests on."""
    if not result.moves:
        return None
    line = f"best: {format_action(result.action)}"
    n = samples_of(ranking.rows[0], result) if ranking.rows else None
    if has_n and n:
        line += f" (the engine's pick, on {n} {ranking.unit if n != 1 else ranking.unit[:-1]})"
    elif result.method == Method.EQUILIBRIUM:
        line += " (the engine's pick: the move the strategy plays most)"
    return line


def replacement_game_text(result: HintResult) -> list[str]:
    """What a replacement solved as a game was, in a player's words (none
    for any other search)."""
    from tacocat.search.replace_game import MIX_FLOOR, GuidedReplaceResult, ReplaceGameResult

    sub = result.subgame
    if not isinstance(sub, ReplaceGameResult):
        return []
    reply = (
        "the opponent's replacement in it as a strategy of its own, hand by hand"
        if sub.opponent_replies
        else "the opponent has replaced already"
    )
    if isinstance(sub, GuidedReplaceResult):
        return _guided_text(sub, reply)
    mix = ", ".join(
        f"{format_action(Action('replace', cards))} {_pct(p).strip()}" for cards, p in sub.discard_mix if p >= MIX_FLOOR
    )
    return [
        f"solved as a game: your discard, the draws, {reply}; over {sub.my_types} hands you might hold "
        f"x {sub.opponent_types} it might hold ({sub.nodes or 0:,} positions), "
        f"{sub.iterations} iterations, exploitability {sub.exploitability:.1e}",
        f"  its strategy for your hand (play at random with these odds): {mix}",
    ]


def _guided_text(sub: GuidedReplaceResult, reply: str) -> list[str]:
    """The guided replacement's answer: the static search's best discards and the game's corrections."""
    correction = dict(sub.corrections)
    scored = "; ".join(
        f"{format_action(Action('replace', cards))}: {static:+.3f}"
        + ("" if cards not in correction else f" {correction[cards]:+.3f} = {static + correction[cards]:+.3f}")
        for cards, static in sub.static_values
    )
    if not sub.opponent_types:
        return [f"the static search alone ({sub.static_deals} deals): no time was left for the game"]
    return [
        f"the static search's best {len(sub.static_values)} discards ({sub.static_deals} deals), each corrected by "
        f"the game (your discard, the draws, {reply}) on its own worlds: over {sub.my_types} hands you "
        f"might hold x {sub.opponent_types} it might hold ({sub.nodes or 0:,} positions), "
        f"{sub.iterations} iterations, exploitability {sub.exploitability:.1e}",
        f"  static value + correction = score: {scored}; the best score is played",
    ]


def progress_bar(label: str, total: int) -> Progress:
    """A progress bar of `total` steps on stderr (stdout stays clean for
    --json), advanced by `update(n)` (`Progress`); on a pipe a first line
    names the task, so a log says what each stretch of it was."""
    bar = Progress(label, total=max(total, 1))
    if not bar.tty:
        bar.say(f"{label} ...")
    return bar


def duration_text(seconds: float) -> str:
    """Seconds as a person reads a wait: "0.4 s", "8.0 s", "12 s", "2 min 05 s", "1 h 03 min"."""
    if seconds < 9.95:
        return f"{max(seconds, 0.0):.1f} s"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    """Progress of one long task on stderr, never on stdout.

    Told how far it is by the engine's callback (`progress(fraction)`, or
    `(done, total)`), by `update(n)` (steps of `total`) or by `report`
    (a fraction, the time left when the caller knows better, a note of
    what it is doing).  A thread of its own redraws it, so it keeps talking
    while a search runs long between two callbacks: on a terminal one line
    (a bar, the fraction, the elapsed time and the time left) redrawn five
    times a second and cleared at the end; elsewhere (a pipe, a log) one
    line every `PIPE_EVERY_S` seconds, so a log never goes quiet for 5 s
    and a task shorter than that prints no progress line.

    The time left is what the pace so far gives (the elapsed time when the
    fraction was last told, scaled to the rest, counted down since), or the
    caller's own estimate; it is left out while nothing is known."""

    TTY_EVERY_S = 0.2
    PIPE_EVERY_S = 4.0
    """A piped line this often: issue 35 asks for one at least every 5 s."""
    BAR = 24
    FRAMES = "|/-\\"

    def __init__(self, label: str, total: int | None = None, enabled: bool = True, stream: Any = None) -> None:
        import time

        self._now = time.monotonic
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else stderr()
        self.tty = is_terminal(self.stream)
        self.enabled = enabled
        self.start = self._now()
        self.done: int | None = 0 if total is not None else None
        self.fraction: float | None = None
        self.told_at = self.start
        """When the fraction (or the time left) was last told."""
        self.left_s: float | None = None
        """The caller's own estimate of the time left, as of `told_at`."""
        self.note = ""
        self.frame = 0
        self.shown = 0
        """Characters of the terminal line drawn last (0: none shown)."""
        self.drawn_at = -1e9
        self.quiet_when_piped = False
        """While set, a pipe gets no line: a step that may end in a refusal,
        whose one `error:` line must stand alone on stderr."""
        self._lock = threading.Lock()
        self._over = threading.Event()
        self._thread: Any = None

    # ------------------------------------------------------------ told
    def __call__(self, done: Any = None, total: Any = None, *args: Any, **kwargs: Any) -> None:
        """The engine's callback: a fraction, or (done, total), or a count."""
        if isinstance(done, (int, float)) and isinstance(total, (int, float)) and total > 0:
            self.done = int(done) if isinstance(done, int) else self.done
            self.total = int(total) if isinstance(total, int) else self.total
            self._told(done / total)
        elif isinstance(done, float) and total is None:
            self._told(done)
        elif isinstance(done, int):
            self.done = done
        self._tick()

    def update(self, n: int = 1) -> None:
        """`n` more steps of `total` done (click's progress bar's call)."""
        self.done = (self.done or 0) + n
        if self.total:
            self._told(self.done / self.total)
        self._tick()

    def report(self, fraction: float | None = None, *, left_s: float | None = None, note: str | None = None) -> None:
        """Say how far the task is, the time left when the caller knows it
        better than the pace does, and what it is doing now."""
        if note is not None:
            self.note = note
        if fraction is not None or left_s is not None:
            self._told(fraction, left_s)
            if fraction is None:
                self.fraction = None  # the time left says it, moving on with the clock
        self._tick()

    def _told(self, fraction: float | None, left_s: float | None = None) -> None:
        if fraction is not None:
            self.fraction = min(max(float(fraction), 0.0), 1.0)
        self.left_s = left_s
        self.told_at = self._now()

    # ------------------------------------------------------------ shown
    def elapsed(self) -> float:
        return self._now() - self.start

    def time_left(self) -> float | None:
        """Seconds left by the caller's estimate or by the pace so far (below
        0 once the estimate has passed), None when unknown."""
        since = self._now() - self.told_at
        if self.left_s is not None:
            return self.left_s - since
        f = self.fraction
        if f is None or not 0.0 < f < 1.0:
            return None
        spent = self.told_at - self.start
        return spent * (1.0 - f) / f - since

    def shown_fraction(self) -> float | None:
        """The fraction told, else the one the time left implies (elapsed
        over elapsed and left), which moves on as the clock does."""
        if self.fraction is not None:
            return self.fraction
        left = self.time_left()
        if left is None:
            return None
        elapsed = self.elapsed()
        return min(elapsed / max(elapsed + max(left, 0.0), 1e-9), 1.0)

    def _left_text(self) -> str:
        left = self.time_left()
        if left is None:
            return ""
        return f", about {duration_text(left)} left" if left > 0 else ", longer than estimated"

    def text(self) -> str:
        """The progress as one line (without the terminal's carriage return)."""
        f = self.shown_fraction()
        count = f"{self.done}/{self.total}" if self.total else f"{self.done} done" if self.done else None
        if not self.tty:
            parts = [f"{100 * f:.0f}%" if f is not None else None, f"({count})" if count else None]
            head = " ".join(p for p in parts if p)
            said = f"{self.label}: {head + ', ' if head else ''}{duration_text(self.elapsed())} so far"
            return said + self._left_text() + (f"; {self.note}" if self.note else "")
        if f is not None:
            bar = "#" * int(self.BAR * f)
            said = f"{self.label} [{bar:<{self.BAR}}] {100 * f:3.0f}%"
        else:
            self.frame = (self.frame + 1) % len(self.FRAMES)
            said = f"{self.label} {self.FRAMES[self.frame]}"
        said += f"  {count}" if count else ""
        said += f"  {duration_text(self.elapsed())}" + self._left_text()
        return said + (f"  {self.note}" if self.note else "")

    def say(self, line: str) -> None:
        """A line of its own on stderr (above the bar on a terminal, which is drawn again after)."""
        if not self.enabled:
            return
        with self._lock:
            self._clear()
            self.stream.write(line + "\n")
            self.stream.flush()
            self.drawn_at = -1e9 if self.tty else self._now()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Print to stdout within the block: a terminal's bar is cleared
        first (else the text would run on from its end) and drawn again
        after, at the next tick."""
        with self._lock:
            self._clear()
            yield
            self.drawn_at = -1e9

    def _tick(self) -> None:
        """Redraw now if the thread has not for a while (a search holding the interpreter)."""
        if self.enabled and self.tty and self._now() - self.drawn_at >= self.TTY_EVERY_S:
            self.draw()

    def draw(self) -> None:
        if not self.enabled or (self.quiet_when_piped and not self.tty):
            return
        with self._lock:
            self.drawn_at = self._now()
            line = self.text()
            if self.tty:
                import shutil

                width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
                line = line[:width]
                self.stream.write("\r" + line + " " * max(self.shown - len(line), 0))
                self.shown = len(line)
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def _clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0

    def _run(self) -> None:
        every = self.TTY_EVERY_S if self.tty else self.PIPE_EVERY_S
        while not self._over.wait(every):
            self.draw()

    # ------------------------------------------------------------ life
    def open(self) -> "Progress":
        if self.enabled and self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"progress: {self.label}", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._over.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            self._clear()

    def __enter__(self) -> "Progress":
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()


@contextlib.contextmanager
def interrupt_sets(stop: threading.Event) -> Iterator[threading.Event]:
    """Within the block, Ctrl-C (SIGINT) sets `stop` instead of raising
    KeyboardInterrupt, so a search polling it ends with its best answer so
    far and the caller goes on; a second Ctrl-C, once `stop` is set,
    interrupts as usual.  Only the main thread hears signals: elsewhere the
    block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def stop_first(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, stop_first)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def is_terminal(stream: Any) -> bool:
    """Whether `stream` is a terminal (False for pipes, files and closed streams)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
