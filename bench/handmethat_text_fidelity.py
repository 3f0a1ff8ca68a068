"""HandMeThat text fidelity: the authors' expert demonstrations (`demo_actions`) played in
`homesim/HandMeThat-v0`, and the game's history after each step (`env.history()`, the paper's model input)
compared with what their env printed for the same steps (`demo_observations_partially` / `_fully`).

    python bench/handmethat_text_fidelity.py [--episodes FOLDER_OF_THEIR_FILES] [--json out.json]

Prints, per setting, the steps compared, the share equal to the character and the share equal up to
whitespace, and the first difference of each step that is not equal.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.handmethat.files import read_handmethat_file
from homesim.envs.handmethat import HandMeThatEnv

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "handmethat" / "samples"
FIELDS = {"partial": "demo_observations_partially", "full": "demo_observations_fully"}


def first_difference(ours: str, theirs: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    return f"at character {at}: ours {ours[at - 40 : at + 40]!r}, theirs {theirs[at - 40 : at + 40]!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=Path, default=SHARED)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    console = Console(width=120)
    files = sorted(args.episodes.glob("*.json"))
    figures, differences = {}, []
    for observability, field in FIELDS.items():
        steps = exact = spaced = 0
        for file in files:
            episode, printed = read_handmethat_file(file), json.loads(file.read_text())[field]
            env = HandMeThatEnv([episode], observability=observability)
            env.reset(options={"episode": 0})
            ours = [env.history()]
            for command in episode.demo_actions[: len(printed) - 1]:
                env.step(command)
                ours.append(env.history())
            for k, (mine, theirs) in enumerate(zip(ours, printed)):
                steps += 1
                exact += mine == theirs
                spaced += mine.split() == theirs.split()
                if mine != theirs:
                    differences.append(f"{observability} {file.name} step {k}: {first_difference(mine, theirs)}")
        figures[observability] = {"episodes": len(files), "steps": steps, "exact": exact, "up_to_whitespace": spaced}
    table = Table(title=f"their demonstrations replayed in HandMeThat-v0: {args.episodes}")
    for column in ("observability", "episodes", "steps", "equal", "equal up to whitespace"):
        table.add_column(column, justify="right")
    for observability, f in figures.items():
        counts = (f["exact"], f["up_to_whitespace"])
        shares = [f"{n} ({100 * n / f['steps']:.1f}%)" if f["steps"] else "-" for n in counts]
        table.add_row(observability, str(f["episodes"]), str(f["steps"]), *shares)
    console.print(table)
    for difference in differences:
        console.print(difference, markup=False, highlight=False)
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "differences": differences}, indent=1))


if __name__ == "__main__":
    main()
