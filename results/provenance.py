"""Which code a published number came from: the last commit that changed
the package (solver/), marked "+changes" when the working tree's package
differs from it (a result file resumed across sessions must hold one
solver's rows; commits to results/ or docs/ alone do not change it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def source_commit() -> str:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    head = git("log", "-1", "--format=%h", "--", "solver") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--", "solver") else "")
