"""HandMeThat pragmatics against the authors' 24 samples: the sets their generator recorded (A(m), A(u),
A(r) from `_meaning`, `utterance`, `_rsa_meaning`), their hardness level, and homesim's RSA listener's
reading of their utterance beside their `_rsa_meaning`.

    python bench/handmethat_rsa_agreement.py [--episodes FOLDER_OF_THEIR_FILES] [--json out.json]

Their files keep A(g) (`_useful_objects`) but not the FF values of the helps, so P(m | g) here values
every useful help alike (mean value -1): the prior then ranks the useful meanings by their cost alone.
The last two columns are end to end: A(g) and the helps' values from h_FF (`planning.handmethat.ff`, over
the goal's relevant things in their initial scene, at the state their human's actions replay to), then
the listener and level.
Their listener *samples* its reading from P(m | u); ours is shown as its most likely reading, with the
probability our listener gives to theirs and our speaker gives to their utterance.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from homesim.datasets.handmethat.files import read_handmethat_file, state_from_object_dict
from homesim.language.handmethat.pragmatics import help_values, pragmatics, useful_objects
from homesim.language.handmethat.utterances import objects_of
from homesim.planning.handmethat.ff import RelaxedTask
from homesim.planning.handmethat.relevance import relevance
from homesim.tasks.handmethat.levels import level_of
from homesim.tasks.handmethat.task import Meaning

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "handmethat" / "samples"
SETS = {"meaning": "_objects_in_meaning", "utterance": "_objects_in_utterance", "rsa": "_objects_in_rsa_meaning"}


def compare(path: Path) -> dict:
    d = json.loads(path.read_text())
    state = state_from_object_dict(path.name, "current_object_dict", d["current_object_dict"])
    fields = (("meaning", "_meaning"), ("utterance", "utterance"), ("rsa", "_rsa_meaning"))
    said = {k: Meaning.from_list(d[f]) for k, f in fields}
    ours = {k: objects_of(state, m) for k, m in said.items()}
    ag = tuple(tuple(x) for x in d["_useful_objects"])
    game = pragmatics(state, "bring_me", dict.fromkeys(ag, -1.0), ag, remaining_steps=10)
    row = {
        "file": path.name,
        "their_level": d["level"],
        "sets_equal": all(set(ours[k]) == {tuple(x) for x in d[f]} for k, f in SETS.items()),
        "level_from_their_sets": level_of(ag, ours["meaning"], ours["utterance"], ours["rsa"]),
    }
    if game is None or said["utterance"] not in game.utterances:
        return row | {"reading": None}
    listened = game.reading_of(said["utterance"])
    reading = game.meanings[int(np.argmax(listened))]
    in_reading = objects_of(state, reading)
    theirs = game.meanings.index(said["rsa"]) if said["rsa"] in game.meanings else None
    meant = game.meanings.index(said["meaning"]) if said["meaning"] in game.meanings else None
    u = game.utterances.index(said["utterance"])
    return row | end_to_end(path, d, said) | {
        "reading": reading.to_list(),
        "reading_equal": reading == said["rsa"],
        "reading_objects_equal": set(in_reading) == set(ours["rsa"]),
        "level_with_our_reading": level_of(ag, ours["meaning"], ours["utterance"], in_reading),
        "p_listener_their_reading": 0.0 if theirs is None else float(listened[theirs]),
        "p_speaker_their_utterance": 0.0 if meant is None else float(game.speaker[meant, u]),
        "meanings": len(game.meanings),
        "utterances": len(game.utterances),
    }


def end_to_end(path: Path, d: dict, said: dict[str, Meaning]) -> dict:
    """A(g) by h_FF, and the level with the listener's reading under those values."""
    episode = read_handmethat_file(path)
    state = episode.start_state  # their file keeps no human: its place comes from replaying its actions
    relevant = relevance(episode.goal, episode.initial_state)
    distance = RelaxedTask(episode.goal, state, relevant.things).h
    remaining = len(d["_possible_solution"]) - len(d["action_list"])
    values = help_values(state, "bring_me", distance, remaining, relevant=relevant.movable_targets)
    now = distance(state)
    ag = useful_objects(values, now)
    game = pragmatics(state, "bring_me", values, ag, remaining)
    level = None
    if game is not None and said["utterance"] in game.utterances:
        reading = game.meanings[int(np.argmax(game.reading_of(said["utterance"])))]
        in_ = {k: objects_of(state, m) for k, m in said.items()}
        level = level_of(ag, in_["meaning"], in_["utterance"], objects_of(state, reading))
    theirs = {tuple(x) for x in d["_useful_objects"]}
    return {
        "h_ff": now,
        "useful_equal": set(ag) == theirs,
        "useful_missing": sorted(theirs - set(ag)),
        "useful_extra": sorted(set(ag) - theirs),
        "level_end_to_end": level,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=Path, default=SHARED)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [compare(p) for p in sorted(args.episodes.glob("*.json"))]
    table = Table(title=f"homesim's pragmatics on their samples: {args.episodes}")
    columns = ("file", "level", "sets =", "level (their sets)", "level (our reading)", "reading =", "A(r) =")
    for column in (*columns, "P_L(theirs)", "P_S(their u)", "A(g) =", "level (end to end)"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(
            r["file"], str(r["their_level"]), str(r["sets_equal"]), str(r["level_from_their_sets"]),
            str(r.get("level_with_our_reading")), str(r.get("reading_equal")), str(r.get("reading_objects_equal")),
            f"{r.get('p_listener_their_reading', 0):.2f}", f"{r.get('p_speaker_their_utterance', 0):.2f}",
            str(r.get("useful_equal")), str(r.get("level_end_to_end")),
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
        "level_end_to_end_equal": sum(r.get("level_end_to_end") == r["their_level"] for r in rows),
    }
    for key, value in summary.items():
        console.print(f"{key}: {value}" + (f" of {n}" if key != "samples" else ""))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "samples": rows}, indent=1))


if __name__ == "__main__":
    main()
