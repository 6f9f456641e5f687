"""Protocol 1.1 messages through the session and the JSON Lines transport:
`move` (bots and levels), the events of `apply` and `move` as one seat sees
them, `hint` with top / score / endgame, the search queue, and `info`
messages while a search runs (real searches here, small budgets)."""

from __future__ import annotations

import io
import json
import random
import threading
import time
from collections import Counter

import pytest
from positions import PLAY_VIEW
from test_protocol import FakeHint, err, matches, ok, seated

from tacocat.players.bots import BOTS
from tacocat.protocol.commands import COMMANDS
from tacocat.protocol.jsonlines import serve_lines
from tacocat.protocol.moves import BOT_NAMES, LEVELS
from tacocat.protocol.session import EngineSession, SearchJob
from tacocat.protocol.streaming import merge_hints
from tacocat.rules.game import GameRecord, GameState

ENDGAME_VIEW = {
    "player": 0,
    "hand": [2, 9, 10],
    "seen": [1, 1, 3, 3, 5, 5, 7, 8, 8, 12],
    "opponent_hand_size": 3,
    "attacker": 0,
    "table": [],
}


def test_hello_lists_move_and_the_queue():
    hello = ok(EngineSession(max_queue=3).handle({"cmd": "hello"}))
    assert hello["protocol"] == "3.2"
    assert "move" in hello["commands"] and hello["commands"] == list(COMMANDS)
    assert hello["limits"]["max_queue"] == 3


def test_move_plays_every_bot_and_level():
    fields = {f.name: f for f in COMMANDS["move"].fields}
    # Every bot that chooses from a view is offered; the oracle (it reads the
    # opponent's hand) is the one bot a seat may not ask for.
    assert set(fields["bot"].enum) == set(BOTS) - {"oracle"} and fields["level"].enum == tuple(LEVELS)
    session = seated(EngineSession())
    ok(session.handle({"cmd": "new_game", "seed": 9}))
    for name in BOT_NAMES:
        moved = ok(
            session.handle(
                {"cmd": "move", "game": "g1", "player": 0, "bot": name, "iterations": 30, "seed": 1, "apply": False}
            )
        )
        assert moved["bot"] == name and moved["action"]["kind"] == "replace", moved
    for level in LEVELS:
        moved = ok(
            session.handle({"cmd": "move", "game": "g1", "player": 0, "level": level, "seed": 1, "apply": False})
        )
        assert moved["level"] == level and moved["bot"] == LEVELS[level][0]


