"""Record the reference games of `pimc_classic` (issue 24, deliverable 5).

`pimc_classic` must play exactly as `pimc` did at commit 36be87b.  This
script was run ONCE, before the search changed (the tree then differed from
36be87b in solver/search/ only by the replace-phase division-by-zero fix in
decisions.py, which concerns time budgets alone), with the then-current
`pimc` bot; it wrote tests/pimc_classic_reference.json: the action sequences
of seeded whole games under sample budgets (time budgets are not
reproducible).  tests/test_pimc_classic.py replays the same games with
`pimc_classic` and asks for the same actions, forever.

Do not regenerate it from a changed search: that would move the baseline.
`python tests/pimc_classic_reference.py --bot pimc_classic --check` compares
instead of writing."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rulesets import ONE_ARROW, SMALL

from tacocat.players.bots import make_bot, play_game
from tacocat.rules.ruleset import STANDARD, Ruleset

OUT = Path(__file__).with_name("pimc_classic_reference.json")

CASES = [
    # (name, rules or None for standard, budget, game seeds)
    ("level3", None, {"samples": 1, "replace_samples": 8, "duel_samples": 2, "candidates": 4}, [0, 1, 2, 3]),
    ("level5", None, {"samples": 25, "replace_samples": 80, "duel_samples": 12, "candidates": 12}, [10, 11]),
    (
        "exact-small",
        SMALL,
        {"samples": 12, "replace_samples": 40, "duel_samples": 8, "candidates": 8, "exact_budget": 300},
        [20, 21, 22],
    ),
    ("one-arrow", ONE_ARROW, {"samples": 8, "replace_samples": 24, "duel_samples": 6, "candidates": 6}, [30, 31]),
]


def play(bot_name: str) -> list[dict]:
    out = []
    for name, rules, budget, seeds in CASES:
        rs = STANDARD if rules is None else Ruleset.from_dict(rules)
        for seed in seeds:
            bots = (make_bot(bot_name, seed=seed, **budget), make_bot(bot_name, seed=seed + 1000, **budget))
            state = play_game(bots, seed, rs)
            out.append(
                {
                    "case": name,
                    "rules": rules,
                    "budget": budget,
                    "seed": seed,
                    "actions": [dict(a) for a in state.actions],
                    "winner": state.winner,
                }
            )
    return out


def main(argv=None, out: Path = OUT, tree: str = "36be87b + 1d07910 (replace-phase time fix only)", doc=None) -> int:
    """Write (or with --check, compare) the reference games of `out`, recorded from the tree `tree`."""
    ap = argparse.ArgumentParser(description=(doc or __doc__).splitlines()[0])
    ap.add_argument("--bot", default="pimc")
    ap.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    args = ap.parse_args(argv)
    games = play(args.bot)
    if args.check:
        ref = json.loads(out.read_text())["games"]
        bad = [g["case"] + f"/{g['seed']}" for g, r in zip(games, ref) if g["actions"] != r["actions"]]
        print("differ:", bad or "none")
        return 1 if bad else 0
    made = {"made_by": f"tests/{Path(sys.argv[0]).name}", "bot": args.bot, "tree": tree, "games": games}
    out.write_text(json.dumps(made, separators=(",", ":")) + "\n")
    print(f"wrote {out} ({len(games)} games, {sum(len(g['actions']) for g in games)} actions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
