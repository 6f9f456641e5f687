"""What the round searched as one costs (issue 24, deliverable 2): decisions
per second of the new search against `pimc_classic` at equal samples, by
phase (replace, duel, play), in the same run.

The positions are the decisions of seeded whole games between heuristic
bots (standard rules), the first `--per-phase` of each kind.  Each position
is decided by every configuration in turn, in a rotating order (so a
change of load falls on all of them alike), by the bots' own path
(`SearchBot.choose`, which calls `hint`), at the same sample counts
(level 5 of `move`: 25 worlds, 80 replacement evaluations over 12
candidates, 12 duel deals).  Reported: the median wall and CPU time of a
decision and decisions per second (1 / median), and each configuration's
ratio to `pimc_classic`.

    python results/round_cost.py --per-phase 30
writes results/round_cost.md and results/round_cost.json."""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from pathlib import Path

from tacocat.players.bots import HeuristicBot, make_bot
from tacocat.rules.game import REPLACE, GameState
from tacocat.rules.ruleset import STANDARD

HERE = Path(__file__).resolve().parent
LEVEL5 = {"samples": 25, "replace_samples": 80, "duel_samples": 12, "candidates": 12}
CONFIGS = {
    "pimc_classic": ("pimc_classic", {}),
    "round search": ("pimc", {"round_search": 1}),
    "inference": ("pimc", {"inference": "policy"}),
    "round search + inference": ("pimc", {"round_search": 1, "inference": "policy"}),
}
PHASES = ("replace", "duel", "play")


def spec(bot: str, extra: dict) -> str:
    """The bot as `results/strength_whole.py` names it (its level-5 counts left out)."""
    return bot + ("@" + ",".join(f"{k}={v}" for k, v in extra.items()) if extra else "")


def phase_of(decision: str) -> str:
    return "play" if decision in ("attack", "answer") else decision


def positions(per_phase: int, seed: int) -> dict[str, list]:
    """The first `per_phase` views of each phase with more than one legal action."""
    out: dict[str, list] = {p: [] for p in PHASES}
    bot = HeuristicBot()
    g = seed
    while any(len(v) < per_phase for v in out.values()):
        state = GameState.new(STANDARD, g)
        rng = random.Random(g)
        while not state.over:
            for p in state.acting_players():
                view = state.view(p)
                ph = phase_of(view.decision)
                if len(out[ph]) < per_phase and (view.decision == REPLACE or len(view.legal_actions()) > 1):
                    out[ph].append(view)
                state.apply(p, bot.choose(view, rng))
        g += 1
    return out


def measure(per_phase: int, seed: int) -> dict:
    views = positions(per_phase, seed)
    bots = {name: make_bot(bot, seed=seed, **LEVEL5, **extra) for name, (bot, extra) in CONFIGS.items()}
    names = list(CONFIGS)
    times: dict = {ph: {n: {"wall": [], "cpu": []} for n in names} for ph in PHASES}
    loads = []
    for ph in PHASES:  # warm-up, not timed: imports, scipy's first linear program, the models' caches
        for n in names:
            bots[n].choose(views[ph][0], random.Random(-1))
    for ph in PHASES:
        for k, view in enumerate(views[ph]):
            loads.append(os.getloadavg()[0])
            order = names[k % len(names) :] + names[: k % len(names)]
            for n in order:
                rng = random.Random(k)
                w0, c0 = time.perf_counter(), time.process_time()
                bots[n].choose(view, rng)
                times[ph][n]["wall"].append(time.perf_counter() - w0)
                times[ph][n]["cpu"].append(time.process_time() - c0)
    return {
        "per_phase": per_phase,
        "seed": seed,
        "budget": LEVEL5,
        "configs": {n: spec(b, e) for n, (b, e) in CONFIGS.items()},
        "times": times,
        "load": {"min": min(loads), "mean": sum(loads) / len(loads), "max": max(loads)},
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def report(data: dict) -> str:
    names = list(data["configs"])
    lines = [
        "# The round searched as one: what it costs (issue 24)",
        "",
        f"`python results/round_cost.py --per-phase {data['per_phase']} --seed {data['seed']}` "
        f"({data['when']}, Python {data['python']}; 1-minute load average {data['load']['min']:.1f} / "
        f"{data['load']['mean']:.1f} / {data['load']['max']:.1f} min / mean / max on a shared 2-core machine).",
        "",
        f"{data['per_phase']} positions a phase from seeded games of heuristic bots (standard rules), each "
        "decided by every configuration in turn (rotating order, same run) through the bots' own path "
        "(`SearchBot.choose`), all at level-5 counts: "
        + ", ".join(f"{k}={v}" for k, v in data["budget"].items())
        + ". Equal samples, not equal time. Decisions per second = 1 / median wall time; "
        "the ratio is the configuration's median CPU time over `pimc_classic`'s.",
        "",
        "| phase | search | bot | median wall ms | median CPU ms | decisions / s (wall) | CPU time v classic |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for ph in PHASES:
        base = statistics.median(data["times"][ph]["pimc_classic"]["cpu"])
        for n in names:
            t = data["times"][ph][n]
            wall, cpu = statistics.median(t["wall"]), statistics.median(t["cpu"])
            lines.append(
                f"| {ph} | {n} | `{data['configs'][n]}` | {1000 * wall:.1f} | {1000 * cpu:.1f} | "
                f"{1 / wall:.1f} | {cpu / base:.2f}x |"
            )
    lines += [
        "",
        "Reading:",
        "",
        "- The round search changes the replacement and the duel only; the play phase is PIMC as before "
        "(its rows differ by noise, and by inference's weights where it is on).",
        "- Replacement: every (candidate, world) evaluation solves the world's duel as a matrix game, one "
        "play phase per (my card, their card) cell, instead of one play phase after both duel their highest "
        "card: that is the cost at equal evaluations.",
        "- Duel: each cell asks the solver for every move of my first play-phase decision (and, when the "
        "opponent attacks first, its attacks then my answers) instead of one value.",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="decisions per second of the round search against pimc_classic")
    ap.add_argument("--per-phase", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.per_phase < 1:
        ap.error("--per-phase: expected at least 1")
    data = measure(args.per_phase, args.seed)
    (HERE / "round_cost.json").write_text(json.dumps(data, indent=1) + "\n")
    text = report(data)
    (HERE / "round_cost.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
