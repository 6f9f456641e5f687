"""The rules page ships with the package; `tacocat rules` prints it or one
rule; every rule number the code cites is on the page."""

import re
from pathlib import Path

import pytest
from helpers import one_line_error, run_cli

import tacocat
from tacocat.rules.rulebook import parse_citation, rule, rule_numbers, rules_text

ROOT = Path(__file__).resolve().parent.parent


def test_the_page_has_every_rule_r1_to_r20_and_marks_rulings():
    assert rule_numbers() == list(range(1, 21))
    text = rules_text()
    # rulings of the authority (R1, R2, R3, R8, R9, R17, R20 and the bounds) are marked
    for n in (1, 2, 3, 8, 9, 17, 20):
        assert "**Ruling:**" in rule(n)[1], n
    assert text.count("**Ruling:**") >= 9


def test_the_page_is_package_data_and_docs_is_the_same_text():
    shipped = Path(tacocat.__file__).parent / "data" / "rules.md"
    assert shipped.read_text(encoding="utf-8") == rules_text()
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_text(), (
        "docs/rules.md must be a copy of solver/data/rules.md (the shipped page): cp solver/data/rules.md docs/rules.md"
    )
    assert "data/*.md" in (ROOT / "pyproject.toml").read_text()


def test_every_rule_number_cited_in_the_code_is_on_the_page():
    cited: set[int] = set()
    files = [p for d in ("solver", "cli") for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".pyx")]
    assert files
    for path in files:
        for m in re.finditer(r"\bR(\d+)(?:\s*[-–]\s*R?(\d+))?\b", path.read_text(encoding="utf-8")):
            low = int(m.group(1))
            cited.update(range(low, int(m.group(2) or low) + 1))
    assert cited, "no rule numbers found: the pattern is wrong"
    missing = sorted(cited - set(rule_numbers()))
    assert not missing, f"cited but not on the rules page: {missing}"


def test_rules_command_prints_one_rule_a_range_or_the_page():
    one = run_cli(["rules", "R12"])
    assert one.exit_code == 0
    assert one.stdout.startswith("R12 Answer\n") and "lowest" in one.stdout and "R13" not in one.stdout.split("\n")[0]
    assert run_cli(["rules", "12"]).stdout == one.stdout == run_cli(["rules", "r12"]).stdout
    span = run_cli(["rules", "R10-R11"]).stdout
    assert span.startswith("R10 Attack") and "R11 Keep one card" in span
    page = run_cli(["rules"]).stdout
    assert page.rstrip("\n") == rules_text().rstrip("\n")
    listing = run_cli(["rules", "--list"]).stdout.splitlines()
    assert len(listing) == 20 and listing[11].startswith("R12") and "Answer" in listing[11]


@pytest.mark.parametrize(
    "arg, fragment",
    [
        ("R21", "there is no rule R21; the rules are R1 to R20"),
        ("R0", "there is no rule R0"),
        ("answer", "rule 'answer' not understood; expected a rule number like R12"),
        ("R11-R10", "runs backwards"),
    ],
)
def test_unknown_rule_is_one_line_error(arg, fragment):
    one_line_error(run_cli(["rules", arg]), fragment)


def test_parse_citation_reads_what_errors_print():
    assert parse_citation("R7-R8") == [7, 8]
    assert parse_citation(" r12 ") == [12]
    assert parse_citation("R10–R11") == [10, 11]
