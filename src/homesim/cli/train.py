"""`homesim train`: one command for every suite's learned baselines; the suite is what `--data` holds (an
ALFRED frames folder from `homesim alfred frames`, or HandMeThat episodes)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from homesim.cli.common import app, console

# suite -> "module:function(request) -> TrainResult", imported only when used: the CLI starts without torch
TRAINERS: dict[str, str] = {
    "alfred": "homesim.learning.alfred.train:train_alfred",
    "handmethat": "homesim.learning.handmethat.train:train_handmethat",
}
FRAMES_FORMAT = "homesim-alfred-frames"


def suite_of_data(data: Path) -> str:
    """The suite whose training data `data` is, or a ValueError saying what it holds instead."""
    meta = data / "meta.json"
    if meta.is_file():
        try:
            if json.loads(meta.read_text()).get("format") == FRAMES_FORMAT:
                return "alfred"
        except (OSError, json.JSONDecodeError, AttributeError):
            pass
    from homesim.datasets.folder import read_manifest
    from homesim.datasets.sources import kind_of

    kind = kind_of(data)
    if kind == "handmethat_files" or (kind == "dataset" and read_manifest(data)["suite"] == "handmethat"):
        return "handmethat"
    raise ValueError(
        f"--data {data}: holds {kind.replace('_', ' ')}, not training data: give an ALFRED frames folder"
        " (homesim alfred frames) or HandMeThat episodes"
    )


@app.command("train")
def train_command(
    agent: Annotated[
        str, typer.Option(help="ALFRED: seq2seq, seq2seq_pm, moca; HandMeThat: seq2seq, seq2seq_goal, seq2seq_subgoal, drrn")
    ],
    data: Annotated[Path, typer.Option(exists=True, help="an ALFRED frames folder or HandMeThat episodes")],
    out: Annotated[Path, typer.Option(help="the checkpoint file; an unfinished one of the same run is resumed")],
    epochs: Annotated[int, typer.Option(min=1)] = 1,
    max_steps: Annotated[int | None, typer.Option(min=1, help="stop after this many optimisation steps")] = None,
    batch_size: Annotated[int, typer.Option(min=1)] = 8,
    lr: Annotated[float, typer.Option(min=0.0)] = 1e-3,
    seed: int = 0,
    checkpoint_every: Annotated[int, typer.Option(min=1, help="optimisation steps between checkpoints")] = 100,
    ablation: Annotated[str, typer.Option(help="none, no_language, no_vision, goal_only, instructions_only")] = "none",
    dagger_rounds: Annotated[int, typer.Option(min=0, help="DAgger rounds after imitation (ALFRED)")] = 0,
    episodes: Annotated[Path | None, typer.Option(exists=True, help="DAgger: the episodes the learner acts in")] = None,
    layouts: Annotated[Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files")] = None,
    workers: Annotated[int, typer.Option(min=1)] = 1,
    observability: Annotated[
        str | None, typer.Option(help="HandMeThat: the game trained in, partial (the default) or full")
    ] = None,
) -> None:
    """Train a learned baseline (with progress and checkpoints; run it again to resume after a stop)."""
    from homesim.learning.loop import TrainConfig
    from homesim.learning.request import TrainRequest

    suite = suite_of_data(data)
    if suite not in TRAINERS:
        raise ValueError(f"--data {data}: {suite} has no trainer yet")
    config = TrainConfig(epochs, max_steps, batch_size, lr, seed, checkpoint_every)
    request = TrainRequest(agent, data, out, config, ablation, dagger_rounds, episodes, layouts, workers, observability)
    module, _, function = TRAINERS[suite].partition(":")
    result = getattr(importlib.import_module(module), function)(request)
    table = Table(title=f"{suite} {agent}: {out}")
    for column in ("optimisation steps", "epochs", "last loss", "seconds", "log"):
        table.add_column(column, justify="right")
    figures = (result.steps, result.epochs, f"{result.final_loss:.4f}", f"{result.seconds:.0f}", result.log)
    table.add_row(*map(str, figures))
    console.print(table)
