"""A PyTorch `Dataset` over an ALFRED frames folder (`homesim.learning.alfred.frames`): one item per
(trajectory, human annotation), its frames, actions, target masks and sub-goal indices read from
memory-mapped shards, so a folder of any size opens without reading its frames."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from homesim.errors import DataError
from homesim.files import read_json, regular_file, validated
from homesim.learning.alfred.frames import FORMAT, STEP_DTYPE, VERSION, FramesMeta, trajectory_lines
from homesim.learning.export import list_digest, source_digest

if TYPE_CHECKING:
    from homesim.learning.vocab import Vocab

TEXT_KEYS = ("task_type", "id")


def read_meta(folder: str | Path) -> dict:
    """The folder's meta.json; a DataError unless it is a complete frames folder."""
    path = Path(folder) / "meta.json"
    if not path.exists():
        raise DataError(str(folder), "meta.json", "missing: not an ALFRED frames folder (`homesim alfred frames`)")
    meta = read_json(path)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise DataError(str(path), "format", f"expected {FORMAT!r}: not an ALFRED frames folder")
    if meta.get("version") != VERSION:
        raise DataError(str(path), "version", f"{meta.get('version')!r}: this homesim reads version {VERSION}")
    if meta.get("complete") is not True:
        raise DataError(str(path), "complete", "the extraction did not finish: run `homesim alfred frames` again")
    validated(FramesMeta, meta, str(path))
    return meta


def _shards(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("shard-*") if p.is_dir() and not p.name.endswith(".tmp"))


def _trajectories(shard: Path) -> list[dict]:
    return trajectory_lines(shard / "trajectories.jsonl")


def trajectory_texts(folder: str | Path) -> Iterator[str]:
    """Every goal and instruction of the folder (to build the vocabulary)."""
    read_meta(folder)
    for shard in _shards(Path(folder)):
        for trajectory in _trajectories(shard):
            for annotation in trajectory["annotations"]:
                yield annotation["goal"]
                yield from annotation["instructions"]


def frames_provenance(describe: dict) -> list[dict]:
    """What a checkpoint trained on, each frames folder (`describe["data"]`) by its source file's digest and
    the ids of the episodes it holds, by count and digest (`export.list_digest`): a card anyone holding the
    source can check. A folder that is gone is named, with no digests."""
    found = []
    for data in describe["data"]:
        folder = Path(data)
        if not (folder / "meta.json").is_file():
            found.append({"frames": data, "missing": True})
            continue
        meta = read_meta(folder)
        ids = [line["id"] for shard in _shards(folder) for line in _trajectories(shard)]
        skipped = (folder / "skipped.jsonl").read_text().splitlines() if (folder / "skipped.jsonl").is_file() else []
        found.append({
            "frames": data, "source": meta["source"], "source_sha256": source_digest(Path(meta["source"])),
            "split": meta["split"], "limit": meta.get("limit"), "size": meta["size"], "episodes": len(ids),
            "episode_list_sha256": list_digest(ids),
            "skipped": len(skipped), "steps": meta["steps"],
        })  # fmt: skip
    return found


