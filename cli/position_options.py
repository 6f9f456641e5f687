"""The flags that describe a position, shared by `tacocat hint` and `tacocat
solve` (`--hand`, `--seen`, `--history`, `--opponent`, `--table`,
`--attacker`, `--player`, `--board`): each defined once here (its flag,
parameter and type), each command naming the ones it takes with the help
that says what they mean there (solve's are read by its endgame mode)."""

from __future__ import annotations

from typing import Any, Callable

import click

from tacocat.cli.option_table import F, OptionTable, helped_options

POSITION_OPTIONS: OptionTable = {
    "hand": (("--hand",), {"default": None}),
    "seen": (("--seen",), {"default": None}),
    "history": (("--history",), {"default": None}),
    "opponent": (("--opponent",), {"type": int, "default": None}),
    "table": (("--table",), {"default": ""}),
    "attacker": (("--attacker",), {"type": click.IntRange(0, 1), "default": None}),
    "player": (("--player",), {"type": click.IntRange(0, 1), "default": None}),
    "board": (("--board", "board_text"), {"default": None}),
}
"""Option name -> (click's flag declarations, its settings): the parameter
each passes to the command is its name, but `--board`'s is `board_text`."""


def position_options(**helps: str | dict[str, Any]) -> Callable[[F], F]:
    """Add the named position options to a click command, in the order
    given: `@position_options(hand="Your cards now.", player={"default": 0,
    "show_default": True, "help": "..."})`, as `search_options` does."""
    return helped_options(POSITION_OPTIONS, "position_options", helps)
