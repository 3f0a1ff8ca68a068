"""Where episodes come from, told apart by what the files hold, not by their names: a homesim dataset
folder, one split file of a dataset folder (`DATASET/<split>.jsonl.gz`), ALFRED trajectories (a
json_2.1.0 tree, a traj_data.json, or a .jsonl[.gz] of them; their floor plans need ALFRED's layout
files), HandMeThat's episode files (one, or a folder of them: its episodes are the split named after the
folder), or, with no path, the built-in episodes. Anything else is one `DataError` saying what the file
is and what was expected."""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.folder import is_dataset, read_dataset, read_manifest
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.errors import DataError
from homesim.files import parse_json, regular_file
from homesim.world.scene import Scene

TRAJECTORY_FIELDS = {"plan", "scene", "task_type"}  # an ALFRED traj_data.json
EPISODE_FIELDS = {"initial_state", "scene_id"}  # a homesim episode, a line of a dataset's split file
HANDMETHAT_FIELD = "initial_object_dict"  # one of HandMeThat's episode files


@dataclass(frozen=True)
class Episodes:
    """Episodes by split, the scenes they play in, their suite, and what could not be read (ALFRED
    trajectories are read one by one: a malformed one is skipped and listed here)."""

    splits: dict[str, list]
    scenes: dict[str, Scene]
    suite: str = AlfredEpisode.suite
    skipped: list[DataError] = field(default_factory=list)

    def all(self) -> list:
        return [e for episodes in self.splits.values() for e in episodes]


def _first_record(path: Path) -> object:
    """The first JSON value of a file: its first non-empty line for JSON lines, else the whole file."""
    regular_file(path)
    try:
        if path.name.endswith((".jsonl", ".jsonl.gz", ".gz")):
            opener = gzip.open if path.name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as lines:
                text = next((line for line in lines if line.strip()), "")
        else:
            text = path.read_text(encoding="utf-8")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
        raise DataError(str(path), "(file)", f"unreadable (cut short, or not what its name says): {e}") from e
    if not text.strip():
        raise DataError(str(path), "(file)", "empty: expected episodes")
    return parse_json(text, str(path))


ALFRED_DEPTH, HANDMETHAT_DEPTH = 5, 2  # folders down to a traj_data.json (data/json_2.1.0/split/task/trial)


def _near(folder: Path, pattern: str, depth: int) -> list[Path]:
    """The files matching `pattern` at most `depth` folders down (not the whole tree: `--episodes /` would
    search the whole disk), the shallowest first."""
    for level in range(depth + 1):
        found = sorted(folder.glob("*/" * level + pattern))
        if found:
            return found
    return []


def kind_of(path: str | Path) -> str:
    """What a path holds: "dataset", "dataset_split", "alfred_trajectories" or "handmethat_files"; a
    DataError otherwise."""
    path = Path(path)
    if path.is_dir():
        if is_dataset(path):
            return "dataset"
        if _near(path, "traj_data.json", ALFRED_DEPTH):
            return "alfred_trajectories"
        from homesim.datasets.handmethat.files import is_handmethat_file

        if any(is_handmethat_file(p) for p in _near(path, "*.json", HANDMETHAT_DEPTH)):
            return "handmethat_files"
        raise DataError(
            str(path), "(folder)", "holds neither a dataset.json nor ALFRED traj_data.json files nor HandMeThat episodes"
        )
    first = _first_record(path)
    keys = first.keys() if isinstance(first, dict) else set()
    if TRAJECTORY_FIELDS <= keys:
        return "alfred_trajectories"
    if HANDMETHAT_FIELD in keys:
        return "handmethat_files"
    if EPISODE_FIELDS <= keys:
        if is_dataset(path.parent) and path.name.endswith(".jsonl.gz"):
            return "dataset_split"
        raise DataError(
            str(path),
            "(file)",
            "holds homesim episodes outside a dataset folder: give the folder (it has their scenes)",
        )
    raise DataError(
        str(path),
        "(file)",
        "neither a homesim dataset nor ALFRED trajectories (no plan/scene/task_type fields)"
        f" nor a HandMeThat episode file (no {HANDMETHAT_FIELD})",
    )


def read_episodes(
    path: str | Path | None, layouts: str | Path | None = None, split: str | None = None, suite: str | None = None
) -> Episodes:
    """The episodes at `path` (only `split`, if given), whatever kind of source it is."""
    if path is None:
        if suite not in (None, AlfredEpisode.suite):
            raise DataError("(no path)", "--episodes", f"there are no built-in {suite} episodes: give a path")
        from homesim.datasets.alfred.builtin import builtin_episodes

        if split not in (None, "builtin"):
            raise DataError("the built-in episodes", "--split", f"they have one split, 'builtin', not {split!r}")
        built, scenes = builtin_episodes()
        return Episodes({"builtin": built}, scenes)
    path = Path(path)
    kind = kind_of(path)
    if kind == "dataset_split":
        name = path.name.removesuffix(".jsonl.gz")
        if split not in (None, name):
            raise DataError(str(path), "--split", f"the file is split {name!r}, not {split!r}")
        path, split = path.parent, name
    if kind.startswith("dataset"):
        splits, scenes = read_dataset(path, split, suite)
        return Episodes(splits, scenes, read_manifest(path)["suite"])
    if kind == "handmethat_files":
        return _handmethat_episodes(path, split, suite)
    if suite not in (None, AlfredEpisode.suite):
        raise DataError(str(path), "(file)", f"holds ALFRED trajectories, not {suite} episodes")
    if layouts is None:
        raise DataError(str(path), "--layouts", "holds ALFRED trajectories: give --layouts, ALFRED's layout files")
    from homesim.datasets.alfred.importer import import_alfred

    splits, scenes, skipped = import_alfred(path, layouts, split)
    return Episodes(splits, scenes, AlfredEpisode.suite, skipped)


def _handmethat_episodes(path: Path, split: str | None, suite: str | None) -> Episodes:
    """One of HandMeThat's episode files (read whole, or a `DataError`), or a folder of them (the ones that
    cannot be read are skipped and listed); their split is named after the folder."""
    from homesim.datasets.handmethat.files import read_handmethat_file, read_handmethat_files

    if suite not in (None, HandMeThatEpisode.suite):
        raise DataError(str(path), "(file)", f"holds HandMeThat episodes, not {suite} episodes")
    name = path.name if path.is_dir() else path.parent.name
    if split not in (None, name):
        raise DataError(str(path), "--split", f"HandMeThat's files here make the split {name!r}, not {split!r}")
    if not path.is_dir():
        return Episodes({name: [read_handmethat_file(path)]}, {}, HandMeThatEpisode.suite)
    read = list(read_handmethat_files(path))
    episodes = [e for e in read if not isinstance(e, DataError)]
    return Episodes({name: episodes}, {}, HandMeThatEpisode.suite, [e for e in read if isinstance(e, DataError)])
