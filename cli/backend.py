"""The backend switch every batch command shares: `--workers`, `--cluster`,
`--batch` (read by `tacocat.players.cluster.Cluster.parse`)."""

from __future__ import annotations

from typing import Callable

import click

from tacocat.cli.option_table import ranged_option

CLUSTER_HELP = (
    "Where the work runs: local processes by default; 'ray' starts a private Ray cluster on "
    "127.0.0.1 with --workers CPUs; an address (host:6379, ray://host:10001, auto) joins a running "
    "Ray cluster.  Ray needs pip install 'tacocat[cluster]'.  The numbers do not depend on it."
)


def cluster_options(func: Callable) -> Callable:
    """Add --workers, --cluster and --batch to a command (passed as `workers`, `cluster`, `batch`)."""
    func = ranged_option(
        "--batch",
        click.IntRange(0),
        0,
        "Items a task (0: automatic); bigger batches pay a cluster's per-task cost less often (see results/scale.md).",
    )(func)
    func = click.option("--cluster", default=None, metavar="ray|ADDRESS", help=CLUSTER_HELP)(func)
    func = ranged_option(
        "--workers", click.IntRange(1), 1, "Worker processes (or CPUs of a --cluster ray started here)."
    )(func)
    return func
