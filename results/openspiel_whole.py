"""Whole games against OpenSpiel's ISMCTS playing `tacocat_turn` (issue 24).

    python results/openspiel_whole.py --run pimc100_v_os_ismcts --ms 100 --deals 200 --jobs 2
    python results/strength_whole.py --report      # the row joins results/strength_whole.md

Duplicate whole games as in `results/strength_whole.py`: deal d of seed s
is `GameState.new(STANDARD, seed)`, played twice with the seats swapped; the
seed is drawn from "game/<s>/<d>" as `play_whole_game` draws it, but as 31
bits instead of 48 (OpenSpiel's `seed` parameter is a C int), so these are
other deals than strength_whole's.  The deals go to
results/strength_whole/<run>.jsonl in that script's format, so its report
and checks apply.

Inside OpenSpiel: each game is played on an unseeded `tacocat_turn` (its
simultaneous replacement and duel made sequential, the first mover's choice
hidden), whose chance nodes take the cards a seeded `tacocat_turn` with the
deal's seed deals (so the deals are strength_whole's and the bots see a game
with real chance nodes, which OpenSpiel's ISMCTS needs to sample worlds by
`resample_from_infostate`).

OpenSpiel's `ISMCTSBot` (Python, UCT c=2, one random rollout to the end of
the whole game per simulation, max-visit final policy, unlimited world
samples) takes a simulation count, not a clock: at each decision it gets
floor(T / c(kind, hand size)) simulations (at least 2: the first only creates
the root), c = seconds a simulation, measured before the match on positions
from random games and updated after every decision (c <- 0.8 c + 0.2
measured), as `results/openspiel.py` does in the play phase.  Its model of
us is nothing but the sampled worlds: it is an opponent our inference model
never saw.  Ours: `TacocatBot` (`tacocat.openspiel.bots`) with `time_ms=T`,
whole-game utilities.  Both sides' think times are recorded per deal."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel

import tacocat.openspiel  # noqa: F401  (registers the games)
from tacocat.openspiel.bots import TacocatBot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from openspiel import Calibrated  # noqa: E402
from provenance import source_commit  # noqa: E402
from strength_whole import append_deals, finished_deals, positive, run_jobs  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = HERE / "strength_whole"
THEIRS = "os_ismcts (tacocat_turn)"


def deal_seed(seed: int, d: int) -> int:
    """The GameState seed of deal d: `play_whole_game`'s draw, in 31 bits (a C int)."""
    return int(random.Random(f"game/{seed}/{d}").getrandbits(31))


def decision_key(state) -> tuple[int, str]:
    """(hand size, decision kind) of the player to move: what a simulation's cost depends on."""
    p = state.current_player()
    gs = state.game_state()
    return len(gs.hands[p]), str(gs.decision(p))


def opponent(game, budget_s: float, costs: dict, seed: int) -> Calibrated:
    """OpenSpiel's ISMCTS with floor(T / cost) simulations a decision, costs by `decision_key`."""
    return Calibrated("os_ismcts", game, budget_s, {"os_ismcts": costs}, seed, key=decision_key)


def calibrate(game, seed: int = 7, games: int = 6, sims: int = 8) -> dict:
    """Median seconds a simulation of OpenSpiel's ISMCTS by (hand size,
    decision kind), at `sims` simulations on the positions of `games` random whole games."""
    r = random.Random(seed)
    positions: dict = {}
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes())
                s.apply_action(r.choices(outcomes, probs)[0])
                continue
            legal = s.legal_actions()
            if len(legal) > 1 and r.random() < 0.3:
                positions.setdefault(decision_key(s), []).append(s.clone())
            s.apply_action(r.choice(legal))
    probe = opponent(game, 0.0, {}, seed)
    costs = {}
    for key, states in positions.items():
        times = []
        for s in states[:6]:
            bot = probe.search_bot(sims)
            t = time.perf_counter()
            bot.step(s)
            times.append((time.perf_counter() - t) / sims)
        costs[key] = float(np.median(times))
    return costs


