"""Per-space round win / draw / loss rates between equal players, by
self-play, and the game values that follow from them.

    python results/round_rates.py                 # ~1000 rounds per kind of space
    python results/round_rates.py --rounds 200    # quicker, wider intervals
    python results/round_rates.py --cluster ray --workers 8   # on Ray (same numbers)

Writes `solver/data/round_rates.json` (read by `tacocat.search.gamevalue`),
`solver/data/game_values.json` (player 0's game-win probability of every
reachable board) and `results/round_rates.md`.

A round depends on the space only through its hand size (R2) and its arrow
(R3), and the standard board is mirror-symmetric, so four kinds of round are
played: the centre (two arrows, R8) and the 9-, 6- and 4-card spaces (one
arrow, R7).  Both seats are the same bot (`--bot`, default a PIMC bot with a
small budget), so the only asymmetry measured is the arrow's: the first
replacer's win / draw / loss rates.  Each round is dealt from its own seed."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import sys
import time
from pathlib import Path

from tacocat.players.bots import choose
from tacocat.players.cluster import Cluster, run_tasks
from tacocat.players.match import _make, parse_bot
from tacocat.rules.board import Board
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.search.gamevalue import RATES_FILE, VALUES_FILE, game_win_table, write_values

OUT = Path(__file__).resolve().parent / "round_rates.md"
KINDS = {"centre": 3, "9 cards": 2, "6 cards": 1, "4 cards": 0}
"""Kind -> a space of that kind on the player-0 side (arrow p1 there)."""
DEFAULT_BOT = "pimc@samples=30,replace_samples=160,duel_samples=16,candidates=16"

_bots = {}


def play_round(args) -> tuple[str, int | None, str]:
    kind, i, seed, bot = args
    if bot not in _bots:
        _bots.clear()
        _bots[bot] = (_make(bot, {}, "game"), _make(bot, {}, "game"))
    bots = _bots[bot]
    space = KINDS[kind]
    deal_seed = int(random.Random(f"rates/{seed}/{kind}/{i}").getrandbits(48))
    state = GameState.new(STANDARD, deal_seed, Board(cat=space))
    rngs = [random.Random(f"{deal_seed}/bot{p}") for p in (0, 1)]
    while not state.rounds:
        for player in state.acting_players():
            state.apply(player, choose(bots[player], state, player, rngs[player]))
    return kind, state.rounds[0]["winner"], state.first_replacer if state.rounds else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1000, help="rounds per kind of space")
    ap.add_argument("--seed", type=int, default=0)
    Cluster.add_arguments(ap)
    ap.add_argument("--bot", default=DEFAULT_BOT, help=f"the bot in both seats (default {DEFAULT_BOT})")
    args = ap.parse_args()
    parse_bot(args.bot)
    backend = Cluster.from_arguments(args)
    jobs = [(k, i, args.seed, args.bot) for k in KINDS for i in range(args.rounds)]
    t0 = time.time()
    tally = {k: [0, 0, 0] for k in KINDS}  # arrow player's (centre: player 0's) win, draw, loss
    # every round has its own seed, and a tally does not depend on the order of its rounds
    with contextlib.closing(run_tasks(play_round, jobs, backend)) as results:
        for n, (_, (kind, winner, _)) in enumerate(results):
            _count(tally, kind, winner)
            if n % 200 == 0:
                print(f"{n}/{len(jobs)} rounds, {time.time() - t0:.0f} s", file=sys.stderr)
    seconds = time.time() - t0

    rates = {k: tuple(x / sum(v) for x in v) for k, v in tally.items()}
    # the centre is symmetric: average the two players' win rates
    w, d, l = rates["centre"]
    rates["centre"] = ((w + l) / 2, d, (w + l) / 2)
    spaces = []
    for space in range(7):
        kind = {3: "centre", 2: "9 cards", 4: "9 cards", 1: "6 cards", 5: "6 cards", 0: "4 cards", 6: "4 cards"}[space]
        fw, fd, fl = rates[kind]  # first replacer's (arrow player's) rates
        arrow = STANDARD.arrows[space]
        if arrow == "p0":
            win0, win1 = fw, fl
        elif arrow == "p1":
            win0, win1 = fl, fw
        else:
            win0, win1 = fw, fl
        spaces.append(
            {
                "space": space,
                "hand_size": STANDARD.board[space],
                "arrow": arrow,
                "win0": round(win0, 4),
                "draw": round(fd, 4),
                "win1": round(win1, 4),
            }
        )
    doc = {
        "about": "player 0's round win / draw / loss rate on each space between equal bots (results/round_rates.py)",
        "ruleset": "standard",
        "bot": args.bot,
        "rounds_per_kind": args.rounds,
        "seed": args.seed,
        "spaces": spaces,
    }
    RATES_FILE.parent.mkdir(parents=True, exist_ok=True)
    RATES_FILE.write_text(json.dumps(doc, indent=1) + "\n")
    from tacocat.search import gamevalue

    gamevalue._measured_rates.cache_clear()
    gamevalue._table.cache_clear()
    write_values()
    table = game_win_table()

    lines = [
        "# Round rates by space and the game values they imply",
        "",
        f"Regenerate: `python results/round_rates.py --rounds {args.rounds} --seed {args.seed} --bot '{args.bot}'`"
        f" ({seconds:.0f} s here on {backend.describe()}, on a shared 2-core machine).",
        "",
        f"Both seats: `{args.bot}`. {args.rounds} rounds per kind of space; ±: 95% interval half-width.",
        "",
        "| kind | hand size | arrow | first replacer wins | drawn | first replacer loses |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for kind, space in KINDS.items():
        n = sum(tally[kind])
        w, d, l = (x / n for x in tally[kind])
        h = lambda p: 1.96 * math.sqrt(p * (1 - p) / n)  # noqa: E731
        arrow = "both (R8; player 0's rates)" if kind == "centre" else "one (R7)"
        lines.append(
            f"| {kind} | {STANDARD.board[space]} | {arrow} | "
            f"{w:.3f} ± {h(w):.3f} | {d:.3f} ± {h(d):.3f} | {l:.3f} ± {h(l):.3f} |"
        )
    lines += [
        "",
        "Game-win probability of player 0 between equal players (`solver/data/game_values.json`),",
        "boards reachable from the start, by cat position and covered spaces:",
        "",
        "| cat | covered | P(player 0 wins the game) |",
        "| --- | --- | --- |",
    ]
    for b, g in sorted(table.items(), key=lambda kv: (len(kv[0].covered), kv[0].cat, sorted(kv[0].covered))):
        lines.append(f"| {b.cat} | {' '.join(map(str, sorted(b.covered))) or '-'} | {g:.3f} |")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {RATES_FILE}, {VALUES_FILE}, {OUT}", file=sys.stderr)


def _count(tally, kind, winner):
    space = KINDS[kind]
    arrow = STANDARD.arrows[space]
    first = 1 if arrow == "p1" else 0  # centre: player 0
    if winner is None:
        tally[kind][1] += 1
    elif winner == first:
        tally[kind][0] += 1
    else:
        tally[kind][2] += 1


if __name__ == "__main__":
    main()