# A scripted conversation: (request, a part of the answer it must get).
MOVE_TRANSCRIPT = [
    ({"id": 1, "cmd": "new_game", "seed": 42}, {"ok": True, "result": {"game": "g1", "acting": [0, 1]}}),
    (
        {"id": 2, "cmd": "move", "game": "g1", "player": 0, "level": 1, "seed": 5},
        {
            "ok": True,
            "result": {
                "player": 0,
                "bot": "random",
                "level": 1,
                "seed": 5,
                "decision": "replace",
                "simultaneous": True,
                "applied": True,
                "events": [],
                "status": {"acting": [1]},
            },
        },
    ),
    (
        {"id": 3, "cmd": "move", "game": "g1", "player": 0, "level": 1},
        {"ok": False, "error": {"code": "bad_field", "field": "player"}},
    ),
    (
        {"id": 4, "cmd": "move", "game": "g1", "player": 1, "bot": "heuristic", "level": 2},
        {"ok": False, "error": {"code": "bad_field", "field": "level"}},
    ),
    (
        {"id": 5, "cmd": "move", "game": "g1", "player": 1, "level": 9},
        {"ok": False, "error": {"code": "bad_field", "field": "level"}},
    ),
    (
        {"id": 6, "cmd": "move", "game": "g1", "player": 1, "bot": "alphazero"},
        {"ok": False, "error": {"code": "bad_field", "field": "bot"}},
    ),
    (
        {"id": 7, "cmd": "move", "game": "g1", "player": 1, "level": 3, "time_ms": 10},
        {"ok": False, "error": {"code": "bad_field", "field": "level"}},
    ),
    (
        {"id": 8, "cmd": "move", "game": "g9", "player": 1, "token": "nope"},
        {"ok": False, "error": {"code": "bad_field", "field": "game"}},
    ),
    (
        {"id": 8.5, "cmd": "move", "game": "g1", "player": 1, "token": "nope"},
        {"ok": False, "error": {"code": "forbidden", "field": "token"}},
    ),
    (
        {"id": 9, "cmd": "move", "game": "g1", "player": 1, "bot": "heuristic", "apply": False},
        {"ok": True, "result": {"applied": False, "action": {"kind": "replace", "cards": []}}},
    ),
    ({"id": 10, "cmd": "legal", "game": "g1", "player": 1}, {"ok": True, "result": {"decision": "replace"}}),
    (
        {"id": 11, "cmd": "move", "game": "g1", "player": 1, "bot": "heuristic"},
        {"ok": True, "result": {"applied": True, "decision": "replace", "status": {"phase": "duel", "acting": [0, 1]}}},
    ),
    (
        {"id": 12, "cmd": "move", "game": "g1", "player": 0, "bot": "pimc", "iterations": 5, "seed": 1},
        {"ok": True, "result": {"decision": "duel", "simultaneous": True, "budget": {"samples": 5}}},
    ),
    (
        {"id": 13, "cmd": "move", "game": "g1", "player": 1, "bot": "oracle", "seed": 1},
        {"ok": False, "error": {"code": "bad_field", "field": "bot"}},
    ),
    (
        {"id": 14, "cmd": "move", "game": "g1", "player": 1, "bot": "heuristic", "seed": 1},
        {"ok": True, "result": {"decision": "duel", "applied": True}},
    ),
]


def test_move_transcript():
    session = seated(EngineSession())
    for request, expected in MOVE_TRANSCRIPT:
        response = session.handle(request)
        assert response["id"] == request["id"]
        assert matches(response, expected), (request, response)
    # The duel was revealed by the second move: its events show both cards.
    last = session.handle({"cmd": "record", "game": "g1"})
    assert len(ok(last)["record"]["actions"]) == 4


def test_move_is_reproducible_from_its_seed_and_apply_false_changes_nothing():
    session = seated(EngineSession())
    ok(session.handle({"cmd": "new_game", "seed": 3}))
    before = ok(session.handle({"cmd": "state", "game": "g1"}))["state"]
    asks = [
        ok(
            session.handle(
                {"cmd": "move", "game": "g1", "player": 0, "bot": "pimc", "iterations": 20, "seed": s, "apply": False}
            )
        )
        for s in (11, 11, 12)
    ]
    assert asks[0]["action"] == asks[1]["action"] and asks[0]["seed"] == 11
    assert ok(session.handle({"cmd": "state", "game": "g1"}))["state"] == before
    drawn = ok(session.handle({"cmd": "move", "game": "g1", "player": 0, "bot": "random"}))
    assert isinstance(drawn["seed"], int)  # a random seed, reported
    again = seated(EngineSession())
    ok(again.handle({"cmd": "new_game", "seed": 3}))
    assert (
        ok(again.handle({"cmd": "move", "game": "g1", "player": 0, "bot": "random", "seed": drawn["seed"]}))["action"]
        == drawn["action"]
    )


def test_the_duel_card_is_drawn_from_the_mixed_strategy():
    """R9: a search bot's duel card is a draw from its mixed strategy, so
    different seeds can give different cards at one duel."""
    session = seated(EngineSession())
    for seed in range(40):
        state = GameState.new(seed=seed)
        state.apply(0, state.legal_actions(0)[0])
        state.apply(1, state.legal_actions(1)[0])
        ok(session.handle({"cmd": "new_game", "state": state.to_dict()}))
        gid = f"g{seed + 1}"
        cards = {
            tuple(
                ok(session.handle({"cmd": "move", "game": gid, "player": 0, "bot": "pimc", "seed": s, "apply": False}))[
                    "action"
                ]["cards"]
            )
            for s in range(8)
        }
        if len(cards) > 1:
            return
    pytest.fail("in 40 duels, eight seeds always gave the same duel card: is the duel really drawn?")


