"""`homesim generate objectnav` (seeded houses and ObjectNav episodes, as a dataset folder or in habitat's
layout) and `homesim objectnav import-habitat` (habitat's layout to a dataset folder)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from homesim.cli.common import (
    MAX_EPISODES,
    BackendOption,
    OverwriteOption,
    RayAddressOption,
    console,
    floor_plans_of,
    generate_app,
    group,
    output_folder,
    plural,
    progress,
    workers_of,
)

FORMATS = {"homesim": "dataset", "habitat": "habitat dataset"}  # --format: the kind of output folder it makes
MAX_HOUSES = 100_000
objectnav_app = group("objectnav", "ObjectNav: convert episode datasets.")


@generate_app.command("objectnav")
def generate_objectnav(
    houses: Annotated[
        int,
        typer.Option(min=3, max=MAX_HOUSES, help="houses; val and test get 15% each (at least one), unseen in train"),
    ] = 10,
    episodes: Annotated[
        int, typer.Option(min=1, max=MAX_EPISODES, help="episodes per split, spread evenly over its houses")
    ] = 100,
    seed: Annotated[int, typer.Option(help="the same seed gives the same bytes")] = 0,
    out: Annotated[Path, typer.Option(help="folder to write")] = Path("out/objectnav"),
    overwrite: OverwriteOption = False,
    scenes: Annotated[
        str, typer.Option(help="houses (generated) or alfred (ALFRED's floor plans, one room each)")
    ] = "houses",
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (--scenes alfred)")
    ] = None,
    format: Annotated[
        str, typer.Option(help="homesim (a dataset folder) or habitat (ObjectNav-v1 json.gz, in habitat's frame)")
    ] = "homesim",
    categories: Annotated[
        str,
        typer.Option(help="--format habitat's category ids: homesim (its 12), hm3d (HM3D's 6) or mp3d (MP3D's 21)"),
    ] = "homesim",
    workers: Annotated[int, typer.Option(min=1, help="processes; the output does not depend on it")] = 1,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
) -> None:
    """Generate ObjectNav episodes in seeded multi-room houses, with the working group's filters."""
    if format not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    if scenes not in ("houses", "alfred"):
        raise typer.BadParameter("use houses or alfred", param_hint="--scenes")
    if scenes == "alfred" and layouts is None:
        raise typer.BadParameter("--scenes alfred needs --layouts", param_hint="--layouts")
    from homesim.datasets.objectnav.habitat import CATEGORY_TABLES, write_habitat
    from homesim.files import check_output

    if categories not in CATEGORY_TABLES:
        raise typer.BadParameter(f"use one of {', '.join(CATEGORY_TABLES)}", param_hint="--categories")
    if categories != "homesim" and format != "habitat":
        raise typer.BadParameter(
            "category tables are habitat's: use it with --format habitat", param_hint="--categories"
        )
    check_output(out, FORMATS[format], overwrite)
    runs_on = workers_of(workers, backend, ray_address, ("homesim.datasets.objectnav.generate",))  # start meanwhile
    from homesim import __version__
    from homesim.datasets.folder import write_dataset
    from homesim.datasets.objectnav.generate import TRIES_PER_EPISODE, generate
    from homesim.files import write_json

    places = ()
    if scenes == "alfred":
        places = _floor_plans(layouts, seed)
        houses = min(houses, len(places))

    source = {"generator": f"homesim {__version__}", "scenes": scenes, "houses": houses, "seed": seed}
    settings = source | {"episodes": episodes, "format": format, "layouts": str(layouts), "categories": categories}
    with output_folder(out, FORMATS[format], settings, overwrite) as (work, journal):
        splits, used, rejected = generate(houses, episodes, seed, runs_on, progress, places, journal)
        generated = {s: len(e) for s, e in splits.items()}  # before a category table leaves any out
        if format == "habitat":
            left_out = write_habitat(work, splits, used, categories)
            if left_out:
                counts = ", ".join(f"{c}: {n}" for c, n in sorted(left_out.items()))
                console.print(
                    f"left out {plural(left_out.total(), 'episode')} whose category {categories} lacks ({counts})"
                )
                splits = {s: [e for e in es if e.object_category not in left_out] for s, es in splits.items()}
        else:
            write_dataset(work, splits, used, source | {"episodes": episodes}, suite="objectnav")
        summary = {s: len(e) for s, e in splits.items()} | {"rejected": dict(rejected)}
        write_json(work / "generation.json", summary)
    table = Table(title=f"generated {plural(sum(map(len, splits.values())), 'episode')} into {out} ({format})")
    for column in ("split", "episodes", "scenes", "easy", "medium", "hard", "mean geodesic (m)", "categories"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, made in splits.items():
        bins = Counter(e.difficulty for e in made)
        mean = sum(e.geodesic_distance for e in made) / len(made) if made else 0.0
        table.add_row(
            split,
            str(len(made)),
            str(len({e.scene_id for e in made})),
            *(str(bins[b]) for b in ("easy", "medium", "hard")),
            f"{mean:.2f}",
            str(len({e.object_category for e in made})),
        )
    console.print(table)
    for split, count in generated.items():
        if count < episodes:
            console.print(
                f"[yellow]{split}: {count} of the {episodes} episodes asked for:[/] some of its scenes gave fewer"
                f" in {TRIES_PER_EPISODE} tries an episode that pass the filters (the rejections below say why)"
            )
    if rejected:
        console.print("rejected samples: " + ", ".join(f"{reason}: {n}" for reason, n in rejected.most_common()))


def _floor_plans(layouts: Path, seed: int) -> list:
    """ALFRED's floor plans as scenes, in an order shuffled by the seed (the first ones go to train)."""
    import random

    from homesim.scenes.alfred import FloorPlanEvidence, build_scene

    names = sorted(floor_plans_of(layouts))
    random.Random(f"objectnav-floor-plans/{seed}").shuffle(names)
    return [build_scene(name, layouts, FloorPlanEvidence()) for name in names]


@objectnav_app.command("import-habitat")
def import_habitat(
    habitat: Annotated[Path, typer.Option(exists=True, file_okay=False, help="a habitat-layout ObjectNav folder")],
    out: Annotated[Path, typer.Option(help="dataset folder to write")] = Path("out/objectnav-imported"),
    overwrite: OverwriteOption = False,
) -> None:
    """Read a habitat ObjectNav-v1 folder for homesim's scenes (as `generate objectnav --format habitat` writes
    it, or habitat's own files: any start pose, snapped to homesim's lattice and said so) into a dataset folder."""
    from homesim.datasets.folder import write_dataset
    from homesim.datasets.objectnav.habitat import read_habitat
    from homesim.files import check_output

    check_output(out, "dataset", overwrite)
    read = read_habitat(habitat)
    source = {"imported_from": str(habitat), "format": "habitat", "changes": read.notes()}
    with output_folder(out, "dataset", source, overwrite) as (work, _):
        write_dataset(work, read.splits, read.scenes, source, suite="objectnav")
    for note in read.notes():
        console.print(note)
    splits = read.splits
    counts = ", ".join(f"{split}: {len(episodes)}" for split, episodes in splits.items())
    console.print(f"imported {plural(sum(map(len, splits.values())), 'episode')} ({counts}) into {out}")
