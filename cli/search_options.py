"""The search options the commands share (`--time`, `--iterations`,
`--seed`, `--method`, `--score`): each defined once here (its flag, type
and default), each command naming the ones it takes with the help text
that says what they mean there (a hint's seed seeds its sampling, an
arena's its deals)."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import click

from tacocat.cli.terminal import METHODS

F = TypeVar("F", bound=Callable[..., Any])

SEARCH_OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "time": (("--time", "time_ms"), {"type": click.IntRange(1), "default": None}),
    "iterations": (("--iterations",), {"type": click.IntRange(1), "default": None}),
    "seed": (("--seed",), {"type": int, "default": 0, "show_default": True}),
    "method": (("--method",), {"type": click.Choice(METHODS), "default": "auto", "show_default": True}),
    "score": (("--score",), {"type": click.Choice(["game", "round"]), "default": "game", "show_default": True}),
}
"""Option name -> (click's flag declarations, its settings): the parameter
each passes to the command is `time_ms`, `iterations`, `seed`, `method`, `score`."""


def search_options(**helps: str | dict[str, Any]) -> Callable[[F], F]:
    """Add the named search options to a click command, in the order given:
    `@search_options(time="Search time in milliseconds.", seed="...")`.  A
    value is the option's help, or a dict of click settings that replace
    the shared ones (it must hold `help`), e.g. a seed whose default is
    None."""
    unknown = sorted(set(helps) - set(SEARCH_OPTIONS))
    if unknown:
        raise TypeError(f"search_options: unknown option(s) {unknown}; known: {', '.join(SEARCH_OPTIONS)}")

    def decorate(func: F) -> F:
        # click lists options in the order their decorators are written, so
        # they are applied here last first
        for name, given in reversed(list(helps.items())):
            flags, settings = SEARCH_OPTIONS[name]
            extra = {"help": given} if isinstance(given, str) else dict(given)
            if "help" not in extra:
                raise TypeError(f"search_options: option {name} needs its help text")
            func = click.option(*flags, **{**settings, **extra})(func)
        return func

    return decorate
