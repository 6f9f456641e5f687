"""Six-card endgames (issue 36, deliverable 4): solved where the round's
history narrows the hands enough (R20: a sacrifice leaves its player no
card below the cards it gave up), refused otherwise with the floors a
narrower history would need for the tree to fit."""

from __future__ import annotations

import re

import pytest

from tacocat.core import _cfr  # type: ignore[attr-defined]
from tacocat.errors import PositionError
from tacocat.rules.cards import counts, hand
from tacocat.rules.history import parse_history
from tacocat.rules.ruleset import STANDARD
from tacocat.search.equilibrium import Endgame, EndgameTooLarge, solve

# both players sacrificed a 7: six cards each of rank 7 or more (~2 M sequences, tens of MB)
HISTORY = parse_history(
    "p1 attacks 9; p0 answers 7 sacrifice; p1 attacks 10; p0 answers 12 beat; p0 attacks 11; p1 answers 7 sacrifice"
)
HISTORY_88 = (
    "p1 attacks 9; p0 answers 8 sacrifice; p1 attacks 10; p0 answers 12 beat; p0 attacks 11; p1 answers 8 sacrifice"
)
NARROW = Endgame(STANDARD, hand([c for e in HISTORY for c in e.cards]), HISTORY, (), 0, (6, 6))
WIDE = Endgame(STANDARD, hand([1, 2, 3, 4]), (), (), 0, (6, 6))  # no history: ~100 GB
LARGE = Endgame(STANDARD, hand([1, 2, 9, 12]), (), (), 0, (4, 4))  # 4 cards: fast to estimate (5.6 MB)


@pytest.mark.slow
def test_a_six_card_endgame_narrowed_by_its_history_is_solved():
    assert NARROW.floors == (7, 7)
    r = solve(NARROW, hand_of=(0, (8, 8, 9, 10, 11, 12)), threads=2)
    assert r.exploitability <= 1e-3 and r.hand_regret is not None and r.hand_regret <= 1e-3
    assert r.peak_bytes < 200_000_000 and max(r.endgame.sizes) == 6


def _suggested(message: str) -> tuple[int, int, float]:
    m = re.search(r"no card below (\d+) and player 1 none below (\d+) would fit: about (\d+) MB", message)
    assert m, message
    return int(m[1]), int(m[2]), float(m[3])


def test_a_refusal_says_how_much_narrower_the_hands_must_be():
    with pytest.raises(EndgameTooLarge) as err:
        solve(LARGE, max_bytes=4_000_000)
    message = str(err.value)
    assert "\n" not in message and "over the cap of 4 MB (a history whose sacrifices (R20)" in message
    f0, f1, mb = _suggested(message)
    assert (f0, f1) > LARGE.floors and mb <= 4
    # the suggestion is honest: the tree with those floors is estimated under the cap with the full estimate too
    eng = _cfr.Engine(counts(LARGE.pool), 4, 4, 0, counts(()), f0, f1, LARGE.utilities)
    eng.keep_lower = True
    _, seqs, _ = eng.estimate(512)
    assert seqs * 16 < 1.3 * 4_000_000


@pytest.mark.slow
def test_a_wide_six_card_endgame_is_refused_with_the_floors_that_would_fit():
    with pytest.raises(EndgameTooLarge) as err:
        solve(WIDE)
    f0, f1, mb = _suggested(str(err.value))
    assert min(f0, f1) > 1 and mb <= 2000


def test_floors_the_unseen_cards_cannot_meet_together_are_refused_naming_r20():
    events = parse_history(HISTORY_88)
    eg = Endgame(STANDARD, hand([c for e in events for c in e.cards]), events, (), 0, (6, 6))
    assert eg.floors == (8, 8)  # each floor alone leaves six cards, both together need twelve of the nine
    with pytest.raises(PositionError, match="R20: players 0 and 1 must hold 6 and 6 cards of ranks >= 8 and >= 8"):
        eg.check()
