"""Live search information and the search queue (docs/protocol.md, "Live
search info" and "Queue").

A search request may carry `info_ms`: while it runs, the engine then sends
`info` messages about every `info_ms` milliseconds — samples so far, the
best move so far and its margin over the runner-up — before the final
answer.  The transports carry them as extra JSON Lines (`{"id", "cmd",
"info": {...}}`) or as the lines (NDJSON) or events (Server-Sent Events) of
a streamed HTTP answer.

How a sampled search reports while it runs without reaching into the
search modules: it runs in *slices* of `info_ms`, each a fresh search
seeded `seed + k`, and the slices are merged move by move, weighting each
slice by the worlds (PIMC) or visits (ISMCTS) it spent on the move.  For
PIMC the merge is exactly a bigger sample (the slices' worlds are
independent draws); for ISMCTS it is root parallelisation (independent
trees, root statistics summed).  An exact enumeration is not sliced: it
reports its progress and answers once.  A search without `info_ms` runs in
one piece, exactly as before.

`SearchSignal` is the `threading.Event` a search watches for `stop`; it
also carries the transport's info sink, so the work functions need no
other argument."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable

from tacocat.protocol.wire import InfoMessage, Message
from tacocat.search.options import Method

if TYPE_CHECKING:  # pragma: no cover
    from tacocat.protocol.session import SearchJob

MIN_INFO_MS = 20
"""The fastest info rate a client may ask for."""


class SearchSignal(threading.Event):
    """A search's stop flag, plus where its `info` messages go.

    `info_ms` is the rate the request asked for (None: no info); `sink`
    is set by the transport before the search runs and receives each info
    payload (a dict).  Without a sink, `info` does nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.info_ms: int | None = None
        self.sink: Callable[[dict], None] | None = None
        self.sent = 0
        self.slicing = False
        """True while `sliced_search` runs: the slices do not report progress."""
        self._t0 = time.perf_counter()

    def start_clock(self) -> None:
        self._t0 = time.perf_counter()

    @property
    def elapsed_ms(self) -> int:
        return int((time.perf_counter() - self._t0) * 1000)

    def info(self, payload: dict) -> None:
        if self.sink is None or self.info_ms is None:
            return
        self.sent += 1
        self.sink(finite({"elapsed_ms": self.elapsed_ms, **payload}))


# --------------------------------------------------------------------------
# Merging the slices of a sampled search.


def _key(move: dict) -> tuple:
    return (move.get("kind"), tuple(move.get("cards", ())), move.get("beats"))


def _weight(move: dict, slice_samples: int) -> float:
    visits = move.get("visits")
    return float(visits) if visits is not None else float(slice_samples)


_AVERAGED = ("win", "draw", "loss", "value", "game_win")


@dataclass
class _MoveSum:
    """One move's results summed over the slices, each weighted by its
    samples (or its visits, for ISMCTS)."""

    move: dict
    weight: float = 0.0
    sums: dict[str, float] = field(default_factory=dict)
    variance: float = 0.0
    has_stderr: bool = False
    visits: int = 0

    def add(self, move: dict, weight: float) -> None:
        if weight <= 0:
            return
        self.weight += weight
        for f in _AVERAGED:
            if move.get(f) is not None:
                self.sums[f] = self.sums.get(f, 0.0) + weight * move[f]
        if move.get("stderr") is not None:
            self.has_stderr = True
            self.variance += (weight * move["stderr"]) ** 2
        if move.get("visits") is not None:
            self.visits += move["visits"]

    def merged(self, ismcts: bool) -> dict:
        m = {k: v for k, v in self.move.items() if k in ("kind", "cards", "beats")}
        w = self.weight
        for f in ("win", "draw", "loss", "value"):
            m[f] = self.sums.get(f, 0.0) / w if w else 0.0
        if self.has_stderr and w:
            m["stderr"] = math.sqrt(self.variance) / w
        if "game_win" in self.sums and w:
            m["game_win"] = self.sums["game_win"] / w
        if ismcts:
            m["visits"] = self.visits
        return m


def _pimc_order(move: dict) -> tuple:
    """As tacocat.search.pimc.rank_moves: value, then win, then fewer losses."""
    return (-round(move["value"], 12), -round(move["win"], 12), round(move["loss"], 12))


