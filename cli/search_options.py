"""The search options the commands share (`--time`, `--iterations`,
`--seed`, `--method`, `--score`, `--round-search`, `--clock`): each defined once here (its flag, type
and default), each command naming the ones it takes with the help text
that says what they mean there (a hint's seed seeds its sampling, an
arena's its deals)."""

from __future__ import annotations

from typing import Any, Callable

import click

from tacocat.cli.option_table import F, OptionTable, helped_options
from tacocat.errors import TacocatError, shorten
from tacocat.search.options import OPTIONS


class _Whole(click.IntRange):
    """A whole-number flag with the bounds of a declared option (whole
    milliseconds for a time); out of bounds, the option's own one-line
    message, the value shortened (a 400-digit `--time` is not echoed whole)."""

    def __init__(self, name: str) -> None:
        opt = OPTIONS[name]
        low = None if opt.minimum is None else int(opt.minimum) + (1 if opt.above else 0)
        super().__init__(low, None if opt.maximum is None else int(opt.maximum))
        self.option = opt

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            try:
                self.option.check(int(value))
            except (TacocatError, ValueError) as exc:
                self.fail(str(exc) if isinstance(exc, TacocatError) else f"{shorten(value)} is not a whole number")
            raise


def _whole(name: str) -> click.IntRange:
    return _Whole(name)


def _choice(name: str) -> click.Choice:
    choices = OPTIONS[name].choices
    assert choices is not None  # a choice option
    return click.Choice(choices)


SEARCH_OPTIONS: OptionTable = {
    "time": (("--time", "time_ms"), {"type": _whole("time_ms"), "default": None}),
    "iterations": (("--iterations",), {"type": _whole("iterations"), "default": None}),
    "seed": (("--seed",), {"type": int, "default": OPTIONS["seed"].default, "show_default": True}),
    "method": (("--method",), {"type": _choice("method"), "default": OPTIONS["method"].default, "show_default": True}),
    "score": (("--score",), {"type": _choice("utilities"), "default": "game", "show_default": True}),
    "round_search": (("--round-search",), {"is_flag": True, "default": False}),
    "duel": (("--duel",), {"type": _choice("duel"), "default": OPTIONS["duel"].default, "show_default": True}),
    "replace": (
        ("--replace",),
        {"type": _choice("replace"), "default": OPTIONS["replace"].default, "show_default": True},
    ),
    "clock": (("--clock",), {"type": click.Choice(["cpu", "wall"]), "default": "cpu", "show_default": True}),
}
"""Option name -> (click's flag declarations, its settings): the parameter
each passes to the command is `time_ms`, `iterations`, `seed`, `method`,
`score`, `round_search`, `duel`, `replace`, `clock`.  Types, bounds and choices are the
declared options' (`tacocat.search.options.OPTIONS`: `--score` is
`utilities`); `--clock` lists cpu first, a match's default (a command that
plays for a person, `play`, defaults it to wall)."""

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
