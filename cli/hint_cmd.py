"""`tacocat hint`: what should I do now?  Builds the asking player's view
from flags (or a JSON view), asks `tacocat.search.hint.hint` and prints every
candidate move ranked with its win/draw/loss odds and expected value."""

from __future__ import annotations

import json
import threading

import click

from tacocat.cli.position_options import position_options
from tacocat.cli.search_options import search_options
from tacocat.cli.terminal import (
    CliError,
    Progress,
    describe_view,
    format_hint,
    friendly_errors,
    interrupt_sets,
    parse_board,
    require_decision,
    view_from_flags,
    view_from_json,
)
from tacocat.rules.files import read_json
from tacocat.rules.ruleset import load_ruleset
from tacocat.rules.views import PHASES

# The README's first command: player 1 attacked with an 8 in the play phase.
EXAMPLE = {"hand": "2 5 7 9 11 12", "seen": "3 3 10", "table": "8", "opponent": 5, "attacker": 1}
EXAMPLE_TEXT = '--hand "2 5 7 9 11 12" --seen "3 3 10" --opponent 5 --table 8 --attacker 1'


ROUND_SEARCH_NOTES = {
    "replace": "round search: each discard met by the opponent's reply drawn from its model, then the duel solved",
    "duel": "round search: each duel cell's play phase searched over the hands consistent with what the duel revealed",
    "play": "round search: no effect here (it searches replace and duel decisions; this one is play)",
}
"""The line under the table of a hint asked for --round-search: what it changed."""


def position_flags(**given: object) -> list[str]:
    """The position flags given (not left at their default), as --names."""
    return [f"--{name}" for name, value in given.items() if value not in (None, "")]


def run_hint(
    view,
    *,
    time_ms,
    iterations,
    seed,
    method,
    score="game",
    round_search=False,
    duel="matrix",
    replace="static",
    show_progress=True,
    stop=None,
):
    """Call the engine's hint with a progress indicator on stderr; returns
    the `HintResult`.  `stop` (a `threading.Event`) ends the search early
    with its best answer so far."""
    try:
        from tacocat.search.budget import Budget
        from tacocat.search.hint import Knobs, hint
    except ImportError as exc:  # the search engine is not built
        raise CliError(f"the hint engine is not available in this installation ({exc})") from None
    with Progress("searching", enabled=show_progress) as progress:
        budget = Budget(samples=iterations, time_ms=time_ms, seed=seed, progress=progress, stop=stop)
        knobs = Knobs(round_search=round_search, duel=duel, replace=replace)
        return hint(view, budget, method=method, utilities=score, knobs=knobs)


def said_round_search(data: dict) -> dict:
    """The JSON answer of a hint asked for the round search, saying what ran
    beside `inference`, as the protocol's hint does: `round_search` 1 when
    it searched this decision (a replacement or a duel), 0 when the decision
    has none (the play phase searches as before)."""
    return {**data, "round_search": 1 if data.get("decision") in ("replace", "duel") else 0}


