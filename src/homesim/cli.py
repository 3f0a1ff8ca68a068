"""The `homesim` command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import track
from rich.table import Table

from homesim.render.command import render_episode

app = typer.Typer(
    help="homesim: a fast, headless household simulator for instruction-following agents.", no_args_is_help=True
)
alfred_app = typer.Typer(
    help="ALFRED: import its scenes and trajectories, replay its expert demonstrations.", no_args_is_help=True
)
app.add_typer(alfred_app, name="alfred")
app.command("render-episode")(render_episode)
console = Console(width=None if sys.stdout.isatty() else 150)  # piped output: wide tables, no wrapping

TrajectoriesOption = Annotated[
    Path,
    typer.Option(
        "--trajectories", exists=True, help="ALFRED trajectories: a json_2.1.0 tree, a traj_data.json, or a .jsonl[.gz]"
    ),
]
LayoutsOption = Annotated[
    Path,
    typer.Option(
        "--layouts",
        exists=True,
        file_okay=False,
        help="folder of ALFRED's FloorPlanN-{layout.npy,objects.json,openable.json}",
    ),
]


def _percent(n: int, total: int) -> str:
    return f"{n} ({100 * n / total:.1f}%)" if total else "0"


@alfred_app.command("replay")
def alfred_replay(
    trajectories: TrajectoriesOption,
    layouts: LayoutsOption,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the summary (with every failure) here")] = None,
    show_failures: Annotated[int, typer.Option(help="how many failures to list")] = 20,
) -> None:
    """Replay ALFRED's expert low-level actions in homesim and check that each reaches its goal."""
    from homesim.datasets.alfred_replay import replay_path

    report = replay_path(
        trajectories, layouts, progress=lambda items: track(items, description="replaying", console=console)
    )
    summary = report.summary()

    table = Table(title=f"ALFRED expert replay: {trajectories}")
    for column in ("task type", "trajectories", "all actions succeeded", "goal satisfied", "goal-condition ratio"):
        table.add_column(column, justify="left" if column == "task type" else "right")
    rows = list(summary["by_task_type"].items()) + [("all", summary)]
    for i, (name, f) in enumerate(rows):
        table.add_row(
            name,
            str(f["total"]),
            _percent(f["all_actions_succeeded"], f["total"]),
            _percent(f["goal_satisfied"], f["total"]),
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
        console.print(f"[red]{summary['malformed']} trajectories could not be replayed[/] (see above)")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(summary, indent=1))
        console.print(f"summary written to {json_out}")


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
    from homesim.datasets.alfred_files import read_trajectories
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
        (out / f"{floor_plan}.json").write_text(json.dumps(scene.to_dict()))
        if len(table.columns) == 1:
            for key in scene.provenance:
                table.add_column(key.replace("_", " "), justify="right")
        table.add_row(floor_plan, *map(str, scene.provenance.values()))
    console.print(table)
    if skipped:
        console.print(f"[red]{skipped} of {len(floor_plans)} floor plans could not be imported[/] (see above)")
        raise typer.Exit(1)


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
        (out / f"{scene.id}.scene.json").write_text(json.dumps(scene.to_dict()))
        (out / f"{scene.id}.state.json").write_text(json.dumps(start.to_dict()))
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
    (out / "summary.json").write_text(json.dumps({"seed": seed, "steps": steps, "rooms": summary}, indent=1))
    console.print(f"scenes, start states and summary.json written to {out}/ (the same seed gives the same files)")


