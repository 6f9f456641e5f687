import json
from pathlib import Path

import pytest

# The conformance vectors sit beside the checkout, read-only (DEVELOPERS.md).
CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


def load_cases(name: str) -> list[dict]:
    path = CONFORMANCE / f"{name}.json"
    if not path.exists():
        pytest.fail(f"conformance vectors missing: {path} (../shared/conformance must sit beside the checkout)")
    return json.loads(path.read_text())["cases"]
