"""What a replacement and a duel lose to their own sampling (issue 24).

A bot's replacement compares discards on a few hundred sampled deals
(`replace_eval`, 240 evaluations by default), and its duel solves a matrix
game averaged over a few dozen sampled worlds (`duel_eval`, 24).  Here
each decision is asked again at several sample counts, and each answer is
scored by the same search's model with far more samples:

- replacement: the discard each run ranks first, valued with
  `discard_values` (the classic model, every discard on the same
  `--check-deals` deals, a seed of its own); the loss is the best value
  among the discards any run chose (and a reference run of
  `--reference` evaluations) less the chosen one's;
- duel: the mixed strategy each run plays, valued against the opponent's
  optimal mix in a reference matrix of `--reference-worlds` worlds; the
  loss is that matrix game's value less it (a lower bound on what the mix
  loses to a best reply under that matrix).

Losses are in round results (+1 won, -1 lost), on the decisions of seeded
whole games between level-3 bots (`think_time.decisions`), `--seeds`
runs per decision and sample count.  The milliseconds are each run's
median wall time: a benchmark on a shared machine, so the load is printed.

    python results/decision_noise.py --views 60 --jobs 2     # results/decision_noise.md and .json
    python results/decision_noise.py --views 4 --no-write    # a quick look"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tacocat.search.budget import Budget
from tacocat.search.decisions import discard_values, duel_eval, replace_eval
from tacocat.search.pimc import PerfectSolver

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from provenance import source_commit  # noqa: E402
from think_time import decisions, positive  # noqa: E402

OUT = HERE / "decision_noise.md"
CANDIDATES = 24  # a search bot's default (`SearchBot`)


def replace_row(job: tuple) -> dict:
    view, counts, seeds, reference, check_deals = job
    solver = PerfectSolver(view.rules)
    ref = replace_eval(view, Budget(samples=reference, seed=7), candidates=CANDIDATES, solver=solver)
    choices: dict[int, list] = {}
    ms: dict[int, list] = {}
    for n in counts:
        for s in range(seeds):
            t = time.perf_counter()
            r = replace_eval(view, Budget(samples=n, seed=100 + s), candidates=CANDIDATES, solver=solver)
            ms.setdefault(n, []).append(1000 * (time.perf_counter() - t))
            choices.setdefault(n, []).append(r.moves[0].action.cards)
    chosen = sorted({ref.moves[0].action.cards, *(c for cs in choices.values() for c in cs)})
    value = dict(zip(chosen, discard_values(view, chosen, check_deals, seed=99, solver=solver), strict=True))
    best = max(value.values())
    return {
        "hand": list(view.hand),
        "loss": {n: [best - value[c] for c in cs] for n, cs in choices.items()},
        "reference_loss": best - value[ref.moves[0].action.cards],
        "ms": ms,
    }


def duel_row(job: tuple) -> dict:
    view, counts, seeds, reference = job
    solver = PerfectSolver(view.rules)
    ref = duel_eval(view, Budget(samples=reference, seed=7), exact_budget=-1, solver=solver)
    against = {m.action.cards[0]: m.value for m in ref.moves}  # each card v. the reference's optimal column mix
    loss: dict[int, list] = {}
    ms: dict[int, list] = {}
    for n in counts:
        for s in range(seeds):
            t = time.perf_counter()
            r = duel_eval(view, Budget(samples=n, seed=100 + s), exact_budget=-1, solver=solver)
            ms.setdefault(n, []).append(1000 * (time.perf_counter() - t))
            assert r.mixed is not None
            loss.setdefault(n, []).append(ref.game_value - sum(m.probability * against[m.card] for m in r.mixed))
    return {"hand": list(view.hand), "loss": loss, "ms": ms}


def summary(rows: list[dict], counts: list[int]) -> list[dict]:
    out = []
    for n in counts:
        per_view = [statistics.fmean(r["loss"][n]) for r in rows]
        mean = statistics.fmean(per_view)
        se = statistics.stdev(per_view) / math.sqrt(len(per_view)) if len(per_view) > 1 else float("nan")
        out.append(
            {
                "samples": n,
                "mean_loss": mean,
                "stderr": se,
                "median_ms": statistics.median(t for r in rows for t in r["ms"][n]),
            }
        )
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--views", type=positive, default=60, help="decisions of each kind (default 60)")
    p.add_argument("--seeds", type=positive, default=3, help="runs per decision and sample count (default 3)")
    p.add_argument("--replace-counts", type=positive, nargs="+", default=[240, 1000, 2000, 5000])
    p.add_argument("--duel-counts", type=positive, nargs="+", default=[24, 100, 400])
    p.add_argument("--reference", type=positive, default=20_000, help="a replacement's reference evaluations")
    p.add_argument("--check-deals", type=positive, default=20_000, help="deals each chosen discard is valued on")
    p.add_argument("--reference-worlds", type=positive, default=3000, help="the duel's reference worlds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=positive, default=1, help="processes (one a core)")
    p.add_argument("--no-write", action="store_true", help="print the table only")
    args = p.parse_args(argv)

    load0 = os.getloadavg()
    t0 = time.time()
    found = decisions(args.views, args.seed)
    replace_views = [v for v in found["replace"] if v.replace_cap != 0][: args.views]
    duel_views = [v for v in found["duel"] if len(set(v.hand)) > 1][: args.views]
    with ProcessPoolExecutor(args.jobs) as pool:
        rep = list(
            pool.map(
                replace_row,
                [(v, args.replace_counts, args.seeds, args.reference, args.check_deals) for v in replace_views],
            )
        )
        duel = list(pool.map(duel_row, [(v, args.duel_counts, args.seeds, args.reference_worlds) for v in duel_views]))
    load1 = os.getloadavg()
    result = {
        "commit": source_commit(),
        "args": {k: v for k, v in vars(args).items() if k != "no_write"},
        "replace": summary(rep, args.replace_counts),
        "replace_reference_loss": statistics.fmean(r["reference_loss"] for r in rep),
        "duel": summary(duel, args.duel_counts),
        "views": {"replace": len(rep), "duel": len(duel)},
        "load": [list(load0), list(load1)],
        "seconds": round(time.time() - t0, 1),
    }
    lines = [
        "# What a replacement and a duel lose to their own sampling",
        "",
        f"Command: `python results/decision_noise.py {' '.join(argv if argv is not None else sys.argv[1:])}`; "
        f"package {result['commit']}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t0))}; "
        f"{result['seconds']:.0f} s; load average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end "
        "(2 cores, shared).",
        "",
        "How it is measured: the docstring of `results/decision_noise.py`. A loss is in round results "
        "(+1 won, -1 lost) by the search's own model, per decision; ± is one standard error over the decisions.",
        "",
        f"## Replacement ({len(rep)} decisions, {args.seeds} runs each, {CANDIDATES} candidates)",
        "",
        "| evaluations | mean loss | ± | median ms |",
        "|---:|---:|---:|---:|",
    ]
    for r in result["replace"]:
        lines.append(f"| {r['samples']:,} | {r['mean_loss']:.4f} | {r['stderr']:.4f} | {r['median_ms']:.1f} |")
    lines += [
        "",
        f"The reference run ({args.reference:,} evaluations) loses {result['replace_reference_loss']:.4f} "
        f"by the same check ({args.check_deals:,} deals).",
        "",
        f"## Duel ({len(duel)} decisions, {args.seeds} runs each)",
        "",
        "| worlds | mean loss | ± | median ms |",
        "|---:|---:|---:|---:|",
    ]
    for r in result["duel"]:
        lines.append(f"| {r['samples']:,} | {r['mean_loss']:.4f} | {r['stderr']:.4f} | {r['median_ms']:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        OUT.write_text(text)
        OUT.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