@app.command("evaluate")
def evaluate_command(
    episodes: Annotated[
        Path | None,
        typer.Option(
            "--episodes",
            exists=True,
            help="a homesim dataset folder, or ALFRED trajectories (json_2.1.0 tree or .jsonl[.gz], with --layouts);"
            " default: the built-in procedural episodes",
        ),
    ] = None,
    agent: Annotated[str, typer.Option(help="random, expert, or module.path:ClassName")] = "expert",
    suite: Annotated[str, typer.Option(help="benchmark suite")] = "alfred",
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (for trajectories)")
    ] = None,
    split: Annotated[str | None, typer.Option(help="evaluate only this split")] = None,
    subgoals: Annotated[bool, typer.Option("--subgoals", help="sub-goal evaluation (ALFRED's Table 4)")] = False,
    observation_filter: Annotated[
        str, typer.Option("--ablation", help="none, no_language, no_vision, goal_only, instructions_only")
    ] = "none",
    workers: Annotated[int, typer.Option(min=1, help="processes; results are identical for any number")] = 1,
    seed: Annotated[int, typer.Option(help="the agent's seed")] = 0,
    out: Annotated[Path, typer.Option(help="folder for run.json, records.jsonl and summary.json")] = Path("out/eval"),
    interaction: Annotated[str, typer.Option(help="oracle (object ids) or mask (300x300 pixel masks)")] = "oracle",
    pixels: Annotated[str, typer.Option(help="images agents see, comma-separated: rgb,depth,segmentation")] = "",
    interface: Annotated[
        str, typer.Option(help="embodied (ALFRED's actions) or text (ALFWorld-style commands, homesim/ALFRED-Text-v0)")
    ] = "embodied",
) -> None:
    """Evaluate an agent under ALFRED's protocol and print the paper's tables."""
    from homesim.agents.protocol import OBSERVATION_FILTERS
    from homesim.agents.registry import load_agent
    from homesim.datasets.alfred_episodes import import_alfred
    from homesim.datasets.builtin import builtin_episodes
    from homesim.datasets.folder import is_dataset, read_dataset
    from homesim.errors import DataError
    from homesim.evaluation.evaluate import EvaluationConfig, evaluate
    from homesim.evaluation.report import splits_table, subgoals_table

    if suite != "alfred":
        raise typer.BadParameter(f"suite {suite!r} is not available yet; available: alfred", param_hint="--suite")
    if observation_filter not in OBSERVATION_FILTERS:
        raise typer.BadParameter(f"unknown ablation; known: {', '.join(OBSERVATION_FILTERS)}", param_hint="--ablation")
    try:
        load_agent(agent)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--agent") from e
    try:
        if episodes is None:
            built, scenes = builtin_episodes()
            splits = {"builtin": built}
        elif is_dataset(episodes):
            splits, scenes = read_dataset(episodes, split)
        elif layouts is None:
            raise typer.BadParameter("ALFRED trajectories need --layouts", param_hint="--layouts")
        else:
            splits, scenes, errors = import_alfred(episodes, layouts, split)
            for error in errors:
                console.print(f"[red]skipped[/] {error}")
    except DataError as e:
        console.print(f"[red]cannot read the episodes:[/] {e}")
        raise typer.Exit(1) from e
    if not any(splits.values()):
        console.print(f"[red]no episodes to evaluate[/] in {episodes}" + (f" (split {split})" if split else ""))
        raise typer.Exit(1)
    images = tuple(p for p in pixels.split(",") if p)
    if interaction not in ("oracle", "mask") or set(images) - {"rgb", "depth", "segmentation"}:
        raise typer.BadParameter("--interaction is oracle or mask; --pixels some of rgb,depth,segmentation")
    try:
        config = EvaluationConfig(
            agent=agent,
            seed=seed,
            observation_filter=observation_filter,
            subgoals=subgoals,
            interaction=interaction,
            pixels=images,
            interface=interface,
        )
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--interface") from e

    def progress(items, total):
        return track(items, total=total, description=f"evaluating {agent}", console=console)

    summary = evaluate(splits, scenes, config, out, workers=workers, progress=progress)
    console.print(
        subgoals_table(summary)
        if subgoals
        else splits_table(summary, f"{agent} ({interface}) on {episodes or 'built-in episodes'}")
    )
    console.print(f"records and summary written to {out}/")


@app.command("report")
def report_command(
    out: Annotated[Path, typer.Argument(exists=True, file_okay=False, help="an evaluation's output folder")],
) -> None:
    """Recompute an evaluation's summary from its records, print it, and check it against summary.json."""
    from homesim.errors import DataError
    from homesim.evaluation.evaluate import read_run, summary_of
    from homesim.evaluation.records import read_records
    from homesim.evaluation.report import splits_table, subgoals_table

    try:
        config, records = read_run(out), read_records(out / "records.jsonl")
    except (OSError, DataError, TypeError, ValueError) as e:
        console.print(f"[red]cannot read the evaluation in {out}:[/] {e}")
        raise typer.Exit(1) from e
    summary = summary_of(records, config)
    console.print(subgoals_table(summary) if config.subgoals else splits_table(summary, f"{config.agent}: {out}"))
    written = out / "summary.json"
    if written.exists():
        same = json.loads(written.read_text()) == json.loads(json.dumps(summary))
        console.print("summary.json matches the records" if same else "[red]summary.json differs from the records[/]")
        if not same:
            raise typer.Exit(1)


generate_app = typer.Typer(
    help="Generate datasets: new tasks with expert demonstrations and directives.", no_args_is_help=True
)
app.add_typer(generate_app, name="generate")