def play(truth, game, bots) -> tuple[int, list[float], list[int]]:
    """Player 0's game result, each seat's think seconds and decisions.
    `truth` is the seeded state that says which card each chance node deals."""
    s = game.new_initial_state()
    think, decisions = [0.0, 0.0], [0, 0]
    while not s.is_terminal():
        if s.is_chance_node():
            outcome = truth.chance_outcomes()[0][0]
            s.apply_action(outcome)
            truth.apply_action(outcome)
            continue
        p = s.current_player()
        t = time.perf_counter()
        a = bots[p].step(s)
        think[p] += time.perf_counter() - t
        decisions[p] += 1
        s.apply_action(a)
        truth.apply_action(a)
    # The duplicate claim: every round dealt and drew what the seeded game did.
    if s.records != truth.records:
        raise SystemExit("the game's deals left the seeded deal's (a chance node out of step)")
    r = s.returns()[0]
    return (0 if r == 0 else (1 if r > 0 else -1)), think, decisions


def play_deals(job: tuple) -> None:
    ours, ms, clock, seed, deals, path, commit, costs, part = job
    game = pyspiel.load_game("tacocat_turn")
    theirs = opponent(game, ms / 1000, dict(costs), seed * 7919 + part + 1)

    def play_one(d: int) -> tuple:
        seeded = pyspiel.load_game("tacocat_turn", {"seed": deal_seed(seed, d)})
        results, think, decisions, sims_before = [], [0.0, 0.0], [0, 0], len(theirs.sims)
        for seat in (0, 1):
            mine = TacocatBot(game, seat, ours, seed=seed * 1_000_003 + d, time_ms=ms, clock=clock)
            bots = [theirs, theirs]
            bots[seat] = mine
            r0, t, n = play(seeded.new_initial_state(), game, bots)
            results.append(r0 if seat == 0 else -r0)
            think[0] += t[seat]
            think[1] += t[1 - seat]
            decisions[0] += n[seat]
            decisions[1] += n[1 - seat]
        sims = theirs.sims[sims_before:]
        return results[0], results[1], think, decisions, {"b_sims_mean": round(sum(sims) / len(sims), 1) if sims else 0}

    match = {"a": ours, "b": THEIRS, "time_ms": ms, "clock": clock, "seed": seed, "commit": commit}
    append_deals(path, deals, play_one, match)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True, help="name of the run (its deals go to results/strength_whole/<run>.jsonl)")
    ap.add_argument("--ours", default="pimc", help="our bot (a name of tacocat.players.bots.BOTS)")
    ap.add_argument("--ms", type=float, default=100.0, help="each side's budget a decision (equal time)")
    ap.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="what our bot's --ms counts (OpenSpiel's side plays the simulations its calibrated cost buys in --ms)",
    )
    ap.add_argument("--deals", type=positive, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--jobs", type=positive, default=1, help="processes (one a core); deal d goes to process d mod jobs"
    )
    args = ap.parse_args(argv)
    if args.ms <= 0:
        ap.error(f"argument --ms: expected a positive number of milliseconds, got {args.ms:g}")
    RUNS.mkdir(exist_ok=True)
    path = RUNS / f"{args.run}.jsonl"
    commit = source_commit()
    done = finished_deals(path, (args.ours, THEIRS, args.ms, args.seed, args.clock), commit)
    todo = [d for d in range(args.deals) if d not in done]
    if not todo:
        print(f"{path}: all {args.deals} deals played", file=sys.stderr)
        return
    print(f"calibrating OpenSpiel's ISMCTS on tacocat_turn ({len(todo)} deals to play)...", file=sys.stderr)
    costs = calibrate(pyspiel.load_game("tacocat_turn"))
    jobs = [
        (args.ours, args.ms, args.clock, args.seed, todo[j :: args.jobs], path, commit, costs, j)
        for j in range(args.jobs)
        if todo[j :: args.jobs]
    ]
    run_jobs(play_deals, jobs)


if __name__ == "__main__":
    main()
