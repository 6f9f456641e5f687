"""The replacement as a game against the static replacement (issue 34, deliverable 2).

`pimc@replace=game` (the replacement solved as a game with the opponent's
reply a strategy of its own, `tacocat.search.replace_game`) against
`pimc_static` (the same search with the replacement ranked against a fixed
reply: `pimc` before issue 34), duplicate whole games, standard rules, equal
CPU time a decision (`--clock cpu`), luck-adjusted (`tacocat.players.luck`).
Only the replacement differs between the two, so the row is what the
replacement solved as a game is worth at that budget.

Each budget is one `tacocat arena` run whose `--out` file,
results/replace_game/<ms>ms.json, holds every finished deal (a stopped run
goes on from there when started again); the report reads those files.

    python results/replace_game.py --budgets 20 --deals 1000     # play (or go on), then the report
    python results/replace_game.py --report
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "replace_game"
OUT = HERE / "replace_game.md"
sys.path.insert(0, str(HERE))
from provenance import source_commit  # noqa: E402

A, B = "pimc@replace=game", "pimc_static"


def play(ms: int, deals: int, workers: int) -> None:
    RUNS.mkdir(exist_ok=True)
    argv = ["tacocat", "arena", A, B, "--mode", "game", "--time", str(ms), "--clock", "cpu"]
    argv += ["--deals", str(deals), "--workers", str(workers), "--seed", "0", "--out", str(RUNS / f"{ms}ms.json")]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def row(ms: int) -> str | None:
    path = RUNS / f"{ms}ms.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if not data.get("results"):
        return f"| {ms} | (unfinished: {len(data['outcomes'].get(f'{A} vs {B}', []))} deals so far) |"
    r = data["results"][0]
    adj = r["luck_adjusted"]
    think = r.get("think", {})
    t = " / ".join(f"{think[s]['cpu_ms']:.1f}" for s in ("a", "b") if think.get(s, {}).get("cpu_ms") is not None)
    lo, hi = r["ci95"]
    alo, ahi = adj["ci95"]
    return (
        f"| {ms} | {r['deals']} | {r['score']:+.3f} | [{lo:+.3f}, {hi:+.3f}] | {adj['score']:+.3f} "
        f"| [{alo:+.3f}, {ahi:+.3f}] | {adj['variance_ratio']:.2f} | {t} |"
    )


def report() -> None:
    rows = [x for ms in (20, 100) if (x := row(ms)) is not None]
    text = (
        f"""# The replacement as a game against the static replacement

Regenerate: `python results/replace_game.py --budgets 20 --deals 1000` (resumable), then
`python results/replace_game.py --report`.  Package {source_commit()}; load average
{os.getloadavg()[0]:.1f} when the report was written (the budgets are CPU time: the same work at any load).

`{A}` against `{B}`: duplicate whole games (standard rules, deal seeds `0/d`), A's discard drawn
from its game's mixed strategy; score = A's mean result a deal in [-1, 1], adjusted =
less the luck of the deals and draws; think = mean CPU ms a searched decision, A / B.

| ms (CPU) | deals | score (raw) | 95% interval | luck-adjusted | 95% interval | variance ratio | think ms, A / B |
| ---: | ---: | ---: | --- | ---: | --- | ---: | --- |
"""
        + "\n".join(rows)
        + "\n"
    )
    reading = RUNS / "reading.md"
    if reading.exists():
        text += "\n" + reading.read_text()
    OUT.write_text(text)
    print(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budgets", default="20", help="CPU milliseconds a decision, comma-separated")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--report", action="store_true", help="only write results/replace_game.md from the files")
    args = ap.parse_args()
    if not args.report:
        for ms in (int(x) for x in args.budgets.split(",")):
            play(ms, args.deals, args.workers)
    report()


if __name__ == "__main__":
    main()
