"""What a GameState copy costs beside an action (issue 32: one game, cheap to clone).

`GameState.clone` copies every list field and shares the immutable items
(hands are tuples, events frozen, the board and the ruleset immutable)
instead of deep-copying, which is what let OpenSpiel's state drop its own
`_FastGameState`.  This measures, on positions from seeded random games
(every phase, early and late), the median time of `clone()`, of the deep
copy it replaced (`copy.deepcopy` of the fields, timed in the same run),
and of `apply` of a legal action on a clone: the ratio clone / apply says
whether copying a state is still a cost worth naming beside playing on it.

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
"""
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
