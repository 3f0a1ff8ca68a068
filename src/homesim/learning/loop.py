"""The training loop every learned baseline shares: Adam, gradient clipping, rich progress, a JSON-lines
log, and checkpoints that make a killed run resumable to the very same weights.

A checkpoint holds the model, the optimizer, where training stood (step, epoch, batch within the epoch), the
RNG state, the config and `describe`: what the model is (suite, agent, hyper-parameters, vocabulary), so an
agent can be rebuilt from the file alone. Each epoch's batches come from a generator seeded by (seed, epoch),
so resuming replays the same batches: the ones already trained on are skipped.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from homesim.agents.learned import FORMAT, VERSION, load_checkpoint
from homesim.errors import DataError
from homesim.files import replacing, write_file


MAX_LR, MAX_BATCH = 10.0, 65_536  # larger is a typo, not a setting


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 1
    max_steps: int | None = None  # stop after this many optimisation steps, whatever `epochs` says
    batch_size: int = 8
    lr: float = 1e-3
    seed: int = 0
    checkpoint_every: int = 100  # optimisation steps between checkpoints (one more at the end)
    grad_clip: float | None = 1.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lr) and 0 <= self.lr <= MAX_LR):
            raise ValueError(f"learning rate {self.lr}: a number from 0 to {MAX_LR}")
        if not 1 <= self.batch_size <= MAX_BATCH:
            raise ValueError(f"batch size {self.batch_size}: from 1 to {MAX_BATCH}")

    def same_run(self, other: dict) -> bool:
        """Whether a checkpoint made with `other` continues this run: how often it is saved and how long it
        trains may differ (the first N steps of a longer run are those of a run of N steps)."""
        free = dict.fromkeys(("checkpoint_every", "max_steps", "epochs"))
        return asdict(self) | free == other | free

    def allows_more(self, step: int, epoch: int) -> bool:
        return epoch < self.epochs and (self.max_steps is None or step < self.max_steps)


@dataclass(frozen=True)
class TrainResult:
    steps: int
    epochs: int  # epochs completed
    final_loss: float
    log: Path
    seconds: float
    stopped: str = "epochs"  # why it stopped: "epochs", "max_steps", or "done before" (nothing left to train)
    batch: int = 0  # batches into the epoch it stopped in (0: it stopped between epochs)
    epoch_steps: int | None = None  # optimisation steps an epoch (None: not known)


def epoch_generator(seed: int, epoch: int) -> torch.Generator:
    """The generator an epoch's batches are drawn with: the same (seed, epoch), the same batches."""
    return torch.Generator().manual_seed(seed * 1_000_003 + epoch)


def save_checkpoint(path: Path, checkpoint: dict) -> None:
    """Written beside and renamed: a run killed while saving leaves the previous checkpoint whole."""
    with replacing(path) as partial:
        torch.save(checkpoint, partial)


def checkpoint_step(out: str | Path) -> int | None:
    """The optimisation step the checkpoint at `out` holds (None: there is none, or it cannot be read)."""
    try:
        return load_checkpoint(out)["step"] if Path(out).exists() else None
    except DataError:
        return None


def log_path(out: Path) -> Path:
    return out.with_name(out.name + ".log.jsonl")


def keep_log_until(log: Path, step: int) -> None:
    """On resumption the log keeps what the checkpoint saw; lines written after it are trained again."""
    if log.exists():
        lines = [line for line in log.read_text().splitlines() if json.loads(line)["step"] <= step]
        write_file(log, "".join(line + "\n" for line in lines))


def _steps_planned(config: TrainConfig, batches_per_epoch: int | None) -> int | None:
    planned = config.epochs * batches_per_epoch if batches_per_epoch is not None else None
    if config.max_steps is None:
        return planned
    return config.max_steps if planned is None else min(planned, config.max_steps)


