"""Our bots against OpenSpiel's own search, inside OpenSpiel (`tacocat.openspiel`).

    python results/openspiel.py match --ms 10 --deals 300      # one budget, every pairing
    python results/openspiel.py match --ms 100 --deals 150
    python results/openspiel.py cfr                            # ours vs OpenSpiel CFR+ on a tiny play phase
    python results/openspiel.py report                         # results/openspiel.md from the JSON files

Matches: `tacocat_play`, 8 cards each from the standard deck, player 0 attacks
first, scored by the round (+1 / 0 / -1).  Every deal is played twice with the
hands kept and the bots swapping seats (duplicate): the same shuffle as
`tacocat.players.match` (`random.Random("play/<deal>")`), dealt through the
game's chance nodes.  A deal's score is our bot's mean over its two games; the
95% interval is mean ± 1.96 standard errors over deals.

Budgets, per decision, equal wall time T:
- ours (`pimc`, `ismcts`): `time_ms=T` (our bots stop on the clock; PIMC
  first tries the exact average over every consistent hand when there are
  few, as it always does);
- OpenSpiel `ISMCTSBot` (Python, UCT c=2, random-rollout evaluator with one
  rollout, max-visit final policy, unlimited world samples, worlds from our
  `resample_from_infostate`) and `MCTSBot` (Python, UCT c=2, the same
  evaluator, no solver) run on one world drawn by `resample_from_infostate` per decision,
  since plain MCTS on the true state would read the opponent's hand): OpenSpiel's
  searches take a simulation count, not a clock, so each gets
  floor(T / c(h, kind)) simulations (at least 1; ISMCTS at least 2, as its
  first simulation only creates the root), c = the mean seconds per
  simulation measured in this process just before the match on 12 positions
  per hand size h and decision kind (attack / answer), and then updated after
  every decision of the match (c <- 0.8 c + 0.2 measured), as the load
  changes.  MCTS runs with `solve=False` (proving values of one sampled world
  is no proof in the real game, and a search that stops early would spoil the
  calibration).  The report gives the
  simulations they got and every bot's measured mean seconds per decision.

Runs on a shared, loaded 2-core machine: wall-time budgets buy fewer
iterations under load, for every bot alike."""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import tacocat.openspiel  # noqa: F401  (registers the games)
from tacocat.openspiel.bots import TacocatBot
from tacocat.rules.ruleset import STANDARD

HERE = Path(__file__).resolve().parent
HAND = 8
OURS = ("pimc", "ismcts")
THEIRS = ("os_ismcts", "os_mcts")
MIN_SIMS = {"os_ismcts": 2, "os_mcts": 2}
"""OpenSpiel's ISMCTS and MCTS need two simulations: the first only creates the root."""


def deal_order(deal: int) -> list[int]:
    """The 16 chance outcomes of deal `deal` (the shuffle of tacocat.players.match)."""
    rng = random.Random(f"play/{deal}")
    deck = list(STANDARD.deck_cards())
    rng.shuffle(deck)
    return [c - 1 for c in sorted(deck[:HAND]) + sorted(deck[HAND : 2 * HAND])]


