"""HandMeThat pragmatics against the authors' 24 samples: the sets their generator recorded (A(m), A(u),
A(r) from `_meaning`, `utterance`, `_rsa_meaning`), their hardness level, and homesim's RSA listener's
reading of their utterance beside their `_rsa_meaning`.

    python bench/handmethat_rsa_agreement.py [--episodes FOLDER_OF_THEIR_FILES] [--json out.json] [--draws 32]
    python bench/handmethat_rsa_agreement.py --generated 60 [--seed 11]   # homesim's generator as theirs

A(g) end to end: h_FF (`planning.handmethat.ff`, over the goal's relevant things in their initial scene, at
the state their human's actions replay to) values the robot's helps, as their generator does. Their h_FF
depends on the order in which their process's Python sets list the relevant things (`Relevance.candidates`),
which their files do not keep: homesim draws `--draws` orders, takes the most frequent A(g) (`useful_equal`)
and reports how often their A(g) comes up (`p_useful_theirs`, the chance that a run of their generator on
this state gives it); `--draws 0` takes the scene's order instead, once. The level end to end is the most
frequent over the draws of the level from the draw's A(g) and values, homesim's listener's most likely
reading of their utterance and their meaning.

The listener columns read their utterance with P(m | g) over their A(g), each help valued as a draw that
gives their A(g) values it (the most frequent draw when none does). Their listener *samples* its reading
from P(m | u); ours is shown as its most likely reading, with the probability our listener gives to theirs
and our speaker gives to their utterance.

`--generated N`: an unseen check. N episodes of homesim's generator, made as the authors' samples were
(bring_me, their 25 pick-and-place templates) and written in their JSON, stand for their generator's: since
homesim draws its set order and samples its listener's reading as theirs does, the figures on them are what
an exact port reaches on episodes it has never seen.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.datasets.handmethat import generate as generation
from homesim.datasets.handmethat.export import EPISODES_FOLDER, write_handmethat
from homesim.datasets.handmethat.files import read_handmethat_file, state_from_object_dict
from homesim.language.handmethat.pragmatics import help_values, pragmatics, useful_objects
from homesim.language.handmethat.utterances import objects_of
from homesim.planning.handmethat.ff import RelaxedTask
from homesim.tasks.handmethat.relevance import relevance
from homesim.tasks.handmethat.goals import PICK_AND_PLACE
from homesim.tasks.handmethat.levels import level_of
from homesim.tasks.handmethat.task import Meaning

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "handmethat" / "samples"
DRAWS = 32
QUEST = ("bring_me",)
SETS = {"meaning": "_objects_in_meaning", "utterance": "_objects_in_utterance", "rsa": "_objects_in_rsa_meaning"}


def compare(path: Path, draws: int = DRAWS) -> dict:
    d = json.loads(path.read_text())
    state = state_from_object_dict(path.name, "current_object_dict", d["current_object_dict"])
    fields = (("meaning", "_meaning"), ("utterance", "utterance"), ("rsa", "_rsa_meaning"))
    said = {k: Meaning.from_list(d[f]) for k, f in fields}
    ours = {k: objects_of(state, m) for k, m in said.items()}
    ag = tuple(tuple(x) for x in d["_useful_objects"])
    row = {
        "file": path.name,
        "their_level": d["level"],
        "sets_equal": all(set(ours[k]) == {tuple(x) for x in d[f]} for k, f in SETS.items()),
        "level_from_their_sets": level_of(ag, ours["meaning"], ours["utterance"], ours["rsa"]),
    }
    found = end_to_end(path, d, said, draws)
    values = found.pop("values_for_theirs")
    remaining = len(d["_possible_solution"]) - len(d["action_list"])
    game = pragmatics(state, "bring_me", values, ag, remaining)
    if game is None or said["utterance"] not in game.utterances:
        return row | found | {"reading": None}
    listened = game.reading_of(said["utterance"])
    reading = game.meanings[int(np.argmax(listened))]
    in_reading = objects_of(state, reading)
    theirs = game.meanings.index(said["rsa"]) if said["rsa"] in game.meanings else None
    meant = game.meanings.index(said["meaning"]) if said["meaning"] in game.meanings else None
    u = game.utterances.index(said["utterance"])
    return row | found | {
        "reading": reading.to_list(),
        "reading_equal": reading == said["rsa"],
        "reading_objects_equal": set(in_reading) == set(ours["rsa"]),
        "level_with_our_reading": level_of(ag, ours["meaning"], ours["utterance"], in_reading),
        "p_listener_their_reading": 0.0 if theirs is None else float(listened[theirs]),
        "p_speaker_their_utterance": 0.0 if meant is None else float(game.speaker[meant, u]),
        "meanings": len(game.meanings),
        "utterances": len(game.utterances),
    }


def end_to_end(path: Path, d: dict, said: dict[str, Meaning], draws: int) -> dict:
    """A(g) by h_FF under `draws` orders of their sets (the most frequent, and how often theirs comes up),
    and the level with the listener's reading under that A(g) and its values."""
    episode = read_handmethat_file(path)
    state = episode.start_state  # their file keeps no human: its place comes from replaying its actions
    relevant = relevance(episode.goal, episode.initial_state)
    remaining = len(d["_possible_solution"]) - len(d["action_list"])
    theirs = {tuple(x) for x in d["_useful_objects"]}
    found = []
    for rng in [random.Random(f"{path.name}/{k}") for k in range(draws)] or [None]:
        task = RelaxedTask(episode.goal, state, relevant.candidates(state, rng), rng)
        values = help_values(state, "bring_me", task.h, remaining, relevant)
        found.append((useful_objects(values, task.h(state)), task.h(state), values))
    counts = Counter(frozenset(ag) for ag, _, _ in found)
    ag, now, values = next(f for f in found if frozenset(f[0]) == counts.most_common(1)[0][0])
    levels: Counter = Counter()
    known: dict[frozenset, int | None] = {}
    for useful, _, draw_values in found:
        key = frozenset(draw_values.items())
        if key not in known:
            known[key] = _level(state, said, useful, draw_values, remaining)
        levels[known[key]] += 1
    matching = next((f[2] for f in found if set(f[0]) == theirs), values)
    return {
        "h_ff": now,
        "useful_equal": set(ag) == theirs,
        "p_useful_theirs": counts[frozenset(theirs)] / len(found),
        "useful_missing": sorted(theirs - set(ag)),
        "useful_extra": sorted(set(ag) - theirs),
        "level_end_to_end": levels.most_common(1)[0][0],
        "values_for_theirs": matching,
    }


