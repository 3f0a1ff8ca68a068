"""Agents rebuilt from `homesim train` checkpoints: the checkpoint says which suite and model it holds, and
that model's builder makes the agent. Builders are found through the `homesim.checkpoints` entry points
(named `<suite>.<agent>`, declared in `pyproject.toml`; a package of learned agents can add its own), and
imported only when used, so nothing else needs torch."""

from __future__ import annotations

import zipfile
from importlib.metadata import entry_points
from pathlib import Path

from homesim.agents.protocol import Agent
from homesim.errors import DataError

FORMAT, VERSION = "homesim-checkpoint", 1  # what `homesim train` writes (`learning.loop`)
GROUP = "homesim.checkpoints"  # entry points: "<suite>.<agent>" -> function(checkpoint: dict, seed: int) -> Agent


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
    return next(iter(found)).load()(checkpoint, seed)
