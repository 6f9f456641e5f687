"""Views (information sets, RULES §5) from what a user or a frontend can
give: a few facts typed on a command line, or a JSON object in the short
form {player, hand, seen, opponent_hand_size, attacker, table, rules?} or
the full form of `View.to_dict()`.  Everything else follows from the rules."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from tacocat.errors import NotationError, PositionError, RecordError
from tacocat.errors import shorten as _short
from tacocat.rules.board import Board
from tacocat.rules.cards import parse_cards
from tacocat.rules.game import DUEL, PLAY, REPLACE, View, check_known_counts
from tacocat.rules.history import ANSWER, ATTACK, PlayEvent, history_from_json, history_to_json, parse_history
from tacocat.rules.ruleset import STANDARD, Ruleset, load_ruleset

PHASES = (REPLACE, DUEL, PLAY)


def build_view(
    *,
    hand: Sequence[int] | str,
    seen: Sequence[int] | str | None = (),
    table: Sequence[int] | str | None = (),
    opponent: int | None = None,
    attacker: int | None = None,
    player: int = 0,
    phase: str | None = None,
    cap: int | None = None,
    board: Board | None = None,
    rules: Ruleset = STANDARD,
    notes: list[str] | None = None,
    label: str = "",
    history: str | Sequence[PlayEvent] | None = (),
) -> View:
    """A `View` from the few facts a user can type; everything else (the
    draw pile, who acts, the opponent's hand size when left out) follows
    from the rules.  Cards may be lists of ranks or plain notation; an error
    names the field as `label` + its name (e.g. "--hand" on the command
    line).  Leniency: a defender who gives the opponent's hand size as
    counted before the attack (equal to their own) gets the table
    subtracted, with a note appended to `notes`.  `history`: the round's
    attacks and answers so far (R20), as events or in the notation of
    `tacocat.rules.history.parse_history`, the pending attack on the table
    last; when it leaves the table's attack out, that attack is added."""
    if history is None:
        history = ()
    elif isinstance(history, str):
        try:
            history = parse_history(history)
        except RecordError as exc:
            raise RecordError(f"{label}history: {exc}") from None
    notes = notes if notes is not None else []
    board = board or Board()
    phase = phase or PLAY
    if player not in (0, 1):
        raise PositionError(f"player must be 0 or 1, got {player!r}")
    if phase not in PHASES:
        raise NotationError(f"phase {_short(phase)} unknown; expected one of {', '.join(PHASES)}")
    if board.winner is not None:  # before the arrows and hand sizes of a space it is not on
        raise PositionError(f"the cat stands in player {board.winner}'s goal: the game is over", "R19")
    hand, seen, table = (parse_cards(c, label + what) for c, what in ((hand, "hand"), (seen, "seen"), (table, "table")))
    if not hand:
        raise NotationError('your hand is empty; give your cards, e.g. --hand "2 5 7 9"')
    other = 1 - player
    first_replacer = board.first_replacer(rules)
    replace_cap = None
    if phase == PLAY:
        if attacker is None:
            attacker = other if table else player
        if attacker not in (0, 1):
            raise PositionError(f"attacker must be 0 or 1, got {attacker!r}", "R10")
        if table and attacker == player:
            raise PositionError(
                f"the table holds player {player}'s own attack: player {other} is to answer, not player {player} "
                f"(give --attacker {other}, or --player {other} to ask for the defender)",
                "R12",
            )
        if opponent is None:
            opponent = len(hand) - len(table) if table else len(hand)
        elif table and opponent == len(hand) and len(hand) > len(table):
            opponent = len(hand) - len(table)
            notes.append(
                f"note: the opponent held {len(hand)} cards before attacking with {len(table)}; "
                f"counting {opponent} in their hand now (R10: attacker + table = defender)"
            )
        acting = [1 - attacker] if table else [attacker]
    else:
        if table:
            raise PositionError(f"a table (an attack to answer) exists only in the play phase, not in {phase}", "R10")
        attacker = None
        if opponent is None:
            opponent = len(hand)
        acting = [0, 1]
        if phase == REPLACE:
            if cap is not None:
                if not 0 <= cap <= len(hand):
                    raise PositionError(f"replacement cap {cap} impossible: expected 0..{len(hand)} (R7)", "R7")
                first_replacer, replace_cap, acting = f"p{other}", cap, [player]
            elif first_replacer == f"p{other}":
                raise PositionError(
                    f"on space {board.cat} player {other} replaces first: give --cap N, "
                    f"how many cards they discarded (you may discard at most that many)",
                    "R7",
                )
            elif first_replacer == f"p{player}":
                acting = [player]
    if cap is not None and phase != REPLACE:
        raise NotationError(f"--cap applies to the replace phase only (R7), not {phase}")
    _check_opponent(opponent, hand, seen, table, phase, rules, label)
    # R1 (every known card in the deck) is checked by `view.validate()`
    # below, which rejects the view before this count could mislead anyone.
    pool = rules.deck_size - len(hand) - len(seen) - len(table)
    view = View(
        player=player,
        rules=rules,
        board=board,
        phase=phase,
        hand=hand,
        seen=seen,
        table=table,
        attacker=attacker,
        opponent_hand_size=opponent,
        draw_pile_size=max(pool - opponent, 0),
        first_replacer=first_replacer,
        replace_cap=replace_cap,
        my_pending=None,
        acting=acting,
        history=history_to_json(_with_table(tuple(history), table, attacker)),
        rounds=[],
    )
    view.validate()
    return view


def _check_opponent(
    opponent: int,
    hand: Sequence[int],
    seen: Sequence[int],
    table: Sequence[int],
    phase: str,
    rules: Ruleset,
    label: str,
) -> None:
    """The opponent's hand size follows from yours: both are dealt the same
    number (R6) and every trick takes as many cards from each (R10); refuse
    any other count, or one the unseen cards cannot make (R1), in one line
    naming the rule and what to give."""
    field, mine, shown, laid = (
        (f"{label}opponent", f"{label}hand", f"{label}seen", f"{label}table")
        if label
        else ("opponent_hand_size", "'hand'", "'seen'", "'table'")
    )
    if table and len(table) >= len(hand):
        raise PositionError(
            f"{laid} {' '.join(map(str, table))} is an attack of {len(table)} cards but your {mine} holds {len(hand)}: "
            f"the attacker keeps a card back, so the defender holds at least {len(table) + 1}; give every card you "
            f"hold with {mine}, or the attack as laid with {laid}",
            "R11",
        )
    expected = len(hand) - len(table)
    if phase != PLAY:
        why, rule = (
            (
                f"both players are dealt the same number of cards and replace one for one, so in the "
                f"{phase} phase the opponent holds {expected} like you"
            ),
            "R6",
        )
    elif table:
        why, rule = (
            (
                f"in play the defender holds the attacker's cards plus the table's, so with your {len(hand)} "
                f"against {len(table)} on the table the attacker holds {expected}"
            ),
            "R10",
        )
    else:
        why, rule = (
            f"in play both hands hold the same number of cards, so the opponent holds {expected} like you",
            "R10",
        )
    if opponent != expected:
        raise PositionError(f"{field} {opponent}: {why}; give {field} {expected}, or leave it out", rule)
    check_known_counts(rules, hand, seen, table)  # first: it names the card counted twice
    unseen = rules.deck_size - len(hand) - len(seen) - len(table)
    if opponent > unseen:
        raise PositionError(
            f"{mine}, {shown} and {laid} name {rules.deck_size - unseen} of the deck's {rules.deck_size} cards, "
            f"which leaves {unseen} unseen, fewer than the opponent's {opponent}: {shown} lists this round's "
            f"face-up cards only (every deal shuffles the whole deck, R6)",
            "R1",
        )


def _with_table(events: tuple[PlayEvent, ...], table: Sequence[int], attacker: int | None) -> tuple[PlayEvent, ...]:
    """A history that ends with a finished trick, given with an attack on
    the table: the table's attack is the next event (R10)."""
    if events and table and attacker in (0, 1) and events[-1].event == ANSWER:
        return events + (PlayEvent(ATTACK, attacker, tuple(sorted(table))),)
    return events


VIEW_KEYS = {
    "player",
    "hand",
    "seen",
    "opponent_hand_size",
    "attacker",
    "table",
    "rules",
    "phase",
    "board",
    "replace_cap",
}
FULL_VIEW_KEYS = {"draw_pile_size", "acting", "first_replacer", "history", "rounds", "my_pending", "unseen_pool"}


def view_from_json(data: Any, notes: list[str] | None = None, *, allow_rule_files: bool = False) -> View:
    """A view from JSON: either a full `View.to_dict()` or the short form
    {player, hand, seen, opponent_hand_size, attacker, table, rules?,
    phase?, board?, replace_cap?}."""
    if not isinstance(data, Mapping):
        raise RecordError(
            "a view must be a JSON object with keys player, hand, seen, opponent_hand_size, attacker, table"
        )
    unknown = set(data) - VIEW_KEYS - FULL_VIEW_KEYS
    if unknown:
        raise RecordError(
            f"unknown view key(s) {sorted(unknown)}; expected player, hand, seen, opponent_hand_size, "
            "attacker, table, rules, phase, board, replace_cap, history"
        )
    if "hand" not in data:
        raise RecordError('view is missing "hand" (your cards, e.g. [2, 5, 7, 9])')
    rules_src = data.get("rules")
    if rules_src is not None and not isinstance(rules_src, (str, Mapping)):
        raise RecordError("view 'rules' must be a ruleset object, a file path or \"standard\"")
    if isinstance(rules_src, str) and rules_src != "standard" and not allow_rule_files:
        raise RecordError("view 'rules' must be a ruleset object or \"standard\"")
    rules = load_ruleset(rules_src)
    if "draw_pile_size" in data and "acting" in data:
        full = dict(data)
        full["rules"] = rules.to_dict()
        for key in ("hand", "seen", "table"):
            full[key] = list(parse_cards(data.get(key), key))
        return View.from_dict(full)
    board_data = data.get("board")
    board = Board.from_dict(board_data, "view board") if board_data is not None else Board()
    phase = data.get("phase")
    if phase is not None and (not isinstance(phase, str) or phase not in PHASES):
        raise RecordError(f"view 'phase' must be one of {', '.join(PHASES)}, got {_short(phase)}")

    def int_or_none(key: str) -> int | None:
        v = data.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise RecordError(f"view {key!r} must be an integer, got {_short(v)}")
        return v

    return build_view(
        hand=data.get("hand"),
        seen=data.get("seen"),
        table=data.get("table"),
        opponent=int_or_none("opponent_hand_size"),
        attacker=int_or_none("attacker"),
        player=int_or_none("player") or 0,
        phase=phase,
        cap=int_or_none("replace_cap"),
        board=board,
        rules=rules,
        notes=notes,
        history=history_from_json(data.get("history")),
    )
