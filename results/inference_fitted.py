"""An inference model fitted to how `pimc_classic` really replaces (issue 24).

    python results/inference_fitted.py fit --games 300 --jobs 2     # results/inference_fitted.json
    python results/inference_fitted.py match --run fitted20_v_classic --time-ms 20 --deals 500 --jobs 2

The static-softmax model (`tacocat.search.inference.StaticSoftmax`) gives a
discard D of a dealt hand H0 the probability prod_{c in D} x_c / Z(H0, cap)
with x_c = exp((e - |c - 6.5|) / T).  Here the same product form keeps its
12 weights x_1..x_12 free, fitted by maximum likelihood to the replacements
`pimc_classic` chose in self-play whole games (standard rules, `time_ms`
a decision, the games of seeds 0..N-1), on every other decision, the rest
held out.  `match` registers the fitted weights as the model `fitted`
(`register_model`) and plays `pimc@inference=fitted` against `pimc_classic`
with `results/strength_whole.py` (its rows, report and checks)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from tacocat.players.bots import make_bot, play_game
from tacocat.rules.cards import counts
from tacocat.rules.game import REPLACE
from tacocat.search.inference import StaticSoftmax, register_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strength_whole  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "inference_fitted.json"


class Recorder:
    """A bot that records its replacements: (dealt hand, cap, discard)."""

    def __init__(self, bot, seen: list) -> None:
        self.bot, self.seen = bot, seen

    def __getattr__(self, name: str):
        return getattr(self.bot, name)

    def choose(self, view, rng):
        action = self.bot.choose(view, rng)
        if view.decision == REPLACE:
            cap = max(len(a.cards) for a in view.legal_actions())
            self.seen.append((list(view.hand), cap, list(action.cards)))
        return action


def collect(job: tuple) -> list:
    time_ms, seeds = job
    seen: list = []
    for s in seeds:
        bots = tuple(Recorder(make_bot("pimc_classic", time_ms=time_ms), seen) for _ in (0, 1))
        play_game(bots, s)
    return seen


def log_likelihood(logx: np.ndarray, data: list) -> float:
    """Mean log P(discard | dealt, cap) under the product model with weights exp(logx)."""
    model = StaticSoftmax()
    model.x = [0.0] + list(np.exp(logx))
    total = 0.0
    for dealt, cap, discard in data:
        total += sum(logx[c - 1] for c in discard) - math.log(model._partition(counts(tuple(dealt)), cap))
    return total / len(data)


class Fitted(StaticSoftmax):
    """The product model with the fitted weights (results/inference_fitted.json)."""

    def __init__(self, temperature: float = 1.0, deck=None) -> None:
        super().__init__(1.0, deck)
        self.x = [0.0] + json.loads(OUT.read_text())["x"]
        self.name = "fitted"


def cmd_fit(args) -> None:
    seeds = list(range(args.games))
    jobs = [(args.time_ms, seeds[j :: args.jobs]) for j in range(args.jobs)]
    parts = strength_whole.run_jobs(collect, jobs)
    data = [d for p in parts for d in p]
    train, held = data[0::2], data[1::2]
    policy = StaticSoftmax()
    start = np.log(np.array(policy.x[1:]))
    fit = minimize(lambda v: -log_likelihood(v, train), start, method="L-BFGS-B")
    x = list(np.exp(fit.x))
    result = {
        "games": args.games,
        "time_ms": args.time_ms,
        "decisions": len(data),
        "x": x,
        "held_out_loglik": {
            "fitted": log_likelihood(fit.x, held),
            "policy (T=1)": log_likelihood(start, held),
            "uniform discards (x = 1)": log_likelihood(np.zeros(12), held),
        },
        "train_loglik_fitted": -fit.fun,
        "discards_kept_all": sum(1 for _, _, d in data if not d) / len(data),
    }
    OUT.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


def cmd_match(args) -> None:
    register_model("fitted", Fitted)
    strength_whole.main(
        ["--run", args.run, "--a", "pimc@inference=fitted", "--b", "pimc_classic", "--time-ms", str(args.time_ms)]
        + ["--deals", str(args.deals), "--minutes", str(args.minutes), "--jobs", str(args.jobs)]
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="collect pimc_classic's replacements and fit the weights")
    f.add_argument("--games", type=strength_whole.positive, default=300)
    f.add_argument("--time-ms", type=float, default=20.0)
    f.add_argument("--jobs", type=strength_whole.positive, default=1)
    m = sub.add_parser("match", help="pimc@inference=fitted against pimc_classic (strength_whole rows)")
    m.add_argument("--run", required=True)
    m.add_argument("--time-ms", type=float, default=20.0)
    m.add_argument("--deals", type=strength_whole.positive, default=500)
    m.add_argument("--minutes", type=float, default=30.0)
    m.add_argument("--jobs", type=strength_whole.positive, default=1)
    args = ap.parse_args(argv)
    {"fit": cmd_fit, "match": cmd_match}[args.cmd](args)


if __name__ == "__main__":
    main()
