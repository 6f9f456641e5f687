"""The options the engine's two doors share (`tacocat engine` on
stdin/stdout, `tacocat serve` over HTTP): the session's ruleset and caps,
each defined once here (its flag, type and the help the doors agree on),
each door naming the ones it takes with its own defaults and its word
for 'busy'.  Also the startup both doors do the same way."""

from __future__ import annotations

import logging
import math
import sys
from typing import Any, Callable, TypedDict

import click

from tacocat.cli.option_table import F, OptionTable, table_options
from tacocat.protocol.commands import MAX_GAMES, MAX_SEARCHES, MAX_TIME_MS

CAP_HELP = "Cap on any search's time: time_ms is cut to it and a search still running then is stopped."

DOOR_OPTIONS: OptionTable = {
    "rules": (
        ("--rules", "rules_path"),
        {"default": None, "help": "Ruleset file (.json or .toml) for the session; standard by default."},
    ),
    "max_time_ms": (("--max-time-ms",), {"type": click.IntRange(1, MAX_TIME_MS), "help": CAP_HELP}),
    "max_searches": (
        ("--max-searches",),
        {
            "type": click.IntRange(1, MAX_SEARCHES),
            "show_default": True,
            "help": "Searches running at once; later ones wait their turn (--max-queue).",
        },
    ),
    "max_queue": (
        ("--max-queue",),
        {
            "type": click.IntRange(0, MAX_SEARCHES),
            "show_default": True,
            "help": "Searches that wait, in order, behind the running ones; more answer {busy}.",
        },
    ),
    "max_games": (
        ("--max-games",),
        {
            "type": click.IntRange(1, MAX_GAMES),
            "default": 1000,
            "show_default": True,
            "help": "Games kept open; then the oldest finished one is forgotten, or new_game answers {busy}.",
        },
    ),
}
"""Option name -> (click's flag declarations, its shared settings); a help
naming `{busy}` takes the door's word for a refusal when full.  Every cap's
parameter is the `EngineSession` keyword of the same name."""


class FiniteFloatRange(click.FloatRange):
    """A FloatRange that also refuses nan (it compares false with both
    bounds, so click's range lets it through, and then hello's limits
    cannot be written as JSON: every hello answered `internal`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number; expected {self._describe_range()}", param, ctx)
        return number


class SessionCaps(TypedDict):
    """The caps a door's command receives from its options, by their
    `EngineSession` keyword names, so that it passes them on as `**caps`."""

    max_time_ms: int | None
    max_searches: int
    max_queue: int
    max_games: int


def door_options(**settings: dict[str, Any]) -> Callable[[F], F]:
    """Add the named door options to a click command, in the order given:
    `@door_options(max_searches={"default": 4}, max_queue={"default": 16, "busy": "503 busy"})`.
    A value is a dict of click settings that replace the shared ones (a
    default, a door's own help), and `busy`: the door's word for a refusal
    when full, where the shared help names one."""
    formatted = {}
    for name, given in settings.items():
        given = dict(given)
        shared_help = DOOR_OPTIONS[name][1]["help"] if name in DOOR_OPTIONS else ""
        formatted[name] = {"help": shared_help.format(busy=given.pop("busy", None)), **given}
    return table_options(DOOR_OPTIONS, "door_options", formatted)


def log_to_stderr(door: str, log_level: str) -> None:
    """Log on stderr at `log_level`, each line naming the door ("tacocat serve INFO: ...")."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, log_level.upper()),
        format=f"tacocat {door} %(levelname)s: %(message)s",
    )
