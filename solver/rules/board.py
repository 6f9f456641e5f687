"""The board: where the cat stands and which spaces are covered (R2–R5),
who replaces first (R3), moving the cat (R18) and the end of the game (R19).

Spaces are indexed 0..6 from player 0's goal to player 1's goal; player 0's
goal is index -1 and player 1's goal is index 7.

Text form (README "Notation"): `cat=3 covered=2,4`; `str(board)` prints it
and `Board.parse` reads it back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tacocat.errors import NotationError, PositionError, RecordError
from tacocat.errors import shorten as _short
from tacocat.rules.ruleset import CENTRE, SPACES, Ruleset

GOAL = {0: -1, 1: SPACES}
_FIELD = re.compile(r"(\w+)\s*=\s*([^=]*?)(?=\s+\w+\s*=|$)")


@dataclass(frozen=True)
class Board:
    cat: int = CENTRE
    """R5: the cat starts on the centre; -1 or 7 once a goal is reached."""
    covered: frozenset[int] = frozenset()
    """R4: spaces the cat has left, each under a tile."""

    def __post_init__(self) -> None:
        self._check_integers()
        self._check_spaces()

    def _check_integers(self) -> None:
        """The cat and the tiles stand on spaces, numbered (R2, R4)."""
        if isinstance(self.cat, bool) or not isinstance(self.cat, int):
            raise PositionError(f"cat index must be an integer -1..7, got {_short(self.cat)}", "R2")
        if any(isinstance(s, bool) or not isinstance(s, int) for s in self.covered):
            raise PositionError(
                f"covered spaces must be integers 0..6, got {_short(sorted(map(repr, self.covered)))}", "R4"
            )

    def _check_spaces(self) -> None:
        """The cat on the board or in a goal (R2), tiles on spaces, never
        under the cat (R4)."""
        if not -1 <= self.cat <= SPACES:
            raise PositionError(f"cat index {self.cat} is off the board; expected -1..7", "R2")
        bad = [s for s in self.covered if not 0 <= s < SPACES]
        if bad:
            raise PositionError(f"covered spaces {bad} are not spaces 0..6", "R4")
        if 0 <= self.cat < SPACES and self.cat in self.covered:
            raise PositionError(f"the cat stands on covered space {self.cat}", "R4")

    def __str__(self) -> str:
        """The plain notation, which `Board.parse` reads back to this board."""
        covered = ",".join(str(c) for c in sorted(self.covered)) or "-"
        return f"cat={self.cat} covered={covered}"

    @classmethod
    def parse(cls, text: str | None, *, cat: int | None = None, covered: str | None = None) -> "Board":
        """A board from "cat=3 covered=2,4" (either field may be left out;
        "covered=-" or "covered=none" for no tiles).  `cat` and `covered`
        give a field the text leaves out (default: the cat on the centre,
        R5, nothing covered)."""
        fields = _board_fields((text or "").strip())
        cat_value = CENTRE if cat is None else cat
        if "cat" in fields:
            if not re.fullmatch(r"[+-]?\d+", fields["cat"]):
                raise NotationError(f"board cat={fields['cat']!r}: expected a space 0..6", "R2")
            cat_value = int(fields["cat"])
        spaces = _covered_spaces(fields.get("covered", covered))
        if not -1 <= cat_value <= SPACES:
            raise PositionError(f"cat on space {cat_value}: spaces run 0..6, the goals are -1 and 7", "R2")
        return cls(cat=cat_value, covered=frozenset(spaces))

    @property
    def winner(self) -> int | None:
        """R19: the player whose goal the cat has entered, if any."""
        if self.cat == GOAL[0]:
            return 0
        if self.cat == GOAL[1]:
            return 1
        return None

    def hand_size(self, rules: Ruleset) -> int:
        """R2/R6: the number of cards dealt to each player on this space."""
        return rules.board[self.cat]

    def first_replacer(self, rules: Ruleset) -> str:
        """R3: "p0", "p1" or "both" (R8)."""
        return rules.arrows[self.cat]

    def after_round(self, winner: int) -> "Board":
        """R18: the round's winner moves the cat one space toward their own
        goal, skipping covered spaces; the space it left is covered."""
        step = -1 if winner == 0 else 1
        cat = self.cat + step
        while 0 <= cat < SPACES and cat in self.covered:
            cat += step
        return Board(cat=cat, covered=self.covered | {self.cat})

    def rounds_to_win(self, player: int) -> int:
        """Rounds `player` must still win for the cat to enter their goal:
        one step per uncovered space on the way (R18), the last into the
        goal (R19); 0 once the game is over."""
        board, n = self, 0
        while board.winner is None:
            board = board.after_round(player)
            n += 1
        return n

    def to_dict(self) -> dict:
        return {"cat": self.cat, "covered": sorted(self.covered)}

    @classmethod
    def from_dict(cls, data: Any, what: str = "board") -> "Board":
        """The board of `to_dict()`: {"cat": -1..7, "covered": [spaces 0..6]}
        (`covered` may be left out), every field type-checked: a RecordError
        names `what` and the field (never a number read as another: 3.0,
        "3" and true are not spaces)."""
        _check_board_fields(data, what)
        cat = data["cat"]
        if not _is_integer(cat) or not -1 <= cat <= SPACES:
            raise RecordError(f"{what} 'cat' must be an integer -1..7 (a space 0..6 or a goal), got {_short(cat)}")
        covered = data.get("covered", [])
        if not isinstance(covered, list) or len(covered) > SPACES or not all(map(_is_space, covered)):
            raise RecordError(f"{what} 'covered' must be a list of spaces 0..6, got {_short(covered)}")
        return cls(cat=cat, covered=frozenset(covered))


def _check_board_fields(data: Any, what: str) -> None:
    """A board object holds a cat and perhaps the covered spaces, nothing else."""
    expected = '{"cat": -1..7, "covered": [spaces 0..6]}'
    if not isinstance(data, Mapping) or "cat" not in data:
        raise RecordError(f"{what} must be {expected}, got {_short(data)}")
    unknown = sorted(str(k) for k in data if k not in ("cat", "covered"))
    if unknown:
        raise RecordError(f"{what}: unknown field(s) {_short(unknown)}; expected {expected}")


def _is_integer(v: Any) -> bool:
    """A JSON integer, never true or 3.0."""
    return not isinstance(v, bool) and isinstance(v, int)


def _is_space(s: Any) -> bool:
    """A space 0..6 (R2)."""
    return _is_integer(s) and 0 <= s < SPACES


def _board_fields(text: str) -> dict[str, str]:
    """The `name=value` fields of a board's text: cat and covered, at least one."""
    fields: dict[str, str] = {}
    if not text:
        return fields
    for m in _FIELD.finditer(text):
        fields[m.group(1).lower()] = m.group(2).strip()
    leftover = _FIELD.sub("", text).strip()
    if leftover or set(fields) - {"cat", "covered"} or not fields:
        raise NotationError(
            f'board {text!r} not understood; expected "cat=N covered=A,B" with spaces 0..6, e.g. "cat=3 covered=2,4"',
            "R2",
        )
    return fields


def _covered_spaces(covered_text: str | None) -> list[int]:
    """The tiles of `covered=2,4` (R4); "-" or "none" for none."""
    spaces: list[int] = []
    if not covered_text or covered_text.strip() in ("-", "none"):
        return spaces
    for t in re.split(r"[\s,]+", covered_text.strip().strip("[]")):
        if not t:
            continue
        if not re.fullmatch(r"[+-]?\d+", t):
            raise NotationError(f"covered space {t!r} is not a space; expected spaces 0..6, e.g. covered=2,4", "R4")
        spaces.append(int(t))
    return spaces
