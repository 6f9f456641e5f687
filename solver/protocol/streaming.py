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
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable

from tacocat.protocol.wire import InfoMessage, Message

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


def merge_hints(parts: list[dict]) -> dict:
    """One hint result from the results of several independent slices of
    the same search (see the module docstring)."""
    if len(parts) == 1:
        return dict(parts[0])
    last = parts[-1]
    ismcts = last.get("method") == "ismcts"
    order: list[tuple] = []
    acc: dict[tuple, dict] = {}
    for part in parts:
        n = part.get("samples") or part.get("iterations") or 1
        for move in part.get("moves", []):
            key = _key(move)
            if key not in acc:
                order.append(key)
                acc[key] = {"move": move, "w": 0.0, "sums": {}, "var": 0.0, "has_se": False, "visits": 0}
            a = acc[key]
            w = _weight(move, n)
            if w <= 0:
                continue
            a["w"] += w
            for f in ("win", "draw", "loss", "value", "game_win"):
                if move.get(f) is not None:
                    a["sums"][f] = a["sums"].get(f, 0.0) + w * move[f]
            if move.get("stderr") is not None:
                a["has_se"] = True
                a["var"] += (w * move["stderr"]) ** 2
            if move.get("visits") is not None:
                a["visits"] += move["visits"]
    moves = []
    for i, key in enumerate(order):
        a = acc[key]
        m = {k: v for k, v in a["move"].items() if k in ("kind", "cards", "beats")}
        w = a["w"]
        for f in ("win", "draw", "loss", "value"):
            m[f] = a["sums"].get(f, 0.0) / w if w else 0.0
        if a["has_se"] and w:
            m["stderr"] = math.sqrt(a["var"]) / w
        if "game_win" in a["sums"] and w:
            m["game_win"] = a["sums"]["game_win"] / w
        if ismcts:
            m["visits"] = a["visits"]
        moves.append((i, w, m))
    if ismcts:  # the robust child, as ismcts_play ranks
        moves.sort(key=lambda t: (-t[2].get("visits", 0), -t[2]["value"], t[0]))
    else:  # as tacocat.search.pimc.rank_moves
        moves.sort(key=lambda t: (-round(t[2]["value"], 12), -round(t[2]["win"], 12), round(t[2]["loss"], 12), t[0]))
    ranked = [m for _, _, m in moves]
    out = {k: v for k, v in last.items() if k not in ("moves", "best", "mixed", "stopped")}
    out["exact"] = False
    for count in ("samples", "iterations"):
        if any(p.get(count) is not None for p in parts):
            out[count] = sum(p.get(count) or 0 for p in parts)
    out["seconds"] = sum(p.get("seconds", 0.0) for p in parts)
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


def sliced_search(
    run_slice: Callable[..., dict], *, time_ms: int | None, iterations: int | None, seed: int, signal: SearchSignal
) -> dict:
    """Run a sampled search in slices of `signal.info_ms`, sending an info
    message after each, until the budget is spent or `stop` is set.
    `run_slice(time_ms=, iterations=, seed=)` runs one slice and returns its
    result dict.  The first slice that comes back exact (an enumeration) is
    the answer."""
    info_ms = signal.info_ms or 100
    signal.slicing = True
    t0 = time.perf_counter()
    parts: list[dict] = []
    done_samples = 0
    k = 0
    # An iteration budget alone is cut into COUNTED_SLICES equal slices of
    # iterations, never of time: the answer is then the same on a fast or a
    # loaded machine (equal requests, equal answers), only the info rate varies.
    per_slice = -(-iterations // COUNTED_SLICES) if time_ms is None and iterations is not None else None
    counted = per_slice is not None
    while True:
        left_ms = None if time_ms is None else time_ms - (time.perf_counter() - t0) * 1000
        slice_ms = None if counted else info_ms if left_ms is None else max(1, int(min(info_ms, left_ms)))
        left_its = None if iterations is None else iterations - done_samples
        if left_its is not None and per_slice is not None:
            left_its = min(left_its, per_slice)
        part = run_slice(time_ms=slice_ms, iterations=left_its, seed=seed + k)
        k += 1
        if part.get("exact") and not parts:
            return part
        parts.append(part)
        done_samples += part.get("samples") or part.get("iterations") or 0
        merged = merge_hints(parts)
        if signal.is_set():
            merged["stopped"] = True
            return merged
        if iterations is not None and done_samples >= iterations:
            return merged
        if counted and (k >= 2 * COUNTED_SLICES or not (part.get("samples") or part.get("iterations"))):
            return merged  # a slice that spent nothing: more of them would not either
        if time_ms is not None and (time.perf_counter() - t0) * 1000 >= time_ms:
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
