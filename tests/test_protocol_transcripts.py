"""docs/protocol.md tells the truth: every ```json example on the page is
run against a live `EngineSession` and its answers compared with the
documented ones.

Each block is a transcript: its requests are sent in order to one fresh
session, built as `tacocat engine` builds it (its default caps and line
limit, read from the command itself), and each documented response or info
line is compared with the live message of the same id
(`protocol_examples.differences`): the same keys at every level and the
same values, except

- the page's aliases (`g1`, `<owner>`, `<seat 0>`, ...), bound to the
  random game ids and tokens the first time they are answered;
- what the page elides (`...`, `{...}`, `[...]`, `"text ..."`);
- clock readings (`seconds`, `elapsed_ms`, `thinking_ms`: any number);
- the few values each spec below names in `any_value`, with its reason
  (a seed drawn at random, a search on a time budget).

An example that builds on earlier ones (a move in the game that
`new_game`'s example opened) names them in its `prelude`: those documented
requests are sent first, their answers checked only for `ok`.  Versions
are not copied into this file: `hello`'s are compared with the live
session's, which reads them from the package (`tacocat.__version__`,
`PROTOCOL_VERSION`), and `test_versions_are_the_package_s` reads the
page's own words about them."""

from __future__ import annotations

import json
import queue
import re
import shlex
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from protocol_examples import DOC, Allowances, Block, blocks, differences, kind, substitute
from servers import running_server

import tacocat
from tacocat.cli import engine_cmd
from tacocat.protocol.jsonlines import DEFAULT_MAX_LINE
from tacocat.protocol.session import EngineSession, SearchJob
from tacocat.protocol.streaming import info_message
from tacocat.protocol.wire import PROTOCOL_VERSION, encode_response
from tacocat.rules.ruleset import load_ruleset

ANSWER_TIMEOUT_S = 120
"""How long a documented answer may take to arrive (a loaded machine)."""


def engine_session() -> EngineSession:
    """A session as `tacocat engine` with no options makes it: the command's
    own defaults for its caps and line limit."""
    defaults = {p.name: p.default for p in engine_cmd.command.params}
    assert defaults["max_line"] == DEFAULT_MAX_LINE
    return EngineSession(
        load_ruleset(None),
        max_time_ms=defaults["max_time_ms"],
        max_searches=defaults["max_searches"],
        max_queue=defaults["max_queue"],
        max_games=defaults["max_games"],
        limits={"max_line_bytes": defaults["max_line"]},
    )


@dataclass
class Spec:
    """How one transcript runs: its blocks (by `Block.key`), in order, on
    one session."""

    blocks: tuple[str, ...]
    prelude: tuple[tuple[str, Any], ...] = ()
    """Earlier examples' requests this one builds on: (block key, request id)."""
    unshown: dict[Any, dict] = field(default_factory=dict)
    """Requests the page answers without showing them, by id: sent before the block."""
    aliases: dict[str, str] = field(default_factory=dict)
    """A name the page writes out in full (`"Vb3y...seat 0's token"`) for an alias it shortens elsewhere."""
    any_value: dict[str, str] = field(default_factory=dict)
    """`id.path` (`8.result.seed`, `*` for any key) -> why its value cannot be fixed."""


AFTER_FIRST_REPLACE = (("new_game#1", 4), ("apply#1", 5))
"""Seed 42's game after player 0 kept its hand: the game the page's
`legal`, `view`, `state`, `record`, `games` and `move` examples show."""

