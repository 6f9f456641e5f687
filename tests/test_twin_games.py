"""A seat's answers depend only on its information set (docs/protocol.md,
"Seats"; DEVELOPERS: "the twin-game test guards every door").

Pairs of games equal for one seat but with another hand and draw pile for
the other seat (`twins.py`) are opened on a real `tacocat engine` (JSON
Lines) and a real `tacocat serve` (HTTP); every command that seat may send
— view, legal, games, hint with every method (and its info stream), move
with every bot and level (applied and not), illegal actions, record and
state while the game runs — must get the same answer in both games, byte
for byte once ids, tokens and clock readings are taken out.

The default loop checks a few dozen pairs; the slow test checks 36 more
(every level) through each transport in CI, and 220 with TACOCAT_DEEP=1
(the count is printed)."""

from __future__ import annotations

import json
import random
import subprocess

import pytest
from helpers import deep, tacocat_argv
from servers import start_serve, stop
from twins import RULESETS, normalized, positions, twin_state

from tacocat.players.bots import BOTS, choose, make_bot
from tacocat.protocol.moves import BOT_NAMES, LEVELS
from tacocat.rules.game import PLAY, GameState
from tacocat.search.hint import METHODS

CHEAP_CARDS = 3
"""The exact, equilibrium and endgame methods are asked only when both
hands hold at most this many cards (they enumerate every hidden hand; a
bigger position takes seconds, the rest of the pair milliseconds)."""


