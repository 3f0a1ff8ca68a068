"""`homesim alfred ...`, `homesim generate alfred` and `homesim play alfred`: ALFRED's files, its generator and its text game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import track
from rich.table import Table

from homesim.cli.common import (
    MAX_EPISODES,
    BackendOption,
    LayoutsOption,
    OverwriteOption,
    RayAddressOption,
    TrajectoriesOption,
    console,
    floor_plans_of,
    generate_app,
    group,
    output_folder,
    percent,
    play_app,
    play_in_terminal,
    plural,
    progress,
    workers_of,
)
from homesim.files import write_file

alfred_app = group("alfred", "ALFRED: import its scenes and trajectories, replay its expert demonstrations.")


@alfred_app.command("replay")
def alfred_replay(
    trajectories: TrajectoriesOption,
    layouts: LayoutsOption,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the summary (with every failure) here")] = None,
    show_failures: Annotated[int, typer.Option(help="how many failures to list")] = 20,
    workers: Annotated[int, typer.Option(min=1, help="processes; the report does not depend on it")] = 1,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
) -> None:
    """Replay ALFRED's expert low-level actions in homesim and check that each reaches its goal."""
    from homesim.datasets.alfred.replay import replay_path

    def progress(items, total):
        return track(items, total=total, description="replaying", console=console)

    runs_on = workers_of(workers, backend, ray_address, ("homesim.datasets.alfred.replay",))
    report = replay_path(trajectories, layouts, progress, runs_on)
    summary = report.summary()

    table = Table(title=f"ALFRED expert replay: {trajectories}")
    for column in ("task type", "trajectories", "all actions succeeded", "goal satisfied", "goal-condition ratio"):
        table.add_column(column, justify="left" if column == "task type" else "right")
    rows = list(summary["by_task_type"].items()) + [("all", summary)]
    for i, (name, f) in enumerate(rows):
        table.add_row(
            name,
            str(f["total"]),
            percent(f["all_actions_succeeded"], f["total"]),
            percent(f["goal_satisfied"], f["total"]),
            f"{f['goal_condition_ratio']:.4f}",
            end_section=i == len(rows) - 2,  # a rule above the "all" row
        )
    console.print(table)

    sources = Table(title="where the scenes came from (summed over floor plans)")
    sources.add_column("source")
    sources.add_column("count", justify="right")
    for key, n in summary["scene_sources"].items():
        sources.add_row(key.replace("_", " "), str(n))
    console.print(sources)

    for failure in summary["failures"][:show_failures]:
        first = failure["first_failure"]
        why = (
            f"step {first['index']} {first['action']} {first['target'] or ''}: {first['message']}"
            if first
            else "goal not satisfied"
        )
        console.print(f"[yellow]failed[/] {failure['name']}: {why}")
    for error in summary["errors"][:show_failures]:
        console.print(f"[red]malformed[/] {error}")
    if summary["malformed"]:
        console.print(f"[red]{plural(summary['malformed'], 'trajectory')} could not be replayed[/] (see above)")
    if json_out:
        write_file(json_out, json.dumps(summary, indent=1))
        console.print(f"summary written to {json_out}")
    if summary["total"] == 0:
        raise typer.Exit(1)  # nothing could be replayed


