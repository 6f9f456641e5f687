"""No `internal`, ever, for documents (issue 20): every game state, game
record and view a client sends is read field by field, and a wrong one is
refused as `bad_record`, `impossible_position` or `bad_field`, naming the
field — never an uncaught exception inside a reader.

The fuzzer takes valid documents from real seeded games (states, records
and views at every decision of a few games, under the standard ruleset and
a small one), changes one field at a time (wrong types, huge and negative
numbers, out-of-range values, missing and extra keys, nesting, lists one
card longer or shorter, another valid word) and sends each to
`EngineSession().handle` as `new_game` with a state or a record, `hint`
with a view, and `solve` mode equilibrium with a small endgame's view.
Mutants are grouped in classes (document, field pattern, mutation); each
class is tried on a few seeded instances."""

from __future__ import annotations

import collections
import copy
import json
import random
import re
from typing import Any, Iterator

import pytest
from fuzz_doors import ProtocolDoor
from rulesets import TWELVE_CARDS

from tacocat.errors import RecordError
from tacocat.protocol.session import EngineSession
from tacocat.rules.game import PLAY, GameRecord, GameState
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.rules.views import VIEW_KEYS, View, view_from_json

SMALL = Ruleset.from_dict(TWELVE_CARDS)
"""Twelve cards, hands of two or three (`rulesets.TWELVE_CARDS`)."""

GAMES = [(STANDARD, 1, 30), (STANDARD, 2, 70), (SMALL, 3, 80), (SMALL, 4, 80)]
"""(ruleset, seed, decisions at most): the games the documents come from."""
QUICK_GAMES = [(STANDARD, 1, 12), (SMALL, 3, 40)]
"""Fewer, shorter games for the quick round (the same fields, fewer instances)."""

DELETE = object()
"""A mutation's answer meaning "remove this key"."""

INTS = [-1, 0, 1, 2, 7, 12, 13, 2**63]


def _mutations(value: Any, in_dict: bool) -> list[tuple[str, Any]]:
    """(name, replacement) for one node: every node gets the hostile
    types; ints, lists, strings and objects also get their own kinds."""
    out: list[tuple[str, Any]] = [
        ("null", None),
        ("bool", True),
        ("text", "x"),
        ("huge", 10**400),
        ("inf", float("inf")),
        ("list", [value]),
        ("dict", {"x": value}),
        ("deep", _deep(value, 40)),
        ("empty-list", []),
        ("empty-dict", {}),
    ]
    out += [(f"int {i}", i) for i in INTS if i != value]
    if in_dict:
        out.append(("missing", DELETE))
    if isinstance(value, bool):
        out += [("bool as int", int(value)), ("not", not value)]
    elif isinstance(value, int):
        out += [
            ("float", float(value)),
            ("digits", str(value)),
            ("negative", -value - 1),
            ("plus one", value + 1),
            ("float 1e308", 1e308),
        ]
    elif isinstance(value, str):
        out += [(f"word {w}", w) for w in WORDS if w != value]
    elif isinstance(value, list):
        out += [
            ("tuple-ish", {"0": value}),
            ("drop last", value[:-1]),
            ("append", value + [value[-1] if value else 1]),
            ("reversed", value[::-1]),
            ("append 0.0", value + [0.0]),
            ("append null", value + [None]),
        ]
    elif isinstance(value, dict):
        out += [("extra key", {**value, "zz": 1}), ("list of it", [value])]
    return out


WORDS = [
    "replace",
    "duel",
    "play",
    "over",
    "attack",
    "answer",
    "deal",
    "showdown",
    "both",
    "p0",
    "p1",
    "tacocat-state",
    "tacocat-record",
    "standard",
    "arrow",
    "redeal",
]


def _deep(leaf: Any, levels: int) -> Any:
    for _ in range(levels):
        leaf = [leaf]
    return leaf


def _walk(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, value) below `node` (the root itself excluded)."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield path + (key,), value
        yield from _walk(value, path + (key,))


