"""Recorded protocol transcripts: the wire format, byte for byte.

`record()` plays a few scripted games through an `EngineSession` (random
legal moves from a seeded generator, an engine seat, an illegal move, a
custom ruleset, a record and the final state) and returns every response
as the line the JSON transport writes (`encode_response`).  The game ids and
tokens, random on purpose, are replaced by stable names, and so is each
`seconds`: nothing else in the lines depends on the clock or the machine.

tests/data/protocol_transcripts.jsonl holds the lines the code wrote when
the game's events and phases became typed; test_transcripts.py checks the
code still writes exactly them.  To record again after a deliberate change
of the wire format: `python tests/transcripts.py --write`."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

from tacocat.protocol.session import EngineSession
from tacocat.protocol.wire import encode_response

PATH = Path(__file__).parent / "data" / "protocol_transcripts.jsonl"

RULES_FIVE = {"tie": "arrow", "max_deals": 6}


class _Script:
    """One session, with its ids and tokens replaced by names in every line."""

    def __init__(self) -> None:
        self.session = EngineSession()
        self.names: dict[str, str] = {}
        self.tokens: dict[str, dict] = {}
        self.lines: list[str] = []

    def send(self, request: dict) -> dict:
        real = dict(request)
        game = real.get("game")
        if game in self.tokens:
            real["game"] = next(r for r, n in self.names.items() if n == game)
            if "token" not in real:
                player = real.get("player")
                tokens = self.tokens[game]
                real["token"] = tokens["seats"][player] if player in (0, 1) else tokens["owner"]
        if real.get("cmd") == "games":
            real["tokens"] = [t["owner"] for t in self.tokens.values()]
        response = self.session.handle(real)
        result = response.get("result")
        if request.get("cmd") == "new_game" and response.get("ok"):
            name = f"g{len(self.tokens) + 1}"
            self.names[result["game"]] = name
            self.tokens[name] = result["tokens"]
            for i, token in enumerate(result["tokens"]["seats"]):
                self.names[token] = f"{name}-seat{i}"
            self.names[result["tokens"]["owner"]] = f"{name}-owner"
        line = encode_response(response)
        for real_text, name in self.names.items():
            line = line.replace(json.dumps(real_text), json.dumps(name))
        line = re.sub(r'"seconds": [0-9.e+-]+', '"seconds": 0', line)
        self.lines.append(json.dumps(request) + "\n" + line)
        return json.loads(line)


def _play(script: _Script, game: str, rng: random.Random, engine_seat: int | None, limit: int) -> None:
    """Random legal moves (the engine's seat moves by itself) until the game
    ends or `limit` actions were taken; a view and the legal list each turn."""
    for _ in range(limit):
        games = script.send({"cmd": "games"})["result"]["games"]
        status = next(g for g in games if g["game"] == game)
        if status["over"]:
            return
        for player in status["acting"]:
            script.send({"cmd": "view", "game": game, "player": player})
            if player == engine_seat:
                script.send({"cmd": "move", "game": game, "player": player, "bot": "random", "seed": rng.randrange(99)})
                continue
            legal = script.send({"cmd": "legal", "game": game, "player": player})["result"]["actions"]
            script.send({"cmd": "apply", "game": game, "player": player, "action": rng.choice(legal)})


def record() -> list[str]:
    """Every request and response line of the scripted session."""
    script = _Script()
    rng = random.Random(2026)
    script.send({"cmd": "new_game", "seed": 11})
    script.send({"cmd": "apply", "game": "g1", "player": 0, "action": {"kind": "attack", "cards": [5]}})
    _play(script, "g1", rng, None, 400)
    script.send({"cmd": "record", "game": "g1"})
    script.send({"cmd": "state", "game": "g1"})
    script.send({"cmd": "set_rules", "rules": RULES_FIVE})
    script.send({"cmd": "new_game", "seed": 5, "rules": RULES_FIVE})
    _play(script, "g2", rng, 1, 120)
    script.send({"cmd": "state", "game": "g2"})
    script.send({"cmd": "new_game", "seed": 3})
    _play(script, "g3", rng, None, 40)
    script.send({"cmd": "apply", "game": "g3", "player": 1, "action": {"kind": "duel", "cards": [13]}})
    script.send({"cmd": "record", "game": "g3"})
    return script.lines


def read() -> list[str]:
    return [block for block in PATH.read_text().split("\n\n") if block]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/transcripts.py --write  (records tests/data/protocol_transcripts.jsonl anew)")
    lines = record()
    PATH.write_text("".join(block + "\n\n" for block in lines))
    print(f"{len(lines)} requests and responses written to {PATH}")
