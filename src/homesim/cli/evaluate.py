"""`homesim evaluate` and `homesim report`: an agent run through a suite's protocol, and its tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import track

from homesim.cli import llm_options as llm
from homesim.cli.common import (
    BackendOption,
    OverwriteOption,
    RayAddressOption,
    app,
    console,
    interrupted,
    workers_of,
)

ALFRED_PANEL, OBJECTNAV_PANEL, HANDMETHAT_PANEL = "ALFRED", "ObjectNav", "HandMeThat"  # --help's groups


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
        str,
        typer.Option(
            help="one of the suite's agents (random, expert, ...), a checkpoint (.pt), module.path:ClassName or"
            " file.py:ClassName (see homesim new-agent)"
        ),
    ] = "expert",
    suite: Annotated[
        str | None, typer.Option(help="benchmark suite; default: the dataset folder's, else alfred")
    ] = None,
    split: Annotated[str | None, typer.Option(help="evaluate only this split")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="evaluate only the first N episodes of each split")] = None,
    episode_ids: Annotated[
        str | None, typer.Option(help="evaluate only these episodes, by id, comma-separated (records' episode_id)")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="processes; results are identical for any number")] = 1,
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    seed: Annotated[int, typer.Option(help="the agent's seed")] = 0,
    out: Annotated[Path, typer.Option(help="folder for run.json, records.jsonl and summary.json")] = Path("out/eval"),
    overwrite: OverwriteOption = False,
    pixels: Annotated[
        str,
        typer.Option(
            help="images agents see, comma-separated: ALFRED rgb,depth,segmentation,semantic; ObjectNav rgb,depth,semantic"
        ),
    ] = "",
    layouts: Annotated[
        Path | None,
        typer.Option(
            exists=True, file_okay=False, help="ALFRED layout files (for trajectories)", rich_help_panel=ALFRED_PANEL
        ),
    ] = None,
    subgoals: Annotated[
        bool, typer.Option("--subgoals", help="sub-goal evaluation (ALFRED's Table 4)", rich_help_panel=ALFRED_PANEL)
    ] = False,
    observation_filter: Annotated[
        str,
        typer.Option(
            "--ablation",
            help="none, no_language, no_vision, goal_only, instructions_only",
            rich_help_panel=ALFRED_PANEL,
        ),
    ] = "none",
    interaction: Annotated[
        str | None,
        typer.Option(help="oracle (object ids, the default) or mask (300x300 pixel masks)", rich_help_panel=ALFRED_PANEL),
    ] = None,
    interface: Annotated[
        str | None,
        typer.Option(
            help="embodied (ALFRED's actions, the default) or text (ALFWorld-style commands, homesim/ALFRED-Text-v0)",
            rich_help_panel=ALFRED_PANEL,
        ),
    ] = None,
    criteria: Annotated[
        str | None,
        typer.Option(
            help="success criteria, comma-separated, of intentionality, validity, proximity, visibility,"
            " oracle_visibility (default: the first four)",
            rich_help_panel=OBJECTNAV_PANEL,
        ),
    ] = None,
    success_distance: Annotated[
        float | None,
        typer.Option(
            help="the proximity criterion's distance to the object, metres (default 1)", rich_help_panel=OBJECTNAV_PANEL
        ),
    ] = None,
    observability: Annotated[
        str | None,
        typer.Option(
            help="partial (the robot's location only; the default) or full (a checkpoint: its own)",
            rich_help_panel=HANDMETHAT_PANEL,
        ),
    ] = None,
    llm_base_url: llm.BaseUrl = None,
    llm_model: llm.Model = None,
    llm_api_key_env: llm.KeyEnv = None,
    llm_offline: llm.Offline = None,
    llm_cache: llm.Cache = None,
    llm_preset: llm.Preset = None,
    llm_template: llm.Template = None,
    llm_mode: llm.Mode = None,
    llm_examples: llm.Examples = None,
    llm_examples_from: llm.ExamplesFrom = None,
    llm_context: llm.Context = None,
    llm_max_tokens: llm.MaxTokens = None,
    llm_temperature: llm.Temperature = None,
    llm_max_invalid: llm.MaxInvalid = None,
    llm_max_steps: llm.MaxReplies = None,
    protocol_name: Annotated[
        str | None,
        typer.Option(
            "--protocol",
            help="whose rules score it: ObjectNav objectnav-2020 (the default), habitat or robothor; ALFRED alfred"
            " (the default) or alfred-code (its evaluation code's quirks); options set one by one make it custom"
        ),
    ] = None,
) -> None:
    """Evaluate an agent under its benchmark's protocol and print the paper's tables (ALFRED's by default)."""
    given_llm = {name.removeprefix("llm_"): value for name, value in locals().items() if name.startswith("llm_")}
    from homesim.agents.protocol import OBSERVATION_FILTERS
    from homesim.datasets.sources import read_episodes
    from homesim.errors import DataError
    from homesim.evaluation.evaluate import EvaluationConfig, evaluate
    from homesim.evaluation.records import read_records
    from homesim.evaluation.report import agent_table, subgoals_table
    from homesim.evaluation.runner import AGENT_ERROR
    from homesim.evaluation.suite import CUSTOM, OptionError
    from homesim.evaluation.suites import SUITES, any_suite_agents, load_agent
    from homesim.files import check_output, partial_of

    if suite is not None and suite not in SUITES:
        raise typer.BadParameter(f"unknown suite {suite!r}; known: {', '.join(SUITES)}", param_hint="--suite")
    if observation_filter not in OBSERVATION_FILTERS:
        raise typer.BadParameter(f"unknown ablation; known: {', '.join(OBSERVATION_FILTERS)}", param_hint="--ablation")
    runs_on = workers_of(workers, backend, ray_address, ("homesim.evaluation.evaluate",))  # Ray's start meanwhile
    try:
        ids = tuple(i for i in (episode_ids or "").split(",") if i)
        source = read_episodes(episodes, layouts, split, suite).subset(limit, ids, str(episodes or "the built-in ones"))
    except DataError as e:
        console.print(f"[red]cannot read the episodes:[/] {e}")
        raise typer.Exit(1) from e
    for error in source.skipped:
        console.print(f"[red]skipped[/] {error}")
    protocol, splits, scenes = SUITES[source.suite], source.splits, source.scenes
    agent_options = {}
    if agent in any_suite_agents():  # made above the registry from its own settings (--llm-*)
        agent_options = llm.agent_options(given_llm, episodes, layouts, out)
    elif any(value is not None for value in given_llm.values()):
        raise typer.BadParameter(f"the --llm-* options are for --agent {' or '.join(any_suite_agents())}", param_hint="--agent")
    try:
        loaded = load_agent(agent, suite=protocol.name, options=agent_options)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--agent") from e
    try:
        getattr(loaded, "check", lambda: None)()  # an endpoint that cannot answer is said now, not per episode
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--llm-base-url") from e
    given = {"criteria": criteria, "success_distance": success_distance, "observability": observability}
    for name, value in given.items():
        if value is not None and name not in protocol.option_names:
            option = "--" + name.replace("_", "-")
            owners = " and ".join(s.title for s in SUITES.values() if name in s.option_names)
            raise typer.BadParameter(f"only {owners} has it, not {protocol.title}", param_hint=option)
    own = {name: getattr(loaded, name) for name in protocol.option_names if getattr(loaded, name, None) is not None}
    try:
        rules = protocol.protocol(protocol_name or protocol.protocols[0].name) if protocol.protocols else None
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--protocol") from e
    try:  # a checkpoint's own settings (HandMeThat's: the game it learned); a protocol's, then those given
        settings = dict(rules.settings) if rules else {}
        options = protocol.options(settings | {k: v for k, v in given.items() if v is not None}, own)
        fixed = protocol.options(settings, own)  # what the protocol's settings come to: those given must keep them
        named = rules is None or all(options.get(k) == fixed.get(k) for k in settings)
    except OptionError as e:
        raise typer.BadParameter(str(e), param_hint="--" + e.option.replace("_", "-")) from e
    trained = getattr(loaded, "ablation", None)  # a checkpoint's own ablation
    if trained is not None and observation_filter not in ("none", trained):
        message = f"{agent} was trained with ablation {trained}: give --ablation {trained} or leave it out"
        raise typer.BadParameter(message, param_hint="--ablation")
    observation_filter = trained or observation_filter  # recorded in run.json as the run's ablation
    if not any(splits.values()):
        console.print(f"[red]no episodes to evaluate[/] in {episodes}" + (f" (split {split})" if split else ""))
        raise typer.Exit(1)
    for option, used, has in (("--ablation", observation_filter != "none", "ablations"),
                              ("--subgoals", subgoals, "subgoals")):  # fmt: skip
        if used and not getattr(protocol, has):
            owners = " and ".join(s.title for s in SUITES.values() if getattr(s, has))
            raise typer.BadParameter(f"only {owners} has it, not {protocol.title}", param_hint=option)
    for option, value, known in (("--interface", interface, protocol.interfaces),
                                 ("--interaction", interaction, protocol.interactions)):  # fmt: skip
        if value is not None and value not in known:
            only = f"{protocol.title} has only {known[0]}: leave it out"
            use = f"use {' or '.join(known)}" if len(known) > 1 else only
            raise typer.BadParameter(f"{value!r}: {use}", param_hint=option)
    images = tuple(p for p in pixels.split(",") if p)
    if set(images) - set(protocol.pixels):
        allowed = ",".join(protocol.pixels) or "none"
        raise typer.BadParameter(f"{pixels!r}: some of {allowed}, comma-separated", param_hint="--pixels")
    images, interaction, needs = _what_the_agent_needs(loaded, agent, protocol, images, interaction)
    try:
        config = EvaluationConfig(
            agent=agent,
            seed=seed,
            observation_filter=observation_filter,
            subgoals=subgoals,
            interaction=interaction or protocol.interactions[0],
            pixels=images,
            interface=interface or protocol.interfaces[0],
            suite=protocol.name,
            options=options,
            limit=limit,
            episode_ids=ids,
            agent_options=agent_options,
            protocol=(rules.name if named else CUSTOM) if rules else "",
        )
    except ValueError as e:
        if needs and interface:
            message, hint = f"{agent} plays with {needs}: not in the {interface} interface", "--interface"
        else:
            message, hint = str(e), "--protocol" if "protocol" in str(e) else "--interface"
        raise typer.BadParameter(message, param_hint=hint) from e
    if needs:
        console.print(f"{agent} plays with {needs}: evaluating with them")

    def progress(items, total):
        return track(items, total=total, description=f"evaluating {agent}", console=console)

    check_output(out, "evaluation", overwrite)  # a refusal comes before the evaluation's work
    try:
        summary = evaluate(splits, scenes, config, out, runs_on, progress, overwrite)
    except KeyboardInterrupt:
        records = partial_of(out) / "records.jsonl"
        done = sum(1 for _ in open(records, encoding="utf-8")) if records.exists() else 0
        raise interrupted(out, f"{done} episode records") from None
    setting = options.get("observability", config.interface)
    subset = f" (--limit {limit})" * bool(limit) + f" ({len(ids)} episodes by id)" * bool(ids)
    title = f"{agent} ({setting}) on {episodes or 'built-in episodes'}{subset}"
    console.print(_with_protocol(subgoals_table(summary) if subgoals else protocol.table(summary, title), config))
    if "agent" in summary:
        console.print(agent_table(summary["agent"]))
        waiting = summary["agent"].get("finish", {}).get("awaiting_answer", 0)
        if waiting:
            where = agent_options.get("offline")
            console.print(
                f"[yellow]{waiting} episodes wait for answers:[/] the prompts are in {where}/prompts; put the answers"
                f" in {where}/answers (<key>.txt, or OpenAI batch output .jsonl) and run the same command again, with --overwrite"
            )
    if "warning" in summary:
        console.print(f"[bold yellow]warning:[/] {summary['warning']}")
    console.print(f"records and summary written to {out}/")
    records = read_records(out / "records.jsonl")
    if records and all(r.end_reason == AGENT_ERROR for r in records):
        first = records[0].failures[-1][1]
        console.print(f"[red]every episode ended at an exception of the agent[/], the first: {first}")
        raise typer.Exit(1)


def _what_the_agent_needs(loaded, agent: str, protocol, images: tuple, interaction: str | None) -> tuple:
    """The images and the interaction mode an agent plays with (a checkpoint knows what it was trained on: its
    `observations` and `interaction`) added to those given, and what that adds, in words ("" for nothing)."""
    wanted = tuple(getattr(loaded, "observations", ()))
    plays = getattr(loaded, "interaction", None)
    if set(wanted) - set(protocol.pixels):
        given = ",".join(protocol.pixels) or "none"
        message = f"{agent} asks for {','.join(wanted)}: {protocol.title} gives {given}"
        raise typer.BadParameter(message, param_hint="--agent")
    if plays is not None and interaction not in (None, plays):
        message = f"{agent} aims with {plays}: give --interaction {plays} or leave it out"
        raise typer.BadParameter(message, param_hint="--interaction")
    images = tuple(dict.fromkeys((*images, *wanted)))
    added = [f"--pixels {','.join(images)}"] * bool(wanted) + [f"--interaction {plays}"] * (plays is not None)
    return images, plays or interaction, " ".join(added)


@app.command("report")
def report_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            metavar="OUT...",
            help="evaluation output folders (or a file in one: summary.json, ...); with --plot, checkpoints or logs",
        ),
    ],
    table_name: Annotated[
        str | None,
        typer.Option(
            "--table",
            help="a table that compares runs, a row per run: baselines (ALFRED's Tables 1, 3, 4 and A1),"
            " objectnav (Success, SPL, SoftSPL, DTG), handmethat (the paper's Tables 2 and 3) or llm (language-model"
            " runs of any suite); default with several runs: their suite's",
        ),
    ] = None,
    split: Annotated[str | None, typer.Option(help="--table: only this split's episodes (default: all)")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="--table: also write its figures here")] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="draw the training curves of the checkpoints given (their .log.jsonl, or the logs) to this PNG"
        ),
    ] = None,
    figures: Annotated[
        Path | None,
        typer.Option(
            "--figures",
            file_okay=False,
            help="write result plots here as PNG: success per task type / level / category with 95% CI bars"
            " (several runs: a folder each)",
        ),
    ] = None,
) -> None:
    """Recompute an evaluation's summary from its records, print it, and check it against summary.json;
    with several evaluations (or --table), compare them in one table; with --plot, draw training curves. A run
    not finished is reported as partial, and runs played on different data are marked."""
    if plot is not None:
        _plot(runs, plot)
        return
    from homesim.errors import DataError
    from homesim.evaluation.evaluate import read_run, summary_of
    from homesim.evaluation.report import subgoals_table
    from homesim.evaluation.run_folder import find_run, mixed_data, read_run_folder
    from homesim.evaluation.suites import SUITES, any_suite_comparisons, suite_named

    loaded, folders = [], []
    for run in runs:
        try:
            out, note = find_run(run)
            folders.append(read_run_folder(out))
            loaded.append((out, read_run(out), folders[-1].records))
        except (OSError, DataError, TypeError, ValueError) as e:
            console.print(f"[red]cannot read the evaluation in {run}:[/] {e}")
            raise typer.Exit(1) from e
        if note:
            console.print(f"[yellow]{note}[/]")
    warnings = [n for n in (f.partial_note() for f in folders) if n] + mixed_data(folders) * (len(folders) > 1)
    if figures is not None:
        _write_figures(loaded, figures)
    first = suite_named(loaded[0][1].suite)  # its own tables first, then the other suites'
    tables = {c.name: (suite, c) for suite in sorted(SUITES.values(), key=lambda s: s != first) for c in suite.comparisons}
    tables |= {name: (first, c) for name, c in any_suite_comparisons().items()}  # the llm table, of the first run's suite
    if table_name is not None and table_name not in tables:
        raise typer.BadParameter(f"{table_name!r}: known tables: {', '.join(tables)}", param_hint="--table")
    _one_protocol(loaded)
    if table_name is None and len(loaded) > 1:
        if not first.comparisons:
            console.print(f"[red]{first.title} has no table that compares runs[/]")
            raise typer.Exit(1)
        table_name = first.comparisons[0].name
    if table_name is not None:
        _compare(loaded, *tables[table_name], split, json_out, warnings)
        return
    ((out, config, records),) = loaded
    try:
        summary = summary_of(records, config)
    except (KeyError, TypeError, ValueError) as e:  # a record without what its suite's measures read
        lack = f"its records lack what {config.suite} measures: {e!r}"
        console.print(f"[red]cannot read the evaluation in {out}:[/] {lack}")
        raise typer.Exit(1) from e
    table = suite_named(config.suite).table
    title = f"{config.agent}: {out}" + (" (PARTIAL)" if warnings else "")
    console.print(_with_protocol(subgoals_table(summary) if config.subgoals else table(summary, title), config))
    for line in warnings + ([summary["warning"]] if "warning" in summary else []):
        console.print(f"[bold yellow]warning:[/] {line}")
    written = out / "summary.json"
    if written.exists():
        same = json.loads(written.read_text()) == json.loads(json.dumps(summary))
        console.print("summary.json matches the records" if same else "[red]summary.json differs from the records[/]")
        if not same:
            raise typer.Exit(1)


