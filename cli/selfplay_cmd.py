"""`tacocat selfplay`: many whole games between two bots."""

from __future__ import annotations

import inspect
import json
import time

import click

from cli.notation import friendly_errors, progress_bar
from solver.bots import BOTS, make_bot, play_game
from solver.rules import load_ruleset


@click.command(name="selfplay")
@click.option("--p0", default="heuristic", show_default=True, help="Bot in seat 0 (see below).")
@click.option("--p1", default="random", show_default=True, help="Bot in seat 1.")
@click.option("--games", default=100, show_default=True, type=click.IntRange(1), help="How many games.")
@click.option("--seed", default=0, show_default=True, type=int, help="Game i uses seed SEED+i: deals and bot choices repeat exactly.")
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml); standard by default.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@friendly_errors
def command(p0: str, p1: str, games: int, seed: int, rules_path: str | None, as_json: bool) -> None:
    """Play GAMES whole games between two bots and count the results.

    \b
    Example:
      tacocat selfplay --p0 heuristic --p1 random --games 1000 --seed 7
    Bots: random (uniform over legal actions), heuristic (replace nothing,
    duel and attack high, answer with the cheapest card that beats), and the
    search bots when installed (pimc, ismcts, oracle)."""
    rules = load_ruleset(rules_path)
    bots = (make_bot(p0), make_bot(p1))
    wins, rounds, drawn = [0, 0], 0, 0
    start = time.perf_counter()
    with progress_bar("games", games) as bar:
        for i in range(games):
            state = play_game(bots, seed + i, rules)
            bar.update(1)
            wins[state.winner] += 1
            rounds += len(state.rounds)
            drawn += sum(1 for r in state.rounds if r["winner"] is None)
    seconds = time.perf_counter() - start
    result = {
        "p0": p0,
        "p1": p1,
        "games": games,
        "seed": seed,
        "p0_wins": wins[0],
        "draws": 0,
        "p0_losses": wins[1],
        "rounds": rounds,
        "drawn_rounds": drawn,
        "seconds": round(seconds, 3),
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"{p0} (p0) vs {p1} (p1), {games} games from seed {seed}:")
    click.echo(f"  p0 wins {wins[0]}  draws 0  losses {wins[1]}  ({100 * wins[0] / games:.1f}% for {p0})")
    click.echo(f"  {rounds} rounds played, {drawn} drawn (R17); {seconds:.1f} s, {1000 * seconds / games:.1f} ms a game")


command.help = inspect.cleandoc(command.help or "") + "\n\nKnown bots: " + ", ".join(sorted(BOTS))
