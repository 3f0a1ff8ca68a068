"""`homesim generate handmethat`: seeded HandMeThat episodes as a dataset folder, or as the authors' files
(their JSON, file names and index, with the observations along each expert demonstration)."""

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
    generate_app,
    output_folder,
    plural,
    progress,
    workers_of,
)

FORMATS = {"homesim": "dataset", "handmethat": "HandMeThat files"}  # --format: the kind of output folder it makes


@generate_app.command("handmethat")
def generate_handmethat(
    episodes: Annotated[
        int, typer.Option(min=1, max=MAX_EPISODES, help="episodes in all; split 90/5/5 within level and quest")
    ] = 100,
    seed: Annotated[int, typer.Option(help="the same seed gives the same bytes")] = 0,
    out: Annotated[Path, typer.Option(help="folder to write")] = Path("out/handmethat"),
    overwrite: OverwriteOption = False,
    format: Annotated[
        str, typer.Option(help="homesim (a dataset folder) or handmethat (their files and HandMeThat_data_info.json)")
    ] = "homesim",
    workers: Annotated[int, typer.Option(min=1, help="processes; the output does not depend on it")] = 1,
    balance_levels: Annotated[
        int,
        typer.Option(
            min=0, help="N > 0: a test split of N episodes of each level, made after the others (split 90/5 then)"
        ),
    ] = 0,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
) -> None:
    """Generate HandMeThat episodes: sampled scenes, hidden goals, the human's plan and cut, RSA requests."""
    if format not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    from homesim.files import check_output, write_json

    check_output(out, FORMATS[format], overwrite)
    runs_on = workers_of(workers, backend, ray_address, ("homesim.datasets.handmethat.generate",))  # start meanwhile
    from homesim import __version__
    from homesim.datasets.folder import write_dataset
    from homesim.datasets.handmethat.export import write_handmethat
    from homesim.datasets.handmethat.generate import SPLITS, generate

    source = {"generator": f"homesim {__version__}", "episodes": episodes, "seed": seed}
    source |= {"balance_levels": balance_levels} if balance_levels else {}
    with output_folder(out, FORMATS[format], source | {"format": format}, overwrite) as (work, journal):
        splits, rejected = generate(episodes, seed, runs_on, progress, balance_levels, journal)
        if format == "handmethat":
            write_handmethat(work, splits, demo_observations)
        else:
            write_dataset(work, splits, {}, source, suite="handmethat")
        summary = {s: len(e) for s, e in splits.items()} | {"rejected": dict(rejected)}
        summary |= {"balance_levels": balance_levels} if balance_levels else {}
        write_json(work / "generation.json", summary)
    table = Table(title=f"generated {plural(sum(map(len, splits.values())), 'episode')} into {out} ({format})")
    for column in ("split", "episodes", "level 1", "level 2", "level 3", "level 4", "bring_me", "move_to",
                   "change_state", "mean human steps"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, made in splits.items():
        levels, quests = Counter(e.level for e in made), Counter(e.quest_type for e in made)
        steps = sum(len(e.human_actions) for e in made) / len(made) if made else 0.0
        table.add_row(
            split,
            str(len(made)),
            *(str(levels[k]) for k in (1, 2, 3, 4)),
            *(str(quests[q]) for q in ("bring_me", "move_to", "change_state")),
            f"{steps:.1f}",
        )
    console.print(table)
    for name, share in SPLITS.items():
        if len(splits[name]) < round(share * episodes):
            console.print(
                f"[yellow]{name}: {plural(len(splits[name]), 'episode')}, fewer than {share:.0%} of {episodes}:[/]"
                " the shares are drawn within each level and quest type, so small groups round down"
                + (" (every split gets one at least)" if episodes >= len(SPLITS) else f" ({name} stays empty)")
            )
    if rejected:
        console.print("rejected samples: " + ", ".join(f"{reason}: {n}" for reason, n in rejected.most_common()))


def demo_observations(episode) -> tuple[list[str], list[str]]:
    """What their recorder keeps along the expert demonstration, partially and fully observable: the game's
    history (obs_0 [SEP] a_0 [SEP] obs_1 ...) before each of the demonstration's commands."""
    from homesim.envs.handmethat import HandMeThatEnv

    recorded = []
    for observability in ("partial", "full"):
        env = HandMeThatEnv([episode], observability)
        env.reset(options={"episode": 0})
        histories = [env.history()]
        for command in episode.demo_actions[:-1]:
            env.step(command)
            histories.append(env.history())
        recorded.append(histories)
    return recorded[0], recorded[1]