SPECS: list[Spec] = [
    # "A request is one JSON object" and "A response is one JSON object":
    # one exchange, in seed 42's game once both replaced (a duel next).
    # The apply that answers id 8 is not on the page: here it is.
    Spec(
        ("Requests and responses#1", "Requests and responses#2"),
        prelude=(*AFTER_FIRST_REPLACE, ("apply#2", 6)),
        unshown={
            8: {
                "id": 8,
                "cmd": "apply",
                "game": "g1",
                "player": 0,
                "token": "<seat 0>",
                "action": {"kind": "attack", "cards": [2]},
            }
        },
        aliases={"gq3J6uY0mNWk1bXhT": "g1", "Vb3y...seat 0's token": "<seat 0>"},
    ),
    Spec(("hello#1",)),
    Spec(("set_rules#1",)),
    Spec(("new_game#1",)),
    Spec(
        ("Playing the engine#1",),
        any_value={
            # No seed: the game's deal is random, so is the hand dealt.
            "5.result.hand.*": "the deal of a random seed",
        },
    ),
    Spec(("Playing a friend#1",)),
    Spec(("apply#1",), prelude=(("new_game#1", 4),)),
    Spec(("apply#2",), prelude=AFTER_FIRST_REPLACE),
    Spec(
        ("move#1",),
        prelude=AFTER_FIRST_REPLACE,
        any_value={
            # id 8 gives no seed: one is drawn at random and reported, and
            # its 200 ms search's choice follows that seed and the clock.
            "8.result.seed": "drawn at random (the request gives none)",
            "8.result.action.cards.*": "a 200 ms search from a random seed",
        },
    ),
    # the reading commands, each run on the game after the first replacement
    *(
        Spec((name,), prelude=AFTER_FIRST_REPLACE)
        for name in ("legal#1", "view#1", "state#1", "record#1", "games#1", "end_game#1")
    ),
    *(Spec((name,)) for name in ("view#2", "hint#1", "hint#2", "hint#3")),
    Spec(
        ("Live search info#1",),
        any_value={
            # A 1000 ms PIMC search: how many worlds it samples, and so
            # every statistic of its moves, depends on the machine.
            "18.info.*": "counts of a search on a time budget",
            "18.info.best.*": "statistics of a search on a time budget",
            "18.info.*.*.*": "statistics of a search on a time budget",
            "18.result.samples": "worlds sampled in 1000 ms",
            "18.result.slices": "slices of 250 ms that fit in 1000 ms (each a little over or under)",
            "18.result.best.*": "statistics of a search on a time budget",
            "18.result.moves.*.*": "statistics of a search on a time budget",
        },
    ),
    Spec(("solve#1",)),
    Spec(("stop#1",), prelude=(("new_game#1", 4),)),
    Spec(("quit#1",)),
]

FRAGMENTS = {"Seats#1": (("new_game#1", 4), "result")}
"""Blocks that show a part of an answer: (the request whose answer holds
it, the path to the object holding it)."""


class Transcript:
    """One session, the requests sent to it and the messages it answered,
    by request id, as the JSON Lines transport writes them."""

    def __init__(self, allow: Allowances) -> None:
        self.session = engine_session()
        self.allow = allow
        self.answers: dict[Any, queue.Queue] = {}
        self.workers: list[threading.Thread] = []

    def _queue(self, request_id: Any) -> queue.Queue:
        return self.answers.setdefault(request_id, queue.Queue())

    def _put(self, request_id: Any, message: dict) -> None:
        # As a transport sends it: encoded and read back.
        self._queue(request_id).put(json.loads(encode_response(message)))

    def send(self, request: dict) -> None:
        live = substitute(request, self.allow.aliases)
        rid = live.get("id")
        self._queue(rid)
        prepared = self.session.prepare(live)
        if isinstance(prepared, SearchJob):
            job = prepared
            job.stop_event.sink = lambda payload: self._put(rid, info_message(rid, job.cmd, payload))
            worker = threading.Thread(target=lambda: self._put(rid, job.run()), daemon=True)
            worker.start()
            self.workers.append(worker)
        else:
            self._put(rid, prepared)

    def next(self, request_id: Any, want: str) -> tuple[dict, int]:
        """The next live message of this id of kind `want`, and how many
        info messages were passed over to reach a response (their number
        follows the clock)."""
        skipped = 0
        while True:
            message = self._queue(request_id).get(timeout=ANSWER_TIMEOUT_S)
            if kind(message) == want:
                return message, skipped
            if want == "response" and kind(message) == "info":
                skipped += 1
                continue
            raise AssertionError(f"id {request_id}: expected a {want}, got {message}")

    def close(self) -> None:
        self.session.stop_searches()
        for w in self.workers:
            w.join(ANSWER_TIMEOUT_S)


