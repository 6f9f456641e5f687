"""run_tasks with no items still returns a generator: every caller wraps it
in contextlib.closing, which needs close() (an `iter(())` has none).  Found
by mypy (issue 23)."""

from __future__ import annotations

import contextlib

from tacocat.players.cluster import Cluster, run_tasks


def test_no_items_can_be_closed():
    with contextlib.closing(run_tasks(abs, [], Cluster("local", 1))) as results:
        assert list(results) == []
