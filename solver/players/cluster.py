"""Where the work of a match, a batch solve or a results table runs: this
process, local worker processes, or a Ray cluster - one switch, the same
numbers.

`run_tasks(fn, items, cluster)` applies `fn` to every item and yields
`(index, fn(items[index]))` as results arrive, in any order.  Callers that
need an order (deal index, input line) put the results back in it, so the
numbers never depend on the backend, the number of workers or the batch
size; every random thing an item needs must come from the item itself
(matches derive each deal's seed from the match seed and the deal index).

Backends (`Cluster`):

- `local`, 1 worker: in this process (no start-up cost, the default).
- `local`, N workers: N spawned processes fed by pipes.  A worker that dies
  (killed, out of memory, a crash in C) is replaced and its unfinished
  batch is run again, up to `MAX_ATTEMPTS` times; other batches are not
  touched, so each item is reported exactly once.  Workers ignore SIGINT:
  Ctrl-C reaches the parent only, which stops them (no worker tracebacks).
- `ray`: batches are Ray tasks with `max_retries` (a dead worker's task is
  rerun by Ray).  `address=None` starts a private local cluster on
  127.0.0.1 (no dashboard, a small object store) and shuts it down after;
  an address joins an existing cluster (`ray start --head` there); a Ray
  session already open in this process (`ray.is_initialized()`) is used
  as it is and left open.  Needs the `cluster` extra (`pip install
  'tacocat[cluster]'`).

Items are sent in batches (`batch` items a task) so the per-task cost of a
backend (pickling, scheduling, the pipe or the object store) stays small
against the work; `results/scale.md` measures it.  At most a few batches
per worker are in flight, so stopping early (SPRT, Ctrl-C) wastes little."""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterator, Sequence

from tacocat.errors import TacocatError

KINDS = ("local", "ray")
MAX_ATTEMPTS = 4
"""Runs of one batch before giving up (Ray's default: 3 retries)."""
RAY_OBJECT_STORE_BYTES = 96 * 2**20
"""A small object store for a private local cluster: results are a few
numbers a deal, and Ray's minimum is 75 MiB."""
IN_FLIGHT_PER_WORKER = 2


