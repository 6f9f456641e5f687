"""What the terminal reads and shows, shared by the commands: views from flags, drawing the board,
formatting engine results, turning user errors into one line.  Nothing here
decides anything about the game, and nothing here reads notation of its
own: cards, moves and boards are read by the types of the rules layer
(`parse_cards`, `Action.parse`, `Board.parse`; README "Notation")."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Mapping, Sequence

import click

from tacocat.errors import NotationError, PositionError, TacocatError
from tacocat.rules.actions import KINDS, Action
from tacocat.rules.board import Board
from tacocat.rules.cards import format_cards, parse_cards
from tacocat.rules.game import PLAY, REPLACE
from tacocat.rules.history import ATTACK, format_history, hand_floor, parse_history
from tacocat.rules.ruleset import SPACES, STANDARD, Ruleset
from tacocat.rules.views import View, build_view
from tacocat.rules.views import view_from_json as _view_from_json
from tacocat.search.ranking import FEW_SAMPLES, Ranking, margin_of, rank_moves, samples_of


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
    if a == "both":
        return "two arrows: both replace at the same time, in secret (R8)"
    p = 0 if a == "p0" else 1
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


def cards(n: int) -> str:
    """A count of cards that cannot read as a card: "1 card", "5 cards"."""
    return f"{n} card" if n == 1 else f"{n} cards"


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
def method_text(result: Mapping[str, Any]) -> str:
    """How a hint was computed and how sure it is, in one line."""
    method = result.get("method")
    secs = result.get("seconds")
    tail = f", {secs:.2f} s" if isinstance(secs, (int, float)) else ""
    if result.get("stopped"):
        tail += " (stopped early)"
    if method == "equilibrium":
        e = result.get("exploitability")
        reached = (
            f"; exploitability {e:.2g} after {result.get('cfr_iterations')} CFR iterations"
            if isinstance(e, (int, float))
            else ""
        )
        return (
            f"method: equilibrium of the endgame with hidden hands (neither side sees the other's cards){reached}{tail}"
        )
    if result.get("exact"):
        return (
            f"method: exact enumeration of every possible opponent hand, each solved as if all cards were face "
            f"up after this move (double-dummy average; no sampling error){tail}"
        )
    if method == "exact":
        return (
            f"method: exact enumeration cut short after {result.get('samples')} opponent hands: a partial "
            f"double-dummy average, not exact (give more --time){tail}"
        )
    moves = list(result.get("moves", []))
    margins = [x for x in (margin_of(m, result) for m in moves) if x is not None]
    unc = ""
    if margins:
        best = margin_of(moves[0], result)
        unc = f"; 95% margin of a value up to ±{max(margins):.3f}"
        if best is not None and max(margins) > best:
            unc += f" (best move ±{best:.3f})"
        if len(margins) < sum(1 for m in moves if m.get("visits") != 0):
            unit = "iterations" if method == "ismcts" else "deals"
            unc += f"; rows without a margin rest on fewer than {FEW_SAMPLES} {unit}, too few to tell"
    if method == "pimc":
        n = result.get("samples", result.get("iterations"))
        if result.get("decision") == "replace":
            return (
                f"method: PIMC, {n} sampled deals shared among the candidate discards by sequential "
                f"halving (n = deals per move){unc}{tail}"
            )
        return f"method: PIMC over {n} sampled deals, each solved with every card known{unc}{tail}"
    if method == "ismcts":
        return f"method: ISMCTS with {result.get('iterations')} iterations{unc}{tail}"
    return f"method: {method}{unc}{tail}"


def value_text(result: Mapping[str, Any]) -> str:
    """What `value` means for this result."""
    u = result.get("utilities")
    if isinstance(u, (list, tuple)) and len(u) == 3 and list(u) != [1.0, 0.0, -1.0]:
        return (
            f"value: expected game equity (2 x game-win chance - 1) after this round; "
            f"round won {_signed(u[0])}, drawn {_signed(u[1])}, lost {_signed(u[2])}"
        )
    return "value: round won +1, drawn 0, lost -1"


def _signed(x: float) -> str:
    return f"{round(x, 3) + 0.0:+.3f}"


def _pct(x: Any) -> str:
    return f"{100 * x:5.1f}%" if isinstance(x, (int, float)) else "    - "


def dropped_text(ranking: Ranking, result: Mapping[str, Any]) -> str | None:
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
    top = max(reach, key=lambda m: (samples_of(m, result) or 0, float(m["value"])))
    n = samples_of(top, result) or 0
    return (
        f"{head}: {len(reach)} of them not ruled out on so few {ranking.unit}, e.g. {format_action(top)} "
        f"at {float(top['value']):+.3f} on {n} (--all lists them)"
    )


def format_hint(result: Mapping[str, Any], top: int | None = None, show_all: bool = False) -> str:
    """A hint as a table: move, win/draw/loss % of the round, expected
    value, its 95% margin and the deals behind it, ranked by what the search
    knows (`tacocat.search.ranking.rank_moves`): the engine's pick first,
    then the moves the search carried furthest.  The moves it dropped early
    get one summary line, or rows of their own with `show_all`."""
    ranking = rank_moves(result)
    moves = ranking.ranked if show_all else ranking.rows
    shown = moves if top is None else moves[:top]
    width = max([len(format_action(m)) for m in shown] + [4])
    has_game = any(isinstance(m.get("game_win"), (int, float)) for m in shown)
    has_n = any(isinstance(m.get("visits"), int) for m in shown)
    exact = bool(result.get("exact"))
    head = f"  #  {'move':<{width}}    win   draw   loss    value    ±95%"
    if has_game:
        head += "  game win"
    if has_n:
        head += "      n"
    lines = [method_text(result), head]
    for i, m in enumerate(shown, 1):
        margin_ = margin_of(m, result)
        margin = f"{margin_:7.3f}" if margin_ is not None else "  exact" if exact else "      -"
        value = m.get("value")
        value_text_ = f"{value:+7.3f}" if isinstance(value, (int, float)) else "      -"
        row = (
            f"{i:3}  {format_action(m):<{width}}  "
            f"{_pct(m.get('win'))} {_pct(m.get('draw'))} {_pct(m.get('loss'))}  {value_text_}  {margin}"
        )
        if has_game:
            row += f"    {_pct(m.get('game_win'))}"
        if has_n:
            n = m.get("visits")
            row += f"  {n:5}" if isinstance(n, int) else "      -"
        lines.append(row)
    if len(moves) > len(shown):
        lines.append(f"  ... {len(moves) - len(shown)} more (--top)")
    if not show_all:
        summary = dropped_text(ranking, result)
        if summary:
            lines.append(summary)
    lines.append(value_text(result))
    mixed = [
        m
        for m in result.get("mixed") or result.get("strategy") or []
        if not isinstance(m.get("probability"), (int, float)) or m["probability"] > 0.0005
    ]
    if mixed:
        kind = result.get("decision") or "duel"
        lines.append(
            "equilibrium strategy (play at random with these odds):"
            if result.get("method") == "equilibrium"
            else "mixed strategy (a simultaneous choice: play at random with these odds):"
        )
        lines.append(
            "  "
            + ", ".join(
                f"{format_action({'kind': m.get('kind', kind), 'cards': m.get('cards', ()), 'beats': m.get('beats')})} "
                f"{_pct(m.get('probability')).strip()}"
                for m in mixed
            )
        )
        sub = result.get("subgame")
        if isinstance(sub, dict):
            lines.append(
                f"  solved as a Bayesian game over {sub.get('my_types')} x {sub.get('opponent_types')} hands "
                f"(each hand of either player its own card), exploitability {sub.get('exploitability', 0):.1e}"
            )
    best = result.get("best")
    if best:
        line = f"best: {format_action(best)}"
        n = samples_of(ranking.rows[0], result) if ranking.rows else None
        if has_n and n:
            line += f" (the engine's pick, on {n} {ranking.unit if n != 1 else ranking.unit[:-1]})"
        elif result.get("method") == "equilibrium":
            line += " (the engine's pick: the move the strategy plays most)"
        lines.append(line)
    return "\n".join(lines)


def progress_bar(label: str, total: int) -> Any:
    """A progress bar on stderr (stdout stays clean for --json).  On a
    terminal it is click's bar; elsewhere one line names the task, so logs
    stay readable."""
    err = stderr()
    if is_terminal(err):
        return click.progressbar(length=max(total, 1), label=label, file=err)
    click.echo(f"{label} ...", err=True)
    return _QuietBar(max(total, 1))


class _QuietBar:
    """The part of click's progress bar the commands use, silent."""

    def __init__(self, length: int) -> None:
        self.length = length
        self.pos = 0

    def update(self, n: int) -> None:
        self.pos += n

    def __enter__(self) -> "_QuietBar":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class Progress:
    """Progress of one long search on stderr, as a callable the engine calls
    with (done, total) — or with a fraction, or nothing — as it goes.  On a
    terminal it redraws one line (a bar when the total is known, else a
    spinner with the elapsed time) at most ten times a second; elsewhere it
    stays silent so piped stderr is not flooded.  Never touches stdout."""

    FRAMES = "|/-\\"

    def __init__(self, label: str, enabled: bool = True) -> None:
        import time

        self._time = time.perf_counter
        self.label = label
        self.stream = stderr()
        self.enabled = enabled and is_terminal(self.stream)
        self.start = self._time()
        self.last = 0.0
        self.frame = 0
        self.shown = False

    def __call__(self, done: Any = None, total: Any = None, *args: Any, **kwargs: Any) -> None:
        if not self.enabled:
            return
        now = self._time()
        if now - self.last < 0.1:
            return
        self.last = now
        elapsed = now - self.start
        frac = None
        if isinstance(done, (int, float)) and isinstance(total, (int, float)) and total > 0:
            frac = min(max(done / total, 0.0), 1.0)
        elif isinstance(done, float) and total is None and 0.0 <= done <= 1.0:
            frac = done
        if frac is not None:
            bar = "#" * int(30 * frac)
            text = f"\r{self.label} [{bar:<30}] {100 * frac:3.0f}%  {elapsed:5.1f} s"
        else:
            self.frame = (self.frame + 1) % len(self.FRAMES)
            count = f" {done}" if isinstance(done, int) else ""
            text = f"\r{self.label} {self.FRAMES[self.frame]}{count}  {elapsed:5.1f} s"
        self.stream.write(text)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()
            self.shown = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def is_terminal(stream: Any) -> bool:
    """Whether `stream` is a terminal (False for pipes, files and closed streams)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
