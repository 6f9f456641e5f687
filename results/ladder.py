"""The ladder: every bot and every `move` level against one reference at
equal CPU time, duplicate whole games, luck-adjusted (issue 31).

Each rung is a duplicate match (`tacocat.players.match.run_match`, mode
"game", standard rules) of a contestant against the reference,
`pimc_classic` at the rung's budget: every deal is played twice with the
seats swapped.  Time budgets are counted on the CPU clock (each bot's own
searching thread, `tacocat.search.budget.CPU`), so a budget buys the same
work at any load; the `move` levels keep their counts (a level is a count
budget, results/levels.md), and the plain bots do not search.  The score
is given raw and luck-adjusted (`tacocat.players.luck`: the deals' and
draws' luck valued by a fixed reference and taken out, mean 0 whatever the
bots); Elo is the adjusted score's, the reference at 0; each side's real
think time a searched decision is given on both clocks.

Runs are incremental: every finished deal is appended to
results/ladder/<ms>ms.jsonl with the package commit (`provenance`) and the
load average, so the script can be stopped (Ctrl-C, SIGTERM) and run again
to go on; `--jobs J` plays deals in J local processes (the deals and their
seeds do not depend on it).  `--report` writes results/ladder.md from the
files.

    python results/ladder.py --budgets 20,100 --jobs 2         # every rung, then the report
    python results/ladder.py --budgets 20 --only pimc --deals 1000 --jobs 2
    python results/ladder.py --report"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from tacocat.players.match import run_match, summarize
from tacocat.players.stats import elo
from tacocat.protocol.moves import LEVELS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = HERE / "ladder"
OUT = HERE / "ladder.md"
READING = RUNS / "reading.md"
"""The reading, written by hand for the rows as they stand; appended as it is."""
REFERENCE = "pimc_classic"
SEED = 0


def _spec(name: str, keys: dict) -> str:
    return name + ("@" + ",".join(f"{k}={v}" for k, v in keys.items()) if keys else "")


def rungs(ms: float) -> dict[str, str]:
    """Contestant label -> bot spec at a budget of `ms` CPU milliseconds a decision."""
    timed = {"time_ms": f"{ms:g}", "clock": "cpu"}
    out = {f"level {k}": _spec(name, budget) for k, (name, budget) in LEVELS.items() if budget}
    out = {"random (level 1)": "random", "heuristic (level 2)": "heuristic", **out}
    for name in ("pimc", "ismcts", "pimc_eq"):
        out[name] = _spec(name, timed)
    out["oracle (sees both hands)"] = "oracle"
    return out


def reference(ms: float) -> str:
    return _spec(REFERENCE, {"time_ms": f"{ms:g}", "clock": "cpu"})


def records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def play(args) -> None:
    RUNS.mkdir(exist_ok=True)
    commit = source_commit()
    for ms in args.budgets:
        path = RUNS / f"{ms:g}ms.jsonl"
        ref = reference(ms)
        for label, spec in rungs(ms).items():
            if args.only and not any(o == label.split()[0] or o == label for o in args.only):
                continue
            deals = args.deals_for.get(label.split()[0], args.deals)
            mine = [r for r in records(path) if r["a"] == spec and r["b"] == ref and r["seed"] == args.seed]
            known = {r["deal"]: (r["first"], r["second"]) for r in mine}
            if len([d for d in known if d < deals]) >= deals:
                continue
            print(f"{ms:g} ms: {label} ({spec}) v {ref}: {len(known)} of {deals} deals played", file=sys.stderr)
            with path.open("a") as f:

                def on_deal(d, first, second, extra, f=f, spec=spec, ref=ref):
                    rec = {
                        "label": label,
                        "a": spec,
                        "b": ref,
                        "seed": args.seed,
                        "deal": d,
                        "first": first,
                        "second": second,
                        "luck": extra.get("luck"),
                        "think": extra.get("think"),
                        "commit": commit,
                        "load": round(os.getloadavg()[0], 2),
                        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    }
                    f.write(json.dumps(rec) + "\n")
                    f.flush()

                r = run_match(
                    spec,
                    ref,
                    deals=deals,
                    seed=args.seed,
                    mode="game",
                    workers=args.jobs,
                    known=known,
                    known_luck={r["deal"]: r["luck"] for r in mine if r.get("luck") is not None},
                    on_deal=on_deal,
                )
            adj = r.luck_adjusted
            print(
                f"  {r.deals} deals: raw {r.score:+.3f} [{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}], adjusted "
                f"{adj['score']:+.3f} [{adj['ci95'][0]:+.3f}, {adj['ci95'][1]:+.3f}], variance ratio "
                f"{adj['variance_ratio']}",
                file=sys.stderr,
            )
            if r.stopped:
                raise SystemExit(f"stopped ({r.stopped}); run the same command again to go on")


def _elo_text(score: float, ci: list) -> str:
    def one(s: float) -> str:
        e = elo((s + 1) / 2)
        return f"{e:+.0f}" if e is not None else ("+inf" if s > 0 else "-inf")

    return f"{one(score)} [{one(ci[0])}, {one(ci[1])}]"


def _think(recs: list[dict], side: str) -> str:
    n = sum(r["think"][side][0] for r in recs if r.get("think"))
    if not n:
        return "-"
    cpu = sum(r["think"][side][2] for r in recs if r.get("think"))
    wall = sum(r["think"][side][3] for r in recs if r.get("think"))
    return f"{1000 * cpu / n:.1f} / {1000 * wall / n:.1f}"


def report() -> None:
    lines = [
        "# The ladder: every bot against `pimc_classic` at equal CPU time (issue 31)",
        "",
        "Regenerate: `python results/ladder.py --budgets 20,100 --jobs 2` (incremental: each deal is appended "
        "to results/ladder/<ms>ms.jsonl as it finishes; run it again to go on), then "
        "`python results/ladder.py --report`.",
        "",
        "Each rung: duplicate whole games (standard rules, deal seeds `0/d`, those of results/strength_whole.md) "
        "of the contestant against the "
        "reference, `pimc_classic` with the same budget a decision. Time budgets count each bot's own CPU "
        "time (`clock=cpu`): the same work at any load, so the rows do not move with the machine's load (the "
        "load average at each deal is in the files). The `move` levels 3-5 play their counts (a level is a "
        "count budget, `tacocat.protocol.moves.LEVELS`); random and heuristic do not search; the oracle sees "
        "the opponent's hand (a ceiling, not a player). Score: the contestant's mean result a deal in [-1, 1]; "
        "adjusted: less the luck of the deals and draws (`tacocat.players.luck`, mean 0 whatever the bots), "
        "the interval over deals, variance ratio = raw over adjusted variance a deal. Elo: the adjusted "
        "score's logistic Elo, the reference at 0 (an end at a score of +-1 is unbounded). Think: mean CPU / "
        "wall ms a searched decision (forced moves left out), contestant and reference.",
        "",
    ]
    for path in sorted(RUNS.glob("*ms.jsonl"), key=lambda p: float(p.stem[:-2])):
        recs = records(path)
        ms = float(path.stem[:-2])
        lines += [
            f"## {ms:g} ms a decision (CPU)",
            "",
            "| contestant | bot | deals | score (raw) | 95% interval | luck-adjusted | 95% interval | variance "
            "ratio | Elo (adjusted) | think ms, contestant | think ms, reference | package | load min / max |",
            "| --- | --- | ---: | ---: | --- | ---: | --- | ---: | --- | --- | --- | --- | --- |",
        ]
        order = list(rungs(ms).values())
        specs = sorted({r["a"] for r in recs}, key=lambda s: order.index(s) if s in order else len(order))
        for spec in specs:
            mine = [r for r in recs if r["a"] == spec]
            by_deal = {r["deal"]: r for r in mine}
            res = summarize(
                spec,
                mine[0]["b"],
                "game",
                mine[0]["seed"],
                {d: (r["first"], r["second"]) for d, r in by_deal.items()},
                luck={d: r["luck"] for d, r in by_deal.items() if r.get("luck") is not None},
            )
            adj = res.luck_adjusted
            ratio = adj.get("variance_ratio")
            loads = [r["load"] for r in mine]
            commits = ", ".join(sorted({r["commit"] for r in mine}))
            lines.append(
                f"| {mine[0]['label']} | `{spec}` | {res.deals} | {res.score:+.3f} | "
                f"[{res.ci95[0]:+.3f}, {res.ci95[1]:+.3f}] | {adj['score']:+.3f} | "
                f"[{adj['ci95'][0]:+.3f}, {adj['ci95'][1]:+.3f}] | {'-' if ratio is None else f'{ratio:.2f}'} | "
                f"{_elo_text(adj['score'], adj['ci95'])} | {_think(mine, 'a')} | {_think(mine, 'b')} | {commits} | "
                f"{min(loads):.1f} / {max(loads):.1f} |"
            )
        lines.append("")
    if READING.exists():
        lines += [READING.read_text().rstrip("\n"), ""]
    text = "\n".join(lines)
    OUT.write_text(text)
    print(text)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budgets", default="20,100", help="CPU milliseconds a decision, comma-separated")
    ap.add_argument("--deals", type=int, default=200, help="deals a rung")
    ap.add_argument(
        "--pimc-deals", type=int, default=1000, help="deals of the pimc rung (the default bot against the reference)"
    )
    ap.add_argument("--only", default="", help="comma-separated contestants to play (e.g. pimc,level)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--jobs", type=int, default=1, help="local processes playing deals")
    ap.add_argument("--report", action="store_true", help="only write results/ladder.md from the files")
    args = ap.parse_args(argv)
    for name in ("deals", "pimc_deals", "jobs"):
        if getattr(args, name) < 1:
            ap.error(f"argument --{name.replace('_', '-')}: expected a whole number of at least 1")
    try:
        args.budgets = [float(x) for x in args.budgets.split(",")]
    except ValueError:
        ap.error(f"argument --budgets: expected milliseconds separated by commas, got {args.budgets!r}")
    args.only = [x for x in args.only.split(",") if x]
    args.deals_for = {"pimc": args.pimc_deals}
    if not args.report:
        play(args)
    report()


if __name__ == "__main__":
    main()
