"""The search options the commands share (`--time`, `--iterations`,
`--seed`, `--method`, `--score`, `--round-search`, `--clock`): each defined once here (its flag, type
and default), each command naming the ones it takes with the help text
that says what they mean there (a hint's seed seeds its sampling, an
arena's its deals)."""

from __future__ import annotations

from typing import Any, Callable

import click

from tacocat.cli.option_table import F, OptionTable, helped_options
from tacocat.cli.terminal import METHODS

SEARCH_OPTIONS: OptionTable = {
    "time": (("--time", "time_ms"), {"type": click.IntRange(1), "default": None}),
    "iterations": (("--iterations",), {"type": click.IntRange(1), "default": None}),
    "seed": (("--seed",), {"type": int, "default": 0, "show_default": True}),
    "method": (("--method",), {"type": click.Choice(METHODS), "default": "auto", "show_default": True}),
    "score": (("--score",), {"type": click.Choice(["game", "round"]), "default": "game", "show_default": True}),
    "round_search": (("--round-search",), {"is_flag": True, "default": False}),
    "clock": (("--clock",), {"type": click.Choice(["cpu", "wall"]), "default": "cpu", "show_default": True}),
}
"""Option name -> (click's flag declarations, its settings): the parameter
each passes to the command is `time_ms`, `iterations`, `seed`, `method`,
`score`, `round_search`, `clock`."""

CLOCK_HELP = (
    "What --time counts: cpu, the searching thread's own CPU time (the same work on an idle or a "
    "loaded machine, not the same moves), or wall, elapsed time (what a person waits)."
)
"""The help of `--clock` (a command adds what its default means there)."""


def search_options(**helps: str | dict[str, Any]) -> Callable[[F], F]:
    """Add the named search options to a click command, in the order given:
    `@search_options(time="Search time in milliseconds.", seed="...")`.  A
    value is the option's help, or a dict of click settings that replace
    the shared ones (it must hold `help`), e.g. a seed whose default is
    None."""
    return helped_options(SEARCH_OPTIONS, "search_options", helps)
