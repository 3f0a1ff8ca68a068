"""Per-scene tables kept on disk between runs: what a scene's poses see (`views`) and its route tables
(`planning.alfred.use_routes`) cost a few milliseconds per scene to work out, as much as hundreds of text
commands, so a run that meets many scenes reads them from a folder instead, where an earlier run that
met the scene left them (the first run pays for each scene once; any later run, in any process, reads).

The folder is `$HOMESIM_CACHE`, else `$XDG_CACHE_HOME/homesim`, else `~/.cache/homesim`;
`HOMESIM_CACHE=off` keeps nothing. A table's file is named by a hash of the scene's content (what
`Scene.to_dict` writes, and the order of its fixed objects) and of the source of the code that makes
the table, so an edited scene or an edited rule never reads an old answer. A file that cannot be read
or does not have the expected shape is made again; files are written whole (a temporary file, then
renamed), so processes sharing the folder never see half of one. The folder keeps at most MAX_FILES
tables (two per scene, about 70 kB for one of ALFRED's), so that generating many scenes cannot fill a
disk: past that, new tables are no longer kept (delete the folder to start afresh). A table written
replaces those of the same scene made by other code.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from homesim.world.scene import Scene

OFF = "off"
MAX_FILES = 2000
_listed: dict[Path, dict[str, set[str]]] = {}  # per folder: `_kept`


def folder() -> Path | None:
    """Where tables are kept, or None when caching is off."""
    chosen = os.environ.get("HOMESIM_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in (OFF, "") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "homesim"


def code_version(*files: str) -> str:
    """A digest of source files (module `__file__`s): a table's version is the code that makes it."""
    digest = hashlib.sha256()
    for name in files:
        digest.update(Path(name).read_bytes())
    return digest.hexdigest()[:16]


def _scene_digest(scene: Scene) -> str:
    found = scene.pose_visibility.get(_scene_digest)  # the scene's memo: its content never changes
    if found is None:
        content = json.dumps([scene.to_dict(), list(scene.fixed)], sort_keys=True).encode()
        found = scene.pose_visibility[_scene_digest] = hashlib.sha256(content).hexdigest()[:32]
    return found


def path_of(scene: Scene, name: str, version: str) -> Path | None:
    """The file that keeps a scene's table `name` made by code `version` (None when caching is off)."""
    where = folder()
    return None if where is None else where / f"{scene.id}-{_scene_digest(scene)}-{name}-{version}.npy"


def load(scene: Scene, name: str, version: str, shape: tuple[int, ...], dtype: type) -> np.ndarray | None:
    """The table `name` of this scene made by code `version`, or None if it is not kept (or unreadable,
    or not of `shape` and `dtype`)."""
    path = path_of(scene, name, version)
    if path is None or not path.is_file():
        return None
    try:
        table = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    return table if table.shape == shape and table.dtype == dtype else None


def store(scene: Scene, name: str, version: str, table: np.ndarray) -> None:
    """Keeps a table for later runs; a folder that cannot be written only means it is not kept."""
    path = path_of(scene, name, version)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = _kept(path.parent)
        if sum(map(len, kept.values())) >= MAX_FILES:
            return
        handle, written = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, table, allow_pickle=False)
        os.replace(written, path)
        same = kept.setdefault(_table_of(path.name), set())
        for older in same - {path.name}:  # made by other code: never read
            (path.parent / older).unlink(missing_ok=True)
        same.clear()
        same.add(path.name)
    except OSError:
        Path(written).unlink(missing_ok=True)


def _kept(where: Path) -> dict[str, set[str]]:
    """The files in a folder by table (scene, content, name), listed once per process, then as this process
    adds and removes them (a scene's tables are stored as it is entered, where a listing would cost more)."""
    if where not in _listed:
        _listed[where] = {}
        for path in where.glob("*.npy"):
            _listed[where].setdefault(_table_of(path.name), set()).add(path.name)
    return _listed[where]


def _table_of(file_name: str) -> str:
    return file_name.rsplit("-", 1)[0]  # without the code's version
