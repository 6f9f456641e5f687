"""The ruleset as data (RULES section 8): deck counts (R1), the hand size
dealt on each of the seven spaces (R2), the arrows (R3), the tie rule (R17)
and `max_deals`.  `STANDARD` is the default; other rulesets load from JSON
or TOML.

RULES §8 bounds every ruleset so that every game ends and every search can
honour its limits: each deck count 0..8 (at most 96 cards), at least two
ranks present, every hand size 2..12, `max_deals` 1..MAX_DEALS_LIMIT."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Iterable, Mapping

from tacocat.errors import PositionError, RulesetError
from tacocat.errors import shorten as _short
from tacocat.rules.files import TooDeep, loads_json

SPACES = 7
CENTRE = 3


class Arrow(StrEnum):
    """R3: a space's arrow, toward the player who replaces first, or both
    (they replace at the same time, R8).  Also a view's `first_replacer`."""

    BOTH = "both"
    P0 = "p0"
    P1 = "p1"


ARROW_CHOICES = tuple(a.value for a in Arrow)


def arrow_player(arrow: str) -> int | None:
    """R3: the player an arrow points to, who replaces first (R7); None
    on a two-arrow space (both replace at the same time, R8)."""
    return None if arrow == Arrow.BOTH else 0 if arrow == Arrow.P0 else 1


class Tie(StrEnum):
    """R17's tie rule: a drawn round is dealt again, or won by the arrow's player."""

    REDEAL = "redeal"
    ARROW = "arrow"


TIE_CHOICES = tuple(t.value for t in Tie)
MAX_COUNT = 8
"""RULES §8: each rank's deck count is 0..8."""
HAND_SIZES = (2, 12)
"""RULES §8: every hand size on the board is 2..12."""
DEFAULT_MAX_DEALS = 200
MAX_DEALS_LIMIT = 10_000
"""The largest `max_deals` accepted: a game is still bounded work."""
MAX_NAME = 100

STANDARD_DECK = (2, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 2)
STANDARD_BOARD = (4, 6, 9, 7, 9, 6, 4)
# R3 ruling: the centre has two arrows; elsewhere the arrow points at the
# player the cat is farther from (spaces 0..2 are nearer player 0's goal).
STANDARD_ARROWS = ("p1", "p1", "p1", "both", "p0", "p0", "p0")