@dataclass(frozen=True)
class Cluster:
    """A backend: `kind` "local" or "ray"; `workers` local processes (or CPUs
    of a private Ray cluster); `address` of an existing Ray cluster;
    `batch` items a task (0: chosen from the number of items and workers)."""

    kind: str = "local"
    workers: int = 1
    address: str | None = None
    batch: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TacocatError(f"backend {self.kind!r} unknown; expected local or ray")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise TacocatError(f"workers must be a positive integer, got {self.workers!r}")
        if isinstance(self.batch, bool) or not isinstance(self.batch, int) or self.batch < 0:
            raise TacocatError(f"batch must be 0 (automatic) or a positive integer, got {self.batch!r}")

    @classmethod
    def parse(cls, cluster: str | None, workers: int = 1, batch: int = 0) -> "Cluster":
        """`--cluster` as given: None or "local" -> local processes; "ray" ->
        a private local Ray cluster of `workers` CPUs; anything else -> the
        address of a running Ray cluster ("ray://host:10001", "host:6379",
        "auto")."""
        if cluster is None or cluster == "local":
            return cls("local", workers, None, batch)
        if cluster == "ray":
            return cls("ray", workers, None, batch)
        if not cluster.strip() or any(c.isspace() for c in cluster):
            raise TacocatError(
                f"--cluster: expected ray, local or a Ray cluster address (host:port, "
                f"ray://host:port, auto), got {cluster!r}"
            )
        return cls("ray", workers, cluster, batch)

    @classmethod
    def add_arguments(cls, parser) -> None:
        """--workers, --cluster, --batch on an argparse parser (the results/ scripts)."""
        parser.add_argument("--workers", type=int, default=1, help="worker processes (or CPUs of --cluster ray)")
        parser.add_argument(
            "--cluster",
            default=None,
            metavar="ray|ADDRESS",
            help="local processes by default; 'ray' starts a private local Ray cluster; an address "
            "joins a running one; the numbers do not depend on it",
        )
        parser.add_argument("--batch", type=int, default=0, help="items a task (0: automatic)")

    @classmethod
    def from_arguments(cls, args) -> "Cluster":
        return cls.parse(args.cluster, args.workers, args.batch)

    def describe(self) -> str:
        if self.kind == "local":
            return "this process" if self.workers == 1 else f"{self.workers} local processes"
        return f"Ray cluster at {self.address}" if self.address else f"local Ray cluster ({self.workers} CPUs)"

    def batch_size(self, n: int) -> int:
        """Items a task: as given, else about four batches a worker, at most
        16 items (small enough to stop early, big enough to pay the overhead)."""
        if self.batch:
            return self.batch
        return max(1, min(16, n // (4 * self.workers)))


@dataclass
class RunStats:
    """What a run did beyond its results (filled in while it runs)."""

    tasks: int = 0
    retried: int = 0
    """Batches run again after their worker died (local processes; Ray
    retries inside the cluster and does not say)."""
    worker_pids: list[int] = field(default_factory=list)


def _run_batch(fn: Callable[[Any], Any], chunk: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


def run_tasks(
    fn: Callable[[Any], Any], items: Sequence[Any], cluster: Cluster | None = None, stats: RunStats | None = None
) -> Generator[tuple[int, Any], None, None]:
    """Yield `(i, fn(items[i]))` for every item, in the order they finish.
    `fn` must be a module-level function (worker processes import it by
    name) and deterministic in its item.  Close the iterator (or leave the
    `for` loop) to stop: workers are stopped and unfinished work dropped."""
    cluster = cluster or Cluster()
    stats = stats if stats is not None else RunStats()
    items = list(items)
    if not items:  # still a generator: callers close it (contextlib.closing)
        return _inline(fn, [])
    size = cluster.batch_size(len(items))
    batches = [(start, items[start : start + size]) for start in range(0, len(items), size)]
    stats.tasks = len(batches)
    if cluster.kind == "ray":
        return _ray(fn, batches, cluster, stats)
    if cluster.workers == 1:
        return _inline(fn, batches)
    return _processes(fn, batches, cluster.workers, stats)


def _inline(fn, batches) -> Generator[tuple[int, Any], None, None]:
    for start, chunk in batches:
        for k, item in enumerate(chunk):
            yield start + k, fn(item)


# ------------------------------------------------------------ local processes


def _worker(conn) -> None:
    """A local worker: run the batches sent down the pipe until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if message is None:
            return
        task, fn, chunk = message
        reply: tuple[str, Any, Any]
        try:
            reply = ("ok", task, _run_batch(fn, chunk))
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            reply = ("error", task, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. an exception that does not pickle
            conn.send(("error", task, TacocatError(f"worker: {type(exc).__name__}: {exc}")))


class _Slot:
    def __init__(self, ctx) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        # a child inherits an ignored SIGINT through exec, so a Ctrl-C while it
        # is still importing cannot print its traceback either
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                self.proc.start()
            finally:
                signal.signal(signal.SIGINT, previous)
        else:
            self.proc.start()
        child.close()
        self.task: int | None = None


class _Pool:
    """The local worker processes of one run: a slot per worker, each
    running at most one batch at a time.  A worker that dies is replaced
    and its batch requeued first, up to `MAX_ATTEMPTS` runs of it; other
    batches are not touched, so each item is reported exactly once."""

    def __init__(self, fn: Callable[[Any], Any], batches: list[tuple[int, list[Any]]], stats: RunStats) -> None:
        self.ctx = multiprocessing.get_context("spawn")
        self.fn, self.batches, self.stats = fn, batches, stats
        self.todo = collections.deque(range(len(batches)))
        self.attempts: collections.Counter[int] = collections.Counter()
        self.slots: list[_Slot] = []
        self.left = len(batches)
        """Batches whose results have not arrived yet."""

    def start(self, workers: int) -> None:
        """Start the workers (no more than there are batches) and give each a batch."""
        for _ in range(min(workers, len(self.batches))):
            self.slots.append(_Slot(self.ctx))
        self.stats.worker_pids = [s.proc.pid for s in self.slots]
        for slot in self.slots:
            self.feed(slot)

    def feed(self, slot: _Slot) -> None:
        """Send the next batch to an idle slot, if any is left."""
        if self.todo and slot.task is None:
            slot.task = self.todo.popleft()
            self.attempts[slot.task] += 1
            try:
                slot.conn.send((slot.task, self.fn, self.batches[slot.task][1]))
            except OSError:
                pass  # the worker is dead: its sentinel fires and the batch is requeued

    def died(self, slot: _Slot) -> None:
        """Requeue the dead worker's batch and put a new worker, fed, in its slot."""
        with contextlib.suppress(Exception):
            slot.conn.close()
        slot.proc.join(1)
        if slot.task is not None:
            if self.attempts[slot.task] >= MAX_ATTEMPTS:
                start, chunk = self.batches[slot.task]
                raise TacocatError(
                    f"items {start}..{start + len(chunk) - 1}: a worker died on each of "
                    f"{MAX_ATTEMPTS} attempts (exit code {slot.proc.exitcode})"
                )
            self.todo.appendleft(slot.task)
            self.stats.retried += 1
        fresh = _Slot(self.ctx)
        self.stats.worker_pids.append(fresh.proc.pid)
        self.slots[self.slots.index(slot)] = fresh
        self.feed(fresh)

    def wait(self) -> list[tuple[Any, _Slot]]:
        """Block until a busy worker answers or any worker's process ends:
        each ready pipe or sentinel with its slot."""
        waitables: dict[Any, _Slot] = {}
        for slot in self.slots:
            waitables[slot.proc.sentinel] = slot
            if slot.task is not None:
                waitables[slot.conn] = slot
        return [(obj, waitables[obj]) for obj in multiprocessing.connection.wait(list(waitables))]

    def arrived(self, obj: Any, slot: _Slot) -> list[tuple[int, Any]]:
        """What a ready pipe or sentinel brings: a finished batch's
        `(index, result)` pairs (its slot fed again), or none (a dead
        worker replaced; a slot replaced earlier in the same wait)."""
        if slot not in self.slots:
            return []  # already replaced in this round
        message: tuple[str, int, Any] | None = None
        if obj is slot.conn:
            try:
                message = slot.conn.recv()
            except (EOFError, OSError):
                message = None
        if message is None:
            if obj is slot.conn or not slot.proc.is_alive():
                self.died(slot)
            return []
        kind, task, payload = message
        if kind == "error":
            raise payload
        slot.task = None
        self.left -= 1
        self.feed(slot)
        start = self.batches[task][0]
        return [(start + k, result) for k, result in enumerate(payload)]

    def close(self) -> None:
        """Stop every worker: terminate, then kill what is still alive."""
        for slot in self.slots:
            with contextlib.suppress(Exception):
                if slot.proc.is_alive():
                    slot.proc.terminate()
        for slot in self.slots:
            with contextlib.suppress(Exception):
                slot.proc.join(2)
                if slot.proc.is_alive():
                    slot.proc.kill()
                slot.conn.close()


def _processes(fn, batches, workers: int, stats: RunStats) -> Generator[tuple[int, Any], None, None]:
    pool = _Pool(fn, batches, stats)
    try:
        pool.start(workers)
        while pool.left:
            for obj, slot in pool.wait():
                yield from pool.arrived(obj, slot)
    finally:
        pool.close()


# ------------------------------------------------------------------- Ray


def import_ray():
    try:
        import ray
    except ImportError:
        raise TacocatError("--cluster ray needs Ray: pip install 'tacocat[cluster]' (or pip install ray)") from None
    return ray


def start_ray(cluster: Cluster) -> bool:
    """Connect to the cluster `cluster` names (start a private local one for
    address None); True if this call opened the session (and should close it)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    common = dict(include_dashboard=False, log_to_driver=False, logging_level="warning", configure_logging=True)
    main = threading.current_thread() is threading.main_thread()
    sigterm = signal.getsignal(signal.SIGTERM) if main else None
    host = check_reachable(cluster.address) if cluster.address is not None else None
    try:
        if cluster.address is None:
            with _loopback_only(ray):
                ray.init(
                    address="local",
                    num_cpus=cluster.workers,
                    object_store_memory=RAY_OBJECT_STORE_BYTES,
                    _node_ip_address="127.0.0.1",
                    **common,
                )
        else:
            with _loopback_only(ray) if host in LOOPBACK_HOSTS else contextlib.nullcontext():
                ray.init(address=cluster.address, **common)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        where = cluster.address or "a local cluster"
        raise TacocatError(f"--cluster: cannot start or reach Ray at {where}: {exc}") from None
    if callable(sigterm):
        # ray.init puts its own C handler on SIGTERM (log and exit); a Python
        # handler set before (`stop_on_sigterm`) must keep stopping cleanly
        signal.signal(signal.SIGTERM, sigterm)
    return True


LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""On Linux Ray turns 127.0.0.1 into the machine's reachable address (it
expects other nodes to join); with this set to 0, as on a laptop, it keeps
every server of a private cluster on the loopback interface."""


@contextlib.contextmanager
def _loopback_only(ray):
    """While a private cluster starts: its servers (which read the
    environment) and this driver (whose Ray read it at import) bind to
    127.0.0.1 only."""
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    before_env = os.environ.get(LOOPBACK_ENV)
    before_const = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[LOOPBACK_ENV] = "0"
    if constants is not None and before_const is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if before_env is None:
            os.environ.pop(LOOPBACK_ENV, None)
        else:
            os.environ[LOOPBACK_ENV] = before_env
        if constants is not None and before_const is not None:
            constants.ENABLE_RAY_CLUSTER = before_const


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def check_reachable(address: str) -> str | None:
    """The host of a host:port address, after checking that something
    listens there (commands call it before their first line of output):
    Ray itself retries an unreachable address for minutes, blocked in C
    where no signal can stop it.  "auto" and ray:// addresses are left to
    Ray."""
    import socket

    if address == "auto" or "://" in address:
        return None
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit():
        raise TacocatError(
            f"--cluster: expected host:port (e.g. 127.0.0.1:6379), ray://host:port or auto, got {address!r}"
        )
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise TacocatError(
            f"--cluster: no Ray cluster answers at {address} ({exc.strerror or exc}); start one "
            "with ray start --head there, or use --cluster ray for a private one"
        ) from None
    return host


_REMOTE: dict = {}


def _ray(fn, batches, cluster: Cluster, stats: RunStats) -> Generator[tuple[int, Any], None, None]:
    ray = import_ray()
    main = threading.current_thread() is threading.main_thread()
    ours = signal.getsignal(signal.SIGTERM) if main else None
    opened = start_ray(cluster)
    pending: dict = {}

    def keep_sigterm() -> None:
        # Ray's node sets a Python SIGTERM handler of its own (drain, exit 1)
        # and may do so after init: keep the one that stops the run cleanly
        if callable(ours) and signal.getsignal(signal.SIGTERM) is not ours:
            signal.signal(signal.SIGTERM, ours)

    try:
        if "batch" not in _REMOTE:
            _REMOTE["batch"] = ray.remote(max_retries=MAX_ATTEMPTS - 1, retry_exceptions=False)(_run_batch)
        remote = _REMOTE["batch"]
        cpus = max(1, int(ray.cluster_resources().get("CPU", cluster.workers)))
        limit = max(2, IN_FLIGHT_PER_WORKER * cpus)
        fn_ref = ray.put(fn)
        todo = collections.deque(range(len(batches)))
        while todo or pending:
            while todo and len(pending) < limit:
                task = todo.popleft()
                pending[remote.remote(fn_ref, batches[task][1])] = task
            keep_sigterm()
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                task = pending.pop(ref)
                start = batches[task][0]
                try:
                    payload = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    raise exc.as_instanceof_cause() from None
                except ray.exceptions.WorkerCrashedError:
                    raise TacocatError(
                        f"items {start}..: a Ray worker died on each of {MAX_ATTEMPTS} attempts"
                    ) from None
                keep_sigterm()
                for k, result in enumerate(payload):
                    yield start + k, result
    finally:
        if opened:
            # Closing the session ends this job's tasks with it.  No
            # ray.cancel first: a cancel racing a task's reply aborts the
            # driver inside Ray ("Tried to complete task that was not
            # pending", ray-project/ray#54798), which turned a clean SIGTERM
            # into exit 1.
            with contextlib.suppress(Exception):
                ray.shutdown()
        else:
            # a session someone else opened stays up: ask its workers to
            # drop our tasks, without killing the worker processes
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=False)


# ------------------------------------------------------------- stopping


class Stopped(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a run stops the way Ctrl-C
    stops it (partial results kept)."""


@contextlib.contextmanager
def stop_on_sigterm():
    """Turn SIGTERM into `Stopped` while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Stopped()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def ordered(results: Iterator[tuple[int, Any]], start: int = 0) -> Iterator[tuple[int, Any]]:
    """The `(i, result)` of `run_tasks` back in index order from `start`,
    each as soon as every earlier one has arrived."""
    waiting: dict[int, Any] = {}
    nxt = start
    for i, result in results:
        waiting[i] = result
        while nxt in waiting:
            yield nxt, waiting.pop(nxt)
            nxt += 1
