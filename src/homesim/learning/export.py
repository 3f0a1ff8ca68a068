"""Weights-only checkpoints to publish (`homesim export-weights`), each with its card.

A `homesim train` checkpoint carries what resuming needs (Adam's moments, the RNG state), twice the size of the
weights. The exported file keeps what playing needs: the format, `describe` (the model and its vocabulary),
the training settings, where training stood and the weights, and is marked `weights_only` so that training
never tries to resume from it. It loads as any finished checkpoint does (`agents.learned.load_learned`).

The card (`<name>.card.json` beside it) says what the weights are and how they were made: the weights' file
SHA-256 and size, the agent, the steps and epochs trained, the settings, the data by digest (the suite's
trainer reads `describe`: `learning.request.Trainer.provenance`) and the notes the exporter adds (the
command, the commit, the seconds it took), so anyone can check the file and remake it.
"""

from __future__ import annotations

import hashlib
import io
from importlib.metadata import entry_points
from pathlib import Path

import torch

from homesim.agents.learned import load_checkpoint
from homesim.errors import DataError
from homesim.files import digest_of, write_file, write_json
from homesim.learning.request import TRAINERS

PLAY_KEYS = ("format", "version", "describe", "config", "model", "step", "epoch", "batch", "finished", "loss")


def card_path(weights: str | Path) -> Path:
    weights = Path(weights)
    return weights.with_name(weights.name.removesuffix(".pt") + ".card.json")


def source_digest(path: Path) -> str | None:
    """A training source's SHA-256: a file's own; a folder's, that of its files' `sha256sum` lines in name
    order (`cd DIR && find * -type f | LC_ALL=C sort | xargs sha256sum | sha256sum`); None if it is gone."""
    if path.is_file():
        return digest_of(path)
    if not path.is_dir():
        return None
    names = sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file())
    lines = "".join(f"{digest_of(path / n).removeprefix('sha256:')}  {n}\n" for n in names if not n.startswith("."))
    return "sha256:" + hashlib.sha256(lines.encode()).hexdigest()


def list_digest(ids: list[str]) -> str:
    """The SHA-256 of episode ids one a line (`printf '%s\\n' ID... | sha256sum`)."""
    return "sha256:" + hashlib.sha256("".join(i + "\n" for i in ids).encode()).hexdigest()


def split_provenance(describe: dict, ids: list[str] | None) -> list[dict]:
    """A dataset split's provenance: its folder's digest and its episodes' ids, by count and digest (None where
    the data is not there any more)."""
    return [{
        "data": describe["data"], "sha256": source_digest(Path(describe["data"])), "split": describe["split"],
        "episodes": describe["episodes"], "episode_list_sha256": list_digest(ids) if ids is not None else None,
    }]  # fmt: skip


def weights_only(checkpoint: dict) -> dict:
    """A finished checkpoint without its optimizer and RNG state, marked so that training will not resume it."""
    return {key: checkpoint[key] for key in PLAY_KEYS} | {"weights_only": True}


def provenance(describe: dict) -> list[dict]:
    """The training data of a checkpoint with this `describe`, as its suite's trainer digests it."""
    found = entry_points(group=TRAINERS, name=describe.get("suite", ""))
    return next(iter(found)).load().provenance(describe) if found else []


def export_weights(checkpoint_path: str | Path, out: str | Path, notes: dict[str, str]) -> dict:
    """Writes the weights-only `out` and its card (returned) from the finished checkpoint at `checkpoint_path`."""
    checkpoint, out = load_checkpoint(checkpoint_path), Path(out)
    if not checkpoint["finished"]:
        raise DataError(str(checkpoint_path), "finished", "training has not finished: run homesim train again first")
    buffer = io.BytesIO()  # saved to a file, torch would name the archive's folder after it: bytes would differ
    torch.save(weights_only(checkpoint), buffer)
    write_file(out, buffer.getvalue())
    describe = checkpoint["describe"]
    card = {
        "weights": out.name,
        "sha256": digest_of(out),
        "bytes": out.stat().st_size,
        "suite": describe["suite"],
        "agent": describe["agent"],
        "steps": checkpoint["step"],
        "epochs": checkpoint["epoch"],
        "batches_into_last_epoch": checkpoint["batch"],
        "final_loss": checkpoint["loss"],
        "config": checkpoint["config"],
        "model": describe.get("model"),
        "data": provenance(describe),
        "exported_from": str(checkpoint_path),
        "notes": notes,
    }
    write_json(card_path(out), card)
    return card