class Calibrated:
    """An OpenSpiel search bot whose simulation count per decision is
    floor(T / cost(h, kind)): the time budget in OpenSpiel's own currency."""

    def __init__(self, kind: str, game, budget_s: float, costs: dict, seed: int, key=None) -> None:
        self.kind, self.game, self.budget_s, self.costs = kind, game, budget_s, costs
        self.key = key or play_key
        """What a simulation's cost depends on, at a state (default: the play phase's hand size and kind)."""
        self.rng = np.random.RandomState(seed)
        self.sims: list[int] = []

    def cost(self, key: tuple) -> float:
        """Seconds a simulation at `key`; a key not calibrated takes the nearest hand size of its kind."""
        cost = self.costs[self.kind]
        if key in cost:
            return cost[key]
        near = [(abs(k[0] - key[0]), c) for k, c in cost.items() if k[1] == key[1]]
        return min(near)[1] if near else max(cost.values())

    def search_bot(self, sims: int):
        """OpenSpiel's bot of this kind at `sims` simulations."""
        ev = mcts.RandomRolloutEvaluator(1, self.rng)
        if self.kind == "os_ismcts":
            return ismcts.ISMCTSBot(self.game, ev, 2.0, sims, random_state=self.rng)
        return mcts.MCTSBot(self.game, 2.0, sims, ev, solve=False, random_state=self.rng)

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        p = state.current_player()
        key = self.key(state)
        sims = max(MIN_SIMS[self.kind], int(self.budget_s / self.cost(key)))
        self.sims.append(sims)
        bot = self.search_bot(sims)
        t = time.perf_counter()
        if self.kind == "os_mcts":
            world = state.resample_from_infostate(p, lambda: self.rng.uniform())
            action = bot.step(world)
        else:
            action = bot.step(state)
        # Keep calibrating while playing: the machine's load changes.
        self.costs[self.kind][key] = 0.8 * self.cost(key) + 0.2 * (time.perf_counter() - t) / sims
        return action


def play_key(state) -> tuple[int, str]:
    """(hand size, attack or answer) of the player to move in the play phase."""
    return len(state.hands[state.current_player()]), "answer" if state.table else "attack"


def calibrate(game, budget_s: float, seed: int = 7, per: int = 12, kinds: tuple[str, ...] = THEIRS) -> dict:
    """Median seconds per simulation of each OpenSpiel bot by (hand size,
    kind): measured at 20 simulations, then again at the count that cost
    implies for `budget_s` (a search's cost per simulation depends on its size)."""
    rng = np.random.RandomState(seed)
    positions: dict = {}
    r = random.Random(seed)
    tries = 0
    while any(len(positions.get((h, k), [])) < per for h in range(2, HAND + 1) for k in ("attack", "answer")):
        tries += 1
        if tries > 4000:
            break
        s = game.new_initial_state()
        for a in deal_order(10_000 + tries):
            s.apply_action(a)
        while not s.is_terminal():
            key = play_key(s)
            if len(s.legal_actions()) > 1 and len(positions.setdefault(key, [])) < per and r.random() < 0.5:
                positions[key].append(s.clone())
            s.apply_action(r.choice(s.legal_actions()))
    costs = {}
    for kind in kinds:  # only the bots a run plays: at 1 s a decision each costs minutes
        costs[kind] = {}
        for key, states in positions.items():
            probe = Calibrated(kind, game, 0, {}, seed)
            sims = 20
            for _ in range(2):
                times = []
                for s in states:
                    bot = probe.search_bot(sims)
                    t = time.perf_counter()
                    if kind == "os_mcts":
                        bot.step(s.resample_from_infostate(s.current_player(), lambda: rng.uniform()))
                    else:
                        bot.step(s)
                    times.append((time.perf_counter() - t) / sims)
                costs[kind][key] = statistics.fmean(times)
                sims = max(MIN_SIMS[kind], int(budget_s / costs[kind][key]))
    return costs


def play(game, bots, order) -> tuple[int, list[list[float]]]:
    """Player 0's round result and each seat's decision times."""
    s = game.new_initial_state()
    for a in order:
        s.apply_action(a)
    times: list[list[float]] = [[], []]
    while not s.is_terminal():
        p = s.current_player()
        t = time.perf_counter()
        a = bots[p].step(s)
        times[p].append(time.perf_counter() - t)
        s.apply_action(a)
    r = s.returns()[0]
    return int(round(r)), times


def play_deals(ours: str, theirs: str, ms: float, our_ms: float, deals: range, costs: dict, seed: int) -> dict:
    """Each deal of `deals` played twice (seats swapped): per-deal scores,
    every decision's seconds for both sides, OpenSpiel's simulation counts."""
    game = pyspiel.load_game("tacocat_play", {"hand_size": HAND, "units": "round"})
    scores, ours_t, theirs_t = [], [], []
    theirs_bot = [Calibrated(theirs, game, ms / 1000, costs, seed + 1 + s + 7919 * deals.start) for s in (0, 1)]
    for d in deals:
        order = deal_order(d)
        total = 0.0
        for seat in (0, 1):
            mine = TacocatBot(game, seat, ours, seed=seed * 1_000_003 + d, time_ms=our_ms, utilities="round")
            bots = [None, None]
            bots[seat] = mine
            bots[1 - seat] = theirs_bot[1 - seat]
            r0, times = play(game, bots, order)
            total += r0 if seat == 0 else -r0
            ours_t += times[seat]
            theirs_t += times[1 - seat]
        scores.append(total / 2)
    return {"scores": scores, "ours_t": ours_t, "theirs_t": theirs_t, "sims": theirs_bot[0].sims + theirs_bot[1].sims}


