"""Which HandMeThat goal templates the generator samples: for N episodes made as `homesim generate
handmethat` makes them (`make_episode`, seed S), each template's accepted episodes and its rejected tries
by reason, and its accepted episodes' hardness levels, with the quest-type and level mix. A template never accepted is one the human's planner cannot
reach on these scenes (or whose goals hold at the start, or whose plans have no allowed cut).

    python bench/handmethat_templates.py [--episodes 2000] [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections import Counter, defaultdict

from rich.console import Console
from rich.progress import track
from rich.table import Table

from homesim.datasets.handmethat import generate as generation
from homesim.tasks.handmethat.goals import goal_templates


def count(episodes: int, seed: int) -> dict:
    """Accepted episodes and rejections per template name, quest types, levels and CPU seconds."""
    tries: list[tuple[str, str, int]] = []  # (template name, why rejected: "" when accepted, level or 0)
    original = generation._try

    def recording(scene, rng, episode_id):
        # the goal is drawn first from the same rng, so drawing it again from a copy names it
        name = getattr(generation.sample_goal(scene, copy.deepcopy(rng)), "name", "")
        episode, why = original(scene, rng, episode_id)
        tries.append((name, why, episode.level if episode is not None else 0))
        return episode, why

    generation._try = recording
    accepted, rejected, leveled = Counter(), defaultdict(Counter), defaultdict(Counter)
    quests, levels = Counter(), Counter()
    begin = time.process_time()
    try:
        for index in track(range(episodes), description="episodes"):
            episode, _ = generation.make_episode(seed, index)
            quests[episode.quest_type] += 1
            levels[episode.level] += 1
    finally:
        generation._try = original
    for name, why, level in tries:
        if why:
            rejected[name][why] += 1
        else:
            accepted[name] += 1
            leveled[name][level] += 1
    seconds = time.process_time() - begin
    return {
        "episodes": episodes,
        "seed": seed,
        "cpu_seconds": round(seconds, 2),
        "episodes_per_cpu_second": round(episodes / seconds, 2),
        "templates": {
            name: {
                "accepted": accepted[name],
                "levels": [leveled[name][level] for level in (1, 2, 3, 4)],
                "rejected": dict(rejected[name]),
            }
            for name in goal_templates()
        },
        "quest_types": dict(sorted(quests.items())),
        "levels": {str(k): v for k, v in sorted(levels.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the counts here")
    args = parser.parse_args()
    result = count(args.episodes, args.seed)
    table = Table(title=f"HandMeThat templates in {args.episodes} episodes (seed {args.seed})")
    for column in ("template", "accepted", "share", "levels 1/2/3/4", "rejected tries, by reason"):
        table.add_column(column, justify="left" if column in ("template", "rejected tries, by reason") else "right")
    for name, c in result["templates"].items():
        why = ", ".join(f"{reason}: {n}" for reason, n in sorted(c["rejected"].items(), key=lambda kv: -kv[1]))
        share = f"{100 * c['accepted'] / args.episodes:.1f}%"
        table.add_row(name, str(c["accepted"]), share, "/".join(map(str, c["levels"])), why)
    console = Console()
    console.print(table)
    sampled = sum(1 for c in result["templates"].values() if c["accepted"])
    console.print(f"templates sampled: {sampled} of {len(result['templates'])}")
    console.print(f"quest types: {result['quest_types']}; levels: {result['levels']}")
    console.print(f"{result['episodes_per_cpu_second']} accepted episodes per CPU second")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
