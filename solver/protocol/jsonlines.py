"""The engine protocol as JSON Lines: one request per line in, one response
per line out, each carrying the request's `id` (docs/protocol.md).

Searches (`hint`, `move`, `solve`) run on a worker thread while the reader
keeps reading, so `stop` (and any other command) is answered during a
search; the search's own answer follows when it ends, after its `info`
lines when the request asked for them (`info_ms`).  Searches queue: they
run one after another in the order they arrived.  Responses can therefore come out
of request order: match them by `id`.  On `quit` the transport stops its
searches, writes their answers, answers the quit and returns; at the end of
input it lets running searches finish, answers them and returns.

Transport only: `EngineSession` answers every request."""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import BinaryIO

from tacocat.protocol.session import EngineSession, SearchJob
from tacocat.protocol.streaming import info_message
from tacocat.protocol.wire import Message, Response, decode_request, encode_response, error_response

log = logging.getLogger("tacocat.engine")

DEFAULT_MAX_LINE = 1 << 20


class LineWriter:
    """Writes one response per line, whole, from any thread."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.broken = False

    def write(self, response: Message) -> None:
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
    while True:
        line, too_long = _read_line(infile, max_line)
        if line is None:
            break
        prepared = _prepared(session, line, too_long, max_line)
        if prepared is None:
            continue  # blank lines are not requests
        answered += 1
        if isinstance(prepared, SearchJob):
            workers = [w for w in workers if w.is_alive()] + [_start_search(prepared, writer)]
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


def _prepared(session: EngineSession, line: bytes, too_long: bool, max_line: int) -> Response | SearchJob | None:
    """A line's answer, or the search it starts; None for a blank line."""
    if too_long:
        return error_response(None, "bad_json", f"request line longer than {max_line} bytes; skipped")
    if not line.strip():
        return None
    request, bad = decode_request(line)
    if bad is not None:
        return bad
    log.debug("request %s", line[:200])
    return session.prepare(request)


def _start_search(job: SearchJob, writer: LineWriter) -> threading.Thread:
    """Run `job` on a thread of its own, its info messages and then its
    answer written as they come, while the next lines are read."""
    job_id, job_cmd = job.request_id, job.cmd
    job.stop_event.sink = lambda payload: writer.write(info_message(job_id, job_cmd, payload))
    worker = threading.Thread(target=lambda: writer.write(job.run()), name=f"search-{job_id}", daemon=True)
    worker.start()
    return worker


def serve_stdio(session: EngineSession, max_line: int = DEFAULT_MAX_LINE) -> int:
    """Serve on this process's stdin/stdout.  Nothing but protocol lines
    reaches stdout: file descriptor 1 becomes stderr for everyone else
    (print, warnings, C extensions)."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with os.fdopen(protocol_fd, "wb", buffering=0) as out:
        return serve_lines(session, sys.stdin.buffer, out, max_line)
