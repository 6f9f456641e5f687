"""Five-card endgames and the equilibrium solver (issue 22): the size of
each seeded 5-card endgame's public tree, estimated before anything is
allocated (`tacocat.search.equilibrium.estimate`, Knuth's random-path
estimator), against a 2 GB peak, and the ones that fit solved.

    python results/equilibrium_five.py --endgames 70 --solve fits --threads 2   # every game that fits
    python results/equilibrium_five.py --endgames 50 --solve 0,2,9           # some, by index
    python results/equilibrium_five.py --endgames 70 --solve 9,23,2 --old /tmp/old_cfr.so --log /tmp/five.jsonl

Endgames: `tacocat.players.exploitability.endgames(5, n)` (the seeded set of
results/exploitability.md; the first n of a longer run are the same).  Some
public states recur (the same face-up cards and attacker, another hand):
`same_game_as` names the first endgame of the same public game, and
`--solve fits` solves each public game once.  Each
is solved as `solve --equilibrium` solves it for the attacker's real hand
there (results/exploitability.py's `asking_hands`): to exploitability 1e-3
and on until that hand's own regret is at most 1e-3 too, under the 2 GB
cap.  Trees: as `solve` builds them, the end of play in place
(`keep_lower`: the last answers keep the lowest card, an attack with two
cards each is made with the higher card; the value and the exploitability
are the whole game's), and, for comparison, the whole tree (`whole_*`).
Bytes: the solver's own accounting (48 per public node, 10 per (node,
hand, move) sequence of a compact tree: two hand indices, 16-bit regret,
average weight and current strategy; 16 with float32 ones, the storage of
trees under 64 MB) plus its fixed vectors.  A solved row: CPU and wall
seconds, the solver's peak bytes (`peak_bytes`) and the solving process's
peak resident set (`peak_rss_bytes`: each solve runs in a fresh process, so
it is that solve's, Python included), exploitability, the asking hand's
regret, iterations, and the estimate against the real size.

`--threads T` (default 2): each solve's traversals on T threads (issue 36;
the answer does not depend on T).  `--jobs J` solves J endgames at once
(largest estimate first), each in its own process; a solve's CPU seconds do
not depend on J, its wall seconds do when J x T exceeds the idle cores (the
published run: `--jobs 1 --threads 2`, alone on the machine).  `--old SO`:
each endgame is solved a second time, in its own process, by that older
build of the core (`tacocat.search.bench.core_build`, one thread, its own
storage) with today's loop, and the summary gives the same-run ratios.  Every solved row is appended to
`--log` as it finishes (one JSON line), and a run started again skips the
endgames the log already holds: an interrupted run loses at most the
solves in flight."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import sys
import time
from pathlib import Path

from tacocat.search.equilibrium import EndgameTooLarge, estimate, keep_lower, solve

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from equilibrium_common import Clocks, solved_row  # noqa: E402
from exploitability import asking_hands  # noqa: E402  (results/exploitability.py: the same seeded hands)
from provenance import source_commit  # noqa: E402

CAP = 2_000_000_000
TARGET = 1e-3


def public_game(eg) -> tuple:
    """What makes two endgames the same game: their public state (the asking hand is not part of it)."""
    return (eg.rules, eg.seen, eg.history, eg.table, eg.attacker, eg.sizes)


def size_row(i: int, eg, threads: int = 1) -> dict:
    """The estimated size of endgame i's tree, in place and whole (stored as `solve` stores them: compact
    when large)."""
    t = time.process_time()
    nodes, seqs, need = estimate(eg, keep_lower_answers=keep_lower(eg), threads=threads)
    cpu = time.process_time() - t
    whole_nodes, whole_seqs, whole_need = estimate(eg)
    return {
        "i": i,
        "pool": len(eg.pool),
        "nodes": nodes,
        "sequences": seqs,
        "bytes": need,
        "fits": need <= CAP,
        "estimate_cpu_s": cpu,
        "whole_nodes": whole_nodes,
        "whole_sequences": whole_seqs,
        "whole_bytes": whole_need,
    }


def solve_row(job: tuple[int, object, tuple[int, ...], float, str, int, str]) -> dict:
    """Solve one endgame (in a fresh worker process) as `solve --equilibrium` would for the asking hand
    (with `old`, the path of an older build of the core, by that build)."""
    i, eg, asking, estimated, commit, threads, old = job
    core = None
    if old:
        from tacocat.search.bench import core_build

        core = core_build(old, "old_core._cfr")
    clocks = Clocks()
    row: dict = {
        "i": i,
        "commit": commit,
        "core": "old" if old else "new",
        "threads": 1 if old else threads,
        "estimated_bytes": estimated,
        "hand": list(asking),
        "load_start": os.getloadavg()[0],
    }
    try:
        r = solve(
            eg, target=TARGET, max_bytes=CAP, hand_of=(eg.attacker, asking), threads=1 if old else threads, core=core
        )
    except EndgameTooLarge as exc:
        row.update({"too_large": True, "error": str(exc), "cpu_s": clocks.cpu()})
    else:
        row.update({**solved_row(r, clocks), "memory_bytes": r.memory_bytes, "first_move": _first_move(r, eg, asking)})
    row["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    row["load_end"] = os.getloadavg()[0]
    return row


def _first_move(r, eg, asking) -> dict:
    """The asking hand's likeliest move and its probability (old and new cores compared by it too)."""
    moves = r.hand_report(eg.attacker, asking)[1]
    return {"cards": list(moves[0].action.cards), "probability": moves[0].probability}