def _pattern(doc: Any, path: tuple) -> str:
    """The field a path names, list indices folded: `history[attack].cards[*]`."""
    out, node = "", doc
    for key in path:
        child = node[key]
        if isinstance(key, int):
            tag = child.get("event", child.get("kind")) if isinstance(child, dict) else None
            out += f"[{tag if isinstance(tag, str) else '*'}]"
        else:
            out += f".{key}" if out else key
        node = child
    return out


def _mutate(doc: Any, path: tuple, replacement: Any) -> Any:
    """`doc` with the node at `path` replaced (or deleted): the containers
    on the path are copied, the rest is shared with `doc` (the readers
    never write into a request; `fuzz` checks the sources stay as they were)."""
    top = copy.copy(doc)
    parent = top
    for key in path[:-1]:
        parent[key] = copy.copy(parent[key])
        parent = parent[key]
    if replacement is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(replacement)
    return top


# ------------------------------------------------------------ the documents


def _decisions(rules: Ruleset, seed: int, limit: int) -> Iterator[GameState]:
    """The state at every decision of one seeded game (random legal play)."""
    state = GameState.new(rules, seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if state.over:
            return
        yield state.clone()
        p = rng.choice(state.acting_players())
        state.apply(p, rng.choice(state.legal_actions(p)))
    yield state.clone()


def _short_view(view: View) -> dict:
    """The short form `tacocat hint --view` reads."""
    full = view.to_dict()
    short = {k: full[k] for k in sorted(VIEW_KEYS)}
    short["history"] = [dict(e) for e in full["history"] if e["event"] in ("attack", "answer")]
    if view.phase != "replace" or view.first_replacer == "both" or view.replace_cap is None:
        short["replace_cap"] = None
    return short


def _small_endgame(view: View) -> bool:
    return view.phase == PLAY and len(view.hand) <= 3 and view.opponent_hand_size <= 3


def source_documents(games: list[tuple[Ruleset, int, int]] = GAMES) -> dict[str, list[dict]]:
    """Valid documents by kind: state, record, view (full), short view
    (each view is one of an acting player's), endgame view (play phase,
    three cards or fewer each)."""
    docs: dict[str, list[dict]] = collections.defaultdict(list)
    for rules, seed, limit in games:
        for state in _decisions(rules, seed, limit):
            docs["state"].append(state.to_dict())
            docs["record"].append(state.record().to_dict())
            for p in state.acting_players():
                view = state.view(p)
                docs["view"].append(view.to_dict())
                docs["short view"].append(_short_view(view))
                if _small_endgame(view) and rules is SMALL:
                    docs["endgame view"].append(view.to_dict())
    return docs


def requests_for(kind: str, doc: Any) -> list[tuple[str, dict]]:
    if kind == "state":
        return [("new_game", {"cmd": "new_game", "state": doc})]
    if kind == "record":
        return [("new_game", {"cmd": "new_game", "record": doc})]
    if kind in ("view", "short view"):
        return [("hint", {"cmd": "hint", "view": doc, "iterations": 1})]
    return [("equilibrium", {"cmd": "solve", "mode": "equilibrium", "view": doc, "time_ms": 50})]


def mutants(
    docs: dict[str, list[dict]], per_class: int, seed: int = 20, kinds: tuple[str, ...] | None = None
) -> Iterator[tuple[str, str, str, Any]]:
    """(kind, field pattern, mutation, mutated document): every class
    (kind, pattern, mutation) found in `docs`, each on `per_class` seeded
    instances (different documents and list positions)."""
    rng = random.Random(seed)
    for kind in kinds or tuple(docs):
        fields: dict[str, list[tuple[int, tuple]]] = collections.defaultdict(list)
        for i, doc in enumerate(docs[kind]):
            for path, _ in _walk(doc):
                fields[_pattern(doc, path)].append((i, path))
        for pattern in sorted(fields):
            members = fields[pattern]
            rng.shuffle(members)
            # The mutations a field takes depend on its value's type (a
            # winner is null or 0|1): each class draws from the members that have it.
            taken: collections.Counter = collections.Counter()
            served: set[tuple] = set()
            for i, path in members:
                doc = docs[kind][i]
                value, in_dict = _get(doc, path), isinstance(_parent(doc, path), dict)
                sort = (type(value), in_dict, value if isinstance(value, (bool, int, str)) else None)
                if sort in served:
                    continue  # its classes have their instances: skip the rest of its kind cheaply
                mutations = _mutations(value, in_dict)
                for name, replacement in mutations:
                    if taken[name] < per_class:
                        taken[name] += 1
                        yield kind, pattern, name, _mutate(doc, path, replacement)
                if all(taken[name] >= per_class for name, _ in mutations):
                    served.add(sort)


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _parent(doc: Any, path: tuple) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


class DocumentDoor(ProtocolDoor):
    """The protocol door (fuzz_doors.py: an answer, strict JSON, a code in
    the table and never `internal`), counting `internal` answers by class;
    games a mutant opens are ended at once (room for the next)."""

    def __init__(self) -> None:
        super().__init__(EngineSession(max_time_ms=200, max_games=50), name="documents")
        self.internal: collections.Counter = collections.Counter()
        self.examples: dict[tuple, str] = {}

    def try_document(self, kind: str, pattern: str, mutation: str, doc: Any) -> None:
        for door, request in requests_for(kind, doc):
            self.tried += 1
            response = self.session.handle(request)
            before = len(self.failures)
            self.check_response(request, response, None)
            if response.get("ok") and response.get("cmd") == "new_game":
                r = response["result"]
                self.session.handle({"cmd": "end_game", "game": r["game"], "token": r["tokens"]["owner"]})
            if len(self.failures) > before and not response.get("ok") and response["error"]["code"] == "internal":
                key = (door, kind, pattern, mutation)
                self.internal[key] += 1
                self.examples.setdefault(key, response["error"]["message"])


def fuzz(
    per_class: int, kinds: tuple[str, ...] | None = None, seed: int = 20, games: list[tuple[Ruleset, int, int]] = GAMES
) -> DocumentDoor:
    door = DocumentDoor()
    docs = source_documents(games)
    if games is QUICK_GAMES:  # every third decision: the same fields, a third of the searches
        docs = {k: v[::3] if k != "endgame view" else v for k, v in docs.items()}
    before = json.dumps(docs, sort_keys=True)
    for kind, pattern, mutation, doc in mutants(docs, per_class, seed, kinds):
        door.try_document(kind, pattern, mutation, doc)
    if json.dumps(docs, sort_keys=True) != before:
        door.fail("a reader wrote into a request's document (the fuzzer's sources changed)")
    return door


def _report(door: DocumentDoor) -> str:
    lines = [f"{n} x {' / '.join(k)}: {door.examples[k]}" for k, n in door.internal.most_common()]
    other = [f for f in door.failures if not f.startswith("internal")]
    return "\n".join(lines + other[:20])


# ------------------------------------------------------------------ tests


@pytest.fixture(scope="module")
def docs() -> dict[str, list[dict]]:
    return source_documents()


def test_source_documents_are_valid_and_cover_every_phase(docs):
    # The fuzzer starts from documents the readers accept: a mutant's
    # refusal is then the mutation's doing.
    for kind in docs:
        assert docs[kind], kind
    for doc in docs["state"][::7]:
        assert GameState.from_dict(doc).to_dict() == doc
    for doc in docs["record"][::7]:
        assert GameRecord.from_dict(doc).replay().actions == doc["actions"]
    for doc in docs["view"][::5] + docs["short view"][::5]:
        view_from_json(doc)
    phases = {d["phase"] for d in docs["state"]}
    assert {"replace", "duel", "play"} <= phases
    assert len(docs["endgame view"]) >= 5


KINDS = ["state", "record", "view", "short view", "endgame view"]
REFUSALS = {"bad_record", "impossible_position", "bad_field", "bad_ruleset", "bad_json"}
"""What a mutated document may be answered with (bad_json: nested deeper
than a request may be)."""


@pytest.mark.parametrize("kind", KINDS)
def test_one_mutant_of_every_class_is_refused_cleanly(kind):
    door = fuzz(1, (kind,), seed=20, games=QUICK_GAMES)
    assert door.tried > 300
    assert not door.internal and not door.failures, _report(door)
    # Both sides of the door are reached: some mutants stay valid (null for
    # an absent optional field), most are refused, each with a table code.
    assert door.codes.get("ok", 0) > 0 and door.codes.get("bad_record", 0) > door.tried // 3, door.codes
    assert set(door.codes) - {"ok"} <= REFUSALS, door.codes


@pytest.mark.slow
@pytest.mark.parametrize("per_class, seed", [(1, 20), (3, 21)])
@pytest.mark.parametrize("kind", KINDS)
def test_every_class_on_every_game(kind, per_class, seed):
    door = fuzz(per_class, (kind,), seed=seed)
    assert door.tried > 500
    assert not door.internal and not door.failures, _report(door)
    assert set(door.codes) - {"ok"} <= REFUSALS, door.codes


# ----------------------------------------------- the cases issue 20 names


def _play_state(rules: Ruleset = STANDARD, seed: int = 3) -> GameState:
    return next(s for s in _decisions(rules, seed, 200) if s.phase == PLAY)


def _answer(request: dict) -> dict:
    return EngineSession(max_time_ms=100).handle(request)


def _error(request: dict) -> dict:
    response = _answer(request)
    assert not response["ok"], response
    return response["error"]


def test_play_state_without_attacker_is_an_impossible_position():
    doc = _play_state().to_dict()
    doc["attacker"] = None
    error = _error({"cmd": "new_game", "state": doc})
    assert error["code"] == "impossible_position" and "R10" in error["message"] and "attacker" in error["message"]


@pytest.mark.parametrize("player", [0.0, 1.0, True, "0", None, [0], 2, -1])
def test_record_action_player_must_be_the_integer_0_or_1(player):
    doc = _play_state().record().to_dict()
    doc["actions"][0]["player"] = player
    error = _error({"cmd": "new_game", "record": doc})
    assert error["code"] == "bad_record" and "action 1" in error["message"] and "player" in error["message"]


@pytest.mark.parametrize("cat", [7, -1, 7.0, 3.0, 1e400, float("inf"), "3", True, None, 10**400, [3]])
@pytest.mark.parametrize("form", ["full", "short"])
def test_view_board_cat_off_the_board_or_not_an_integer(cat, form):
    state = _play_state()
    view = state.view(state.acting_players()[0])
    doc = view.to_dict() if form == "full" else _short_view(view)
    doc["board"]["cat"] = cat
    error = _error({"cmd": "hint", "view": doc, "iterations": 1})
    assert error["code"] in ("bad_record", "impossible_position"), error
    assert "cat" in error["message"] or "goal" in error["message"]


@pytest.mark.parametrize("version", [0, 2, 1.0, "1", True, None, 10**400])
@pytest.mark.parametrize("kind", ["state", "record"])
def test_version_must_be_the_one_this_code_writes(kind, version):
    state = _play_state()
    doc = state.to_dict() if kind == "state" else state.record().to_dict()
    doc["version"] = version
    error = _error({"cmd": "new_game", kind: doc})
    assert error["code"] == "bad_record"
    assert "'version'" in error["message"] and "1" in error["message"] and "\n" not in error["message"]


@pytest.mark.parametrize("kind", ["state", "record"])
def test_version_left_out_or_1_reads(kind):
    state = _play_state()
    doc = state.to_dict() if kind == "state" else state.record().to_dict()
    assert _answer({"cmd": "new_game", kind: doc})["ok"]
    del doc["version"]
    response = _answer({"cmd": "new_game", kind: doc})
    assert response["ok"], response


def test_documents_round_trip_unchanged():
    # Validation must not change what a valid document means.
    for rules, seed, limit in GAMES[::2]:
        for state in _decisions(rules, seed, limit):
            doc = json.loads(json.dumps(state.to_dict()))
            assert GameState.from_dict(doc).to_dict() == doc
            record = json.loads(json.dumps(state.record().to_dict()))
            assert GameRecord.from_dict(record).replay().to_dict() == state.to_dict()
            for p in state.acting_players():
                assert View.from_dict(state.view(p).to_dict()) == state.view(p)


def test_pattern_names_fields_by_event():
    doc = {"history": [{"event": "deal", "cat": 3}, {"event": "attack", "cards": [4]}]}
    assert _pattern(doc, ("history", 1, "cards", 0)) == "history[attack].cards[*]"
    assert re.fullmatch(r"history\[deal\]\.cat", _pattern(doc, ("history", 0, "cat")))


def test_full_view_acting_must_follow_from_attacker_and_table():
    # Found by the fuzzer: a play view with attacker flipped but acting
    # kept reached the search, which refused the position as `internal`.
    state = _play_state()
    doc = state.view(state.acting_players()[0]).to_dict()
    doc["attacker"] = 1 - doc["attacker"]
    error = _error({"cmd": "hint", "view": doc, "iterations": 1})
    assert error["code"] == "impossible_position" and "acting" in error["message"] and "R10" in error["message"]


def test_replace_view_with_face_up_cards_nobody_discarded():
    # Found by the fuzzer: seen cards in the replace phase before anyone
    # replaced left a draw pile too small for the replacements (R7-R8).
    state = next(
        s
        for s in _decisions(SMALL, 3, 50)
        if s.phase == "replace" and s.first_replacer != "both" and s.replace_cap is None
    )
    view = state.view(state.acting_players()[0])
    doc = _short_view(view)
    doc["seen"] = sorted(view.unseen_pool)[:2]
    error = _error({"cmd": "hint", "view": doc, "iterations": 1})
    assert error["code"] == "impossible_position" and "R7" in error["message"] and "seen" in error["message"]


# ------------------------------------------------------------ a record's keys (issue 33, N10)


@pytest.mark.parametrize("key", ["seeed", "comment", "Actions"])
def test_a_record_with_an_unknown_key_is_refused_naming_it(key):
    # A state's unknown key was refused and a record's dropped without a
    # word: a misspelt field then read as absent.
    doc = {**_play_state().record().to_dict(), key: 1}
    error = _error({"cmd": "new_game", "record": doc})
    assert error["code"] == "bad_record" and key in error["message"] and "unknown" in error["message"], error
    assert "\n" not in error["message"]
    with pytest.raises(RecordError, match=f"unknown field.*{key}"):
        GameRecord.from_dict(doc)


def test_a_record_from_play_save_is_still_read():
    # what `tacocat play --save` writes beside the game
    doc = {
        **_play_state().record().to_dict(),
        "players": {"0": "human", "1": "pimc"},
        "bot_budget": {"iterations": 5},
        "undos": [{"at": 1, "taken_back": []}],
    }
    assert _answer({"cmd": "new_game", "record": doc})["ok"]
    assert GameRecord.from_dict(doc).seed == doc["seed"]


@pytest.mark.parametrize("command", ["analyze", "play"])
def test_a_record_file_with_an_unknown_key_is_a_one_line_error(tmp_path, command):
    from helpers import one_line_error, run_cli

    path = tmp_path / "game.json"
    path.write_text(json.dumps({**_play_state().record().to_dict(), "undo": []}))
    args = ["analyze", str(path)] if command == "analyze" else ["play", "--resume", str(path)]
    one_line_error(run_cli(args, stdin=""), "unknown field", "undo")
