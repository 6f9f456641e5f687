"""Hidden-hand searches' cost per decision against a baseline build: the
worlds of a PIMC or exact search summed by the core in batches
(`Core.tally`) against one Python call per world.

    python results/bench_tally.py --baseline-python /work/venv-base/bin/python   # writes results/bench_tally.md

Positions: play-phase decisions with a choice in seeded random games, the
larger hand holding exactly 3, 4 (endgames, where the per-world Python cost
weighs most) or 8 cards (exact enumeration only at 3 and 4).  Each build runs in child processes, the
baseline and this checkout alternating, `--rounds` rounds in one run;
per round a child times `exact_play` (every opponent hand) and
`pimc_play` (20 sampled deals) on every position and reports the median
decisions per second.  The table gives the medians over the rounds and the
ratio new / baseline; only ratios from the same run mean anything on a
shared machine."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from exploitability import positive  # results/ is this script's folder, first on sys.path

HERE = Path(__file__).resolve().parent
OUT = HERE / "bench_tally.md"

CHILD = r"""
import json, random, statistics, sys, time
from tacocat.rules.game import PLAY, GameState
from tacocat.rules.views import View
from tacocat.rules.ruleset import STANDARD
from tacocat.search import pimc
from tacocat.search.sampling import HandSampler

def views(cards, n, seed):
    out = []
    for g in range(100000):
        rng = random.Random(f"bench-tally/{{seed}}/{{cards}}/{{g}}")
        state = GameState.new(STANDARD, rng.getrandbits(32))
        for _ in range(400):
            if state.over or len(out) >= n:
                break
            acting = state.acting_players()
            if state.phase == PLAY and len(acting) == 1 and max(len(h) for h in state.hands) == cards:
                v = View.of(state, acting[0])
                if len(v.legal_actions()) > 1:
                    out.append(v)
                    break
            p = rng.choice(acting)
            state.apply(p, rng.choice(state.legal_actions(p)))
        if len(out) >= n:
            return out
    return out

def rate(f, vs, reps):
    per = []
    for v in vs:
        t = time.perf_counter()
        for r in range(reps):
            f(v, r)
        per.append(reps / (time.perf_counter() - t))
    return statistics.median(per)

solver = pimc.PerfectSolver(STANDARD)
out = {{}}
for cards, reps in ((3, 20), (4, 10), (8, 2)):
    vs = views(cards, {positions}, {seed})
    if cards <= 4:  # every opponent hand: at most C(15, 4) of them
        out[f"exact {{cards}}"] = rate(lambda v, r: pimc.exact_play(v, max_hands=None, solver=solver), vs, reps)
    out[f"pimc20 {{cards}}"] = rate(lambda v, r: pimc.pimc_play(v, samples=20, seed=r, solver=solver), vs, reps)
print(json.dumps(out))
"""


def run_child(python: str, args) -> dict:
    code = CHILD.format(positions=args.positions, seed=args.seed)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    res = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd="/")
    if res.returncode != 0:
        raise SystemExit(f"child {python} failed: {res.stderr.strip().splitlines()[-1:]}")
    return json.loads(res.stdout)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-python", required=True, help="python of a venv with the baseline build installed")
    ap.add_argument("--python", default=sys.executable, help="python of this build (default: this one)")
    ap.add_argument("--rounds", type=positive, default=5)
    ap.add_argument("--positions", type=positive, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs: dict[str, list[dict]] = {"baseline": [], "new": []}
    for r in range(args.rounds):
        for name, py in (("baseline", args.baseline_python), ("new", args.python)):
            runs[name].append(run_child(py, args))
            print(f"round {r + 1}/{args.rounds} {name}: {runs[name][-1]}", file=sys.stderr, flush=True)
    keys = list(runs["new"][0])
    med = {name: {k: statistics.median(x[k] for x in rows) for k in keys} for name, rows in runs.items()}
    lines = [
        "# Batched worlds (`Core.tally`): decisions per second against the baseline build",
        "",
        f"`python results/bench_tally.py --rounds {args.rounds} --positions {args.positions}` "
        f"on {start}; a shared machine (2 cores, load average {load0:.1f} -> {os.getloadavg()[0]:.1f}); medians over "
        f"{args.rounds} alternating rounds of the per-position medians ({args.positions} positions a size).",
        "",
        "| search, larger hand | baseline decisions/s | batched decisions/s | ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    for k in keys:
        what, cards = k.split()
        label = {"exact": "exact enumeration", "pimc20": "PIMC, 20 deals"}[what]
        lines.append(
            f"| {label}, {cards} cards | {med['baseline'][k]:,.0f} | {med['new'][k]:,.0f} | "
            f"{med['new'][k] / med['baseline'][k]:.2f} |"
        )
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