class LinesDoor:
    """`tacocat engine` over its stdin/stdout."""

    name = "json-lines"

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [*tacocat_argv(), "engine", "--max-games", "5000"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def send(self, request: dict) -> tuple[dict, list[dict]]:
        self.next_id += 1
        rid = self.next_id
        self.proc.stdin.write((json.dumps({**request, "id": rid}) + "\n").encode())
        self.proc.stdin.flush()
        infos = []
        while True:
            line = self.proc.stdout.readline()
            assert line, "the engine closed its output"
            message = json.loads(line)
            if message.get("id") != rid:
                continue
            del message["id"]  # ours, different for each request
            if "info" in message:
                infos.append(message)
                continue
            return message, infos

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


class HttpDoor:
    """`tacocat serve` on 127.0.0.1, one POST /v1 a request (NDJSON when
    the request streams info)."""

    name = "http"

    def __init__(self) -> None:
        import httpx

        self.proc, base = start_serve("--no-store", "--max-games", "5000", "--log-level", "error")
        self.url = f"{base}/v1"
        self.http = httpx.Client(timeout=120)

    def send(self, request: dict) -> tuple[dict, list[dict]]:
        r = self.http.post(
            self.url, content=json.dumps({**request, "id": 1}), headers={"content-type": "application/json"}
        )
        lines = [json.loads(x) for x in r.text.splitlines() if x.strip()]
        infos = [m for m in lines[:-1]]
        answer = lines[-1]
        answer["status"] = r.status_code  # the status is part of the answer
        return answer, infos

    def close(self) -> None:
        self.http.close()
        stop(self.proc)


def _requests(state: GameState, seat: int, k: int, every_level: bool) -> list[dict]:
    """What the seat asks in pair number `k`: every cheap command, every
    bot, and (in turn, or all with `every_level`) the levels and the
    expensive methods where they are cheap."""
    small = state.phase == PLAY and max(len(h) for h in state.hands) <= CHEAP_CARDS
    methods = [m for m in METHODS if small or m not in ("exact", "equilibrium", "auto")]
    if small:
        methods.append("endgame")
    hand = list(state.hands[seat])
    missing = next(r for r in range(12, 0, -1) if r not in hand)
    reqs: list[dict] = [
        {"cmd": "view"},
        {"cmd": "view", "since": 0},  # the events since the game opened here (none yet)
        {"cmd": "legal"},
        {"cmd": "games"},
        {"cmd": "state"},
        {"cmd": "record"},
        {"cmd": "apply", "action": {"kind": state.decision(seat) or "duel", "cards": [missing]}},
        {"cmd": "apply", "action": {"kind": "attack", "cards": [missing, missing, missing]}},
        {"cmd": "hint", "iterations": 3, "seed": 5, "info_ms": 20, "method": "pimc"},
    ]
    reqs += [{"cmd": "hint", "method": m, "iterations": 3, "seed": 5} for m in methods]
    reqs += [{"cmd": "move", "bot": b, "iterations": 3, "seed": 2, "apply": False} for b in (*BOT_NAMES, "oracle")]
    levels = list(LEVELS) if every_level else [list(LEVELS)[k % len(LEVELS)]]
    reqs += [{"cmd": "move", "level": lv, "seed": 3, "apply": False} for lv in levels]
    # Last, the seat acts (the game changes): its events and new hand, then its view.
    reqs += [{"cmd": "move", "level": 2, "seed": 4}, {"cmd": "view"}, {"cmd": "view", "since": 0}, {"cmd": "legal"}]
    return reqs


def _ask(door, gid: str, tokens: dict, seat: int, request: dict) -> dict:
    full = dict(request)
    if request["cmd"] == "games":
        full["tokens"] = [tokens["seats"][seat]]
    else:
        full.update(game=gid, token=tokens["seats"][seat])
        if request["cmd"] not in ("state", "record"):
            full["player"] = seat
    return full


def _check_pairs(door, pairs: list[tuple[GameState, GameState, int]], every_level: bool) -> tuple[int, int, list[str]]:
    """(pairs checked, answers compared, differences) for `pairs` on `door`."""
    compared, differences = 0, []
    for k, (game, twin, seat) in enumerate(pairs):
        # Every third pair is a game against the engine (new_game's engine
        # seat) when the other seat has nothing to decide yet: the door the
        # web board uses.  Its new_game answers are compared too.  Another
        # third are friend games (new_game's friend: two seat tokens, no
        # owner's), the board's "Play a friend".
        engine = k % 3 == 2 and game.decision(1 - seat) is None
        friend = k % 3 == 1
        opened, created = [], []
        for state in (game, twin):
            request = {"cmd": "new_game", "state": state.to_dict()}
            if engine:
                request["engine"] = {"seat": 1 - seat, "level": 1}
            if friend:
                request["friend"] = True
            answer, _ = door.send(request)
            assert answer["ok"], answer
            tokens = answer["result"]["tokens"]
            if engine:
                assert "owner" not in tokens and tokens["seats"][1 - seat] is None
                tokens = {"owner": tokens["seats"][seat], "seats": tokens["seats"]}  # the seat ends its game
            if friend:
                assert "owner" not in tokens and answer["result"]["seed"] is None
                tokens = {"owner": tokens["seats"][seat], "seats": tokens["seats"]}  # no owner: the seat asks all
            opened.append((answer["result"]["game"], tokens))
            created.append(answer)
        if engine or friend:
            texts = [
                normalized(a, {gid: "<game>", **{t: f"<seat {p}>" for p, t in enumerate(tokens["seats"]) if t}})
                for a, (gid, tokens) in zip(created, opened)
            ]
            compared += 1
            if texts[0] != texts[1]:
                differences.append(
                    f"{door.name} pair {k} new_game {'against the engine' if engine else 'with a friend'}:\n"
                    f"  {texts[0][:400]}\n  {texts[1][:400]}"
                )
        revealed = False
        for request in _requests(game, seat, k, every_level):
            texts = []
            for gid, tokens in opened:
                answer, infos = door.send(_ask(door, gid, tokens, seat, request))
                names = {t: f"<seat {p}>" for p, t in enumerate(tokens["seats"]) if t}
                names.update({gid: "<game>", tokens["owner"]: "<owner>"})
                assert not (answer.get("error") or {}).get("code") == "internal", answer
                events = (answer.get("result") or {}).get("events") or []
                if any(e["event"] == "showdown" for e in events) or (
                    engine and request["cmd"] == "move" and request.get("apply", True)
                ):
                    # The showdown shows the other seat's last card face up (R15), and
                    # the engine answers from its own hand: from here the seat knows
                    # more, and only its choice is compared.
                    revealed = True
                if revealed:
                    answer = {"action": (answer.get("result") or {}).get("action")}
                texts.append(
                    normalized(answer, names) + "\n" + "\n".join(sorted({normalized(i, names) for i in infos}))
                )
            compared += 1
            if texts[0] != texts[1]:
                differences.append(
                    f"{door.name} pair {k} seat {seat} {request}:\n  {texts[0][:400]}\n  {texts[1][:400]}"
                )
        for gid, tokens in opened:  # free the slots (owner token)
            door.send({"cmd": "end_game", "game": gid, "token": tokens["owner"]})
    return len(pairs), compared, differences


def _pairs(seed: int, per_ruleset: int) -> list[tuple[GameState, GameState, int]]:
    rng = random.Random(seed)
    out = []
    for i, rules in enumerate(RULESETS):
        for state, seat in positions(seed * 10 + i, rules, per_ruleset):
            twin = twin_state(state, seat, rng)
            if twin is not None:
                out.append((state, twin, seat))
    return out


@pytest.fixture(scope="module", params=["lines", "http"])
def door(request):
    d = LinesDoor() if request.param == "lines" else HttpDoor()
    yield d
    d.close()


def test_twins_are_equal_for_the_seat_and_differ_for_the_other():
    """The construction itself: the seat's view is the same, the other
    seat's hand is not, and the hidden cards matter — an oracle that reads
    them tells some twins apart (the door test below would catch it)."""
    pairs = _pairs(7, 8)
    assert len(pairs) >= 20 and {seat for _, _, seat in pairs} == {0, 1}
    oracle_differs = 0
    for game, twin, seat in pairs:
        assert game.view(seat).to_dict() == twin.view(seat).to_dict()
        assert game.hands[1 - seat] != twin.hands[1 - seat]
        assert game.view(1 - seat).to_dict() != twin.view(1 - seat).to_dict()
        oracle = make_bot("oracle", replace_samples=8, candidates=4)
        picks = {str(choose(oracle, s, seat, random.Random(1))) for s in (game, twin)}
        oracle_differs += len(picks) > 1
    assert oracle_differs >= 2, oracle_differs
    assert "oracle" in BOTS and "oracle" not in BOT_NAMES


def test_a_seat_cannot_tell_twin_games_apart(door):
    pairs = _pairs(1, 2)  # a pair or two of every ruleset; the slow test checks many more
    against_engine = sum(k % 3 == 2 and g.decision(1 - seat) is None for k, (g, _, seat) in enumerate(pairs))
    assert against_engine >= 2, against_engine
    assert sum(k % 3 == 1 for k in range(len(pairs))) >= 2  # friend games
    checked, compared, differences = _check_pairs(door, pairs, every_level=False)
    assert not differences, "\n".join(differences[:5])
    assert checked >= 5 and compared >= 20 * checked


@pytest.mark.slow
def test_a_seat_cannot_tell_twin_games_apart_over_many_pairs(door, capsys):
    pairs = _pairs(2, deep(12, 80))[: deep(36, 220)]  # every ruleset either way
    checked, compared, differences = _check_pairs(door, pairs, every_level=True)
    with capsys.disabled():
        print(f"\n{door.name}: {checked} twin pairs, {compared} answers compared, {len(differences)} differ")
    assert not differences, "\n".join(differences[:5])
    assert checked >= deep(30, 200)


def test_a_friend_game_followed_with_view_since_shows_each_seat_only_its_own_cards():
    """Two people (new_game's friend), each following the game with `view`
    and `since` while the other acts, over whole games: every event a seat
    receives is one it saw (its own draws and dealt hands only, as `apply`
    answers them), none is lost or repeated across a round's end, and the
    other seat's draws never appear."""
    from tacocat.protocol.session import EngineSession

    session = EngineSession()
    rng = random.Random(35)
    for game_no in range(3):
        opened = session.handle({"cmd": "new_game", "friend": True})["result"]
        gid, tokens = opened["game"], opened["tokens"]["seats"]
        assert "owner" not in opened["tokens"] and opened["seed"] is None
        seen = [0, 0]  # the action count each seat has followed to
        got: list[list[dict]] = [[], []]  # each seat's events, as it received them
        own: list[list[dict]] = [[], []]  # what apply answered the seat that acted
        for _ in range(2000):
            for p in (0, 1):
                r = session.handle({"cmd": "view", "game": gid, "player": p, "token": tokens[p], "since": seen[p]})[
                    "result"
                ]
                assert r["since"] == seen[p]
                got[p] += r["events"]
                seen[p] = r["actions"]
            view = session.handle({"cmd": "view", "game": gid, "player": 0, "token": tokens[0]})["result"]["view"]
            if view["phase"] == "over":
                break
            p = rng.choice(view["acting"])
            legal = session.handle({"cmd": "legal", "game": gid, "player": p, "token": tokens[p]})["result"]
            applied = session.handle(
                {
                    "cmd": "apply",
                    "game": gid,
                    "player": p,
                    "token": tokens[p],
                    "action": rng.choice(legal["actions"]),
                }
            )["result"]
            own[p] += applied["events"]
        else:
            raise AssertionError("the game did not end")
        for p in (0, 1):
            assert got[p], f"game {game_no}: seat {p} followed nothing"
            assert sum(e["event"] == "showdown" for e in got[p]) == len(view["rounds"])
            for e in got[p]:
                assert not ("drawn" in e and e["player"] != p), f"seat {p} received the other's draws: {e}"
            # what a seat was answered when it acted is, event for event, in what it followed
            n = 0
            for e in own[p]:
                while got[p][n] != e:
                    n += 1
                n += 1
        record = session.handle({"cmd": "record", "game": gid, "token": tokens[1]})["result"]["record"]
        assert len(record["actions"]) == seen[0] == seen[1]  # once over, the record opens to a seat
