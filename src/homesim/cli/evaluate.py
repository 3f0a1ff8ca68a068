"""`homesim evaluate` and `homesim report`: an agent run through a suite's protocol, and its tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import track

from homesim.cli.common import BackendOption, RayAddressOption, app, console, workers_of


@app.command("evaluate")
def evaluate_command(
    episodes: Annotated[
        Path | None,
        typer.Option(
            "--episodes",
            exists=True,
            help="a homesim dataset folder, ALFRED trajectories (json_2.1.0 tree or .jsonl[.gz], with --layouts),"
            " or HandMeThat's episode files (one, or a folder); default: the built-in procedural episodes",
        ),
    ] = None,
    agent: Annotated[
        str, typer.Option(help="random, expert, heuristic (HandMeThat), frontier (ObjectNav), or module.path:ClassName")
    ] = "expert",
    suite: Annotated[
        str | None, typer.Option(help="benchmark suite; default: the dataset folder's, else alfred")
    ] = None,
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (for trajectories)")
    ] = None,
    split: Annotated[str | None, typer.Option(help="evaluate only this split")] = None,
    subgoals: Annotated[bool, typer.Option("--subgoals", help="sub-goal evaluation (ALFRED's Table 4)")] = False,
    observation_filter: Annotated[
        str, typer.Option("--ablation", help="none, no_language, no_vision, goal_only, instructions_only")
    ] = "none",
    workers: Annotated[int, typer.Option(min=1, help="processes; results are identical for any number")] = 1,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    seed: Annotated[int, typer.Option(help="the agent's seed")] = 0,
    out: Annotated[Path, typer.Option(help="folder for run.json, records.jsonl and summary.json")] = Path("out/eval"),
    interaction: Annotated[str, typer.Option(help="oracle (object ids) or mask (300x300 pixel masks)")] = "oracle",
    pixels: Annotated[
        str,
        typer.Option(help="images agents see, comma-separated: rgb,depth,segmentation,semantic (objectnav: rgb,depth,semantic)"),
    ] = "",
    interface: Annotated[
        str, typer.Option(help="embodied (ALFRED's actions) or text (ALFWorld-style commands, homesim/ALFRED-Text-v0)")
    ] = "embodied",
    observability: Annotated[
        str | None,
        typer.Option(help="HandMeThat: partial (the robot's location only; the default) or full (a checkpoint: its own)"),
    ] = None,
    criteria: Annotated[
        str | None,
        typer.Option(
            help="objectnav: success criteria, comma-separated, of intentionality,validity,proximity,visibility,"
            "oracle_visibility (default: the first four)"
        ),
    ] = None,
    success_distance: Annotated[
        float, typer.Option(help="objectnav: the proximity criterion's distance to the object, metres")
    ] = 1.0,
) -> None:
    """Evaluate an agent under its benchmark's protocol and print the paper's tables (ALFRED's by default)."""
    from homesim.agents.protocol import OBSERVATION_FILTERS
    from homesim.agents.registry import load_agent
    from homesim.datasets.sources import read_episodes
    from homesim.errors import DataError
    from homesim.evaluation.evaluate import EvaluationConfig, evaluate
    from homesim.evaluation.report import subgoals_table
    from homesim.evaluation.suites import SUITES, suite_named

    if suite is not None and suite not in SUITES:
        raise typer.BadParameter(f"unknown suite {suite!r}; known: {', '.join(SUITES)}", param_hint="--suite")
    if observation_filter not in OBSERVATION_FILTERS:
        raise typer.BadParameter(f"unknown ablation; known: {', '.join(OBSERVATION_FILTERS)}", param_hint="--ablation")
    runs_on = workers_of(workers, backend, ray_address, ("homesim.evaluation.evaluate",))  # Ray's start meanwhile
    try:
        source = read_episodes(episodes, layouts, split, suite)
    except DataError as e:
        console.print(f"[red]cannot read the episodes:[/] {e}")
        raise typer.Exit(1) from e
    for error in source.skipped:
        console.print(f"[red]skipped[/] {error}")
    suite, splits, scenes = source.suite, source.splits, source.scenes
    try:
        loaded = load_agent(agent, suite=suite)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--agent") from e
    trained = getattr(loaded, "ablation", None)  # a checkpoint's own ablation, and game (HandMeThat)
    trained_in = getattr(loaded, "observability", None)
    if trained_in is not None and observability not in (None, trained_in):
        message = f"{agent} was trained in the {trained_in} game: give --observability {trained_in} or leave it out"
        raise typer.BadParameter(message, param_hint="--observability")
    if trained is not None and observation_filter not in ("none", trained):
        message = f"{agent} was trained with ablation {trained}: give --ablation {trained} or leave it out"
        raise typer.BadParameter(message, param_hint="--ablation")
    observation_filter = trained or observation_filter  # recorded in run.json as the run's ablation
    if not any(splits.values()):
        console.print(f"[red]no episodes to evaluate[/] in {episodes}" + (f" (split {split})" if split else ""))
        raise typer.Exit(1)
    options = {}
    if suite == "handmethat":  # a text game only
        from homesim.envs.handmethat import OBSERVABILITY

        interface, options = "text", {"observability": observability or trained_in or "partial"}
        if options["observability"] not in OBSERVABILITY:
            raise typer.BadParameter(f"{observability!r}: use partial or full", param_hint="--observability")
        if observation_filter != "none" or subgoals:
            raise typer.BadParameter("--ablation and --subgoals are ALFRED's", param_hint="--suite")
    elif observability is not None:
        raise typer.BadParameter(f"only HandMeThat has it, not {suite}", param_hint="--observability")
    images = tuple(p for p in pixels.split(",") if p)
    if interaction not in ("oracle", "mask"):
        raise typer.BadParameter(f"{interaction!r}: use oracle or mask", param_hint="--interaction")
    allowed = ("rgb", "depth", "semantic") if suite == "objectnav" else ("rgb", "depth", "segmentation", "semantic")
    if set(images) - set(allowed):
        raise typer.BadParameter(f"{pixels!r}: some of {','.join(allowed)}, comma-separated", param_hint="--pixels")
    if suite == "objectnav":
        from homesim.evaluation.objectnav.suite import objectnav_options
        from homesim.tasks.objectnav_criteria import DEFAULT_CRITERIA

        try:
            options = objectnav_options(criteria or DEFAULT_CRITERIA, success_distance)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--criteria") from e
    elif criteria is not None:
        raise typer.BadParameter(f"success criteria are ObjectNav's, not {suite}'s", param_hint="--criteria")
    try:
        config = EvaluationConfig(
            agent=agent,
            seed=seed,
            observation_filter=observation_filter,
            subgoals=subgoals,
            interaction=interaction,
            pixels=images,
            interface=interface,
            suite=suite,
            options=options,
        )
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--interface") from e

    def progress(items, total):
        return track(items, total=total, description=f"evaluating {agent}", console=console)

    summary = evaluate(splits, scenes, config, out, runs_on, progress)
    setting = options.get("observability", interface)
    title = f"{agent} ({setting}) on {episodes or 'built-in episodes'}"
    console.print(subgoals_table(summary) if subgoals else suite_named(config.suite).table(summary, title))
    if "warning" in summary:
        console.print(f"[bold yellow]warning:[/] {summary['warning']}")
    console.print(f"records and summary written to {out}/")


TABLES = ("handmethat", "baselines")  # tables that compare runs (`homesim report A B ... --table NAME`)


@app.command("report")
def report_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            metavar="OUT...", exists=True, help="evaluation output folders (or a file in one: summary.json, ...)"
        ),
    ],
    table_name: Annotated[
        str | None,
        typer.Option(
            "--table",
            help="handmethat: the paper's Tables 2 and 3; baselines: ALFRED's Tables 1, 3, 4 and A1; a row per run"
            " (default with several runs: their suite's)",
        ),
    ] = None,
    split: Annotated[str | None, typer.Option(help="--table: only this split's episodes (default: all)")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="--table: also write its figures here")] = None,
) -> None:
    """Recompute an evaluation's summary from its records, print it, and check it against summary.json;
    with several evaluations (or --table), compare them in one table."""
    from homesim.errors import DataError
    from homesim.evaluation.evaluate import read_run, summary_of
    from homesim.evaluation.records import read_records
    from homesim.evaluation.report import subgoals_table
    from homesim.evaluation.suites import suite_named

    if table_name is not None and table_name not in TABLES:
        raise typer.BadParameter(f"{table_name!r}: known tables: {', '.join(TABLES)}", param_hint="--table")
    loaded = []
    for run in runs:
        out = run if run.is_dir() else run.parent
        try:
            loaded.append((out, read_run(out), read_records(out / "records.jsonl")))
        except (OSError, DataError, TypeError, ValueError) as e:
            console.print(f"[red]cannot read the evaluation in {out}:[/] {e}")
            raise typer.Exit(1) from e
    if table_name is None and len(loaded) > 1:
        table_name = "baselines" if loaded[0][1].suite == "alfred" else "handmethat"
    if table_name == "baselines":
        _baselines(loaded, json_out)
        return
    if table_name is not None:
        _compare(loaded, split, json_out)
        return
    ((out, config, records),) = loaded
    summary = summary_of(records, config)
    table = suite_named(config.suite).table
    console.print(subgoals_table(summary) if config.subgoals else table(summary, f"{config.agent}: {out}"))
    if "warning" in summary:
        console.print(f"[bold yellow]warning:[/] {summary['warning']}")
    written = out / "summary.json"
    if written.exists():
        same = json.loads(written.read_text()) == json.loads(json.dumps(summary))
        console.print("summary.json matches the records" if same else "[red]summary.json differs from the records[/]")
        if not same:
            raise typer.Exit(1)