@generate_app.command("alfred")
def generate_alfred(
    episodes: Annotated[int, typer.Option(min=1, help="demonstrations to generate, across the five splits")] = 100,
    scenes: Annotated[
        str, typer.Option(help="procedural (built-in rooms) or alfred (ALFRED's floor plans)")
    ] = "procedural",
    seed: Annotated[int, typer.Option(help="the same seed gives the same bytes")] = 0,
    out: Annotated[Path, typer.Option(help="dataset folder to write")] = Path("out/dataset"),
    workers: Annotated[int, typer.Option(min=1, help="processes; the output does not depend on it")] = 1,
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
    from homesim.datasets.alfred_generate import alfred_places, generate, procedural_places, split_counts
    from homesim.datasets.folder import write_dataset
    from homesim.language.alfred import annotate
    from homesim.world.catalog import alfred_catalog

    if scenes == "procedural":
        places = procedural_places(split_counts(episodes), seed)
    elif scenes == "alfred":
        if layouts is None:
            raise typer.BadParameter("--scenes alfred needs --layouts", param_hint="--layouts")
        places = alfred_places(*_alfred_floor_plans(layouts, trajectories or []), alfred_catalog())
    else:
        raise typer.BadParameter("use procedural or alfred", param_hint="--scenes")

    def progress(items, total):
        return track(items, total=total, description="generating", console=console)

    splits, problems = generate(places, episodes, seed, annotate, workers, progress)
    all_scenes = {p.scene.id: p.scene for pool in places.values() for p in pool}
    source = {"generator": f"homesim {__version__}", "scenes": scenes, "seed": seed, "episodes": episodes}
    write_dataset(out, splits, all_scenes, source)
    table = Table(title=f"generated {sum(map(len, splits.values()))} demonstrations into {out}")
    for column in ("split", "episodes", "scenes", "mean expert length"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, made in splits.items():
        mean = sum(len(e.expert_actions) for e in made) / len(made)
        table.add_row(split, str(len(made)), str(len({e.scene_id for e in made})), f"{mean:.1f}")
    console.print(table)
    if problems:
        console.print(f"{len(problems)} sampled tasks were replaced (first: {problems[0]})")


def _alfred_floor_plans(layouts: Path, trajectories: list[Path]) -> tuple[dict, dict]:
    """All ALFRED floor plans (completed by the trajectories given) and the object classes of each."""
    from homesim.datasets.alfred_files import read_trajectories
    from homesim.errors import DataError
    from homesim.scenes.alfred import FloorPlanEvidence, build_scene, floor_plans_in, gather_evidence, load_layout

    good = [t.data for path in trajectories for t in read_trajectories(path) if not isinstance(t, DataError)]
    evidence = gather_evidence(good)
    scenes, classes = {}, {}
    for floor_plan in floor_plans_in(layouts):
        scenes[floor_plan] = build_scene(floor_plan, layouts, evidence.get(floor_plan, FloorPlanEvidence()))
        classes[floor_plan] = load_layout(layouts, floor_plan)[1]
    return scenes, classes


@app.command("demo")
def demo(
    episodes: Annotated[int, typer.Option(min=5, help="demonstrations to generate")] = 70,
    seed: Annotated[int, typer.Option(help="seed of the generated dataset")] = 0,
    out: Annotated[Path, typer.Option(help="folder for the dataset and both evaluations")] = Path("out/demo"),
) -> None:
    """The built-in default: generate a small dataset on procedural rooms, then evaluate the expert and
    the random agent on it under ALFRED's protocol. No downloaded data needed."""
    generate_alfred(
        episodes=episodes,
        scenes="procedural",
        seed=seed,
        out=out / "dataset",
        workers=1,
        layouts=None,
        trajectories=None,
    )
    for agent in ("expert", "random"):
        evaluate_command(
            episodes=out / "dataset",
            agent=agent,
            suite="alfred",
            layouts=None,
            split=None,
            subgoals=False,
            observation_filter="none",
            workers=1,
            seed=seed,
            out=out / agent,
            interaction="oracle",
            pixels="",
        )


play_app = typer.Typer(help="Play a benchmark yourself in the terminal (a human baseline).", no_args_is_help=True)
app.add_typer(play_app, name="play")


@play_app.command("alfred")
def play_alfred(
    interface: Annotated[str, typer.Option(help="text (ALFWorld-style commands)")] = "text",
    episodes: Annotated[
        Path | None,
        typer.Option("--episodes", exists=True, help="a homesim dataset folder; default: built-in episodes"),
    ] = None,
    split: Annotated[str | None, typer.Option(help="the dataset split to play")] = None,
    episode: Annotated[int, typer.Option(help="which episode of the split")] = 0,
) -> None:
    """Play an ALFRED task through the text interface: type commands (`help` lists them), `quit` to stop."""
    from homesim.datasets.builtin import builtin_episodes
    from homesim.datasets.folder import read_dataset
    from homesim.envs.alfred_text import AlfredTextEnv

    if interface != "text":
        raise typer.BadParameter("only the text interface can be played in a terminal", param_hint="--interface")
    if episodes is None:
        chosen, scenes = builtin_episodes()
    else:
        splits, scenes = read_dataset(episodes, split)
        chosen = [e for es in splits.values() for e in es]
    if not 0 <= episode < len(chosen):
        raise typer.BadParameter(f"there are {len(chosen)} episodes", param_hint="--episode")
    env = AlfredTextEnv(chosen, scenes)
    observation, info = env.reset(options={"episode": episode})
    console.print(observation)
    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    while True:
        try:
            command = input("> " if interactive else "")
        except EOFError:
            break
        if command.strip() in ("quit", "exit"):
            break
        observation, _, terminated, truncated, info = env.step(command)
        style = "green" if info["last_command_success"] else "yellow"
        console.print(f"[{style}]{observation}[/]")
        if terminated or truncated:
            break
    verdict = "[bold green]You won![/]" if info["won"] else "[bold red]Task not done.[/]"
    console.print(f"{verdict} {info['commands']} commands, {info['low_level_steps']} low-level steps")
