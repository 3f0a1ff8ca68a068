"""Ray's scaling on this machine: the expert over ALFRED's valid_seen (820 episodes, oracle interaction,
records and summary written) by one local process, then by 2 Ray workers, back to back, `--runs` times,
each run with the 1-minute load average before it (other processes share the cores). 2 local processes
run after them, to show what the machine gives two workers at that moment.

The Ray instance is the one at `--ray-address` (e.g. after `RAY_worker_niceness=0 ray start --head --num-cpus
2`) or one the bench starts before the timed runs as homesim would; either way it is already running when a
run starts.
Its start-up is shown, with the ratio it would give if each Ray run paid it.

Where a Ray run's time goes: CPU seconds of the driver, Ray's workers, Ray's own processes (GCS, raylet,
dashboard, monitors, agents) and every other process on the machine, sampled from /proc, beside the CPU
seconds of the one local process (the work itself); an instance at `--ray-address` counts with the others;
and from Ray's
task timeline, per worker: seconds until its first chunk began (placement group made, a worker process
leased), the first chunk's argument deserialisation (Ray's serialization context, which imports pydantic,
and the modules of the functions passed: homesim's evaluation), seconds running chunks (the first one
sets the worker up: the shared data fetched and unpickled), between chunks, and idle at the end (the
driver sorting the records and writing the summary).

A run in the bench's own driver finds the worker processes of its last run (the first finds those of an
untimed warm-up evaluation of a few episodes, with homesim imported); a command is a new driver, with worker
processes of its own. So each run also times a command's way: a new driver process (`--driver`) does what
`homesim evaluate --backend ray --workers 2` does (worker processes started and their modules imported,
`homesim.parallel.prestart`, while it reads the dataset, then the evaluation), and one does what `--workers 1`
does; each says how long its evaluation took, and the whole command (from its process's start to its records
written: Python, imports, Ray's connection, the dataset read), with its workers' time from Ray's timeline.

`--ray-niceness 15` starts the instance with Ray's default worker niceness instead of homesim's 0.

    python bench/ray_scaling.py [--runs 3] [--ray-address auto | --ray-niceness 15] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import ray
from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.importer import import_alfred
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.parallel import RAY_SETTINGS, Workers, prestart, start_ray

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"
RAY_SYSTEM = ("gcs_server", "raylet", "dashboard", "monitor.py", "ray::DashboardAgent", "ray::RuntimeEnv")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> dict[int, tuple[str, float, int]]:
    """pid -> (command line, CPU seconds so far, parent pid) of every process."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            command = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[int(pid)] = (command, (int(fields[11]) + int(fields[12])) / TICK, int(fields[1]))
    return found


class CpuCensus:
    """CPU seconds each group of processes spent while it ran, from /proc sampled every half second (Ray's
    workers end with the run, so their last half second may be missed)."""

    def __enter__(self):
        self.first, self.last, self.stop = cpu_seconds(), {}, threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while not self.stop.wait(0.5):
            self.last.update(cpu_seconds())

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.last.update(cpu_seconds())
        self.groups = {"driver": 0.0, "Ray workers": 0.0, "Ray's processes": 0.0, "others": 0.0}
        for pid, (command, seconds, _) in self.last.items():
            spent = seconds - self.first.get(pid, (command, 0.0))[1]
            if pid == os.getpid() or ("--driver" in command and self._descends_from_driver(pid)):
                group = "driver"  # the bench, or a command's driver it started
            elif not self._descends_from_driver(pid):  # another Ray instance's processes too
                group = "others"
            elif any(name in command for name in RAY_SYSTEM):
                group = "Ray's processes"
            elif command.startswith("ray::"):
                group = "Ray workers"
            else:
                group = "others"
            self.groups[group] += spent


    def _descends_from_driver(self, pid: int) -> bool:
        """The instance the bench started is the driver's: its raylet and GCS are children, workers grandchildren."""
        while pid in self.last and pid > 1:
            if pid == os.getpid():
                return True
            pid = self.last[pid][2]
        return False