def train(
    model: torch.nn.Module,
    loss: Callable[[torch.nn.Module, object], dict[str, torch.Tensor]],
    batches: Callable[[int, torch.Generator], Iterable[object]],
    out: str | Path,
    config: TrainConfig,
    describe: dict,
    label: str = "training",
) -> TrainResult:
    """Trains `model` on `batches(epoch, generator)` with `loss(model, batch)["loss"]`, saving to `out`.

    Build the model after `torch.manual_seed(config.seed)` so that its initial weights follow the seed. If
    `out` holds a checkpoint of this run (same `describe` and config but for the budget), training resumes
    from it: after a kill, or, for a finished run given more epochs or steps, to train longer (the same weights
    as a run given that budget from the start). A checkpoint of another run is an error, not overwritten."""
    out, started = Path(out), time.perf_counter()
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    step, epoch, batch_index, finished, last_loss = 0, 0, 0, False, float("nan")
    describe = json.loads(json.dumps(describe))  # as it will read back from the file
    if out.exists():
        checkpoint = load_checkpoint(out)
        if checkpoint.get("weights_only"):
            raise DataError(
                str(out), "weights_only", "a published checkpoint (homesim export-weights) has no optimizer state to"
                " resume from: give another --out"
            )
        if checkpoint["describe"] != describe or not config.same_run(checkpoint["config"]):
            raise DataError(
                str(out), "(file)", "holds a checkpoint of another run (other model, data or settings):"
                " give another --out or remove it"
            )
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        torch.set_rng_state(checkpoint["rng"])
        step, epoch, batch_index = checkpoint["step"], checkpoint["epoch"], checkpoint["batch"]
        last_loss = checkpoint["loss"]
        if not config.allows_more(step, epoch):  # nothing left to train within this budget
            if checkpoint["finished"]:
                seconds = time.perf_counter() - started
                return TrainResult(step, epoch, last_loss, log_path(out), seconds, "done before", batch_index)
            finished = True
        keep_log_until(log_path(out), step)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        log_path(out).unlink(missing_ok=True)

    def save(done: bool) -> None:
        save_checkpoint(
            out,
            {
                "format": FORMAT, "version": VERSION, "describe": describe, "config": asdict(config),
                "model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(),
                "step": step, "epoch": epoch, "batch": batch_index, "finished": done, "loss": last_loss,
            },
        )  # fmt: skip

    sums: dict[str, float] = {}
    counted = 0

    def write_log() -> None:
        nonlocal sums, counted
        if counted:
            line = {"step": step, "epoch": epoch} | {k: v / counted for k, v in sums.items()}
            with log_path(out).open("a") as log:
                log.write(json.dumps(line) + "\n")
        sums, counted = {}, 0

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())  # fmt: skip
    size = None
    with Progress(*columns, transient=False) as progress:
        task = progress.add_task(label, total=None, completed=step)
        while epoch < config.epochs and not finished:
            epoch_batches = batches(epoch, epoch_generator(config.seed, epoch))
            size = len(epoch_batches) if hasattr(epoch_batches, "__len__") else None
            progress.update(task, total=_steps_planned(config, size))
            for i, batch in enumerate(epoch_batches):
                if i < batch_index:  # trained on before the run was stopped
                    continue
                model.train()
                parts = loss(model, batch)
                optimizer.zero_grad(set_to_none=True)
                parts["loss"].backward()
                if config.grad_clip is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
                optimizer.step()
                step, batch_index = step + 1, i + 1
                last_loss = parts["loss"].detach().item()
                for name, value in parts.items():
                    sums[name] = sums.get(name, 0.0) + float(value.detach())
                counted += 1
                progress.update(task, completed=step, description=f"{label} epoch {epoch + 1} loss {last_loss:.3f}")
                if config.max_steps is not None and step >= config.max_steps:
                    finished = True
                    break
                if step % config.checkpoint_every == 0:
                    write_log()
                    save(False)
            else:
                epoch, batch_index = epoch + 1, 0
        write_log()
        save(True)
    stopped = "max_steps" if config.max_steps is not None and step >= config.max_steps else "epochs"
    seconds = time.perf_counter() - started
    return TrainResult(step, epoch, last_loss, log_path(out), seconds, stopped, batch_index, size)
