"""Reading ALFRED trajectories: the original `json_2.1.0/<split>/<task>/<trial>/traj_data.json` tree,
or a `.jsonl[.gz]` file with one such JSON object per line.

Each trajectory comes back as a `RawTrajectory` (the parsed JSON and where it came from), or, for a
file that cannot be parsed, as a `DataError` in the same stream, so one bad file never stops a run.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from homesim.errors import DataError

REQUIRED_FIELDS = ("task_type", "pddl_params", "scene", "plan")


@dataclass(frozen=True)
class RawTrajectory:
    source: str  # file path (and line number for .jsonl files)
    data: dict

    @property
    def name(self) -> str:
        """ALFRED's trajectory name: `<split>/<task folder>/<trial>` where known, else the source."""
        if "path" in self.data:
            return f"{self.data.get('split', '?')}/{self.data['path']}"
        return self.source


def read_trajectories(path: str | Path) -> Iterator[RawTrajectory | DataError]:
    """Yields the trajectories under `path` (a traj_data.json, a json_2.1.0 tree or a .jsonl[.gz])."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no ALFRED trajectories at {path}")
    if path.is_dir():
        files = sorted(path.rglob("traj_data.json"))
        if not files:
            raise FileNotFoundError(f"{path} holds no traj_data.json files (expected ALFRED's json_2.1.0 layout)")
        for file in files:
            yield _parse(str(file), file.read_text())
    elif path.name.endswith((".jsonl", ".jsonl.gz")):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    yield _parse(f"{path}:{number}", line)
    else:
        yield _parse(str(path), path.read_text())


def _parse(source: str, text: str) -> RawTrajectory | DataError:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return DataError(source, "(file)", f"not valid JSON: {e}")
    if not isinstance(data, dict):
        return DataError(source, "(file)", "expected a JSON object")
    for field in REQUIRED_FIELDS:
        if field not in data:
            return DataError(source, field, "missing")
    if not isinstance(data["plan"], dict) or "low_actions" not in data["plan"]:
        return DataError(source, "plan.low_actions", "missing")
    if "floor_plan" not in data["scene"] or "init_action" not in data["scene"]:
        return DataError(source, "scene", "needs floor_plan and init_action")
    return RawTrajectory(source, data)
