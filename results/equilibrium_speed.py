"""Today's equilibrium solver against an older build of its core, on the
same seeded endgames, in one process (issue 22).

    python results/equilibrium_speed.py OLD_CFR_SO --sizes 3:20,4:10 --out results/equilibrium_speed.json

OLD_CFR_SO: the compiled `_cfr` extension of the older commit (kept aside,
e.g. `cp solver/core/_cfr.*.so /tmp/old_cfr.so` before rebuilding); it is
loaded by path under another module name, beside the installed one, and
driven by the loop every build supports (`fixed_schedule_solve`: a best
response at iteration 0, then every max(4, t/4) iterations, to
exploitability 1e-3).  Today's side is
`tacocat.search.equilibrium.solve` (size estimate, build, its own check
schedule: aimed at the target, `next_check_after`).  Endgames:
`tacocat.players.exploitability.endgames` (results/exploitability.py's).
Each endgame is solved old then new; wall and CPU seconds, iterations,
exploitability, value and peak bytes are recorded with the load average:
on a shared machine the CPU seconds are the fairer comparison."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from equilibrium_common import Clocks, result_fields  # noqa: E402


def old_solve(core, eg, target: float = 1e-3):
    from tacocat.search.bench import fixed_schedule_solve

    clocks = Clocks()
    row = fixed_schedule_solve(core, eg, target)
    return {"s": clocks.wall(), "cpu": clocks.cpu(), **row}


def new_solve(eg):
    from tacocat.search.equilibrium import solve

    clocks = Clocks()
    r = solve(eg)
    return {
        "s": clocks.wall(),
        "cpu": clocks.cpu(),
        **result_fields(r, ("iterations", "exploitability", "value", "peak_bytes")),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="the older build's _cfr extension")
    ap.add_argument("--sizes", default="3:20,4:10", help="cards:endgames, comma separated")
    ap.add_argument("--out", default=str(HERE / "equilibrium_speed.json"))
    args = ap.parse_args()
    from tacocat.search.bench import core_build

    core = core_build(args.old, "old_core._cfr")
    from tacocat.players.exploitability import endgames

    out: dict = {"load_before": os.getloadavg(), "cpus": os.cpu_count(), "sizes": {}}
    for part in args.sizes.split(","):
        k, n = (int(x) for x in part.split(":"))
        rows = []
        for i, eg in enumerate(endgames(k, n)):
            rows.append({"i": i, "old": old_solve(core, eg), "new": new_solve(eg), "load": os.getloadavg()[0]})
            print(k, json.dumps(rows[-1]), flush=True)

        def med(side, key):
            return statistics.median(r[side][key] for r in rows)

        out["sizes"][k] = {
            "endgames": n,
            **{f"{side}_median_{key}": med(side, key) for side in ("old", "new") for key in ("s", "cpu")},
            **{f"{side}_max_{key}": max(r[side][key] for r in rows) for side in ("old", "new") for key in ("s", "cpu")},
            **{f"{side}_median_peak_mb": med(side, "peak_bytes") / 1e6 for side in ("old", "new")},
            "median_cpu_ratio": statistics.median(r["new"]["cpu"] / r["old"]["cpu"] for r in rows),
            **{f"{side}_median_iterations": med(side, "iterations") for side in ("old", "new")},
            "max_value_difference": max(abs(r["old"]["value"] - r["new"]["value"]) for r in rows),
            "max_new_exploitability": max(r["new"]["exploitability"] for r in rows),
            "rows": rows,
        }
        print(k, {key: v for key, v in out["sizes"][k].items() if key != "rows"}, flush=True)
    out["load_after"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
