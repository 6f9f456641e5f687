"""A short fuzz round at every door (the long run is results/fuzz.py, its
table results/fuzz.md): hostile protocol requests, HTTP bodies over a real
loopback socket, command lines and files.  Each door checks its promise on
every input (fuzz_doors.py) and must report no failure."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_doors import (CliDoor, FileDoor, HttpDoor, ProtocolDoor, cli_invocations, fuzzed_files, http_bodies,
                        http_server, protocol_requests)
from tacocat.protocol.session import EngineSession

QUICK = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))


def test_protocol_requests():
    door = ProtocolDoor()

    @QUICK
    @given(protocol_requests())
    def run(request):
        door.send(request)

    run()
    assert door.tried >= 150 and door.failures == []
    assert door.codes.get("ok", 0) > 0 and len(door.codes) > 3  # the requests reach both sides of the door


def test_http_bodies():
    session = EngineSession(max_time_ms=100, max_games=50)
    with http_server(session) as base:
        door = HttpDoor(base, session)

        @settings(QUICK, max_examples=60)
        @given(http_bodies())
        def run(item):
            door.send_http(item)

        run()
    assert door.tried >= 60 and door.failures == []


def test_command_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # fuzzed --save and --out paths land here, not in the checkout
    door = CliDoor()

    @settings(QUICK, max_examples=25)
    @given(cli_invocations(files=[str(tmp_path / "missing.json")]))
    def run(item):
        door.run(*item)

    run()
    assert door.tried >= 25 and door.failures == []
    assert door.codes.get("2", 0) > 0


def test_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    door = FileDoor(str(tmp_path))

    @settings(QUICK, max_examples=25)
    @given(fuzzed_files())
    def run(item):
        door.send_file(item)

    run()
    assert door.tried >= 25 and door.failures == []
