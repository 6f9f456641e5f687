"""The engine protocol without a transport (solver/protocol.py), and the
JSON Lines transport (tacocat.protocol.jsonlines.serve_lines) driven by scripted
transcripts in-process.  Searches are stand-ins here (a fake hint that runs
until stopped); the real searches are exercised in test_engine_cli.py and
test_http.py."""

from __future__ import annotations

import io
import json
import os
import random
import threading
import time

import pytest
from seats import Seated

import tacocat
from tacocat.protocol.commands import COMMANDS
from tacocat.protocol.jsonlines import serve_lines
from tacocat.protocol.moves import resolve_bot
from tacocat.protocol.session import EngineSession, SearchJob
from tacocat.protocol.wire import ERROR_CODES, PROTOCOL_VERSION
from tacocat.rules.game import GameRecord, GameState


def seated(session: EngineSession) -> Seated:
    """The session behind a client that keeps each game's tokens (and
    calls the games g1, g2, ...): every game request carries its seat's
    token, or the owner's.  Tests of the tokens themselves are in
    test_session_robustness.py."""
    if not hasattr(session, "_test_client"):
        session._test_client = Seated(session.handle)
    return session._test_client


class FakeHint:
    """Stands in for tacocat.search.hint.hint: answers after `seconds` or as soon
    as `stop` is set, and remembers what it was asked."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.calls: list[dict] = []
        self.started = threading.Event()

    def __call__(self, view, *, iterations=None, time_ms=None, seed=0, method="auto", stop=None, utilities="game"):
        self.calls.append({"view": view, "iterations": iterations, "time_ms": time_ms, "seed": seed, "method": method})
        self.started.set()
        t0 = time.perf_counter()
        if stop is not None:
            stop.wait(self.seconds)
        actions = view.legal_actions()
        return {
            "method": "fake",
            "seconds": time.perf_counter() - t0,
            "moves": [a.to_dict() for a in actions],
            "best": actions[0].to_dict(),
            "iterations": iterations,
        }


def ok(response: dict) -> dict:
    assert response["ok"], response
    return response["result"]


def err(response: dict, code: str) -> dict:
    assert not response["ok"], response
    assert response["error"]["code"] == code, response
    assert response["error"]["code"] in ERROR_CODES
    assert response["error"]["message"]
    return response["error"]


def test_hello_reports_versions_rules_and_commands():
    r = seated(EngineSession(max_time_ms=500)).handle({"id": "h", "cmd": "hello"})
    assert r["id"] == "h" and r["cmd"] == "hello"
    result = ok(r)
    assert result["protocol"] == PROTOCOL_VERSION == "3.2"
    assert result["version"] == tacocat.__version__
    assert result["rules"]["name"] == "standard" and sum(result["rules"]["deck"]) == 38
    assert result["commands"] == list(COMMANDS)
    for name in (
        "hello",
        "set_rules",
        "new_game",
        "apply",
        "move",
        "legal",
        "view",
        "state",
        "record",
        "hint",
        "solve",
        "stop",
        "quit",
    ):
        assert name in result["commands"]
    assert result["limits"]["max_time_ms"] == 500


# A scripted conversation: each request with (a part of) the answer it must get.
TRANSCRIPT = [
    (
        {"id": 1, "cmd": "new_game", "seed": 42},
        {"ok": True, "result": {"game": "g1", "seed": 42, "phase": "replace", "acting": [0, 1]}},
    ),
    (
        {"id": 2, "cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "duel", "cards": [3]}},
        {"ok": False, "error": {"code": "illegal_action"}},
    ),
    (
        {"id": 3, "cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "replace", "cards": []}},
        {"ok": True, "result": {"round": None}},
    ),
    ({"id": 4, "cmd": "legal", "game": "g1", "player": 0}, {"ok": True, "result": {"decision": None, "actions": []}}),
    (
        {"id": 5, "cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "replace", "cards": []}},
        {"ok": False, "error": {"code": "illegal_action"}},
    ),
    (
        {"id": 6, "cmd": "apply", "game": "g9", "player": 0, "token": "x", "action": {"kind": "replace", "cards": []}},
        {"ok": False, "error": {"code": "bad_field", "field": "game"}},
    ),
    ({"id": 7, "cmd": "legal", "game": "g1"}, {"ok": False, "error": {"code": "missing_field", "field": "player"}}),
    (
        {"id": 8, "cmd": "legal", "game": "g1", "player": 2},
        {"ok": False, "error": {"code": "bad_field", "field": "player"}},
    ),
    (
        {"id": 9, "cmd": "legal", "game": "g1", "player": "1"},
        {"ok": False, "error": {"code": "bad_field", "field": "player"}},
    ),
    (
        {"id": 10, "cmd": "legal", "game": "g1", "player": True},
        {"ok": False, "error": {"code": "bad_field", "field": "player"}},
    ),
    (
        {"id": 11, "cmd": "legal", "game": "g1", "player": 1, "colour": "red"},
        {"ok": False, "error": {"code": "bad_field", "field": "colour"}},
    ),
    ({"id": 12, "cmd": "castle"}, {"ok": False, "error": {"code": "unknown_command", "field": "cmd"}}),
    ({"id": 13}, {"ok": False, "error": {"code": "missing_field", "field": "cmd"}}),
    ({"id": 14, "cmd": 5}, {"ok": False, "error": {"code": "bad_field", "field": "cmd"}}),
    ({"id": [1], "cmd": "hello"}, {"ok": False, "error": {"code": "bad_field", "field": "id"}}),
    (
        {"id": "s", "cmd": "set_rules", "rules": {"board": [4, 6, 9, 7, 9, 6, 1]}},
        {"ok": False, "error": {"code": "bad_ruleset"}},
    ),
    ({"id": "t", "cmd": "set_rules", "rules": "wild"}, {"ok": False, "error": {"code": "bad_field"}}),
    ({"id": "u", "cmd": "new_game", "record": {"format": "nope"}}, {"ok": False, "error": {"code": "bad_record"}}),
    ({"id": "v", "cmd": "new_game", "seed": 1, "record": {}}, {"ok": False, "error": {"code": "bad_field"}}),
    (
        {"id": "w", "cmd": "apply", "game": "g1", "player": 1, "action": {"kind": "replace", "cards": [13]}},
        {"ok": False, "error": {"code": "bad_field"}},
    ),
    (
        {"id": "x", "cmd": "apply", "game": "g1", "player": 1, "action": {"kind": "replace", "cards": [], "why": 1}},
        {"ok": False, "error": {"code": "bad_field"}},
    ),
    (
        {"id": "y", "cmd": "apply", "game": "g1", "player": 1, "action": ["replace"]},
        {"ok": False, "error": {"code": "bad_field", "field": "action"}},
    ),
    ({"id": None, "cmd": "games"}, {"ok": True, "result": {"games": [{"game": "g1", "actions": 1}]}}),
]


def matches(actual, expected) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list) and expected and isinstance(expected[0], dict):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(matches, actual, expected))
    return actual == expected


def test_scripted_transcript():
    session = EngineSession()
    for request, expected in TRANSCRIPT:
        response = seated(session).handle(request)
        # The id comes back as sent, the same value of the same type (1 is
        # not 1.0 or true); a malformed id is itself the error (field id).
        sent = request.get("id")
        assert response["id"] == sent and type(response["id"]) is type(sent), (request, response)
        if isinstance(sent, bool) or not isinstance(sent, (str, int, float, type(None))):
            assert not response["ok"] and response["error"]["field"] == "id", (request, response)
        assert matches(response, expected), (request, response)
        if not response["ok"]:
            assert set(response) <= {"id", "ok", "cmd", "error"}
        else:
            assert set(response) == {"id", "ok", "cmd", "result"}


def test_a_result_that_is_not_json_is_an_internal_error():
    from tacocat.protocol.wire import decode_request, encode_response

    session = EngineSession(hint_fn=lambda view, **kw: {"moves": [], "value": {1, 2}})  # a set is not JSON
    line = encode_response(session.handle({"id": 3, "cmd": "hint", "view": VIEW}))  # a view needs no token
    assert json.loads(line)["error"]["code"] == "internal" and json.loads(line)["id"] == 3
    assert decode_request(b'{"id": Infinity, "cmd": "hello"}')[1]["error"]["code"] == "bad_json"


def test_not_an_object_is_bad_json():
    session = EngineSession()
    for request in ([1, 2], "hello", 3, None):
        err(seated(session).handle(request), "bad_json")


def test_illegal_action_leaves_the_game_unchanged_and_the_session_serving():
    session = EngineSession()
    ok(seated(session).handle({"cmd": "new_game", "seed": 7}))
    before = ok(seated(session).handle({"cmd": "state", "game": "g1"}))["state"]
    bad = [
        {"kind": "duel", "cards": [1]},
        {"kind": "replace", "cards": [12, 12, 12, 12, 12]},
        {"kind": "attack", "cards": [5]},
        {"kind": "answer", "cards": [5]},
        {"kind": "replace", "cards": "x"},
    ]
    for action in bad:
        r = seated(session).handle({"cmd": "apply", "game": "g1", "player": 0, "action": action})
        assert not r["ok"] and r["error"]["code"] in ("illegal_action", "bad_field", "bad_record"), r
    assert ok(seated(session).handle({"cmd": "state", "game": "g1"}))["state"] == before
    assert ok(seated(session).handle({"cmd": "hello"}))["protocol"] == PROTOCOL_VERSION


def test_round_search_has_one_reader_the_command_table():
    """`round_search` is read by the command table alone: each door that
    reaches a bot's budget (`move`, and new_game's `engine` seat, which
    takes no round_search) refuses a value that is not a boolean there,
    naming the field; a caller that skipped the table fails rather than
    have "yes" switch the round search on."""
    session = EngineSession()
    ok(seated(session).handle({"cmd": "new_game", "seed": 7}))
    for bad in ("yes", 1):
        e = err(seated(session).handle({"cmd": "move", "game": "g1", "player": 0, "round_search": bad}), "bad_field")
        assert e["field"] == "round_search" and e["message"].startswith("move: 'round_search' must be boolean")
    engine = {"seat": 1, "bot": "pimc", "round_search": True}
    e = err(seated(session).handle({"cmd": "new_game", "seed": 7, "engine": engine}), "bad_field")
    assert e["field"] == "engine" and "round_search" in e["message"]
    assert resolve_bot({"bot": "pimc", "round_search": True})[1] == {"round_search": 1}
    with pytest.raises(AssertionError, match="command table"):
        resolve_bot({"bot": "pimc", "round_search": "yes"})


def play_through(session: EngineSession, game: str, rng: random.Random, limit: int = 5000) -> dict:
    """Play a game to its end, each bot choosing uniformly from `legal`."""
    for _ in range(limit):
        status = ok(seated(session).handle({"cmd": "games"}))["games"]
        status = next(s for s in status if s["game"] == game)
        if status["over"]:
            return status
        for player in status["acting"]:
            legal = ok(seated(session).handle({"cmd": "legal", "game": game, "player": player}))
            assert legal["actions"], legal
            action = rng.choice(legal["actions"])
            applied = ok(seated(session).handle({"cmd": "apply", "game": game, "player": player, "action": action}))
            assert applied["action"]["kind"] == action["kind"]
    raise AssertionError("game did not end")


def test_whole_game_through_the_session_replays_from_its_record():
    session = EngineSession()
    gid = ok(seated(session).handle({"cmd": "new_game", "seed": 3}))["game"]
    status = play_through(session, gid, random.Random(3))
    assert status["winner"] in (0, 1) and status["phase"] == "over"
    r = seated(session).handle({"cmd": "apply", "game": gid, "player": 0, "action": {"kind": "replace", "cards": []}})
    assert "over" in err(r, "illegal_action")["message"]
    record = ok(seated(session).handle({"cmd": "record", "game": gid}))["record"]
    state = ok(seated(session).handle({"cmd": "state", "game": gid}))["state"]
    assert GameRecord.from_dict(record).replay().to_dict() == state
    # Resume from the record and from the state document: the same game.
    g2 = ok(seated(session).handle({"cmd": "new_game", "record": record}))
    g3 = ok(seated(session).handle({"cmd": "new_game", "state": state}))
    assert g2["winner"] == g3["winner"] == status["winner"]
    assert ok(seated(session).handle({"cmd": "state", "game": g2["game"]}))["state"] == state


def test_views_hide_the_opponents_hand():
    session = EngineSession()
    ok(seated(session).handle({"cmd": "new_game", "seed": 11}))
    state = GameState.new(seed=11)
    for p in (0, 1):
        view = ok(seated(session).handle({"cmd": "view", "game": "g1", "player": p}))["view"]
        assert view["hand"] == list(state.hands[p])
        assert "hands" not in view and view["opponent_hand_size"] == len(state.hands[1 - p])


def test_set_rules_applies_to_new_games_only():
    session = EngineSession()
    ok(seated(session).handle({"cmd": "new_game", "seed": 1}))
    custom = {"name": "small", "board": [4, 6, 8, 7, 8, 6, 4], "tie": "arrow"}
    assert ok(seated(session).handle({"cmd": "set_rules", "rules": custom}))["rules"]["tie"] == "arrow"
    ok(seated(session).handle({"cmd": "new_game", "seed": 1}))
    r1 = ok(seated(session).handle({"cmd": "record", "game": "g1"}))["record"]["rules"]
    r2 = ok(seated(session).handle({"cmd": "record", "game": "g2"}))["record"]["rules"]
    assert r1["tie"] == "redeal" and r2["tie"] == "arrow"
    assert ok(seated(session).handle({"cmd": "hello"}))["rules"]["board"] == custom["board"]
    ok(seated(session).handle({"cmd": "set_rules", "rules": "standard"}))
    assert ok(seated(session).handle({"cmd": "hello"}))["rules"]["name"] == "standard"


def test_every_command_reads_rules_one_way():
    """new_game, set_rules, a hint's view, a solve's position and an
    equilibrium solve's view: rules are a ruleset object or "standard",
    never a file path (the server's files are not the client's to name)."""
    session = EngineSession(hint_fn=FakeHint())
    ruleset_file = os.path.join(os.path.dirname(tacocat.__file__), "..", "pyproject.toml")
    custom = {"name": "small", "board": [4, 6, 8, 7, 8, 6, 4], "tie": "arrow"}
    position = {"hands": [[1, 5], [2, 9]], "attacker": 0, "table": []}
    endgame = {**VIEW, "hand": [2, 5], "opponent_hand_size": 2}

    def asks(rules) -> list[tuple[str, dict]]:
        return [
            ("rules", {"cmd": "set_rules", "rules": rules}),
            ("rules", {"cmd": "new_game", "seed": 1, "rules": rules}),
            ("view", {"cmd": "hint", "view": {**VIEW, "rules": rules}}),
            ("position", {"cmd": "solve", "position": {**position, "rules": rules}}),
            ("view", {"cmd": "solve", "mode": "equilibrium", "view": {**endgame, "rules": rules}}),
        ]

    for rules in (ruleset_file, "rules.json", "STANDARD", 7, [4, 6]):
        for field, request in asks(rules):
            if not isinstance(rules, str) and field == "rules":
                continue  # the command table refuses a type other than object or string first
            error = err(seated(session).handle(request), "bad_field")
            assert error["field"] == field and 'a ruleset object or "standard"' in error["message"], (request, error)
            assert "\n" not in error["message"]
    for rules in ("standard", custom):
        for _, request in asks(rules):
            response = seated(session).handle(request)
            if isinstance(response, SearchJob):
                response = response.run()
            ok(response)


def test_game_limit_forgets_finished_games_then_answers_busy():
    session = EngineSession(max_games=2)
    ok(seated(session).handle({"cmd": "new_game", "seed": 1}))
    play_through(session, "g1", random.Random(0))
    ok(seated(session).handle({"cmd": "new_game", "seed": 2}))
    ok(seated(session).handle({"cmd": "new_game", "seed": 3}))  # forgets g1, finished
    err(seated(session).handle({"cmd": "legal", "game": "g1", "player": 0}), "bad_field")
    err(seated(session).handle({"cmd": "new_game", "seed": 4}), "busy")
    ok(seated(session).handle({"cmd": "end_game", "game": "g2"}))
    assert ok(seated(session).handle({"cmd": "new_game", "seed": 4}))["game"] == "g4"


VIEW = {"player": 0, "hand": [2, 5, 9], "seen": [1, 1], "opponent_hand_size": 3, "attacker": 0, "table": []}


def test_hint_validates_the_view_before_searching():
    fake = FakeHint()
    session = EngineSession(hint_fn=fake)
    # R1: three 1s seen and one in hand, but the deck holds two.
    r = seated(session).handle({"id": 1, "cmd": "hint", "view": {**VIEW, "hand": [1, 5, 9], "seen": [1, 1]}})
    assert "rank 1" in err(r, "impossible_position")["message"]
    err(seated(session).handle({"cmd": "hint", "view": {**VIEW, "opponent_hand_size": 4}}), "impossible_position")
    err(seated(session).handle({"cmd": "hint", "view": {k: v for k, v in VIEW.items() if k != "hand"}}), "bad_record")
    err(seated(session).handle({"cmd": "hint", "view": {**VIEW, "hand": [0, 5, 9]}}), "bad_field")
    err(seated(session).handle({"cmd": "hint"}), "missing_field")
    err(seated(session).handle({"cmd": "hint", "game": "g1"}), "missing_field")
    err(seated(session).handle({"cmd": "hint", "view": VIEW, "game": "g1"}), "bad_field")
    err(seated(session).handle({"cmd": "hint", "view": VIEW, "time_ms": 0}), "bad_field")
    err(seated(session).handle({"cmd": "hint", "view": VIEW, "iterations": "many"}), "bad_field")
    assert (
        err(seated(session).handle({"cmd": "hint", "view": VIEW, "method": "magic"}), "bad_field")["field"] == "method"
    )
    assert fake.calls == [] and session.searching == 0


def test_hint_methods_are_the_searchs():
    from tacocat.protocol.commands import HINT_METHODS
    from tacocat.search.hint import METHODS

    assert HINT_METHODS == METHODS
    assert {f.name: f.enum for f in COMMANDS["hint"].fields}["method"] == (*METHODS, "endgame")


def test_hint_passes_view_and_capped_budget():
    fake = FakeHint()
    session = EngineSession(hint_fn=fake, max_time_ms=300)
    r = seated(session).handle({"id": "a", "cmd": "hint", "view": VIEW, "time_ms": 5000, "seed": 9, "iterations": 50})
    result = ok(r)
    assert r["stopped"] is False and result["best"] == {"kind": "attack", "cards": [2]}
    assert fake.calls[-1]["time_ms"] == 300 and fake.calls[-1]["iterations"] == 50 and fake.calls[-1]["seed"] == 9
    ok(seated(session).handle({"cmd": "hint", "view": VIEW}))
    assert fake.calls[-1]["time_ms"] is None  # no budget: the search's default (the cap still stops it)
    # From a game in progress: the player's own view.
    ok(seated(session).handle({"cmd": "new_game", "seed": 5}))
    ok(seated(session).handle({"cmd": "hint", "game": "g1", "player": 1}))
    assert list(fake.calls[-1]["view"].hand) == list(GameState.new(seed=5).hands[1])
    assert fake.calls[-1]["view"].player == 1
    # A player with nothing to decide gets no hint.
    ok(seated(session).handle({"cmd": "apply", "game": "g1", "player": 1, "action": {"kind": "replace", "cards": []}}))
    err(seated(session).handle({"cmd": "hint", "game": "g1", "player": 1}), "bad_field")


def test_a_failing_search_is_internal_and_the_session_survives():
    def broken(view, **kw):
        raise RuntimeError("sampler exploded")

    session = EngineSession(hint_fn=broken)
    e = err(seated(session).handle({"id": 5, "cmd": "hint", "view": VIEW}), "internal")
    assert "sampler exploded" in e["message"]
    assert session.searching == 0
    ok(seated(session).handle({"cmd": "hello"}))


def test_stop_ends_a_search_early_and_busy_refuses_a_second():
    fake = FakeHint(seconds=30)
    session = EngineSession(hint_fn=fake, max_searches=1, max_queue=0)
    job = session.prepare({"id": "long", "cmd": "hint", "view": VIEW, "time_ms": 30_000})
    assert isinstance(job, SearchJob)
    err(seated(session).handle({"id": "second", "cmd": "hint", "view": VIEW}), "busy")
    out: list[dict] = []
    worker = threading.Thread(target=lambda: out.append(job.run()))
    worker.start()
    assert fake.started.wait(5)
    assert ok(seated(session).handle({"cmd": "stop", "target": "other"}))["stopped"] == 0
    assert ok(seated(session).handle({"cmd": "stop", "target": "long"}))["stopped"] == 1
    worker.join(5)  # the fake would wait 30 s: an answer now means the stop reached it
    assert out and out[0]["id"] == "long" and out[0]["stopped"] is True
    assert ok(out[0])["best"]["kind"] == "attack"
    assert session.searching == 0


def test_time_cap_stops_a_search_that_ignores_its_budget():
    fake = FakeHint(seconds=30)  # waits for stop whatever its budget says
    session = EngineSession(hint_fn=fake, max_time_ms=100)
    r = seated(session).handle({"cmd": "hint", "view": VIEW, "iterations": 10**9})
    # Only the cap's stop event ends the fake early; its own 30 s would
    # answer with stopped false.
    assert r["ok"] and r["stopped"] is True


# ----------------------------------------------------------------- JSON Lines


def run_lines(lines: list[bytes | str], session: EngineSession | None = None, **kw) -> list[dict]:
    data = b"".join((l.encode() if isinstance(l, str) else l) + b"\n" for l in lines)
    out = io.BytesIO()
    serve_lines(session or EngineSession(), io.BytesIO(data), out, **kw)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_json_lines_transcript():
    session = EngineSession()
    game = ok(session.handle({"cmd": "new_game", "seed": 42}))  # opened before: its id and tokens go in the lines
    g, seats = json.dumps(game["game"]), [json.dumps(t) for t in game["tokens"]["seats"]]
    lines = [
        '{"id": 1, "cmd": "hello"}',
        "",
        "not json",
        '{"id": 2, "cmd": "new_game", "seed": 42}',
        "[" * 100_000,
        b"\xff\xfe\x00garbage",
        '{"id": 3, "cmd": "apply", "game": %s, "player": 0, "token": %s, "action": {"kind": "replace", "cards": []}}'
        % (g, seats[0]),
        '{"id": 4, "cmd": "new_game", "note": "' + "x" * 5000 + '"}',
        '{"id": 5, "cmd": "legal", "game": %s, "player": 1, "token": %s}' % (g, seats[1]),
        '{"id": NaN, "cmd": "hello"}',
        '{"id": 6, "cmd": "quit"}',
        '{"id": 7, "cmd": "hello"}',  # after quit: not read
    ]
    out = run_lines(lines, session, max_line=4096)
    assert [r["id"] for r in out] == [1, None, 2, None, None, 3, None, 5, None, 6]
    assert [r["ok"] for r in out] == [True, False, True, False, False, True, False, True, False, True]
    assert {r["error"]["code"] for r in out if not r["ok"]} == {"bad_json"}
    assert "longer than 4096" in out[6]["error"]["message"]
    assert ok(out[7])["decision"] == "replace"


def test_json_lines_deep_nesting_is_bad_json():
    out = run_lines(["[" * 200_000, '{"id": 1, "cmd": "hello"}'])
    assert out[0]["error"]["code"] == "bad_json" and out[1]["ok"]


def test_json_lines_end_of_input_lets_a_search_answer():
    out = run_lines(['{"id": "h", "cmd": "hint", "view": %s}' % json.dumps(VIEW)], EngineSession(hint_fn=FakeHint(0.2)))
    assert len(out) == 1 and out[0]["id"] == "h" and out[0]["stopped"] is False


def test_json_lines_stop_and_other_commands_during_a_search():
    """A scripted conversation over a real pipe: the search answers after
    stop, and hello is answered while it runs."""
    fake = FakeHint(seconds=60)
    session = EngineSession(hint_fn=fake, max_queue=0)
    rfd, wfd = os.pipe()
    reader, writer = os.fdopen(rfd, "rb"), os.fdopen(wfd, "wb", buffering=0)
    out = io.BytesIO()
    t = threading.Thread(target=serve_lines, args=(session, reader, out))
    t.start()
    writer.write(b'{"id": "long", "cmd": "hint", "view": %s, "time_ms": 60000}\n' % json.dumps(VIEW).encode())
    assert fake.started.wait(5)
    writer.write(b'{"id": "again", "cmd": "hint", "view": %s}\n' % json.dumps(VIEW).encode())
    writer.write(b'{"id": "hi", "cmd": "hello"}\n')
    time.sleep(0.2)
    writer.write(b'{"id": "halt", "cmd": "stop"}\n')
    writer.write(b'{"id": "bye", "cmd": "quit"}\n')
    t.join(10)
    writer.close()
    reader.close()
    assert not t.is_alive()  # the fake would wait 60 s: stop and quit ended it
    out_lines = [json.loads(l) for l in out.getvalue().splitlines()]
    ids = [r["id"] for r in out_lines]
    assert sorted(ids, key=str) == sorted(["long", "again", "hi", "halt", "bye"], key=str)
    by_id = {r["id"]: r for r in out_lines}
    assert by_id["again"]["error"]["code"] == "busy"
    assert ids.index("hi") < ids.index("long")  # answered during the search
    assert by_id["halt"]["result"]["stopped"] == 1
    assert by_id["long"]["ok"] and by_id["long"]["stopped"] is True
    assert ids[-1] == "bye"  # quit is answered last


def test_every_error_code_is_documented():
    doc = os.path.dirname(__file__) + "/../docs/protocol.md"
    text = open(doc).read()
    for code in ERROR_CODES:
        assert f"`{code}`" in text, code
    for name in COMMANDS:
        assert f"`{name}`" in text, name
    assert f'"{PROTOCOL_VERSION}"' in text


def test_solve_answers_the_conformance_positions_like_tacocat_solve():
    """The protocol's solve is `tacocat solve --json` (tacocat.core.exact.solve_json):
    on the shared conformance positions it gives their value and every
    move's value."""
    from conftest import load_cases

    from tacocat.core.exact import solve_json

    session = EngineSession()
    for case in load_cases("play_values"):
        position = {k: case[k] for k in ("hands", "attacker", "table")}
        r = seated(session).handle({"id": "s", "cmd": "solve", "position": position})
        result = ok(r)
        assert r["stopped"] is False
        assert result["value"] == case["value"], case
        assert result["moves"] == case["moves"], case
        expected = solve_json(position)
        assert {k: v for k, v in result.items() if k not in ("seconds", "tt")} == {
            k: v for k, v in expected.items() if k not in ("seconds", "tt")
        }
    assert session.searching == 0


