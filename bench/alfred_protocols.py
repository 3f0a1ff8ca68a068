"""What separates ALFRED's two protocols on a run: each record's actions played again (oracle mode) and its
final state judged with each of ALFRED's code's quirks alone (substring class matching, direct contents,
its history-set bookkeeping) and with all of them, against homesim's reading; and the episodes that stopped
at step 0, which the code drops.

    python bench/alfred_protocols.py --run OUT --episodes json_2.1.0/valid_seen --layouts gen/layouts [--json out.json]

`OUT` is an evaluation under either protocol (the agents' actions do not depend on it: the reading of goal
conditions is not shown to them).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.sources import read_episodes
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.records import read_records
from homesim.tasks.alfred import ALFRED_CODE, HOMESIM, GoalReading, goal_conditions

READINGS = {
    "homesim": (HOMESIM, False),
    "substring classes": (GoalReading(substring=True), False),
    "direct contents": (GoalReading(direct=True), False),
    "history sets": (HOMESIM, True),
    "alfred-code": (ALFRED_CODE, True),
}


def final_states(env_by_history: dict, episode, record):
    """The state the record's actions end in, with the history sets kept each way."""
    states = {}
    for code, env in env_by_history.items():
        env.reset(options={"episode": episode, "annotation": record.annotation})
        for action, target in record.actions:
            env.step({"action": action, "target": target})
        states[code] = env.state
    return states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--episodes", type=Path, required=True)
    parser.add_argument("--layouts", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    source = read_episodes(args.episodes, args.layouts)
    episodes = {e.id: e for split in source.splits.values() for e in split}
    envs = {
        code: AlfredEnv(list(episodes.values()), source.scenes, rules={"history_sets": "code" if code else "growing"})
        for code in (False, True)
    }
    records = [r for r in read_records(args.run / "records.jsonl") if r.subgoal is None]
    success, conditions, changed = Counter(), Counter(), Counter()
    total = 0
    for record in records:
        episode = episodes[record.episode_id]
        states = final_states(envs, episode, record)
        scene = source.scenes[episode.scene_id]
        judged = {
            name: goal_conditions(scene, states[code], episode.goal, reading=reading)
            for name, (reading, code) in READINGS.items()
        }
        total += judged["homesim"][1]
        for name, (met, all_) in judged.items():
            success[name] += met == all_
            conditions[name] += met
            changed[name] += (met, all_) != judged["homesim"]
    zero = sum(r.path_length == 0 for r in records)
    console = Console(width=150)
    table = Table(title=f"{args.run}: {len(records)} episodes, final states judged each way")
    for column in ("reading", "success", "goal conditions met", "episodes judged otherwise than homesim's"):
        table.add_column(column, justify="left" if column == "reading" else "right")
    for name in READINGS:
        table.add_row(name, str(success[name]), f"{conditions[name]} / {total}", str(changed[name]))
    console.print(table)
    console.print(f"episodes stopped at step 0 (alfred-code drops them): {zero}")
    if args.json:
        figures = {"episodes": len(records), "success": success, "conditions": conditions, "changed": changed}
        args.json.write_text(json.dumps(figures | {"zero_step": zero, "conditions_total": total}, indent=1) + "\n")


if __name__ == "__main__":
    main()
