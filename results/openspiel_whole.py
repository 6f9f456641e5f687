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
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import tacocat.openspiel  # noqa: F401  (registers the games)
from tacocat.openspiel.bots import TacocatBot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402
from strength_whole import finished_deals, run_jobs  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = HERE / "strength_whole"
THEIRS = "os_ismcts (tacocat_turn)"
MIN_SIMS = 2


def deal_seed(seed: int, d: int) -> int:
    """The GameState seed of deal d: `play_whole_game`'s draw, in 31 bits (a C int)."""
    return int(random.Random(f"game/{seed}/{d}").getrandbits(31))


def decision_key(state) -> tuple[str, int]:
    """(decision kind, hand size) of the player to move: what a simulation's cost depends on."""
    p = state.current_player()
    gs = state.game_state()
    return str(gs.decision(p)), len(gs.hands[p])


class OpenSpielISMCTS:
    """OpenSpiel's ISMCTS with floor(T / cost) simulations a decision."""

    def __init__(self, game, budget_s: float, costs: dict, seed: int) -> None:
        self.game, self.budget_s, self.costs = game, budget_s, costs
        self.rng = np.random.RandomState(seed)
        self.sims: list[int] = []

    def cost(self, key: tuple[str, int]) -> float:
        if key in self.costs:
            return self.costs[key]
        same_kind = [(abs(h - key[1]), c) for (k, h), c in self.costs.items() if k == key[0]]
        return min(same_kind)[1] if same_kind else max(self.costs.values())

    def search(self, state, sims: int) -> int:
        evaluator = mcts.RandomRolloutEvaluator(1, self.rng)
        return ismcts.ISMCTSBot(self.game, evaluator, 2.0, sims, random_state=self.rng).step(state)

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        key = decision_key(state)
        sims = max(MIN_SIMS, int(self.budget_s / self.cost(key)))
        self.sims.append(sims)
        t = time.perf_counter()
        action = self.search(state, sims)
        # Keep calibrating while playing: the machine's load changes.
        self.costs[key] = 0.8 * self.cost(key) + 0.2 * (time.perf_counter() - t) / sims
        return action


def calibrate(game, seed: int = 7, games: int = 6, sims: int = 8) -> dict:
    """Median seconds a simulation of OpenSpiel's ISMCTS by (decision kind,
    hand size), at `sims` simulations on the positions of `games` random whole games."""
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
    probe = OpenSpielISMCTS(game, 0.0, {}, seed)
    costs = {}
    for key, states in positions.items():
        times = []
        for s in states[:6]:
            t = time.perf_counter()
            probe.search(s, sims)
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
    ours, ms, seed, deals, path, commit, costs, part = job
    game = pyspiel.load_game("tacocat_turn")
    theirs = OpenSpielISMCTS(game, ms / 1000, dict(costs), seed * 7919 + part + 1)
    with path.open("a") as f:
        for d in deals:
            t0 = time.time()
            load = os.getloadavg()[0]
            results, think, decisions, sims_before = [], [0.0, 0.0], [0, 0], len(theirs.sims)
            for seat in (0, 1):
                truth = pyspiel.load_game("tacocat_turn", {"seed": deal_seed(seed, d)}).new_initial_state()
                mine = TacocatBot(game, seat, ours, seed=seed * 1_000_003 + d, time_ms=ms)
                bots = [theirs, theirs]
                bots[seat] = mine
                r0, t, n = play(truth, game, bots)
                results.append(r0 if seat == 0 else -r0)
                think[0] += t[seat]
                think[1] += t[1 - seat]
                decisions[0] += n[seat]
                decisions[1] += n[1 - seat]
            sims = theirs.sims[sims_before:]
            rec = {
                "a": ours,
                "b": THEIRS,
                "time_ms": ms,
                "seed": seed,
                "commit": commit,
                "deal": d,
                "first": results[0],
                "second": results[1],
                "seconds": round(time.time() - t0, 1),
                "load": round(load, 2),
                "a_think_s": round(think[0], 4),
                "a_decisions": decisions[0],
                "b_think_s": round(think[1], 4),
                "b_decisions": decisions[1],
                "b_sims_mean": round(sum(sims) / len(sims), 1) if sims else 0,
            }
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"deal {d}: {results[0]:+d} {results[1]:+d} ({rec['seconds']} s)", file=sys.stderr, flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True, help="name of the run (its deals go to results/strength_whole/<run>.jsonl)")
    ap.add_argument("--ours", default="pimc", help="our bot (a name of tacocat.players.bots.BOTS)")
    ap.add_argument("--ms", type=float, default=100.0, help="each side's budget a decision (equal time)")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="processes (one a core); deal d goes to process d mod jobs")
    args = ap.parse_args(argv)
    if args.ms <= 0 or args.deals < 1 or args.jobs < 1:
        ap.error("--ms must be positive, --deals and --jobs at least 1")
    RUNS.mkdir(exist_ok=True)
    path = RUNS / f"{args.run}.jsonl"
    commit = source_commit()
    done = finished_deals(path, (args.ours, THEIRS, args.ms, args.seed), commit)
    todo = [d for d in range(args.deals) if d not in done]
    if not todo:
        print(f"{path}: all {args.deals} deals played", file=sys.stderr)
        return
    print(f"calibrating OpenSpiel's ISMCTS on tacocat_turn ({len(todo)} deals to play)...", file=sys.stderr)
    costs = calibrate(pyspiel.load_game("tacocat_turn"))
    jobs = [
        (args.ours, args.ms, args.seed, todo[j :: args.jobs], path, commit, costs, j)
        for j in range(args.jobs)
        if todo[j :: args.jobs]
    ]
    run_jobs(play_deals, jobs)


if __name__ == "__main__":
    main()
