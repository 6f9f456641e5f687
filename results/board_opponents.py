"""The web board's opponent list, ordered by measured strength: read from
the ladder (results/ladder.md, the "100 ms a decision (CPU)" table: every
bot against `pimc_classic` at equal CPU time, luck-adjusted Elo with its
95% interval) and written where the server serves it,
solver/protocol/web/opponents.json (the board reads /web/opponents.json).

    python results/board_opponents.py

The board offers the levels 1-5 and the bots that choose from a seat's
view; the oracle (it sees the other hand) is never offered, and a bot the
ladder does not list is offered after these, as not measured.  The board
plays the timed bots at the ladder's budget, 100 ms a move, so each number
is the one measured for the opponent offered (on the server's wall clock,
not CPU: on a loaded server a timed bot has less).
tests/test_web_board.py checks that the shipped file is this script's
output for the current ladder."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LADDER = ROOT / "results" / "ladder.md"
OUT = ROOT / "solver" / "protocol" / "web" / "opponents.json"
BUDGET_MS = 100
SECTION = f"## {BUDGET_MS} ms a decision (CPU)"
ELO = re.compile(r"^([+-]?\d+|[+-]?inf) \[([+-]?\d+|[+-]?inf), ([+-]?\d+|[+-]?inf)\]$")


def _number(text: str) -> float | None:
    return None if "inf" in text else float(text)


def opponent_value(contestant: str, bot: str) -> str | None:
    """The board's value for a ladder row ("level:3", "bot:pimc:100"), or
    None for a row the board does not offer (the oracle)."""
    level = re.search(r"level (\d)", contestant)
    if level:
        return f"level:{level.group(1)}"
    name = bot.strip("`").split("@", 1)[0]
    if name == "oracle":
        return None
    return f"bot:{name}:{BUDGET_MS}"


def read_ladder(text: str) -> list[dict]:
    """The rows of the ladder's table at BUDGET_MS, as the board's entries."""
    if SECTION not in text:
        raise SystemExit(f"error: results/ladder.md has no section {SECTION!r}")
    table = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    col = {name: i for i, name in enumerate(head)}
    out = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        value = opponent_value(cells[col["contestant"]], cells[col["bot"]])
        if value is None:
            continue
        m = ELO.match(cells[col["Elo (adjusted)"]])
        if not m:
            raise SystemExit(f"error: results/ladder.md: an Elo cell reads {cells[col['Elo (adjusted)']]!r}")
        out.append(
            {
                "value": value,
                "elo": _number(m.group(1)),
                "elo_ci95": [_number(m.group(2)), _number(m.group(3))],
                "deals": int(cells[col["deals"]]),
            }
        )
    # The reference itself: Elo 0 by the ladder's construction.
    out.append({"value": f"bot:pimc_classic:{BUDGET_MS}", "elo": 0.0, "elo_ci95": [0.0, 0.0], "deals": None})
    out.sort(key=lambda e: e["elo"])
    return out


def document(text: str) -> dict:
    return {
        "source": f"results/ladder.md, {BUDGET_MS} ms a decision (CPU)",
        "reference": "pimc_classic at the same budget (Elo 0)",
        "budget_ms": BUDGET_MS,
        "opponents": read_ladder(text),
    }


def render(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def main() -> None:
    OUT.write_text(render(document(LADDER.read_text())))
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
