"""Does a CPU budget buy the same work on a loaded machine?  (issue 31)

The same seeded decisions (replace, duel, attack, answer; views from
level-3 games, `think_time.decisions`) are searched by the default bot's
search (`hint` with `pimc`'s knobs, and ISMCTS in the play phase) at a time
budget counted on each clock, once with the machine as it is and once
beside `--burners` CPU-bound processes (one per core by default, so that
the search shares its core).  The burners run for the whole script and are
paused (SIGSTOP) for the unloaded measurements, which are interleaved with
the loaded ones decision by decision, so a drift of the machine's speed
hits both alike.  Work is what the search did: sampled worlds (play phase,
duel), (discard, deal) evaluations (replacement), iterations (ISMCTS).

The goal: at load ~0 and under load, the median work per decision on the
CPU clock agrees within 10 %; on the wall clock it drops with the core's
share.  A benchmark, not a test: the load average is printed with the table.

    python results/cpu_clock.py                   # writes results/cpu_clock.md and .json
    python results/cpu_clock.py --per-kind 5 --no-write"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tacocat.players.bots import make_bot
from tacocat.search.budget import CLOCKS, Budget
from tacocat.search.hint import hint
from tacocat.search.pimc import PerfectSolver

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402
from think_time import KINDS, decisions, positive  # noqa: E402

OUT = Path(__file__).resolve().parent / "cpu_clock.md"
SEARCHES = ("pimc", "ismcts")


def work_of(result) -> int:
    """What a search did: evaluations (replacement), iterations (ISMCTS) or worlds."""
    s = result.search
    return int(s.evaluations or s.iterations or s.worlds)


def search_once(bot, view, ms: float, seed: int) -> tuple[int, float, float]:
    """(work, CPU ms, wall ms) of the bot's search at `view` with `ms` on the bot's clock,
    with a solver of its own: a table kept from the same view's other searches
    would make the later ones cheaper."""
    solver = PerfectSolver(view.rules)
    c0, w0 = time.thread_time(), time.perf_counter()
    r = hint(
        view,
        Budget(time_ms=ms, seed=seed, clock=bot.clock),
        method="auto" if bot.method == "pimc" else "ismcts",
        utilities=bot.utilities,
        exact_budget=bot.exact_budget,
        solver=solver,
        knobs=bot.knobs,
    )
    return work_of(r), 1000 * (time.thread_time() - c0), 1000 * (time.perf_counter() - w0)


def summary(raw: dict) -> list[str]:
    """Per search, budget and clock: the median over every decision of its
    own work ratio, loaded over idle (each decision was searched in both
    conditions, so the pair shares the decision's cost)."""
    ratios: dict[tuple[str, str, str], list[float]] = {}
    for key, got in raw.items():
        name, ms, _, clock = key.split("/")
        pairs = zip(got["idle"], got["loaded"], strict=True)
        ratios.setdefault((name, ms, clock), []).extend(b[0] / a[0] for a, b in pairs if a[0] > 0)
    lines = [
        "",
        "Every decision paired with itself: the median over all decisions of (work loaded / work idle).",
        "",
        "| search | budget ms | clock | decisions | median ratio | mean ratio |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for (name, ms, clock), rs in ratios.items():
        bold = "**" if clock == "cpu" else ""
        lines.append(
            f"| {name} | {ms} | {clock} | {len(rs)} | {bold}{statistics.median(rs):.3f}{bold} | "
            f"{statistics.mean(rs):.3f} |"
        )
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="work per decision at a CPU and a wall budget, idle and under load")
    ap.add_argument("--per-kind", type=positive, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budgets", default="20,100", help="milliseconds, comma-separated")
    ap.add_argument("--burners", type=positive, default=os.cpu_count() or 2, help="CPU-bound processes of the load")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    budgets = [float(x) for x in args.budgets.split(",")]
    views = decisions(args.per_kind, args.seed)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)]

    def load(on: bool) -> None:
        for p in burners:
            os.kill(p.pid, signal.SIGCONT if on else signal.SIGSTOP)
        time.sleep(0.05)

    load0, t_start = os.getloadavg(), time.time()
    rows, raw = [], {}
    try:
        load(False)
        for name in SEARCHES:
            kinds = KINDS if name == "pimc" else ("attack", "answer")  # ISMCTS searches the play phase
            for ms in budgets:
                bots = {c: make_bot(name, time_ms=ms, clock=c, seed=args.seed) for c in CLOCKS}
                for kind in kinds:
                    got: dict[tuple[str, str], list] = {(c, x): [] for c in CLOCKS for x in ("idle", "loaded")}
                    for i, view in enumerate(views[kind]):
                        for loaded in (False, True):
                            load(loaded)
                            for c, bot in bots.items():
                                got[(c, "loaded" if loaded else "idle")].append(search_once(bot, view, ms, i))
                    load(False)
                    for c in CLOCKS:
                        idle, busy = got[(c, "idle")], got[(c, "loaded")]
                        w_idle, w_busy = (
                            statistics.median(w for w, _, _ in idle),
                            statistics.median(w for w, _, _ in busy),
                        )
                        rows.append(
                            {
                                "search": name,
                                "ms": ms,
                                "kind": kind,
                                "clock": c,
                                "decisions": len(idle),
                                "work_idle": w_idle,
                                "work_loaded": w_busy,
                                "ratio": w_busy / w_idle if w_idle else None,
                                "cpu_ms_idle": statistics.median(x for _, x, _ in idle),
                                "cpu_ms_loaded": statistics.median(x for _, x, _ in busy),
                                "wall_ms_idle": statistics.median(x for _, _, x in idle),
                                "wall_ms_loaded": statistics.median(x for _, _, x in busy),
                            }
                        )
                        raw[f"{name}/{ms:g}/{kind}/{c}"] = {"idle": idle, "loaded": busy}
                        print(json.dumps(rows[-1]), flush=True)
    finally:
        for p in burners:
            os.kill(p.pid, signal.SIGCONT)
            p.kill()
            p.wait()
    load1 = os.getloadavg()
    lines = [
        "# A CPU budget buys the same work on a loaded machine (issue 31)",
        "",
        f"`python results/cpu_clock.py --per-kind {args.per_kind} --seed {args.seed} --budgets {args.budgets} "
        f"--burners {args.burners}`, package {source_commit()}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t_start))}, {time.time() - t_start:.0f} s; load average "
        f"{load0[0]:.2f} at the start, {load1[0]:.2f} at the end (the burners' own load included). "
        f"'loaded': beside {args.burners} CPU-bound processes on {os.cpu_count()} cores; 'idle': the same "
        "processes paused. Each decision is searched in both conditions, one after the other.",
        "",
        "Work: median per decision of sampled worlds (play phase, duel), (discard, deal) evaluations "
        "(replace) or iterations (ISMCTS). Ratio: loaded over idle; the goal on the CPU clock is within 10 % "
        "of 1. Decisions the exact search answers before the clock (few opponent hands) do the same work on "
        "either clock.",
        "",
        "| search | budget ms | decision | clock | decisions | work idle | work loaded | ratio "
        "| CPU ms idle / loaded | wall ms idle / loaded |",
        "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        bold = "**" if r["clock"] == "cpu" else ""
        lines.append(
            f"| {r['search']} | {r['ms']:g} | {r['kind']} | {r['clock']} | {r['decisions']} | {r['work_idle']:g} | "
            f"{r['work_loaded']:g} | {bold}{ratio}{bold} | {r['cpu_ms_idle']:.1f} / {r['cpu_ms_loaded']:.1f} | "
            f"{r['wall_ms_idle']:.1f} / {r['wall_ms_loaded']:.1f} |"
        )
    lines += summary(raw)
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        OUT.write_text(text)
        OUT.with_suffix(".json").write_text(json.dumps({"rows": rows, "raw": raw}) + "\n")


if __name__ == "__main__":
    main()
