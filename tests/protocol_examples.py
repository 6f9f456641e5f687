"""The JSON examples of docs/protocol.md, read as the transcripts they are.

Every ```json block of the page is parsed into its messages: requests
(`cmd` and no `ok`), responses (`ok`) and info messages (`info`).  The
examples are JSON with the page's elisions, which this reader keeps as
patterns instead of failing on them:

- `...` as a member of an object: the object may hold more keys;
- `...` as an element of a list: any number of elements there;
- `{...}` and `[...]`: any object, any list;
- `...` inside a string: any text there (`"Vb3y...seat 0's token"`).

`matches(doc, live)` then compares a documented message with a live one:
the same keys at every level (unless the page elided some), the same
values, save the allowances its caller names (`Allowances`) and the page's
aliases for random game ids and tokens (`"g1"`, `"<seat 0>"`), which are
bound to the live values the first time they are seen and must stay the
same after."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


class _Ellipsis:
    """`...` as a list element or an object member."""

    def __repr__(self) -> str:
        return "..."


ELIDED = _Ellipsis()


@dataclass
class OpenDict:
    """An object written with `...` among its members: these keys at least."""

    items: dict[str, Any]


@dataclass(frozen=True)
class Pattern:
    """A string written with `...` inside it: these parts, in this order."""

    parts: tuple[str, ...]

    def match(self, text: str) -> bool:
        return re.fullmatch(".*".join(re.escape(p) for p in self.parts), text, re.DOTALL) is not None


class Shortened(float):
    """A number written with `places` decimals: the page rounds the
    engine's statistics ("numbers shortened here"), so it stands for any
    number that rounds to it."""

    places: int

    def __new__(cls, text: str) -> "Shortened":
        number = super().__new__(cls, text)
        number.places = len(text.partition(".")[2])
        return number

    def matches(self, live: float) -> bool:
        return round(live, self.places) == float(self)


ANY_DICT = OpenDict({})
ANY_LIST = [ELIDED]


class _Reader:
    """A recursive-descent reader of JSON with the page's `...`."""

    NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> ValueError:
        line = self.text.count("\n", 0, self.pos) + 1
        return ValueError(f"{what} at line {line} of the block: {self.text[self.pos : self.pos + 40]!r}")

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def at_end(self) -> bool:
        self.skip()
        return self.pos >= len(self.text)

    def peek(self, token: str) -> bool:
        self.skip()
        return self.text.startswith(token, self.pos)

    def take(self, token: str) -> None:
        if not self.peek(token):
            raise self.error(f"expected {token!r}")
        self.pos += len(token)

    def value(self) -> Any:
        self.skip()
        if self.peek("{"):
            return self.obj()
        if self.peek("["):
            return self.array()
        if self.peek('"'):
            return self.string()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.peek(word):
                self.pos += len(word)
                return val
        m = self.NUMBER.match(self.text, self.pos)
        if not m:
            raise self.error("expected a value")
        self.pos = m.end()
        text = m.group()
        if "." in text and not re.search("[eE]", text):
            return Shortened(text)
        return json.loads(text)

    def string(self) -> str | Pattern:
        self.take('"')
        s, self.pos = scanstring(self.text, self.pos)
        return Pattern(tuple(s.split("..."))) if "..." in s else s

    def obj(self) -> dict | OpenDict:
        self.take("{")
        items: dict[str, Any] = {}
        elided = False
        while not self.peek("}"):
            if self.peek("..."):
                self.pos += 3
                elided = True
            else:
                key = self.string()
                if not isinstance(key, str):
                    raise self.error("an elided key")
                if key in items:
                    raise self.error(f"key {key!r} twice")
                self.take(":")
                items[key] = self.value()
            if not self.peek("}"):
                self.take(",")
        self.take("}")
        return OpenDict(items) if elided else items

    def array(self) -> list:
        self.take("[")
        out: list[Any] = []
        while not self.peek("]"):
            if self.peek("..."):
                self.pos += 3
                out.append(ELIDED)
            else:
                out.append(self.value())
            if not self.peek("]"):
                self.take(",")
        self.take("]")
        return out


def read_values(text: str) -> list[Any]:
    """Every value of a block, in order.  A block that opens with a member
    (`"tokens": {...}`) is read as the object holding it."""
    if text.lstrip().startswith('"'):
        text = "{" + text + "}"
    reader = _Reader(text)
    values = []
    while not reader.at_end():
        values.append(reader.value())
    return values


@dataclass
class Block:
    """One ```json block: where it stands and what it says."""

    section: str
    """The heading it stands under, backquotes dropped (`apply`, `Live search info`)."""
    index: int
    """Its place among the blocks of its section, from 1."""
    line: int
    """The line of its opening fence."""
    messages: list[Any]

    @property
    def key(self) -> str:
        return f"{self.section}#{self.index}"


def blocks(text: str | None = None) -> list[Block]:
    """The page's ```json blocks, in order."""
    text = DOC.read_text(encoding="utf-8") if text is None else text
    out: list[Block] = []
    section = ""
    counts: dict[str, int] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip().replace("`", "")
        if line.strip() == "```json":
            end = lines.index("```", i + 1)
            counts[section] = counts.get(section, 0) + 1
            body = "\n".join(lines[i + 1 : end])
            try:
                values = read_values(body)
            except ValueError as exc:
                raise ValueError(f"docs/protocol.md line {i + 1}: {exc}") from exc
            out.append(Block(section, counts[section], i + 1, values))
            i = end
        i += 1
    return out