def _compare(loaded: list, split: str | None, json_out: Path | None) -> None:
    """HandMeThat's Tables 2 and 3 over several runs: a row per agent, its runs' observabilities side by side
    (a checkpoint's agent is its file's name, so runs/partial/seq2seq.pt and runs/full/seq2seq.pt share one;
    a run whose agent and observability another run has too gets a row of its own, named by its folder),
    then the paper's rows."""
    from homesim.evaluation.handmethat.report import PaperRow, level_figures, paper_table, published_rows

    rows: dict[str, dict[str, dict]] = {}
    for out, config, records in loaded:
        if config.suite != "handmethat":
            console.print(f"[red]{out} is a {config.suite} evaluation:[/] --table handmethat compares HandMeThat runs")
            raise typer.Exit(1)
        chosen = [r for r in records if split is None or r.split == split]
        if not chosen:
            console.print(f"[red]{out} has no episodes{f' in split {split!r}' if split else ''}[/]")
            raise typer.Exit(1)
        setting = config.options.get("observability", "partial")
        agent = Path(config.agent).stem if config.agent.endswith(".pt") else config.agent  # a checkpoint: its name
        label = agent if setting not in rows.get(agent, {}) else f"{agent} ({out})"
        rows.setdefault(label, {})[setting] = level_figures(chosen)
    table_rows = [PaperRow(label, settings) for label, settings in rows.items()] + published_rows()
    console.print(paper_table(table_rows, f"HandMeThat, {split or 'all splits'}"))
    if json_out is not None:
        json_out.write_text(json.dumps({"split": split, "rows": rows}, indent=1) + "\n")
        console.print(f"figures written to {json_out}")


def _baselines(loaded: list, json_out: Path | None) -> None:
    """ALFRED's results tables over several runs (each labelled by its folder's name) beside the papers'."""
    from homesim.evaluation.alfred.baselines import FOLDS, Run, baselines_tables
    from homesim.evaluation.evaluate import summary_of

    runs = []
    for out, config, records in loaded:
        if config.suite != "alfred":
            console.print(f"[red]{out} is a {config.suite} evaluation:[/] --table baselines compares ALFRED runs")
            raise typer.Exit(1)
        runs.append(Run(out.name, summary_of(records, config)))
        measured = set(runs[-1].summary["splits"]) | set(runs[-1].summary.get("subgoals", {}))  # episodes or sub-goals
        if not measured & {s for splits in FOLDS.values() for s in splits}:
            others = ", ".join(sorted(measured)) or "none"
            console.print(f"[yellow]{out} has no seen or unseen split (ALFRED's valid_* or test_*), only: {others}[/]")
    for table in baselines_tables(runs):
        console.print(table)
    if json_out is not None:
        json_out.write_text(json.dumps({run.label: run.summary for run in runs}, indent=1) + "\n")
        console.print(f"figures written to {json_out}")