def _ranked(merged: list[dict], ismcts: bool) -> list[dict]:
    """The merged moves best first, ties kept in first-seen order."""
    if ismcts:  # the robust child, as ismcts_play ranks
        order = sorted(range(len(merged)), key=lambda i: (-merged[i].get("visits", 0), -merged[i]["value"], i))
    else:
        order = sorted(range(len(merged)), key=lambda i: (*_pimc_order(merged[i]), i))
    return [merged[i] for i in order]


def _spent(parts: list[dict]) -> dict[str, Any]:
    """What the slices spent together: samples, iterations, seconds."""
    out: dict[str, Any] = {}
    for count in ("samples", "iterations"):
        if any(p.get(count) is not None for p in parts):
            out[count] = sum(p.get(count) or 0 for p in parts)
    out["seconds"] = sum(p.get("seconds", 0.0) for p in parts)
    return out


def _summed(parts: list[dict]) -> dict[tuple, _MoveSum]:
    """Each move's sums over the slices, in first-seen order."""
    sums: dict[tuple, _MoveSum] = {}
    for part in parts:
        n = part.get("samples") or part.get("iterations") or 1
        for move in part.get("moves", []):
            sums.setdefault(_key(move), _MoveSum(move)).add(move, _weight(move, n))
    return sums


def merge_hints(parts: list[dict]) -> dict:
    """One hint result from the results of several independent slices of
    the same search (see the module docstring)."""
    if len(parts) == 1:
        return dict(parts[0])
    last = parts[-1]
    ismcts = last.get("method") == Method.ISMCTS
    ranked = _ranked([s.merged(ismcts) for s in _summed(parts).values()], ismcts)
    out = {k: v for k, v in last.items() if k not in ("moves", "best", "mixed", "stopped")}
    out["exact"] = False
    out.update(_spent(parts))
    out["moves"] = ranked
    out["best"] = ranked[0] if ranked else None
    mixed = _merge_mixed(parts)
    if mixed is not None:
        out["mixed"] = mixed
    out["slices"] = len(parts)
    return out


def _merge_mixed(parts: list[dict]) -> list[dict] | None:
    """The duel's mixed strategy averaged over slices, weighted by samples."""
    if not all(p.get("mixed") for p in parts):
        return None
    total: dict[tuple, float] = {}
    weight = 0.0
    for p in parts:
        n = float(p.get("samples") or 1)
        weight += n
        for entry in p["mixed"]:
            key = tuple(entry["cards"])
            total[key] = total.get(key, 0.0) + n * entry["probability"]
    return [{"cards": list(k), "probability": v / weight} for k, v in sorted(total.items())]


def finite(value: Any) -> Any:
    """`value` with every NaN or infinite float replaced by null: a
    one-world sample has an infinite standard error (its true value: not
    known), and JSON has no Infinity."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def info_payload(result: dict, top: int = 3) -> dict:
    """What an info message says about a search so far."""
    moves = result.get("moves") or []
    best = moves[0] if moves else None
    margin = None
    if len(moves) > 1 and best is not None:
        margin = best["value"] - moves[1]["value"]
    payload: dict[str, Any] = {
        "samples": result.get("samples") if result.get("samples") is not None else result.get("iterations"),
        "best": best,
        "margin": margin,
        "stderr": None if best is None else best.get("stderr"),
        "moves": moves[:top],
    }
    return payload


COUNTED_SLICES = 8
"""Slices of an iteration budget that has no time budget beside it."""


@dataclass
class _Slices:
    """How a budget is cut into slices: of time (`info_ms` each), or, for
    an iteration budget alone, into COUNTED_SLICES equal counts of
    iterations, never of time: the answer is then the same on a fast or a
    loaded machine (equal requests, equal answers), only the info rate varies."""

    time_ms: int | None
    iterations: int | None
    info_ms: int
    t0: float = field(default_factory=time.perf_counter)
    done: int = 0
    """Samples (or iterations) the slices so far spent."""
    count: int = 0

    @property
    def per_slice(self) -> int | None:
        if self.time_ms is None and self.iterations is not None:
            return -(-self.iterations // COUNTED_SLICES)
        return None

    def spent_ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000

    def next_budget(self) -> tuple[int | None, int | None]:
        """The next slice's (time_ms, iterations)."""
        per_slice = self.per_slice
        if per_slice is not None:
            slice_ms = None
        elif self.time_ms is None:
            slice_ms = self.info_ms
        else:
            slice_ms = max(1, int(min(self.info_ms, self.time_ms - self.spent_ms())))
        left = None if self.iterations is None else self.iterations - self.done
        if left is not None and per_slice is not None:
            left = min(left, per_slice)
        return slice_ms, left

    def record(self, part: dict) -> None:
        self.count += 1
        self.done += part.get("samples") or part.get("iterations") or 0

    def over(self, part: dict) -> bool:
        """The budget is spent (or a counted slice spent nothing: more of
        them would not either)."""
        if self.iterations is not None and self.done >= self.iterations:
            return True
        if self.per_slice is not None:
            return self.count >= 2 * COUNTED_SLICES or not (part.get("samples") or part.get("iterations"))
        return self.time_ms is not None and self.spent_ms() >= self.time_ms


