"""Every example a user is shown runs as written (issue 35): each `tacocat
...` line of every command's --help (the click app walked, as `tacocat
COMMAND --help` prints it), of README.md and of the docs/*.md code blocks
(a console's `$ ` prompt dropped), every whole command quoted inline in
their prose (`tacocat rules R12`; a command name alone, a flag named
without its value or a placeholder such as GAME.json is a reference, not
an example), and the README's Python blocks.

The lines of one help or one code block run in order in one fresh folder,
as a reader would type them (`play --save game.json`, then `play --resume
game.json`).  A line that writes a file with echo/printf (`... >
cases.jsonl`) is the documented input of the lines after it and runs too.
A command with no input of its own reads an empty stdin: `tacocat play`
then saves and stops cleanly.  Each line must end with status 0, or the
one its comment documents (`# exit status 2`), within its timeout, and say
nothing of a refused or unread input (a scripted game whose moves are not
legal does not run as written).  The extraction and the skip list are
checked in the fast loop; running the examples is the slow part."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from helpers import tacocat_argv

from tacocat.cli.main import COMMANDS, app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

TIMEOUT_S = 60
"""The most one line may take; the examples' own budgets are far below it
(an example that needs more should say a smaller budget in its text)."""

# The examples that do not run here, each with the reason: first by what
# they are (any line of its kind, wherever it is shown) ...
SKIP_KINDS = [
    # servers run until stopped (tests/test_http.py starts them)
    (re.compile(r"(^|\|)\s*tacocat serve\b"), "starts the HTTP server, which runs until stopped"),
    # a synopsis: the option list in brackets, not a command to type
    (re.compile(r"^tacocat \w+ \[--"), "a synopsis (options in brackets), not a command"),
    # Ray starts a private cluster, a set of server processes (tests/test_cluster.py runs the Ray path)
    (re.compile(r"--cluster ray\b"), "starts a Ray cluster"),
]
# ... then these lines by name.  A line here that no longer appears in any
# help or document fails the fast loop.
SKIP: dict[str, str] = {}
"""Lines skipped by name, each with its reason (none today: the arena
examples were given budgets of seconds)."""


def skip_reason(line: str) -> str | None:
    """Why `line` does not run here, or None: it must."""
    for pattern, why in SKIP_KINDS:
        if pattern.search(line):
            return why
    return SKIP.get(line)


SKIP_PYTHON = {
    # Its ten lines play a whole game through `tacocat engine`;
    # tests/test_client.py::test_the_readme_client_example_runs_as_written
    # runs them as they stand (in the slow set).
    "A Python client": "run by tests/test_client.py",
}

INPUTS = {
    "game.json": ROOT / "docs" / "example_game.json",
    "docs/example_game.json": ROOT / "docs" / "example_game.json",
}
"""Files every folder starts with: the record the `analyze` examples review
(docs/example_game.json, saved by `tacocat play --save`, docs/cli.md), also
at the path docs/cli.md's command that draws its picture reads it from."""

SETUP: dict[str, tuple[str, ...]] = {
    # docs/cli.md's prose: --save writes the record, and this continues it
    "tacocat play --resume game.json": ("tacocat play --opponent heuristic --seed 7 --save game.json",),
}
"""Inline examples whose documented input is made by the example the text
around them describes, run first in the same folder."""

_COMMAND = re.compile(r"(?:^|&&|\|)\s*tacocat\s+(\S+)")
_WRITES_INPUT = re.compile(r"^(?:echo|printf)\s.*[^|]*>\s*\S+\s*$")
_PIP = re.compile(r"^\s*pip install [^&|;]*&&\s*")
_STATUS = re.compile(r"#.*\bexit status (\d+)")
_PROMPT = re.compile(r"^\$\s+")
_INLINE = re.compile(r"`((?:(?:echo|printf)\s[^`|]*\|\s*)?tacocat\s[^`]+)`")
_PLACEHOLDER = re.compile(r"[A-Z][A-Z_]*(?:\.\w+)?|.*\.\.\..*|\[.*|.*\]|<.*>|\w+(?:\|\w+)+")
_REDIRECT = ("<", ">", "2>", "|")


@dataclass(frozen=True)
class Example:
    where: str
    """The help or the document line the example is shown at."""
    lines: tuple[str, ...]
    """Its shell lines, in order (continuations joined)."""


def _joined(raw: list[str]) -> list[str]:
    """Lines with their `\\` continuations joined, stripped."""
    out: list[str] = []
    pending = ""
    for line in raw:
        text = _PROMPT.sub("", line.strip())
        if text.endswith("\\"):
            pending += text[:-1].rstrip() + " "
            continue
        out.append(pending + text)
        pending = ""
    if pending:
        out.append(pending.strip())
    return out


def _is_command(line: str) -> bool:
    """A `tacocat COMMAND ...` line (after an echo/printf pipe or a `pip
    install ... &&`), not prose that names the program."""
    m = _COMMAND.search(line)
    return bool(m) and (m.group(1) in COMMANDS or m.group(1).startswith("-"))


