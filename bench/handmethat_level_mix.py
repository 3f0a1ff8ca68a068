"""HandMeThat's level mix: homesim's generator beside the authors' 24 samples, three ways, so that a
difference can be put on the scenes and goals, on the human's plan and cut, or on the request.

1. `generated`: N episodes of seed S as `homesim generate handmethat` makes them (`make_episode`), by quest
   type, and their bring_me episodes of the 25 templates the samples come from (their generator's default
   goals, `pap_tasks`).
2. `their scenes`: homesim's human, cut and request (bring_me, as their samples) on the samples' own scenes
   and goals, K tries each, with the same rejections as the generator; and the same with their human's own
   plan (`_possible_solution`) in place of homesim's, cut by the same rule, which puts a difference on the
   plans or not (their plan's subgoal parts are not in their files: no forall rule, no subgoal check).
3. `their cut states`: the level mix homesim's pragmatics would give at the samples' own cut states
   (their human's actions replayed; A(g) by h_FF in the scene's order): P(m | g), the speaker and the
   listener summed exactly.

Each row gives the levels, the human's steps left at the cut, |A(g)|, and how often A(g) = A(m).

    python bench/handmethat_level_mix.py [--episodes 600] [--seed 0] [--tries 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from homesim.datasets.handmethat import generate as generation
from homesim.datasets.handmethat.episode import replay
from homesim.datasets.handmethat.files import read_handmethat_file
from homesim.language.handmethat.pragmatics import help_values, pragmatics, request, useful_objects
from homesim.language.handmethat.utterances import objects_of
from homesim.planning.alfred.expert import Unrecoverable
from homesim.planning.handmethat.ff import ff_distance
from homesim.planning.handmethat.human import cut_plan
from homesim.tasks.handmethat.relevance import relevance
from homesim.tasks.handmethat.formula import parse
from homesim.tasks.handmethat.goals import Goal
from homesim.tasks.handmethat.goals import PICK_AND_PLACE
from homesim.tasks.handmethat.levels import level_of

SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "handmethat" / "samples"
PAPER = {"levels": [3.5, 67.6, 24.4, 4.6]}  # their Version 2 dataset, all quest types (supplement)


def figures(rows: list[dict]) -> dict:
    """Rows of (level or level probabilities, steps left, A(g), A(m)) -> the mix and its companions."""
    n = len(rows)
    if not n:
        return {"n": 0}
    levels = [0.0] * 4
    for r in rows:
        for k, p in enumerate(r["levels"]):
            levels[k] += p
    return {
        "n": n,
        "levels": [round(100 * x / n, 1) for x in levels],
        "steps_left": round(statistics.mean(r["left"] for r in rows), 2),
        "useful": round(statistics.mean(len(r["useful"]) for r in rows), 2),
        "one_useful": round(100 * sum(len(r["useful"]) == 1 for r in rows) / n),
        "useful_is_meant": round(100 * sum(set(r["useful"]) == set(r["meant"]) for r in rows) / n),
    }


def row(level: int, left: int, useful, meant) -> dict:
    return {"levels": [float(level == k) for k in (1, 2, 3, 4)], "left": left, "useful": useful, "meant": meant}


def generated(episodes: int, seed: int) -> dict[str, list[dict]]:
    index: dict[str, int] = {}  # goal formula -> its template's index
    original = generation.sample_goal

    def recording(scene, rng):
        goal = original(scene, rng)
        if goal is not None:
            index[goal.formula] = goal.index
        return goal

    generation.sample_goal = recording
    out: dict[str, list[dict]] = {"generated": [], "bring_me": [], "move_to": [], "change_state": []}
    out["bring_me, their 25 templates"] = []
    try:
        for i in track(range(episodes), description="episodes"):
            e, _ = generation.make_episode(seed, i)
            r = row(e.level, len(e.reading.possible_solution) - len(e.human_actions), e.reading.useful_objects,
                    e.objects_in_meaning)  # fmt: skip
            out["generated"].append(r)
            out[e.quest_type].append(r)
            if e.quest_type == "bring_me" and index[e.goal] in PICK_AND_PLACE:
                out["bring_me, their 25 templates"].append(r)
    finally:
        generation.sample_goal = original
    return out


def their_samples(files: list[Path]) -> list[dict]:
    rows = []
    for f in files:
        d = json.loads(f.read_text())
        useful = [tuple(x) for x in d["_useful_objects"]]
        meant = [tuple(x) for x in d["_objects_in_meaning"]]
        rows.append(row(d["level"], len(d["_possible_solution"]) - len(d["action_list"]), useful, meant))
    return rows


def with_their_plans(files: list[Path], tries: int) -> list[dict]:
    rows = []
    for f in files:
        e = read_handmethat_file(f)
        plan = e.reading.possible_solution
        for k in range(tries):
            rng = random.Random(f"{f.name}/{k}")
            cut = cut_plan(plan, e.initial_state, rng)
            if cut is None:
                continue
            state = replay(e.initial_state, plan[:cut])
            relevant = relevance(e.goal, e.initial_state)
            distance = ff_distance(e.goal, state, relevant.candidates(state, rng), rng)
            left = len(plan) - cut
            values = help_values(state, "bring_me", distance, left, relevant)
            useful = useful_objects(values, distance(state))
            asked = request(state, "bring_me", values, useful, left, (), rng)
            if asked is not None:
                rows.append(row(asked.level, left, asked.useful, asked.in_meaning))
    return rows


def on_their_scenes(files: list[Path], tries: int) -> tuple[list[dict], Counter]:
    rows, rejected = [], Counter()
    for f in track(files, description="their scenes"):
        e = read_handmethat_file(f)
        goal = Goal(0, f.name, tuple(str(p) for p in parse(e.goal).parts))
        for k in range(tries):
            rng = random.Random(f"{f.name}/{k}")
            try:
                parts, cut = generation.watched(goal, e.initial_state, rng)
            except Unrecoverable:
                rejected["no plan for the human"] += 1
                continue
            if cut is None:
                rejected["no allowed cut"] += 1
                continue
            plan = tuple(a for _, actions in parts for a in actions)
            state = replay(e.initial_state, plan[:cut])
            left = generation.steps_left(parts, cut)
            found = generation.ask(goal, e.initial_state, state, left, rng, quests=("bring_me",))
            if found is None or found[0] is None:
                rejected["no useful meaning" if found is None else "the help shortens no subgoal"] += 1
                continue
            asked = found[1]
            rows.append(row(asked.level, len(plan) - cut, asked.useful, asked.in_meaning))
    return rows, rejected


def at_their_cut_states(files: list[Path]) -> list[dict]:
    rows = []
    for f in files:
        e, d = read_handmethat_file(f), json.loads(f.read_text())
        state, left = e.start_state, len(d["_possible_solution"]) - len(d["action_list"])
        relevant = relevance(e.goal, e.initial_state)
        distance = ff_distance(e.goal, state, relevant.candidates(state))
        values = help_values(state, "bring_me", distance, left, relevant)
        useful = useful_objects(values, distance(state))
        game = pragmatics(state, "bring_me", values, useful, left)
        sets = [objects_of(state, m) for m in game.meanings]
        said = [objects_of(state, u) for u in game.utterances]
        levels = [0.0] * 4
        for mi, pm in enumerate(game.prior):
            for ui, pu in enumerate(game.speaker[mi]):
                for ri, pr in enumerate(game.listener[:, ui]):
                    if pu and pr:
                        levels[level_of(useful, sets[mi], said[ui], sets[ri]) - 1] += pm * pu * pr
        meant = [tuple(x) for x in d["_objects_in_meaning"]]  # A(g) = A(m) is counted for their meaning
        rows.append({"levels": levels, "left": left, "useful": useful, "meant": meant})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tries", type=int, default=30, help="tries on each of their scenes")
    parser.add_argument("--samples", type=Path, default=SAMPLES)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    files = sorted(args.samples.glob("*.json"))
    result = {name: figures(rows) for name, rows in generated(args.episodes, args.seed).items()}
    scenes, rejected = on_their_scenes(files, args.tries)
    result[f"homesim on their {len(files)} scenes (bring_me)"] = figures(scenes) | {"rejected": dict(rejected)}
    result["the same with their human's plans"] = figures(with_their_plans(files, args.tries))
    result[f"homesim's request at their {len(files)} cut states (expected)"] = figures(at_their_cut_states(files))
    result[f"their {len(files)} samples (bring_me)"] = figures(their_samples(files))
    result["paper, Version 2 (all quests)"] = PAPER
    table = Table(title=f"HandMeThat level mix: {args.episodes} episodes of seed {args.seed}, their samples")
    for column in ("", "n", "level 1/2/3/4 %", "steps left", "|A(g)|", "|A(g)| = 1 %", "A(g) = A(m) %"):
        table.add_column(column, justify="left" if not column else "right")
    for name, f in result.items():
        cells = [f.get(k, "") for k in ("n", "levels", "steps_left", "useful", "one_useful", "useful_is_meant")]
        cells[1] = " / ".join(map(str, cells[1])) if cells[1] else ""
        table.add_row(name, *map(str, cells))
    console = Console(width=150)
    console.print(table)
    console.print(f"tries rejected on their scenes: {dict(rejected)}")
    if args.json:
        args.json.write_text(json.dumps({"episodes": args.episodes, "seed": args.seed, **result}, indent=1))


if __name__ == "__main__":
    main()
