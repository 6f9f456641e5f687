"""Duplicate matches, play phase (8 cards each, `tacocat.players.match`):
PIMC with equilibrium endgames (`pimc_eq`: the hidden-hand equilibrium at
3 cards a hand or fewer, PIMC above) against plain PIMC, at the same PIMC
budget and at equal time.

Equal time is measured in the same run, not assumed: the script times
self-play matches (`--calibrate-deals` deals, seed 99, never the match's
deals) of pimc_eq at 50 samples and of plain PIMC at sample counts found
by the secant method until plain PIMC's time is within 5% of pimc_eq's;
each time is the median of `--repeats` alternating runs.  That sample count
is the equal-time opponent; the calibration is printed and written with the
results (results/match_equilibrium.json).

    python results/match_equilibrium.py [--deals 500] [--calibrate-deals 40] [--repeats 3]"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from exploitability import positive  # results/ is this script's folder, first on sys.path

from tacocat.players.match import run_match

HERE = Path(__file__).parent
BUDGET = {"samples": 50}


def self_play_seconds(bot: str, deals: int) -> float:
    t = time.perf_counter()
    run_match(bot, bot, deals=deals, seed=99, mode="play", budget=BUDGET)
    return time.perf_counter() - t


def calibrate(deals: int, repeats: int) -> dict:
    """The plain PIMC sample count whose self-play time matches pimc_eq's."""
    timed: dict[str, list[float]] = {}

    def median_time(bots: list[str]) -> None:
        for _ in range(repeats):  # alternate, so a change of machine load hits every bot alike
            for b in bots:
                timed.setdefault(b, []).append(self_play_seconds(b, deals))

    def t(b: str) -> float:
        return statistics.median(timed[b])

    lo, hi = 50, 200
    median_time(["pimc_eq", f"pimc@samples={lo}", f"pimc@samples={hi}"])
    target = t("pimc_eq")
    n = None
    for _ in range(4):
        a, b = t(f"pimc@samples={lo}"), t(f"pimc@samples={hi}")
        n = max(1, round(lo + (target - a) * (hi - lo) / (b - a))) if b != a else hi
        name = f"pimc@samples={n}"
        if name not in timed:
            median_time(["pimc_eq", name])
            target = t("pimc_eq")
        if abs(t(name) - target) <= 0.05 * target:
            break
        lo, hi = (hi, n) if abs(t(name) - target) < abs(t(f"pimc@samples={lo}") - target) else (lo, n)
    print(
        f"calibration ({deals} deals, median of {repeats}): " + ", ".join(f"{b} {t(b):.2f} s" for b in timed),
        file=sys.stderr,
    )
    return {"samples": n, "deals": deals, "repeats": repeats, "seconds": {b: t(b) for b in timed}, "runs": timed}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=positive, default=500)
    ap.add_argument("--calibrate-deals", type=positive, default=40)
    ap.add_argument("--repeats", type=positive, default=3)
    ap.add_argument("--out", default=str(HERE / "match_equilibrium.json"))
    args = ap.parse_args(argv)
    cal = calibrate(args.calibrate_deals, args.repeats)
    rows = []
    for b in ("pimc", f"pimc@samples={cal['samples']}"):
        t = time.perf_counter()
        r = run_match(
            "pimc_eq",
            b,
            deals=args.deals,
            seed=11,
            mode="play",
            budget=BUDGET,
            progress=lambda i, n, *_: print(f"{b}: {i}/{n}", file=sys.stderr) if i % 100 == 0 else None,
        )
        d = r.to_dict()
        scores = d.pop("deal_scores", None) or r.deal_scores
        d["deals_not_tied"] = sum(1 for s in scores if s != 0)
        d["opponent"] = b
        d["wall_seconds"] = time.perf_counter() - t
        rows.append(d)
        print(json.dumps(d), flush=True)
    Path(args.out).write_text(json.dumps({"calibration": cal, "matches": rows}, indent=1))


if __name__ == "__main__":
    main()
