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
import re
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.annotations import with_annotations
from homesim.datasets.formats import EPISODE_MODELS, SceneModel, checked_in_scene
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.errors import DataError
from homesim.files import check_manifest, gzipped, parse_json, read_json, regular_file, validated, write_file
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.world.scene import Scene

FORMAT_VERSION = 1
SPLIT_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a split is a file name: no path in it
SCENE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
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
    """Writes a dataset folder, each file whole or not at all and `dataset.json` last (a command writes it
    into the `.partial` folder of `homesim.files.open_output`, which adds the manifest of sizes and digests)."""
    out = Path(out)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    used = _scene_ids(splits)
    for scene_id in sorted(used):
        write_file(out / "scenes" / f"{scene_id}.json", json.dumps(scenes[scene_id].to_dict(), sort_keys=True))
    for split, episodes in splits.items():
        lines = "".join(json.dumps(e.to_dict(), sort_keys=True) + "\n" for e in episodes)
        write_file(out / f"{split}.jsonl.gz", gzipped(lines.encode()))
    manifest = {
        "version": FORMAT_VERSION,
        "suite": suite,
        "splits": {s: len(e) for s, e in splits.items()},
        "source": source,
    }
    write_file(out / "dataset.json", json.dumps(manifest, indent=1, sort_keys=True))


def is_dataset(path: str | Path) -> bool:
    return (Path(path) / "dataset.json").is_file()


def read_manifest(path: str | Path) -> dict:
    """A dataset folder's `dataset.json`, checked: its version, a known suite, its splits and their counts."""
    manifest_file = Path(path) / "dataset.json"
    manifest = read_json(manifest_file)
    if not isinstance(manifest, dict) or manifest.get("version") != FORMAT_VERSION:
        raise DataError(str(manifest_file), "version", f"expected version {FORMAT_VERSION}")
    if not isinstance(manifest.get("suite"), str) or manifest["suite"] not in EPISODE_TYPES:
        raise DataError(
            str(manifest_file), "suite", f"{manifest.get('suite')!r} is not one of {', '.join(EPISODE_TYPES)}"
        )
    if not isinstance(manifest.get("splits"), dict):
        raise DataError(str(manifest_file), "splits", "missing or not an object")
    for name, count in manifest["splits"].items():
        if not (isinstance(count, int) and not isinstance(count, bool) and count >= 0):
            raise DataError(str(manifest_file), f"splits.{name}", f"{count!r} is not a count of episodes")
        if not SPLIT_NAME.fullmatch(name):
            raise DataError(str(manifest_file), f"splits.{name}", "a split's name is letters, digits, - and _")
    return manifest


def read_dataset(
    path: str | Path, split: str | None = None, suite: str | None = None, annotations: bool = True
) -> tuple[dict[str, list], dict[str, Scene]]:
    """The episodes of a dataset folder (every split, or one), and the scenes they use. With `suite`, a
    folder of another suite is refused. Each file read is checked against the folder's manifest (where it
    has one), and each split's episodes are counted against `dataset.json`. The directives people wrote for
    them (`datasets.annotations`) are added to their own, unless `annotations` is False (to write the folder
    again: they stay apart)."""
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
    check_manifest(path, ["dataset.json"] + [f"{name}.jsonl.gz" for name in names])
    placed: list = []  # (where, the episode's model) for the check against its scene
    splits = {
        name: _read_split(path / f"{name}.jsonl.gz", episode_type, manifest["splits"][name], placed) for name in names
    }
    if annotations:
        splits = {name: with_annotations(path, name, episodes) for name, episodes in splits.items()}
    used = sorted(_scene_ids(splits))
    for scene_id in used:
        if not SCENE_ID.fullmatch(scene_id):  # a file name in scenes/, never a path out of it
            raise DataError(str(path), "scene_id", f"{scene_id!r} is not a scene id (letters, digits, - _ .)")
    check_manifest(path, [f"scenes/{scene_id}.json" for scene_id in used])
    scenes, read = {}, {}
    for scene_id in used:
        file = path / "scenes" / f"{scene_id}.json"
        read[scene_id] = read_json(file)
        validated(SceneModel, read[scene_id], str(file))
        try:
            scenes[scene_id] = Scene.from_dict(read[scene_id])
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise DataError(str(file), "(scene)", f"not a scene: {e!r}") from e
    for where, model in placed:
        checked_in_scene(model, read[model.scene_id], where)
    return splits, scenes


def _read_split(file: Path, episode_type: type, count: int, placed: list) -> list:
    """A split file's episodes, as many as `dataset.json` says it holds, each checked against its suite's
    input model (`homesim.datasets.formats`); `placed` gets each one's model, to check against its scene."""
    episodes, number = [], 0
    model = EPISODE_MODELS.get(episode_type.suite)
    try:
        with gzip.open(regular_file(file), "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if number > count:
                    break
                data = parse_json(line, f"{file}:{number}")
                if model is not None:
                    checked = validated(model, data, f"{file}:{number}")
                    if hasattr(checked, "check_in_scene"):
                        placed.append((f"{file}:{number}", checked))
                episodes.append(episode_type.from_dict(data))
    except DataError:
        raise
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:  # missing, not gzip, cut short
        raise DataError(str(file), "(file)", f"unreadable (cut short, or not gzip): {e}") from e
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise DataError(f"{file}:{number}", "(episode)", f"not an episode: {e!r}") from e
    if len(episodes) != count or number > count:
        held = f"more than {count}" if number > count else str(len(episodes))
        raise DataError(str(file), "(file)", f"holds {held} episodes, dataset.json says {count}: cut short or changed")
    return episodes
