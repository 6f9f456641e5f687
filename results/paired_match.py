"""A duplicate match of two bots at equal CPU time a decision, resumable,
and its table: what `results/duel_bayes.py` and `results/replace_game.py`
each run for their pair (`MATCHES`) (one `tacocat arena` run a budget, whose `--out`
file results/<name>/<ms>ms.json holds every finished deal; a variant of A
named LABEL plays into results/<name>/<LABEL>_<ms>ms.json; the report
reads those files and adds results/<name>/reading.md when there is one)."""

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

USAGE = """

Each budget is one `tacocat arena` run whose `--out` file,
results/{name}/<ms>ms.json (a variant's: <LABEL>_<ms>ms.json), holds every
finished deal (a stopped run goes on from there when started again); the
report reads those files.

    python results/{name}.py --budgets 20 --deals 1000     # play (or go on), then the report
    python results/{name}.py --variant LABEL --budgets 20 --deals 1000
    python results/{name}.py --report
"""


@dataclass(frozen=True)
class Variant:
    """Another bot A played against the same B: its label, spec and how its choice is drawn."""

    label: str
    a: str
    mixed: str


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
    variants: tuple[Variant, ...] = ()
    """Other A's against the same B, each a row of the table."""

    @property
    def runs(self) -> Path:
        return HERE / self.name

    def _sides(self) -> list[tuple[str, str, str]]:
        """(label, A's spec, file prefix) of A and of every variant."""
        return [("", self.a, "")] + [(v.label, v.a, f"{v.label}_") for v in self.variants]

    def play(self, ms: int, deals: int, workers: int, label: str = "") -> None:
        self.runs.mkdir(exist_ok=True)
        _, a, prefix = next(s for s in self._sides() if s[0] == label)
        argv = ["tacocat", "arena", a, self.b, "--mode", "game", "--time", str(ms), "--clock", "cpu"]
        argv += ["--deals", str(deals), "--workers", str(workers), "--seed", "0"]
        argv += ["--out", str(self.runs / f"{prefix}{ms}ms.json")]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    def row(self, ms: int, a: str = "", prefix: str = "") -> str | None:
        path = self.runs / f"{prefix}{ms}ms.json"
        if not path.exists():
            return None
        lead = f"| `{a}` " if self.variants else ""
        data = json.loads(path.read_text())
        if not data.get("results"):
            key = f"{a or self.a} vs {self.b}"
            return f"{lead}| {ms} | (unfinished: {len(data['outcomes'].get(key, []))} deals so far) |"
        r = data["results"][0]
        adj = r["luck_adjusted"]
        think = r.get("think", {})
        t = " / ".join(f"{think[s]['cpu_ms']:.1f}" for s in ("a", "b") if think.get(s, {}).get("cpu_ms") is not None)
        lo, hi = r["ci95"]
        alo, ahi = adj["ci95"]
        return (
            f"{lead}| {ms} | {r['deals']} | {r['score']:+.3f} | [{lo:+.3f}, {hi:+.3f}] | {adj['score']:+.3f} "
            f"| [{alo:+.3f}, {ahi:+.3f}] | {adj['variance_ratio']:.2f} | {t} |"
        )

    def report(self) -> None:
        rows = [x for _, a, prefix in self._sides() for ms in (20, 100) if (x := self.row(ms, a, prefix)) is not None]
        script = f"results/{self.name}.py"
        if self.variants:
            against = f"Each A against `{self.b}`"
            drawn = f"`{self.a}`: {self.mixed}; " + "; ".join(f"`{v.a}`: {v.mixed}" for v in self.variants)
            head = (
                "| A | ms (CPU) | deals | score (raw) | 95% interval | luck-adjusted | 95% interval | variance ratio "
            )
            head += "| think ms, A / B |\n| --- | ---: | ---: | ---: | --- | ---: | --- | ---: | --- |\n"
            again = "".join(
                f"\n`python {script} --variant {v.label} --budgets 20 --deals 1000`," for v in self.variants
            )
        else:
            against, drawn, again = f"`{self.a}` against `{self.b}`", self.mixed, ""
            head = "| ms (CPU) | deals | score (raw) | 95% interval | luck-adjusted | 95% interval | variance ratio "
            head += "| think ms, A / B |\n| ---: | ---: | ---: | --- | ---: | --- | ---: | --- |\n"
        text = (
            f"""# {self.title}

Regenerate: `python {script} --budgets 20 --deals 1000` (resumable),{again} then
`python {script} --report`.  Package {source_commit()}; load average
{os.getloadavg()[0]:.1f} when the report was written (the budgets are CPU time: the same work at any load).

{against}: duplicate whole games (standard rules, deal seeds `0/d`),
{drawn}; score = A's mean result a deal in [-1, 1], adjusted =
less the luck of the deals and draws; think = mean CPU ms a searched decision, A / B.

"""
            + head
            + "\n".join(rows)
            + "\n"
        )
        reading = self.runs / "reading.md"
        if reading.exists():
            text += "\n" + reading.read_text()
        (HERE / f"{self.name}.md").write_text(text)
        print(text)

    def main(self, doc: str) -> None:
        ap = argparse.ArgumentParser(
            description=doc + USAGE.format(name=self.name), formatter_class=argparse.RawDescriptionHelpFormatter
        )
        ap.add_argument("--budgets", default="20", help="CPU milliseconds a decision, comma-separated")
        ap.add_argument("--deals", type=int, default=1000)
        ap.add_argument("--workers", type=int, default=self.workers)
        labels = [v.label for v in self.variants]
        if labels:
            ap.add_argument("--variant", choices=labels, default="", help="play this variant of A instead of A")
        ap.add_argument("--report", action="store_true", help=f"only write results/{self.name}.md from the files")
        args = ap.parse_args()
        if not args.report:
            for ms in (int(x) for x in args.budgets.split(",")):
                self.play(ms, args.deals, args.workers, getattr(args, "variant", ""))
        self.report()


MATCHES = {
    m.name: m
    for m in (
        PairedMatch(
            "duel_bayes",
            "pimc@duel=bayes",
            "pimc_static",
            "The duel as a Bayesian game against the matrix duel",
            "each side's duel card drawn from its search's mixed strategy",
            workers=2,
        ),
        PairedMatch(
            "replace_game",
            "pimc@replace=game",
            "pimc_static",
            "The replacement as a game against the static replacement",
            "A's discard drawn from its game's mixed strategy",
            workers=1,
            variants=(
                Variant(
                    "guided",
                    "pimc@replace=guided",
                    "the best score played (the static value plus the game's correction)",
                ),
            ),
        ),
    )
}
"""The paired matches, by script name (results/<name>.py runs its own)."""


def main(script: str, doc: str) -> None:
    """`results/<name>.py`'s match played and reported (`script`: its `__file__`)."""
    MATCHES[Path(script).stem].main(doc)