# The message shapes of protocol "3.2".  Changing any of them means a new
# protocol version (docs/protocol.md, "Versions"): bump PROTOCOL_VERSION,
# add a line to the docs' version table, then update this pin.
PINNED_VERSION = "3.2"
PINNED_REQUESTS = {
    "hello": "",
    "set_rules": "rules:object|string",
    "new_game": "?seed:integer ?rules:object|string ?record:object ?state:object ?engine:object ?friend:boolean",
    "apply": "game:string player:integer token:string action:object",
    "move": "game:string player:integer token:string ?bot:string ?level:integer ?time_ms:integer ?iterations:integer "
    "?seed:integer ?apply:boolean ?inference:string ?round_search:boolean ?duel:string ?replace:string "
    "?info_ms:integer",
    "legal": "game:string player:integer token:string",
    "view": "game:string player:integer token:string ?since:integer",
    "state": "game:string token:string",
    "record": "game:string token:string",
    "games": "?tokens:array",
    "end_game": "game:string token:string",
    "hint": "?view:object ?game:string ?player:integer ?token:string ?time_ms:integer ?iterations:integer "
    "?seed:integer ?method:string "
    "?top:integer ?score:string ?inference:string ?round_search:boolean ?duel:string ?replace:string "
    "?info_ms:integer",
    "solve": "?position:object ?mode:string ?view:object ?exploitability:number ?time_ms:integer ?token:string",
    "stop": "?target:string|integer ?token:string ?tokens:array",
    "quit": "",
}
PINNED_RESULTS = {
    "hello": "bots commands engine errors levels limits options protocol rules running version",
    "new_game": "acting actions board deals game over phase rounds seed tokens winner",
    "apply": "action events game hand player round status",
    "move": "action applied bot budget decision events game hand level player round seconds seed simultaneous status",
    "legal": "actions decision game player",
    "view": "game view",
    "state": "game state status",
    "record": "game record status",
    "games": "games open",
    "end_game": "ended game",
    "stop": "stopped",
    "quit": "bye stopped",
    "set_rules": "rules",
}
PINNED_ERRORS = (
    "bad_json unknown_command missing_field bad_field illegal_action impossible_position bad_ruleset "
    "bad_record forbidden busy internal"
)


