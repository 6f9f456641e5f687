"""Tacocat Spelled Backwards: the rules engine, its exact solver and the
search over hidden hands.

    >>> import tacocat
    >>> view = tacocat.build_view(hand=(2, 5, 9, 12), attacker=0)
    >>> tacocat.hint(view, method="exact").best            # doctest: +SKIP
    >>> tacocat.solve(tacocat.PlayPosition(((2, 9), (3, 8)), attacker=0)).value
    1

The package is layered; each layer imports only the ones before it
(tests/test_layers.py checks this):

- `tacocat.rules`: the game as RULES.md states it, in plain Python;
- `tacocat.core`: the Cython core and its one Python wrapper (`core.exact`);
- `tacocat.search`: search over hidden hands (sampling, PIMC, ISMCTS, hints);
- `tacocat.players`: bots, matches and game analysis;
- `tacocat.protocol`: the engine protocol and its JSON Lines and HTTP transports;
- `tacocat.cli`: the `tacocat` command, which only parses, calls and formats.

The names below load their layer on first use, so `import tacocat` stays
cheap."""

from __future__ import annotations

import importlib
from typing import Any

from tacocat.errors import TacocatError

__version__ = "0.2.0"

_PUBLIC = {
    "STANDARD": "tacocat.rules.ruleset",
    "Ruleset": "tacocat.rules.ruleset",
    "load_ruleset": "tacocat.rules.ruleset",
    "Action": "tacocat.rules.actions",
    "Board": "tacocat.rules.board",
    "GameState": "tacocat.rules.game",
    "GameRecord": "tacocat.rules.game",
    "View": "tacocat.rules.game",
    "PlayPosition": "tacocat.rules.play",
    "build_view": "tacocat.rules.views",
    "view_from_json": "tacocat.rules.views",
    "solve": "tacocat.core.exact",
    "Solver": "tacocat.core.exact",
    "hint": "tacocat.search.hint",
    "make_bot": "tacocat.players.bots",
}

__all__ = ["TacocatError", "__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'tacocat' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
