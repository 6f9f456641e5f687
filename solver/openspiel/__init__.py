"""The game in OpenSpiel: importing this package registers the Python games
`tacocat`, `tacocat_turn` and `tacocat_play` with `pyspiel` (see
`tacocat.openspiel.games`), and `tacocat.openspiel.bots` makes every bot of
`tacocat.players.bots.BOTS` a `pyspiel.Bot`.  Needs the optional extra
`openspiel` (`pip install 'tacocat[openspiel]'`)."""

try:
    import pyspiel  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tacocat.openspiel needs OpenSpiel: pip install 'tacocat[openspiel]' (the open-spiel package)"
    ) from exc

from tacocat.openspiel.bots import TacocatBot, make_openspiel_bot  # noqa: E402,F401
from tacocat.openspiel.games import TacocatGame, TacocatPlayGame, TacocatTurnGame, load_rules  # noqa: E402,F401