def test_message_shapes_are_pinned_to_the_protocol_version():
    assert PROTOCOL_VERSION == PINNED_VERSION, "a new version: update the pins below it"
    requests = {
        name: " ".join(("" if f.required else "?") + f.name + ":" + "|".join(f.types) for f in c.fields)
        for name, c in COMMANDS.items()
    }
    assert requests == PINNED_REQUESTS
    assert " ".join(ERROR_CODES) == PINNED_ERRORS
    session = EngineSession()
    script = [
        {"cmd": "hello"},
        {"cmd": "set_rules", "rules": "standard"},
        {"cmd": "new_game", "seed": 1},
        {"cmd": "legal", "game": "g1", "player": 0},
        {"cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "replace", "cards": []}},
        {"cmd": "move", "game": "g1", "player": 1, "level": 1, "seed": 0},
        {"cmd": "view", "game": "g1", "player": 0},
        {"cmd": "state", "game": "g1"},
        {"cmd": "record", "game": "g1"},
        {"cmd": "games"},
        {"cmd": "stop"},
        {"cmd": "end_game", "game": "g1"},
        {"cmd": "quit"},
    ]
    for request in script:
        r = seated(session).handle({"id": 1, **request})
        if COMMANDS[request["cmd"]].search:  # searches also say whether they were stopped
            assert r.pop("stopped") is False
        assert list(r) == ["id", "ok", "cmd", "result"], r
        assert " ".join(sorted(ok(r))) == PINNED_RESULTS[request["cmd"]], request["cmd"]
    e = seated(session).handle({"id": 2, "cmd": "legal"})
    assert list(e) == ["id", "ok", "cmd", "error"] and sorted(e["error"]) == ["code", "field", "message"]