class AlfredFrames(torch.utils.data.Dataset):
    """(trajectory, annotation) pairs of a frames folder, as tensors (see `__getitem__`)."""

    def __init__(self, folder: str | Path, vocab: Vocab) -> None:
        self.folder, self.vocab = Path(folder), vocab
        self.meta = read_meta(folder)
        self.height, self.width = self.meta["size"]
        self.shards: list[dict[str, np.ndarray]] = []
        self.trajectories: list[tuple[int, dict]] = []  # (shard, line)
        for k, shard in enumerate(_shards(self.folder)):
            self.shards.append(self._open(shard))
            self.trajectories += [(k, line) for line in _trajectories(shard)]
        steps = sum(line["length"] for _, line in self.trajectories)
        if (len(self.trajectories), steps) != (self.meta["trajectories"], self.meta["steps"]):
            raise DataError(
                str(self.folder),
                "shards",
                f"hold {len(self.trajectories)} trajectories and {steps} steps,"
                f" meta.json says {self.meta['trajectories']} and {self.meta['steps']}: incomplete or corrupt",
            )
        self.items = [(t, a) for t, (_, line) in enumerate(self.trajectories) for a in range(len(line["annotations"]))]

    def _open(self, shard: Path) -> dict[str, np.ndarray]:
        """The shard's arrays, memory-mapped, checked against each other and the meta's size."""
        h, w = self.height, self.width
        expected = {
            "frames": ((h, w, 3), np.uint8),
            "masks": (((h * w + 7) // 8,), np.uint8),
            "steps": ((), STEP_DTYPE),
        }
        arrays = {}
        for name, (shape, dtype) in expected.items():
            path = shard / f"{name}.npy"
            try:
                array = np.load(regular_file(path), mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError, EOFError) as e:
                raise DataError(str(path), "(file)", f"unreadable: {e}") from e
            if array.shape[1:] != shape or array.dtype != dtype:
                raise DataError(str(path), "(array)", f"{array.dtype}{list(array.shape)}: expected {dtype}[n, {shape}]")
            arrays[name] = array
        lengths = {len(a) for a in arrays.values()}
        rows = sum(line["length"] for line in _trajectories(shard))
        if lengths != {rows}:
            raise DataError(str(shard), "(arrays)", f"rows {sorted(lengths)} but trajectories.jsonl has {rows} steps")
        return arrays

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        t, a = self.items[i]
        k, line = self.trajectories[t]
        shard, rows = self.shards[k], slice(line["start"], line["start"] + line["length"])
        annotation = line["annotations"][a]
        instructions: list[int] = []
        for j, directive in enumerate(annotation["instructions"]):
            instructions += ([self.vocab.SEP] if j else []) + self.vocab.encode(directive)
        steps = np.array(shard["steps"][rows])
        n, subgoals = line["length"], max(line["subgoals"], 1)
        masks = np.unpackbits(shard["masks"][rows], axis=1, count=self.height * self.width)
        subgoal = torch.from_numpy(steps["subgoal"].astype(np.int64))
        return {
            "goal": torch.tensor(self.vocab.encode(annotation["goal"]), dtype=torch.long),
            "instructions": torch.tensor(instructions, dtype=torch.long),
            "frames": torch.from_numpy(np.array(shard["frames"][rows])).permute(0, 3, 1, 2).contiguous(),
            "actions": torch.from_numpy(steps["action"].astype(np.int64)),
            "masks": torch.from_numpy(masks.reshape(n, self.height, self.width).astype(bool)),
            "subgoal": subgoal,
            "progress": torch.arange(1, n + 1, dtype=torch.float32) / n,
            # ALFRED's +PM sub-goal target: the sub-goals completed so far over their number (1 at Stop)
            "subgoal_progress": subgoal.float() / subgoals,
            "target_class": torch.from_numpy(steps["target_class"].astype(np.int64)),
            "task_type": line["task_type"],
            "id": line["id"],
        }


def collate(items: list[dict]) -> dict:
    """A batch: every tensor padded along its first dimension to the longest (0 / False), strings as lists,
    and the lengths: "goal_lengths", "instructions_lengths" and "lengths" (steps)."""
    batch: dict = {}
    for key, value in items[0].items():
        if key in TEXT_KEYS:
            batch[key] = [item[key] for item in items]
        else:
            batch[key] = torch.nn.utils.rnn.pad_sequence([item[key] for item in items], batch_first=True)
    batch["goal_lengths"] = torch.tensor([len(item["goal"]) for item in items], dtype=torch.long)
    batch["instructions_lengths"] = torch.tensor([len(item["instructions"]) for item in items], dtype=torch.long)
    batch["lengths"] = torch.tensor([len(item["actions"]) for item in items], dtype=torch.long)
    return batch