def worker_timeline(begin: float, end: float) -> dict[str, float]:
    """From Ray's task events of the run (begin, end: epoch seconds): each worker's figures, averaged."""
    time.sleep(2.5)  # task events reach the GCS once a second
    runs: dict[str, list[dict]] = {}
    unpacking: dict[str, list[dict]] = {}
    for event in ray.timeline():
        if event.get("ph") != "X" or event["ts"] / 1e6 < begin:
            continue
        if event["cat"] == "task::_ray_task":
            runs.setdefault(event["tid"], []).append(event)
        elif event["cat"] == "task:deserialize_arguments":
            unpacking.setdefault(event["tid"], []).append(event)
    figures = []
    for worker, events in runs.items():
        events.sort(key=lambda e: e["ts"])
        starts = [e["ts"] / 1e6 for e in events]
        ends = [(e["ts"] + e["dur"]) / 1e6 for e in events]
        first = [e["dur"] / 1e6 for e in unpacking.get(worker, []) if starts[0] <= e["ts"] / 1e6 <= ends[0]]
        figures.append(
            {
                "until first chunk": starts[0] - begin,
                "first arguments": sum(first),
                "running chunks": sum(e - s for s, e in zip(starts, ends)),
                "between chunks": sum(max(0.0, s - e) for s, e in zip(starts[1:], ends)),
                "idle at the end": end - ends[-1],
                "chunks": len(events),
            }
        )
    return {key: sum(f[key] for f in figures) / len(figures) for key in figures[0]} if figures else {}


def timed(splits, scenes, workers: Workers) -> tuple[float, bytes, float, float]:
    """Seconds of one evaluation, its records' bytes, and its start and end (epoch seconds)."""
    fresh = pickle.loads(pickle.dumps(scenes))  # without the pose tables an earlier run made
    with tempfile.TemporaryDirectory() as out:
        begin, wall = time.time(), time.perf_counter()
        evaluate(splits, fresh, EvaluationConfig(agent="expert", interaction="oracle"), out, workers=workers)
        seconds, end = time.perf_counter() - wall, time.time()
        return seconds, (Path(out) / "records.jsonl").read_bytes(), begin, end


def warm_up(splits, scenes) -> None:
    """An evaluation of a few episodes on the 2 Ray workers, untimed: the instance's worker processes then
    have homesim's modules imported (as a command's `prestart` has them import while it reads its data),
    so that the first timed run, like the next ones, times the evaluation, not imports (0.8 s a worker)."""
    few = {split: episodes[:40] for split, episodes in splits.items()}
    with tempfile.TemporaryDirectory() as out:
        evaluate(few, scenes, EvaluationConfig(agent="expert", interaction="oracle"), out, workers=Workers(2, "ray"))


def driver(args: argparse.Namespace) -> None:
    """One command's run (`--driver ADDRESS`: 2 Ray workers of the instance there; `--driver local`: one
    process), printed as JSON: its seconds to read the dataset and to evaluate, and the evaluation's start
    and end (epoch seconds)."""
    workers = Workers(1) if args.driver == "local" else Workers(2, "ray", args.driver)
    prestart(workers, ("homesim.evaluation.evaluate",))  # as `homesim evaluate` does, before reading
    started = time.perf_counter()
    splits, scenes, _ = import_alfred(args.trajectories, args.layouts)
    read = time.perf_counter() - started
    seconds, records, begin, end = timed(splits, scenes, workers)
    print(json.dumps({"read_s": read, "evaluate_s": seconds, "begin": begin, "end": end, "records": records.hex()}))


