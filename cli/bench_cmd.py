"""`tacocat bench`: the fixed seeded bench of the installed core (see
`tacocat.search.bench`): the node signature, nodes and solves per second,
PIMC deals and ISMCTS iterations per second."""

from __future__ import annotations

import json
import os
import platform

import click

import tacocat
from tacocat.cli.option_table import ranged_option
from tacocat.cli.terminal import friendly_errors


@click.command(name="bench")
@ranged_option("--repeat", click.IntRange(1, 1000), 20, "Runs of the exact bench; the time is their median.")
@ranged_option("--positions", click.IntRange(1, 100), 3, "Seeded 8-card views for PIMC and ISMCTS.")
@ranged_option("--deals", click.IntRange(1), 1000, "PIMC deals per view.")
@ranged_option("--iterations", click.IntRange(1), 100_000, "ISMCTS iterations per view.")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as one JSON object.")
@friendly_errors
def command(repeat, positions, deals, iterations, as_json):
    """Solve a fixed seeded set of positions with the installed core.

    \b
    exact    42 play-phase positions (6 seeded deals per hand size 2..8,
             both hands known), each solved in full: the total node count
             is the bench signature (tests pin it; it changes only when the
             search changes), then nodes and solves per second
    pimc     sampled deals per second from seeded 8-card views
    ismcts   iterations per second from the same views

    \b
    Speeds are wall time on whatever else this machine runs (medians).
    Takes a few seconds with the defaults.

    \b
    Examples:
      tacocat bench
      tacocat bench --repeat 50 --json > bench.json"""
    from tacocat.search.bench import run_bench

    def progress(stage: str) -> None:
        click.echo(f"bench: {stage} ...", err=True)

    result = run_bench(repeat=repeat, positions=positions, deals=deals, iterations=iterations, progress=progress)
    result["tacocat"] = tacocat.__version__ if hasattr(tacocat, "__version__") else _version()
    result["python"] = platform.python_version()
    result["cpus"] = os.cpu_count()
    result["load_average"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    if as_json:
        click.echo(json.dumps(result))
        return
    e, p, m = result["exact"], result["pimc"], result["ismcts"]
    click.echo(
        f"tacocat {result['tacocat']} bench (Python {result['python']}, {result['cpus']} cpus, "
        f"load {result['load_average']})"
    )
    click.echo(
        f"exact   {e['positions']} positions (seed {e['seed']}), hands known: {e['nodes']} nodes in "
        f"{e['seconds'] * 1e3:.1f} ms (median of {e['repeats']}): {e['nodes_per_second']:,.0f} nodes/s, "
        f"{e['solves_per_second']:,.0f} solves/s"
    )
    click.echo(
        f"pimc    {p['positions']} views of 8 cards, {p['deals_per_position']} deals each: "
        f"{p['deals_per_second']:,.0f} deals/s"
    )
    click.echo(
        f"ismcts  {m['positions']} views of 8 cards, {m['iterations_per_position']:,} iterations each: "
        f"{m['iterations_per_second']:,.0f} iterations/s"
    )
    click.echo(f"bench signature: {e['nodes']} nodes ({result['seconds']:.1f} s in all)")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tacocat")
    except PackageNotFoundError:
        return "?"
