"""The rules page that ships with the package (`tacocat/data/rules.md`):
the whole text, one rule by number, and the rule numbers an error cites.

Every error the engine raises names a rule (R1–R20); this is where a user
who installed the package looks it up (`tacocat rules R12`, or `rules R12`
at the `tacocat play` prompt)."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from tacocat.errors import NotationError

_HEADING = re.compile(r"^### (R(\d+)) (.+)$", re.MULTILINE)
_CITE = re.compile(r"^\s*[Rr]?(\d{1,2})(?:\s*[-–]\s*[Rr]?(\d{1,2}))?\s*$")


@lru_cache(maxsize=1)
def rules_text() -> str:
    """The whole rules page (Markdown)."""
    return resources.files("tacocat").joinpath("data", "rules.md").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _sections() -> dict[int, tuple[str, str]]:
    """Rule number -> (title, body) from the page's `### R12 Title` headings;
    a body runs to the next heading of any level."""
    text = rules_text()
    out: dict[int, tuple[str, str]] = {}
    for m in _HEADING.finditer(text):
        rest = text[m.end() :]
        end = re.search(r"^#{1,3} ", rest, re.MULTILINE)
        body = rest[: end.start()] if end else rest
        out[int(m.group(2))] = (m.group(3).strip(), body.strip())
    return out


def rule_numbers() -> list[int]:
    """The numbers of the rules on the page, ascending."""
    return sorted(_sections())


def rule(number: int) -> tuple[str, str]:
    """(title, body) of rule R`number`; NotationError when there is none."""
    sections = _sections()
    if number not in sections:
        raise NotationError(f"there is no rule R{number}; the rules are R{min(sections)} to R{max(sections)}")
    return sections[number]


def parse_citation(text: str) -> list[int]:
    """The rule numbers a citation names: "R12", "r12", "12", or a range as
    errors print it, "R10-R11" / "R7-R8"."""
    m = _CITE.match(text or "")
    if not m:
        raise NotationError(f"rule {text!r} not understood; expected a rule number like R12 (or a range like R10-R11)")
    low = int(m.group(1))
    high = int(m.group(2)) if m.group(2) else low
    if high < low:
        raise NotationError(f"rule range {text!r} runs backwards; expected e.g. R10-R11")
    numbers = list(range(low, high + 1))
    for n in numbers:
        rule(n)  # an unknown number is refused, naming the range that exists
    return numbers


def rule_text(citation: str) -> str:
    """One rule (or a range) as plain text for a terminal: "R12 Answer"
    then its body, the Markdown emphasis and code marks dropped."""
    text = "\n\n".join(f"R{n} {rule(n)[0]}\n{rule(n)[1]}" for n in parse_citation(citation))
    return re.sub(r"`([^`]*)`", r"\1", re.sub(r"\*\*([^*]+)\*\*", r"\1", text))
