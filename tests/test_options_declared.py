"""The one declaration of the search options (`tacocat.search.options`):
every door reads it — bot budgets and specs, the strength levels, the
protocol's `move` and `hint` fields, `hello`, the CLI's search flags — so
an option's type, bounds and choices cannot differ from door to door."""

from __future__ import annotations

import dataclasses

import click
import pytest

from tacocat.cli.search_options import SEARCH_OPTIONS
from tacocat.errors import TacocatError
from tacocat.players.bots import BotBudget, make_bot
from tacocat.players.match import parse_bot
from tacocat.protocol.commands import COMMANDS
from tacocat.protocol.moves import LEVELS
from tacocat.protocol.session import EngineSession
from tacocat.search import hint, ismcts
from tacocat.search.options import METHODS, OPTIONS, ROLLOUT_NAMES, check_options

PROTOCOL_NAMES = {"score": "utilities"}
"""A protocol field named otherwise than its option."""
NOT_OPTIONS = {"game", "player", "token", "bot", "level", "apply", "info_ms", "view", "top", "method"}
"""Fields of `move` and `hint` that say what to search, not how: no search option."""


def test_a_bot_budget_is_the_declared_bot_options():
    budget = {f.name: f.default for f in dataclasses.fields(BotBudget)}
    declared = {name: o.default for name, o in OPTIONS.items() if o.bot}
    assert budget == declared


def test_the_lists_the_searches_keep_agree_with_the_declaration():
    assert tuple(ismcts.ROLLOUTS) == ROLLOUT_NAMES
    assert hint.METHODS is METHODS
    assert OPTIONS["method"].choices == METHODS


@pytest.mark.parametrize("cmd", ["move", "hint"])
def test_the_protocols_search_fields_are_read_from_the_declaration(cmd):
    fields = [f for f in COMMANDS[cmd].fields if f.name not in NOT_OPTIONS]
    assert {f.name for f in fields} >= {"time_ms", "iterations", "seed", "inference", "round_search"}
    for f in fields:
        opt = OPTIONS[PROTOCOL_NAMES.get(f.name, f.name)]
        assert f.doc and f.enum == opt.choices
        if opt.minimum is not None:
            assert f.minimum == opt.minimum + (1 if opt.above else 0)
        if opt.maximum is not None:
            assert f.maximum is not None and f.maximum <= opt.maximum  # a server may narrow, never widen
    method = next(f for f in COMMANDS["hint"].fields if f.name == "method")
    assert set(METHODS) <= set(method.enum)


def test_hello_lists_every_option_with_its_bounds():
    listed = {o["name"]: o for o in EngineSession().handle({"cmd": "hello"})["result"]["options"]}
    assert list(listed) == list(OPTIONS)
    assert listed["time_ms"]["exclusive_minimum"] == 0 and listed["time_ms"]["maximum"] == OPTIONS["time_ms"].maximum
    assert listed["samples"]["minimum"] == 1 and listed["samples"]["type"] == "integer"
    assert listed["clock"]["choices"] == ["wall", "cpu"] and listed["clock"]["budget"] is True
    assert listed["round_search"]["type"] == "boolean" and listed["inference"]["help"]


def test_every_levels_budget_is_declared():
    for name, budget in LEVELS.values():
        assert check_options(budget) == budget, name


def test_the_cli_flags_take_the_declared_bounds_and_choices():
    time_type = SEARCH_OPTIONS["time"][1]["type"]
    assert isinstance(time_type, click.IntRange) and (time_type.min, time_type.max) == (1, OPTIONS["time_ms"].maximum)
    assert SEARCH_OPTIONS["iterations"][1]["type"].max == OPTIONS["iterations"].maximum
    assert tuple(SEARCH_OPTIONS["method"][1]["type"].choices) == METHODS
    assert tuple(SEARCH_OPTIONS["score"][1]["type"].choices) == OPTIONS["utilities"].choices


def test_a_bot_spec_is_read_by_each_options_type():
    assert parse_bot("pimc@time_ms=20,clock=cpu,round_search=1") == (
        "pimc",
        {"time_ms": 20, "clock": "cpu", "round_search": 1},
    )
    assert parse_bot("ismcts@c_uct=1.5,rollout=greedy") == ("ismcts", {"c_uct": 1.5, "rollout": "greedy"})


@pytest.mark.parametrize(
    "spec, says",
    [
        ("pimc@samples=0", "samples must be a whole number from 1"),
        ("pimc@samples=2.5", "samples must be a whole number"),
        ("pimc@time_ms=0", "time_ms must be a number above 0"),
        ("pimc@clock=sundial", "clock must be one of wall, cpu"),
        ("pimc@rollout=lazy", "rollout must be one of random, greedy"),
        ("pimc@inference=psychic", "inference 'psychic' unknown"),
        ("pimc@round_search=maybe", "round_search must be 0 .off. or 1 .on."),
        ("pimc@sample=3", "unknown budget key 'sample'"),
        ("pimc@samples", "expected key=value"),
    ],
)
def test_a_bad_bot_spec_is_refused_in_one_line_naming_the_option(spec, says):
    with pytest.raises(TacocatError, match=says) as err:
        parse_bot(spec)
    assert "\n" not in str(err.value) and spec in str(err.value)


def test_a_hints_option_is_no_bots():
    with pytest.raises(TacocatError, match="method is a hint's option"):
        make_bot("pimc", method="exact")
