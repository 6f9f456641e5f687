"""The backend switch every batch command shares: `--workers`, `--cluster`,
`--batch` (read by `tacocat.players.cluster.Cluster.parse`)."""

from __future__ import annotations

from typing import Callable

import click

CLUSTER_HELP = (
    "Where the work runs: local processes by default; 'ray' starts a private Ray cluster on "
    "127.0.0.1 with --workers CPUs; an address (host:6379, ray://host:10001, auto) joins a running "
    "Ray cluster.  Ray needs pip install 'tacocat[cluster]'.  The numbers do not depend on it."
)


def cluster_options(func: Callable) -> Callable:
    """Add --workers, --cluster and --batch to a command (passed as `workers`, `cluster`, `batch`)."""
    func = click.option(
        "--batch",
        type=click.IntRange(0),
        default=0,
        show_default=True,
        help="Items a task (0: automatic); bigger batches pay a cluster's per-task cost less "
        "often (see results/scale.md).",
    )(func)
    func = click.option("--cluster", default=None, metavar="ray|ADDRESS", help=CLUSTER_HELP)(func)
    func = click.option(
        "--workers",
        type=click.IntRange(1),
        default=1,
        show_default=True,
        help="Worker processes (or CPUs of a --cluster ray started here).",
    )(func)
    return func
