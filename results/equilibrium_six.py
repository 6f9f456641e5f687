"""Six-card endgames and the equilibrium solver (issue 36, deliverable 4):
the size of the seeded 6-card endgames' trees (the endgames of
results/exploitability.md, `tacocat.players.exploitability.endgames(6, n)`),
and solves of 6-card endgames whose round history narrows both hands
(R20: a sacrifice leaves its player no card below the cards it gave up).

    python results/equilibrium_six.py --scan 60 --threads 2 --out results/equilibrium_six.json

Seeded: each endgame's estimated tree (as `solve` stores it), and every one
under the 2 GB cap solved.  Constructed: the history "p1 attacks 9; p0
answers A sacrifice; p1 attacks 10; p0 answers 12 beat; p0 attacks 11; p1
answers B sacrifice" for floors A, B of 6..8 (player 0 to attack, six
cards each, nothing else face up or, past the first nine, two more cards;
the ones the unseen cards cannot deal skipped),
each solved as `solve --equilibrium` solves it for a seeded hand of the
attacker's: to exploitability 1e-3 and on until that hand's own regret is
1e-3 too.  A row: sizes, CPU and wall seconds, iterations, the solver's
peak bytes, exploitability, the hand's regret; the load average before
and after."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from pathlib import Path

from tacocat.errors import PositionError
from tacocat.players.exploitability import endgames
from tacocat.rules.cards import hand
from tacocat.rules.history import parse_history
from tacocat.rules.ruleset import STANDARD
from tacocat.search.equilibrium import Endgame, EndgameTooLarge, _engine, estimate, keep_lower, solve, unpack

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from equilibrium_common import Clocks, solved_row  # noqa: E402
from provenance import source_commit  # noqa: E402

CAP = 2_000_000_000
TARGET = 1e-3
HISTORY = (
    "p1 attacks 9; p0 answers {a} sacrifice; p1 attacks 10; p0 answers 12 beat; p0 attacks 11; p1 answers {b} sacrifice"
)
EXTRA_SEEN = ((), (6, 8), (7, 9))
"""Face-up cards besides the history's (replacement discards, earlier tricks): cycled over the floors."""


def constructed(n: int) -> list[Endgame]:
    """`n` six-card endgames whose histories put both floors at 6..8 (see the module docstring)."""
    out = []
    floors = [(a, b) for a in (8, 7, 6) for b in (8, 7, 6)]
    for i in range(len(floors) * len(EXTRA_SEEN)):
        a, b = floors[i % len(floors)]
        events = parse_history(HISTORY.format(a=a, b=b))
        seen = hand([c for e in events for c in e.cards] + list(EXTRA_SEEN[i // len(floors)]))
        eg = Endgame(STANDARD, seen, events, (), 0, (6, 6))
        try:
            eg.check()
        except PositionError:
            continue  # the unseen cards cannot make both narrow hands (8 and 8: nine cards of rank >= 8 left)
        out.append(eg)
        if len(out) == n:
            break
    return out


def asking_hand(eg: Endgame, seed: int) -> tuple[int, ...]:
    """A seeded hand of the attacker's that the history allows."""
    eng = _engine(eg)
    level = eng.level(eg.sizes[eg.attacker])
    floor = eg.floors[eg.attacker]
    allowed = [unpack(h) for h in level if min(unpack(h)) >= floor]
    return random.Random(seed).choice(allowed)


def solve_row(kind: str, i: int, eg: Endgame, threads: int) -> dict:
    nodes, seqs, need = estimate(eg, keep_lower_answers=keep_lower(eg), threads=threads)
    row: dict = {
        "kind": kind,
        "i": i,
        "floors": list(eg.floors),
        "unseen": len(eg.pool),
        "estimated_sequences": seqs,
        "estimated_bytes": need,
        "load_start": os.getloadavg()[0],
    }
    if need > CAP:
        row["too_large"] = True
        return row
    for seed in range(i, i + 50):  # a hand the other's floor leaves an opponent hand for (R20)
        asking = asking_hand(eg, seed)
        clocks = Clocks()
        try:
            r = solve(eg, target=TARGET, max_bytes=CAP, hand_of=(eg.attacker, asking), threads=threads)
            break
        except EndgameTooLarge as exc:
            row.update({"too_large": True, "error": str(exc)})
            return row
        except PositionError:
            continue
    else:
        raise PositionError(f"no possible hand found for endgame {kind} #{i}", "R20")
    row.update({"hand": list(asking), **solved_row(r, clocks), "threads": r.threads, "load_end": os.getloadavg()[0]})
    return row


def table(rows: list[dict]) -> str:
    """The solved rows as a markdown table."""
    lines = [
        "| endgame | floors | unseen | sequences | peak MB | iterations | exploitability | hand regret "
        "| CPU s | wall s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        if r.get("too_large"):
            continue
        lines.append(
            f"| {r['kind']} #{r['i']} | {r['floors'][0]}, {r['floors'][1]} | {r['unseen']} | "
            f"{r['sequences'] / 1e6:.2f} M | {r['peak_bytes'] / 1e6:.0f} | {r['iterations']} | "
            f"{r['exploitability']:.5f} | {r['hand_regret']:.5f} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scan", type=int, default=60, help="the first N seeded 6-card endgames, solved if they fit")
    ap.add_argument("--constructed", type=int, default=10, help="constructed narrow-history endgames solved")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / "equilibrium_six.json"))
    args = ap.parse_args()
    out: dict = {"load_before": os.getloadavg(), "cpus": os.cpu_count(), "commit": source_commit(), "cap": CAP}
    seeded = [solve_row("seeded", i, eg, args.threads) for i, eg in enumerate(endgames(6, args.scan))]
    for r in seeded:
        print(json.dumps(r), flush=True)
    built = []
    for i, eg in enumerate(constructed(args.constructed)):
        built.append(solve_row("constructed", i, eg, args.threads))
        print(json.dumps(built[-1]), flush=True)
    sizes = [r["estimated_bytes"] for r in seeded]
    out["seeded"] = seeded
    out["constructed"] = built
    out["summary"] = {
        "seeded": len(seeded),
        "seeded_fit_2gb": sum(not r.get("too_large") for r in seeded),
        "seeded_median_gb": statistics.median(sizes) / 1e9 if sizes else None,
        "seeded_min_gb": min(sizes) / 1e9 if sizes else None,
        "constructed_solved": sum(not r.get("too_large") for r in built),
    }
    out["load_after"] = os.getloadavg()
    print(json.dumps(out["summary"]))
    print(table(seeded + built))
    print(f"load average before {out['load_before']}, after {out['load_after']}")
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
