"""Strength table: duplicate matches between the bots.

    python results/strength.py                     # everything (~1 h on 2 busy cores)
    python results/strength.py --part play         # play phase only
    python results/strength.py --deals 40 --quick  # smoke run, prints only
    python results/strength.py --cluster ray --workers 16   # on Ray (same numbers)

Writes `results/strength.md` and `results/strength.json`.

Format (`tacocat.players.match.run_match`): every deal is played twice with the same
shuffle and the seats swapped.  "play" = the play phase alone, 8 v 8, player
0 attacks, scored by the round (+1 win, 0 drawn round, -1 loss); "game" =
whole games scored +1 / -1.  Score = bot A's mean score in [-1, 1]; the 95%
interval is over deals (mean ± 1.96 standard errors of the per-deal
duplicate scores).

Budgets are per decision.  "10 ms" rows give both search bots the same wall
time (so they are not exactly reproducible, and under load every search bot
gets fewer iterations); rows with iteration / sample budgets are
reproducible from the seed.  In whole games a search bot's replace and duel
decisions use `replace_samples` / `duel_samples` and also stop at the time
budget."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from tacocat.players.cluster import Cluster
from tacocat.players.match import run_match

HERE = Path(__file__).resolve().parent

PLAY_PAIRS = [
    # (A, B, budget given to both, label)
    ("pimc", "heuristic", {"time_ms": 10}, "10 ms"),
    ("ismcts", "heuristic", {"time_ms": 10}, "10 ms"),
    ("pimc", "ismcts", {"time_ms": 10}, "10 ms each"),
    ("pimc", "heuristic", {"samples": 50}, "50 deals"),
    ("ismcts", "heuristic", {"iterations": 5000}, "5,000 iterations"),
    ("pimc@samples=50", "ismcts@iterations=5000", {}, "50 deals v 5,000 iterations"),
    ("oracle", "pimc", {"time_ms": 10}, "pimc 10 ms"),
    ("oracle", "ismcts", {"time_ms": 10}, "ismcts 10 ms"),
    ("oracle", "heuristic", {}, "-"),
    ("heuristic", "random", {}, "-"),
]

GAME_PAIRS = [
    ("pimc", "heuristic", {"time_ms": 20}, "20 ms"),
    ("ismcts", "heuristic", {"time_ms": 20}, "20 ms"),
    ("pimc", "ismcts", {"time_ms": 20}, "20 ms each"),
    ("oracle", "pimc", {"time_ms": 20}, "pimc 20 ms"),
    ("heuristic", "random", {}, "-"),
]


def run(part: str, pairs, deals: int, seed: int, backend: Cluster, clock: str = "cpu") -> list[dict]:
    rows = []
    for a, b, budget, label in pairs:
        budget = dict(budget, clock=clock) if "time_ms" in budget else budget
        t0 = time.time()
        r = run_match(a, b, deals=deals, seed=seed, mode=part, budget=budget, cluster=backend)
        d = r.to_dict()
        d["label"] = label
        d["wall"] = time.time() - t0
        rows.append(d)
        print(
            f"{part}: {a} v {b} [{label}]: {r.score:+.3f} [{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}] "
            f"({r.wins}/{r.draws}/{r.losses}, {d['wall']:.0f} s)",
            file=sys.stderr,
        )
    return rows


def table(rows: list[dict]) -> list[str]:
    out = [
        "| A | B | budget | deals | score of A | 95% CI | A wins / draws / losses (games) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        out.append(
            f"| {r['a']} | {r['b']} | {r['label']} | {r['deals']} | {r['score']:+.3f} | "
            f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] | {r['wins']} / {r['draws']} / {r['losses']} |"
        )
    return out


def findings(result: dict) -> list[str]:
    """The questions the table answers, read off its rows."""

    def row(part, a, b, label):
        return next((r for r in result.get(part, []) if (r["a"], r["b"], r["label"]) == (a, b, label)), None)

    def ci(r):
        return f"{r['score']:+.3f} [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]"

    out = ["## Findings", ""]
    for bot in ("pimc", "ismcts"):
        r = row("play", bot, "heuristic", "10 ms")
        if r:
            ok = "meets" if r["ci95"][0] > 0.10 else "does NOT meet"
            out.append(f"- {bot} v heuristic, play phase, 10 ms: {ci(r)}; {ok} the target (lower end above +0.10).")
    for part, label in (("play", "10 ms each"), ("game", "20 ms each")):
        r = row(part, "pimc", "ismcts", label)
        if r:
            if r["ci95"][0] > 0:
                verdict = "pimc is stronger"
            elif r["ci95"][1] < 0:
                verdict = "ismcts is stronger"
            else:
                verdict = "no significant difference"
            out.append(f"- Equal time ({label}, {part}): pimc v ismcts {ci(r)}: {verdict}.")
    for part, bot, label in (
        ("play", "pimc", "pimc 10 ms"),
        ("play", "ismcts", "ismcts 10 ms"),
        ("game", "pimc", "pimc 20 ms"),
    ):
        r = row(part, "oracle", bot, label)
        if r:
            out.append(
                f"- Distance to the oracle ({part}): oracle v {bot} {ci(r)} "
                "(the oracle sees both hands: an upper bound, not a reachable target)."
            )
    return out + [""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("play", "game", "both"), default="both")
    ap.add_argument("--deals", type=int, default=300, help="deals per pairing in play mode")
    ap.add_argument("--game-deals", type=int, default=100, help="deals per pairing in game mode")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="what the time budgets count")
    Cluster.add_arguments(ap)
    ap.set_defaults(workers=2)
    ap.add_argument("--quick", action="store_true", help="print only, write nothing")
    args = ap.parse_args()
    backend = Cluster.from_arguments(args)
    load = os.getloadavg()[0]
    t0 = time.time()
    result: dict = {"seed": args.seed, "workers": args.workers}
    if args.part in ("play", "both"):
        result["play"] = run("play", PLAY_PAIRS, args.deals, args.seed, backend, args.clock)
    if args.part in ("game", "both"):
        result["game"] = run("game", GAME_PAIRS, args.game_deals, args.seed, backend, args.clock)
    minutes = (time.time() - t0) / 60
    cmd = (
        f"python results/strength.py --part {args.part} --deals {args.deals} --game-deals {args.game_deals} "
        f"--seed {args.seed} --clock {args.clock} --workers {args.workers}"
    )
    lines = [
        "# Bot strength, duplicate format",
        "",
        f"Regenerate: `{cmd}` ({minutes:.0f} min here; load average {load:.1f} at the start on a 2-core "
        "machine shared with other jobs; "
        + (
            "time budgets count each bot's own CPU time, the same work at any load)."
            if args.clock == "cpu"
            else "time budgets on the wall clock bought fewer iterations than on an idle core)."
        ),
        "",
        "Score: A's mean score in [-1, 1] (0 = equal); 95% CI over deals. See the docstring of "
        "`results/strength.py` for the format and budgets.",
        "",
    ]
    if "play" in result:
        lines += ["## Play phase alone (8 v 8, player 0 attacks)", ""] + table(result["play"]) + [""]
    if "game" in result:
        lines += ["## Whole games", ""] + table(result["game"]) + [""]
    lines += findings(result)
    result["command"] = cmd
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        suffix = "" if args.part == "both" else f"_{args.part}"
        (HERE / f"strength{suffix}.md").write_text(text)
        (HERE / f"strength{suffix}.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
