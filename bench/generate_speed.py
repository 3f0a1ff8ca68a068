"""Generation speed: ALFRED-style demonstrations (task sampling, placement, the expert's demonstration,
three annotations) per second on procedural rooms, with 1 and 2 worker processes (target: at least 50
per second on one core; ALFRED's 8,055 demonstrations should take minutes). The disk cache of scene tables
(`homesim.world.scene_cache`) is off here, so the two runs build the same tables.

    python bench/generate_speed.py [--episodes 1000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.generate import generate, procedural_places, split_counts
from homesim.language.alfred.directives import annotate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ["HOMESIM_CACHE"] = "off"
    table = Table(title=f"generating {args.episodes} demonstrations on procedural rooms (rooms built in the timing)")
    for column in ("workers", "seconds", "demonstrations/s", "replaced tasks", "minutes for 8,055"):
        table.add_column(column, justify="right")
    figures = {}
    for workers in (1, 2):
        begin = time.perf_counter()
        places = procedural_places(split_counts(args.episodes), seed=0)
        splits, problems = generate(places, args.episodes, seed=0, annotate=annotate, workers=workers)
        seconds = time.perf_counter() - begin
        made = sum(map(len, splits.values()))
        rate = made / seconds
        figures[workers] = {"seconds": seconds, "demonstrations": made, "per_s": rate, "replaced": len(problems)}
        table.add_row(str(workers), f"{seconds:.1f}", f"{rate:.1f}", str(len(problems)), f"{8055 / rate / 60:.1f}")
    Console().print(table)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
