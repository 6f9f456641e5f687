"""`tacocat selfplay`: many whole games between two bots."""

from __future__ import annotations

import inspect
import json

import click

from tacocat.cli.option_table import ranged_option
from tacocat.cli.search_options import CLOCK_HELP, search_options
from tacocat.cli.terminal import friendly_errors, progress_bar
from tacocat.players.bots import BOTS, make_bot, selfplay
from tacocat.players.match import parse_bot
from tacocat.rules.ruleset import load_ruleset


@click.command(name="selfplay")
@click.option(
    "--p0",
    default="heuristic",
    show_default=True,
    help="Bot in seat 0 (see below), optionally with its budget: pimc@samples=50.",
)
@click.option("--p1", default="random", show_default=True, help="Bot in seat 1.")
@ranged_option("--games", click.IntRange(1), 100, "How many games.")
@search_options(seed="Game i uses seed SEED+i: deals and bot choices repeat exactly.")
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml); standard by default.")
@search_options(
    time="Search time of the search bots, milliseconds per move.",
    clock=CLOCK_HELP + " A match counts CPU by default.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@friendly_errors
def command(
    p0: str, p1: str, games: int, seed: int, rules_path: str | None, time_ms: int | None, clock: str, as_json: bool
) -> None:
    """Play GAMES whole games between two bots and count the results:
    wins, drawn games (a ruleset's max_deals reached without a winner,
    RULES §8) and losses of p0.

    \b
    Example:
      tacocat selfplay --p0 heuristic --p1 random --games 200 --seed 7
      tacocat selfplay --p0 pimc --p1 pimc_classic --games 6 --time 20 --clock cpu
    Bots: random (uniform over legal actions), heuristic (replace nothing,
    duel and attack high, answer with the cheapest card that beats), and the
    search bots when installed (pimc, ismcts, oracle)."""
    rules = load_ruleset(rules_path)
    bots = (_bot(p0, time_ms, clock), _bot(p1, time_ms, clock))
    with progress_bar("games", games) as bar:
        result = selfplay(bots, games, seed, rules, progress=lambda done, total: bar.update(1))
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"{p0} (p0) vs {p1} (p1), {games} games from seed {seed}:")
    won, draws, lost, seconds = result["p0_wins"], result["draws"], result["p0_losses"], result["seconds"]
    click.echo(f"  p0 wins {won}  draws {draws}  losses {lost}  ({100 * won / games:.1f}% for {p0})")
    if draws:
        click.echo(
            f"  {draws} game{'s' if draws != 1 else ''} drawn: max_deals ({rules.max_deals}) deals "
            "without a winner (RULES §8)"
        )
    click.echo(
        f"  {result['rounds']} rounds played, {result['drawn_rounds']} drawn (R17); "
        f"{seconds:.1f} s, {1000 * seconds / games:.1f} ms a game"
    )


def _bot(spec: str, time_ms: int | None, clock: str):
    """The bot a --p0/--p1 spec names, with --time and --clock under its own keys."""
    name, extra = parse_bot(spec)
    budget: dict = {} if time_ms is None else {"time_ms": time_ms}
    budget.update(extra)
    if "time_ms" in budget:
        budget.setdefault("clock", clock)
    return make_bot(name, **budget)


command.help = inspect.cleandoc(command.help or "") + "\n\nKnown bots: " + ", ".join(sorted(BOTS))