def _check_seat_events(state: GameState, player: int, result: dict, before: tuple) -> None:
    """The events of one action as `player` sees them: every public event,
    and of the hidden cards only the seat's own."""
    events = result["events"]
    for e in events:
        assert set(e) <= {"event", "player", "cards", "beats", "hand_size", "cat", "winner", "drawn", "hand"}, e
        if "drawn" in e:
            assert e["event"] == "replace" and e["player"] == player
            kept = Counter(before) - Counter(e["cards"])
            assert Counter(state.hands[player]) == kept + Counter(e["drawn"])
        if "hand" in e:
            assert e["event"] == "deal" and e["hand"] == list(state.hands[player])
    assert result["hand"] == list(state.hands[player])


def test_apply_and_move_events_over_whole_games():
    """Every action's events are the public history it added (R15), the
    seat's own draws and new hand added, the other seat's never."""
    rng = random.Random(1)
    for seed in range(6):
        session = seated(EngineSession())
        ok(session.handle({"cmd": "new_game", "seed": seed}))
        shadow = GameState.new(seed=seed)
        for _ in range(2000):
            if shadow.over:
                break
            player = shadow.acting_players()[0]
            before = shadow.hands[player]
            if rng.random() < 0.5:
                action = rng.choice(shadow.legal_actions(player))
                result = ok(
                    session.handle({"cmd": "apply", "game": "g1", "player": player, "action": action.to_dict()})
                )
            else:
                result = ok(session.handle({"cmd": "move", "game": "g1", "player": player, "level": 2}))
                action = type(shadow.legal_actions(player)[0]).from_dict(result["action"])
            public = shadow.apply(player, action)
            shown = [{k: v for k, v in e.items() if k not in ("drawn", "hand")} for e in result["events"]]
            assert shown == [e.to_json() for e in public]
            _check_seat_events(shadow, player, result, before)
        assert shadow.over
        record = ok(session.handle({"cmd": "record", "game": "g1"}))["record"]
        assert GameRecord.from_dict(record).replay().to_dict() == shadow.to_dict()


def test_hint_top_score_and_endgame():
    session = seated(EngineSession())
    full = ok(session.handle({"cmd": "hint", "view": PLAY_VIEW, "iterations": 50, "method": "pimc"}))
    top = ok(session.handle({"cmd": "hint", "view": PLAY_VIEW, "iterations": 50, "method": "pimc", "top": 2}))
    assert len(top["moves"]) == 2 and top["more"] == len(full["moves"]) - 2 and top["best"] == full["best"]
    rnd = ok(session.handle({"cmd": "hint", "view": PLAY_VIEW, "iterations": 50, "method": "pimc", "score": "round"}))
    assert rnd["utilities"] == [1.0, 0.0, -1.0] and full["utilities"] != [1.0, 0.0, -1.0]
    for method in ("auto", "exact", "ismcts"):
        assert ok(session.handle({"cmd": "hint", "view": PLAY_VIEW, "iterations": 200, "method": method}))["moves"]
    end = ok(session.handle({"cmd": "hint", "view": ENDGAME_VIEW, "method": "endgame", "score": "round"}))
    assert end["exact"] is True and end["hands"] > 0 and end["pv"] and end["utilities"] == [1.0, 0.0, -1.0]
    ok(session.handle({"cmd": "new_game", "seed": 1}))
    e = err(session.handle({"cmd": "hint", "game": "g1", "player": 0, "method": "endgame"}), "bad_field")
    assert e["field"] == "method" and "play phase" in e["message"]
    err(session.handle({"cmd": "hint", "view": ENDGAME_VIEW, "method": "endgame", "time_ms": 5}), "bad_field")
    err(session.handle({"cmd": "hint", "view": PLAY_VIEW, "top": 0}), "bad_field")
    err(session.handle({"cmd": "hint", "view": PLAY_VIEW, "score": "points"}), "bad_field")
    err(session.handle({"cmd": "hint", "view": PLAY_VIEW, "info_ms": 5}), "bad_field")


