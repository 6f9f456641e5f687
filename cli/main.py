"""Entry point of `tacocat`.  Each command lives in its own module
(`cli/<name>_cmd.py`, defining a click command named `command`) and is
imported only when used, so `tacocat --help` stays fast."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from tacocat.errors import TacocatError

# name -> (module, one-line help shown in `tacocat --help`)
COMMANDS = {
    "hint": ("tacocat.cli.hint_cmd", "What should I do now? Ranked moves with win/draw/loss odds."),
    "solve": (
        "tacocat.cli.solve_cmd",
        "Solve a play-phase position exactly: every card known, or every hidden hand enumerated.",
    ),
    "play": ("tacocat.cli.play_cmd", "Play a whole game against the engine in the terminal."),
    "arena": ("tacocat.cli.arena_cmd", "Bots against bots in duplicate format, with confidence intervals."),
    "analyze": (
        "tacocat.cli.analyze_cmd",
        "Replay a game record: the game's equity decision by decision, the costliest ones.",
    ),
    "rules": ("tacocat.cli.rules_cmd", "Print the rules of the game, or one rule (tacocat rules R12)."),
    "bench": ("tacocat.cli.bench_cmd", "A fixed seeded bench of the installed core: node count, nodes/s, deals/s."),
    "selfplay": ("tacocat.cli.selfplay_cmd", "Play many games between two bots and count the results."),
    "engine": ("tacocat.cli.engine_cmd", "Speak the JSON Lines engine protocol on stdin/stdout."),
    "serve": ("tacocat.cli.serve_cmd", "Serve the engine protocol over HTTP (needs the 'serve' extra)."),
}

NOTATION = """\b
Notation:
  ranks     integers 1..12
  hands     space- or comma-separated ranks: "2 5 7 9" or "2,5,7,9"
  moves     the cards played: "8 8" is a set of two 8s, "4 5 6" a sequence
  players   0 and 1; player 0's goal is left of space 0, player 1's right of space 6
Rules: every error names a rule (R1-R20); read it with: tacocat rules R12"""


def _one_line(exc: click.UsageError, group_ctx: click.Context | None = None) -> click.ClickException:
    """A usage mistake (unknown option, bad option value, missing argument)
    as one line `error: ...` naming the command's help, like every other
    bad input (`cli.notation.CliError`, imported only on this path)."""
    from tacocat.cli.terminal import CliError

    ctx = exc.ctx or group_ctx
    where = ctx.command_path if ctx is not None else "tacocat"
    if ctx is not None and ctx.command is app and ctx.invoked_subcommand:
        where += f" {ctx.invoked_subcommand}"  # raised while parsing the command's own options
    return CliError(f"{exc.format_message()} (see {where} --help)")


class LazyGroup(click.Group):
    """Imports a command's module only when it runs, and turns click's
    multi-line usage errors into one line (also under CliRunner, which
    calls the group's `main`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise  # `tacocat` alone prints the help
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc, ctx) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, (mod, _) in COMMANDS.items() if importlib.util.find_spec(mod))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, short = COMMANDS[name]
        if importlib.util.find_spec(module_name) is None:
            return None
        command = importlib.import_module(module_name).command
        command.short_help = command.short_help or short
        return command


@click.group(name="tacocat", cls=LazyGroup, epilog=NOTATION, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tacocat")
def app() -> None:
    """Tacocat Spelled Backwards: rules engine, exact solver, hints and bots."""


def main() -> None:
    """Run the app; a bad input becomes one line on stderr and exit status 2."""
    try:
        app.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.exceptions.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except TacocatError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(0)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
