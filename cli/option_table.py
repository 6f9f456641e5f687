"""Click options kept in a table (flag declarations and the settings the
commands share), each command naming the ones it takes: the machinery
behind `search_options` and `door_options`."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

OptionTable = dict[str, tuple[tuple[str, ...], dict[str, Any]]]
"""Option name -> (click's flag declarations, its shared settings)."""


def table_options(table: OptionTable, who: str, settings: dict[str, dict[str, Any]]) -> Callable[[F], F]:
    """A decorator adding the options named in `settings` from `table`, in
    the order given, each with the shared settings replaced by its own;
    `who` names the caller in the error for an unknown name."""
    unknown = sorted(set(settings) - set(table))
    if unknown:
        raise TypeError(f"{who}: unknown option(s) {unknown}; known: {', '.join(table)}")

    def decorate(func: F) -> F:
        # click lists options in the order their decorators are written, so
        # they are applied here last first
        for name, given in reversed(list(settings.items())):
            flags, shared = table[name]
            func = click.option(*flags, **{**shared, **given})(func)
        return func

    return decorate


def helped_options(table: OptionTable, who: str, helps: dict[str, str | dict[str, Any]]) -> Callable[[F], F]:
    """`table_options` where each command says what an option means to it:
    a value is the option's help, or a dict of click settings that replace
    the shared ones and hold `help` (e.g. a default of the command's own)."""
    settings = {name: {"help": given} if isinstance(given, str) else dict(given) for name, given in helps.items()}
    for name, given in settings.items():
        if "help" not in given:
            raise TypeError(f"{who}: option {name} needs its help text")
    return table_options(table, who, settings)


def file_option(flag: str, name: str, help: str) -> Callable[[F], F]:
    """An option naming one file (never a folder), passed as `name`, None when not given."""
    return click.option(flag, name, type=click.Path(dir_okay=False), default=None, help=help)


def ranged_option(
    flag: str, bounds: click.IntRange | click.FloatRange, default: float, help: str, **more: Any
) -> Callable[[F], F]:
    """A number option held within `bounds` (a count, a size, a limit), its
    default shown in --help, as every such option of the commands shows it."""
    return click.option(flag, type=bounds, default=default, show_default=True, help=help, **more)
