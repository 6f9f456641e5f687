"""Views the door and client tests share: one six-card deal seen from
either seat, so that a change to a view's shape is made once.  Tests pass
them to requests as they are and never change them in place."""

from __future__ import annotations

PLAY_VIEW = {
    "player": 1,
    "hand": [2, 4, 6, 9, 11, 12],
    "seen": [1, 3],
    "opponent_hand_size": 5,
    "attacker": 0,
    "table": [8],
}
"""Player 1 must answer player 0's 8 with six cards: a decision with many
answers, for a hint or a search to work on."""

OPENING_VIEW = {**PLAY_VIEW, "player": 0, "opponent_hand_size": 6, "table": []}
"""The same hand held by player 0, who attacks first with six cards each: a search that takes as long
as it is given, for tests that stop one or cap its time."""
