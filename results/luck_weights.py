"""Fit the luck reference of `tacocat.players.luck` by self-play, offline.

    python results/luck_weights.py                          # the shipped fit
    python results/luck_weights.py --games 200 --beta-games 100 --jobs 2   # quicker

Writes `solver/data/luck_weights.json` (read by `tacocat.players.luck`) and
prints a short summary.

Why offline and by self-play: the luck correction must not depend on the
bots it scores, so its reference is fitted once, on games between one
equal pair of cheap but sensible bots (`--bot` in both seats), and never on
a match being scored.

1. Weights.  `--games` games (seeds "luck/SEED/fit/i"); for every round:
   its hand size N, both hands after the replacement (R7/R8, before the
   duel) and its result (+1 player 0 won, -1 player 1 won, 0 drawn, R17).
   Per N, the least-squares fit of the result on the 12 rank-count
   differences count_r(H0) - count_r(H1), no intercept (the strength is
   antisymmetric).  The differences sum to 0 (both hands hold N cards), so
   the fit is the minimum-norm one: its weights sum to 0, and only their
   differences matter to the correction.
2. Beta.  `--beta-games` other games (seeds "luck/SEED/beta/i"): player 0's
   game result regressed on its correction under those weights (with an
   intercept: the seat may have an edge); beta = cov / var, the factor that
   makes result - beta * correction vary least.

The R² of each fit is 1 - residual / total sum of squares about the mean."""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from tacocat.players.bots import play_game
from tacocat.players.cluster import Cluster, run_tasks
from tacocat.players.luck import RANKS, WEIGHTS_FILE, LuckWeights, game_correction
from tacocat.players.match import _make, parse_bot
from tacocat.rules.actions import Action
from tacocat.rules.cards import counts
from tacocat.rules.game import DUEL, GameState
from tacocat.rules.ruleset import STANDARD

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402

DEFAULT_BOT = "pimc_classic@samples=10,replace_samples=40,duel_samples=8,candidates=8"

_bots: dict = {}


def replaced_hands(state: GameState) -> list[tuple[int, list[int], int]]:
    """Per round of the game `state`: (hand size, count differences of the
    hands after the replacement, rank 1..12, the round's result for player 0)."""
    game = GameState.new(state.rules, state.seed)
    rows: list[tuple[int, list[int], int]] = []
    held = None
    for entry in state.actions:
        entry = dict(entry)
        player = entry.pop("player")
        before, n = game.phase, game.board.hand_size(game.rules)
        rounds = len(game.rounds)
        game.apply(player, Action.from_dict(entry))
        if before != DUEL and game.phase == DUEL and held is None:
            c0, c1 = counts(game.hands[0]), counts(game.hands[1])
            held = (n, [c0[r] - c1[r] for r in range(1, RANKS + 1)])
        if len(game.rounds) > rounds:
            w = game.rounds[-1]["winner"]
            assert held is not None  # every round replaces before its duel
            rows.append((held[0], held[1], 0 if w is None else (1 if w == 0 else -1)))
            held = None
    return rows


def play(args) -> tuple[str, int, GameState]:
    stage, i, seed, bot = args
    if bot not in _bots:
        _bots.clear()
        _bots[bot] = (_make(bot, {}, "game"), _make(bot, {}, "game"))
    game_seed = int(random.Random(f"luck/{seed}/{stage}/{i}").getrandbits(48))
    return stage, i, play_game(_bots[bot], game_seed, STANDARD)


def fit_weights(rows) -> tuple[dict[int, list[float]], dict[int, dict]]:
    """Per hand size: the minimum-norm least-squares weights and the fit's R²."""
    weights, fits = {}, {}
    for n in sorted({r[0] for r in rows}):
        x = np.array([r[1] for r in rows if r[0] == n], dtype=float)
        y = np.array([r[2] for r in rows if r[0] == n], dtype=float)
        w, *_ = np.linalg.lstsq(x, y, rcond=None)
        resid = y - x @ w
        total = float(((y - y.mean()) ** 2).sum())
        weights[n] = [round(float(v), 5) for v in w]
        fits[n] = {"rounds": len(y), "r2": round(1 - float(resid @ resid) / total, 4) if total else None}
    return weights, fits


def fit_beta(results: list[int], corrections: list[float]) -> dict:
    r, c = np.array(results, dtype=float), np.array(corrections, dtype=float)
    cov = float(((r - r.mean()) * (c - c.mean())).mean())
    var_c = float(c.var())
    beta = cov / var_c
    resid = (r - r.mean()) - beta * (c - c.mean())
    se = float(np.sqrt(resid.var() / (len(r) * var_c)))
    var_r = float(r.var())
    return {
        "games": len(r),
        "beta": round(beta, 3),
        "beta_se": round(se, 3),
        "r2": round(1 - float(resid.var()) / var_r, 4),
        "variance_ratio_beta_1": round(var_r / float((r - c).var()), 3),
        "variance_ratio_beta": round(var_r / float((r - beta * c).var()), 3),
        "mean_correction": round(float(c.mean()), 4),
        "mean_correction_se": round(float(c.std() / np.sqrt(len(c))), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1500, help="self-play games for the weights")
    ap.add_argument("--beta-games", type=int, default=1000, help="other self-play games for beta (0: beta 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--bot", default=DEFAULT_BOT, help=f"the bot in both seats (default {DEFAULT_BOT})")
    ap.add_argument("--out", default=str(WEIGHTS_FILE), help="where to write the weights")
    args = ap.parse_args()
    parse_bot(args.bot)
    backend = Cluster("local", args.jobs)
    jobs = [("fit", i, args.seed, args.bot) for i in range(args.games)]
    jobs += [("beta", i, args.seed, args.bot) for i in range(args.beta_games)]
    t0 = time.time()
    rows, beta_games = [], []
    with contextlib.closing(run_tasks(play, jobs, backend)) as results:
        for k, (_, (stage, i, state)) in enumerate(results):
            if stage == "fit":
                rows.extend(replaced_hands(state))
            else:
                beta_games.append((i, state))
            if k % 250 == 249:
                print(f"{k + 1}/{len(jobs)} games, {time.time() - t0:.0f} s", file=sys.stderr)
    weights, fits = fit_weights(rows)
    about = {
        "about": "luck reference of tacocat.players.luck: w[N][rank 1..12] and beta (results/luck_weights.py)",
        "bot": args.bot,
        "games": args.games,
        "beta_games": args.beta_games,
        "seed": args.seed,
        "commit": source_commit(),
        "fit": {str(n): f for n, f in fits.items()},
    }
    beta = 1.0
    if beta_games:
        beta_games.sort(key=lambda g: g[0])
        ref = LuckWeights(by_size={n: tuple(w) for n, w in weights.items()})
        res = [0 if s.winner is None else (1 if s.winner == 0 else -1) for _, s in beta_games]
        cor = [game_correction(s, ref) for _, s in beta_games]
        about["beta_fit"] = fit_beta(res, cor)
        beta = about["beta_fit"]["beta"]
    doc = {
        **about,
        "seconds": round(time.time() - t0),
        "beta": beta,
        "weights": {str(n): w for n, w in weights.items()},
    }
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: doc[k] for k in ("fit", "beta_fit", "beta", "seconds", "commit") if k in doc}, indent=1))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
