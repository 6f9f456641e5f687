"""Throughput of history-aware sampling (R20) against a baseline build.

    python results/bench_history.py --baseline-python /tmp/base-venv/bin/python \
        --baseline-path /tmp/base/build/lib.linux-x86_64-cpython-311      # writes results/bench_history.md

The positions of `results/bench_search.py` (8-card play-phase views; their
history is empty, so both builds search the same worlds) are measured in
child processes, the baseline build and this checkout alternating, several
rounds in one run; the table gives the medians of the per-position rates
(PIMC deals/s, ISMCTS iterations/s with the default leaf evaluation) and
the ratio new / baseline.  The same is then shown for views with a history
whose sacrifices set a floor (this build only: the baseline ignores the
history and so searches other worlds).  The machine is shared and loaded:
only ratios measured in the same run mean anything."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "bench_history.md"

CHILD = r"""
import json, random, statistics, sys
sys.path.insert(0, {here!r})
from bench_search import positions, bench_ismcts, bench_pimc
views = positions({positions}, {seed})
ism = bench_ismcts(views, {iterations}, 4)
pimc, _ = bench_pimc(views, {samples})
print(json.dumps({{"ismcts": statistics.median(ism), "pimc": statistics.median(pimc)}}))
"""


def history_views(n: int):
    """Play-phase views of seeded random games after an opponent sacrifice."""
    import random

    from tacocat.rules.game import PLAY, GameState
    from tacocat.rules.views import View
    from tacocat.search.sampling import HandSampler

    out = []
    for g in range(10_000):
        rng = random.Random(f"bench-history/{g}")
        state = GameState.new(seed=g)
        for _ in range(300):
            if state.over or len(out) >= n:
                break
            if state.phase == PLAY and not state.table:
                p = state.attacker
                v = View.of(state, p)
                if HandSampler(v).floor > 3 and v.opponent_hand_size >= 5:
                    out.append(v)
                    break
            p = rng.choice(state.acting_players())
            state.apply(p, rng.choice(state.legal_actions(p)))
        if len(out) >= n:
            return out
    return out


def run_child(python: str, path: str | None, args) -> dict:
    code = CHILD.format(
        here=str(HERE), positions=args.positions, seed=args.seed, iterations=args.iterations, samples=args.samples
    )
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline-python", required=True, help="Python of the baseline build")
    ap.add_argument("--baseline-path", default=None, help="PYTHONPATH for the baseline build (its build/lib)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--positions", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=50_000)
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-file", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    base, new = [], []
    for r in range(args.rounds):
        base.append(run_child(args.baseline_python, args.baseline_path, args))
        new.append(run_child(sys.executable, None, args))
        print(f"round {r + 1}: baseline {base[-1]}, new {new[-1]}", file=sys.stderr)
    med = {k: (statistics.median(b[k] for b in base), statistics.median(n[k] for n in new)) for k in ("pimc", "ismcts")}

    from bench_search import bench_ismcts, bench_pimc  # noqa: E402  (this checkout's build)

    hv = history_views(args.positions)
    h_ism = statistics.median(bench_ismcts(hv, args.iterations, 4))
    h_pimc = statistics.median(bench_pimc(hv, args.samples)[0])
    load1 = os.getloadavg()[0]
    lines = [
        "# History-aware sampling: throughput against the baseline build",
        "",
        f"`python results/bench_history.py --rounds {args.rounds} --positions {args.positions} --iterations "
        f"{args.iterations} --samples {args.samples}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"a loaded shared machine (2 cores, load average {load0:.1f} -> {load1:.1f}); medians over "
        f"{args.rounds} alternating rounds of the per-position medians.",
        "",
        "| search (bench_search.py positions) | baseline | with R20 sampling | ratio |",
        "| --- | ---: | ---: | ---: |",
        f"| PIMC deals/s | {med['pimc'][0]:,.0f} | {med['pimc'][1]:,.0f} | {med['pimc'][1] / med['pimc'][0]:.2f} |",
        f"| ISMCTS iterations/s | {med['ismcts'][0]:,.0f} | {med['ismcts'][1]:,.0f} | "
        f"{med['ismcts'][1] / med['ismcts'][0]:.2f} |",
        "",
        f"Views with a history whose sacrifices set a floor above 3 ({len(hv)} positions from seeded random games, "
        f"this build): PIMC {h_pimc:,.0f} deals/s, ISMCTS {h_ism:,.0f} iterations/s.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_file:
        OUT.write_text(text)


if __name__ == "__main__":
    main()
