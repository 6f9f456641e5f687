"""Write tests/data/equilibrium_values.json: reference values of hidden-history
endgames computed by a given build of the CFR core (issue 22: the solver's
values before and after a change, `tests/test_equilibrium_values.py`).

    python tests/make_equilibrium_values.py OLD_CFR_SO [--out tests/data/equilibrium_values.json]

OLD_CFR_SO: a compiled `_cfr` extension (e.g. the .so of the commit before the
change, kept aside); it is loaded by path under another module name, so the
installed one is untouched.  Endgames: the seeded generator of
`tacocat.players.exploitability.endgames` (results/exploitability.py's; heuristic games, standard rules), keeping only
endgames whose round has a play history (R20 floors in force for someone);
2-, 3- and 4-card hands (ten, ten, one).  Each is solved by that core to exploitability
<= 1e-6 with the solver's own loop of that time (DCFR, a best response every
max(4, t/4) iterations)."""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1e-6
COUNTS = {2: 10, 3: 10, 4: 1}


def with_history(k: int, n: int):
    from tacocat.players.exploitability import endgames

    out, m = [], n
    while len(out) < n:
        m *= 2
        out = [eg for eg in endgames(k, m) if eg.history][:n]
    return out


def main() -> None:
    from tacocat.rules.history import history_to_json
    from tacocat.search.bench import core_build, fixed_schedule_solve

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("core", help="the compiled _cfr extension to take the values from")
    ap.add_argument("--out", default=str(ROOT / "tests" / "data" / "equilibrium_values.json"))
    args = ap.parse_args()
    core = core_build(args.core, "reference_core._cfr")
    digest = hashlib.sha256(Path(args.core).read_bytes()).hexdigest()
    cases = []
    for k, n in COUNTS.items():
        for eg in with_history(k, n):
            t = time.perf_counter()
            ref = fixed_schedule_solve(core, eg, TARGET)
            del ref["peak_bytes"]
            cases.append(
                {
                    "seen": list(eg.seen),
                    "history": history_to_json(eg.history),
                    "table": list(eg.table),
                    "attacker": eg.attacker,
                    "sizes": list(eg.sizes),
                    "utilities": list(eg.utilities),
                    "floors": list(eg.floors),
                    **ref,
                    "seconds": round(time.perf_counter() - t, 3),
                }
            )
            print(k, cases[-1]["value"], cases[-1]["iterations"], cases[-1]["seconds"], flush=True)
    Path(args.out).write_text(json.dumps({"core_sha256": digest, "target": TARGET, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