@alfred_app.command("frames")
def alfred_frames(
    episodes: Annotated[
        Path,
        typer.Option(
            "--episodes", exists=True, help="ALFRED trajectories (with --layouts) or a homesim ALFRED dataset folder"
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="the frames folder to write (or to complete, after a kill)")],
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (for trajectories)")
    ] = None,
    split: Annotated[str | None, typer.Option(help="only this split of the episodes")] = None,
    size: Annotated[int, typer.Option(min=8, help="frame height and width in pixels")] = 64,
    limit: Annotated[int | None, typer.Option(min=1, help="only the first N episodes")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the summary (with every skip) here")] = None,
    workers: Annotated[int, typer.Option(min=1, help="processes; the folder does not depend on it")] = 1,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
) -> None:
    """Replay expert demonstrations and store, per step, the egocentric frame, the action, its target's mask
    and class, and the sub-goal index: the training data of the learned ALFRED baselines."""
    import time

    from homesim.learning.alfred.frames import extract_frames

    started = time.perf_counter()
    try:
        summary = extract_frames(
            episodes,
            out,
            layouts,
            split,
            size,
            limit,
            workers_of(workers, backend, ray_address, ("homesim.learning.alfred.frames",)),
            lambda items, total: progress(items, total, "rendering shards"),
        )
    except KeyboardInterrupt:
        kept = sum(1 for p in out.glob("shard-*") if p.is_dir() and not p.name.endswith(".tmp"))
        said = f"{out} keeps {plural(kept, 'complete shard')}; the same command renders the rest"
        console.print(f"[yellow]interrupted:[/] {said}")
        raise typer.Exit(130) from None
    seconds = time.perf_counter() - started
    figures = {
        "trajectories": summary.trajectories,
        "steps": summary.steps,
        "skipped": len(summary.skipped),
        "MB on disk": round(summary.bytes / 1e6, 1),
        "seconds": round(seconds, 1),
        "steps/s rendered": round(summary.rendered / seconds, 1) if seconds and summary.rendered else "-",
        "bytes/step": round(summary.bytes / summary.steps) if summary.steps else 0,
    }
    table = Table(title=f"ALFRED frames ({size}x{size}) in {out}")
    for column in figures:
        table.add_column(column, justify="right")
    table.add_row(*map(str, figures.values()))
    console.print(table)
    if summary.resumed_shards and not summary.rendered:
        kept = plural(summary.resumed_shards, "shard")
        console.print(f"already complete: {kept} from an earlier run, nothing rendered")
    elif summary.resumed_shards:
        console.print(f"resumed: {plural(summary.resumed_shards, 'complete shard')} kept from an earlier run")
    for skip in summary.skipped[:10]:
        console.print(f"[yellow]skipped[/] {skip['id']}: {skip['reason']}")
    if summary.skipped:
        console.print(f"{plural(len(summary.skipped), 'episode')} skipped: listed in {out / 'skipped.jsonl'}")
    if json_out:
        details = {**figures, "out": str(out), "size": size, "skipped": summary.skipped}
        write_file(json_out, json.dumps(details, indent=1))
        console.print(f"summary written to {json_out}")
    if summary.trajectories == 0:
        raise typer.Exit(1)  # nothing could be extracted


@alfred_app.command("import-scenes")
def alfred_import_scenes(
    layouts: LayoutsOption,
    out: Annotated[Path, typer.Option("--out", help="folder to write one <FloorPlanN>.json scene file per floor plan")],
    trajectories: Annotated[
        list[Path] | None,
        typer.Option(
            "--trajectories",
            exists=True,
            help="ALFRED trajectories whose paths and objects complete the scenes (repeatable)",
        ),
    ] = None,
    used_only: Annotated[bool, typer.Option(help="only the floor plans the trajectories use")] = False,
) -> None:
    """Rebuild ALFRED's floor plans as homesim scene files, and say what each source gave.

    Every floor plan in --layouts is imported; the trajectories (any split) add the cells their expert
    paths walk and the objects their actions name."""
    from homesim.datasets.alfred.trajectories import read_trajectories
    from homesim.errors import DataError
    from homesim.scenes.alfred import FloorPlanEvidence, build_scene, floor_plans_in, gather_evidence

    good = [t.data for path in trajectories or [] for t in read_trajectories(path) if not isinstance(t, DataError)]
    evidence = gather_evidence(good)
    floor_plans = sorted(evidence) if used_only else floor_plans_in(layouts)
    if not floor_plans:
        console.print(f"[red]no floor plans to import[/]: no FloorPlan*-layout.npy in {layouts}")
        raise typer.Exit(1)
    out.mkdir(parents=True, exist_ok=True)
    table = Table(title=f"{len(floor_plans)} ALFRED floor plans, with evidence from {len(good)} trajectories")
    table.add_column("floor plan")
    skipped = 0
    for floor_plan in track(floor_plans, description="importing", console=console):
        try:
            scene = build_scene(floor_plan, layouts, evidence.get(floor_plan, FloorPlanEvidence()))
        except DataError as error:
            console.print(f"[red]skipped[/] {error}")
            skipped += 1
            continue
        write_file(out / f"{floor_plan}.json", json.dumps(scene.to_dict()))
        if len(table.columns) == 1:
            for key in scene.provenance:
                table.add_column(key.replace("_", " "), justify="right")
        table.add_row(floor_plan, *map(str, scene.provenance.values()))
    console.print(table)
    if skipped:
        console.print(f"[red]{skipped} of {len(floor_plans)} floor plans could not be imported[/] (see above)")
        raise typer.Exit(1)