def kind(message: Any) -> str:
    """`request`, `response`, `info` or `fragment` (a part of a message)."""
    if isinstance(message, dict) and "ok" in message:
        return "response"
    if isinstance(message, dict) and "info" in message:
        return "info"
    if isinstance(message, dict) and "cmd" in message:
        return "request"
    return "fragment"


# --------------------------------------------------------------------------
# Comparing a documented message with a live one.


def is_alias(text: str) -> bool:
    """The page's short names for random values: game ids `g1`, `g2`, ...
    and tokens `<owner>`, `<seat 0>`, `<seat 1>`."""
    return re.fullmatch(r"g\d+|<[^<>]+>", text) is not None


@dataclass
class Allowances:
    """What a comparison lets differ, each for a reason the caller names.

    `any_value`: paths (dotted, `result.seed`; `*` for any one key or list
    index) whose value may be anything of the documented JSON type.
    `timings`: keys whose numbers are clock readings wherever they appear.
    `aliases`: the page's names bound so far to live values."""

    any_value: dict[str, str] = field(default_factory=dict)
    timings: frozenset[str] = frozenset({"seconds", "elapsed_ms", "thinking_ms"})
    aliases: dict[str, Any] = field(default_factory=dict)

    def loose(self, path: tuple[str, ...]) -> bool:
        for pattern in self.any_value:
            parts = pattern.split(".")
            if len(parts) == len(path) and all(p in ("*", q) for p, q in zip(parts, path)):
                return True
        return False


def _json_type(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value) if value is None else "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (str, Pattern)):
        return "string"
    if isinstance(value, (list,)):
        return "list"
    if isinstance(value, (dict, OpenDict)):
        return "object"
    return type(value).__name__


def differences(doc: Any, live: Any, allow: Allowances, path: tuple[str, ...] = ()) -> list[str]:
    """Where `live` is not what `doc` says (empty: it is), one line each,
    binding the page's aliases to live values on the way."""
    where = ".".join(path) or "(message)"
    if isinstance(doc, str) and is_alias(doc):
        bound = allow.aliases.setdefault(doc, live)
        if bound != live:
            return [f"{where}: {doc} stood for {bound!r}, here {live!r}"]
        return []
    if isinstance(doc, (dict, OpenDict)):
        if not isinstance(live, dict):
            return [f"{where}: documented an object, got {live!r:.80}"]
        items = doc.items if isinstance(doc, OpenDict) else doc
        out = [f"{where}: documented key {k!r} is not in the answer" for k in items if k not in live]
        if isinstance(doc, dict):
            out += [f"{where}: the answer's key {k!r} is not documented" for k in live if k not in items]
        for k, v in items.items():
            if k in live:
                out += differences(v, live[k], allow, (*path, k))
        return out
    if isinstance(doc, list):
        if not isinstance(live, list):
            return [f"{where}: documented a list, got {live!r:.80}"]
        gaps = [i for i, v in enumerate(doc) if v is ELIDED]
        if len(gaps) > 1:
            raise ValueError(f"{where}: a list with more than one '...' is not read")
        head, tail = (doc, []) if not gaps else (doc[: gaps[0]], doc[gaps[0] + 1 :])
        if (not gaps and len(live) != len(doc)) or (gaps and len(live) < len(head) + len(tail)):
            return [f"{where}: documented {len(head) + len(tail)}{'+' if gaps else ''} elements, got {len(live)}"]
        out = []
        for i, v in enumerate(head):
            out += differences(v, live[i], allow, (*path, str(i)))
        for j, v in enumerate(tail):
            i = len(live) - len(tail) + j
            out += differences(v, live[i], allow, (*path, str(i)))
        return out
    if _json_type(doc) != _json_type(live):
        return [f"{where}: documented {doc!r} ({_json_type(doc)}), got {live!r:.80} ({_json_type(live)})"]
    if allow.loose(path):
        return []
    if path and path[-1] in allow.timings and _json_type(doc) == "number":
        return []
    if isinstance(doc, Pattern):
        return [] if doc.match(live) else [f"{where}: documented {'...'.join(doc.parts)!r}, got {live!r}"]
    if isinstance(doc, Shortened) and not isinstance(live, bool) and isinstance(live, (int, float)):
        return [] if doc.matches(live) else [f"{where}: documented {doc!r} ({doc.places} places), got {live!r}"]
    if doc != live:
        return [f"{where}: documented {doc!r}, got {live!r}"]
    return []


def substitute(request: Any, aliases: dict[str, Any]) -> Any:
    """A documented request as it can be sent: aliases replaced by what
    they stand for; an alias not bound yet is an error (an example that
    uses a game no earlier example opened)."""
    if isinstance(request, dict):
        return {k: substitute(v, aliases) for k, v in request.items()}
    if isinstance(request, list):
        if any(v is ELIDED for v in request):
            raise ValueError("a request with '...' cannot be sent")
        return [substitute(v, aliases) for v in request]
    if isinstance(request, OpenDict):
        raise ValueError("a request with '...' cannot be sent")
    if isinstance(request, Pattern) or (isinstance(request, str) and (is_alias(request) or request in aliases)):
        key = request if isinstance(request, str) else "...".join(request.parts)
        if key not in aliases:
            raise KeyError(f"{key!r} is used before any example answered it")
        return aliases[key]
    return request