def _level(state, said: dict[str, Meaning], useful, values, remaining: int) -> int | None:
    """The level with this A(g) and these values: our listener's most likely reading of their utterance."""
    game = pragmatics(state, "bring_me", values, useful, remaining)
    if game is None or said["utterance"] not in game.utterances:
        return None
    reading = game.meanings[int(np.argmax(game.reading_of(said["utterance"])))]
    in_ = {k: objects_of(state, m) for k, m in said.items()}
    return level_of(useful, in_["meaning"], in_["utterance"], objects_of(state, reading))


def generated(episodes: int, seed: int, folder: Path) -> Path:
    """Episodes 0.. of the seed as homesim's generator makes them with their samples' settings (bring_me
    only, their generator's default templates), in their JSON, in `folder`."""
    original_goal, original_ask = generation.sample_goal, generation.ask

    def their_templates(scene, rng):
        goal = original_goal(scene, rng)
        return goal if goal is None or goal.index in PICK_AND_PLACE else None

    generation.sample_goal = their_templates
    generation.ask = lambda goal, scene, state, left, rng, quests=(): original_ask(goal, scene, state, left, rng, QUEST)
    try:
        write_handmethat(folder, {"generated": [generation.make_episode(seed, i)[0] for i in range(episodes)]})
    finally:
        generation.sample_goal, generation.ask = original_goal, original_ask
    return folder / EPISODES_FOLDER


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=Path, default=SHARED)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--draws", type=int, default=DRAWS, help="orders of their sets drawn per episode")
    parser.add_argument("--generated", type=int, default=0, help="compare on N of homesim's episodes instead")
    parser.add_argument("--seed", type=int, default=11, help="with --generated: the generator's seed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = generated(args.generated, args.seed, Path(scratch)) if args.generated else args.episodes
        files = sorted(folder.glob("*.json"))
        if not files:
            parser.exit(2, f"{folder}: no episode files (*.json) to compare\n")
        rows = [compare(p, args.draws) for p in files]
    table = Table(title=f"homesim's pragmatics on their samples: {folder}")
    columns = ("file", "level", "sets =", "level (their sets)", "level (our reading)", "reading =", "A(r) =")
    for column in (*columns, "P_L(theirs)", "P_S(their u)", "A(g) =", "P(their A(g))", "level (end to end)"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(
            r["file"], str(r["their_level"]), str(r["sets_equal"]), str(r["level_from_their_sets"]),
            str(r.get("level_with_our_reading")), str(r.get("reading_equal")), str(r.get("reading_objects_equal")),
            f"{r.get('p_listener_their_reading', 0):.2f}", f"{r.get('p_speaker_their_utterance', 0):.2f}",
            str(r.get("useful_equal")), f"{r.get('p_useful_theirs', 0):.2f}", str(r.get("level_end_to_end")),
        )  # fmt: skip
    console = Console(width=190)
    console.print(table)
    n = len(rows)
    summary = {
        "samples": n,
        "sets_equal": sum(r["sets_equal"] for r in rows),
        "level_from_their_sets_equal": sum(r["level_from_their_sets"] == r["their_level"] for r in rows),
        "level_with_our_reading_equal": sum(r.get("level_with_our_reading") == r["their_level"] for r in rows),
        "reading_equal": sum(bool(r.get("reading_equal")) for r in rows),
        "reading_objects_equal": sum(bool(r.get("reading_objects_equal")) for r in rows),
        "useful_equal_end_to_end": sum(bool(r.get("useful_equal")) for r in rows),
        "useful_expected_end_to_end": round(sum(r.get("p_useful_theirs", 0.0) for r in rows), 2),
        "level_end_to_end_equal": sum(r.get("level_end_to_end") == r["their_level"] for r in rows),
        "listener_gives_their_reading_0.05": sum(r.get("p_listener_their_reading", 0.0) >= 0.05 for r in rows),
    }
    for key, value in summary.items():
        console.print(f"{key}: {value}" + (f" of {n}" if key != "samples" else ""))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "samples": rows}, indent=1))


if __name__ == "__main__":
    main()
