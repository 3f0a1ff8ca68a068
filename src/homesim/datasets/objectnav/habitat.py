"""habitat-lab's ObjectNav dataset layout (ObjectNav-v1), written and read back.

    OUT/<split>/<split>.json.gz           {"episodes": [], "category_to_task_category_id": ...,
                                           "category_to_scene_annotation_category_id": ...}
    OUT/<split>/content/<scene>.json.gz   {"episodes": [...], "goals_by_category": {"<scene file>_<category>":
                                           [goal, ...]}, and the two category tables}
    OUT/scenes/<scene>.json               the homesim scene each episode's `scene_id` names

An episode is habitat's ObjectGoalNavEpisode: `episode_id`, `scene_id`, `start_position` [x, y, z],
`start_rotation` (a quaternion [x, y, z, w] about y; habitat's agent faces -z, ours +z at yaw 0, so yaw
becomes a turn of yaw + 180 degrees), `object_category`, `goals: []` (they are in `goals_by_category`,
keyed by the scene file's name and the category), `info` (`geodesic_distance`, `euclidean_distance`,
`closest_goal_object_id`, and our `difficulty`) and `shortest_paths` (the expert's actions as habitat's
action ids: STOP 0, MOVE_FORWARD 1, TURN_LEFT 2, TURN_RIGHT 3, LOOK_UP 4, LOOK_DOWN 5). A goal is
habitat's ObjectGoal: `object_id` (an int per scene), `object_name` (our object id), `object_category`,
`position`, `view_points` [{"agent_state": {"position", "rotation"}, "iou": null}], and habitat's unused
fields as null. Boxes come from the scene files on reading.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from homesim.errors import DataError
from homesim.files import gzipped, write_file
from homesim.tasks.objectnav import CATEGORIES, ObjectGoal, ObjectNavEpisode, difficulty
from homesim.world.objectnav.navgrid import ACTIONS
from homesim.world.scene import Scene

TASK_IDS = {c: i for i, c in enumerate(CATEGORIES)}


def _write_gz(path: Path, data: dict) -> None:
    write_file(path, gzipped(json.dumps(data, sort_keys=True).encode()))


def _categories() -> dict:
    return {"category_to_task_category_id": TASK_IDS, "category_to_scene_annotation_category_id": TASK_IDS}


def rotation_of(yaw: int) -> list[float]:
    half = math.radians((yaw + 180) % 360) / 2
    return [0.0, round(math.sin(half), 12), 0.0, round(math.cos(half), 12)]


def yaw_of(rotation: Sequence[float], turn: int = 30) -> int:
    """Our yaw from habitat's quaternion; it must be a turn about y by a multiple of `turn` degrees."""
    x, y, z, w = (float(v) for v in rotation)
    if abs(x) > 1e-6 or abs(z) > 1e-6:
        raise ValueError(f"rotation {list(rotation)} is not a turn about the vertical axis")
    yaw = (math.degrees(2 * math.atan2(y, w)) - 180) % 360
    snapped = round(yaw / turn) * turn % 360
    if abs((yaw - snapped + 180) % 360 - 180) > 1e-3:
        raise ValueError(f"rotation {list(rotation)} is a yaw of {yaw:.2f} degrees, not a multiple of {turn}")
    return snapped


def _scene_file(scene_id: str) -> str:
    return f"scenes/{scene_id}.json"


def write_habitat(
    out: str | Path, splits: Mapping[str, Sequence[ObjectNavEpisode]], scenes: Mapping[str, Scene]
) -> None:
    out = Path(out)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    for scene_id in sorted({e.scene_id for episodes in splits.values() for e in episodes}):
        write_file(out / _scene_file(scene_id), json.dumps(scenes[scene_id].to_dict(), sort_keys=True))
    for split, episodes in splits.items():
        _write_gz(out / split / f"{split}.json.gz", {"episodes": [], **_categories()})
        by_scene: dict[str, list[ObjectNavEpisode]] = {}
        for e in episodes:
            by_scene.setdefault(e.scene_id, []).append(e)
        for scene_id, mine in by_scene.items():
            numbers = {oid: n for n, oid in enumerate(sorted(scenes[scene_id].fixed))}
            goals_by_category = {}
            for e in mine:
                goals_by_category[f"{scene_id}.json_{e.object_category}"] = [_goal(g, numbers) for g in e.goals]
            content = {"episodes": [_episode(e) for e in mine], "goals_by_category": goals_by_category, **_categories()}
            _write_gz(out / split / "content" / f"{scene_id}.json.gz", content)