def sliced_search(
    run_slice: Callable[..., dict], *, time_ms: int | None, iterations: int | None, seed: int, signal: SearchSignal
) -> dict:
    """Run a sampled search in slices of `signal.info_ms`, sending an info
    message after each, until the budget is spent or `stop` is set.
    `run_slice(time_ms=, iterations=, seed=)` runs one slice and returns its
    result dict.  The first slice that comes back exact (an enumeration) is
    the answer."""
    signal.slicing = True
    slices = _Slices(time_ms, iterations, signal.info_ms or 100)
    parts: list[dict] = []
    while True:
        slice_ms, slice_iterations = slices.next_budget()
        part = run_slice(time_ms=slice_ms, iterations=slice_iterations, seed=seed + slices.count)
        if part.get("exact") and not parts:
            return part
        slices.record(part)
        parts.append(part)
        merged = merge_hints(parts)
        if signal.is_set():
            merged["stopped"] = True
            return merged
        if slices.over(part):
            return merged
        signal.info(info_payload(merged))


def ticker(signal: SearchSignal, what: Callable[[], dict]) -> Callable[[], None]:
    """Send `what()` as info every `info_ms` on a side thread until the
    returned function is called (for searches that cannot report, e.g. a
    bot's `choose`)."""
    info_ms = signal.info_ms
    if info_ms is None or signal.sink is None:
        return lambda: None
    done = threading.Event()

    def loop() -> None:
        while not done.wait(info_ms / 1000):
            signal.info(what())

    thread = threading.Thread(target=loop, daemon=True, name="info-ticker")
    thread.start()

    def finish() -> None:
        done.set()
        thread.join(1)

    return finish


# --------------------------------------------------------------------------
# HTTP: a streamed answer.


def info_message(request_id: Any, cmd: str, payload: dict) -> InfoMessage:
    """The info message as the transports send it."""
    return {"id": request_id, "cmd": cmd, "info": payload}


async def stream_job(
    job: SearchJob, encode: Callable[[Message], str], sse: bool, disconnected: Callable[[], Awaitable[Any]]
) -> AsyncIterator[bytes]:
    """Run a search job on a worker thread and yield its info messages and
    then its answer, as NDJSON lines or Server-Sent Events
    (`event: info` / `event: result`).  A client that goes away stops the
    search."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Message]] = asyncio.Queue()

    def sink(payload: dict) -> None:  # on the search's thread: the queue is the loop's
        loop.call_soon_threadsafe(queue.put_nowait, ("info", info_message(job.request_id, job.cmd, payload)))

    job.stop_event.sink = sink

    def run() -> None:
        response = job.run()
        loop.call_soon_threadsafe(queue.put_nowait, ("result", response))

    worker = threading.Thread(target=run, daemon=True, name=f"search-{job.request_id}")
    worker.start()

    def frame(kind: str, message: Message) -> bytes:
        text = encode(message)
        if sse:
            return f"event: {kind}\ndata: {text}\n\n".encode()
        return (text + "\n").encode()

    try:
        while True:
            try:
                kind, message = await asyncio.wait_for(queue.get(), timeout=0.2)
            except asyncio.TimeoutError:
                if not job.stop_event.is_set() and await disconnected():
                    job.stop_event.set()
                continue
            yield frame(kind, message)
            if kind == "result":
                return
    finally:
        if worker.is_alive():  # the client went away mid-stream: nobody waits for the answer
            job.stop_event.set()
