"""Errors a user can cause.  Every message names the rule (RULES.md) or the
field that is wrong and what was expected, so front doors can print it as one
line."""

from __future__ import annotations


def shorten(value: object, limit: int = 60) -> str:
    """`repr(value)` cut to one short line: an error message never echoes a
    huge input (and never fails on one: ints beyond `str()`'s digit limit,
    deep nesting)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class TacocatError(ValueError):
    """Base class: bad input from a user, a file or a frontend."""

    code = "invalid"

    def __init__(self, message: str, rule: str | None = None) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}" if rule else message)


class RulesetError(TacocatError):
    """A ruleset that cannot be played (RULES section 8)."""

    code = "bad_ruleset"


class NotationError(TacocatError):
    """Cards, hands or moves written in a form we cannot read."""

    code = "bad_notation"


class PositionError(TacocatError):
    """A position or view that cannot arise under the rules."""

    code = "impossible_position"


class IllegalMoveError(TacocatError):
    """An action that is not legal at this decision."""

    code = "illegal_action"


class RecordError(TacocatError):
    """A malformed game record or state document."""

    code = "bad_record"
