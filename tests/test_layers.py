"""The package's layers import only downward (README, Layout):

    errors < rules < core < search < players < protocol < openspiel < cli

The walk reads the installed package's source (every `import` and `from ...
import`, also inside functions) so a lazy upward import fails as surely as a
top-level one."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

import tacocat

LAYERS = ["errors", "rules", "core", "search", "players", "protocol", "openspiel", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def package_root() -> Path:
    return Path(tacocat.__file__).parent


def module_name(path: Path, root: Path, cli_root: Path) -> str:
    if path.is_relative_to(cli_root):
        parts = ("cli", *path.relative_to(cli_root).with_suffix("").parts)
    else:
        parts = path.relative_to(root).with_suffix("").parts
    parts = tuple(p for p in parts if p != "__init__")
    return ".".join(("tacocat", *parts))


def layer_of(module: str) -> str | None:
    """The layer a `tacocat.*` module belongs to; None for the package root."""
    parts = module.split(".")
    if parts[0] != "tacocat" or len(parts) == 1:
        return None
    return parts[1]


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in `source`."""
    tree = ast.parse(source)
    package = module if is_package else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            # `from tacocat import search` names a layer too
            if target == "tacocat":
                found += [(node.lineno, f"tacocat.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "tacocat" or name.startswith("tacocat.")]


CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import|c?import\s+([\w.]+))", re.M)


def cython_imports(source: str) -> list[tuple[int, str]]:
    """Imports and cimports of a .pyx file (Cython is not Python to `ast`)."""
    found = []
    for m in CYTHON_IMPORT.finditer(source):
        line = source.count("\n", 0, m.start()) + 1
        found.append((line, m.group(1) or m.group(2)))
    return [(line, name) for line, name in found if name.startswith("tacocat")]


def sources() -> list[tuple[str, Path, bool]]:
    root = package_root()
    cli_root = Path(importlib.util.find_spec("tacocat.cli").origin).parent
    files = {
        p.resolve(): p for p in list(root.rglob("*.py")) + list(root.rglob("*.pyx")) + list(cli_root.rglob("*.py"))
    }
    return [(module_name(p, root, cli_root), p, p.name == "__init__.py") for p in sorted(files.values())]


def upward_imports(module: str, source: str, is_package: bool, cython: bool = False) -> list[str]:
    own = layer_of(module)
    if own is None:
        return []  # the package root is the public facade: it may name any layer
    problems = []
    found = cython_imports(source) if cython else imported_modules(source, module, is_package)
    for line, target in found:
        other = layer_of(target)
        if target == "tacocat" or other is None or other not in RANK or own not in RANK:
            continue
        if RANK[other] > RANK[own]:
            problems.append(f"{module}:{line} imports {target} ({other} is above {own})")
    return problems


def test_every_module_belongs_to_a_layer():
    strays = [m for m, _, _ in sources() if layer_of(m) not in RANK and layer_of(m) is not None]
    assert not strays, f"modules outside the layers {LAYERS}: {strays}"


def test_no_layer_imports_a_higher_one():
    problems = []
    for module, path, is_package in sources():
        problems += upward_imports(module, path.read_text(), is_package, cython=path.suffix == ".pyx")
    assert not problems, "upward imports:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "module, source",
    [
        ("tacocat.rules.game", "from tacocat.search.hint import hint\n"),
        ("tacocat.core.exact", "def f():\n    from tacocat.players import bots\n"),
        ("tacocat.search.pimc", "from ..protocol import session\n"),
        ("tacocat.rules.cards", "from tacocat import cli\n"),
    ],
)
def test_a_planted_upward_import_is_caught(module, source):
    assert upward_imports(module, source, is_package=False)


def test_a_planted_upward_cimport_is_caught():
    assert upward_imports("tacocat.core._ismcts", "from tacocat.search.pimc cimport x\n", False, cython=True)


def test_downward_and_same_layer_imports_pass():
    source = "from tacocat.rules.cards import hand\nfrom tacocat.errors import TacocatError\nfrom . import sampling\n"
    assert upward_imports("tacocat.search.pimc", source, is_package=False) == []