def new_driver(args: argparse.Namespace, address: str) -> dict:
    """A driver's figures, its whole time (from its start to its end, Ray's disconnection included), and
    its Ray workers' timeline."""
    command = [sys.executable, __file__, "--driver", address, "--trajectories", str(args.trajectories)]
    wall = time.perf_counter()
    found = subprocess.run([*command, "--layouts", str(args.layouts)], capture_output=True, text=True)
    wall = time.perf_counter() - wall
    if found.returncode != 0:
        raise SystemExit(f"the driver failed: {found.stderr}")
    figures = json.loads(found.stdout.splitlines()[-1])
    timeline = {} if address == "local" else worker_timeline(figures["begin"], figures["end"])
    return figures | {"records": bytes.fromhex(figures["records"]), "command_s": wall, "timeline": timeline}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ray-address", help="an instance already running (auto: the one `ray start` made)")
    parser.add_argument("--ray-niceness", type=int, help="start the instance with this worker niceness")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--driver", help=argparse.SUPPRESS)  # one command's run, in a process of its own
    args = parser.parse_args()
    if args.driver:
        return driver(args)
    splits, scenes, _ = import_alfred(args.trajectories, args.layouts)
    begin = time.perf_counter()
    if args.ray_niceness is None:
        start_ray(Workers(2, "ray", args.ray_address))  # as homesim starts or joins one
    else:
        settings = RAY_SETTINGS | {"worker_niceness": args.ray_niceness}
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _system_config=settings)
    start_up = time.perf_counter() - begin
    warm_up(splits, scenes)
    time.sleep(2)  # Ray's processes settle, as on an instance started earlier
    instance = f"at {args.ray_address}" if args.ray_address else f"started by the bench in {start_up:.1f} s"
    instance += "" if args.ray_niceness is None else f", worker niceness {args.ray_niceness}"
    address = ray.get_runtime_context().gcs_address
    console = Console()
    console.print(f"Ray instance {instance}, already running when each run starts; {os.cpu_count()} cores")

    scaling = Table(title="expert over valid_seen: 1 local process against 2 Ray workers, back to back")
    for column in ("run", "load", "1 local s", "2 ray s", "ratio", "with start-up", "same bytes", "2 local s", "ratio"):
        scaling.add_column(column, justify="right")
    commands = Table(title="as commands: each a new driver; its evaluation, and the whole command (1 local vs 2 Ray)")
    for column in ("run", "read s", "1 local s", "2 ray s", "ratio", "command: 1 local s", "2 ray s", "ratio"):
        commands.add_column(column, justify="right")
    commands.add_column("same bytes", justify="right")
    commands.add_column("others CPU", justify="right")
    for column in ("until first chunk", "first arguments", "running chunks", "idle at the end"):
        commands.add_column(f"ray worker: {column}", justify="right")
    where = Table(title="the 2 Ray workers' runs: CPU seconds per group of processes, and each worker's time (mean)")
    census_columns = ("driver", "Ray workers", "Ray's processes", "others")
    timeline_columns = ("until first chunk", "first arguments", "running chunks", "between chunks", "idle at the end")
    for column in ("run", "1 local CPU", *(f"{c} CPU" for c in census_columns), *timeline_columns):
        where.add_column(column, justify="right")
    figures = {"instance": instance, "start_up_s": start_up, "runs": []}
    for run in range(1, args.runs + 1):
        load = os.getloadavg()[0]
        with CpuCensus() as alone:
            one, reference, _, _ = timed(splits, scenes, Workers(1))
        with CpuCensus() as census:
            two, records, started, ended = timed(splits, scenes, Workers(2, "ray"))
        timeline = worker_timeline(started, ended)
        local, local_records, _, _ = timed(splits, scenes, Workers(2))
        same = records == reference == local_records
        alone_command = new_driver(args, "local")
        with CpuCensus() as command_census:
            ray_command = new_driver(args, address)
        commands.add_row(
            str(run), f"{ray_command['read_s']:.2f}", f"{alone_command['evaluate_s']:.2f}",
            f"{ray_command['evaluate_s']:.2f}", f"{alone_command['evaluate_s'] / ray_command['evaluate_s']:.2f}x",
            f"{alone_command['command_s']:.2f}", f"{ray_command['command_s']:.2f}",
            f"{alone_command['command_s'] / ray_command['command_s']:.2f}x",
            str(alone_command["records"] == ray_command["records"] == reference),
            f"{command_census.groups['others']:.2f}",
            *(f"{ray_command['timeline'].get(c, float('nan')):.2f}" for c in
              ("until first chunk", "first arguments", "running chunks", "idle at the end")),
        )  # fmt: skip
        cold = "" if args.ray_address else f"{one / (two + start_up):.2f}x"
        scaling.add_row(
            str(run), f"{load:.1f}", f"{one:.2f}", f"{two:.2f}", f"{one / two:.2f}x", cold, str(same),
            f"{local:.2f}", f"{one / local:.2f}x",
        )  # fmt: skip
        where.add_row(
            str(run),
            f"{alone.groups['driver']:.2f}",
            *(f"{census.groups[c]:.2f}" for c in census_columns),
            *(f"{timeline.get(c, float('nan')):.2f}" for c in timeline_columns),
        )
        figures["runs"].append(
            {
                "load": load, "one_local_s": one, "two_ray_s": two, "ratio": one / two, "same_bytes": same,
                "two_local_s": local, "local_ratio": one / local, "one_local_cpu_s": alone.groups["driver"],
                "cpu_s": census.groups, "worker_mean_s": timeline,
                "commands": {k: {n: v for n, v in c.items() if n != "records"} for k, c in
                             (("one_local", alone_command), ("two_ray", ray_command))},
                "command_cpu_s": command_census.groups,
            }
        )  # fmt: skip
    console.print(scaling)
    console.print(where)
    console.print(commands)
    ray.shutdown()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