def test_searches_queue_in_order_up_to_the_queue_length():
    fake = FakeHint(seconds=30)
    session = EngineSession(hint_fn=fake, max_searches=1, max_queue=2)
    jobs = [session.prepare({"id": i, "cmd": "hint", "view": PLAY_VIEW, "iterations": i + 1}) for i in range(3)]
    assert all(isinstance(j, SearchJob) for j in jobs)
    e = err(session.handle({"id": 3, "cmd": "hint", "view": PLAY_VIEW}), "busy")
    assert "2 wait" in e["message"]
    order: list = []
    threads = [threading.Thread(target=lambda j=j: order.append(j.run()["id"])) for j in reversed(jobs)]
    for t in threads:  # started last-first: the queue, not the threads, sets the order
        t.start()
    time.sleep(0.3)
    assert [c["iterations"] for c in fake.calls] == [1]  # only the first runs
    assert session.stop_searches() == 3  # the queued ones too: they answer at once when their turn comes
    for t in threads:
        t.join(10)
    assert order == [0, 1, 2]
    assert [c["iterations"] for c in fake.calls] == [1, 2, 3]
    assert session.searching == 0


def run_lines(lines: list[str], session: EngineSession) -> list[dict]:
    out = io.BytesIO()
    serve_lines(session, io.BytesIO("".join(l + "\n" for l in lines).encode()), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_json_lines_transcript_of_the_new_messages():
    """The docs' examples piped in order: searches queue instead of
    answering busy, info lines carry the request id, answers come last."""
    session = EngineSession()
    opened = ok(session.handle({"id": 1, "cmd": "new_game", "seed": 42}))
    g, (t0, t1) = json.dumps(opened["game"]), (json.dumps(t) for t in opened["tokens"]["seats"])
    lines = [
        '{"id": 1, "cmd": "hello"}',
        '{"id": 2, "cmd": "hint", "game": %s, "player": 0, "token": %s, "top": 3}' % (g, t0),
        '{"id": 3, "cmd": "move", "game": %s, "player": 1, "token": %s, "level": 2}' % (g, t1),
        '{"id": 4, "cmd": "hint", "view": %s, "time_ms": 400, "info_ms": 50, "method": "pimc"}' % json.dumps(PLAY_VIEW),
        '{"id": 5, "cmd": "move", "game": %s, "player": 0, "token": %s, "level": 3, "info_ms": 20}' % (g, t0),
    ]
    out = run_lines(lines, session)
    answers = [r for r in out if "ok" in r]
    infos = [r for r in out if "info" in r]
    assert [r["id"] for r in answers if r["cmd"] != "hello"] == [2, 3, 4, 5]  # in order: one search at a time
    assert all(r["ok"] for r in answers), answers
    assert len(ok(answers[1])["moves"]) == 3
    assert ok(answers[2])["events"] == [] and ok(answers[2])["status"]["acting"] == [0]
    hint_infos = [r["info"] for r in infos if r["id"] == 4]
    # Info comes by the clock (every 50 ms of a 400 ms search): a loaded
    # machine sends fewer, but two at the least show it streams in order.
    assert len(hint_infos) >= 2 and all(set(r) == {"id", "cmd", "info"} for r in infos)
    assert all(i["best"]["kind"] == "answer" and i["samples"] > 0 for i in hint_infos)
    assert [i["samples"] for i in hint_infos] == sorted(i["samples"] for i in hint_infos)
    assert ok(answers[3])["samples"] >= hint_infos[-1]["samples"]
    move = ok(answers[4])
    assert move["applied"] and move["events"]  # the reveal of both replacements
    assert {e["event"] for e in move["events"]} == {"replace"}


def test_merging_slices_is_a_bigger_sample():
    """Two PIMC slices merge into the mean over both, weighted by worlds."""
    a = {
        "method": "pimc",
        "samples": 30,
        "seconds": 0.1,
        "moves": [
            {"kind": "attack", "cards": [4], "win": 0.5, "draw": 0.0, "loss": 0.5, "value": 0.0, "stderr": 0.1},
            {"kind": "attack", "cards": [9], "win": 1.0, "draw": 0.0, "loss": 0.0, "value": 1.0, "stderr": 0.0},
        ],
    }
    b = {
        "method": "pimc",
        "samples": 10,
        "seconds": 0.1,
        "moves": [
            {"kind": "attack", "cards": [9], "win": 0.0, "draw": 0.0, "loss": 1.0, "value": -1.0, "stderr": 0.0},
            {"kind": "attack", "cards": [4], "win": 1.0, "draw": 0.0, "loss": 0.0, "value": 1.0, "stderr": 0.2},
        ],
    }
    m = merge_hints([a, b])
    assert m["samples"] == 40 and m["slices"] == 2 and m["exact"] is False
    by = {tuple(x["cards"]): x for x in m["moves"]}
    assert by[(9,)]["value"] == pytest.approx((30 * 1.0 + 10 * -1.0) / 40)
    assert by[(4,)]["win"] == pytest.approx((30 * 0.5 + 10 * 1.0) / 40)
    assert by[(4,)]["stderr"] == pytest.approx(((30 * 0.1) ** 2 + (10 * 0.2) ** 2) ** 0.5 / 40)
    assert m["best"]["cards"] == [9]


def test_move_needs_the_seats_token_and_events_stay_in_the_seat():
    """A seat's token moves that seat only (the owner's moves any); a move
    made for seat 1 tells seat 1's draws, never seat 0's."""
    client = seated(EngineSession())
    ok(client.handle({"cmd": "new_game", "seed": 5}))
    e = err(
        client.handle({"cmd": "move", "game": "g1", "player": 1, "token": client.seat("g1", 0), "level": 1}),
        "forbidden",
    )
    assert e["field"] == "token"
    ok(client.handle({"cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "replace", "cards": []}}))
    moved = ok(
        client.handle(
            {"cmd": "move", "game": "g1", "player": 1, "token": client.owner("g1"), "bot": "random", "seed": 3}
        )
    )
    assert [e["player"] for e in moved["events"]] == [0, 1]
    assert "drawn" not in moved["events"][0] and "drawn" in moved["events"][1]


def test_hint_and_move_take_an_inference_model_and_say_which():
    """Issue 24: inference is a search option over the protocol; a bad model
    is refused before it takes a slot, and the answer names the model used."""
    import random as _random

    engine = EngineSession()
    session = seated(engine)
    ok(session.handle({"cmd": "new_game", "seed": 3}))
    rng = _random.Random(1)

    def status() -> dict:
        return ok(session.handle({"cmd": "games"}))["games"][0]

    while status()["phase"] == "replace":  # both replace: the opponent's discards are then on record
        p = status()["acting"][0]
        legal = ok(session.handle({"cmd": "legal", "game": "g1", "player": p}))["actions"]
        ok(session.handle({"cmd": "apply", "game": "g1", "player": p, "action": rng.choice(legal)}))
    p = status()["acting"][0]
    r = ok(session.handle({"cmd": "hint", "game": "g1", "player": p, "iterations": 20, "inference": "policy:2"}))
    assert r["inference"] == "policy:2" and r["effective_samples"] > 0
    assert ok(session.handle({"cmd": "hint", "game": "g1", "player": p, "iterations": 20}))["inference"] == "off"
    bad = session.handle({"cmd": "hint", "game": "g1", "player": p, "iterations": 20, "inference": "psychic"})
    assert bad["error"]["code"] == "bad_field" and "policy" in bad["error"]["message"]
    moved = ok(
        session.handle({"cmd": "move", "game": "g1", "player": p, "level": 3, "apply": False, "inference": "policy"})
    )
    assert moved["budget"]["inference"] == "policy"
