"""10,000 whole games between the two simple bots, with and without a seat
swap, checking the card-conservation invariant after every action.

Regenerate: python results/selfplay_10k.py [--games 10000]
Writes results/selfplay_10k.md."""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from pathlib import Path

from tacocat.players.bots import HeuristicBot, RandomBot
from tacocat.rules.game import GameState


def one_game(bots, seed: int) -> tuple[GameState, int]:
    state = GameState.new(seed=seed)
    rngs = [random.Random(f"{seed}/bot{p}") for p in (0, 1)]
    actions = 0
    while not state.over:
        for p in state.acting_players():
            state.apply(p, bots[p].choose(state.view(p), rngs[p]))
            state.check()
            actions += 1
    return state, actions


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10_000)
    args = ap.parse_args()
    pairings = [("heuristic", "random"), ("random", "heuristic"), ("random", "random")]
    make = {"heuristic": HeuristicBot, "random": RandomBot}
    per = args.games // len(pairings)
    rows = []
    total_start = time.perf_counter()
    for a, b in pairings:
        bots = (make[a](), make[b]())
        wins, times, rounds, max_decided, actions = [0, 0], [], 0, 0, 0
        for seed in range(per):
            t = time.perf_counter()
            state, n = one_game(bots, seed)
            times.append(time.perf_counter() - t)
            wins[state.winner] += 1
            rounds += len(state.rounds)
            max_decided = max(max_decided, state.decided_rounds)
            actions += n
        rows.append((a, b, per, wins, rounds, max_decided, actions, statistics.median(times), sum(times)))
    total = time.perf_counter() - total_start
    lines = [
        "# Whole games between the simple bots",
        "",
        f"Command: `python results/selfplay_10k.py --games {args.games}`  ",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, "
        "shared 2-core box (timings are indicative).  ",
        f"{per * len(pairings)} games, 0 exceptions, card conservation checked after every action; "
        f"total {total:.1f} s.",
        "",
        "| p0 | p1 | games | p0 wins | p1 wins | rounds | most decided rounds in a game | actions "
        "| median ms/game | total s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a, b, n, wins, rounds, md, actions, med, tot in rows:
        lines.append(
            f"| {a} | {b} | {n} | {wins[0]} | {wins[1]} | {rounds} | {md} | {actions} | {1000 * med:.1f} | {tot:.1f} |"
        )
    out = Path(__file__).with_name("selfplay_10k.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
