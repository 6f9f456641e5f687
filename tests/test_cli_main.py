"""What every `tacocat` command shares (cli/main.py): a usage mistake is one
line naming the command's help, and each help text reads as one block."""

import pytest
from helpers import one_line_error, run_cli

from tacocat.cli.main import COMMANDS


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["castle"], ["No such command 'castle'", "see tacocat --help"]),
        (["--colour"], ["No such option '--colour'", "see tacocat --help"]),
        (["hint", "--hand"], ["'--hand' requires an argument", "see tacocat hint --help"]),
        (["hint", "--hand", "2 5", "--colour", "red"], ["No such option '--colour'", "see tacocat hint --help"]),
        (["solve", "--hands", "2 5"], ["'--hands' requires 2 arguments", "see tacocat solve --help"]),
        (["play", "--seat", "3"], ["'--seat': 3 is not in the range 0<=x<=1", "see tacocat play --help"]),
        (
            ["arena", "heuristic", "random", "--mode", "chess"],
            ["'--mode'", "'chess' is not one of", "see tacocat arena --help"],
        ),
        (["analyze"], ["Missing argument 'GAME.json'", "see tacocat analyze --help"]),
        (
            ["selfplay", "--games", "many"],
            ["'--games'", "'many' is not a valid integer", "see tacocat selfplay --help"],
        ),
        (["engine", "--max-line", "5"], ["'--max-line': 5 is not in the range 64<=x", "see tacocat engine --help"]),
        (["serve", "--port", "-1"], ["'--port'", "see tacocat serve --help"]),
    ],
)
def test_usage_mistakes_are_one_line(args, fragments):
    one_line_error(run_cli(args, ""), *fragments)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_paragraphs_sit_at_one_margin(name):
    """A text added to a command's help after its docstring must not undo
    the docstring's dedent (which indents every paragraph by four more)."""
    result = run_cli([name, "--help"])
    assert result.exit_code == 0, result.output
    description = result.stdout.split("\nOptions:")[0].split("\n\n")[1:]
    assert description, result.stdout
    for paragraph in description:
        assert paragraph.startswith("  ") and not paragraph.startswith("   "), (name, paragraph)


def test_top_level_help_lists_every_command():
    result = run_cli(["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f"\n  {name} " in result.stdout, name
