"""Work spread over processes: local worker processes, or the workers of a Ray cluster.

`run_chunks(setup, shared, work, chunks, workers)` sets each worker up once with `setup(*shared)` (on Ray
the shared data, scenes and episodes, goes to the object store once, not with every chunk), runs
`work(state, chunk)` on every chunk, and yields `(chunk index, result)` as chunks finish. Callers put the
results in their own order, so what they write never depends on the backend or the number of workers.

On Ray, each chunk is a task in a placement group of `workers` CPUs, so at most that many run at once and
the next chunk waits at hand when one finishes; a worker process is set up at the first chunk of a run it
gets (Ray may keep a worker process from one run for the next: it is set up again). A chunk whose
worker raises or dies is tried once more (a dead worker is started again); a chunk that fails twice comes
back as a `Failed` with the reason, and the rest of the run goes on. Locally, an exception ends the run as
it would in one process.

Ray: `RAY_worker_niceness=0 ray start --head` on one machine, `RAY_worker_niceness=0 ray start --address
HEAD:6379` on the others, then any command with `--backend ray --ray-address auto`. Without an address a
local Ray instance is started (and stopped at the end) with `workers` CPUs.
"""

from __future__ import annotations

import multiprocessing
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

BACKENDS = ("local", "ray")


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


def _start(setup: Callable, shared: tuple) -> None:
    global _state
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
    with ProcessPoolExecutor(workers.count, context, initializer=_start, initargs=(setup, shared)) as pool:
        futures = {pool.submit(_call, work, chunk): i for i, chunk in enumerate(chunks)}
        for future in as_completed(futures):
            yield futures[future], future.result()


TRIES = 2  # a chunk is tried twice, then reported as failed
AHEAD = 2  # chunks sent per worker: the next one waits at hand when one finishes, with no round trip


# Ray runs its workers at niceness 15 by default: beside any other work on a machine (local processes run at
# 0) they get a fraction of a core. An instance homesim starts runs them at 0; a cluster's is set at `ray start`.
RAY_SETTINGS = {"worker_niceness": 0}


def start_ray(workers: Workers) -> None:
    """Connects this process to the Ray cluster at `workers.address`, or starts a local instance of
    `workers.count` CPUs (Ray's dashboard and worker logs left out: the command shows its own progress)."""
    import ray

    if workers.address is None:
        ray.init(
            num_cpus=workers.count, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
            _system_config=RAY_SETTINGS,
        )  # fmt: skip
    else:
        ray.init(address=workers.address, log_to_driver=False, logging_level="ERROR")


def _on_ray(setup: Callable, shared: tuple, work: Callable, chunks: Sequence, workers: Workers):
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        start_ray(workers)
    try:
        yield from _schedule(setup, shared, work, chunks, workers.count)
    finally:
        if started_here:
            ray.shutdown()


def _ray_task(run: str, setup: Callable, shared_refs: list, work: Callable, chunk: object) -> object:
    """One chunk on a Ray worker, set up by its first chunk of the run."""
    global _state, _state_of
    if _state_of != run:
        import ray

        _state, _state_of = None, None  # the last run's state goes first; a setup that raises leaves none
        _state, _state_of = setup(*ray.get(shared_refs)), run
    return work(_state, chunk)


def _schedule(setup: Callable, shared: tuple, work: Callable, chunks: Sequence, count: int):
    import ray
    from ray.util.placement_group import placement_group, remove_placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    group = placement_group([{"CPU": 1}] * count)  # `count` workers, whatever the cluster's size
    task = ray.remote(_ray_task).options(
        num_cpus=1, max_retries=0, scheduling_strategy=PlacementGroupSchedulingStrategy(group)
    )
    run, refs = uuid.uuid4().hex, [ray.put(x) for x in shared]  # shared data once, for every worker
    pending = list(range(len(chunks)))[::-1]  # popped from the end: in order
    tries = [0] * len(chunks)
    running: dict = {}  # object ref -> chunk index

    def send() -> None:
        while pending and len(running) < AHEAD * count:
            i = pending.pop()
            tries[i] += 1
            running[task.remote(run, setup, refs, work, chunks[i])] = i

    try:
        send()
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
    finally:
        remove_placement_group(group)