@click.command(name="hint")
@position_options(
    hand='Your cards now, e.g. "2 5 7 9 11 12".',
    seen={
        "default": "",
        "help": "Every face-up card of this round not on the table: replacement discards, duel cards, earlier "
        "attacks and answers (those of --history count as seen without typing them again).",
    },
    history="This round's attacks and answers so far, as tacocat play prints them, "
    'e.g. "p1 attacks 11; p0 answers 6 sacrifice" '
    "(R20: only opponent hands consistent with it are dealt).  Its cards count as seen (R15).",
    opponent="Cards in the opponent's hand now (default: what the rules imply).",
    table='The attack you must answer, e.g. "8" or "8 8".',
    attacker="Who attacks in this trick (default: the opponent when a table is given, else you).",
    player={"default": 0, "show_default": True, "help": "Which player you are."},
)
@click.option("--phase", type=click.Choice(PHASES), default=None, help="Decision phase (default play).")
@click.option(
    "--cap",
    type=int,
    default=None,
    help="Replace phase, second replacer: the most cards you may discard (how many the first replacer discarded, R7).",
)
@position_options(board='Board as "cat=3 covered=2,4" (spaces 0..6 from player 0\'s goal).')
@click.option("--cat", type=int, default=None, help="Space of the cat (0..6); default the centre, 3.")
@click.option("--covered", default=None, help='Covered spaces, e.g. "2,4".')
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml); standard by default.")
@click.option(
    "--view",
    "view_path",
    default=None,
    help="Read the position as a JSON view from FILE ('-' for stdin) instead of the flags.",
)
@search_options(
    time="Search time in milliseconds.",
    iterations="Search budget: sampled deals (PIMC) or iterations (ISMCTS).",
    seed="Seed of the sampling: the same seed and budget give the same answer.",
    method="auto: the hidden-hand equilibrium for play endgames of at most 3 cards a hand; else exact enumeration "
    "(double-dummy average) when the hidden deals are few, else sampling.",
    score="What a move is worth: game = the game equity of the board the round leads to; "
    "round = +1/0/-1 for the round alone.",
    round_search="Search the replace and duel decisions as one round: each candidate discard is met by the "
    "opponent's reply drawn from its model (not a fixed policy) and the duel after it solved, and each duel cell's "
    "play phase is searched over the hands consistent with what the duel revealed.  Costs about 8x the CPU of a "
    "replace decision and 2.5x of a duel at equal --iterations (results/round_cost.md); no effect on play-phase "
    "decisions.  Default off (the classic search; "
    "results/strength_whole.md measures both).",
    duel="The duel's search: matrix, one matrix game over the sampled hands (the opponent plays one mix "
    "whatever it holds); bayes, a Bayesian game in which each hand of either player has its own card "
    "(the answer says over how many hands it was solved, and its exploitability).",
    replace="The replacement's search: static, my discards ranked against an opponent who replies by a fixed "
    "policy; game, the replacement solved as a game in which the opponent's reply is a strategy with its own "
    "hands and sees your discard (R7) or not (R8) (the answer says what was solved, and its exploitability).",
)
@click.option("--top", type=click.IntRange(1), default=None, help="Show only the N best moves.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also list the moves the search dropped early (one summary line without it).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the engine's result as one JSON object (HintResult.to_dict())."
)
@click.option("--example", is_flag=True, help=f"Hint for a built-in example position: {EXAMPLE_TEXT}.")
@friendly_errors
def command(
    hand,
    seen,
    history,
    opponent,
    table,
    attacker,
    player,
    phase,
    cap,
    board_text,
    cat,
    covered,
    rules_path,
    view_path,
    time_ms,
    iterations,
    seed,
    method,
    score,
    round_search,
    duel,
    replace,
    top,
    show_all,
    as_json,
    example,
):
    """Rank every move at your decision with its win/draw/loss odds.

    Give what you know, in plain notation (ranks 1..12, spaces or commas);
    the engine deals the unseen cards every possible way (exact) or samples
    them (PIMC, ISMCTS) and scores each move by the round it leads to.

    \b
    Examples:
      # player 1 attacked with an 8; I hold six cards, three cards are seen
      tacocat hint --hand "2 5 7 9 11 12" --seen "3 3 10" --opponent 5 --table 8 --attacker 1
      # my attack, both of us hold four cards
      tacocat hint --hand "3 6 6 11" --seen "1 2 9 12"
      # the duel (R9) and the replacement (R7/R8)
      tacocat hint --phase duel --hand "2 4 8 9 12 12 6"
      tacocat hint --phase replace --board "cat=2 covered=3" --hand "1 3 4 4 8 10 11 12 12" --cap 2 --seen "5 9"
      # a board away from the centre, a longer search, JSON out
      tacocat hint --hand "2 9 10" --board "cat=1 covered=2,3" --time 3000 --json
      # the round so far: the opponent sacrificed a 6 to my 12, so it holds nothing below 6 (R20);
      # 1 and 2 were discarded, the history's 9 11 12 6 count as seen by themselves
      tacocat hint --hand "3 10 11" --seen "1 2" --opponent 3 \\
          --history "p1 attacks 9; p0 answers 11 beat; p0 attacks 12; p1 answers 6 sacrifice"
      # a view as JSON (keys player, hand, seen, opponent_hand_size, attacker, table, history)
      echo '{"player":0,"hand":[4,9],"seen":[],"opponent_hand_size":1,"attacker":1,"table":[7]}' | tacocat hint --view -

    \b
    --seen lists this round's face-up cards; the attacks and answers of
    --history count as seen without typing them again (R15: all of play
    is face up).  A card in both counts once: for each rank the larger of
    the two counts, so list a rank in --seen as often as it was face up
    when that is more than the history shows (a duel 9, then an attack 9).

    \b
    --opponent counts the cards in the opponent's hand now.  If you defend
    and give your own hand size, it is taken as counted before the attack
    and the table is subtracted (a note says so on stderr).

    \b
    Output: each move with the win/draw/loss odds of the round (from what
    you know), its expected value and the 95% margin of that value for the
    sampled methods, the chance of winning the game, and the method used.
    Row 1 is the engine's pick ("best:"); then the moves the search carried
    furthest (n, the deals behind a value), then by value.  A replacement's
    sequential halving drops most discards after a few deals: those on
    fewer than a tenth of the pick's deals get one summary line, saying
    whether any could still reach the pick (--all lists them).  A value on
    fewer than 10 deals shows no margin.  With --json every move is listed,
    the pick first; a replacement's moves carry their deals in "visits"
    (ISMCTS: iterations), the others all rest on the result's "samples".
    The value is the game equity (2 x game-win chance - 1) of the board
    each round outcome leads to, so a round near a goal weighs more;
    --score round scores the round alone (+1 won, 0 drawn, -1 lost)."""
    # The position flags as typed, read once: --example and --view each bring their own position.
    typed = dict(
        hand=hand, seen=seen, history=history, table=table, opponent=opponent, attacker=attacker, phase=phase, cap=cap
    )
    position_given = position_flags(**typed, board=board_text, cat=cat, covered=covered, rules=rules_path)
    if example:
        given = position_given + position_flags(view=view_path)
        if given:
            raise CliError(f"--example brings its own position; drop {', '.join(given)} (or drop --example)")
        typed.update(EXAMPLE)
    if top is not None and as_json:
        raise CliError("--top shortens the printed table but --json prints every move: drop one of --top and --json")
    if show_all and as_json:
        raise CliError("--all lengthens the printed table but --json prints every move: drop one of --all and --json")
    if view_path is not None:
        flags = list(position_given)
        if click.get_current_context().get_parameter_source("player") != click.core.ParameterSource.DEFAULT:
            flags.append("--player")  # the view's own "player" key says who asks
        if flags:
            raise CliError(f"--view gives the whole position; drop {', '.join(flags)} (or drop --view)")
        notes: list[str] = []
        view = view_from_json(read_json(view_path, "view"), notes)
        for note in notes:
            click.echo(note, err=True)
    else:
        if not typed["hand"]:
            raise CliError('give your hand, e.g. --hand "2 5 7 9 11 12" (or a JSON view with --view FILE)')
        view = view_from_flags(
            **typed, player=player, board=parse_board(board_text, cat, covered), rules=load_ruleset(rules_path)
        )
    require_decision(view)
    if example:  # after the checks: a refusal is its one error line
        click.echo(f"example: {EXAMPLE_TEXT}", err=True)
    stop = threading.Event()
    with interrupt_sets(stop):  # Ctrl-C: the best answer so far, not a traceback
        result = run_hint(
            view,
            time_ms=time_ms,
            iterations=iterations,
            seed=seed,
            method=method,
            score=score,
            round_search=round_search,
            duel=duel,
            replace=replace,
            stop=stop,
        )
    if as_json:
        data = result.to_dict()
        click.echo(json.dumps(said_round_search(data) if round_search else data))  # off: as before the option
        return
    names = ("you", "the opponent") if view.player == 0 else ("the opponent", "you")
    click.echo(describe_view(view, names))
    click.echo(format_hint(result, top, show_all))
    if round_search:
        click.echo(ROUND_SEARCH_NOTES.get(result.decision, ROUND_SEARCH_NOTES["play"]))
