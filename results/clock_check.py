"""The same match on an idle machine and beside a CPU-bound process
(issue 31): with time budgets counted on the CPU clock, the two
luck-adjusted scores must agree within their intervals.

Runs `tacocat arena pimc pimc_classic --mode game --deals 300 --seed 31
--time 20 --clock cpu --workers 2 --json` twice, once as the machine is and
once beside one `python -c "while True: pass"` (so that three CPU-bound
processes share the two cores), saves each JSON answer and the load
average before and after in results/clock_check/, and writes
results/clock_check.md from them.

    python results/clock_check.py            # both runs (about 12 minutes), then the table
    python results/clock_check.py --report   # the table from the saved runs"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = HERE / "clock_check"
OUT = HERE / "clock_check.md"
ARGS = "arena pimc pimc_classic --mode game --deals 300 --seed 31 --time 20 --clock cpu --workers 2 --json"


def run(name: str, burner: bool) -> None:
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if burner else None
    try:
        before, t0 = os.getloadavg()[0], time.time()
        out = subprocess.run(["tacocat", *ARGS.split()], capture_output=True, text=True, check=True).stdout
        meta = {
            "load_before": round(before, 2),
            "load_after": round(os.getloadavg()[0], 2),
            "seconds": round(time.time() - t0),
            "burner": burner,
            "package": source_commit(),
            "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
        }
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    RUNS.mkdir(exist_ok=True)
    (RUNS / f"{name}.json").write_text(out)
    (RUNS / f"{name}.meta.json").write_text(json.dumps(meta) + "\n")


def report() -> None:
    lines = [
        "# One match, idle and beside a CPU-bound process (issue 31)",
        "",
        f"`tacocat {ARGS}`, run by `python results/clock_check.py` once as the machine was and once beside a "
        "`python -c 'while True: pass'` (three CPU-bound processes on two cores). Time budgets count each "
        "bot's own CPU time, so the two runs should agree within their intervals; think: mean ms a searched "
        "decision, CPU / wall.",
        "",
        "| run | load before / after | wall s | raw score | 95% interval | luck-adjusted | 95% interval | "
        "variance ratio | think pimc | think pimc_classic | package |",
        "| --- | --- | ---: | ---: | --- | ---: | --- | ---: | --- | --- | --- |",
    ]
    for name in ("idle", "loaded"):
        path = RUNS / f"{name}.json"
        if not path.exists():
            continue
        r = json.loads(path.read_text())[0]
        meta_path = RUNS / f"{name}.meta.json"
        m = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        adj, th = r["luck_adjusted"], r["think"]
        lines.append(
            f"| {name} | {m.get('load_before', '-')} / {m.get('load_after', '-')} | {m.get('seconds', '-')} | "
            f"{r['score']:+.3f} | [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] | {adj['score']:+.3f} | "
            f"[{adj['ci95'][0]:+.3f}, {adj['ci95'][1]:+.3f}] | {adj['variance_ratio']:.2f} | "
            f"{th['a']['cpu_ms']:.1f} / {th['a']['wall_ms']:.1f} | "
            f"{th['b']['cpu_ms']:.1f} / {th['b']['wall_ms']:.1f} | "
            f"{m.get('package', '-')} |"
        )
    text = "\n".join(lines) + "\n"
    OUT.write_text(text)
    print(text)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--report", action="store_true", help="only write the table from the saved runs")
    args = ap.parse_args(argv)
    if not args.report:
        run("idle", burner=False)
        run("loaded", burner=True)
    report()


if __name__ == "__main__":
    main()