def read_log(path: Path, core: str = "new") -> dict[int, dict]:
    """The solved rows a log already holds for `core` ("new", or "old": `--old`), by endgame (a torn last
    line, from a kill, is dropped)."""
    done: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if row.get("core", "new") == core:
                done[row["i"]] = row
    return done


def versus(solved: list[dict], old: dict[int, dict]) -> dict:
    """The same-run comparison with the older core on the endgames both solved."""
    both = [
        (r, old[r["i"]])
        for r in solved
        if not r.get("too_large") and r["i"] in old and not old[r["i"]].get("too_large")
    ]
    if not both:
        return {"endgames": 0}

    def ratios(key: str) -> list[float]:
        return [n[key] / o[key] for n, o in both]

    return {
        "endgames": len(both),
        "indices": [n["i"] for n, _ in both],
        "median_wall_ratio": statistics.median(ratios("wall_s")),
        "median_cpu_ratio": statistics.median(ratios("cpu_s")),
        "median_peak_ratio": statistics.median(ratios("peak_bytes")),
        "median_rss_ratio": statistics.median(ratios("peak_rss_bytes")),
        "old_median_wall_s": statistics.median(o["wall_s"] for _, o in both),
        "new_median_wall_s": statistics.median(n["wall_s"] for n, _ in both),
        "old_median_cpu_s": statistics.median(o["cpu_s"] for _, o in both),
        "new_median_cpu_s": statistics.median(n["cpu_s"] for n, _ in both),
        "old_max_peak_mb": max(o["peak_bytes"] for _, o in both) / 1e6,
        "new_max_peak_mb": max(n["peak_bytes"] for n, _ in both) / 1e6,
        "max_value_difference": max(abs(n["value"] - o["value"]) for n, o in both),
        "same_first_move": sum(n["first_move"]["cards"] == o["first_move"]["cards"] for n, o in both),
    }


