"""The Python client depends only on the protocol's types: importing it
loads neither the C core nor any search (a frontend that talks to an
engine over a pipe or HTTP need not carry the engine)."""

import subprocess
import sys


def test_importing_the_client_loads_no_core_and_no_search():
    probe = (
        "import sys, tacocat.protocol.client; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('tacocat'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert "tacocat.protocol.client" in loaded
    heavy = [
        m
        for m in loaded
        if m.startswith("tacocat.core") or (m.startswith("tacocat.search.") and m != "tacocat.search.results")
    ]
    assert not heavy, heavy