def _by_key(text: str | None = None) -> dict[str, Block]:
    return {b.key: b for b in blocks(text)}


def _request(found: dict[str, Block], key: str, request_id: Any) -> dict:
    (request,) = [m for m in found[key].messages if kind(m) == "request" and m.get("id") == request_id]
    return request


def run(spec: Spec, text: str | None = None) -> tuple[list[str], int]:
    """Run a transcript: (every difference found, the messages compared);
    `text` instead of the page, to show that a wrong page is caught."""
    found = _by_key(text)
    allow = Allowances(any_value=dict(spec.any_value))
    t = Transcript(allow)
    problems: list[str] = []
    compared = 0
    try:
        for key, rid in spec.prelude:
            t.send(_request(found, key, rid))
            answer, _ = t.next(rid, "response")
            assert answer["ok"], f"prelude {key} id {rid}: {answer}"
            problems += [
                f"prelude {key}: {d}" for d in differences(_answer_of(found, key, rid), answer, allow, (str(rid),))
            ]
        for name, alias in spec.aliases.items():
            allow.aliases[name] = allow.aliases[alias]  # bound by the prelude
        for request in spec.unshown.values():
            t.send(request)
        for key in spec.blocks:
            for message in found[key].messages:
                what = kind(message)
                if what == "request":
                    t.send(message)
                    continue
                assert what in ("response", "info"), f"{key}: a {what} in a transcript"
                rid = message.get("id")
                live, _ = t.next(rid, what)
                compared += 1
                problems += [
                    f"{key} (line {found[key].line}): {d}" for d in differences(message, live, allow, (str(rid),))
                ]
    finally:
        t.close()
    return problems, compared


def _answer_of(found: dict[str, Block], key: str, request_id: Any) -> Any:
    """The documented answer to a documented request (the response of its
    id that follows it in its block)."""
    messages = found[key].messages
    start = messages.index(_request(found, key, request_id))
    for m in messages[start + 1 :]:
        if kind(m) == "response" and m.get("id") == request_id:
            return m
    raise AssertionError(f"{key}: no answer to id {request_id}")


# --------------------------------------------------------------------------
# The tests.

EXAMPLES = blocks()


def test_every_json_block_of_the_page_is_checked():
    """A block added to the page is run here, or this fails: each block
    belongs to exactly one transcript or fragment check, and nothing here
    names a block the page no longer has."""
    covered = [key for spec in SPECS for key in spec.blocks] + list(FRAGMENTS)
    assert sorted(covered) == sorted(b.key for b in EXAMPLES)
    assert len(EXAMPLES) >= 20 and sum(len(b.messages) for b in EXAMPLES) >= 50


@pytest.mark.parametrize("spec", SPECS, ids=[spec.blocks[0] for spec in SPECS])
def test_the_example_is_what_the_engine_answers(spec: Spec):
    problems, compared = run(spec)
    assert compared >= 1, "a transcript that compares nothing"
    assert problems == [], "docs/protocol.md says otherwise:\n" + "\n".join(problems)


@pytest.mark.parametrize("key", list(FRAGMENTS))
def test_the_fragment_is_part_of_the_answer(key: str):
    """A block that shows part of an answer (the Seats section's `tokens`)
    is compared with that part of the live answer."""
    found = _by_key()
    (fragment,) = found[key].messages
    source, at = FRAGMENTS[key]
    allow = Allowances()
    t = Transcript(allow)
    try:
        t.send(_request(found, *source))
        answer, _ = t.next(source[1], "response")
    finally:
        t.close()
    part = answer[at]
    assert set(fragment) <= set(part)
    assert differences(fragment, {k: part[k] for k in fragment}, allow) == []
    assert allow.aliases.keys() >= {"<owner>", "<seat 0>", "<seat 1>"}