def _examples_of(where: str, lines: list[str]) -> Example | None:
    picked = [ln for ln in _joined(lines) if _is_command(ln) or _WRITES_INPUT.match(ln)]
    return Example(where, tuple(picked)) if any(_is_command(ln) for ln in picked) else None


def help_examples() -> list[Example]:
    """The examples of `tacocat --help` and of each command's --help."""
    root = click.Context(app, info_name="tacocat", terminal_width=100)
    found = [_examples_of("tacocat --help", app.get_help(root).splitlines())]
    for name in app.list_commands(root):
        command = app.get_command(root, name)
        assert command is not None
        ctx = click.Context(command, info_name=name, parent=root, terminal_width=100)
        found.append(_examples_of(f"tacocat {name} --help", command.get_help(ctx).splitlines()))
    return [e for e in found if e is not None]


def code_blocks(path: Path) -> list[tuple[int, str, list[str]]]:
    """(first line number, info string, lines) of each fenced block."""
    blocks, current, start, info = [], None, 0, ""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        fence = re.match(r"^\s*```(\S*)", line)
        if fence and current is None:
            current, start, info = [], n, fence.group(1)
        elif fence:
            blocks.append((start, info, current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def document_examples() -> list[Example]:
    """The shell examples of README.md and docs/*.md."""
    found = []
    for path in DOCS:
        for start, info, lines in code_blocks(path):
            if info in ("", "sh", "bash", "shell", "console"):
                found.append(_examples_of(f"{path.relative_to(ROOT)}:{start}", lines))
    return [e for e in found if e is not None]


def whole_command(span: str) -> bool:
    """Whether an inline `tacocat ...` span is a command to type: a known
    command with an argument or an option's value, every option's value
    given, no placeholder (FILE, GAME.json, N, `...`, [R12], a|b)."""
    try:
        words = shlex.split(span)
    except ValueError:
        return False
    if "tacocat" in words:
        words = words[words.index("tacocat") :]
    if words == ["tacocat", "--help"]:
        return True
    if len(words) < 3 or words[1] not in COMMANDS:
        return False
    root = click.Context(app, info_name="tacocat")
    command = app.get_command(root, words[1])
    if command is None:
        return False
    options = {name: p for p in command.params for name in [*p.opts, *p.secondary_opts]}
    said, i = False, 2
    while i < len(words):
        word = words[i]
        if word in _REDIRECT:  # its file is the example's input or output
            said, i = True, i + 2
            continue
        if _PLACEHOLDER.fullmatch(word.split("=")[-1]):
            return False
        option = options.get(word.split("=")[0]) if word.startswith("-") else None
        if word.startswith("-") and option is None:
            return False
        if option is not None and "=" not in word and not getattr(option, "is_flag", False):
            value = words[i + 1] if i + 1 < len(words) else None
            if getattr(option, "_flag_needs_value", False) and (value is None or value.startswith("-")):
                i += 1  # an optional value left out (solve --json): a flag here
                continue
            if value is None or value.startswith("-") or _PLACEHOLDER.fullmatch(value):
                return False  # the option named, its value not: a reference to it
            i += 1
        said = said or option is None or not getattr(option, "is_flag", False)
        i += 1
    return said


def inline_examples() -> list[Example]:
    """The whole commands quoted in the prose of README.md and docs/*.md
    (outside their code blocks), each an example of its own."""
    found = []
    for path in DOCS:
        text = path.read_text()
        fenced = {n for start, _, lines in code_blocks(path) for n in range(start, start + len(lines) + 2)}
        for m in _INLINE.finditer(text):
            n = text.count("\n", 0, m.start()) + 1
            span = " ".join(m.group(1).split())
            if n not in fenced and whole_command(span):
                found.append(Example(f"{path.relative_to(ROOT)}:{n} (inline)", (span,)))
    return found


def python_examples() -> list[tuple[str, str]]:
    """(the section's title, the code) of each Python block of README.md."""
    text = (ROOT / "README.md").read_text()
    found = []
    for m in re.finditer(r"^## ([^\n]+)$(.*?)(?=^## |\Z)", text, re.M | re.S):
        for block in re.findall(r"^```python\n(.*?)^```", m.group(2), re.M | re.S):
            found.append((m.group(1).strip(), block))
    return found


EXAMPLES = help_examples() + document_examples() + inline_examples()


def test_the_examples_are_found_and_the_skip_list_is_current():
    everywhere = {line for e in EXAMPLES for line in e.lines}
    stale = [line for line in SKIP if line not in everywhere]
    assert not stale, f"SKIP names examples no help or document shows any more: {stale}"
    for pattern, why in SKIP_KINDS:
        assert any(pattern.search(line) for line in everywhere), f"no example left that {why}"
    skipped = sorted(line for line in everywhere if skip_reason(line))
    assert len(skipped) <= 10, skipped  # a kind that swallowed runnable examples would show here
    sections = {title for title, _ in python_examples()}
    assert set(SKIP_PYTHON) <= sections, sorted(set(SKIP_PYTHON) - sections)
    where = {e.where for e in EXAMPLES}
    # every command whose help has examples is walked, and the documents too
    for name in ("hint", "solve", "play", "arena", "analyze", "rules", "bench", "selfplay", "serve"):
        assert f"tacocat {name} --help" in where, name
    assert any(w.startswith("README.md:") for w in where) and any(w.startswith("docs/cli.md:") for w in where)
    assert {"From Python", "In OpenSpiel"} <= sections
    stale_setup = [line for line in SETUP if line not in everywhere]
    assert not stale_setup, f"SETUP names examples no document shows any more: {stale_setup}"
    inline = {line for e in EXAMPLES if e.where.endswith("(inline)") for line in e.lines}
    assert {"tacocat rules R12", "tacocat play --resume game.json"} <= inline, sorted(inline)


def test_inline_spans_are_examples_only_when_whole():
    whole = [
        "tacocat rules R12",
        "tacocat play --resume game.json",
        "tacocat --help",
        "tacocat solve --json cases.jsonl",
    ]
    references = [
        "tacocat hint",
        "tacocat hint --json",
        "tacocat play --save",
        "tacocat analyze GAME.json",
        "tacocat engine --store FILE",
        "tacocat rules [R12]",
        "tacocat solve --equilibrium --hand ...",
        "tacocat serve --admin-token",
    ]
    assert [whole_command(s) for s in whole] == [True] * len(whole)
    assert [whole_command(s) for s in references] == [False] * len(references)
    assert whole_command("printf 'none\\n' | tacocat play --opponent random --seed 11")
    assert _joined(["$ tacocat rules R12"]) == ["tacocat rules R12"]


def test_extraction_joins_continuations_and_keeps_inputs_and_pipes():
    ex = _examples_of(
        "t",
        [
            "# a comment",
            "  tacocat hint --hand '3 10 11' \\",
            "      --history 'p1 attacks 9'",
            "  printf '%s\\n' '{}' > cases.jsonl",
            "  echo '{}' | tacocat solve --json",
            "  use tacocat hint, which samples",
            "  curl -s localhost:8000/v1/new_game",
        ],
    )
    assert ex is not None and ex.lines == (
        "tacocat hint --hand '3 10 11' --history 'p1 attacks 9'",
        "printf '%s\\n' '{}' > cases.jsonl",
        "echo '{}' | tacocat solve --json",
    )
    assert _examples_of("t", ["echo hi > x"]) is None  # input alone is no example


def _shell(line: str) -> str:
    """The line as the test runs it: a `pip install ... &&` prefix dropped
    (the package under test is installed already)."""
    return _PIP.sub("", line)


def _expected_status(line: str) -> int:
    m = _STATUS.search(line)
    return int(m.group(1)) if m else 0


def _run(line: str, folder: Path) -> str | None:
    """None when `line` runs as documented in `folder`, else what went wrong."""
    prelude = f'set -o pipefail\ntacocat() {{ {shlex.join(tacocat_argv())} "$@"; }}\n'
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", PAGER="cat")
    # A session of its own, so that a timeout ends the worker processes an
    # example starts (arena --workers) and not only the shell.
    with subprocess.Popen(
        ["bash", "-c", prelude + _shell(line)],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return f"{line}\n  still running after {TIMEOUT_S} s"
    said = out + err
    if proc.returncode != _expected_status(line):
        return f"{line}\n  exit status {proc.returncode}:\n{said[-2000:]}"
    for refused in ("Traceback", "not legal", "not understood", "is neither a move nor a command"):
        if refused in said:
            return f"{line}\n  says {refused!r}:\n{said[-2000:]}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_every_example_runs_as_written(example, tmp_path):
    for name, source in INPUTS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, tmp_path / name)
    failed = []
    for line in example.lines:
        if skip_reason(line):
            continue
        failed += [problem for before in SETUP.get(line, ()) if (problem := _run(before, tmp_path))]
        if problem := _run(line, tmp_path):
            failed.append(problem)
    assert not failed, "\n\n".join(failed)


PYTHON = python_examples()


@pytest.mark.slow
@pytest.mark.parametrize("title, code", PYTHON, ids=[t for t, _ in PYTHON])
def test_every_readme_python_block_runs_and_prints_what_a_person_reads(title, code, tmp_path):
    if title in SKIP_PYTHON:
        pytest.skip(SKIP_PYTHON[title])
    if "pyspiel" in code and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("OpenSpiel is an optional extra (pip install -e '.[openspiel]'), not installed here")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip(), f"the {title!r} block prints nothing"
    # a dataclass repr such as MoveEval(action=...) is for programmers, not a reader
    assert not re.search(r"\b[A-Z]\w*\(\w+=", done.stdout), done.stdout
