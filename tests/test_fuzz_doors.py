"""A short fuzz round at every door (the long run is results/fuzz.py, its
table results/fuzz.md): hostile protocol requests, HTTP bodies over a real
loopback socket, command lines and files.  Each door checks its promise on
every input (fuzz_doors.py) and must report no failure."""

from __future__ import annotations

import threading
import time

import pytest
from fuzz_doors import (
    CORS_ORIGIN,
    EXTRA_HOST,
    FAIR_GAMES,
    FAIR_LIMITS,
    BoundedSearchDoor,
    BrowserOriginDoor,
    CliDoor,
    CrossClientDoor,
    CrossSeatDoor,
    EngineSeatDoor,
    FairShareDoor,
    FileDoor,
    HttpDoor,
    OperatorFlagsDoor,
    ProtocolDoor,
    RecordDoor,
    TwoProcessDoor,
    bad_records,
    bounded_searches,
    browser_requests,
    cli_invocations,
    cross_client_requests,
    cross_seat_requests,
    engine_seat_games,
    fair_share_floods,
    fuzzed_files,
    http_bodies,
    http_server,
    intruders,
    protocol_requests,
    serve_flags,
    waiting_hint,
)
from hypothesis import HealthCheck, given, settings

from tacocat.protocol import session as session_module
from tacocat.protocol.session import EngineSession

