"""The engine session's doors never break, never leak a hand, and lose nothing.

Every reproduction of the issue answers with its documented error; a failed
request leaves every game byte for byte as it was; a seat reads nothing of
the other seat's hand and its token opens nothing else; games survive
SIGKILL (tacocat serve with its SQLite store); searches under the largest
legal hands honour their time and stop; files are written atomically."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time

import pytest
from helpers import deep, one_line_error, run_cli, tacocat_argv
from seats import Seated
from servers import free_port, start_serve

from tacocat.errors import RulesetError
from tacocat.protocol.session import EngineSession
from tacocat.protocol.store import GameStore, StoreError
from tacocat.protocol.wire import decode_request, encode_response
from tacocat.rules.cards import format_cards
from tacocat.rules.files import atomic_write_text
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import Ruleset
from tacocat.rules.views import View

BIG_RULES = {"deck": [8] * 12, "board": [12] * 7}

# A guard against a hang, never a speed test (speed is measured in results/):
# the machine's load cannot stretch an answer this far, and a search that
# ignored its cap or stop would run for minutes or hours.
HANG_S = 30.0


def strict(response: dict) -> dict:
    """The response as a transport writes it: strict JSON, never `internal`."""
    line = encode_response(response)
    back = json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in {line[:200]}"))
    assert not (back.get("error") or {}).get("code") == "internal", back
    return back


def ok(response: dict) -> dict:
    assert response["ok"], response
    return response["result"]


def code(response: dict) -> str:
    assert not response["ok"], response
    return response["error"]["code"]


def new(session: EngineSession, **fields) -> tuple[str, dict]:
    result = ok(session.handle({"cmd": "new_game", **fields}))
    return result["game"], result["tokens"]


def full_view(seed: int = 3, player: int = 0) -> dict:
    return GameState.new(seed=seed).view(player).to_dict()


def state_doc(seed: int = 3) -> dict:
    return GameState.new(seed=seed).to_dict()


def keep_all(gid: str, player: int, token: str) -> dict:
    """The `apply` request of a seat that replaces no card (0 discards: always legal in the replace phase, R7/R8)."""
    return {"cmd": "apply", "game": gid, "player": player, "token": token, "action": {"kind": "replace", "cards": []}}


def snapshot(session: EngineSession) -> str:
    """Every game of the session, hidden cards included, as one string."""
    return json.dumps({gid: s.to_dict() for gid, s in session._games.items()}, sort_keys=True)


# ------------------------------------------------------- the reproductions


def _deep(levels: int) -> list:
    v: list = []
    for _ in range(levels):
        v = [v]
    return v


def _view(**changes) -> dict:
    return {**full_view(), **changes}


def _duel_with_one_card() -> dict:
    v = full_view()
    return {
        **v,
        "phase": "duel",
        "hand": v["hand"][:1],
        "opponent_hand_size": 1,
        "draw_pile_size": 38 - 2,
        "unseen_pool": [],
    }


def _state(**changes) -> dict:
    return {**state_doc(), **changes}


REPRODUCTIONS = [
    ("id 1e400", b'{"id": 1e400, "cmd": "hello"}', "bad_field"),
    (
        "utilities of 300 digits",
        {"cmd": "solve", "position": {"hands": [[2, 5, 9], [3, 8, 11]], "attacker": 0, "utilities": [10**300, 0, -1]}},
        "bad_field",
    ),
    (
        "time_ms of 300 digits",
        {"cmd": "hint", "view": {"player": 0, "hand": [2, 5, 9], "opponent_hand_size": 3}, "time_ms": 10**300},
        "bad_field",
    ),
    (
        "iterations of 300 digits",
        {"cmd": "hint", "view": {"player": 0, "hand": [2, 5, 9], "opponent_hand_size": 3}, "iterations": 10**300},
        "bad_field",
    ),
    ("seed of 300 digits", {"cmd": "new_game", "seed": 10**300}, "bad_field"),
    ("full view, hand 5", {"cmd": "hint", "view": _view(hand=5)}, "bad_field"),
    ("full view, replace_cap -1", {"cmd": "hint", "view": _view(replace_cap=-1)}, "bad_record"),
    (
        "full view, player 1e400",
        b'{"cmd": "hint", "view": {"player": 1e400, "hand": [2, 5], "opponent_hand_size": 2, '
        b'"draw_pile_size": 0, "acting": [0]}}',
        "bad_record",
    ),
    (
        "full view, cat on a goal",
        {"cmd": "hint", "view": _view(board={"cat": 7, "covered": [3, 4, 5, 6]})},
        "impossible_position",
    ),
    ("full view, a duel with one card each", {"cmd": "hint", "view": _duel_with_one_card()}, "impossible_position"),
    ("full view, deep history", {"cmd": "hint", "view": _view(history=[_deep(20)])}, "bad_record"),
    ("state, hand 5", {"cmd": "new_game", "state": _state(hands=[5, [1]])}, "bad_record"),
    ("state, replace_cap -1", {"cmd": "new_game", "state": _state(replace_cap=-1)}, "bad_record"),
    (
        "state, player 1e400 in an action",
        b'{"cmd": "new_game", "state": {"format": "tacocat-state", "actions": [{"player": 1e400}]}}',
        "bad_record",
    ),
    (
        "state, a cat on a goal",
        {"cmd": "new_game", "state": _state(board={"cat": -1, "covered": [0, 1, 2, 3]})},
        "impossible_position",
    ),
    (
        "state, empty draw pile",
        {"cmd": "new_game", "state": _state(draw_pile=[], discard=state_doc()["draw_pile"])},
        "impossible_position",
    ),
    ("state, deeply nested history", {"cmd": "new_game", "state": _state(history=_deep(25))}, "bad_record"),
    ("request nested 100 deep", {"cmd": "new_game", "state": _deep(100)}, "bad_json"),
    ("deck counts of 10^30", {"cmd": "new_game", "rules": {"deck": [10**30] * 12}}, "bad_ruleset"),
    ("deck counts of 9", {"cmd": "new_game", "rules": {"deck": [9] * 12}}, "bad_ruleset"),
    ("hand sizes of 100", {"cmd": "set_rules", "rules": {"board": [100] * 7, "deck": [8] * 12}}, "bad_ruleset"),
    ("hand sizes of 13", {"cmd": "set_rules", "rules": {"board": [13] * 7, "deck": [8] * 12}}, "bad_ruleset"),
    ("one rank only", {"cmd": "set_rules", "rules": {"deck": [8] + [0] * 11, "board": [2] * 7}}, "bad_ruleset"),
    ("max_deals 0", {"cmd": "set_rules", "rules": {"max_deals": 0}}, "bad_ruleset"),
]


@pytest.mark.parametrize("request_, expected", [r[1:] for r in REPRODUCTIONS], ids=[r[0] for r in REPRODUCTIONS])
def test_reproductions_answer_their_documented_error(request_, expected):
    session = EngineSession()
    before = new(session, seed=1)
    if isinstance(request_, bytes):
        request_, bad = decode_request(request_)
        assert bad is None
    t0 = time.perf_counter()
    response = strict(session.handle(request_))
    assert time.perf_counter() - t0 < HANG_S  # refused at the door, not after minutes of work
    assert code(response) == expected, response
    assert response["id"] is None or isinstance(response["id"], (int, str))
    # Nothing stored, every client still served.
    assert [g["game"] for g in ok(session.handle({"cmd": "games", "tokens": [before[1]["owner"]]}))["games"]] == [
        before[0]
    ]
    assert ok(session.handle({"cmd": "games"}))["open"] == 1


def test_a_one_sample_hint_is_strict_json():
    session = EngineSession()
    gid, tokens = new(session, seed=4)
    for method in ("pimc", "auto"):
        r = strict(
            session.handle(
                {
                    "cmd": "hint",
                    "game": gid,
                    "player": 0,
                    "token": tokens["seats"][0],
                    "iterations": 1,
                    "method": method,
                }
            )
        )
        assert ok(r)["moves"]
        assert all(m.get("stderr") is None or m["stderr"] < 10 for m in ok(r)["moves"])


def test_ruleset_bounds_name_r1_and_r2():
    for data, rule in [
        ({"deck": [9] + [2] * 11}, "R1"),
        ({"deck": [-1] + [4] * 11}, "R1"),
        ({"deck": [0] * 11 + [8]}, "R1"),
        ({"board": [4, 6, 13, 7, 9, 6, 4]}, "R2"),
        ({"board": [4, 6, 1, 7, 9, 6, 4]}, "R2"),
        ({"deck": [10**30] * 12}, "R1"),
    ]:
        with pytest.raises(RulesetError) as e:
            Ruleset.from_dict(data)
        assert e.value.rule == rule, (data, e.value)
    assert Ruleset.from_dict({"deck": [8] * 12, "board": [12] * 7}).deck_size == 96
    assert Ruleset.from_dict({"deck": [4, 4] + [0] * 10, "board": [2] * 7}).deck_size == 8


@pytest.mark.parametrize("rules", [{}, BIG_RULES, {"deck": [4, 4] + [0] * 10, "board": [2] * 7}, {"tie": "arrow"}])
def test_every_state_and_view_of_real_games_reads_back(rules):
    """The strict readers refuse nothing a game produces: every state and
    view along random games reads back to the same document (three games
    a ruleset in CI, six under TACOCAT_DEEP=1)."""
    ruleset = Ruleset.from_dict(rules)
    for seed in range(deep(3, 6)):
        state, rng = GameState.new(ruleset, seed), random.Random(seed)
        while True:
            doc = state.to_dict()
            assert GameState.from_dict(doc).to_dict() == doc
            if state.over:
                break
            for p in (0, 1):
                view = state.view(p).to_dict()
                assert View.from_dict(view).to_dict() == view
            for p in state.acting_players():
                state.apply(p, rng.choice(state.legal_actions(p)))


def test_max_deals_ends_the_game_drawn():
    rules = Ruleset.from_dict({"max_deals": 1})
    state = GameState.new(rules, seed=5)
    rng = random.Random(5)
    while not state.over:
        for p in state.acting_players():
            state.apply(p, rng.choice(state.legal_actions(p)))
    assert state.deals == 1 and len(state.rounds) == 1 and state.winner is None and state.board.winner is None
    assert GameState.from_dict(state.to_dict()).over  # an over state at max_deals reads back
    assert Ruleset().max_deals == 200


# ------------------------------------------------- failures change nothing


def _failing_requests(gid: str, tokens: dict, state: GameState) -> list[dict]:
    own, other = tokens["seats"]
    return [
        {
            "cmd": "apply",
            "game": gid,
            "player": 0,
            "token": own,
            "action": {"kind": "duel", "cards": [1]},
        },  # illegal now
        {
            "cmd": "apply",
            "game": gid,
            "player": 0,
            "token": own,
            "action": {"kind": "replace", "cards": [12, 12, 12, 12, 12]},
        },  # cards not held
        {"cmd": "apply", "game": gid, "player": 0, "token": own, "action": {"kind": "replace", "cards": "x"}},
        {"cmd": "apply", "game": gid, "player": 0, "token": own, "action": {"kind": "replace", "cards": [], "x": 1}},
        keep_all(gid, 0, other),  # wrong seat
        keep_all(gid, 0, "guess"),
        {"cmd": "end_game", "game": gid, "token": own},
        {"cmd": "new_game", "state": {**state.to_dict(), "hands": [5, []]}},  # malformed state: never stored
        {"cmd": "new_game", "state": {**state.to_dict(), "draw_pile": []}},  # empty draw pile: refused
        {
            "cmd": "new_game",
            "record": {"format": "tacocat-record", "seed": 1, "actions": [{"player": 0, "kind": "duel", "cards": [3]}]},
        },
        {"cmd": "set_rules", "rules": {"board": [100] * 7}},
    ]


def test_every_failed_request_leaves_every_game_byte_for_byte(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    session = EngineSession(store=store)
    gid, tokens = new(session, seed=8)
    other_gid, _ = new(session, seed=9)
    state = session._games[gid]
    before, rules_before = snapshot(session), session.rules
    stored_before = sorted((g.game, json.dumps(g.state, sort_keys=True)) for g in store.games())
    for request in _failing_requests(gid, tokens, state):
        response = strict(session.handle(request))
        assert not response["ok"], (request, response)
        assert snapshot(session) == before, request
        assert session.rules == rules_before
        assert sorted((g.game, json.dumps(g.state, sort_keys=True)) for g in store.games()) == stored_before, request
    assert set(session._games) == {gid, other_gid}


def test_an_action_the_store_cannot_keep_is_refused_and_changes_nothing(tmp_path, monkeypatch):
    store = GameStore(tmp_path / "g.sqlite3")
    session = EngineSession(store=store)
    gid, tokens = new(session, seed=8)
    before = snapshot(session)

    def full_disk(*args, **kwargs):
        raise StoreError("the game store could not be written (disk full); nothing was changed")

    monkeypatch.setattr(store, "save", full_disk)
    r = strict(session.handle(keep_all(gid, 0, tokens["seats"][0])))
    assert code(r) == "busy"
    assert snapshot(session) == before
    monkeypatch.undo()
    ok(session.handle(keep_all(gid, 0, tokens["seats"][0])))


def test_an_apply_that_fails_half_way_leaves_the_game_whole(monkeypatch):
    """Whatever goes wrong inside `apply` after it started changing the
    state (here a bug injected in the draw), the game is as before."""
    session = EngineSession()
    gid, tokens = new(session, seed=8)
    ok(session.handle(keep_all(gid, 0, tokens["seats"][0])))  # R8: kept secret until both are in
    before = snapshot(session)

    def broken(self, player, cards):
        self.hands[player] = ()
        raise RuntimeError("injected failure half-way through a replacement")

    monkeypatch.setattr(GameState, "_discard_and_draw", broken)
    r = session.handle(keep_all(gid, 1, tokens["seats"][1]))
    assert code(r) == "internal"  # an injected bug is reported as one
    assert snapshot(session) == before


# --------------------------------------------------------------- the seats


def _play_seated_game(seed: int, probe) -> tuple[EngineSession, str, dict]:
    """A whole game through seat tokens only; `probe(session, gid, tokens,
    player, state)` is called before every action."""
    session = EngineSession()
    gid, tokens = new(session, seed=seed)
    rng = random.Random(seed)
    for _ in range(3000):
        state = session._games[gid]
        if state.over:
            return session, gid, tokens
        for p in state.acting_players():
            probe(session, gid, tokens, p, session._games[gid])
            seat = tokens["seats"][p]
            legal = ok(session.handle({"cmd": "legal", "game": gid, "player": p, "token": seat}))["actions"]
            ok(session.handle({"cmd": "apply", "game": gid, "player": p, "token": seat, "action": rng.choice(legal)}))
    raise AssertionError("game did not end")


def _hidden(state: GameState, p: int) -> list[str]:
    """Texts that would reveal what seat p cannot see: the opponent's hand
    and the draw pile, as JSON lists and in plain notation."""
    out = []
    for cards in (state.hands[1 - p], state.draw_pile):
        if len(cards) >= 4:
            out += [json.dumps(sorted(cards)), format_cards(cards)]
    return out


def test_a_seat_never_reads_the_other_seats_cards():
    seen: list[str] = []

    def probe(session, gid, tokens, p, state):
        seat = tokens["seats"][p]
        hidden = _hidden(state, p)
        own = state.hands[p]
        answers = [
            session.handle({"cmd": "view", "game": gid, "player": p, "token": seat}),
            session.handle({"cmd": "legal", "game": gid, "player": p, "token": seat}),
            # illegal attempts: errors name the rule, never a hand
            session.handle(
                {
                    "cmd": "apply",
                    "game": gid,
                    "player": p,
                    "token": seat,
                    "action": {"kind": "attack", "cards": [12, 12, 12]},
                }
            ),
            session.handle(
                {
                    "cmd": "apply",
                    "game": gid,
                    "player": p,
                    "token": seat,
                    "action": {"kind": state.decision(p) or "duel", "cards": [1, 1]},
                }
            ),
            session.handle(
                {"cmd": "apply", "game": gid, "player": 1 - p, "token": seat, "action": {"kind": "duel", "cards": [5]}}
            ),
            session.handle({"cmd": "state", "game": gid, "token": seat}),
            session.handle({"cmd": "record", "game": gid, "token": seat}),
        ]
        for a in answers:
            text = json.dumps(a)
            seen.append(text)
            for h in hidden:
                assert h not in text, (h, text[:300])
            assert '"hands"' not in text and '"draw_pile"' not in text and '"seed"' not in text, text[:300]
            if not a["ok"]:
                assert "(hand" not in a["error"]["message"], a
                if len(own) >= 3:
                    assert format_cards(own) not in a["error"]["message"], a

    session, gid, tokens = _play_seated_game(21, probe)
    assert len(seen) > 50
    # Once the game is over a seat may read the record (nothing is hidden any more).
    assert ok(session.handle({"cmd": "record", "game": gid, "token": tokens["seats"][1]}))["record"]["seed"] == 21


def test_the_original_leak_message_no_longer_prints_the_hand():
    session = EngineSession()
    gid, tokens = new(session, seed=2)
    hand = session._games[gid].hands[1]
    missing = next(r for r in range(1, 13) if r not in hand)
    r = session.handle(
        {
            "cmd": "apply",
            "game": gid,
            "player": 1,
            "token": tokens["seats"][1],
            "action": {"kind": "replace", "cards": [missing]},
        }
    )
    message = r["error"]["message"]
    assert code(r) == "illegal_action" and "does not hold these cards" in message
    assert format_cards(hand) not in message and "(hand" not in message


def test_a_seat_token_opens_its_seat_only():
    session = EngineSession()
    gid, tokens = new(session, seed=6)
    other_gid, other_tokens = new(session, seed=7)
    s0, s1, owner = tokens["seats"][0], tokens["seats"][1], tokens["owner"]
    replace = {"kind": "replace", "cards": []}
    for token in (s0, other_tokens["seats"][1], other_tokens["owner"], "", "x" * 40):
        for request in (
            {"cmd": "view", "game": gid, "player": 1},
            {"cmd": "legal", "game": gid, "player": 1},
            {"cmd": "apply", "game": gid, "player": 1, "action": replace},
            {"cmd": "hint", "game": gid, "player": 1, "iterations": 1},
        ):
            assert code(session.handle({**request, "token": token})) == "forbidden", (request, token)
    for request in ({"cmd": "state", "game": gid}, {"cmd": "end_game", "game": gid}, {"cmd": "record", "game": gid}):
        for token in (s0, s1):
            assert code(session.handle({**request, "token": token})) == "forbidden", request
    # ... and it does open its own seat; the owner opens both and the state.
    assert ok(session.handle({"cmd": "view", "game": gid, "player": 1, "token": s1}))["view"]["player"] == 1
    assert ok(session.handle({"cmd": "view", "game": gid, "player": 0, "token": owner}))["view"]["player"] == 0
    assert "hands" in ok(session.handle({"cmd": "state", "game": gid, "token": owner}))["state"]
    # games lists only what the tokens open
    assert ok(session.handle({"cmd": "games"}))["games"] == []
    assert [g["game"] for g in ok(session.handle({"cmd": "games", "tokens": [s1]}))["games"]] == [gid]


def test_game_ids_are_unguessable_and_never_listed():
    session = EngineSession()
    ids = [new(session, seed=s)[0] for s in range(40)]
    assert len(set(ids)) == 40 and all(re.fullmatch(r"g[A-Za-z0-9_-]{16}", g) for g in ids)
    message = session.handle({"cmd": "legal", "game": "g1", "player": 0, "token": "t"})["error"]["message"]
    assert not any(g in message for g in ids)
    other = EngineSession()
    assert new(other, seed=0)[0] not in ids


# ------------------------------------------------------------ nothing lost


def test_a_restarted_session_continues_every_game_with_its_tokens(tmp_path):
    path = tmp_path / "games.sqlite3"
    first = EngineSession(store=GameStore(path))
    client = Seated(first.handle)
    client({"cmd": "set_rules", "rules": {"tie": "arrow"}})
    client({"cmd": "new_game", "seed": 3})
    client({"cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "replace", "cards": []}})
    before = snapshot(first)
    first.store.close()
    second = EngineSession(store=GameStore(path))
    # The game keeps its own rules; the connection's set_rules is not stored
    # (nothing a client sends changes the server's defaults after a restart).
    assert snapshot(second) == before and second.rules.tie == "redeal"
    assert second._games[client.ids["g1"]].rules.tie == "arrow"
    gid, tokens = client.ids["g1"], client.tokens["g1"]
    assert code(second.handle({"cmd": "view", "game": gid, "player": 1, "token": tokens["seats"][0]})) == "forbidden"
    ok(second.handle(keep_all(gid, 1, tokens["seats"][1])))
    ok(second.handle({"cmd": "end_game", "game": gid, "token": tokens["owner"]}))
    second.store.close()
    assert EngineSession(store=GameStore(path))._games == {}
    with sqlite_file(path) as db:  # only token hashes are on disk
        text = "\n".join(map(str, db.execute("SELECT * FROM games").fetchall()))
    assert tokens["owner"] not in text


class sqlite_file:
    def __init__(self, path):
        import sqlite3

        self.db = sqlite3.connect(str(path))

    def __enter__(self):
        return self.db

    def __exit__(self, *exc):
        self.db.close()


def _serve(port: int, store) -> subprocess.Popen:
    return start_serve("--store", str(store), "--log-level", "error", port=port)[0]


def _choose(legal: list[dict], step: int) -> dict:
    return legal[(step * 7919) % len(legal)]


def _reference_record(seed: int) -> dict:
    """The game played without a crash, in process, with the same choices."""
    session = EngineSession()
    client = Seated(session.handle)
    client({"cmd": "new_game", "seed": seed})
    step = 0
    while not session._games[client.ids["g1"]].over:
        for p in session._games[client.ids["g1"]].acting_players():
            legal = ok(client({"cmd": "legal", "game": "g1", "player": p}))["actions"]
            ok(client({"cmd": "apply", "game": "g1", "player": p, "action": _choose(legal, step)}))
            step += 1
    return ok(client({"cmd": "record", "game": "g1"}))["record"]


@pytest.mark.slow
def test_sigkill_mid_game_then_restart_continues_the_same_game(tmp_path):
    import httpx

    seed, store, port = 31, tmp_path / "games.sqlite3", free_port()
    proc = _serve(port, store)
    # One client a server (a fresh one after the restart): an httpx.post
    # each would build a client, its TLS context included, per request.
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}/v1", timeout=30)
    crashed = False
    try:
        opened = http.post("/new_game", json={"seed": seed}).json()["result"]
        gid, tokens = opened["game"], opened["tokens"]
        step = 0
        while True:
            status = http.post("/games", json={"tokens": [tokens["owner"]]}).json()["result"]["games"][0]
            if status["over"]:
                break
            for p in status["acting"]:
                seat = tokens["seats"][p]
                legal = http.post("/legal", json={"game": gid, "player": p, "token": seat}).json()["result"]
                r = http.post(
                    "/apply",
                    json={"game": gid, "player": p, "token": seat, "action": _choose(legal["actions"], step)},
                )
                assert r.status_code == 200, r.text
                step += 1
                if step == 25 and not crashed:  # answered means committed: kill -9 right after
                    proc.send_signal(signal.SIGKILL)
                    proc.wait(10)
                    crashed = True
                    proc = _serve(port, store)
                    http.close()
                    http = httpx.Client(base_url=f"http://127.0.0.1:{port}/v1", timeout=30)
        record = http.post("/record", json={"game": gid, "token": tokens["seats"][0]}).json()["result"]["record"]
    finally:
        http.close()
        proc.kill()
        proc.wait(10)
    assert crashed and step > 25
    assert record == _reference_record(seed)


def test_engine_store_survives_sigkill(tmp_path):
    store = tmp_path / "engine.sqlite3"

    def engine() -> subprocess.Popen:
        return subprocess.Popen(
            [*tacocat_argv(), "engine", "--store", str(store)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def ask(proc, request) -> dict:
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    proc = engine()
    try:
        opened = ask(proc, {"cmd": "new_game", "seed": 12})["result"]
        gid, seat0 = opened["game"], opened["tokens"]["seats"][0]
        assert ask(proc, keep_all(gid, 0, seat0))["ok"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        proc = engine()
        view = ask(proc, {"cmd": "view", "game": gid, "player": 0, "token": seat0})
        assert view["ok"] and view["result"]["view"]["my_pending"] == [], view
    finally:
        proc.kill()
        proc.wait(10)


def test_atomic_write_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    target = tmp_path / "record.json"
    atomic_write_text(target, "old, whole\n")

    def crash(fd):
        raise KeyboardInterrupt  # the process dies between writing and renaming

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "new" * 10_000)
    monkeypatch.undo()
    assert target.read_text() == "old, whole\n"
    assert os.listdir(tmp_path) == ["record.json"]  # no temporary file left behind
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"


# ----------------------------------------------------------- bounded work

BIG = {"deck": [8] * 12, "board": [12] * 7}


@pytest.mark.parametrize("how", ["time cap", "stop"])
def test_a_12_card_replacement_hint_honours_the_cap_and_stop(how):
    """The issue's hint under 13-card hands ignored both; hands are now at
    most 12 (RULES §8) and the largest replacement decision (1,728
    discards) answers at its time cap and at stop."""
    session = EngineSession(max_time_ms=300 if how == "time cap" else None)
    gid, tokens = new(session, seed=1, rules=BIG)
    request = {"id": "h", "cmd": "hint", "game": gid, "player": 0, "token": tokens["seats"][0]}
    job = session.prepare(request if how == "time cap" else {**request, "time_ms": 3_600_000})
    if how == "stop":
        threading.Timer(0.3, lambda: session.stop_searches("h")).start()
    t0 = time.perf_counter()
    response = strict(job.run())
    elapsed = time.perf_counter() - t0
    assert ok(response)["moves"] and ok(response)["decision"] == "replace"
    assert response["stopped"] is True  # ended by the cap or the stop, not by finishing its budget
    assert elapsed < HANG_S, elapsed  # its budget was an hour (stop) or the default (cap)
    assert session.searching == 0


def test_a_12_card_duel_and_play_hint_answer_at_stop():
    session = EngineSession()
    gid, tokens = new(session, seed=1, rules=BIG)
    seats = tokens["seats"]
    for p in (0, 1):
        ok(session.handle(keep_all(gid, p, seats[p])))
    for method in ("exact", "pimc"):
        job = session.prepare(
            {"id": method, "cmd": "hint", "game": gid, "player": 0, "token": seats[0], "method": method}
        )
        threading.Timer(0.3, lambda m=method: session.stop_searches(m)).start()
        t0 = time.perf_counter()
        response = strict(job.run())
        assert time.perf_counter() - t0 < HANG_S
        assert response["stopped"] is True and ok(response)["decision"] == "duel"


def test_an_exact_enumeration_honours_time_ms():
    """method exact on an 11-card play view: about 695,000 opponent hands
    would take minutes; with time_ms it answers at its budget, not exact."""
    view = {
        "player": 0,
        "hand": list(range(1, 12)),
        "opponent_hand_size": 11,
        "attacker": 0,
        "table": [],
        "seen": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6],
        "rules": {"deck": [4] * 12, "board": [12] * 7},
    }
    session = EngineSession()
    t0 = time.perf_counter()
    r = strict(session.handle({"cmd": "hint", "view": view, "method": "auto", "time_ms": 300}))
    assert time.perf_counter() - t0 < HANG_S and ok(r)["moves"]
    r = strict(
        session.handle(
            {
                "cmd": "hint",
                "view": {**view, "seen": view["seen"] + [7, 7, 7, 8, 8, 8]},
                "method": "exact",
                "time_ms": 300,
            }
        )
    )
    assert time.perf_counter() - t0 < 2 * HANG_S and ok(r)["moves"]


# ------------------------------------------------------------- CLI doors


def test_cli_reproductions(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    latin = tmp_path / "rules.json"
    latin.write_bytes(b'\xff\xfe{"deck": 1}')
    digits = "1" + "0" * 400
    cases = [
        (["hint", "--view", str(deep)], "nested too deeply"),
        (["analyze", str(deep)], "nested too deeply"),
        (["hint", "--hand", "2 5 7", "--rules", str(latin)], "not UTF-8"),
        (["solve", "--hands", "2 5", "3 4", "--tt-mb", "inf"], "tt_mb"),
        (["solve", "--hands", "2 5", "3 4", "--utilities", f"{digits} 0 -1"], "utilities"),
        (["hint", "--hand", "2 5 9", "--time", digits, "--method", "pimc"], "time_ms"),
        (["hint", "--hand", "2 5 7", "--table", "4 5 6"], "R11"),
        (["hint", "--phase", "duel", "--hand", "5"], "R9"),
    ]
    for args, fragment in cases:
        one_line_error(run_cli(args), fragment)


def test_cli_one_iteration_hint_json_is_strict():
    r = run_cli(["hint", "--hand", "2 5 9 11", "--iterations", "1", "--method", "pimc", "--json"])
    assert r.exit_code == 0, r.output
    json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"{c} printed"))


def test_cli_solve_json_answers_every_line(tmp_path):
    lines = tmp_path / "positions.jsonl"
    good = '{"hands": [[2, 5], [3, 4]], "attacker": 0}'
    lines.write_text("\n".join([good, "[" * 100_000, "NaN", '{"hands": 5}', good]) + "\n")
    r = run_cli(["solve", "--json", str(lines)])
    out = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(out) == 5 and [("error" in o) for o in out] == [False, True, True, True, False]


def test_serve_on_a_busy_port_is_one_line_exit_2(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [*tacocat_argv(), "serve", "--port", str(port), "--store", str(tmp_path / "s.sqlite3")],
            capture_output=True,
            timeout=60,
        )
    one_line_error(proc, f"port {port}", "in use")
