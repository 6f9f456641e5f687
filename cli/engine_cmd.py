"""`tacocat engine`: the engine protocol as JSON Lines on stdin/stdout.

One request per line in, one response per line out, each carrying the
request's `id` (docs/protocol.md).  Nothing but protocol lines reaches
stdout: logs, warnings and anything a library prints go to stderr.

Searches (`hint`, `solve`) run on a worker thread while the main thread keeps
reading, so `stop` (and any other command) is answered during a search; the
search's own answer follows when it ends.  Responses can therefore come out
of request order: match them by `id`.  On `quit` the engine stops its
searches, writes their answers, answers the quit and exits; at the end of
input it lets running searches finish, answers them and exits."""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import BinaryIO

import click

from cli.notation import friendly_errors
from solver.protocol import EngineSession, Response, SearchJob, decode_request, encode_response, error_response
from solver.rules import load_ruleset

log = logging.getLogger("tacocat.engine")

DEFAULT_MAX_LINE = 1 << 20


class LineWriter:
    """Writes one response per line, whole, from any thread."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.broken = False

    def write(self, response: Response) -> None:
        data = (encode_response(response) + "\n").encode()
        with self.lock:
            if self.broken:
                return
            try:
                self.out.write(data)
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.broken = True  # the frontend went away; keep quiet


def _read_line(infile: BinaryIO, max_line: int) -> tuple[bytes | None, bool]:
    """The next line (without its end) and whether it was too long; (None,
    False) at the end of input.  A too-long line is skipped to its end
    without keeping it in memory."""
    raw = infile.readline(max_line + 1)
    if not raw:
        return None, False
    if len(raw) > max_line and not raw.endswith(b"\n"):
        while True:
            chunk = infile.readline(1 << 16)
            if not chunk or chunk.endswith(b"\n"):
                break
        return b"", True
    return raw.rstrip(b"\r\n"), False


def serve_lines(session: EngineSession, infile: BinaryIO, outfile: BinaryIO, max_line: int = DEFAULT_MAX_LINE) -> int:
    """Run the JSON Lines protocol until quit or the end of input; returns
    the number of lines answered.  Transport only: the session answers."""
    writer = LineWriter(outfile)
    workers: list[threading.Thread] = []
    answered = 0

    def run_job(job: SearchJob) -> None:
        writer.write(job.run())

    while True:
        line, too_long = _read_line(infile, max_line)
        if line is None:
            break
        if too_long:
            writer.write(error_response(None, "bad_json", f"request line longer than {max_line} bytes; skipped"))
            answered += 1
            continue
        if not line.strip():
            continue  # blank lines are not requests
        request, bad = decode_request(line)
        if bad is not None:
            writer.write(bad)
            answered += 1
            continue
        log.debug("request %s", line[:200])
        prepared = session.prepare(request)
        answered += 1
        if isinstance(prepared, SearchJob):
            worker = threading.Thread(target=run_job, args=(prepared,), name=f"search-{prepared.request_id}", daemon=True)
            worker.start()
            workers = [w for w in workers if w.is_alive()] + [worker]
            continue
        if session.closed:  # quit: its searches were stopped; answer them first
            for w in workers:
                w.join()
            writer.write(prepared)
            return answered
        writer.write(prepared)
    for w in workers:  # end of input: let running searches answer
        w.join()
    return answered


@click.command(name="engine")
@click.option("--rules", "rules_path", default=None, help="Ruleset file (.json or .toml) for the session; standard by default.")
@click.option("--max-time-ms", type=click.IntRange(1), default=None,
              help="Cap on any search's time: time_ms is cut to it and a search still running then is stopped. No cap by default.")
@click.option("--max-searches", type=click.IntRange(1), default=1, show_default=True,
              help="Searches running at once; more answer 'busy'.")
@click.option("--max-games", type=click.IntRange(1), default=1000, show_default=True,
              help="Games kept open; then the oldest finished one is forgotten, or new_game answers 'busy'.")
@click.option("--max-line", type=click.IntRange(64), default=DEFAULT_MAX_LINE, show_default=True,
              help="Longest request line in bytes; longer lines answer 'bad_json'.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning",
              show_default=True, help="Logging on stderr.")
@friendly_errors
def command(rules_path: str | None, max_time_ms: int | None, max_searches: int, max_games: int, max_line: int, log_level: str) -> None:
    """Speak the engine protocol as JSON Lines on stdin/stdout.

    \b
    One JSON request per line, one JSON response per line with the same id:
      {"id": 1, "cmd": "hello"}
      {"id": 2, "cmd": "new_game", "seed": 42}
      {"id": 3, "cmd": "legal", "game": "g1", "player": 0}
      {"id": 4, "cmd": "hint", "game": "g1", "player": 0, "time_ms": 5000}
      {"id": 5, "cmd": "stop"}
      {"id": 6, "cmd": "quit"}
    Searches run in the background: stop and other commands are answered
    while one runs. Every message: docs/protocol.md."""
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper()),
                        format="tacocat engine %(levelname)s: %(message)s")
    rules = load_ruleset(rules_path)
    session = EngineSession(rules, max_games=max_games, max_searches=max_searches, max_time_ms=max_time_ms,
                            limits={"max_line_bytes": max_line})
    # Keep the protocol stream to ourselves: file descriptor 1 becomes stderr
    # for everyone else (print, warnings, C extensions).
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with os.fdopen(protocol_fd, "wb", buffering=0) as out:
        serve_lines(session, sys.stdin.buffer, out, max_line)
