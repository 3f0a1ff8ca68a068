"""Work spread over processes: local worker processes, or the workers of a Ray cluster.

`run_chunks(setup, shared, work, chunks, workers)` sets each worker up once with `setup(*shared)` (on Ray
the shared data, scenes and episodes, goes to the object store once, not with every chunk), runs
`work(state, chunk)` on every chunk, and yields `(chunk index, result)` as chunks finish. Callers put the
results in their own order, so what they write never depends on the backend or the number of workers.

On Ray, each chunk is a task in a placement group of `workers` CPUs, so at most that many run at once and
the next chunk waits at hand when one finishes; a worker process is set up at the first chunk of a run it
gets (Ray may keep a worker process from one run for the next: it is set up again). A worker process takes
about a second to start (Python, Ray, homesim's modules): `prestart(workers, modules)` starts them ahead of
a run, while the caller goes on (a command reading its data), and the next run on those workers uses them.
A chunk whose worker raises or dies is tried once more (a dead worker is started again); a chunk that fails
twice comes back as a `Failed` with the reason, and the rest of the run goes on. Locally, an exception ends
the run as it would in one process.

Ray: `ray start --head` on one machine, `ray start --address HEAD:6379` on the others, each with
`RAY_worker_niceness=0 RAY_idle_worker_killing_time_threshold_ms=60000` in its environment (see RAY_SETTINGS),
then any command with `--backend ray --ray-address auto`. Without an address a local Ray instance is started
with `workers` CPUs. Ray stays connected after a run, for the next (Ray disconnects, and stops an instance it
started, when the process ends: within a run that took from 0.3 to 1.4 s).
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import multiprocessing
import os
import pickle
import signal
import socket
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass

BACKENDS = ("local", "ray")
PR_SET_PDEATHSIG = 1  # prctl's option: the signal a process gets when its parent dies


@dataclass(frozen=True)
class Workers:
    """How many worker processes, and where: `local` processes or a `ray` cluster (`address`: "auto" for
    the cluster `ray start` joined this machine to, None for a new local instance)."""

    count: int = 1
    backend: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; known: {', '.join(BACKENDS)}")
        if self.count < 1:
            raise ValueError(f"workers={self.count}: at least 1")
        if self.address is not None and self.backend != "ray":
            raise ValueError("a Ray address goes with the ray backend")


@dataclass(frozen=True)
class Failed:
    """A chunk that failed on every try, and why."""

    reason: str


_state: object = None  # a worker process's state, made once per run by `setup`
_state_of: str | None = None  # on Ray: the run `_state` was made for (a Ray worker serves run after run)


def die_with_parent(parent: int) -> None:
    """Makes this worker process end when its parent does, however the parent ends (a parent killed by
    SIGKILL cannot stop its workers itself, and they would wait on their pipe for ever): on Linux the
    kernel sends it SIGKILL (prctl's PR_SET_PDEATHSIG); a parent already gone ends it at once."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the pool's own pipe ends them when the parent exits
        return
    if os.getppid() != parent:
        os._exit(1)


def _start(setup: Callable, shared: tuple, parent: int) -> None:
    global _state
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent answers it
    _state = setup(*shared)


def _call(work: Callable, chunk: object) -> object:
    return work(_state, chunk)


def run_chunks(
    setup: Callable, shared: tuple, work: Callable, chunks: Sequence, workers: Workers, start: str | None = None
) -> Iterator[tuple[int, object]]:
    """(index, work's result or a `Failed`) for every chunk, in the order they finish. `start`: how local
    workers start (multiprocessing's "fork", "spawn", ...; default the platform's): work that renders
    needs "spawn", since an OpenGL context the caller made does not survive a fork."""
    if workers.backend == "ray":
        yield from _on_ray(setup, shared, work, chunks, workers)
        return
    context = multiprocessing.get_context(start)
    pool = ProcessPoolExecutor(workers.count, context, initializer=_start, initargs=(setup, shared, os.getpid()))
    try:
        futures = {pool.submit(_call, work, chunk): i for i, chunk in enumerate(chunks)}
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BaseException:  # Ctrl-C, an error, or the caller stopped: the workers stop now, not after their chunks
        for process in list(getattr(pool, "_processes", {}).values()):  # (the pool's own, not public)
            process.kill()
        pool.shutdown(wait=True, cancel_futures=True)  # (its threads see the workers gone, and end)
        raise
    pool.shutdown()


def in_process(setup: Callable, shared: tuple, work: Callable, chunks: Sequence) -> Iterator[tuple[int, object]]:
    """`run_chunks` in this process, in order (one worker: no process to start, nothing to pickle)."""
    if not chunks:
        return
    state = setup(*shared)
    for i, chunk in enumerate(chunks):
        yield i, work(state, chunk)


TRIES = 2  # a chunk is tried twice, then reported as failed
AHEAD = 2  # chunks sent per worker: the next one waits at hand when one finishes, with no round trip


# Ray runs its workers at niceness 15 by default: beside any other work on a machine (local processes run at
# 0) they get a fraction of a core. And while a run's placement group holds all of a machine's CPUs, Ray ends
# a worker process idle for 1 s (its default), so a worker started ahead of the run, or kept from the last
# one, would be gone when the run's chunks come, and a new one paid for. An instance homesim starts runs its
# workers at 0 and keeps them idle for a minute; a cluster's are set at `ray start`.
RAY_SETTINGS = {"worker_niceness": 0, "idle_worker_killing_time_threshold_ms": 60_000}


def start_ray(workers: Workers) -> None:
    """Connects this process to the Ray cluster at `workers.address`, or starts a local instance of
    `workers.count` CPUs (Ray's dashboard and worker logs left out: the command shows its own progress)."""
    import ray

    if workers.address not in (None, "auto"):
        check_reachable(workers.address)
    if workers.address is None:
        ray.init(
            num_cpus=workers.count, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
            _system_config=RAY_SETTINGS,
        )  # fmt: skip
    else:
        ray.init(address=workers.address, log_to_driver=False, logging_level="ERROR")


RAY_CONNECT_TIMEOUT = 10.0  # seconds to reach a cluster's address (Ray itself would retry for ever)


def check_reachable(address: str, timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """A ConnectionError, in one line, unless something listens at a Ray cluster's `host:port` (or
    `ray://host:port`): given an address that is wrong, Ray retries without end and ignores SIGTERM."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConnectionError(f"{address!r} is not a Ray address: give host:port (or auto)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as e:
        raise ConnectionError(f"cannot reach a Ray cluster at {address}: {e.strerror or e}") from None


_connected: Workers | None = None  # the Ray connection this process made, kept for its later runs


def _connect(workers: Workers) -> None:
    """Ray connected for a run on `workers`: as it is, unless this process connected it for workers it does not
    suit (another address, or a local instance of fewer CPUs)."""
    import ray

    global _connected
    if _connected is not None and ray.is_initialized():
        if _connected.address != workers.address or (workers.address is None and workers.count > _connected.count):
            ray.shutdown()
    if not ray.is_initialized():
        start_ray(workers)
        _connected = workers


@dataclass
class _RayWorkers:
    """A placement group of `workers.count` CPUs on the Ray cluster this process is connected to."""

    workers: Workers
    group: object

    @classmethod
    def reserve(cls, workers: Workers) -> _RayWorkers:
        from ray.util.placement_group import placement_group

        _connect(workers)
        return cls(workers, placement_group([{"CPU": 1}] * workers.count))

    def release(self) -> None:
        from ray.util.placement_group import remove_placement_group

        remove_placement_group(self.group)


_prestarted: _RayWorkers | None = None  # made by `prestart`, for the next run


def _import(modules: Sequence[str]) -> None:
    for name in modules:
        importlib.import_module(name)


def prestart(workers: Workers, modules: Sequence[str] = ()) -> None:
    """Starts the worker processes of the next Ray run on `workers` now, each importing `modules`, and
    returns at once: they start while the caller goes on (e.g. reads its data) instead of when the run's
    first chunks come. Local workers need no head start (they fork from the caller, or start with the run)."""
    global _prestarted
    if workers.backend != "ray" or _prestarted is not None:
        return
    import ray
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    _prestarted = _RayWorkers.reserve(workers)
    strategy = PlacementGroupSchedulingStrategy(_prestarted.group)
    warm = ray.remote(_import).options(num_cpus=1, max_retries=0, scheduling_strategy=strategy)
    for _ in range(workers.count):  # one a bundle; an import that fails fails again, and says so, in the run
        warm.remote(tuple(modules))


def _on_ray(setup: Callable, shared: tuple, work: Callable, chunks: Sequence, workers: Workers):
    global _prestarted
    ready, _prestarted = _prestarted, None
    if ready is not None and ready.workers != workers:
        ready.release()
        ready = None
    ready = ready or _RayWorkers.reserve(workers)
    try:
        yield from _schedule(setup, shared, work, chunks, ready.group, workers.count)
    finally:
        ready.release()


@contextmanager
def collector_paused():
    """Python's cycle collector paused for a burst of many small objects that live on (and make no cycle), then
    left as it was found: each collection they set off walks every object the process holds (ALFRED's valid_seen
    unpickled in 0.11-0.24 s with it, in 0.05 s without; the later the collection, the more objects)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _ray_task(run: str, setup: Callable, shared: list, work: Callable, chunk: object) -> object:
    """One chunk on a Ray worker, set up by its first chunk of the run (`shared`: the object ref of the
    setup's arguments pickled, in a list, so that Ray leaves it to the chunks that need it)."""
    global _state, _state_of
    if _state_of != run:
        import ray

        _state, _state_of = None, None  # the last run's state goes first; a setup that raises leaves none
        with collector_paused():
            shared_data = pickle.loads(ray.get(shared[0]))
        _state, _state_of = setup(*shared_data), run
    return work(_state, chunk)


def _pickled(shared: tuple) -> bytes:
    """The shared data pickled by pickle: Ray's own serializer (cloudpickle, with a Python hook called on every
    object) took 1.6-2.8 times as long on ALFRED's episodes, while the workers waited for it. What pickle
    cannot pickle (a lambda, a local function) goes by cloudpickle, as Ray would send it."""
    try:
        return pickle.dumps(shared, protocol=5)
    except (pickle.PicklingError, AttributeError):
        from ray import cloudpickle

        return cloudpickle.dumps(shared, protocol=5)


def _schedule(setup: Callable, shared: tuple, work: Callable, chunks: Sequence, group: object, count: int):
    import ray
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    task = ray.remote(_ray_task).options(
        num_cpus=1, max_retries=0, scheduling_strategy=PlacementGroupSchedulingStrategy(group)
    )
    with collector_paused():
        run, shared_ref = uuid.uuid4().hex, [ray.put(_pickled(shared))]  # once, for every worker
    pending = list(range(len(chunks)))[::-1]  # popped from the end: in order
    tries = [0] * len(chunks)
    running: dict = {}  # object ref -> chunk index

    def send() -> None:
        while pending and len(running) < AHEAD * count:
            i = pending.pop()
            tries[i] += 1
            running[task.remote(run, setup, shared_ref, work, chunks[i])] = i

    send()
    try:
        yield from _gather(send, running, pending, tries)
    except BaseException:  # Ctrl-C, an error, or the caller stopped: the chunks still running stop now
        for ref in running:
            ray.cancel(ref, force=True)
        raise


def _gather(send: Callable, running: dict, pending: list, tries: list):
    """(index, result or `Failed`) of the chunks as they finish, a failed one sent again (`_schedule`)."""
    import ray

    while running:
        [done], _ = ray.wait(list(running), num_returns=1)
        i = running.pop(done)
        finished: tuple | None = None
        try:
            finished = (i, ray.get(done))
        except ray.exceptions.RayError as e:  # the work raised, or its worker died
            if tries[i] < TRIES:
                pending.append(i)
            else:
                reason = f"failed {tries[i]} times on Ray: {type(e).__name__}: {str(e).splitlines()[0]}"
                finished = (i, Failed(reason))
        send()
        if finished is not None:
            yield finished