def _plot(checkpoints: list[Path], out: Path) -> None:
    """`report --plot`: the training logs of checkpoints drawn to a PNG, one panel per figure."""
    from homesim.learning.curves import log_of, plot_curves, read_log, run_names

    logs = dict(zip(run_names(checkpoints), (read_log(c) for c in checkpoints), strict=True))
    drawn = plot_curves(logs, out)
    steps = ", ".join(f"{name}: step {log[-1]['step']}" for name, log in logs.items())
    console.print(f"{', '.join(drawn)} of {', '.join(str(log_of(c)) for c in checkpoints)} ({steps}) drawn to {out}")


def _write_figures(loaded: list, out: Path) -> None:
    """Each run's result plots (`evaluation.plots`) as PNG files in `out` (several runs: `out/<n>-<folder>/`)."""
    from homesim.evaluation.evaluate import summary_of
    from homesim.evaluation.plots import breakdown_charts, write_charts
    from homesim.evaluation.suites import suite_named

    for number, (folder, config, records) in enumerate(loaded, start=1):
        suite = suite_named(config.suite)
        splits = summary_of(records, config)["splits"]
        charts = breakdown_charts(splits, suite.success, list(suite.metrics.breakdowns))
        written = write_charts(charts, out if len(loaded) == 1 else out / f"{number}-{folder.name}")
        console.print(f"{len(written)} plots of {folder} written to {written[0].parent if written else out}/")