@generate_app.command("alfred")
def generate_alfred(
    episodes: Annotated[
        int, typer.Option(min=1, max=MAX_EPISODES, help="demonstrations to generate, across the five splits")
    ] = 100,
    scenes: Annotated[
        str, typer.Option(help="procedural (built-in rooms) or alfred (ALFRED's floor plans)")
    ] = "procedural",
    seed: Annotated[int, typer.Option(help="the same seed gives the same bytes")] = 0,
    out: Annotated[Path, typer.Option(help="dataset folder to write")] = Path("out/dataset"),
    overwrite: OverwriteOption = False,
    workers: Annotated[int, typer.Option(min=1, help="processes; the output does not depend on it")] = 1,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (--scenes alfred)")
    ] = None,
    trajectories: Annotated[
        list[Path] | None,
        typer.Option(exists=True, help="ALFRED trajectories completing the floor plans (--scenes alfred; repeatable)"),
    ] = None,
) -> None:
    """Generate ALFRED-style tasks with expert demonstrations and language directives into a dataset folder."""
    from homesim import __version__
    from homesim.datasets.alfred.generate import alfred_places, generate, procedural_places, split_counts
    from homesim.datasets.folder import write_dataset
    from homesim.files import check_output
    from homesim.language.alfred.directives import annotate
    from homesim.world.catalog import alfred_catalog

    if scenes not in ("procedural", "alfred"):
        raise typer.BadParameter("use procedural or alfred", param_hint="--scenes")
    if scenes == "alfred" and layouts is None:
        raise typer.BadParameter("--scenes alfred needs --layouts", param_hint="--layouts")
    check_output(out, "dataset", overwrite)
    runs_on = workers_of(workers, backend, ray_address, ("homesim.datasets.alfred.generate",))
    if scenes == "procedural":
        places = procedural_places(split_counts(episodes), seed)
    else:
        places = alfred_places(*_alfred_floor_plans(layouts, trajectories or []), alfred_catalog())

    source = {"generator": f"homesim {__version__}", "scenes": scenes, "seed": seed, "episodes": episodes}
    settings = source | {"layouts": str(layouts), "trajectories": [str(t) for t in trajectories or []]}
    with output_folder(out, "dataset", settings, overwrite) as (work, journal):
        splits, problems = generate(places, episodes, seed, annotate, runs_on, progress, journal)
        all_scenes = {p.scene.id: p.scene for pool in places.values() for p in pool}
        write_dataset(work, splits, all_scenes, source)
    table = Table(title=f"generated {plural(sum(map(len, splits.values())), 'demonstration')} into {out}")
    for column in ("split", "episodes", "annotations", "scenes", "mean expert length"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, made in splits.items():
        mean = sum(len(e.expert_actions) for e in made) / len(made)
        annotations = sum(len(e.annotations) for e in made)
        table.add_row(split, str(len(made)), str(annotations), str(len({e.scene_id for e in made})), f"{mean:.1f}")
    console.print(table)
    console.print(
        "annotations: each episode's directives written several ways, as ALFRED's annotators did;"
        " an evaluation plays each annotation as one episode"
    )
    if problems:
        console.print(f"{plural(len(problems), 'sampled task')} rejected and replaced (the first: {problems[0]})")


def _alfred_floor_plans(layouts: Path, trajectories: list[Path]) -> tuple[dict, dict]:
    """All ALFRED floor plans (completed by the trajectories given) and the object classes of each."""
    from homesim.datasets.alfred.trajectories import read_trajectories
    from homesim.errors import DataError
    from homesim.scenes.alfred import FloorPlanEvidence, build_scene, gather_evidence, load_layout

    names = floor_plans_of(layouts)
    good = [t.data for path in trajectories for t in read_trajectories(path) if not isinstance(t, DataError)]
    evidence = gather_evidence(good)
    scenes, classes = {}, {}
    for floor_plan in names:
        scenes[floor_plan] = build_scene(floor_plan, layouts, evidence.get(floor_plan, FloorPlanEvidence()))
        classes[floor_plan] = load_layout(layouts, floor_plan)[1]
    return scenes, classes


@play_app.command("alfred")
def play_alfred(
    interface: Annotated[str, typer.Option(help="text (ALFWorld-style commands)")] = "text",
    episodes: Annotated[
        Path | None,
        typer.Option(
            "--episodes",
            exists=True,
            help="a homesim dataset folder, or ALFRED trajectories (with --layouts); default: the built-in episodes",
        ),
    ] = None,
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (for trajectories)")
    ] = None,
    split: Annotated[str | None, typer.Option(help="the dataset split to play")] = None,
    episode: Annotated[int, typer.Option(help="which episode of the split (0 is the first)")] = 0,
    alfworld_version: Annotated[
        str, typer.Option(help="ALFWorld's wording: 0.4 (move X to Y) or 0.3 (put X in/on Y)")
    ] = "0.4",
) -> None:
    """Play an ALFRED task through the text interface: type commands (`help` lists them), `quit` to stop."""
    from homesim.envs.alfred.text import AlfredTextEnv

    if interface != "text":
        raise typer.BadParameter("only the text interface can be played in a terminal", param_hint="--interface")
    env = AlfredTextEnv(episodes, split=split, layouts=layouts, alfworld_version=alfworld_version)
    info = play_in_terminal(env, episode)
    verdict = "[bold green]You won![/]" if info["won"] else "[bold red]Task not done.[/]"
    console.print(
        f"{verdict} {plural(info['commands'], 'command')}, {plural(info['low_level_steps'], 'low-level step')}"
    )
