"""Is a bot's time budget a limit?  (issue 24, deliverable 4)

Seeded decisions of every phase (replace, duel, attack, answer) are taken
from whole games between level-3 bots under the standard rules; each bot
(`pimc`, `pimc_classic`) chooses at each of them with `time_ms` = 1, 10 and
100, and the wall time of `bot.choose(view, rng)` is its think time.  A
decision with one legal action is skipped (no search runs).  The table
gives the median, 99th percentile and largest think time per bot, budget and
phase; the goal for `pimc` is a median within 1.2x of the budget and a 99th
percentile within 3x.  A benchmark, not a timed test: the machine is shared,
so the load average is printed with the table.

    python results/think_time.py --per-kind 40      # writes results/think_time.md
    python results/think_time.py --per-kind 5 --no-write   # a quick look
    python results/think_time.py --bots pimc_static 'pimc@replace=guided' --budgets 10,100 \
        --kinds replace --clock cpu --no-write      # issue 34's replacement, on the CPU clock

A bot is a name or a spec with its options (`pimc@replace=guided`, as
`tacocat arena` reads it); `--clock cpu` gives the bots their budget in CPU
time, as a match's `--clock cpu` does (the think time is still timed on both
clocks)."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from tacocat.players.bots import make_bot, play_game
from tacocat.players.match import parse_bot
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.search import duel_game, replace_game  # noqa: F401  (loaded before the first timed decision)

OUT = Path(__file__).resolve().parent / "think_time.md"
KINDS = ("replace", "duel", "attack", "answer")
LEVEL3 = {"samples": 1, "replace_samples": 8, "duel_samples": 2, "candidates": 4}


def positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return n


def decisions(per_kind: int, seed: int) -> dict[str, list]:
    """`per_kind` views of each decision kind with more than one legal
    action, drawn with a seeded RNG from the decisions of seeded games."""
    found: dict[str, list] = {k: [] for k in KINDS}
    g = 0
    while min(len(v) for v in found.values()) < 4 * per_kind and g < 400:
        bots = (make_bot("pimc_classic", seed=g, **LEVEL3), make_bot("pimc_classic", seed=g + 1, **LEVEL3))
        end = play_game(bots, seed + g, STANDARD)
        replay = GameState.new(STANDARD, seed + g)
        for a in end.actions:
            p = a["player"]
            view = replay.view(p)
            if view.decision in found and len(view.legal_actions()) > 1:
                found[view.decision].append(view)
            from tacocat.rules.actions import Action

            replay.apply(p, Action.from_dict({k: v for k, v in a.items() if k != "player"}))
        g += 1
    rng = random.Random(seed)
    return {k: rng.sample(v, min(per_kind, len(v))) for k, v in found.items()}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="think time of pimc and pimc_classic at 1, 10, 100 ms")
    ap.add_argument("--per-kind", type=positive, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budgets", default="1,10,100")
    ap.add_argument("--bots", nargs="+", default=["pimc,pimc_classic"], help="names or specs (name@key=value,...)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="the decision kinds timed, comma-separated")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="what the bots' time budget counts")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    budgets = [float(x) for x in args.budgets.split(",")]
    kinds = [k for k in args.kinds.split(",") if k]
    if not set(kinds) <= set(KINDS):
        ap.error(f"--kinds: expected some of {', '.join(KINDS)}")
    # a plain list may be comma-separated (the older form); a spec's options keep their commas
    bots = [b for item in args.bots for b in ([item] if "@" in item else item.split(","))]
    views = decisions(args.per_kind, args.seed)
    load0 = os.getloadavg()
    t_start = time.time()
    rows, raw = [], {}
    for name in bots:
        base, options = parse_bot(name)
        for ms in budgets:
            bot = make_bot(base, **{**options, "time_ms": ms, "clock": args.clock, "seed": args.seed})
            bot.choose(views["attack"][0], random.Random(0))  # warm the imports and tables
            every = []
            for kind in kinds:
                times, cpu = [], []
                for i, view in enumerate(views[kind]):
                    c0, t0 = time.process_time(), time.perf_counter()
                    bot.choose(view, random.Random(i))
                    times.append(1000 * (time.perf_counter() - t0))
                    cpu.append(1000 * (time.process_time() - c0))
                every += list(zip(times, cpu))
                raw[f"{name}/{ms:g}/{kind}"] = [round(t, 3) for t in times]
                rows.append((name, ms, kind, list(zip(times, cpu))))
            rows.append((name, ms, "all", every))
    load1 = os.getloadavg()
    flags = "" if bots == ["pimc", "pimc_classic"] else " --bots " + " ".join(f"'{b}'" if "@" in b else b for b in bots)
    flags += "" if budgets == [1.0, 10.0, 100.0] else f" --budgets {args.budgets}"
    flags += "" if kinds == list(KINDS) else f" --kinds {','.join(kinds)}"
    flags += "" if args.clock == "wall" else f" --clock {args.clock}"
    lines = [
        "# Think time: a time budget is a limit (issue 24)",
        "",
        f"`python results/think_time.py --per-kind {args.per_kind} --seed {args.seed}{flags}` on "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t_start))}, {time.time() - t_start:.0f} s. "
        f"The machine is shared (2 cores, other engineers' jobs running): `uptime` load average "
        f"{load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} at the start, {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} "
        f"at the end. Think time: wall time of `bot.choose(view, rng)` with `time_ms` = budget (on the {args.clock} "
        "clock), in ms, over "
        f"{args.per_kind} seeded decisions per phase (views from level-3 games; one-action decisions skipped).",
        "",
        "Wall time counts the time the process waited for a core on the loaded machine; CPU time "
        "(`time.process_time`) is the search's own work.",
        "",
        "| bot | budget ms | phase | decisions | median ms | median / budget | p99 ms | p99 / budget "
        "| max ms | mean ms "
        "| CPU median ms | CPU p99 ms |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, ms, kind, pairs in rows:
        t = [w for w, _ in pairs]
        c = [x for _, x in pairs]
        med, p99 = statistics.median(t), pct(t, 0.99)
        bold = "**" if kind == "all" else ""
        lines.append(
            f"| {name} | {ms:g} | {bold}{kind}{bold} | {len(t)} | {med:.2f} | {med / ms:.2f} | {p99:.2f} | "
            f"{p99 / ms:.2f} | {max(t):.1f} | {statistics.mean(t):.2f} | {statistics.median(c):.2f} | "
            f"{pct(c, 0.99):.2f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        OUT.write_text(text)
        OUT.with_suffix(".json").write_text(json.dumps(raw) + "\n")


if __name__ == "__main__":
    main()
