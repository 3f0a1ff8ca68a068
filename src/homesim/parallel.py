"""Work spread over processes: local worker processes, or the workers of a Ray cluster.

`run_chunks(setup, shared, work, chunks, workers)` sets each worker up once with `setup(*shared)` (on Ray
the shared data, scenes and episodes, goes to the object store once, not with every chunk), runs
`work(state, chunk)` on every chunk, and yields `(chunk index, result)` as chunks finish. Callers put the
results in their own order, so what they write never depends on the backend or the number of workers.

On Ray, a chunk whose worker raises or dies is tried once more (a dead worker is started again); a chunk
that fails twice comes back as a `Failed` with the reason, and the rest of the run goes on. Locally, an
exception ends the run as it would in one process.

Ray: `ray start --head` on one machine, `ray start --address HEAD:6379` on the others, then any command
with `--backend ray --ray-address auto`. Without an address a local Ray instance is started (and
stopped at the end) with `workers` CPUs.
"""

from __future__ import annotations

import multiprocessing
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


_state: object = None  # a local worker process's state, made once by `setup`


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


def _on_ray(setup: Callable, shared: tuple, work: Callable, chunks: Sequence, workers: Workers):
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        if workers.address is None:
            ray.init(num_cpus=workers.count, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        else:
            ray.init(address=workers.address, log_to_driver=False, logging_level="ERROR")
    try:
        refs = [ray.put(x) for x in shared]  # once, for every worker

        @ray.remote(num_cpus=1, max_restarts=0)
        class Worker:
            def __init__(self, *shared_values):
                self.state = setup(*shared_values)

            def run(self, chunk):
                return work(self.state, chunk)

        pending = list(range(len(chunks)))[::-1]  # popped from the end: in order
        tries = [0] * len(chunks)
        running: dict = {}  # object ref -> (chunk index, worker)

        def submit(actor) -> None:
            if pending:
                i = pending.pop()
                tries[i] += 1
                running[actor.run.remote(chunks[i])] = (i, actor)

        for _ in range(min(workers.count, len(chunks))):
            submit(Worker.remote(*refs))
        while running:
            [done], _ = ray.wait(list(running), num_returns=1)
            i, actor = running.pop(done)
            finished: tuple | None = None
            try:
                finished = (i, ray.get(done))
            except ray.exceptions.RayError as e:  # the work raised, or its worker died
                if isinstance(e, ray.exceptions.RayActorError):
                    actor = Worker.remote(*refs)  # in place of the dead one
                if tries[i] < TRIES:
                    pending.append(i)
                else:
                    reason = f"failed {tries[i]} times on Ray: {type(e).__name__}: {str(e).splitlines()[0]}"
                    finished = (i, Failed(reason))
            if finished is not None:
                yield finished
            submit(actor)
    finally:
        if started_here:
            ray.shutdown()
