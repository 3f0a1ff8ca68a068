"""Agents rebuilt from `homesim train` checkpoints: the checkpoint says which suite and model it holds, and
that model's builder makes the agent. Builders are found through the `homesim.checkpoints` entry points
(named `<suite>.<agent>`, declared in `pyproject.toml`; a package of learned agents can add its own), and
imported only when used, so nothing else needs torch."""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from homesim.agents.protocol import Agent
from homesim.datasets.formats import Name
from homesim.errors import DataError
from homesim.files import validated

FORMAT, VERSION = "homesim-checkpoint", 1  # what `homesim train` writes (`learning.loop`)
GROUP = "homesim.checkpoints"  # entry points: "<suite>.<agent>" -> function(checkpoint: dict, seed: int) -> Agent
Count = Annotated[int, Field(strict=True, ge=0)]


class Description(BaseModel):
    """What a checkpoint says it holds: the suite and agent, and what its agent's builder reads."""

    model_config = ConfigDict(extra="allow")
    suite: Name
    agent: Name


class CheckpointModel(BaseModel):
    """The fields of a checkpoint that `homesim train` and the agents' builders read (the tensors are torch's)."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)
    describe: Description
    config: dict[str, Any]
    model: Mapping[str, Any]
    step: Count
    epoch: Count
    batch: Count
    finished: StrictBool


def is_checkpoint_spec(spec: str) -> bool:
    return spec.endswith(".pt")


def checkpoint_agents(suite: str) -> list[str]:
    """The agents whose checkpoints can play `suite`."""
    return [e.name.partition(".")[2] for e in entry_points(group=GROUP) if e.name.partition(".")[0] == suite]


def load_checkpoint(path: str | Path) -> dict:
    """A checkpoint written by `homesim train`, checked; a missing, truncated or foreign file is one DataError."""
    import torch  # only where a checkpoint is read

    path = Path(path)
    if not path.is_file():
        raise DataError(str(path), "(file)", "no such checkpoint")
    if not zipfile.is_zipfile(path):  # torch.save writes a zip archive; torch's own error would advise unsafe loading
        raise DataError(str(path), "(file)", "not a homesim checkpoint, or one cut short: no complete PyTorch file")
    try:  # torch checks no checksums: a damaged tensor would load as other weights, and play without a word
        damaged = zipfile.ZipFile(path).testzip()
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, NotImplementedError) as e:
        damaged = f"(archive: {e})"
    if damaged is not None:
        raise DataError(str(path), "(file)", f"a damaged checkpoint: {damaged} fails its CRC check")
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises pickle, zip and runtime errors alike for a damaged file
        said = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        raise DataError(str(path), "(file)", f"a damaged or foreign PyTorch file, not a readable homesim checkpoint"
                        f" ({type(e).__name__}: {said})") from None  # fmt: skip
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != FORMAT:
        raise DataError(str(path), "format", f"not a homesim checkpoint (expected format {FORMAT!r})")
    if checkpoint.get("version") != VERSION:
        raise DataError(str(path), "version", f"expected version {VERSION}, got {checkpoint.get('version')!r}")
    validated(CheckpointModel, checkpoint, str(path))
    return checkpoint


def load_learned(path: str | Path, seed: int = 0, suite: str = "alfred") -> Agent:
    checkpoint = load_checkpoint(path)
    describe = checkpoint["describe"]
    if describe.get("suite") != suite:
        raise ValueError(f"{path}: a {describe.get('suite')} checkpoint cannot play {suite}")
    if not checkpoint["finished"]:
        raise ValueError(f"{path}: training has not finished (step {checkpoint['step']}): run homesim train again")
    name = describe.get("agent")
    found = entry_points(group=GROUP, name=f"{suite}.{name}")
    if not found:
        known = ", ".join(checkpoint_agents(suite))
        raise ValueError(f"{path}: no {suite} agent is built from a {name!r} checkpoint; known: {known}")
    try:
        return next(iter(found)).load()(checkpoint, seed)
    except (KeyError, TypeError, ValueError, RuntimeError) as e:  # torch's mismatched weights: a RuntimeError
        said = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise DataError(str(path), "describe/model", f"builds no {suite} {name} agent: {said}") from None
