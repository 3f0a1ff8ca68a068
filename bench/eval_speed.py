"""Evaluation throughput: the expert agent over ALFRED's 251 valid_seen trajectories (820 annotated
episodes) under ALFRED's protocol, with 1 and 2 worker processes.

    python bench/eval_speed.py [--trajectories PATH] [--layouts DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred_episodes import import_alfred
from homesim.evaluation.alfred_suite import work_items
from homesim.evaluation.evaluate import EvaluationConfig, evaluate

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    splits, scenes, _ = import_alfred(args.trajectories, args.layouts)
    episodes = len(work_items(splits, subgoals=False))
    table = Table(title=f"expert evaluation over {episodes} ALFRED episodes (records and summary written)")
    for column in ("workers", "seconds", "episodes/s", "task success"):
        table.add_column(column, justify="right")
    figures = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as out:
            begin = time.perf_counter()
            summary = evaluate(splits, scenes, EvaluationConfig(agent="expert"), out, workers=workers)
            seconds = time.perf_counter() - begin
        success = next(iter(summary["splits"].values()))["all"]["task_success"]["value"]
        figures[workers] = {"seconds": seconds, "episodes_per_s": episodes / seconds, "task_success": success}
        table.add_row(str(workers), f"{seconds:.2f}", f"{episodes / seconds:,.0f}", f"{100 * success:.1f}%")
    Console().print(table)
    Console().print(f"2 workers / 1 worker: {figures[2]['episodes_per_s'] / figures[1]['episodes_per_s']:.2f}x")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
