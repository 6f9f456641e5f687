"""A test client for the protocol's seats (docs/protocol.md, "Seats").

`Seated` wraps anything that answers a request dict (an `EngineSession`'s
`handle`, an HTTP or JSON Lines client) and plays the part of a frontend
that keeps each game's tokens: it remembers the tokens `new_game` hands
out and adds the right one to every game request — the seat's token for a
request about a `player`, the owner's otherwise — unless the request
brings its own `token`.  Games are named "g1", "g2", ... in the order they
were opened, so transcripts read as before the ids became unguessable;
answers carry the same aliases."""

from __future__ import annotations

import json
from typing import Any, Callable


class Seated:
    def __init__(self, handle: Callable[[dict], dict]) -> None:
        self._handle = handle
        self.ids: dict[str, str] = {}
        """alias -> real game id."""
        self.tokens: dict[str, dict] = {}
        """alias -> {"owner": ..., "seats": [...]}."""

    def seat(self, game: str, player: int) -> str:
        return self.tokens[game]["seats"][player]

    def owner(self, game: str) -> str:
        return self.tokens[game]["owner"]

    def prepare(self, request: Any) -> Any:
        """`request` with real ids and the right token (what `handle` sends)."""
        if not isinstance(request, dict):
            return request
        request = dict(request)
        alias = request.get("game")
        if isinstance(alias, str) and alias in self.tokens:
            request["game"] = self.ids[alias]
            if "token" not in request:
                player = request.get("player")
                tokens = self.tokens[alias]
                request["token"] = (
                    tokens["seats"][player] if player in (0, 1) and not isinstance(player, bool) else tokens["owner"]
                )
        if request.get("cmd") == "games" and "tokens" not in request:
            request["tokens"] = [t["owner"] for t in self.tokens.values()]
        return request

    def handle(self, request: Any) -> dict:
        response = self._handle(self.prepare(request))
        return self.answer(request, response)

    __call__ = handle

    def answer(self, request: Any, response: dict) -> dict:
        """Note the tokens of a new game; show real ids as their aliases."""
        result = response.get("result") if isinstance(response, dict) else None
        if isinstance(request, dict) and request.get("cmd") == "new_game" and response.get("ok"):
            alias = f"g{len(self.ids) + 1}"
            self.ids[alias] = result["game"]
            self.tokens[alias] = result["tokens"]
        text = json.dumps(response)
        for alias, real in self.ids.items():
            text = text.replace(json.dumps(real), json.dumps(alias))
        return json.loads(text)
