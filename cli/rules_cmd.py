"""`tacocat rules [RULE]`: the rules page that ships with the package, or
one rule of it.  Every error the engine prints names a rule; this is where
to read it without the source tree at hand."""

from __future__ import annotations

import click

from tacocat.cli.terminal import friendly_errors
from tacocat.rules.rulebook import rule_numbers, rule_text, rules_text


@click.command(name="rules")
@click.argument("rule", required=False)
@click.option("--list", "as_list", is_flag=True, help="One line per rule: its number and title.")
@friendly_errors
def command(rule, as_list):
    """Print the rules of the game, or one rule.

    RULE is a rule number as the error messages cite it: R12, r12, 12, or
    a range such as R10-R11.  Without RULE the whole page is printed
    (Markdown; pipe it to a pager).  The page marks every point the printed
    rules leave open and the engine settles as a Ruling.

    \b
    Examples:
      tacocat rules R12          # how to answer an attack
      tacocat rules R10-R11      # a range, as errors cite it
      tacocat rules --list       # every rule with its title
      tacocat rules | less"""
    from tacocat.rules.rulebook import rule as one_rule

    if as_list:
        if rule:
            raise click.UsageError("--list prints every rule; drop RULE (or drop --list)")
        for n in rule_numbers():
            click.echo(f"R{n:<3} {one_rule(n)[0]}")
        return
    click.echo(rule_text(rule) if rule else rules_text().rstrip("\n"))