def summary(rows: list[dict], solved: list[dict]) -> dict:
    out = {
        "endgames": len(rows),
        "fit_in_2gb": sum(r["fits"] for r in rows),
        "median_gb": statistics.median(r["bytes"] for r in rows) / 1e9,
        "min_gb": min(r["bytes"] for r in rows) / 1e9,
        "max_gb": max(r["bytes"] for r in rows) / 1e9,
        "median_sequences_m": statistics.median(r["sequences"] for r in rows) / 1e6,
        "whole_fit_in_2gb": sum(r["whole_bytes"] <= CAP for r in rows),
        "whole_median_gb": statistics.median(r["whole_bytes"] for r in rows) / 1e9,
    }
    ok = [r for r in solved if not r.get("too_large")]
    if ok:
        cpu = sorted(r["cpu_s"] for r in ok)
        wall = sorted(r["wall_s"] for r in ok)
        out.update(
            {
                "solved": len(ok),
                "solved_distinct_games": len({r["same_game_as"] for r in ok}),
                "refused_at_build": sum(bool(r.get("too_large")) for r in solved),
                "solved_median_cpu_s": statistics.median(cpu),
                "solved_90th_cpu_s": cpu[min(len(cpu) - 1, int(0.9 * len(cpu)))],
                "solved_max_cpu_s": cpu[-1],
                "solved_median_wall_s": statistics.median(wall),
                "solved_max_wall_s": wall[-1],
                "solved_median_iterations": statistics.median(r["iterations"] for r in ok),
                "solved_median_peak_mb": statistics.median(r["peak_bytes"] for r in ok) / 1e6,
                "solved_max_peak_mb": max(r["peak_bytes"] for r in ok) / 1e6,
                "solved_max_rss_mb": max(r["peak_rss_bytes"] for r in ok) / 1e6,
                "solved_max_exploitability": max(r["exploitability"] for r in ok),
                "solved_max_hand_regret": max(r["hand_regret"] for r in ok if r["hand_regret"] is not None),
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endgames", type=int, default=50, help="the first N seeded 5-card endgames")
    ap.add_argument(
        "--solve", default="", help="endgames to solve: indices, comma separated, or 'fits' (every one under 2 GB)"
    )
    ap.add_argument("--jobs", type=int, default=1, help="solves at once, each in its own process")
    ap.add_argument("--threads", type=int, default=2, help="threads of each solve (default 2)")
    ap.add_argument("--old", default="", help="an older build's _cfr extension: each endgame solved by it too")
    ap.add_argument("--log", default="", help="the solved rows, one JSON line each (default: OUT with .jsonl)")
    ap.add_argument("--out", default=str(HERE / "equilibrium_five.json"))
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error(f"--jobs must be at least 1, got {args.jobs}")
    out_path = Path(args.out)
    log_path = Path(args.log) if args.log else out_path.with_suffix(".jsonl")
    out: dict = {
        "load_before": os.getloadavg(),
        "cpus": os.cpu_count(),
        "cap_bytes": CAP,
        "jobs": args.jobs,
        "threads": args.threads,
        "old": args.old or None,
    }
    games = asking_hands(5, args.endgames)
    out["rows"] = []
    for i, (eg, _) in enumerate(games):
        row = size_row(i, eg, args.threads)
        out["rows"].append(row)
        print(json.dumps(row), flush=True)
    first_of: dict[tuple, int] = {}
    for i, (eg, _) in enumerate(games):
        out["rows"][i]["same_game_as"] = first_of.setdefault(public_game(eg), i)
    if args.solve == "fits":
        # each public game once (the seeded games reach some public states more than once, with other hands)
        wanted = [r["i"] for r in out["rows"] if r["fits"] and r["same_game_as"] == r["i"]]
    else:
        try:
            wanted = [int(x) for x in args.solve.split(",") if x]
        except ValueError:
            ap.error(f"--solve takes indices separated by commas or 'fits', got {args.solve!r}")
        if any(not 0 <= i < len(games) for i in wanted):
            ap.error(f"--solve indices must be in 0..{len(games) - 1}, got {args.solve!r}")
    commit = out["commit"] = source_commit()
    done = read_log(log_path)
    others = sorted({r.get("commit") for r in done.values()} - {commit}, key=str)
    if others:
        ap.error(
            f"{log_path} holds rows of another solver ({', '.join(map(str, others))}, this is {commit}): "
            "use a new --log"
        )
    todo = sorted((i for i in wanted if i not in done), key=lambda i: -out["rows"][i]["bytes"])
    old_done = read_log(log_path, "old") if args.old else {}
    jobs = []
    for i in sorted(wanted, key=lambda i: -out["rows"][i]["bytes"]):
        job = (i, games[i][0], games[i][1], out["rows"][i]["bytes"], commit, args.threads, "")
        if i not in done:
            jobs.append(job)
        if args.old and i not in old_done:  # the old core's solve right after the new one's (the same load)
            jobs.append((*job[:6], args.old))
    print(f"{len(wanted)} to solve, {len(wanted) - len(todo)} already in {log_path}, {len(todo)} now", flush=True)
    t0 = time.perf_counter()
    if jobs:
        # a fresh process per solve: its peak resident set is that solve's, and its tree is freed with it
        with multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=1) as pool, log_path.open("a") as log:
            for n, row in enumerate(pool.imap_unordered(solve_row, jobs, chunksize=1), 1):
                log.write(json.dumps(row) + "\n")
                log.flush()
                os.fsync(log.fileno())
                el = time.perf_counter() - t0
                what = (
                    "refused at build"
                    if row.get("too_large")
                    else f"expl {row['exploitability']:.2g}, hand regret {row['hand_regret']:.2g}, "
                    f"{row['cpu_s']:.0f} CPU s, peak {row['peak_bytes'] / 1e6:.0f} MB"
                )
                print(f"[{n}/{len(jobs)}] #{row['i']} ({row['core']}): {what}; {el / 60:.1f} min in", flush=True)
    solved_rows = read_log(log_path)
    out["solved"] = [solved_rows[i] for i in sorted(solved_rows)]
    for row in out["solved"]:
        row["same_game_as"] = out["rows"][row["i"]]["same_game_as"]
    out["summary"] = summary(out["rows"], out["solved"])
    if args.old:
        out["versus_old"] = versus(out["solved"], read_log(log_path, "old"))
        print(json.dumps(out["versus_old"]))
    out["load_after"] = os.getloadavg()
    print(json.dumps(out["summary"]))
    print(f"load average before {out['load_before']}, after {out['load_after']} ({out['cpus']} CPUs)")
    out_path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
