"""Variety of generated directives against ALFRED's human ones, on the same demonstrations.

For every imported ALFRED trajectory the expert plans a demonstration and `homesim.language.annotate`
writes as many annotations as ALFRED's annotators did for it; both sets are measured alike:
vocabulary size, distinct goal sentences per task type, distinct step sentences, mean goal and step
sentence lengths in words. Also reports how fast annotations are written.

    python bench/language_variety.py [--trajectories PATH] [--layouts DIR] [--seed S] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.importer import import_alfred
from homesim.language import annotate
from homesim.planning.alfred.expert import Unrecoverable, plan
from homesim.tasks.alfred import TASK_TYPES, Annotation

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def words(sentence: str) -> list[str]:
    return _WORD.findall(sentence.lower())


def normalised(sentence: str) -> str:
    """A sentence as compared for distinctness: its words only (case and punctuation are style)."""
    return " ".join(words(sentence))


def variety(annotated: list[tuple[str, Annotation]]) -> dict:
    """Figures for (task type, annotation) pairs."""
    vocabulary, goals, steps = set(), defaultdict(set), set()
    goal_lengths, step_lengths = [], []
    for task_type, a in annotated:
        goal_words = words(a.task_desc)
        vocabulary.update(goal_words)
        goal_lengths.append(len(goal_words))
        goals[task_type].add(normalised(a.task_desc))
        for d in a.high_descs:
            step_words = words(d)
            vocabulary.update(step_words)
            step_lengths.append(len(step_words))
            steps.add(normalised(d))
    counts = defaultdict(int)
    for task_type, _ in annotated:
        counts[task_type] += 1
    return {
        "annotations": len(annotated),
        "vocabulary": len(vocabulary),
        "distinct_step_sentences": len(steps),
        "step_sentences": len(step_lengths),
        "mean_goal_words": sum(goal_lengths) / max(len(goal_lengths), 1),
        "mean_step_words": sum(step_lengths) / max(len(step_lengths), 1),
        "distinct_goals": {t: len(goals[t]) for t in TASK_TYPES if counts[t]},
        "goals": {t: counts[t] for t in TASK_TYPES if counts[t]},
        "words": sorted(vocabulary),
    }


def collect(trajectories: Path, layouts: Path, seed: int) -> tuple[list, list, dict]:
    splits, scenes, errors = import_alfred(trajectories, layouts)
    real, ours = [], []
    notes = {"import_errors": len(errors), "expert_unrecoverable": 0, "without_annotations": 0}
    rng, seconds = random.Random(seed), 0.0
    for episode in (e for episodes in splits.values() for e in episodes):
        scene, task_type = scenes[episode.scene_id], episode.goal.task_type
        if not episode.annotations:
            notes["without_annotations"] += 1
            continue
        try:
            demo = plan(scene, episode.initial_state, episode.goal)
        except Unrecoverable:
            notes["expert_unrecoverable"] += 1
            continue
        begin = time.perf_counter()
        generated = annotate(scene, demo, episode.goal, rng, count=len(episode.annotations))
        seconds += time.perf_counter() - begin
        real += [(task_type, a) for a in episode.annotations]
        ours += [(task_type, a) for a in generated]
    notes["annotations_per_s"] = len(ours) / max(seconds, 1e-9)
    return real, ours, notes


def report(real: dict, ours: dict, source: str) -> Table:
    table = Table(title=f"directive variety: ALFRED's annotators vs homesim, same demonstrations ({source})")
    for column in ("figure", "ALFRED (human)", "homesim", "homesim / human"):
        table.add_column(column, justify="right" if column != "figure" else "left")

    def row(name: str, a: float, b: float, digits: int = 0) -> None:
        table.add_row(name, f"{a:,.{digits}f}", f"{b:,.{digits}f}", f"{b / a:.2f}" if a else "-")

    row("annotations", real["annotations"], ours["annotations"])
    row("vocabulary (distinct words)", real["vocabulary"], ours["vocabulary"])
    row("distinct step sentences", real["distinct_step_sentences"], ours["distinct_step_sentences"])
    row("mean goal sentence (words)", real["mean_goal_words"], ours["mean_goal_words"], 2)
    row("mean step sentence (words)", real["mean_step_words"], ours["mean_step_words"], 2)
    for t in real["distinct_goals"]:
        row(f"distinct goals, {t} (of {real['goals'][t]:,})", real["distinct_goals"][t], ours["distinct_goals"][t])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=Path("language_variety.json"))
    args = parser.parse_args()
    real, ours, notes = collect(args.trajectories, args.layouts, args.seed)
    figures = {"human": variety(real), "homesim": variety(ours)}
    console = Console(width=120)
    console.print(report(figures["human"], figures["homesim"], args.trajectories.name))
    only_human = sorted(set(figures["human"]["words"]) - set(figures["homesim"]["words"]))
    console.print(
        f"skipped: {notes['import_errors']} import errors, {notes['expert_unrecoverable']} unrecoverable, "
        f"{notes['without_annotations']} without annotations; {notes['annotations_per_s']:,.0f} annotations/s; "
        f"{len(only_human):,} words only humans used"
    )
    for side in figures.values():
        side["words"] = len(side["words"])  # the word lists themselves would swamp the file
    args.json.write_text(json.dumps({"source": str(args.trajectories), **notes, **figures}, indent=1))


if __name__ == "__main__":
    main()
