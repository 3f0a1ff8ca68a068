"""Reading ALFRED trajectories: the original `json_2.1.0/<split>/<task>/<trial>/traj_data.json` tree,
or a `.jsonl[.gz]` file with one such JSON object per line.

Each trajectory comes back as a `RawTrajectory` (the parsed JSON and where it came from), or, for a
file that cannot be parsed, as a `DataError` in the same stream, so one bad file never stops a run.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from homesim.errors import DataError
from homesim.files import MAX_JSON_BYTES, parse_json, regular_file
from homesim.scenes.alfred import parse_object_id
from homesim.tasks.alfred import TASK_TYPES
from homesim.world.actions import ACTIONS, ALIASES
from homesim.world.catalog import alfred_catalog

REQUIRED_FIELDS = ("task_type", "pddl_params", "scene", "plan")
PLANNER_NEEDS = {  # what each of ALFRED's high-level actions names
    "GotoLocation": ("location",),
    "PutObject": ("objectId", "receptacleObjectId"),
    **{a: ("objectId",) for a in ("PickupObject", "OpenObject", "CloseObject", "ToggleObject", "SliceObject",
                                  "CleanObject", "HeatObject", "CoolObject")},
}  # fmt: skip
MAX_NUMBER = 1e4  # metres, degrees: no number of a trajectory is larger


@dataclass(frozen=True)
class RawTrajectory:
    source: str  # file path (and line number for .jsonl files)
    data: dict

    @property
    def split(self) -> str:
        """ALFRED's split: the record's `split`, else the folder above the task in a json_2.1.0 tree."""
        if "split" in self.data:
            return str(self.data["split"])
        parts = Path(self.source).parts
        return parts[-4] if len(parts) >= 4 and parts[-1] == "traj_data.json" else ""

    @property
    def task(self) -> str:
        """ALFRED's name of the trajectory, `<task folder>/<trial>` (e.g. `pick_heat_then_place_in_recep-
        Apple-None-DiningTable-26/trial_T20190907_060234_011675`), else its task_id."""
        if "path" in self.data:
            return str(self.data["path"]).strip("/")
        parts = Path(self.source).parts
        if len(parts) >= 3 and parts[-1] == "traj_data.json":
            return f"{parts[-3]}/{parts[-2]}"
        return str(self.data.get("task_id", self.source))

    @property
    def name(self) -> str:
        """`<split>/<task folder>/<trial>`."""
        return f"{self.split}/{self.task}"


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
            yield _parse(str(file), _text(file))
    elif path.name.endswith((".jsonl", ".jsonl.gz")):
        opener = gzip.open if path.name.endswith(".gz") else open
        number = 0
        try:
            with opener(regular_file(path), "rt", encoding="utf-8") as lines:
                for number, line in enumerate(lines, start=1):
                    if line.strip():
                        yield _parse(f"{path}:{number}", line)
        except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:  # a download cut short, say
            raise DataError(str(path), "(file)", f"unreadable after line {number} (cut short?): {e}") from None
    else:
        yield _parse(str(path), _text(path))


def _text(path: Path) -> str:
    try:
        return regular_file(path, MAX_JSON_BYTES).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(str(path), "(file)", f"unreadable: {e}") from None


def _parse(source: str, text: str) -> RawTrajectory | DataError:
    try:
        data = parse_json(text, source)
    except DataError as e:
        return e
    try:
        check_trajectory(data)
    except _Malformed as bad:
        return DataError(source, bad.field, bad.problem)
    return RawTrajectory(source, data)


class _Malformed(Exception):
    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem


def _need(ok: bool, field: str, problem: str) -> None:
    if not ok:
        raise _Malformed(field, problem)


def _number(value: object) -> bool:
    """A finite number within ALFRED's world (NaN or 1e308 in a position would break the arithmetic)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) <= MAX_NUMBER


def _strings(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _check_object_id(value: object, field: str) -> None:
    _need(isinstance(value, str), field, "missing")
    try:
        cls, _ = parse_object_id(value)
    except ValueError as e:
        raise _Malformed(field, str(e)) from None
    _need(cls in alfred_catalog().classes, field, f"unknown object class {cls!r} in {value!r}")


def check_trajectory(data: object) -> None:
    """Checks every field homesim reads from an ALFRED trajectory, so that a malformed one is reported
    up front (raising `_Malformed` with the field) instead of failing half-way through a run."""
    _need(isinstance(data, dict), "(file)", "expected a JSON object")
    for field in REQUIRED_FIELDS:
        _need(field in data, field, "missing")
    _need(
        isinstance(data["task_type"], str) and data["task_type"] in TASK_TYPES,
        "task_type",
        f"unknown ALFRED task type {data['task_type']!r}"[:120],
    )
    params = data["pddl_params"]
    _need(
        isinstance(params, dict) and isinstance(params.get("object_target"), str), "pddl_params", "needs object_target"
    )
    for key in ("parent_target", "toggle_target", "mrecep_target"):
        _need(isinstance(params.get(key, ""), str), f"pddl_params.{key}", "expected a class name")

    scene = data["scene"]
    _need(isinstance(scene, dict), "scene", "expected an object")
    _need(
        isinstance(scene.get("floor_plan"), str) and scene["floor_plan"].startswith("FloorPlan"),
        "scene.floor_plan",
        "expected FloorPlan<N>",
    )
    init = scene.get("init_action")
    _need(
        isinstance(init, dict)
        and all(_number(init.get(k)) for k in ("x", "z", "rotation", "horizon"))
        and _number(init.get("y", 0.9)),
        "scene.init_action",
        "needs numbers x, z, rotation, horizon (and y)",
    )
    _need(
        round(init["rotation"]) % 90 == 0, "scene.init_action.rotation", f"{init['rotation']} is not a multiple of 90"
    )
    toggles = scene.get("object_toggles", [])
    _need(
        isinstance(toggles, list)
        and all(isinstance(t, dict) and isinstance(t.get("objectType"), str) for t in toggles),
        "scene.object_toggles",
        "expected a list of {objectType, isOn}",
    )
    poses = scene.get("object_poses", [])
    _need(isinstance(poses, list), "scene.object_poses", "expected a list")
    for i, pose in enumerate(poses):
        ok = (
            isinstance(pose, dict)
            and isinstance(pose.get("objectName"), str)
            and isinstance(pose.get("position"), dict)
        )
        _need(
            ok and all(_number(pose["position"].get(k)) for k in "xyz"),
            f"scene.object_poses[{i}]",
            "needs objectName and a position with numbers x, y, z",
        )

    plan = data["plan"]
    _need(isinstance(plan, dict), "plan", "expected an object")
    _need(isinstance(plan.get("low_actions"), list), "plan.low_actions", "missing or not a list")
    for i, low in enumerate(plan["low_actions"]):
        _need(
            isinstance(low, dict) and isinstance(low.get("api_action"), dict),
            f"plan.low_actions[{i}]",
            "needs an api_action object",
        )
        index = low.get("high_idx", 0)
        _need(isinstance(index, int) and not isinstance(index, bool) and 0 <= index <= MAX_NUMBER,
              f"plan.low_actions[{i}].high_idx", f"expected a sub-goal index, got {index!r}")  # fmt: skip
        name = low["api_action"].get("action")
        _need(
            isinstance(name, str) and ALIASES.get(name, name) in ACTIONS,
            f"plan.low_actions[{i}].api_action.action",
            f"unknown action {name!r}"[:120],
        )
        for key in ("objectId", "receptacleObjectId"):
            if key in low["api_action"]:
                _check_object_id(low["api_action"][key], f"plan.low_actions[{i}].api_action.{key}")
    high = plan.get("high_pddl", [])
    _need(isinstance(high, list), "plan.high_pddl", "expected a list")
    for i, step in enumerate(high):
        planner = step.get("planner_action") if isinstance(step, dict) else None
        where = f"plan.high_pddl[{i}].planner_action"
        _need(isinstance(planner, dict) and "action" in planner, where, "needs an action")
        for key in ("action", "objectId", "receptacleObjectId", "cleanObjectId", "location"):
            value = planner.get(key, "")
            _need(isinstance(value, str), f"{where}.{key}", f"expected text, got {value!r}"[:120])
        for key in PLANNER_NEEDS.get(planner["action"], ()):
            _need(key in planner, f"{where}.{key}", f"missing (a {planner['action']} names it)")
        if "coordinateReceptacleObjectId" in planner:
            c = planner["coordinateReceptacleObjectId"]
            ok = isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and isinstance(c[1], list)
            _need(
                ok and len(c[1]) == 6 and all(map(_number, c[1])),
                f"plan.high_pddl[{i}].planner_action.coordinateReceptacleObjectId",
                "expected [class, 6 numbers]",
            )
    _need(isinstance(data.get("task_id", ""), str), "task_id", "expected text")
    turk = data.get("turk_annotations", {})
    anns_ok = isinstance(turk, dict) and isinstance(turk.get("anns", []), list)
    _need(anns_ok, "turk_annotations", "expected {anns: [...]}")
    for i, ann in enumerate(turk.get("anns", [])):
        ok = isinstance(ann, dict) and all(_strings(ann.get(k, "")) for k in ("task_desc", "high_descs"))
        ok = ok and isinstance(ann.get("task_desc", ""), str)
        _need(ok, f"turk_annotations.anns[{i}]", "expected task_desc and high_descs text")