def _with_protocol(table, config):
    """The table with the protocol its run(s) were scored under in its caption."""
    from homesim.evaluation.suites import suite_named

    if config.protocol:
        named = [p for p in suite_named(config.suite).protocols if p.name == config.protocol]
        said = f"protocol {config.protocol}" + (f": {named[0].help}" if named else f" (options {config.options})")
        table.caption = f"{table.caption}\n{said}" if table.caption else said
    return table


def _one_protocol(loaded: list) -> None:
    """Runs of a suite scored under different protocols (or different custom rules) are never put in one table
    (runs of different suites are refused by the table itself)."""
    from homesim.evaluation.suite import CUSTOM

    first_out, first, _ = loaded[0]
    for out, config, _ in loaded[1:]:
        custom = config.protocol == first.protocol == CUSTOM and config.options != first.options
        if config.suite == first.suite and (config.protocol != first.protocol or custom):
            theirs, ours = (f"{c.protocol} rules {c.options}" if custom else c.protocol for c in (config, first))
            console.print(f"[red]{out} was scored under {theirs}, {first_out} under {ours}:[/] a table holds one protocol's runs")
            raise typer.Exit(1)


def _compare(loaded: list, suite, comparison, split: str | None, json_out: Path | None, warnings: list[str]) -> None:
    """A suite's table over several of its runs (`Suite.comparisons`), with its figures written on request;
    `warnings` (partial runs, different data) are printed under it and written with the figures."""
    from homesim.files import write_json

    for out, config, _ in loaded:
        if config.suite != suite.name:
            console.print(f"[red]{out} is a {config.suite} evaluation:[/] --table {comparison.name} compares {suite.title} runs")
            raise typer.Exit(1)
    try:
        tables, figures, notes = comparison.build(loaded, split)
    except ValueError as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from e
    for note in notes:
        console.print(f"[yellow]{note}[/]")
    for table in tables:
        console.print(_with_protocol(table, loaded[0][1]))
    for line in warnings:
        console.print(f"[bold yellow]warning:[/] {line}")
    if json_out is not None:
        write_json(json_out, figures | ({"warnings": warnings} if warnings else {}))
        console.print(f"figures written to {json_out}")