def _hello_example(text: str | None = None) -> dict:
    (block,) = [b for b in blocks(text) if b.section == "hello"]
    return next(m for m in block.messages if kind(m) == "response")["result"]


def test_versions_are_the_package_s():
    """The page's versions are the package's: the title, the Versions
    section's sentence and the hello example all say `PROTOCOL_VERSION`,
    and the hello example's engine version is `tacocat.__version__`."""
    text = DOC.read_text(encoding="utf-8")
    title = text.splitlines()[0]
    assert title == f'# The engine protocol, version "{PROTOCOL_VERSION}"'
    (said,) = re.findall(r'`hello` reports the protocol\'s version \(`"protocol": "([^"]+)"`', text)
    assert said == PROTOCOL_VERSION
    hello = _hello_example(text)
    assert (hello["protocol"], hello["version"]) == (PROTOCOL_VERSION, tacocat.__version__)
    assert f"| {PROTOCOL_VERSION} |" in text, "the version table has a row for the current version"


def test_a_drifted_version_on_the_page_fails_the_transcript():
    """The comparison is not vacuous: the page with hello's version one
    step off (as it once said 0.1.0) is caught, and so are a dropped key
    and an extra one."""
    text = DOC.read_text(encoding="utf-8")
    version = f'"version": "{tacocat.__version__}"'
    assert text.count(version) == 1
    for old, new, expect in [
        (version, '"version": "0.1.0"', "1.result.version: documented '0.1.0'"),
        ('"engine": "tacocat", ', "", "the answer's key 'engine' is not documented"),
        ('"running": {"games": 0,', '"running": {"gone": 1, "games": 0,', "documented key 'gone'"),
    ]:
        problems, _ = run(Spec(("hello#1",)), text.replace(old, new, 1))
        assert any(expect in p for p in problems), (expect, problems)


def test_the_reader_keeps_the_page_s_elisions():
    from protocol_examples import ELIDED, OpenDict, Pattern, Shortened, read_values

    (value,) = read_values('{"a": [1, ...], "b": {...}, "c": {"d": 1, ...}, "e": "x...y", "f": 0.1250}')
    assert value["a"] == [1, ELIDED] and value["b"] == OpenDict({}) and value["c"] == OpenDict({"d": 1})
    assert value["e"] == Pattern(("x", "y")) and isinstance(value["f"], Shortened) and value["f"].places == 4
    allow = Allowances()
    assert (
        differences(value, {"a": [1, 2, 3], "b": {"z": 0}, "c": {"d": 1, "q": 2}, "e": "x-y", "f": 0.12504}, allow)
        == []
    )
    wrong = {"a": [2], "b": [], "c": {"q": 2}, "e": "y", "f": 0.1256}
    assert len(differences(value, wrong, allow)) == 5
    (aliased,) = read_values('{"game": "g1", "again": "g1"}')
    assert differences(aliased, {"game": "abc", "again": "abd"}, Allowances()) == [
        "again: g1 stood for 'abc', here 'abd'"
    ]


def test_the_readme_counts_the_pyx_modules():
    """README.md's sentence on the Cython entry points counts the `.pyx`
    modules there are (it said "both" when a third had come) and cites
    test files that exist."""
    root = DOC.parents[1]
    text = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    (sentence,) = re.findall(r"[^.]*entry points of [^.]*`\.pyx` modules[^)]*\)", text)
    (count,) = re.findall(r"entry points of (both|all \w+) `\.pyx` modules", sentence)
    words = {"both": 2, "all two": 2, "all three": 3, "all four": 4, "all five": 5}
    assert words[count] == len(sorted((root / "solver" / "core").glob("*.pyx")))
    cited = re.findall(r"`(tests/[\w/]+\.py)`", sentence)
    assert cited and all((root / c).is_file() for c in cited)


# --------------------------------------------------------------------------
# The HTTP section's examples, against a real `tacocat serve`.


