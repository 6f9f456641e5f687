"""The engine's file and JSON handling, written once: strict JSON (no NaN
or Infinity, too deep is a ValueError like any other bad JSON), reading a
user's JSON file (or stdin) into one-line errors, and writing a file so
that a crash never leaves half of it — game records (`tacocat play
--save`), arena results (`tacocat arena --out`) and every other document
the engine saves go through `atomic_write_text`."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

from tacocat.errors import RecordError


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder,
    synced to disk, then renamed over `path` (`os.replace` is atomic): at
    every moment `path` holds either its previous content or all of
    `text`.  Raises OSError; the temporary file never stays behind."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # the rename itself survives a power cut once the folder is synced
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def read_json(path: str, what: str) -> Any:
    """JSON from a file or `-` (stdin); a bad file is a RecordError naming it."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text()
    except OSError as exc:
        raise RecordError(f"cannot read {what} {path!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{what} {path!r} is not a text file; expected JSON") from None
    try:
        return loads_json(text)
    except ValueError as exc:
        where = "stdin" if path == "-" else repr(path)
        raise RecordError(f"{what} {where} is not valid JSON ({exc}); expected a JSON object") from None


class TooDeep(ValueError):
    """A JSON document nested deeper than the reader goes."""


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads_json(text: str | bytes) -> Any:
    """Strict JSON: NaN and Infinity refused, and a document nested too
    deeply to read is a ValueError like any other bad JSON (never a
    RecursionError traceback)."""
    try:
        return json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise TooDeep("nested too deeply to read") from None


def write_json(path: str | Path, data: Any) -> None:
    """Write JSON atomically (`atomic_write_text`: a crash never leaves
    half a file, the previous file stays whole)."""
    try:
        atomic_write_text(path, dumps_readable(data))
    except OSError as exc:
        raise RecordError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def dumps_readable(data: Any) -> str:
    """JSON with one top-level key a line and one list item a line (a game
    record reads one action a line)."""
    if not isinstance(data, Mapping):
        return json.dumps(data) + "\n"
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, (Mapping, list)) for v in value):
            items = ",\n".join(f"  {json.dumps(v)}" for v in value)
            parts.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
