"""What a GameState copy costs beside an action (issue 32: one game, cheap to clone).

`GameState.clone` copies every list field and shares the immutable items
(hands are tuples, events frozen, the board and the ruleset immutable)
instead of deep-copying, which is what let OpenSpiel's state drop its own
`_FastGameState`.  This measures, on positions from seeded random games
(every phase, early and late), the median time of `clone()`, of the deep
copy it replaced (`copy.deepcopy` of the fields, timed in the same run),
and of `apply` of a legal action on a clone: the ratio clone / apply says
whether copying a state is still a cost worth naming beside playing on it.

With OpenSpiel installed it also times `tacocat_play`'s state, which
OpenSpiel's searches clone at every step: the state built on `GameState`
against the one it replaced (kept frozen in tests/frozen_play_state.py),
at the same decision nodes in the same run — `clone()` (OpenSpiel's deep
copy of the state's attributes) and `apply_action` on a clone.

    python results/clone_cost.py            # writes results/clone_cost.md
"""

from __future__ import annotations

import copy
import os
import random
import statistics
import sys
import time
from pathlib import Path

from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import source_commit  # noqa: E402

PLAY_DEALS = 20
PLAY_HANDS = (5, 8, 12)

OUT = Path(__file__).resolve().parent / "clone_cost.md"
GAMES = 20
REPEAT = 200


def positions() -> list[GameState]:
    """Every 5th state of GAMES seeded random games."""
    out = []
    for seed in range(GAMES):
        state, rng, step = GameState.new(STANDARD, seed), random.Random(seed), 0
        while not state.over:
            for p in state.acting_players():
                state.apply(p, rng.choice(state.legal_actions(p)))
            step += 1
            if step % 5 == 0:
                out.append(state.clone())
    return out


def deep(state: GameState) -> GameState:
    """The copy `clone` made before: a deep copy of every field."""
    twin = object.__new__(GameState)
    twin.__dict__.update(copy.deepcopy(vars(state)))
    return twin


def per_call(fn, arg) -> float:
    t0 = time.perf_counter()
    for _ in range(REPEAT):
        fn(arg)
    return (time.perf_counter() - t0) / REPEAT


def play_nodes():
    """Pairs (on GameState, frozen) at every decision node of PLAY_DEALS
    seeded random deals of `tacocat_play` per hand size in PLAY_HANDS."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from frozen_play_state import FrozenPlayGame

    from tacocat.openspiel.games import TacocatPlayGame

    out = []
    for n in PLAY_HANDS:
        new_game, old_game = TacocatPlayGame({"hand_size": n}), FrozenPlayGame({"hand_size": n})
        for seed in range(PLAY_DEALS):
            rng = random.Random(f"{n}/{seed}")
            new, old = new_game.new_initial_state(), old_game.new_initial_state()
            while not new.is_terminal():
                if new.is_chance_node():
                    outcomes, probs = zip(*new.chance_outcomes())
                    a = rng.choices(outcomes, probs)[0]
                else:
                    a = rng.choice(new.legal_actions())
                    out.append((new.clone(), old.clone(), a))
                new.apply_action(a)
                old.apply_action(a)
    return out


def play_apply(state, action: int) -> float:
    copies = [state.clone() for _ in range(REPEAT)]
    t0 = time.perf_counter()
    for c in copies:
        c.apply_action(action)
    return (time.perf_counter() - t0) / REPEAT


def play_table() -> str:
    """`tacocat_play`'s state on GameState against the frozen one: the
    markdown section, or a line saying OpenSpiel is not installed."""
    try:
        import pyspiel  # noqa: F401

        import tacocat.openspiel  # noqa: F401
    except ImportError:
        return "\n(OpenSpiel not installed: the `tacocat_play` state was not timed.)\n"
    nodes = play_nodes()
    times: dict[str, list[float]] = {k: [] for k in ("clone new", "clone old", "apply new", "apply old")}
    for new, old, a in nodes:
        times["clone new"].append(per_call(type(new).clone, new))
        times["clone old"].append(per_call(type(old).clone, old))
        times["apply new"].append(play_apply(new, a))
        times["apply old"].append(play_apply(old, a))
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    step = {
        age: [c + a for c, a in zip(times[f"clone {age}"], times[f"apply {age}"], strict=True)]
        for age in ("new", "old")
    }

    def row(op: str) -> str:
        return f"{med[op + ' new']:.1f} | {med[op + ' old']:.1f} | {med[op + ' new'] / med[op + ' old']:.2f}"

    step_ratio = statistics.median(n / o for n, o in zip(step["new"], step["old"], strict=True))
    return f"""
## OpenSpiel's `tacocat_play` state: on GameState against before

{len(nodes)} decision nodes, every one of {PLAY_DEALS} seeded random deals of {", ".join(map(str, PLAY_HANDS))} cards
each (standard deck); the state that holds the round as a `GameState` and the state it replaced (its own
hands, table and attacker; frozen in tests/frozen_play_state.py) at the same nodes, each timed over
{REPEAT} calls, in the same run.

| operation | on GameState µs | before µs | ratio |
| --- | ---: | ---: | ---: |
| `clone()` (OpenSpiel deep-copies the attributes) | {row("clone")} |
| `apply_action` of a legal action | {row("apply")} |

A search step (clone, then apply) costs {step_ratio:.2f}x what it did (median over the nodes of the
per-node ratio).
"""


def main() -> None:
    states = [s for s in positions() if not s.over]
    rng = random.Random(0)
    clone_s, deep_s, apply_s = [], [], []
    for s in states:
        p = s.acting_players()[0]
        action = rng.choice(s.legal_actions(p))
        clone_s.append(per_call(GameState.clone, s))
        deep_s.append(per_call(deep, s))
        copies = [s.clone() for _ in range(REPEAT)]
        t0 = time.perf_counter()
        for c in copies:
            c.apply(p, action)
        apply_s.append((time.perf_counter() - t0) / REPEAT)
    med = {k: statistics.median(v) * 1e6 for k, v in (("clone", clone_s), ("deep", deep_s), ("apply", apply_s))}
    ratios = [c / a for c, a in zip(clone_s, apply_s, strict=True)]
    load = os.getloadavg()[0]
    text = f"""# GameState: clone against apply

Regenerate: `python results/clone_cost.py` (package {source_commit()}, load average {load:.1f} at the end;
{len(states)} positions, every 5th state of {GAMES} seeded random games, each timed over {REPEAT} calls;
medians over the positions, microseconds a call, all in the same run).

| operation | median µs |
| --- | ---: |
| `clone()` (lists copied, their never-changed items shared) | {med["clone"]:.1f} |
| deep copy of the fields (what `clone` was) | {med["deep"]:.1f} |
| `apply` of a legal action | {med["apply"]:.1f} |

Median of clone / apply a position: {statistics.median(ratios):.2f} (max {max(ratios):.2f});
the deep copy cost {med["deep"] / med["clone"]:.0f}x a clone.
{play_table()}"""
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