def _goal(g: ObjectGoal, numbers: dict[str, int]) -> dict:
    return {
        "object_id": numbers[g.object_id],
        "object_name": g.object_id,
        "object_name_id": None,
        "object_category": g.object_category,
        "position": [g.position[0], g.position[1], g.position[2]],
        "radius": None,
        "room_id": None,
        "room_name": None,
        "view_points": [
            {"agent_state": {"position": [x, 0.0, z], "rotation": [0.0, 0.0, 0.0, 1.0]}, "iou": None}
            for x, z in g.view_points
        ],
    }


def _episode(e: ObjectNavEpisode) -> dict:
    nearest = min(
        e.goals,
        key=lambda g: min(math.hypot(x - e.start_position[0], z - e.start_position[1]) for x, z in g.view_points),
    )
    return {
        "episode_id": e.episode_id,
        "scene_id": _scene_file(e.scene_id),
        "start_position": [e.start_position[0], 0.0, e.start_position[1]],
        "start_rotation": rotation_of(e.start_rotation),
        "object_category": e.object_category,
        "goals": [],
        "start_room": None,
        "info": {
            "geodesic_distance": e.geodesic_distance,
            "euclidean_distance": e.euclidean_distance,
            "closest_goal_object_id": nearest.object_id,
            "difficulty": e.difficulty,
        },
        "shortest_paths": [[ACTIONS.index(a) for a in e.reference_actions]] if e.reference_actions else None,
    }


def _read_gz(path: Path) -> dict:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, EOFError, json.JSONDecodeError) as e:
        raise DataError(str(path), "(file)", f"unreadable: {e}") from e
    if not isinstance(data, dict) or not isinstance(data.get("episodes"), list):
        raise DataError(str(path), "episodes", "missing or not a list")
    return data


def read_habitat(path: str | Path) -> tuple[dict[str, list[ObjectNavEpisode]], dict[str, Scene]]:
    """Every split in a habitat-layout folder written by `write_habitat` (or laid out the same way), and
    the scenes its episodes use."""
    path = Path(path)
    splits: dict[str, list[ObjectNavEpisode]] = {}
    scenes: dict[str, Scene] = {}
    split_files = sorted(p for p in path.glob("*/*.json.gz") if p.name == f"{p.parent.name}.json.gz")
    if not split_files:
        raise DataError(str(path), "(folder)", "no <split>/<split>.json.gz: not a habitat ObjectNav dataset")
    for split_file in split_files:
        split = split_file.parent.name
        _read_gz(split_file)
        splits[split] = []
        for content in sorted((split_file.parent / "content").glob("*.json.gz")):
            data = _read_gz(content)
            for n, raw in enumerate(data["episodes"]):
                where = f"{content}: episode {n}"
                try:
                    scene_file = raw["scene_id"]
                    scene_id = Path(scene_file).name.removesuffix(".json")
                    if scene_id not in scenes:
                        scenes[scene_id] = _read_scene(path / scene_file, where)
                    goals = data["goals_by_category"][f"{Path(scene_file).name}_{raw['object_category']}"]
                    splits[split].append(_from_habitat(raw, goals, scenes[scene_id]))
                except DataError:
                    raise
                except (KeyError, TypeError, ValueError, IndexError) as e:
                    raise DataError(where, "(episode)", f"not a habitat ObjectNav episode: {e!r}") from e
    return splits, scenes


def _read_scene(file: Path, where: str) -> Scene:
    try:
        return Scene.from_dict(json.loads(file.read_text()))
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise DataError(where, "scene_id", f"{file}: missing or unreadable: {e!r}") from e


def _from_habitat(raw: dict, goals: list[dict], scene: Scene) -> ObjectNavEpisode:
    x, _, z = raw["start_position"]
    info = raw["info"]
    paths = raw.get("shortest_paths") or [[]]
    actions = [ACTIONS[int(a["action"] if isinstance(a, dict) else a)] for a in paths[0]]
    return ObjectNavEpisode.from_dict(
        {
            "episode_id": raw["episode_id"],
            "scene_id": scene.id,
            "start_position": [x, z],
            "start_rotation": yaw_of(raw["start_rotation"]),
            "object_category": raw["object_category"],
            "goals": [
                {
                    "object_id": g["object_name"],
                    "object_category": g["object_category"],
                    "position": g["position"],
                    "box": [scene.fixed[g["object_name"]].box.lo, scene.fixed[g["object_name"]].box.hi],
                    "view_points": [
                        [v["agent_state"]["position"][0], v["agent_state"]["position"][2]] for v in g["view_points"]
                    ],
                }
                for g in goals
            ],
            "geodesic_distance": info["geodesic_distance"],
            "euclidean_distance": info["euclidean_distance"],
            "difficulty": info.get("difficulty") or difficulty(float(info["geodesic_distance"])),
            "reference_actions": actions,
        }
    )
