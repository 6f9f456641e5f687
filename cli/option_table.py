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


def file_option(flag: str, name: str, help: str) -> Callable[[F], F]:
    """An option naming one file (never a folder), passed as `name`, None when not given."""
    return click.option(flag, name, type=click.Path(dir_okay=False), default=None, help=help)
