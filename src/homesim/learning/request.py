"""What `homesim train` asks of a suite's trainer: every option of the command, whichever suite reads it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from homesim.learning.loop import TrainConfig, TrainResult

TRAINERS = "homesim.trainers"  # entry points: suite -> a `Trainer` (imported only when used)


@dataclass(frozen=True)
class TrainRequest:
    agent: str
    data: Path
    out: Path
    config: TrainConfig
    ablation: str = "none"
    dagger_rounds: int = 0
    episodes: Path | None = None  # DAgger: the episodes the learner acts in (default: those of the data)
    layouts: Path | None = None
    workers: int = 1
    observability: str | None = None  # HandMeThat: the game the model is trained in (default: partial)
    split: str | None = None  # HandMeThat: the split learned from (default: train, or the data's only split)

    def reject(self, suite: str, *unused: str) -> None:
        """One ValueError naming the first of the options `unused` (field names) that was given a value,
        since `suite`'s trainer for this agent has no use for it."""
        defaults = {
            "ablation": "none", "dagger_rounds": 0, "episodes": None, "layouts": None, "workers": 1,
            "observability": None, "split": None,
        }  # fmt: skip
        for name in unused:
            if getattr(self, name) != defaults[name]:
                option = "--" + name.replace("_", "-")
                raise ValueError(f"{option}: {suite}'s {self.agent} training has no use for it")


@dataclass(frozen=True)
class Trainer:
    """A suite's trainer, as an entry point of the `homesim.trainers` group names it (after its suite)."""

    data: str  # what its training data is, for messages ("an ALFRED frames folder (homesim alfred frames)")
    accepts: Callable[[Path], bool]  # whether a path holds such data
    train: Callable[[TrainRequest], TrainResult]
    agents: tuple[str, ...]  # the learned agents it trains
    # what a checkpoint's `describe` says it learned from, made checkable for a published checkpoint's card
    # (`learning.export`): the data's path, its files' SHA-256 and the episodes it holds, by count and digest
    provenance: Callable[[dict], list[dict]]