@dataclass(frozen=True)
class Ruleset:
    """A playable ruleset.  Construct through `Ruleset.from_dict` or
    `load_ruleset` to have it validated."""

    deck: tuple[int, ...] = STANDARD_DECK
    """R1: how many cards of each rank 1..12 (index 0 is rank 1)."""
    board: tuple[int, ...] = STANDARD_BOARD
    """R2: the hand size dealt when the cat stands on space 0..6."""
    arrows: tuple[str, ...] = STANDARD_ARROWS
    """R3: per space, who replaces first: "p0", "p1" or "both" (R8)."""
    tie: str = "redeal"
    """R17: "redeal" (drawn rounds are replayed) or "arrow"."""
    max_deals: int = DEFAULT_MAX_DEALS
    """RULES §8: a game that reaches this many deals without a winner ends drawn."""
    name: str = field(default="standard", compare=False)

    def __post_init__(self) -> None:
        validate(self)

    @property
    def deck_size(self) -> int:
        return sum(self.deck)

    def count(self, rank: int) -> int:
        """How many cards of `rank` the deck holds."""
        return self.deck[rank - 1]

    def check_counts(self, *places: tuple[str, Iterable[int], str]) -> None:
        """R1: no rank more often than the deck holds it.  `places` are
        (who holds, cards, hint) taken together one after another, so the
        error names the first place whose cards go over the deck's count;
        the hint (may use {rank}) says what the mistake probably is."""
        held = [0] * 13
        for who, cards, hint in places:
            for r in cards:
                if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 12:
                    raise PositionError(f"{who} {r!r}, which is not a rank; ranks run from 1 to 12", "R1")
                held[r] += 1
            for r in range(1, 13):
                if held[r] > self.deck[r - 1]:
                    tail = f": {hint.format(rank=r)}" if hint else ""
                    raise PositionError(
                        f"{who} {held[r]} cards of rank {r} but the deck has only {self.deck[r - 1]}{tail}", "R1"
                    )

    def deck_cards(self) -> tuple[int, ...]:
        """The whole deck as a sorted tuple of ranks."""
        return tuple(r for r in range(1, 13) for _ in range(self.deck[r - 1]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "deck": list(self.deck),
            "board": list(self.board),
            "arrows": list(self.arrows),
            "tie": self.tie,
            "max_deals": self.max_deals,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "Ruleset":
        """Build a ruleset from a mapping; missing keys take the standard
        values.  `deck` may be a list of 12 counts or a {rank: count} map."""
        if data is None:
            return STANDARD
        if not isinstance(data, Mapping):
            raise RulesetError("a ruleset must be an object with keys deck, board, arrows, tie")
        unknown = set(data) - {"name", "deck", "board", "arrows", "tie", "max_deals"}
        if unknown:
            raise RulesetError(
                f"unknown ruleset key(s) {_short(sorted(map(str, unknown)))}; "
                "expected deck, board, arrows, tie, max_deals, name"
            )
        deck = _read_deck(data.get("deck", STANDARD_DECK))
        board = _read_ints(data.get("board", STANDARD_BOARD), "board", "R2")
        arrows = _read_arrows(data.get("arrows", STANDARD_ARROWS))
        tie = data.get("tie", "redeal")
        if tie not in TIE_CHOICES:
            raise RulesetError(f"tie rule {_short(tie)} unknown; expected redeal or arrow", "R17")
        max_deals = data.get("max_deals", DEFAULT_MAX_DEALS)
        if isinstance(max_deals, bool) or not isinstance(max_deals, int):
            raise RulesetError(f"max_deals must be an integer, got {_short(max_deals)}", "R19")
        return cls(deck=deck, board=board, arrows=arrows, tie=tie, max_deals=max_deals, name=_read_name(data))


def _read_arrows(arrows: Any) -> tuple[str, ...]:
    """R3: one arrow per space, each toward a player or both."""
    if isinstance(arrows, str) or not isinstance(arrows, (list, tuple)) or len(arrows) != SPACES:
        raise RulesetError("arrows must be a list of seven of both/p0/p1", "R3")
    for i, a in enumerate(arrows):
        if a not in ARROW_CHOICES:
            raise RulesetError(f"arrow on space {i} is {_short(a)}; expected one of both, p0, p1", "R3")
    return tuple(arrows)


def _read_name(data: Mapping[str, Any]) -> str:
    name = data.get("name", "custom")
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise RulesetError(f"ruleset name must be a string of at most {MAX_NAME} characters, got {_short(name)}")
    return name


def _read_ints(value: Any, key: str, rule: str, limit: int = 12) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise RulesetError(f"{key} must be a list of integers, got {_short(value)}", rule)
    if len(value) > limit:
        raise RulesetError(f"{key} must hold at most {limit} integers, got {len(value)}", rule)
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int):
            raise RulesetError(f"{key} must hold integers, got {_short(v)}", rule)
        out.append(v)
    return tuple(out)


def _read_deck(value: Any) -> tuple[int, ...]:
    if isinstance(value, Mapping):
        deck = [0] * 12
        for k, v in value.items():
            rank = _deck_rank(k)
            if isinstance(v, bool) or not isinstance(v, int):
                raise RulesetError(f"deck: count of rank {rank} must be an integer, got {_short(v)}", "R1")
            deck[rank - 1] = v
        return tuple(deck)
    return _read_ints(value, "deck", "R1")


def _deck_rank(k: Any) -> int:
    """A deck map's key: a rank 1..12, as a number or its digits (R1)."""
    rank = k if isinstance(k, int) and not isinstance(k, bool) else None
    if isinstance(k, str) and k.strip().isdigit() and len(k.strip()) <= 2:
        rank = int(k)
    if rank is None:
        raise RulesetError(f"deck: {_short(k)} is not a rank; ranks run from 1 to 12", "R1")
    if not 1 <= rank <= 12:
        raise RulesetError(f"deck: rank {rank} is outside 1..12", "R1")
    return rank


def validate(rules: Ruleset) -> None:
    """Reject a ruleset that cannot be played, naming the rule (RULES §8)."""
    _check_deck(rules)
    _check_board(rules)
    _check_arrows_and_tie(rules)
    if (
        isinstance(rules.max_deals, bool)
        or not isinstance(rules.max_deals, int)
        or not 1 <= rules.max_deals <= MAX_DEALS_LIMIT
    ):
        raise RulesetError(
            f"max_deals must be an integer 1..{MAX_DEALS_LIMIT}, got {_short(rules.max_deals)} (RULES §8)", "R19"
        )


def _check_deck(rules: Ruleset) -> None:
    """R1: a count for each rank, within bounds, and at least two ranks."""
    if len(rules.deck) != 12:
        raise RulesetError(f"deck must give a count for each rank 1..12 (12 counts), got {len(rules.deck)}", "R1")
    for rank, c in enumerate(rules.deck, start=1):
        if not 0 <= c <= MAX_COUNT:
            raise RulesetError(
                f"deck: rank {rank} has count {_short(c)}; each count must be 0..{MAX_COUNT} (RULES §8)", "R1"
            )
    if sum(1 for c in rules.deck if c) < 2:
        raise RulesetError("deck: at least two ranks must have cards; with one rank every showdown ties (R17)", "R1")


def _check_board(rules: Ruleset) -> None:
    """R2: a hand size for each space, within bounds; R1: a deck that can
    serve the largest deal and its replacements."""
    if len(rules.board) != SPACES:
        raise RulesetError(f"the board has seven spaces, got {len(rules.board)} hand sizes", "R2")
    lo, hi = HAND_SIZES
    for i, n in enumerate(rules.board):
        if not lo <= n <= hi:
            raise RulesetError(
                f"space {i} deals {_short(n)} cards; a hand size must be at least {lo} and at most {hi} (RULES §8)",
                "R2",
            )
    largest = max(rules.board)
    if rules.deck_size < 4 * largest:
        raise RulesetError(
            f"a deck of {rules.deck_size} cards cannot serve a hand size of {largest}: "
            f"deal and replacement need up to 4 x {largest} = {4 * largest} cards",
            "R1",
        )


def _check_arrows_and_tie(rules: Ruleset) -> None:
    """R3: an arrow for each space; R17: a tie rule."""
    if len(rules.arrows) != SPACES:
        raise RulesetError(f"arrows must give one of both/p0/p1 for each of 7 spaces, got {len(rules.arrows)}", "R3")
    for i, a in enumerate(rules.arrows):
        if a not in ARROW_CHOICES:
            raise RulesetError(f"arrow on space {i} is {a!r}; expected one of both, p0, p1", "R3")
    if rules.tie not in TIE_CHOICES:
        raise RulesetError(f"tie rule {rules.tie!r} unknown; expected redeal or arrow", "R17")


STANDARD = Ruleset()


def load_ruleset(source: str | Path | Mapping[str, Any] | None) -> Ruleset:
    """A ruleset from `None` (standard), the name "standard", a mapping, or a
    path to a .json or .toml file."""
    if source is None or source == "standard":
        return STANDARD
    if isinstance(source, Mapping):
        return Ruleset.from_dict(source)
    path = Path(source)
    return Ruleset.from_dict(_parse_rule_file(path, _read_rule_file(path)))


def _read_rule_file(path: Path) -> str:
    """A ruleset file's text: a few lines of UTF-8."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RulesetError(
                f"ruleset file {str(path)!r} is larger than {MAX_FILE_BYTES} bytes; a ruleset is a few lines"
            )
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise RulesetError(f"cannot read ruleset file {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RulesetError(f"ruleset file {str(path)!r} is not UTF-8 text; expected JSON or TOML") from None
    return text


def _parse_rule_file(path: Path, text: str) -> Any:
    """A ruleset file's data: TOML by its suffix, else JSON."""
    kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
    try:
        data = tomllib.loads(text) if kind == "TOML" else loads_json(text)
    except (RecursionError, TooDeep):
        raise RulesetError(f"ruleset file {str(path)!r} is nested too deeply to be a ruleset") from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise RulesetError(f"ruleset file {str(path)!r} is not valid {kind}: {_short(str(exc), 120)}") from None
    return data


MAX_FILE_BYTES = 1 << 16
