"""`homesim demo` and `homesim rooms`: the built-in defaults, which need no downloaded data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import track
from rich.table import Table

from homesim.cli.alfred import generate_alfred
from homesim.cli.common import OverwriteOption, app, console
from homesim.cli.evaluate import evaluate_command
from homesim.cli.objectnav_generate import generate_objectnav
from homesim.files import write_file


@app.command("rooms")
def rooms(
    seed: Annotated[int, typer.Option(help="seed of the generated rooms and of the random play")] = 0,
    steps: Annotated[int, typer.Option(help="random actions played in each room")] = 2000,
    out: Annotated[Path, typer.Option(help="folder for the scene and state files and summary.json")] = Path(
        "out/rooms"
    ),
) -> None:
    """Generate one procedural room of each ALFRED room type, play random actions in it, save everything.

    No downloaded data needed: this is homesim's built-in default."""
    import random
    import time

    from homesim.scenes.procedural import ROOM_TYPES, generate_room
    from homesim.world.catalog import alfred_catalog
    from homesim.world.dynamics import step
    from homesim.world.random_actions import random_action

    catalog = alfred_catalog()
    out.mkdir(parents=True, exist_ok=True)
    table = Table(title=f"procedural rooms, seed {seed}, {steps} random actions each")
    for column in (
        "room",
        "reachable cells",
        "fixed objects",
        "movable objects",
        "actions succeeded",
        "objects moved",
        "steps/s",
        "final state",
    ):
        table.add_column(column, justify="left" if column == "room" else "right")
    summary = []
    for room_type in track(ROOM_TYPES, description="rooms", console=console):
        scene, start = generate_room(room_type, seed)
        write_file(out / f"{scene.id}.scene.json", json.dumps(scene.to_dict()))
        write_file(out / f"{scene.id}.state.json", json.dumps(start.to_dict()))
        rng, state, succeeded = random.Random(seed), start, 0
        begin = time.perf_counter()
        for _ in range(steps):
            state, event = step(scene, state, random_action(scene, state, catalog, rng), catalog=catalog)
            succeeded += event.success
        rate = steps / (time.perf_counter() - begin)
        moved = sum(o.parent != start.objects[o.id].parent for o in state.objects.values() if o.id in start.objects)
        row = {
            "scene": scene.id,
            "reachable_cells": len(scene.reachable),
            "fixed_objects": len(scene.fixed),
            "movable_objects": len(start.objects) - len(scene.fixed),
            "actions_succeeded": succeeded,
            "objects_moved": moved,
            "final_state_hash": state.stable_hash(),
        }
        summary.append(row)
        table.add_row(room_type, *map(str, list(row.values())[1:-1]), f"{rate:,.0f}", row["final_state_hash"])
    console.print(table)
    write_file(out / "summary.json", json.dumps({"seed": seed, "steps": steps, "rooms": summary}, indent=1))
    console.print(f"scenes, start states and summary.json written to {out}/ (the same seed gives the same files)")


@app.command("demo")
def demo(
    episodes: Annotated[int, typer.Option(min=5, help="demonstrations to generate")] = 70,
    seed: Annotated[int, typer.Option(help="seed of the generated dataset")] = 0,
    out: Annotated[Path, typer.Option(help="folder for the dataset and both evaluations")] = Path("out/demo"),
    overwrite: OverwriteOption = False,
) -> None:
    """The built-in default: generate a small dataset on procedural rooms, then evaluate the expert and
    the random agent on it under ALFRED's protocol; then the same for ObjectNav, in three generated houses.
    No downloaded data needed."""
    generate_alfred(
        episodes=episodes,
        scenes="procedural",
        seed=seed,
        out=out / "dataset",
        overwrite=overwrite,
        workers=1,
        layouts=None,
        trajectories=None,
    )

    def expert_and_random(folder: Path, suite: str, split: str | None) -> None:
        for agent in ("expert", "random"):
            evaluate_command(
                episodes=folder / "dataset",
                agent=agent,
                suite=suite,
                split=split,
                seed=seed,
                out=folder / agent,
                overwrite=overwrite,
            )

    expert_and_random(out, "alfred", None)
    objectnav = out / "objectnav"
    generate_objectnav(houses=3, episodes=4, seed=seed, out=objectnav / "dataset", overwrite=overwrite, workers=1)
    expert_and_random(objectnav, "objectnav", "val")
    data = out / "dataset"
    console.print(
        "\n[bold]What to try next[/]\n"
        f"  homesim play alfred --episodes {data} --split valid_seen        [dim]# play a task yourself, as text[/]\n"
        f"  homesim evaluate --episodes {data} --agent my_package.my_module:MyAgent  [dim]# your agent[/]\n"
        f"  homesim evaluate --episodes {data} --interface text --agent random  [dim]# the ALFWorld-style text game[/]\n"
        f"  homesim render-episode {out / 'expert' / 'records.jsonl'} --record 1 --episodes {data} --out episode.gif\n"
        f"  homesim report {out / 'expert'}                                  [dim]# the tables again, from the records[/]\n"
        f"  homesim evaluate --episodes {objectnav / 'dataset'} --split val --agent frontier  [dim]# ObjectNav's heuristic[/]\n"
        f"  homesim render-episode {objectnav / 'random' / 'records.jsonl'} --episodes {objectnav / 'dataset'} --out map.png\n"
        "  docs/ (mkdocs build): the real ALFRED data, pixels and masks, the Gymnasium envs",
        highlight=False,
    )
