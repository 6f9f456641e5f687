"""Whole-game strength of the new `pimc` against `pimc_classic` (issue 24).

Duplicate whole games (`tacocat.players.match`, mode "game", standard
rules): each deal is played twice with the seats swapped, A's mean result
over the two is the deal's score, and the 95% interval is over deals.  Both
bots get the same `time_ms` per decision (their default replacement and
duel sample caps, 240 evaluations and 24 deals, also apply); `pimc`'s
budget is a limit, `pimc_classic`'s a floor of 30 worlds (results/think_time.md),
so at equal nominal time the classic bot thinks longer.

Runs are incremental: every finished deal is appended to
results/strength_whole/<run>.jsonl, so a run can be stopped (--minutes) and
resumed (by the same code only: each deal records the commit, and a run
resumed by other code is refused); `--jobs J` plays every J-th deal in each
of J processes (one a core; the deals and their seeds are the same);
`--report` writes
results/strength_whole.md from the files.

    python results/strength_whole.py --run inf20 --a pimc@inference=policy --b pimc_classic --time-ms 20 --minutes 30
    python results/strength_whole.py --report"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from tacocat.players.match import ThinkTimer, _bots, play_whole_game, summarize

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = HERE / "strength_whole"
OUT = HERE / "strength_whole.md"


def positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return n


def play_deal(a: str, b: str, d: int, seed: int, budget: dict) -> tuple[int, int, ThinkTimer, ThinkTimer]:
    """A's results as player 0 and as player 1 on deal d, and both bots'
    think times over the deal (`ThinkTimer`, which `_bots` wraps them in:
    the wall seconds of the decisions searched; a record's decisions count
    the forced moves too, whose time is a few microseconds)."""
    bot_a, bot_b = _bots(a, b, budget, "game")
    bot_a.reset()
    bot_b.reset()
    deal_seed = f"{seed}/{d}"
    first = play_whole_game((bot_a, bot_b), deal_seed)
    second = -play_whole_game((bot_b, bot_a), deal_seed)
    return first, second, bot_a, bot_b


def finished_deals(path: Path, match: tuple, commit: str) -> set[int]:
    """The deals `path` already holds for `match` (a, b, time_ms, seed, clock;
    a record without a clock was timed on the wall clock); a file holding
    another match, or deals played by other code, is refused."""
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if (rec["a"], rec["b"], rec["time_ms"], rec["seed"], rec.get("clock", "wall")) != match:
                raise SystemExit(f"{path}: holds another match ({rec['a']} v {rec['b']}); choose another --run")
            if rec.get("commit", commit) != commit:
                raise SystemExit(
                    f"{path}: played by the code of {rec['commit']}, this is {commit}; choose another --run"
                )
            done.add(rec["deal"])
    return done


def run(args) -> None:
    RUNS.mkdir(exist_ok=True)
    path = RUNS / f"{args.run}.jsonl"
    commit = source_commit()
    done = finished_deals(path, (args.a, args.b, args.time_ms, args.seed, args.clock), commit)
    todo = [d for d in range(args.deals) if d not in done]
    run_jobs(play_deals, [(args, path, commit, todo[j :: args.jobs]) for j in range(args.jobs) if todo[j :: args.jobs]])


def run_jobs(play, jobs: list) -> list:
    """[play(job) for job in jobs]: here if there is one job, else one forked process each."""
    if len(jobs) <= 1:
        return [play(job) for job in jobs]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
        return pool.map(play, jobs)


def play_deals(job: tuple) -> None:
    """Play the deals of one process (`append_deals`)."""
    args, path, commit, deals = job
    # --time-ms 0: counts alone (the bots' own sample budgets; no clock, load-independent)
    budget = {"time_ms": args.time_ms, "clock": args.clock} if args.time_ms > 0 else {}

    def play_one(d: int) -> tuple:
        first, second, bot_a, bot_b = play_deal(args.a, args.b, d, args.seed, budget)
        think = (bot_a.wall_s, bot_b.wall_s)
        return first, second, think, (bot_a.searched + bot_a.forced, bot_b.searched + bot_b.forced), {}

    match = {
        "a": args.a,
        "b": args.b,
        "time_ms": args.time_ms,
        "clock": args.clock,
        "seed": args.seed,
        "commit": commit,
    }
    append_deals(path, deals, play_one, match, 60 * args.minutes)


def append_deals(path: Path, deals, play_one, match: dict, seconds: float = float("inf")) -> None:
    """Play each deal d by `play_one(d)` -> (A's result as player 0, as player 1,
    (A's, B's) think seconds, (A's, B's) decisions, extra fields) and append its
    record (`match`'s fields first) to `path` as it finishes, until `seconds`
    have passed.  A line is written whole, so processes can share the file."""
    end = time.time() + seconds
    with path.open("a") as f:
        for d in deals:
            if time.time() >= end:
                break
            t0 = time.time()
            load = os.getloadavg()[0]
            first, second, think, decisions, extra = play_one(d)
            rec = {
                **match,
                "deal": d,
                "first": first,
                "second": second,
                "seconds": round(time.time() - t0, 1),
                "load": round(load, 2),
                "a_think_s": round(think[0], 4),
                "a_decisions": decisions[0],
                "b_think_s": round(think[1], 4),
                "b_decisions": decisions[1],
                **extra,
            }
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"deal {d}: {first:+d} {second:+d} ({rec['seconds']} s)", file=sys.stderr, flush=True)


LEVEL5 = "samples=25,replace_samples=80,duel_samples=12,candidates=12"
RUN_NOTES = {
    "inf20_v_classic": "first version of the policy model (its duel cards weighted at T * 3; the "
    "likelihood computed card subset by card subset, about 10x slower than now)",
    "inf20_v_off": "the same first version of the model",
    "inf20b_v_classic": "the model as committed (duel cards uniform); stopped early: the time-limit "
    "change alone already decides this comparison (off20_v_classic)",
    "off20_v_classic": "the budget as a limit alone, no inference: what equal nominal time means",
    "inf_v_off_level5": "equal counts (level 5), the time limit never binds: the model's value alone",
    "inf2_v_off_level5": "the same at temperature 2",
    "inf2_100_v_classic": "the new search with inference (temperature 2) against the reference at 100 ms, "
    "where the reference's floor of 30 worlds costs about the budget",
    "round_v_classic_l5": "the round searched as one alone (deliverable 2), equal counts, no clock: "
    "the search's value alone, whatever it costs (results/round_cost.md)",
    "roundinf_v_classic_l5": "the round search with inference (temperature 1), equal counts, no clock",
    "pimc20_v_classic": "the default `pimc` (inference and round search off; its budget counted from `choose`, "
    "commit 6bdcc4b) against the reference at 20 ms, on the machine with one other match",
    "pimc100_v_classic": "the same at 100 ms",
    "pimc20_v_ismcts": "the default `pimc` against this engine's ISMCTS at 20 ms",
    "pimc100b_v_classic": "`pimc100_v_classic` again to 500 deals (the first run's code, 08e4091, had changed): "
    "deals 0..499, two processes",
    "pimc100_v_os_ismcts": "the default `pimc` against OpenSpiel's ISMCTS playing `tacocat_turn` inside "
    "OpenSpiel (results/openspiel_whole.py: its simulations a decision from a calibrated cost, other deals "
    "than the rows above); an opponent the inference model never saw",
    "roundinf100_v_classic": "the round searched as one with inference (temperature 1) against the reference "
    "at 100 ms, where the default `pimc` thinks about 29 ms a decision: equal budget, the spare time spent "
    "on the round search",
    "round100_v_classic": "the round searched as one alone (no inference) against the reference at 100 ms",
    "fitted20_v_classic": "inference with weights fitted to `pimc_classic`'s own replacements "
    "(results/inference_fitted.py, results/inference_fitted.json) against the reference at 20 ms",
    "rep100k100_v_classic": "the replacement run to the clock (its cap of 240 evaluations lifted) against the "
    "reference at 100 ms, package 6cfdb1f (before the default changed); exploratory, 200 deals",
    "full100_v_classic": "the replacement and the duel run to the clock (caps of 240 evaluations and 24 deals "
    "lifted) against the reference at 100 ms, package 6cfdb1f: what the default `pimc` does from b163183",
    "pimc20c_v_classic": "the default `pimc` from b163183 (replacement and duel run to the clock) against the "
    "reference at 20 ms",
    "pimc100c_v_classic": "the default `pimc` from b163183 against the reference at 100 ms",
}
READING = HERE / "strength_whole" / "reading.md"
"""The reading, written by hand for the runs it names; appended as it is."""


def label(spec: str) -> str:
    return spec.replace("," + LEVEL5, " (level-5 counts)").replace("@" + LEVEL5, " (level-5 counts)")


def think(recs: list[dict]) -> str:
    """Each side's mean think time a decision over the deals that recorded it (runs before it was recorded: -)."""
    timed = [r for r in recs if "a_think_s" in r]
    if not timed:
        return "-"
    ms = [1000 * sum(r[f"{x}_think_s"] for r in timed) / max(1, sum(r[f"{x}_decisions"] for r in timed)) for x in "ab"]
    return f"{ms[0]:.1f} / {ms[1]:.1f}"


def report() -> None:
    rows = []
    for path in sorted(RUNS.glob("*.jsonl")):
        recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        if not recs:
            continue
        r0 = recs[0]
        res = summarize(r0["a"], r0["b"], "game", r0["seed"], {r["deal"]: (r["first"], r["second"]) for r in recs})
        loads = [r["load"] for r in recs]
        secs = sum(r["seconds"] for r in recs)
        rows.append((path.stem, r0, res, min(loads), max(loads), sum(loads) / len(loads), secs, think(recs)))
    lines = [
        "# Whole-game strength: the new `pimc` against `pimc_classic` (issue 24)",
        "",
        "Regenerate a row: `python results/strength_whole.py --run NAME --a A --b B --time-ms T --minutes M` "
        "(incremental, resumable), then `python results/strength_whole.py --report`.",
        "",
        "Duplicate whole games, standard rules, the same `time_ms` per decision for both bots (a limit for "
        "`pimc`, a floor of 30 worlds for `pimc_classic`: see results/think_time.md for the real think times). "
        "Score: A's mean result over a deal's two games in [-1, 1]; 95% interval over deals. The machine is "
        "shared (2 cores, other engineers' test runs): the 1-minute load average at each deal's start is "
        "given; on the wall clock (every row before issue 31, marked 'wall') a loaded core buys fewer worlds "
        "in the same time for both bots, so those rows are wall-clock figures; a 'cpu' budget counts each "
        "bot's own CPU time (`--clock cpu`, the default since issue 31) and buys the same work at any load. "
        "Think ms: each side's mean wall time of a `choose` (forced moves included), recorded since 2026-12-02. "
        "The ladder on the CPU clock, luck-adjusted: results/ladder.md.",
        "",
        "| run | A | B | budget a decision | deals (games) | score of A | 95% interval | A wins / draws / losses "
        "(games) | think ms a decision, A / B | load min / mean / max | wall s |",
        "| --- | --- | --- | --- | ---: | ---: | --- | --- | --- | --- | ---: |",
    ]
    for name, r0, res, lo, hi, mean, secs, think_ms in rows:
        if r0["time_ms"] <= 0:
            budget = "counts (no clock)"
        elif r0["time_ms"] >= 100_000:
            budget = "level-5 counts"
        else:
            budget = f"{r0['time_ms']:g} ms {r0.get('clock', 'wall')}"
        lines.append(
            f"| {name} | `{label(r0['a'])}` | `{label(r0['b'])}` | {budget} | {res.deals} ({2 * res.deals}) | "
            f"{res.score:+.3f} | [{res.ci95[0]:+.3f}, {res.ci95[1]:+.3f}] | {res.wins} / {res.draws} / "
            f"{res.losses} | {think_ms} | {lo:.1f} / {mean:.1f} / {hi:.1f} | {secs:.0f} |"
        )
    lines += ["", "Runs:", ""]
    lines += [f"- {name}: {RUN_NOTES.get(name, '')}" for name, *_ in rows]
    if READING.exists():
        lines += ["", READING.read_text().rstrip("\n")]
    text = "\n".join(lines) + "\n"
    OUT.write_text(text)
    print(text)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="duplicate whole games of pimc against pimc_classic")
    ap.add_argument("--run", help="name of the run (its deals go to results/strength_whole/<run>.jsonl)")
    ap.add_argument("--a", default="pimc")
    ap.add_argument("--b", default="pimc_classic")
    ap.add_argument("--time-ms", type=float, default=20.0)
    ap.add_argument(
        "--clock", choices=("cpu", "wall"), default="cpu", help="what --time-ms counts (cpu: each bot's own CPU time)"
    )
    ap.add_argument("--deals", type=positive, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument(
        "--jobs", type=positive, default=1, help="processes (one a core); deal d goes to process d mod jobs"
    )
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args(argv)
    if args.report:
        report()
    elif not args.run:
        ap.error("give --run NAME (or --report)")
    else:
        run(args)


if __name__ == "__main__":
    main()
