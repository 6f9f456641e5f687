"""What an `apply` against the engine seat costs (issue 33: N4).

A client plays seat 1 of a game whose seat 0 the server plays at level 1
(a bot that does not search: what is timed is the protocol's own work,
the commits above all), through `EngineSession.handle`, with the default
store (SQLite, every commit durable, in a temporary folder on the same disk
as the default place) and without one.  The same games are
played by this package and by a baseline commit's (its Python files in a
git worktree, the compiled core shared), in alternating rounds of
separate processes, so the ratio is measured in one run.

    python results/engine_apply.py                       # baseline: b271055, before one commit per apply
    python results/engine_apply.py --baseline <commit> --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "engine_apply.md"
sys.path.insert(0, str(HERE))
from provenance import source_commit  # noqa: E402

CHILD = r"""
import json, random, statistics, sys, tempfile, time
from tacocat.protocol.session import EngineSession
from tacocat.protocol.store import GameStore

def run(store, games, seed0):
    session = EngineSession(store=store, max_games=10_000)
    times = []
    for g in range(games):
        r = session.handle({"cmd": "new_game", "seed": seed0 + g, "engine": {"seat": 0, "level": 1}})["result"]
        token, rng = r["tokens"]["seats"][1], random.Random(g)
        while True:
            ask = {"game": r["game"], "player": 1, "token": token}
            legal = session.handle({"cmd": "legal", **ask})["result"]["actions"]
            if not legal:
                break
            t0 = time.perf_counter()
            session.handle({"cmd": "apply", **ask, "action": rng.choice(legal)})
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, len(times)

games = int(sys.argv[1])
with tempfile.TemporaryDirectory() as d:
    stored = run(GameStore(d + "/games.sqlite3"), games, 0)
plain = run(None, games, 0)
print(json.dumps({"store_ms": stored[0], "plain_ms": plain[0], "applies": stored[1]}))
"""


def package_dir(commit: str, work: Path) -> Path:
    """A directory holding `tacocat` as of `commit`: its Python files from a
    worktree, the compiled core of this checkout (the core is not what is timed)."""
    tree = work / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(tree), commit],
        check=True,
        capture_output=True,
    )
    for so in (ROOT / "solver" / "core").glob("*.so"):
        shutil.copy(so, tree / "solver" / "core" / so.name)
    pkg = work / "pkg"
    pkg.mkdir()
    (pkg / "tacocat").symlink_to(tree / "solver")
    return pkg


def measure(pythonpath: str | None, games: int) -> dict:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(games)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="b271055")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=20)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="engine-apply-"))
    try:
        old = str(package_dir(args.baseline, work))
        rows: dict[str, list[dict]] = {"new": [], "old": []}
        for i in range(args.rounds):
            for name, path in (("new", None), ("old", old)) if i % 2 == 0 else (("old", old), ("new", None)):
                rows[name].append(measure(path, args.games))
                print(f"round {i + 1}: {name} {rows[name][-1]}", file=sys.stderr)
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work / "tree")], capture_output=True
        )
        shutil.rmtree(work, ignore_errors=True)
    med = {(n, k): statistics.median(r[k] for r in rows[n]) for n in rows for k in ("store_ms", "plain_ms")}
    ratio = {
        k: statistics.median(a[k] / b[k] for a, b in zip(rows["new"], rows["old"], strict=True))
        for k in ("store_ms", "plain_ms")
    }
    load = os.getloadavg()[0]
    text = f"""# An apply against the engine seat (level 1)

Regenerate: `python results/engine_apply.py --baseline {args.baseline} --rounds {args.rounds}` (package
{source_commit()} against {args.baseline}; {args.games} seeded games a process, {rows["new"][0]["applies"]}
applies, a client playing seat 1 by random legal moves against level 1 on seat 0, through
`EngineSession.handle`; each figure the median over {args.rounds} alternating rounds of the median
apply of a round; load average {load:.1f} at the end).

| store | this package, ms an apply | {args.baseline}, ms | ratio (paired by round) |
| --- | ---: | ---: | ---: |
| default (SQLite, durable) | {med["new", "store_ms"]:.2f} | {med["old", "store_ms"]:.2f} | {ratio["store_ms"]:.2f} |
| none | {med["new", "plain_ms"]:.3f} | {med["old", "plain_ms"]:.3f} | {ratio["plain_ms"]:.2f} |

The baseline committed the action, then each engine action again, and made a new bot every engine
turn; this package commits once an apply (the action and the engine's reply) and keeps one bot a game.
"""
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
