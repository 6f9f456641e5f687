"""Calibrate the strength levels of the protocol's `move` command
(`tacocat.protocol.moves.LEVELS`): each level against the level below, in
duplicate whole games (`tacocat.players.match.run_match`, mode "game"),
plus the top level against level 2 (the heuristic) as a span.

    python results/levels.py --deals 160 --seed 0 --workers 1

writes results/levels.md and results/levels.json.  Small by design (a
loaded shared 2-core machine): the intervals say how little a few dozen
deals can tell apart."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from tacocat.players.match import run_match
from tacocat.protocol.moves import LEVELS


def spec(level: int) -> str:
    name, budget = LEVELS[level]
    return name + ("@" + ",".join(f"{k}={v}" for k, v in budget.items()) if budget else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=160)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    top = max(LEVELS)
    pairs = [(lv + 1, lv) for lv in range(1, top)] + [(top, 2)]
    # Beyond the top level: more samples (the bot "pimc" by name, its default 100, and 300).
    beyond = [("pimc@samples=100", top), ("pimc@samples=300,replace_samples=480,duel_samples=48", "pimc@samples=100")]
    rows = []
    t0 = time.perf_counter()
    for a, b in pairs + beyond:
        sa, sb = (spec(x) if isinstance(x, int) else x for x in (a, b))
        r = run_match(sa, sb, deals=args.deals, seed=args.seed, mode="game", workers=args.workers)
        row = {**r.to_dict(), "a": a, "b": b}
        rows.append(row)
        print(f"{sa} v {sb}: {r.score:+.3f} [{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}] ({r.seconds:.0f} s)", file=sys.stderr)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "levels.json"), "w") as f:
        json.dump(
            {
                "deals": args.deals,
                "seed": args.seed,
                "levels": {k: [n, b] for k, (n, b) in LEVELS.items()},
                "rows": rows,
            },
            f,
            indent=1,
        )
    lines = [
        "# Strength levels of `move` (protocol 1.1)",
        "",
        f"Regenerate: `python results/levels.py --deals {args.deals} --seed {args.seed} --workers {args.workers}` "
        f"({time.perf_counter() - t0:.0f} s here, on a loaded 2-core machine shared with other jobs; the levels' "
        "budgets are counts, not times, so the numbers do not depend on the load).",
        "",
        "Each level is a bot and a budget (`tacocat.protocol.moves.LEVELS`):",
        "",
        "| level | bot | budget |",
        "| --- | --- | --- |",
    ]
    for k, (name, budget) in LEVELS.items():
        lines.append(f"| {k} | {name} | {', '.join(f'{a}={v}' for a, v in budget.items()) or '-'} |")
    lines += [
        "",
        f"Duplicate whole games: every deal played twice with the seats swapped ({args.deals} deals = "
        f"{2 * args.deals} games a row). Score: A's mean result in [-1, 1] (+1 = won every game); "
        "95% CI over deals.",
        "",
        "| A | B | deals | score of A | 95% CI | A wins / losses (games) | seconds |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    name = lambda x: f"level {x}" if isinstance(x, int) else f"`{x}`"  # noqa: E731
    for r in rows:
        lines.append(
            f"| {name(r['a'])} | {name(r['b'])} | {r['deals']} | {r['score']:+.3f} | "
            f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] | {r['wins']} / {r['losses']} | {r['seconds']:.0f} |"
        )
    lines += ["", "## Reading", ""]
    for r in rows:
        lo, hi = r["ci95"]
        verdict = (
            "stronger (the interval excludes 0)"
            if lo > 0
            else "weaker (the interval excludes 0)"
            if hi < 0
            else "not told apart at this size"
        )
        lines.append(f"- {name(r['a'])} v {name(r['b'])}: {r['score']:+.3f} [{lo:+.3f}, {hi:+.3f}]: {verdict}.")
    with open(os.path.join(here, "levels.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
