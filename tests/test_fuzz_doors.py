"""A short fuzz round at every door (the long run is results/fuzz.py, its
table results/fuzz.md): hostile protocol requests, HTTP bodies over a real
loopback socket, command lines and files.  Each door checks its promise on
every input (fuzz_doors.py) and must report no failure."""

from __future__ import annotations

import pytest
from fuzz_doors import (
    CORS_ORIGIN,
    EXTRA_HOST,
    BrowserOriginDoor,
    CliDoor,
    CrossClientDoor,
    CrossSeatDoor,
    FileDoor,
    HttpDoor,
    ProtocolDoor,
    TwoProcessDoor,
    browser_requests,
    cli_invocations,
    cross_client_requests,
    cross_seat_requests,
    fuzzed_files,
    http_bodies,
    http_server,
    intruders,
    protocol_requests,
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