def _play_chunk(job: tuple) -> dict:
    return play_deals(*job)


def run_pair(
    ours: str,
    theirs: str,
    ms: float,
    deals: int,
    costs: dict,
    seed: int,
    progress,
    our_ms: float | None = None,
    jobs: int = 1,
) -> dict:
    """A duplicate match: OpenSpiel's bot at `ms`, ours at `our_ms` (default
    `ms`: equal time).  With `jobs` > 1 the deals are split into that many
    contiguous chunks played in separate processes (one a core), each with
    its own copy of the calibration."""
    our_ms = ms if our_ms is None else our_ms
    start = time.perf_counter()
    chunks = [range(deals * j // jobs, deals * (j + 1) // jobs) for j in range(jobs)]
    todo = [(ours, theirs, ms, our_ms, c, costs, seed) for c in chunks if len(c)]
    if jobs == 1:
        parts = [_play_chunk(todo[0])]
        progress(deals, deals)
    else:
        import multiprocessing

        parts = []
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for part in pool.imap(_play_chunk, todo):
                parts.append(part)
                progress(sum(len(p["scores"]) for p in parts), deals)
    scores = [x for p in parts for x in p["scores"]]
    ours_t = [x for p in parts for x in p["ours_t"]]
    theirs_t = [x for p in parts for x in p["theirs_t"]]
    sims = [x for p in parts for x in p["sims"]]
    n = len(scores)
    mean = statistics.fmean(scores)
    se = statistics.stdev(scores) / math.sqrt(n) if n > 1 else 0.0
    return {
        "ours": ours,
        "theirs": theirs,
        "ms": ms,
        "our_ms": our_ms,
        "jobs": jobs,
        "deals": n,
        "score": mean,
        "ci95": [mean - 1.96 * se, mean + 1.96 * se],
        "ours_s_per_decision": statistics.fmean(ours_t),
        "ours_s_median": statistics.median(ours_t),
        "ours_s_p99": statistics.quantiles(ours_t, n=100)[98] if len(ours_t) > 1 else ours_t[0],
        "theirs_s_per_decision": statistics.fmean(theirs_t),
        "theirs_s_median": statistics.median(theirs_t),
        "theirs_sims_mean": statistics.fmean(sims) if sims else 0,
        "theirs_sims_median": statistics.median(sims) if sims else 0,
        "seconds": round(time.perf_counter() - start, 1),
    }


def cmd_match(args) -> None:
    game = pyspiel.load_game("tacocat_play", {"hand_size": HAND, "units": "round"})
    our_ms = args.ms if args.our_ms is None else args.our_ms
    pairs = [(o, t) for o in OURS for t in THEIRS]
    if args.pair:
        pairs = [tuple(p.split(":")) for p in args.pair]
    kinds = tuple(k for k in THEIRS if any(t == k for _, t in pairs))
    print(f"calibrating OpenSpiel's searches ({', '.join(kinds)}, {args.ms} ms)...", file=sys.stderr)
    costs = calibrate(game, args.ms / 1000, kinds=kinds)
    # Unequal budgets (time odds) go to their own file, keyed by both budgets.
    odds = our_ms != args.ms
    out = HERE / ("openspiel_odds.json" if odds else f"openspiel_{int(args.ms)}ms.json")
    data = {
        "ms": args.ms,
        "costs": {k: {f"{h}/{kind}": v for (h, kind), v in c.items()} for k, c in costs.items()},
        "rows": [],
    }
    if (args.pair or odds) and out.exists():  # a few pairings: keep the file's other rows
        data["rows"] = json.loads(out.read_text())["rows"]
    for ours, theirs in pairs:

        def progress(done, total, ours=ours, theirs=theirs):
            print(f"{our_ms} v {args.ms} ms {ours} v {theirs}: {done}/{total} deals", file=sys.stderr, flush=True)

        load_before = os.getloadavg()
        row = run_pair(ours, theirs, args.ms, args.deals, costs, args.seed, progress, our_ms=our_ms, jobs=args.jobs)
        row["load"] = [round(x, 2) for x in load_before] + [round(x, 2) for x in os.getloadavg()]
        row["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

        def same(r, ours=ours, theirs=theirs):
            return (r["ours"], r["theirs"], r["ms"], r.get("our_ms", r["ms"])) == (ours, theirs, args.ms, our_ms)

        data["rows"] = [r for r in data["rows"] if not same(r)] + [row]
        out.write_text(json.dumps(data, indent=1))
        print(json.dumps(row))


TINY = {"deck": "2 2 2 2 0 0 0 0 0 0 0 0", "board": "2 2 2 2 2 2 2"}
TINY_WORDS = "ranks 1-4, two of each (8 cards)"


def cmd_cfr(args) -> None:
    """Exploitability curves on tiny play phases (wall time per point): our
    equilibrium solver always; OpenSpiel's CFR+ only for hand sizes missing
    from results/openspiel_cfr.json or with --rerun-openspiel (it is slow)."""
    path = HERE / "openspiel_cfr.json"
    stored = {r["hand_size"]: r for r in json.loads(path.read_text())["rows"]} if path.exists() else {}
    for n in args.hands:
        if args.rerun_openspiel or n not in stored:
            stored[n] = openspiel_cfr_curve(n, args.iterations, args.max_seconds, stored, path)
    ours = [equilibrium_curve(n, args.our_max_iterations) for n in args.hands]
    (HERE / "openspiel_equilibrium.json").write_text(json.dumps({"rows": ours}, indent=1))


def openspiel_cfr_curve(n, targets, max_seconds, stored, path) -> dict:
    from open_spiel.python.algorithms import cfr, exploitability

    game = pyspiel.load_game("tacocat_play", {**TINY, "hand_size": n, "units": "round"})
    solver = cfr.CFRPlusSolver(game)
    spent = 0.0  # seconds of CFR+ iterations (not of the exploitability measurements)
    done = 0
    curve = []
    row = {"hand_size": n, "deck": TINY_WORDS, "curve": curve}
    for target in targets:
        if spent > max_seconds:
            break
        start = time.perf_counter()
        while done < target:
            solver.evaluate_and_update_policy()
            done += 1
        spent += time.perf_counter() - start
        e = exploitability.exploitability(game, solver.average_policy())
        curve.append({"iterations": done, "seconds": round(spent, 3), "exploitability": e})
        print(
            f"OpenSpiel CFR+, hand {n}: {done} iterations, {spent:.1f} s, exploitability {e:.3g}",
            file=sys.stderr,
            flush=True,
        )
        rows = {**stored, n: row}
        path.write_text(json.dumps({"rows": [rows[k] for k in sorted(rows)]}, indent=1))
    return row


def equilibrium_curve(n, max_iterations, repeats=5) -> dict:
    """Our solver (`tacocat.search.equilibrium`) on the same game: the endgame of a
    fresh deal (nothing face up, empty history), player 0 attacking, round
    utilities; tests/test_openspiel.py checks OpenSpiel's exploitability of
    its profile is ours.  Seconds count building the tree and the iterations,
    not the exploitability measurements (as for CFR+); the median of
    `repeats` runs."""
    from tacocat.openspiel.games import load_rules
    from tacocat.search.equilibrium import Endgame, build, exploitability_of

    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        eng = build(Endgame(load_rules(TINY), (), (), (), 0, (n, n)))
        spent = time.perf_counter() - start
        curve, target = [], 1
        while target <= max_iterations:
            start = time.perf_counter()
            eng.run(target - eng.iterations)
            spent += time.perf_counter() - start
            e, _ = exploitability_of(eng)  # deterministic: the same in every run
            curve.append({"iterations": target, "seconds": spent, "exploitability": e})
            target *= 2
        runs.append(curve)
    curve = [{**points[0], "seconds": statistics.median(p["seconds"] for p in points)} for points in zip(*runs)]
    for p in curve:
        print(
            f"ours, hand {n}: {p['iterations']} iterations, {p['seconds']:.4f} s (median of {repeats}), "
            f"exploitability {p['exploitability']:.3g}",
            file=sys.stderr,
            flush=True,
        )
    st = eng.stats()
    return {
        "hand_size": n,
        "deck": TINY_WORDS,
        "public_nodes": st["nodes"],
        "sequences": st["sequences"],
        "curve": curve,
    }


def cfr_report() -> list[str]:
    """The CFR section: OpenSpiel's CFR+ and our solver, same iterations and time to a target."""
    cfr_path, ours_path = HERE / "openspiel_cfr.json", HERE / "openspiel_equilibrium.json"
    if not cfr_path.exists():
        return []
    theirs = {r["hand_size"]: r for r in json.loads(cfr_path.read_text())["rows"]}
    ours = {r["hand_size"]: r for r in json.loads(ours_path.read_text())["rows"]} if ours_path.exists() else {}
    lines = [
        "",
        "## Exploitability on a tiny play phase: OpenSpiel CFR+ and our equilibrium solver",
        "",
        "`tacocat_play` with the deck ranks 1-4, two of each (8 cards), player 0 attacks first, round "
        "units; ours: `tacocat.search.equilibrium` on the same game (the endgame of a fresh deal). "
        "Exploitability = mean of the two best-response gains (OpenSpiel's `exploitability.exploitability`, "
        "ours `(b0 + b1) / 2`: the same number on the same profile, tests/test_openspiel.py). Seconds: "
        "solver time only, not the exploitability measurements (ours includes building its tree).",
        "",
        "Same iterations:",
        "",
        "| hand size | iterations | OpenSpiel s | OpenSpiel exploitability | ours s | ours exploitability |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for n in sorted(theirs):
        mine = {p["iterations"]: p for p in ours.get(n, {}).get("curve", [])}
        for p in theirs[n]["curve"]:
            q = mine.get(p["iterations"])
            lines.append(
                f"| {n} | {p['iterations']} | {p['seconds']:.3g} | {p['exploitability']:.3g} | "
                + (f"{q['seconds']:.2g} | {q['exploitability']:.3g} |" if q else "- | - |")
            )
    lines += [
        "",
        "Equal time: seconds to reach an exploitability (first stored point at or below it; our curve "
        "goes on to more iterations):",
        "",
        "| hand size | exploitability <= | OpenSpiel s (iterations) | ours s (iterations) | ratio |",
        "| --- | --- | --- | --- | --- |",
    ]

    def first(curve, x):
        return next((p for p in curve if p["exploitability"] <= x), None)

    for n in sorted(theirs):
        for x in (1e-1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-9):
            t, o = first(theirs[n]["curve"], x), first(ours.get(n, {}).get("curve", []), x)
            if t is None and o is None:
                continue
            ts = f"{t['seconds']:.3g} ({t['iterations']})" if t else "not reached"
            os_ = f"{o['seconds']:.2g} ({o['iterations']})" if o else "not reached"
            ratio = f"{t['seconds'] / o['seconds']:,.0f}x" if t and o else "-"
            lines.append(f"| {n} | {x:g} | {ts} | {os_} | {ratio} |")
    return lines


def odds_report() -> list[str]:
    """Time odds: our bot on a small budget against OpenSpiel's on a large
    one, with the think times each really took (their ratio is the odds)."""
    path = HERE / "openspiel_odds.json"
    if not path.exists():
        return []
    lines = [
        "",
        "## Time odds (`match --our-ms A --ms B`)",
        "",
        "Our bot's budget A a decision against OpenSpiel's B; the think times are what each side really took "
        "(medians over decisions with more than one legal action for OpenSpiel, every decision for ours), and "
        "the real odds are their ratio.",
        "",
        "| ours | budget | OpenSpiel | budget | deals | score | 95% interval | our think median / p99 s "
        "| OpenSpiel think median s | real odds (medians) | load at start | date |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in json.loads(path.read_text())["rows"]:
        odds = r["theirs_s_median"] / r["ours_s_median"] if r["ours_s_median"] else float("inf")
        lines.append(
            f"| {r['ours']} | {r['our_ms']:g} ms | {r['theirs']} | {r['ms']:g} ms | {r['deals']} | {r['score']:+.3f} | "
            f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] | {r['ours_s_median']:.4f} / {r['ours_s_p99']:.4f} | "
            f"{r['theirs_s_median']:.3f} | {odds:,.0f}:1 | {r['load'][0]} | {r['date']} |"
        )
    return lines


def cmd_report(args) -> None:
    lines = [
        "# Our bots against OpenSpiel's search, inside OpenSpiel",
        "",
        "Regenerate: `python results/openspiel.py match --ms 10 --deals 300`, "
        "`python results/openspiel.py match --ms 100 --deals 150`, `python results/openspiel.py cfr`, "
        "then `python results/openspiel.py report`. Method: see the script's docstring.",
        "",
        "Ran on a shared, loaded 2-core machine (other engineers' jobs running): wall-time budgets buy fewer "
        "iterations under load, and the OpenSpiel bots' simulation counts were calibrated under the load of "
        "the moment.",
        "",
        "## Duplicate matches, `tacocat_play`, 8 cards each",
        "",
        "Score = our bot's mean round result per deal in [-1, 1] (0 = equal), 95% interval over deals.",
        "",
        "| budget | ours | OpenSpiel | deals | score | 95% interval | OpenSpiel sims/decision (mean, median) "
        "| s/decision ours | s/decision OpenSpiel |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for ms in (10, 100):
        path = HERE / f"openspiel_{ms}ms.json"
        if not path.exists():
            continue
        for r in json.loads(path.read_text())["rows"]:
            lines.append(
                f"| {ms} ms | {r['ours']} | {r['theirs']} | {r['deals']} | {r['score']:+.3f} | "
                f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] | "
                f"{r['theirs_sims_mean']:.1f}, {r['theirs_sims_median']:.0f} "
                f"| {r['ours_s_per_decision']:.4f} | {r['theirs_s_per_decision']:.4f} |"
            )
    lines += odds_report()
    lines += cfr_report()
    extra = HERE / "openspiel_notes.md"
    if extra.exists():
        lines += ["", extra.read_text().strip()]
    (HERE / "openspiel.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("match", help="duplicate matches at one time budget")
    m.add_argument("--ms", type=float, default=10)
    m.add_argument("--deals", type=int, default=300)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument(
        "--our-ms",
        type=float,
        default=None,
        help="our bot's budget a decision (default: --ms, equal time); unequal budgets go to openspiel_odds.json",
    )
    m.add_argument("--jobs", type=int, default=1, help="processes, deals split between them (one a core)")
    m.add_argument(
        "--pair",
        action="append",
        help="ours:theirs, e.g. pimc:os_ismcts or heuristic:os_mcts (default: the four of the table); "
        "replaces that row of the budget's JSON file",
    )
    c = sub.add_parser("cfr", help="exploitability curves on a tiny play phase: OpenSpiel CFR+ and ours")
    c.add_argument("--hands", type=int, nargs="+", default=[2, 3])
    c.add_argument("--iterations", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 128])
    c.add_argument("--max-seconds", type=float, default=900, help="stop a hand size's curve after this much CFR time")
    c.add_argument(
        "--rerun-openspiel",
        action="store_true",
        help="rerun OpenSpiel's CFR+ even where results/openspiel_cfr.json has its curve (~20 min)",
    )
    c.add_argument("--our-max-iterations", type=int, default=4096, help="our curve: 1, 2, 4, ... up to this")
    sub.add_parser("report", help="write results/openspiel.md")
    args = ap.parse_args(argv)
    {"match": cmd_match, "cfr": cmd_cfr, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
