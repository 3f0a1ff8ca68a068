"""Replay speed: ALFRED's 6,574 train expert demonstrations replayed in homesim on one core
(target: under 60 s), split into reading the file, importing the floor plans, and replaying.

    python bench/replay_speed.py [--trajectories PATH] [--layouts DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.importer import import_trajectories
from homesim.datasets.alfred.replay import replay_episode
from homesim.datasets.alfred.trajectories import read_trajectories

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "train.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    begin = time.perf_counter()
    trajectories = list(read_trajectories(args.trajectories))
    read = time.perf_counter()
    splits, scenes, _ = import_trajectories(trajectories, args.layouts)
    imported = time.perf_counter()
    results = [replay_episode(e.id, e, scenes[e.scene_id]) for episodes in splits.values() for e in episodes]
    replayed = time.perf_counter()

    actions = sum(r.actions for r in results)
    figures = {
        "trajectories": len(results),
        "actions": actions,
        "read_s": read - begin,
        "import_s": imported - read,
        "replay_s": replayed - imported,
        "total_s": replayed - begin,
        "actions_per_s_in_replay": actions / (replayed - imported),
    }
    table = Table(title=f"replaying {len(results)} ALFRED trajectories ({actions:,} expert actions), one core")
    for column in ("phase", "seconds"):
        table.add_column(column)
    for phase in ("read", "import", "replay", "total"):  # import: scenes and episodes
        table.add_row(phase, f"{figures[phase + '_s']:.1f}")
    table.add_row("target (total)", "60.0")
    Console().print(table)
    Console().print(
        f"{figures['actions_per_s_in_replay']:,.0f} expert actions/s during replay"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
