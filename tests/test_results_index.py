"""results/ stays honest: every table names the script that regenerates it
(a script that exists), and results/README.md indexes every table."""

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"


def test_every_table_names_a_script_that_exists():
    tables = sorted(p for p in RESULTS.glob("*.md") if p.name != "README.md")
    assert len(tables) >= 15
    for table in tables:
        named = set(re.findall(r"results/(\w+\.py)", table.read_text())) | set(
            re.findall(r"python (?:results/)?(\w+\.py)", table.read_text())
        )
        assert named, f"{table.name} names no script (write `python results/NAME.py ...` in it)"
        missing = [n for n in named if not (RESULTS / n).exists()]
        assert not missing, f"{table.name} names scripts that do not exist: {missing}"


def test_the_index_lists_every_table_with_its_script():
    index = (RESULTS / "README.md").read_text()
    for table in RESULTS.glob("*.md"):
        if table.name != "README.md":
            assert f"]({table.name})" in index, f"results/README.md does not list {table.name}"
    for script in re.findall(r"`(\w+\.py)`", index):
        assert (RESULTS / script).exists(), script
