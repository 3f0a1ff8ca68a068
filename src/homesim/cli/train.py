"""`homesim train`: one command for every suite's learned baselines; the suite is what `--data` holds (an
ALFRED frames folder from `homesim alfred frames`, HandMeThat episodes, or an ObjectNav dataset folder, whose
agent learns by PPO in the batched env), and its trainer is the
`homesim.trainers` entry point named after the suite."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from homesim.cli.common import app, console


def trainer_for(data: Path) -> tuple[str, object]:
    """The suite whose training data `data` is, and its trainer; a ValueError saying what it holds instead."""
    from homesim.datasets.sources import kind_of
    from homesim.errors import DataError
    from homesim.learning.request import TRAINERS

    trainers = {e.name: e.load() for e in entry_points(group=TRAINERS)}
    for suite, trainer in sorted(trainers.items()):
        if trainer.accepts(data):
            return suite, trainer
    try:
        holds = kind_of(data).replace("_", " ")
    except DataError as e:
        holds = str(e)
    wanted = " or ".join(t.data for _, t in sorted(trainers.items()))
    raise ValueError(f"--data {data}: holds {holds}, not training data: give {wanted}")


@app.command("train")
def train_command(
    agent: Annotated[
        str,
        typer.Option(
            help="ALFRED: seq2seq, seq2seq_pm, moca; HandMeThat: seq2seq, seq2seq_goal, seq2seq_subgoal, drrn;"
            " ObjectNav: ppo"
        ),
    ],
    data: Annotated[
        Path, typer.Option(exists=True, help="an ALFRED frames folder, HandMeThat episodes or an ObjectNav dataset")
    ],
    out: Annotated[Path, typer.Option(help="the checkpoint file; an unfinished one of the same run is resumed")],
    epochs: Annotated[int, typer.Option(min=1)] = 1,
    max_steps: Annotated[
        int | None, typer.Option(min=1, help="stop after this many optimisation steps (ObjectNav ppo: updates)")
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="examples per step (ObjectNav ppo: envs)")] = 8,
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
    split: Annotated[
        str | None, typer.Option(help="HandMeThat: the split to learn from (default: train, or the data's only one)")
    ] = None,
) -> None:
    """Train a learned baseline (with progress and checkpoints; run it again to resume after a stop)."""
    from homesim.learning.loop import TrainConfig
    from homesim.learning.request import TrainRequest

    from homesim.files import OutputError, check_writable

    if out.is_dir():
        problem = f"{out} is a folder: give the checkpoint's file, such as {out / 'model.pt'}"
        raise typer.BadParameter(problem, param_hint="--out")
    try:
        check_writable(out)
    except OutputError as e:
        raise typer.BadParameter(str(e), param_hint="--out") from e
    suite, trainer = trainer_for(data)
    config = TrainConfig(epochs, max_steps, batch_size, lr, seed, checkpoint_every)
    request = TrainRequest(
        agent, data, out, config, ablation, dagger_rounds, episodes, layouts, workers, observability, split
    )
    try:
        result = trainer.train(request)
    except KeyboardInterrupt:
        console.print(f"[yellow]interrupted:[/] {_kept(out)}")
        raise typer.Exit(130) from None
    table = Table(title=f"{suite} {agent}: {out}")
    for column in ("optimisation steps", "epochs completed", "last loss", "seconds", "log"):
        table.add_column(column, justify="right")
    figures = (result.steps, result.epochs, f"{result.final_loss:.4f}", f"{result.seconds:.0f}", result.log)
    table.add_row(*map(str, figures))
    console.print(table)
    console.print(_why_it_stopped(result, config, out))


def _why_it_stopped(result, config, out: Path) -> str:
    """Which budget ended the run, in a line (the bar counts epochs from 1, the table those completed)."""
    per_epoch = f" ({result.epoch_steps} optimisation steps an epoch)" if result.epoch_steps else ""
    if result.stopped == "done before":
        return (
            f"{out} had finished this budget before (at step {result.steps}): nothing more to train (a larger"
            " --epochs or --max-steps trains it on)"
        )
    if result.stopped == "max_steps":
        within = f", {result.batch} batches into epoch {result.epochs + 1}" if result.batch else ""
        return f"stopped at --max-steps {config.max_steps}{within}{per_epoch}"
    before = f", before --max-steps {config.max_steps}" if config.max_steps is not None else ""
    return f"stopped after --epochs {config.epochs}{per_epoch}{before}"


def _kept(out: Path) -> str:
    """What an interrupted run leaves: its last checkpoint, if it got to one."""
    from homesim.learning.loop import checkpoint_step

    step = checkpoint_step(out)
    if step is None:
        return "no checkpoint was written yet; the same command starts again"
    return f"{out} keeps the checkpoint of step {step}; the same command resumes from there"


@app.command("export-weights")
def export_weights_command(
    checkpoint: Annotated[Path, typer.Option(help="a finished `homesim train` checkpoint")],
    out: Annotated[Path, typer.Option(help="the weights-only checkpoint to write; its card goes beside it")],
    note: Annotated[
        list[str] | None, typer.Option(help="KEY=VALUE for the card's notes (the command, the commit, ...); repeat")
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing --out and its card")] = False,
) -> None:
    """Write a checkpoint's weights without its optimizer state (about a third of the size), for publishing,
    with a card: the weights' SHA-256, the training budget and settings, and the data by digest."""
    from homesim.files import OutputError, check_writable
    from homesim.learning.export import card_path, export_weights

    notes = {}
    for item in note or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{item!r}: give KEY=VALUE", param_hint="--note")
        notes[key] = value
    if out.resolve() == checkpoint.resolve():
        raise typer.BadParameter("is the --checkpoint itself: give another file", param_hint="--out")
    if not overwrite and (out.exists() or card_path(out).exists()):
        raise typer.BadParameter(f"{out} or its card exists: give --overwrite to replace them", param_hint="--out")
    try:
        check_writable(out)
    except OutputError as e:
        raise typer.BadParameter(str(e), param_hint="--out") from e
    card = export_weights(checkpoint, out, notes)  # a checkpoint that cannot be read is a one-line DataError
    console.print(f"{out}: {card['bytes'] / 1e6:.1f} MB, {card['sha256']}; card {card_path(out)}")
