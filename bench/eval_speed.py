"""Evaluation throughput: the expert agent over ALFRED's 251 valid_seen trajectories (820 annotated
episodes) under ALFRED's protocol: 1 local process (the reference), then 2 local processes and 2 Ray
workers on a local Ray instance, its start-up included, then again on an instance already running (as
on a cluster started with `ray start`; its start-up is shown apart); each must write the reference's bytes.
Each run starts from scenes without pose tables (`homesim.world.views`), as a fresh `homesim evaluate` does
without the disk cache of scene tables (`homesim.world.scene_cache`, off here, so no run reads what another wrote).

    python bench/eval_speed.py [--trajectories PATH] [--layouts DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.importer import import_alfred
from homesim.evaluation.alfred.suite import work_items
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.parallel import Workers

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def start_ray() -> float:
    """Starts a local Ray instance of 2 CPUs, as `ray start --head --num-cpus 2` would; the seconds it took."""
    import ray

    begin = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    return time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ["HOMESIM_CACHE"] = "off"
    splits, scenes, _ = import_alfred(args.trajectories, args.layouts)
    episodes = len(work_items(splits, subgoals=False))
    table = Table(title=f"expert evaluation over {episodes} ALFRED episodes (records and summary written)")
    for column in ("workers", "seconds", "episodes/s", "x 1 process", "task success", "same bytes"):
        table.add_column(column, justify="right")
    figures = {}
    reference = None
    runs = [("1 local", Workers(1)), ("2 local", Workers(2)), ("2 ray", Workers(2, "ray"))]
    for name, workers in [*runs, ("2 ray, already running", Workers(2, "ray"))]:
        if name.endswith("running"):
            name += f" (start-up {start_ray():.1f} s)"
        fresh = pickle.loads(pickle.dumps(scenes))  # without the pose tables an earlier run made (forks inherit them)
        with tempfile.TemporaryDirectory() as out:
            begin = time.perf_counter()
            summary = evaluate(splits, fresh, EvaluationConfig(agent="expert"), out, workers=workers)
            seconds = time.perf_counter() - begin
            records = (Path(out) / "records.jsonl").read_bytes()
        reference = reference or (records, seconds)
        success = next(iter(summary["splits"].values()))["all"]["task_success"]["value"]
        speedup = reference[1] / seconds
        figures[name] = {"seconds": seconds, "episodes_per_s": episodes / seconds, "speedup": speedup}
        same = records == reference[0]
        table.add_row(
            name, f"{seconds:.2f}", f"{episodes / seconds:,.0f}", f"{speedup:.2f}x", f"{100 * success:.1f}%", str(same)
        )
    Console().print(table)
    sys.modules["ray"].shutdown()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
