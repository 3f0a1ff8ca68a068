"""Where episodes come from, told apart by what the files hold, not by their names: a homesim dataset
folder, one split file of a dataset folder (`DATASET/<split>.jsonl.gz`), ALFRED trajectories (a
json_2.1.0 tree, a traj_data.json, or a .jsonl[.gz] of them; their floor plans need ALFRED's layout
files), HandMeThat's episode files (one, or a folder of them: its episodes are the split named after the
folder), or, with no path, a suite's built-in episodes. Anything else is one `DataError` saying what the file
is and what was expected."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.folder import is_dataset, read_dataset, read_manifest
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.errors import DataError
from homesim.files import parse_json, regular_file
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.world.scene import Scene

TRAJECTORY_FIELDS = {"plan", "scene", "task_type"}  # an ALFRED traj_data.json
EPISODE_FIELDS = {"initial_state", "scene_id"}  # a homesim episode, a line of a dataset's split file
HANDMETHAT_FIELD = "initial_object_dict"  # one of HandMeThat's episode files
BUILTIN_SPLIT = "builtin"  # the split of the built-in episodes


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

    def subset(self, limit: int | None = None, ids: Sequence[str] = (), where: str = "the episodes") -> Episodes:
        """Only the episodes named by id (`ids`), and of those only the first `limit` of each split; a DataError
        names an id no split has."""
        missing = set(ids) - {e.id for e in self.all()}
        if missing:
            shown = ", ".join(sorted(missing)[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            raise DataError(where, "--episode-ids", f"no episode has the id {shown}")
        wanted = set(ids)
        splits = {s: [e for e in episodes if not wanted or e.id in wanted] for s, episodes in self.splits.items()}
        return replace(self, splits={s: episodes[:limit] for s, episodes in splits.items()})


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
        from homesim.datasets.handmethat.export import DATA_INFO
        from homesim.datasets.handmethat.files import is_handmethat_file

        if (path / DATA_INFO).is_file() or any(is_handmethat_file(p) for p in _near(path, "*.json", HANDMETHAT_DEPTH)):
            return "handmethat_files"
        raise DataError(
            str(path),
            "(folder)",
            "holds neither a dataset.json nor ALFRED traj_data.json files nor HandMeThat episodes",
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
        return _builtin(suite or AlfredEpisode.suite, split)
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


def _builtin(suite: str, split: str | None) -> Episodes:
    """A suite's built-in episodes (a few, made on first use), as one split named "builtin"."""
    from homesim.datasets.alfred.builtin import builtin_episodes
    from homesim.datasets.handmethat.builtin import builtin_handmethat
    from homesim.datasets.objectnav.builtin import builtin_objectnav

    made = {
        AlfredEpisode.suite: builtin_episodes,
        HandMeThatEpisode.suite: builtin_handmethat,
        ObjectNavEpisode.suite: builtin_objectnav,
    }
    if suite not in made:
        raise DataError("(no path)", "--episodes", f"there are no built-in {suite} episodes: give a path")
    if split not in (None, BUILTIN_SPLIT):
        raise DataError("the built-in episodes", "--split", f"they have one split, {BUILTIN_SPLIT!r}, not {split!r}")
    episodes, scenes = made[suite]()
    return Episodes({BUILTIN_SPLIT: episodes}, scenes, suite)


def _their_splits(path: Path) -> dict[str, list[Path]] | None:
    """The splits of a folder in the authors' layout (`generate handmethat --format handmethat`): the files
    their index (`HandMeThat_data_info.json`) lists per split, under homesim's split names; None elsewhere."""
    from homesim.datasets.handmethat.export import DATA_INFO, EPISODES_FOLDER, THEIR_SPLITS

    index = path / DATA_INFO
    if not index.is_file():
        return None
    try:
        by_split = json.loads(index.read_text())[3]
        ours = {theirs: mine for mine, theirs in THEIR_SPLITS.items()}
        named = {ours.get(name, name): [path / EPISODES_FOLDER / f for f in files] for name, files in by_split.items()}
        return {name: files for name, files in sorted(named.items()) if files}
    except (OSError, json.JSONDecodeError, IndexError, KeyError, AttributeError, TypeError) as e:
        raise DataError(str(index), "(file)", f"not their index of splits: {e!r}") from None


def _handmethat_episodes(path: Path, split: str | None, suite: str | None) -> Episodes:
    """One of HandMeThat's episode files (read whole, or a `DataError`), or a folder of them (the ones that
    cannot be read are skipped and listed). Files directly in a folder make the split named after it; files in
    its subfolders make a split per subfolder; a folder in the authors' layout, the splits their index names."""
    from homesim.datasets.handmethat.files import NOT_EPISODES, read_handmethat_file, read_handmethat_files

    def files_in(folder: Path) -> list[Path]:  # the top folder's own files; a subfolder's, however deep
        found = folder.glob("*.json") if folder == path else folder.rglob("*.json")
        return sorted(f for f in found if f.name not in NOT_EPISODES)

    if suite not in (None, HandMeThatEpisode.suite):
        raise DataError(str(path), "(file)", f"holds HandMeThat episodes, not {suite} episodes")
    if not path.is_dir():
        name = path.parent.name
        if split not in (None, name):
            raise DataError(str(path), "--split", f"HandMeThat's file here makes the split {name!r}, not {split!r}")
        return Episodes({name: [read_handmethat_file(path)]}, {}, HandMeThatEpisode.suite)
    groups = _their_splits(path)  # their layout: the splits their index names
    if groups is None:
        folders = ({path.name: path} if files_in(path) else {}) | {
            f.name: f for f in sorted(path.iterdir()) if f.is_dir() and files_in(f)
        }
        groups = {name: files_in(folder) for name, folder in folders.items()}
    if split is not None:
        if split not in groups:
            made = ", ".join(repr(name) for name in groups)
            raise DataError(str(path), "--split", f"HandMeThat's files here make the splits {made}, not {split!r}")
        groups = {split: groups[split]}
    splits, skipped = {}, []
    for name, files in groups.items():
        episodes = [e for f in files for e in read_handmethat_files(f)]
        splits[name] = [e for e in episodes if not isinstance(e, DataError)]
        skipped += [e for e in episodes if isinstance(e, DataError)]
    return Episodes(splits, {}, HandMeThatEpisode.suite, skipped)
