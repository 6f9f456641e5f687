"""A duplicate match of two bots at equal CPU time a decision, resumable,
and its table: what `results/duel_bayes.py` and `results/replace_game.py`
each run for their pair (one `tacocat arena` run a budget, whose `--out`
file results/<name>/<ms>ms.json holds every finished deal; the report reads
those files and adds results/<name>/reading.md when there is one)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from provenance import source_commit  # noqa: E402


@dataclass(frozen=True)
class PairedMatch:
    name: str
    """The script's and its folder's name (results/<name>.py, results/<name>/)."""
    a: str
    b: str
    title: str
    mixed: str
    """How A's choice is drawn, in the table's words."""
    workers: int = 2

    @property
    def runs(self) -> Path:
        return HERE / self.name

    def play(self, ms: int, deals: int, workers: int) -> None:
        self.runs.mkdir(exist_ok=True)
        argv = ["tacocat", "arena", self.a, self.b, "--mode", "game", "--time", str(ms), "--clock", "cpu"]
        argv += ["--deals", str(deals), "--workers", str(workers), "--seed", "0"]
        argv += ["--out", str(self.runs / f"{ms}ms.json")]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    def row(self, ms: int) -> str | None:
        path = self.runs / f"{ms}ms.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text())
        if not data.get("results"):
            return f"| {ms} | (unfinished: {len(data['outcomes'].get(f'{self.a} vs {self.b}', []))} deals so far) |"
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

    def report(self) -> None:
        rows = [x for ms in (20, 100) if (x := self.row(ms)) is not None]
        script = f"results/{self.name}.py"
        text = (
            f"""# {self.title}

Regenerate: `python {script} --budgets 20 --deals 1000` (resumable), then
`python {script} --report`.  Package {source_commit()}; load average
{os.getloadavg()[0]:.1f} when the report was written (the budgets are CPU time: the same work at any load).

`{self.a}` against `{self.b}`: duplicate whole games (standard rules, deal seeds `0/d`),
{self.mixed}; score = A's mean result a deal in [-1, 1], adjusted =
less the luck of the deals and draws; think = mean CPU ms a searched decision, A / B.

| ms (CPU) | deals | score (raw) | 95% interval | luck-adjusted | 95% interval | variance ratio | think ms, A / B |
| ---: | ---: | ---: | --- | ---: | --- | ---: | --- |
"""
            + "\n".join(rows)
            + "\n"
        )
        reading = self.runs / "reading.md"
        if reading.exists():
            text += "\n" + reading.read_text()
        (HERE / f"{self.name}.md").write_text(text)
        print(text)

    def main(self, doc: str) -> None:
        ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
        ap.add_argument("--budgets", default="20", help="CPU milliseconds a decision, comma-separated")
        ap.add_argument("--deals", type=int, default=1000)
        ap.add_argument("--workers", type=int, default=self.workers)
        ap.add_argument("--report", action="store_true", help=f"only write results/{self.name}.md from the files")
        args = ap.parse_args()
        if not args.report:
            for ms in (int(x) for x in args.budgets.split(",")):
                self.play(ms, args.deals, args.workers)
        self.report()