def _curl_examples() -> list[list[str]]:
    """The `curl` lines of the page's HTTP section, split as a shell would."""
    text = DOC.read_text(encoding="utf-8")
    http = text[text.index("## HTTP transport") :]
    return [shlex.split(line) for line in http.splitlines() if line.startswith("curl ")]


def _as_request(argv: list[str], aliases: dict[str, str]) -> tuple[str, dict[str, str], Any]:
    """(path, headers, body) of a curl line: `--json BODY` is curl's JSON
    POST (both headers application/json), `-H` a header, `-d` a body."""
    headers: dict[str, str] = {}
    url = body = None
    args = iter(argv[1:])
    for arg in args:
        if arg == "--json":
            body = next(args)
            headers.setdefault("content-type", "application/json")
            headers.setdefault("accept", "application/json")
        elif arg == "-H":
            name, _, value = next(args).partition(": ")
            headers[name.lower()] = value
        elif arg == "-d":
            body = next(args)
        elif arg.startswith("-"):
            assert arg in ("-s", "-sN"), f"a curl option this reader does not know: {arg}"
        else:
            url = arg
    assert url is not None and url.startswith("localhost:8000/") and body is not None
    for alias, value in aliases.items():
        body = body.replace(f'"{alias}"', json.dumps(value))
    return url.removeprefix("localhost:8000"), headers, json.loads(body)


@pytest.mark.slow
def test_the_http_section_s_curl_lines_are_answered_as_it_says():
    """Each `curl` line of the HTTP section, sent as curl sends it to a real
    server on 127.0.0.1: the new game is the one the `new_game` example
    shows (seed 42), the later lines use its id and tokens (`<id>`,
    `<seat 0>`, `<seat 1>`) and answer ok, the streamed ones as a stream of
    the type the section names, info messages first and the response last."""
    lines = _curl_examples()
    assert len(lines) == 5
    found = _by_key()
    documented = _answer_of(found, "new_game#1", 4)["result"]
    aliases: dict[str, str] = {}
    with running_server() as client:
        for argv in lines:
            path, headers, body = _as_request(argv, aliases)
            reply = client.post(path, headers=headers, content=json.dumps(body))
            assert reply.status_code == 200, reply.text
            kind_of = reply.headers["content-type"].split(";")[0]
            if "info_ms" not in body:
                assert kind_of == "application/json"
                answer = reply.json()
                assert answer["ok"] and answer["cmd"] == body.get("cmd", path.rsplit("/", 1)[-1]), answer
                assert answer["id"] == body.get("id")
                if answer["cmd"] == "new_game":
                    allow = Allowances()
                    assert differences(documented, answer["result"], allow) == []
                    aliases = {"<id>": allow.aliases["g1"], **{k: v for k, v in allow.aliases.items() if k != "g1"}}
                continue
            if "event-stream" in headers.get("accept", ""):
                assert kind_of == "text/event-stream"
                events = [e for e in reply.text.split("\n\n") if e.strip()]
                names = [e.split("\n")[0] for e in events]
                messages = [json.loads(e.split("data: ", 1)[1]) for e in events]
                assert names[-1] == "event: result" and set(names[:-1]) <= {"event: info"}
            else:
                assert kind_of == "application/x-ndjson"
                messages = [json.loads(line) for line in reply.text.splitlines() if line.strip()]
            *infos, last = messages
            assert infos and all(kind(m) == "info" for m in infos), messages
            assert last["ok"] and kind(last) == "response", last


def test_the_move_section_names_the_bots_hello_lists():
    """`move`'s prose names the bots a seat may be played by: exactly
    those `hello` lists (the bots that choose from the seat's view)."""
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    (names,) = re.findall(r"Give either `bot` — (.*?) \(default `pimc`; `hello` lists them\)", text)
    named = re.findall(r"`(\w+)`", names)
    hello = engine_session().handle({"cmd": "hello"})["result"]
    assert named == hello["bots"]
