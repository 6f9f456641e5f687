"""The measured slow list in conftest.py names tests that exist: a renamed
or deleted test would otherwise leave a line that marks nothing, and its
replacement would run in the default loop unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SLOW_IDS

TESTS = Path(__file__).resolve().parent


def test_every_line_of_the_slow_list_names_a_test_function():
    missing = []
    for node in sorted(SLOW_IDS):
        file, _, name = node.partition("::")
        function = name.split("[", 1)[0]
        path = TESTS / file
        if not path.exists() or not re.search(rf"^def {re.escape(function)}\(", path.read_text(), re.M):
            missing.append(node)
    assert len(SLOW_IDS) > 50 and not missing, missing
