"""An evaluation's folder: what `run.json` says of the run beyond its settings, how an interrupted run is
continued, and how a reader tells a finished run from a partial one.

    OUT/
      run.json        the `EvaluationConfig`, with "data" (each split's digest: what was played) and
                      "work_items" (how many records the finished run holds)
      records.jsonl   one episode record per line, appended as episodes finish, sorted at the end
      summary.json    the figures, from the records alone (written when every work item is played)
      manifest.json   each file's size and SHA-256, written last (`homesim.files`)

An evaluation is made in `OUT.partial/` and renamed to `OUT/` when finished. Run again with the same
settings on the same data, an interrupted evaluation keeps the records it finished (a line cut short by
the kill, and records of work items no worker could play, are dropped) and plays the rest: the finished
folder has the same bytes as a run that was never interrupted, since records are sorted at the end.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from homesim.errors import DataError
from homesim.evaluation.records import EpisodeRecord, parse_record, read_records
from homesim.files import check_manifest, partial_of, read_json, write_file

RUN_FACTS = ("data", "work_items")  # what run.json holds besides the `EvaluationConfig`


def data_digests(splits: Mapping[str, Sequence], scenes: Mapping) -> dict[str, str]:
    """Each split's identity: the SHA-256 of its episodes and the scenes they use, as their files spell
    them (however they were read: a dataset folder, ALFRED's trajectories, HandMeThat's files)."""
    digests = {}
    for split, episodes in sorted(splits.items()):
        h = hashlib.sha256()
        for episode in episodes:
            h.update(json.dumps(episode.to_dict(), sort_keys=True).encode() + b"\n")
        for scene_id in sorted({e.scene_id for e in episodes if e.scene_id is not None}):
            h.update(json.dumps(scenes[scene_id].to_dict(), sort_keys=True).encode() + b"\n")
        digests[split] = "sha256:" + h.hexdigest()
    return digests


def kept_records(path: Path) -> list[tuple[EpisodeRecord, str]]:
    """The records an interrupted run finished, each with its line, and the file rewritten to hold only
    them: a last line cut short by the kill and records of work items no worker played are dropped."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines.pop()
    kept = []
    for number, line in enumerate(lines, start=1):
        record = parse_record(line, f"{path}:{number}")
        if record.end_reason != "worker_failed":
            kept.append((record, line))
    if "".join(line for _, line in kept) != text:
        write_file(path, "".join(line for _, line in kept))
    return kept


def unplayed(items: Sequence, kept: Sequence[EpisodeRecord], record_of) -> list:
    """The work items no kept record stands for (`record_of(item)`: an item's record, for its key)."""
    done = Counter(record.key for record in kept)
    left = []
    for item in items:
        key = record_of(item).key
        if done[key]:
            done[key] -= 1
        else:
            left.append(item)
    return left


@dataclass(frozen=True)
class RunFolder:
    """What a reader finds in an evaluation's folder."""

    folder: Path
    settings: dict  # run.json as written
    records: list[EpisodeRecord]
    finished: bool  # every work item played (its summary written), or from before homesim wrote manifests
    planned: int | None  # work items of the whole run (None: a run.json from before homesim wrote it)

    @property
    def data(self) -> dict[str, str]:
        return self.settings.get("data") or {}

    def partial_note(self) -> str | None:
        """A line saying the run is partial, with how much of it there is; None for a finished run."""
        if self.finished:
            return None
        of = f" of {self.planned}" if self.planned is not None else ""
        return (
            f"{self.folder} is a partial evaluation: {len(self.records)}{of} work items played (it was"
            " interrupted: run its evaluate command again to finish it)"
        )


def find_run(path: Path) -> tuple[Path, str | None]:
    """The evaluation folder `path` names (itself, the folder of a file in it, or, for a run not finished
    yet, its `.partial` folder), and a note when it is the latter."""
    if path.is_file():
        path = path.parent
    if not path.exists() and partial_of(path).is_dir():
        return partial_of(path), f"{path} is not finished: reading {partial_of(path)}"
    if not path.exists():
        raise DataError(str(path), "(folder)", "does not exist")
    return path, None


def read_run_folder(folder: Path) -> RunFolder:
    """An evaluation folder's settings and records, checked against its manifest (a file changed since the
    run is named) and, for a finished run, its records counted against run.json."""
    manifest = check_manifest(folder)
    settings = read_json(folder / "run.json")
    if not isinstance(settings, dict):
        raise DataError(str(folder / "run.json"), "(file)", "expected a JSON object of settings")
    records = read_records(folder / "records.jsonl")
    finished = manifest is not None or (folder / "summary.json").exists()
    planned, data = settings.get("work_items"), settings.get("data", {})
    if planned is not None and not (isinstance(planned, int) and not isinstance(planned, bool) and planned >= 0):
        raise DataError(str(folder / "run.json"), "work_items", f"{planned!r} is not a count")
    if not (isinstance(data, dict) and all(isinstance(v, str) and v.startswith("sha256:") for v in data.values())):
        raise DataError(str(folder / "run.json"), "data", "expected each split's digest, sha256:<hex>")
    if manifest is not None and planned is not None and len(records) != planned:
        where = str(folder / "records.jsonl")
        raise DataError(where, "(file)", f"holds {len(records)} records, run.json planned {planned}")
    return RunFolder(folder, settings, records, finished, planned)


def mixed_data(runs: Sequence[RunFolder]) -> list[str]:
    """Notes on runs that were not played on the same data: per split both runs have, differing digests,
    and runs that recorded none."""
    notes, first_of = [], {}
    for run in runs:
        if not run.data:
            notes.append(f"{run.folder} records no digest of its data (made before homesim recorded one)")
        for split, digest in sorted(run.data.items()):
            first = first_of.setdefault(split, (run, digest))
            if first[1] != digest:
                notes.append(
                    f"DIFFERENT DATA: split {split} of {run.folder} is not the {split} of {first[0].folder}"
                    f" ({digest[7:19]} vs {first[1][7:19]}): their rows do not compare"
                )
    return notes
