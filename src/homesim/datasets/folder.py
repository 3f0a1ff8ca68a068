"""homesim dataset folders: the files an experiment needs, versioned, for every suite.

    DATASET/
      dataset.json             {"version": 1, "suite": "alfred", "splits": {"valid_seen": 251, ...}, "source": ...}
      scenes/<scene id>.json   one `Scene.to_dict()` per scene the episodes use
      <split>.jsonl.gz         one episode per line: the suite's episode type's `to_dict()`
      annotations/<split>.jsonl  directives people wrote for its demonstrations (`datasets.annotations`)

A suite's episode type (`EPISODE_TYPES`, by the `suite` each declares) has `to_dict()`, `from_dict(data)` and
`scene_id` (None for an episode that carries its own world, as HandMeThat's do).

Writing is deterministic (same episodes, same bytes: gzip without a timestamp).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.annotations import with_annotations
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.errors import DataError
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.world.scene import Scene

FORMAT_VERSION = 1
EPISODE_TYPES: dict[str, type] = {t.suite: t for t in (AlfredEpisode, HandMeThatEpisode, ObjectNavEpisode)}


def _scene_ids(splits: Mapping[str, Sequence]) -> set[str]:
    return {e.scene_id for episodes in splits.values() for e in episodes if e.scene_id is not None}


def write_dataset(
    out: str | Path,
    splits: Mapping[str, Sequence],
    scenes: Mapping[str, Scene],
    source: dict,
    suite: str = AlfredEpisode.suite,
) -> None:
    out = Path(out)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    used = _scene_ids(splits)
    for scene_id in sorted(used):
        (out / "scenes" / f"{scene_id}.json").write_text(json.dumps(scenes[scene_id].to_dict(), sort_keys=True))
    for split, episodes in splits.items():
        lines = "".join(json.dumps(e.to_dict(), sort_keys=True) + "\n" for e in episodes)
        with open(out / f"{split}.jsonl.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            gz.write(lines.encode())
    manifest = {
        "version": FORMAT_VERSION,
        "suite": suite,
        "splits": {s: len(e) for s, e in splits.items()},
        "source": source,
    }
    (out / "dataset.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))


def is_dataset(path: str | Path) -> bool:
    return (Path(path) / "dataset.json").is_file()


def read_manifest(path: str | Path) -> dict:
    """A dataset folder's `dataset.json`, checked: its version, a known suite, its splits."""
    manifest_file = Path(path) / "dataset.json"
    try:
        manifest = json.loads(manifest_file.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise DataError(str(manifest_file), "(file)", f"unreadable: {e}") from e
    if not isinstance(manifest, dict) or manifest.get("version") != FORMAT_VERSION:
        raise DataError(str(manifest_file), "version", f"expected version {FORMAT_VERSION}")
    if manifest.get("suite") not in EPISODE_TYPES:
        raise DataError(
            str(manifest_file), "suite", f"{manifest.get('suite')!r} is not one of {', '.join(EPISODE_TYPES)}"
        )
    if not isinstance(manifest.get("splits"), dict):
        raise DataError(str(manifest_file), "splits", "missing or not an object")
    return manifest


def read_dataset(
    path: str | Path, split: str | None = None, suite: str | None = None, annotations: bool = True
) -> tuple[dict[str, list], dict[str, Scene]]:
    """The episodes of a dataset folder (every split, or one), and the scenes they use. With `suite`, a
    folder of another suite is refused. The directives people wrote for them (`datasets.annotations`) are
    added to their own, unless `annotations` is False (to write the folder again: they stay apart)."""
    path = Path(path)
    manifest_file = path / "dataset.json"
    manifest = read_manifest(path)
    if suite is not None and manifest["suite"] != suite:
        raise DataError(str(manifest_file), "suite", f"holds {manifest['suite']} episodes, not {suite}")
    episode_type = EPISODE_TYPES[manifest["suite"]]
    names = [split] if split else list(manifest["splits"])
    unknown = [n for n in names if n not in manifest["splits"]]
    if unknown:
        raise DataError(
            str(manifest_file), "splits", f"no split {unknown[0]!r}; it has {', '.join(manifest['splits'])}"
        )
    splits = {}
    for name in names:
        file = path / f"{name}.jsonl.gz"
        splits[name] = []
        number = 0
        try:
            with gzip.open(file, "rt", encoding="utf-8") as lines:
                for number, line in enumerate(lines, start=1):
                    splits[name].append(episode_type.from_dict(json.loads(line)))
        except (OSError, EOFError) as e:  # missing, not gzip, cut short
            raise DataError(str(file), "(file)", f"unreadable: {e}") from e
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
            raise DataError(f"{file}:{number}", "(episode)", f"not an episode: {e!r}") from e
        if annotations:
            splits[name] = with_annotations(path, name, splits[name])
    scenes = {}
    for scene_id in sorted(_scene_ids(splits)):
        file = path / "scenes" / f"{scene_id}.json"
        try:
            scenes[scene_id] = Scene.from_dict(json.loads(file.read_text()))
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
            raise DataError(str(file), "(scene)", f"missing or unreadable: {e!r}") from e
    return splits, scenes