QUICK = settings(
    max_examples=150, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


def fuzz(strategy, n: int, send) -> None:
    """`send` each of `n` examples of `strategy` (derandomized: the same
    examples every run)."""

    @settings(QUICK, max_examples=n)
    @given(strategy)
    def run(item):
        send(item)

    run()


def test_protocol_requests():
    door = ProtocolDoor()
    fuzz(protocol_requests(), 150, door.send)
    assert door.tried >= 150 and door.failures == []
    assert door.codes.get("ok", 0) > 0 and len(door.codes) > 3  # the requests reach both sides of the door


def test_http_bodies():
    session = EngineSession(max_time_ms=100, max_games=50)
    with http_server(session) as base:
        door = HttpDoor(base, session)
        fuzz(http_bodies(), 60, door.send_http)
    assert door.tried >= 60 and door.failures == []
    assert door.codes.get("path names no command", 0) > 0  # the path check ran


@pytest.mark.parametrize("bug", ["an unknown path runs hello", "no command has a path"])
def test_the_http_door_notices_a_planted_bug(monkeypatch, bug):
    """The path checks above can fail: a server that runs a path naming no
    command (as hello), or that refuses every command's own path."""
    from tacocat.protocol import http
    from tacocat.protocol.commands import COMMANDS

    class Everything(dict):
        def __contains__(self, name):
            return True

    session = EngineSession(max_time_ms=100, max_games=50)
    if bug == "an unknown path runs hello":
        monkeypatch.setattr(http, "COMMANDS", Everything(COMMANDS))
        prepare = session.prepare
        monkeypatch.setattr(
            session,
            "prepare",
            lambda payload, key: prepare(
                payload if payload.get("cmd") in COMMANDS else {**payload, "cmd": "hello"}, key
            ),
        )
    else:
        monkeypatch.setattr(http, "COMMANDS", {})
    with http_server(session) as base:
        door = HttpDoor(base, session)
        for path, body in [("/v1/castle", {"id": 1}), ("/v1/hello/x", {"id": 2}), ("/v1/new_game", {"id": 3})]:
            door.send_http((path, None, body))
    wanted = "names no command" if bug == "an unknown path runs hello" else "names a command"
    assert any(wanted in f for f in door.failures), door.failures


def test_command_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # fuzzed --save and --out paths land here, not in the checkout
    door = CliDoor()
    fuzz(cli_invocations(files=[str(tmp_path / "missing.json")]), 25, lambda item: door.run(*item))
    assert door.tried >= 25 and door.failures == []
    assert door.codes.get("2", 0) > 0


def test_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    door = FileDoor(str(tmp_path))
    fuzz(fuzzed_files(), 25, door.send_file)
    assert door.tried >= 25 and door.failures == []


# ------------------------------------------------ protocol 3.0's doors (issue 20)
#
# Each door below is also run against a planted bug (monkeypatched for the
# test only) to show that its checks notice: a door that cannot fail
# proves nothing.


def test_cross_seat_tokens_open_nothing_in_process():
    """A seat token used for the other seat, for the engine's seat, for
    state/record while the game runs, or on another game: forbidden, the
    game unchanged, no card of the other seat in the answer."""
    door = CrossSeatDoor()
    fuzz(cross_seat_requests(), 80, door.send)
    assert door.tried >= 80 and door.failures == []
    assert door.codes == {"forbidden": door.tried} and door.moves > 10  # misuses met games in play


def test_cross_seat_tokens_open_nothing_over_http():
    session = EngineSession(max_time_ms=100, max_games=200)
    with http_server(session) as base:
        door = CrossSeatDoor(session, base)
        fuzz(cross_seat_requests(), 30, door.send)
    assert door.tried >= 30 and door.failures == [] and door.codes == {"forbidden": door.tried}


def _seat_tokens_open_every_seat(monkeypatch):
    real = session_module.Seats.role
    monkeypatch.setattr(
        session_module.Seats, "role", lambda self, token: None if real(self, token) is None else "owner"
    )


def _forbidden_shows_the_hands(monkeypatch):
    real = session_module.EngineSession._game

    def leaky(self, request, **kw):
        try:
            return real(self, request, **kw)
        except session_module.ProtocolError as exc:
            state = self._games[request["game"]]
            exc.message += f" (hands {sorted(state.hands[0])} {sorted(state.hands[1])})"
            raise

    monkeypatch.setattr(session_module.EngineSession, "_game", leaky)


@pytest.mark.parametrize("bug", [_seat_tokens_open_every_seat, _forbidden_shows_the_hands])
def test_the_cross_seat_door_notices_a_planted_bug(monkeypatch, bug):
    bug(monkeypatch)
    door = CrossSeatDoor()
    fuzz(cross_seat_requests(), 20, door.send)
    assert len(door.failures) >= 10, door.failures


def _cross_client(n: int) -> CrossClientDoor:
    session = EngineSession(max_time_ms=None, max_games=200, max_searches=2, max_queue=2, hint_fn=waiting_hint)
    with http_server(session) as base:
        door = CrossClientDoor(base, session)
        try:
            fuzz(cross_client_requests(), n, door.send_http)
        finally:
            door.close()
    return door


def test_client_b_neither_stops_nor_reads_client_a():
    """B's stop (A's search ids as targets), busy answers, games and
    set_rules over HTTP beside A's running searches: A's searches run on,
    no answer names A's games, tokens or searches, set_rules is refused."""
    door = _cross_client(80)
    assert door.tried >= 80 and door.failures == []
    assert door.codes.get("busy", 0) > 0 and door.codes.get("forbidden", 0) > 0


def _stop_ends_everyones(monkeypatch):
    monkeypatch.setattr(
        session_module.EngineSession,
        "_cmd_stop",
        lambda self, request: {"stopped": self.stop_searches(request.get("target"))},
    )


def _busy_names_everyones(monkeypatch):
    real = session_module.EngineSession._reserve

    def naming(self, request_id, cmd, work, cap_ms=None, info_ms=None, owner=None):
        try:
            return real(self, request_id, cmd, work, cap_ms, info_ms, owner)
        except session_module.ProtocolError as exc:
            exc.message += "; running: " + ", ".join(str(j.request_id) for j in self._searches)
            raise

    monkeypatch.setattr(session_module.EngineSession, "_reserve", naming)


def _set_rules_shared(monkeypatch):
    def accept(self, request):
        self.rules = self._rules_from(request["rules"], "rules")
        return {"rules": self.rules.to_dict()}

    monkeypatch.setattr(session_module.EngineSession, "_cmd_set_rules", accept)


@pytest.mark.parametrize("bug", [_stop_ends_everyones, _busy_names_everyones, _set_rules_shared])
def test_the_cross_client_door_notices_a_planted_bug(monkeypatch, bug):
    bug(monkeypatch)
    door = _cross_client(25)
    assert door.failures, door.codes


def _browser(n: int, check_host: bool = True) -> BrowserOriginDoor:
    session = EngineSession(max_time_ms=100, max_games=200)
    with http_server(session, cors_origins=(CORS_ORIGIN,), allowed_hosts=(EXTRA_HOST,), check_host=check_host) as base:
        door = BrowserOriginDoor(base, session)
        fuzz(browser_requests(), n, door.send_browser)
    return door


def test_what_a_web_page_could_send_is_refused():
    """text/plain and form POSTs (415), foreign Host (421) and Origin (403):
    the documented status with a JSON error body, and no game created."""
    door = _browser(100)
    assert door.tried >= 100 and door.failures == []
    for answer in ("415 bad_json", "421 forbidden", "403 forbidden", "200 ok"):
        assert door.codes.get(answer, 0) > 0, door.codes


def test_the_browser_door_notices_a_planted_bug(monkeypatch):
    from tacocat.protocol import http

    async def open_door(self, scope, receive, send):
        await self.app(scope, receive, send)

    assert _browser(40, check_host=False).failures  # no Host guard: a foreign Host reaches the commands
    monkeypatch.setattr(http.BrowserGuard, "__call__", open_door)
    failures = _browser(40).failures
    assert any("expected 403" in f for f in failures) and any("expected 415" in f for f in failures), failures


def test_a_second_process_on_a_held_store_is_refused_in_one_line(tmp_path):
    """`tacocat serve` and `tacocat engine --store` on a store `tacocat
    engine` holds, named through a symlink and a hard link: exit 2, one
    line; the holder serves on, its store 0600."""
    door = TwoProcessDoor(str(tmp_path), holders=("engine",))
    try:
        door.send(
            {"kind": "serve", "holder": "engine", "spelling": "file-symlink", "extra": ["--max-connections", "4"]}
        )
        door.send({"kind": "engine", "holder": "engine", "spelling": "hardlink", "extra": []})
    finally:
        door.close()
    assert door.tried == 2 and door.failures == [] and door.codes == {"2": 2}


@pytest.mark.slow
def test_second_processes_spelled_every_way_are_refused(tmp_path):
    door = TwoProcessDoor(str(tmp_path))
    try:
        fuzz(intruders(), 12, door.send)
    finally:
        door.close()
    assert door.tried >= 12 and door.failures == []


@pytest.mark.slow
def test_the_two_process_door_notices_an_unheld_store(tmp_path):
    """The holder killed (its lock gone with it): the intruder runs, and
    the door says so."""
    door = TwoProcessDoor(str(tmp_path), holders=("engine",))
    try:
        door.start()
        door.holders["engine"].kill()
        door.holders["engine"].wait(10)
        door.send({"kind": "engine", "holder": "engine", "spelling": "absolute", "extra": []})
    finally:
        door.close()
    assert any("not refused" in f for f in door.failures), door.failures


# ------------------------------------------------ issue 33's doors
#
# A shared server no client can take down.  Each door is also run against
# the fault it guards against, planted back (monkeypatched for the test only).


@pytest.mark.slow
def test_every_search_answers_within_the_cap_and_its_owners_stop():
    """Maximal move/hint budgets (a billion samples, an hour), every bot:
    each answer within the cap plus a margin, an owner's stop answered
    within 0.5 s, another client's stop ending nothing."""
    door = BoundedSearchDoor()
    fuzz(bounded_searches(), 25, door.send)
    assert door.tried >= 25 and door.failures == [], door.failures
    assert door.codes.get("ok", 0) >= 15 and all(door.stops.values()), (door.codes, door.stops)


def _stop_reaches_the_bot_late(monkeypatch):
    """N1 undone: the bot is handed a stop set 2.5 s after the search's own
    (the cap's or the owner's), as a bot that read no stop ran on."""
    from tacocat.protocol import moves
    from tacocat.protocol.streaming import SearchSignal

    real = moves.seat_turn

    def late_turn(*args, signal=None, **kw):
        late = SearchSignal()

        def relay():
            signal.wait()
            time.sleep(2.5)
            late.set()

        threading.Thread(target=relay, daemon=True).start()
        return real(*args, signal=late, **kw)

    monkeypatch.setattr(moves, "seat_turn", late_turn)


@pytest.mark.parametrize(
    "bug", [pytest.param(_stop_reaches_the_bot_late, marks=pytest.mark.slow), _stop_ends_everyones]
)
def test_the_bounded_search_door_notices_a_planted_bug(monkeypatch, bug):
    bug(monkeypatch)
    door = BoundedSearchDoor()
    items = [
        {
            "cmd": "move",
            "fields": {"bot": "pimc", "iterations": 10**9, "apply": False},
            "stop": stop,
            "stopper": "no token",
            "delay_ms": 100,
            "game": 0,
            "advance": 0,
            "to_play": True,
            "seed": n,
        }
        for n, stop in enumerate(["owner", "nobody", "other"])
    ]
    for item in items:
        door.send(item)
    wanted = "after its owner's stop" if bug is _stop_reaches_the_bot_late else "another client's stop"
    assert any(wanted in f for f in door.failures), door.failures


@pytest.mark.slow
def test_the_engine_seat_leaves_json_lines_answering_and_shows_no_hand():
    """Games against an engine seat with fuzzed engine fields, over JSON
    Lines: hello, legal, view, games and stop answered while the engine
    thinks, its reply ended by the stop, no card of its hand in any answer."""
    door = EngineSeatDoor()
    try:
        fuzz(engine_seat_games(), 12, door.send)
    finally:
        door.close()
    assert door.tried >= 30 and door.failures == [], door.failures
    assert door.quick > 0 and door.codes.get("ok", 0) > 10, (door.quick, door.codes)


def _engine_reply_blocks_the_reader(monkeypatch):
    """N5 undone: the engine's reply is answered inside prepare, on the
    transport's reading thread."""
    real = session_module.EngineSession._reserve_reply
    monkeypatch.setattr(session_module.EngineSession, "_reserve_reply", lambda self, *a: real(self, *a).run())


def _status_shows_the_hands(monkeypatch):
    real = session_module.EngineSession.status
    monkeypatch.setattr(
        session_module.EngineSession,
        "status",
        staticmethod(lambda gid, state: {**real(gid, state), "hands": [sorted(h) for h in state.hands]}),
    )


@pytest.mark.slow
@pytest.mark.parametrize("bug", [_engine_reply_blocks_the_reader, _status_shows_the_hands])
def test_the_engine_seat_door_notices_a_planted_bug(monkeypatch, bug):
    bug(monkeypatch)
    door = EngineSeatDoor()
    try:
        for seed in (1, 2):
            door.send(
                {
                    "engine": {"seat": 0, "bot": "pimc", "time_ms": 3_600_000},
                    "steps": ["hello", "apply", "hello", "legal", "apply", "view"],
                    "pause_ms": 100,
                    "seed": seed,
                }
            )
    finally:
        door.close()
    wanted = "answered" if bug is _engine_reply_blocks_the_reader else "cards of the engine's seat"
    assert any(wanted in f for f in door.failures), door.failures


def _fair_share(n: int = 0, items: list | None = None) -> FairShareDoor:
    session = EngineSession(max_time_ms=1000, max_games=FAIR_GAMES, max_searches=2, max_queue=2, hint_fn=waiting_hint)
    with http_server(session, **FAIR_LIMITS) as base:
        door = FairShareDoor(base, session)
        try:
            if n:
                fuzz(fair_share_floods(), n, door.send)
            for item in items or []:
                door.send(item)
        finally:
            door.close()
    return door


FLOOD = {
    "games": 0,
    "origin": None,
    "searches": 0,
    "search_ms": 500,
    "trickles": 0,
    "half_heads": 0,
    "silent": 0,
    "kept": 0,
    "delay_ms": 100,
    "victim": ["hello"],
}


@pytest.mark.slow
def test_one_peers_flood_never_makes_another_peer_busy():
    """Games (with the board's Origin spelt every way), searches and
    connections from one peer; the other peer's requests answered, never busy."""
    door = _fair_share(8)
    assert door.tried >= 8 and door.failures == [], door.failures
    assert any(k.startswith("503") for k in door.flood_codes), door.flood_codes  # the flood met its shares


def test_a_floods_waiting_connections_leave_the_victims_kept_alive_one_open():
    """Found by the fair-share door: with every place held by one peer's
    unfinished bodies and more of them waiting, each answer to the victim
    freed its kept-alive connection for a waiting one of the flood, and the
    victim's next request on it was reset (every other one)."""
    door = _fair_share(items=[{**FLOOD, "trickles": 12, "victim": ["hello", "new_game", "legal", "hello", "games"]}])
    assert door.victims == 5 and door.failures == [], door.failures


def _one_key_for_every_peer(monkeypatch):
    from tacocat.protocol import http

    monkeypatch.setattr(http, "client_key", lambda request: "everyone")


def _one_connection_share_for_every_peer(monkeypatch):
    from tacocat.protocol import http

    real = http._connection_class

    def one_peer(*args):
        cls = real(*args)
        cls.peer = lambda self: "everyone"
        return cls

    monkeypatch.setattr(http, "_connection_class", one_peer)


@pytest.mark.parametrize(
    "bug", [_one_key_for_every_peer, pytest.param(_one_connection_share_for_every_peer, marks=pytest.mark.slow)]
)
def test_the_fair_share_door_notices_a_planted_bug(monkeypatch, bug):
    bug(monkeypatch)
    if bug is _one_key_for_every_peer:
        items = [{**FLOOD, "games": 14, "victim": ["new_game"]}]
    else:
        items = [{**FLOOD, "trickles": 12, "victim": ["hello"]}]
    door = _fair_share(items=items)
    assert any("busy" in f for f in door.failures), door.failures


@pytest.mark.slow
def test_operator_flags_out_of_range_are_refused_in_one_line(tmp_path):
    """Fuzzed `tacocat serve` flags: a value outside its documented range
    (NaN, an empty admin token, ...) is exit 2 in one error line; a server
    that starts answers hello and new_game (one as a real process, ended by
    SIGTERM within 2 s)."""
    door = OperatorFlagsDoor(str(tmp_path))
    fuzz(serve_flags(), 30, door.send)
    door.send(["--no-store", "--port", "0", "--max-time-ms", "100"], subprocess_=True)
    assert door.tried >= 31 and door.failures == [], door.failures
    assert door.codes.get("2", 0) > 0 and door.started > 0, door.codes


def _flags_unchecked(monkeypatch):
    """N7 and N8 undone: --idle-timeout a plain float range (NaN passes its
    comparisons), --admin-token of any length."""
    import click

    from tacocat.cli import serve_cmd

    params = {p.name: p for p in serve_cmd.command.params}
    monkeypatch.setattr(params["idle_timeout"], "type", click.FloatRange(0.1, 3600))
    monkeypatch.setattr(params["admin_token"], "callback", None)


def test_the_operator_flags_door_notices_a_planted_bug(monkeypatch, tmp_path):
    _flags_unchecked(monkeypatch)
    door = OperatorFlagsDoor(str(tmp_path))
    door.send(["--idle-timeout", "nan", "--no-store", "--port", "0"])
    door.send(["--admin-token", "", "--no-store", "--port", "0"])
    assert any("--idle-timeout 'nan'" in f for f in door.failures), door.failures
    assert any("--admin-token ''" in f for f in door.failures), door.failures
    assert any("hello of a server started by" in f for f in door.failures), door.failures  # the NaN in hello


@pytest.mark.slow
def test_records_with_unknown_or_mistyped_keys_are_refused(tmp_path):
    door = RecordDoor(str(tmp_path), cli_every=8)
    fuzz(bad_records(), 60, door.send_record)
    assert door.tried >= 60 and door.failures == [], door.failures
    assert door.codes.get("new_game ok", 0) > 0 and door.codes.get("new_game bad_record", 0) > 0, door.codes


def test_the_record_door_notices_a_planted_bug(monkeypatch, tmp_path):
    """N10 undone: a record's unknown top-level keys dropped unread."""
    from tacocat.rules import documents

    monkeypatch.setattr(documents.Doc, "known", lambda self, keys: None)
    door = RecordDoor(str(tmp_path), cli_every=0)
    fuzz(bad_records(), 40, door.send_record)
    assert any("unknown key" in f for f in door.failures), door.failures


def test_a_records_beats_on_a_replacement_is_refused():
    """Found by the record door: docs/protocol.md says `beats` is for
    answers only, yet `{"kind": "replace", "cards": [], "beats": "yes"}` in a
    record (or an apply) is read with the field dropped, whatever it holds
    (tacocat.rules.actions.Action.from_dict)."""
    from tacocat.rules.game import GameState

    state = GameState.new(seed=1)
    p = state.acting_players()[0]
    state.apply(p, state.legal_actions(p)[0])
    record = state.record().to_dict()
    record["actions"][0]["beats"] = "yes"
    r = EngineSession().handle({"cmd": "new_game", "record": record})
    assert r["ok"] is False and r["error"]["code"] == "bad_record", r


FIRST_DUEL = """
import random, threading, time
from tacocat.players.bots import make_bot
from tacocat.protocol.session import warm_search
warm_search()  # as tacocat serve and tacocat engine do before their first answer
from tacocat.rules.game import GameState
from tacocat.search.budget import Budget
state, rng = GameState.new(seed=0), random.Random(0)
views = []
while not state.over and len(views) < 2:
    for p in state.acting_players():
        if state.decision(p) == "duel":
            views.append(state.view(p))
        state.apply(p, rng.choice(state.legal_actions(p)))
stop = threading.Event()
stop.set()  # stopped before it starts: the answer is the best so far at once
for view in views:
    t0 = time.perf_counter()
    make_bot("pimc_static").choose(view, random.Random(0), Budget(stop=stop))
    print(time.perf_counter() - t0)
"""


@pytest.mark.slow
def test_a_processs_first_duel_answers_its_stop_at_once():
    """Found by the bounded-search door: the first duel a process searches
    imports scipy.optimize (tacocat.search.decisions, at its first matrix
    game): 0.3 s and more idle, 1.1-2.9 s measured at load 12, in which
    neither a stop nor the server's cap reaches it.  The second duel,
    stopped the same way, answers in milliseconds.  The servers warm those
    imports before their first answer (`warm_search`), and a stopped duel
    takes its best mix without the linear program."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FIRST_DUEL], capture_output=True, text=True, timeout=120)
    first, second = (float(x) for x in out.stdout.split())
    assert second < 0.1, out
    assert first < 0.1, f"the first stopped duel took {first:.2f} s, the second {second:.3f} s"


def test_hint_example_refused_is_one_error_line():
    """Found by the CLI door (results/fuzz.md): `tacocat hint --player 1
    --example` exits 2 with two lines on stderr, the example it used and
    then the error (R12: the example's attack is player 1's own), where a
    refusal is one `error:` line (cli/hint_cmd.py)."""
    door = CliDoor()
    door.run(["hint", "--player", "1", "--example"], None)
    assert door.codes == {"2": 1} and door.failures == [], door.failures
