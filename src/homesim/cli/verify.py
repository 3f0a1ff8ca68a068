"""`homesim verify`: an evaluation's figures recomputed from its records, and its records checked."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import app, console, plural

SHOWN = 20  # lines of each kind printed; the count says how many more


@app.command("verify")
def verify_command(
    run: Annotated[Path, typer.Argument(metavar="RUN", exists=True, file_okay=False, help="an evaluation's folder")],
    episodes: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            help="the episodes the run read: then each record is also measured (ObjectNav) or played (ALFRED) again",
        ),
    ] = None,
    layouts: Annotated[
        Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files (for trajectories)")
    ] = None,
) -> None:
    """Recompute every figure of an evaluation's summary.json from its records and run.json alone, check each
    record against itself (and, with --episodes, against the engine), and say what differs."""
    from homesim.datasets.sources import read_episodes
    from homesim.evaluation.evaluate import read_run
    from homesim.evaluation.verify import verify_run

    splits = scenes = None
    if episodes is not None:
        source = read_episodes(episodes, layouts, None, read_run(run).suite)
        splits, scenes = source.splits, source.scenes
    verdict = verify_run(run, splits, scenes)
    for lines in (verdict.differing, verdict.problems):
        for line in lines[:SHOWN]:
            console.print(line, highlight=False, markup=False)
        if len(lines) > SHOWN:
            console.print(f"... and {len(lines) - SHOWN} more")
    checked = f"{plural(verdict.figures, 'figure')} of summary.json and {plural(verdict.records, 'record')}"
    against = " against the engine" if episodes is not None else ""
    if verdict.ok:
        console.print(f"verified: {checked}{against}; all agree")
        return
    console.print(
        f"[red]not verified:[/] {len(verdict.differing)} of {plural(verdict.figures, 'figure')} differ from the records,"
        f" {len(verdict.problems)} record problems ({checked} checked{against})"
    )
    raise typer.Exit(1)
