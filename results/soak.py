"""Soak the engine protocol at length (the driver is tests/soak_driver.py;
tests/test_soak.py runs a small version of it).

Run:  python results/soak.py [--requests 50000] [--process-requests 5000] [--seed 1]
      python results/soak.py --no-trace --clear-caches-every 5000   # RSS without the memo caches
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from soak_driver import soak_process, soak_session  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=50_000, help="In-process requests.")
    ap.add_argument("--process-requests", type=int, default=5_000, help="Requests through `tacocat engine`.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-searches", action="store_true", help="Leave out hint and solve.")
    ap.add_argument("--no-trace", action="store_true", help="In-process: skip tracemalloc (faster; RSS only).")
    ap.add_argument(
        "--clear-caches-every",
        type=int,
        default=None,
        metavar="N",
        help="In-process: empty tacocat.rules.play's memo caches every N requests (RSS without them).",
    )
    args = ap.parse_args()
    print(
        f"# python {sys.version.split()[0]}, {os.cpu_count()} CPUs; command: python results/soak.py "
        + " ".join(sys.argv[1:])
    )
    print(f"# in-process: {args.requests} requests; subprocess: {args.process_requests}", flush=True)
    a = soak_session(
        args.requests, args.seed, not args.no_searches, trace=not args.no_trace, clear_every=args.clear_caches_every
    )
    print("in-process:", json.dumps(a, indent=1))
    b = soak_process(args.process_requests, args.seed + 1, not args.no_searches)
    print("subprocess:", json.dumps(b, indent=1))
    for name, r in (("in-process", a), ("subprocess", b)):
        m = r["memory"]
        line = (
            f"{name}: {r['requests']} requests, {sum(r['answers'].values())} answered "
            f"({r['answers'].get('ok', 0)} ok), {r['problems']} problems, {r['per_second']}/s; "
            + (f"+ {r['raw_bad_lines']} raw bad lines, " if "raw_bad_lines" in r else "")
            + f"RSS KiB after warm-up {m['rss_after_warmup_kib']} -> end {m['rss_curve_kib'][-1]}"
        )
        if m.get("traced_end_kib"):
            line += f"; traced heap KiB {m['traced_after_warmup_kib']} -> {m['traced_end_kib']} (memo caches emptied)"
        print("summary", line)
    failed = a["problems"] or b["problems"] or b["exit_status"] != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
