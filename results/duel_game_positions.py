"""The duel as a Bayesian game (tacocat.search.duel_game) against today's
matrix game (duel_eval) on seeded duel positions of the standard rules:
games from GameState.new(seed) played forward by seeded random legal moves
to a duel no one has chosen yet (seeds from 100 on).  Per position: both
searches on 200 sampled opponent hands (seed 1), the game's types, time,
iterations and exploitability, both mixes, their total variation distance,
and the value of duel_eval's mix against the game's average opponent;
then duel_game under 20 and 100 ms of CPU time.

    python results/duel_game_positions.py [positions]"""

from __future__ import annotations

import random
import statistics
import sys

from tacocat.rules.game import DUEL, GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.search.budget import CPU, Budget
from tacocat.search.decisions import duel_eval
from tacocat.search.duel_game import duel_game
from tacocat.search.pimc import PerfectSolver


def duel_views(count: int, first_seed: int = 100) -> list:
    out, seed = [], first_seed
    while len(out) < count:
        rng = random.Random(seed)
        state = GameState.new(STANDARD, seed)
        while not state.over:
            players = state.acting_players()
            if state.view(players[0]).decision == DUEL and len(players) == 2:
                out.append(state.view(rng.choice(players)))
                break
            p = rng.choice(players)
            state.apply(p, rng.choice(state.legal_actions(p)))
        seed += 1
    return out


def mix(r) -> dict[int, float]:
    return {m.card: m.probability for m in r.mixed}


def fmt(m: dict[int, float]) -> str:
    return " ".join(f"{c}:{p:.2f}" for c, p in sorted(m.items()) if p >= 0.005)


def main(count: int) -> None:
    rows = []
    for k, view in enumerate(duel_views(count)):
        solver = PerfectSolver()
        e = duel_eval(view, Budget(samples=200, seed=1), exact_budget=-1, solver=solver)
        g = duel_game(view, Budget(samples=200, seed=1), exact_budget=-1, solver=solver)
        me, mg = mix(e), mix(g)
        tv = 0.5 * sum(abs(me[c] - mg[c]) for c in me)
        val = {m.action.cards[0]: m.value for m in g.moves}  # each card against the game's average opponent
        v_eval = sum(me[c] * val[c] for c in me)
        print(f"pos {k} hand {view.hand}")
        print(f"  duel_eval  200 worlds {1000 * e.seconds:6.0f} ms  value {e.game_value:+.3f}  mix {fmt(me)}")
        print(
            f"  duel_game  {g.my_types} x {g.opponent_types} types, {g.pairs} pairs, {g.iterations} it, "
            f"{1000 * g.seconds:6.0f} ms, exploitability {g.exploitability:.1e}, real hand's gain {g.real_gain:.1e}"
        )
        print(
            f"             value {g.game_value:+.3f}  mix {fmt(mg)}  TV {tv:.2f}  "
            f"duel_eval's mix against the game's opponent {v_eval:+.3f} ({v_eval - g.game_value:+.3f})"
        )
        for ms in (20, 100):
            t = duel_game(view, Budget(time_ms=ms, seed=1, clock=CPU), exact_budget=-1, solver=solver)
            print(
                f"  duel_game {ms:3d} ms cpu: {t.my_types} x {t.opponent_types} types, {t.iterations} it, "
                f"{1000 * t.seconds:.1f} ms, exploitability {t.exploitability:.1e}, mix {fmt(mix(t))}"
            )
        rows.append((tv, v_eval - g.game_value, g.seconds, e.seconds, g.exploitability))
    print(
        f"median TV {statistics.median(r[0] for r in rows):.2f}; duel_eval's mix loses "
        f"{-statistics.mean(r[1] for r in rows):.3f} on average against the game's opponent; median time "
        f"duel_game {1000 * statistics.median(r[2] for r in rows):.0f} ms, duel_eval "
        f"{1000 * statistics.median(r[3] for r in rows):.0f} ms; largest exploitability {max(r[4] for r in rows):.1e}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
