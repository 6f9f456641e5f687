"""Write tests/data/equilibrium_values.json: reference values of hidden-history
endgames computed by a given build of the CFR core (issue 22: the solver's
values before and after a change, `tests/test_equilibrium_values.py`).

    python tests/make_equilibrium_values.py OLD_CFR_SO [--out tests/data/equilibrium_values.json]

OLD_CFR_SO: a compiled `_cfr` extension (e.g. the .so of the commit before the
change, kept aside); it is loaded by path under another module name, so the
installed one is untouched.  Endgames: the seeded generator of
`results/exploitability.py` (heuristic games, standard rules), keeping only
endgames whose round has a play history (R20 floors in force for someone);
2-, 3- and 4-card hands (ten, ten, one).  Each is solved by that core to exploitability
<= 1e-6 with the solver's own loop of that time (DCFR, a best response every
max(4, t/4) iterations)."""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1e-6
COUNTS = {2: 10, 3: 10, 4: 1}


def load_core(path: str):
    import tacocat.core._search  # noqa: F401  (the old core cimports it)
    import tacocat.search.equilibrium  # noqa: F401  (the installed core registers first)

    spec = importlib.util.spec_from_file_location("reference_core._cfr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_history(k: int, n: int):
    sys.path.insert(0, str(ROOT / "results"))
    from exploitability import endgames

    out, m = [], n
    while len(out) < n:
        m *= 2
        out = [eg for eg in endgames(k, m) if eg.history][:n]
    return out


def old_value(core, eg) -> dict:
    from tacocat.rules.cards import counts

    f0, f1 = eg.floors
    eng = core.Engine(
        counts(eg.pool), eg.sizes[0], eg.sizes[1], eg.attacker, counts(eg.table), f0, f1, eg.utilities, 24_000_000
    )
    b0, b1 = eng.best_response()
    expl, nxt = (b0 + b1) / 2, 4
    while expl > TARGET:
        eng.run(nxt - eng.iterations)
        b0, b1 = eng.best_response()
        expl = (b0 + b1) / 2
        nxt = eng.iterations + max(4, eng.iterations // 4)
    return {"value": eng.values(0)[0], "exploitability": expl, "iterations": eng.iterations}


def main() -> None:
    from tacocat.rules.history import history_to_json

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("core", help="the compiled _cfr extension to take the values from")
    ap.add_argument("--out", default=str(ROOT / "tests" / "data" / "equilibrium_values.json"))
    args = ap.parse_args()
    core = load_core(args.core)
    digest = hashlib.sha256(Path(args.core).read_bytes()).hexdigest()
    cases = []
    for k, n in COUNTS.items():
        for eg in with_history(k, n):
            t = time.perf_counter()
            ref = old_value(core, eg)
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
