"""habitat-lab's ObjectNav dataset layout (ObjectNav-v1), written and read back, in habitat's frame.

    OUT/<split>/<split>.json.gz           {"episodes": [], "category_to_task_category_id": ...,
                                           "category_to_scene_annotation_category_id": ...}
    OUT/<split>/content/<scene>.json.gz   {"episodes": [...], "goals_by_category": {"<scene file>_<category>":
                                           [goal, ...]}, and the two category tables}
    OUT/scenes/<scene>.json               the homesim scene each episode's `scene_id` names

The frames. homesim keeps AI2-THOR's: y up, an agent at yaw 0 faces +z with +x on its right, and turning
right adds to the yaw (a left-handed frame). habitat's is right-handed: y up, an unturned agent faces -z
with +x on its right, and TURN_LEFT turns +angle about +y. So a point (x, y, z) is (-x, y, z) in habitat's
frame and a yaw of psi degrees is a turn of theta = 180 - psi about +y (the quaternion [x, y, z, w] =
[0, sin(theta/2), 0, cos(theta/2)]): homesim's forward (sin psi, cos psi) becomes (-sin psi, cos psi),
habitat's forward at theta, and a right turn (psi + 30) is theta - 30, habitat's TURN_RIGHT, so the action
ids keep habitat's meaning. habitat's GPS ([forward, right] metres in the start's frame) then equals homesim's;
its compass counts radians turned left since the start, homesim's radians turned right (the negative).

An episode is habitat's ObjectGoalNavEpisode: `episode_id`, `scene_id`, `start_position`, `start_rotation`,
`object_category`, `goals: []` (they are in `goals_by_category`, keyed by the scene file's name and the
category), `info` (`geodesic_distance`, `euclidean_distance`, `closest_goal_object_id`: the `object_id` of the
goal nearest along the robot's moves, and our `difficulty`) and `shortest_paths` (the expert's actions as
habitat's ids: STOP 0, MOVE_FORWARD 1, TURN_LEFT 2, TURN_RIGHT 3, LOOK_UP 4, LOOK_DOWN 5). A goal is
habitat's ObjectGoal: `object_id` (a string, as habitat declares it: the object's number in its scene),
`object_name_id` (the same number, an int, for habitat's OBJECT_ID goal spec), `object_name` (our object
id), `object_category`, `position` (the centre of the object's box) and `view_points`, each
{"agent_state": {"position", "rotation": facing the box centre}, "iou"}. habitat's generator was never
released, so `iou` is measured from geometry as its docstring defines it (`view_iou`). On reading, boxes and
positions come from the scene files; each file is checked against its input model (pydantic: `HabitatFile`,
`HabitatEpisode`, the scenes' `SceneModel`, and the episode made of it against homesim's own
`ObjectNavEpisodeModel`), and what is wrong is one DataError naming the file, the episode and the field.

The category tables (`--categories`): homesim's own (its 12 categories in its order), or habitat's HM3D (6)
or MP3D (21) tables, so a policy trained on habitat's data gets the ids it knows; an episode whose category
the table lacks is left out of the export (and counted).
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from homesim.datasets.formats import MAX_ITEMS, Distance, Name, ObjectNavEpisodeModel, Point3, SceneModel
from homesim.errors import DataError
from homesim.files import MAX_JSON_BYTES, gzipped, parse_json, read_json, regular_file, validated, write_file
from homesim.tasks.objectnav import CATEGORIES, ObjectGoal, ObjectNavEpisode, difficulty, goal_field
from homesim.world.objectnav.embodiment import LOCOBOT, Embodiment
from homesim.world.objectnav.navgrid import ACTIONS, LATTICE, NavGrid, nav_grid
from homesim.world.scene import Box, Scene

HOMESIM_IDS = {c: i for i, c in enumerate(CATEGORIES)}
HM3D_IDS = {"chair": 0, "bed": 1, "plant": 2, "toilet": 3, "tv_monitor": 4, "sofa": 5}
MP3D_NAMES = (
    "chair table picture cabinet cushion sofa bed chest_of_drawers plant sink toilet stool towel tv_monitor "
    "shower bathtub counter fireplace gym_equipment seating clothes"
).split()
MP3D_CAT40 = (3, 5, 6, 7, 8, 10, 11, 13, 14, 15, 18, 19, 20, 22, 23, 25, 26, 27, 33, 34, 38)  # mpcat40 indices
# name -> (category_to_task_category_id, category_to_scene_annotation_category_id)
CATEGORY_TABLES: dict[str, tuple[dict[str, int], dict[str, int]]] = {
    "homesim": (HOMESIM_IDS, HOMESIM_IDS),
    "hm3d": (HM3D_IDS, HM3D_IDS),
    "mp3d": ({c: i for i, c in enumerate(MP3D_NAMES)}, dict(zip(MP3D_NAMES, MP3D_CAT40))),
}
CENTRE = 0.5  # the share of the image's width and height that view_iou's central rectangle takes
Unit = Annotated[float, Field(allow_inf_nan=False, ge=-1.001, le=1.001)]  # a unit quaternion's component (rounded)


def _write_gz(path: Path, data: dict) -> None:
    write_file(path, gzipped(json.dumps(data, sort_keys=True).encode()))


def rotation_of(yaw: float) -> list[float]:
    """habitat's start or view rotation [x, y, z, w] for a homesim yaw in degrees."""
    half = math.radians(180 - yaw) / 2
    return [0.0, round(math.sin(half), 12), 0.0, round(math.cos(half), 12)]


def yaw_of(rotation: Sequence[float], turn: int = 30) -> tuple[int, float]:
    """homesim's yaw from habitat's quaternion about y, snapped to a multiple of `turn` degrees, and the
    degrees the snap turned it by."""
    x, y, z, w = (float(v) for v in rotation)
    if abs(x) > 1e-6 or abs(z) > 1e-6:
        raise ValueError(f"rotation {list(rotation)} is not a turn about the vertical axis")
    yaw = (180 - math.degrees(2 * math.atan2(y, w))) % 360
    snapped = round(yaw / turn) * turn % 360
    return snapped, abs((yaw - snapped + 180) % 360 - 180)


def view_iou(box: Box, x: float, z: float, embodiment: Embodiment = LOCOBOT) -> float:
    """habitat's `iou` of a view point ("the intersection over union of the object and a rectangle in the
    centre of the view"), from geometry: the rectangle that the object's box covers in the robot's image,
    standing at (x, z) facing the box centre with a level camera, against the central rectangle of CENTRE of
    the image's width and height. Occlusion is not counted: a view point sees the object by construction."""
    w, h = embodiment.width, embodiment.height
    cx, cz = (box.lo[0] + box.hi[0]) / 2, (box.lo[2] + box.hi[2]) / 2
    yaw = math.atan2(cx - x, cz - z)
    s, c = math.sin(yaw), math.cos(yaw)
    focal = w / 2 / math.tan(math.radians(embodiment.hfov) / 2)
    us, vs = [], []
    for px in (box.lo[0], box.hi[0]):
        for pz in (box.lo[2], box.hi[2]):
            depth = max((px - x) * s + (pz - z) * c, 1e-3)  # a corner behind the camera spans to the edge
            us.append(w / 2 + focal * ((px - x) * c - (pz - z) * s) / depth)
            vs += [h / 2 - focal * (py - embodiment.camera_height) / depth for py in (box.lo[1], box.hi[1])]
    u0, u1 = max(0.0, min(us)), min(float(w), max(us))
    v0, v1 = max(0.0, min(vs)), min(float(h), max(vs))
    m0, m1 = w * (1 - CENTRE) / 2, w * (1 + CENTRE) / 2
    n0, n1 = h * (1 - CENTRE) / 2, h * (1 + CENTRE) / 2
    inter = max(0.0, min(u1, m1) - max(u0, m0)) * max(0.0, min(v1, n1) - max(v0, n0))
    union = max(0.0, u1 - u0) * max(0.0, v1 - v0) + (m1 - m0) * (n1 - n0) - inter
    return round(inter / union, 4)


def _scene_file(scene_id: str) -> str:
    return f"scenes/{scene_id}.json"


def write_habitat(
    out: str | Path,
    splits: Mapping[str, Sequence[ObjectNavEpisode]],
    scenes: Mapping[str, Scene],
    categories: str = "homesim",
) -> Counter:
    """Write the splits in habitat's layout with a category table of CATEGORY_TABLES; the episodes left out
    because the table lacks their category, counted by category."""
    task_ids, annotation_ids = CATEGORY_TABLES[categories]
    tables = {"category_to_task_category_id": task_ids, "category_to_scene_annotation_category_id": annotation_ids}
    left_out = Counter(e.object_category for es in splits.values() for e in es if e.object_category not in task_ids)
    kept = {s: [e for e in es if e.object_category in task_ids] for s, es in splits.items()}
    out = Path(out)
    (out / "scenes").mkdir(parents=True, exist_ok=True)
    for scene_id in sorted({e.scene_id for episodes in kept.values() for e in episodes}):
        write_file(out / _scene_file(scene_id), json.dumps(scenes[scene_id].to_dict(), sort_keys=True))
    for split, episodes in kept.items():
        _write_gz(out / split / f"{split}.json.gz", {"episodes": [], **tables})
        by_scene: dict[str, list[ObjectNavEpisode]] = {}
        for e in episodes:
            by_scene.setdefault(e.scene_id, []).append(e)
        for scene_id, mine in by_scene.items():
            scene = scenes[scene_id]
            numbers = {oid: n for n, oid in enumerate(sorted(scene.fixed))}
            goals_by_category = {}
            for e in mine:
                goals_by_category[f"{scene_id}.json_{e.object_category}"] = [_goal(g, numbers) for g in e.goals]
            content = {
                "episodes": [_episode(e, scene, numbers) for e in mine],
                "goals_by_category": goals_by_category,
                **tables,
            }
            _write_gz(out / split / "content" / f"{scene_id}.json.gz", content)
    return left_out


def _goal(g: ObjectGoal, numbers: dict[str, int]) -> dict:
    lo, hi = g.box.lo, g.box.hi
    cx, cz = (lo[0] + hi[0]) / 2, (lo[2] + hi[2]) / 2
    return {
        "object_id": str(numbers[g.object_id]),
        "object_name": g.object_id,
        "object_name_id": numbers[g.object_id],
        "object_category": g.object_category,
        "position": [-cx, (lo[1] + hi[1]) / 2, cz],
        "radius": None,
        "room_id": None,
        "room_name": None,
        "view_points": [
            {
                "agent_state": {
                    "position": [-x, 0.0, z],
                    "rotation": rotation_of(math.degrees(math.atan2(cx - x, cz - z))),
                },
                "iou": view_iou(g.box, x, z),
            }
            for x, z in g.view_points
        ],
    }


def _episode(e: ObjectNavEpisode, scene: Scene, numbers: dict[str, int]) -> dict:
    grid = nav_grid(scene, LOCOBOT)
    x, z = e.start_position
    nearest = min(e.goals, key=lambda g: (grid.geodesic(goal_field(grid, (g,)), x, z), g.object_id))
    return {
        "episode_id": e.episode_id,
        "scene_id": _scene_file(e.scene_id),
        "start_position": [-x, 0.0, z],
        "start_rotation": rotation_of(e.start_rotation),
        "object_category": e.object_category,
        "goals": [],
        "start_room": None,
        "info": {
            "geodesic_distance": e.geodesic_distance,
            "euclidean_distance": e.euclidean_distance,
            "closest_goal_object_id": str(numbers[nearest.object_id]),
            "difficulty": e.difficulty,
        },
        "shortest_paths": [[ACTIONS.index(a) for a in e.reference_actions]] if e.reference_actions else None,
    }


class _HabitatModel(BaseModel):
    """habitat's files carry more than homesim reads (rooms, radii, scene datasets): the rest is let be."""

    model_config = ConfigDict(extra="ignore", frozen=True)


Quaternion = tuple[Unit, Unit, Unit, Unit]  # [x, y, z, w]


def _about_y(rotation: Quaternion) -> Quaternion:
    yaw_of(rotation)  # a ValueError unless a turn about the vertical axis
    return rotation


class HabitatAgentState(_HabitatModel):
    position: Point3
    rotation: Annotated[Quaternion, AfterValidator(_about_y)] | None = None


class HabitatViewPoint(_HabitatModel):
    agent_state: HabitatAgentState


class HabitatGoal(_HabitatModel):
    """habitat's ObjectGoal, of which homesim reads the object (`object_name`: an object id of the scene)
    and the view points; its box and position come from the scene."""

    object_name: Name
    object_category: Name
    view_points: Annotated[list[HabitatViewPoint], Field(max_length=MAX_ITEMS)]


class HabitatInfo(_HabitatModel):
    geodesic_distance: Distance
    euclidean_distance: Distance
    difficulty: Name | None = None


def _action_of(point: Any) -> Any:
    """A shortest path's step: habitat's action id, or a ShortestPathPoint {"action": id, ...}."""
    return point.get("action") if isinstance(point, dict) else point


def _text_id(episode_id: Any) -> Any:
    """habitat's episode ids are text; some files number them."""
    return str(episode_id) if type(episode_id) is int else episode_id


ActionId = Annotated[int, Field(strict=True, ge=0, lt=len(ACTIONS)), BeforeValidator(_action_of)]


class HabitatEpisode(_HabitatModel):
    """habitat's ObjectGoalNavEpisode: its goals inline, or under the file's `goals_by_category`."""

    episode_id: Annotated[Name, BeforeValidator(_text_id)]
    scene_id: Name
    start_position: Point3
    start_rotation: Annotated[Quaternion, AfterValidator(_about_y)]
    object_category: Name
    info: HabitatInfo
    goals: Annotated[list[HabitatGoal], Field(max_length=MAX_ITEMS)] = []
    shortest_paths: Annotated[list[list[ActionId]], Field(max_length=MAX_ITEMS)] | None = None


class HabitatFile(_HabitatModel):
    """A split file or a content file: its episodes are checked one by one (`HabitatEpisode`), so that an error
    names the episode."""

    episodes: Annotated[list[Any], Field(max_length=MAX_ITEMS)]
    goals_by_category: dict[Name, Annotated[list[HabitatGoal], Field(max_length=MAX_ITEMS)]] | None = None


def _read_gz(path: Path) -> HabitatFile:
    try:
        with gzip.open(regular_file(path), "rb") as f:
            text = f.read(MAX_JSON_BYTES + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise DataError(str(path), "(file)", f"unreadable (cut short, or not gzip): {e}") from e
    if len(text) > MAX_JSON_BYTES:
        raise DataError(str(path), "(file)", f"over {MAX_JSON_BYTES} bytes of JSON: not a habitat dataset file")
    return validated(HabitatFile, parse_json(text, str(path)), str(path))


@dataclass
class HabitatImport:
    """What `read_habitat` read, and what it had to change to fit homesim's lattice and ids."""

    splits: dict[str, list[ObjectNavEpisode]]
    scenes: dict[str, Scene]
    snapped_yaws: list[float] = field(default_factory=list)  # degrees each snapped start turned by
    snapped_points: list[float] = field(default_factory=list)  # metres each snapped start or view point moved by
    dropped_paths: int = 0  # shortest paths left out because their start was snapped
    renamed: int = 0  # episode ids given their scene's name to make them unique

    def notes(self) -> list[str]:
        """One line per change made, for the user."""
        out = []
        if self.snapped_yaws:
            out.append(
                f"{len(self.snapped_yaws)} start rotations snapped to the 30-degree lattice"
                f" (largest change {max(self.snapped_yaws):.2f} degrees)"
            )
        if self.snapped_points:
            out.append(
                f"{len(self.snapped_points)} positions snapped to the {LATTICE} m lattice"
                f" (largest move {max(self.snapped_points):.4f} m)"
            )
        if self.dropped_paths:
            out.append(f"{self.dropped_paths} shortest paths left out: their start was snapped")
        if self.renamed:
            out.append(f"{self.renamed} episode ids renamed <scene>/<id>: habitat numbers episodes per content file")
        return out


def read_habitat(path: str | Path) -> HabitatImport:
    """Every split in a habitat-layout folder: as `write_habitat` writes it, or habitat's own files for homesim's
    scenes (goals inline or by category, any start yaw or position: snapped, and noted)."""
    path = Path(path)
    read = HabitatImport({}, {})
    split_files = sorted(p for p in path.glob("*/*.json.gz") if p.name == f"{p.parent.name}.json.gz")
    if not split_files:
        raise DataError(str(path), "(folder)", "no <split>/<split>.json.gz: not a habitat ObjectNav dataset")
    for split_file in split_files:
        split = split_file.parent.name
        top = _read_gz(split_file)
        files = [(split_file, top)] if top.episodes else []
        files += [(c, _read_gz(c)) for c in sorted((split_file.parent / "content").glob("*.json.gz"))]
        episodes = read.splits[split] = []
        for content, data in files:
            for n, raw in enumerate(data.episodes):
                where = f"{content}: episode {n}"
                episode = validated(HabitatEpisode, raw, where)
                scene = _scene(path, episode.scene_id, read.scenes, where)
                key = f"{Path(episode.scene_id).name}_{episode.object_category}"
                goals = (data.goals_by_category or {}).get(key) or episode.goals
                if not goals:
                    raise DataError(where, "goals", f"none inline and none under goals_by_category[{key!r}]")
                episodes.append(_from_habitat(episode, goals, scene, read, where))
        _unique_ids(episodes, split_file.parent, read)
    return read


def _scene(root: Path, scene_file: str, scenes: dict[str, Scene], where: str) -> Scene:
    """The homesim scene an episode names: `scenes/<id>.json` under the dataset folder (by its file name too,
    for habitat's loader, which prefixes its scenes folder), checked against its input model."""
    name = Path(scene_file).name
    if not name.endswith(".json"):
        raise DataError(where, "scene_id", f"{scene_file!r} is not a homesim scene (scenes/<id>.json); homesim "
                        "plays only its own scenes, not habitat-sim's meshes")  # fmt: skip
    scene_id = name.removesuffix(".json")
    if scene_id not in scenes:
        file = next((f for f in (root / scene_file, root / "scenes" / name) if f.is_file()), None)
        if file is None:
            raise DataError(where, "scene_id", f"no scene file {root / scene_file} nor {root / 'scenes' / name}")
        data = read_json(file)
        validated(SceneModel, data, str(file))
        scenes[scene_id] = Scene.from_dict(data)
    return scenes[scene_id]


def _on_lattice(x: float, z: float, read: HabitatImport) -> tuple[float, float]:
    sx, sz = round(x / LATTICE) * LATTICE, round(z / LATTICE) * LATTICE
    if math.hypot(sx - x, sz - z) > 1e-9:
        read.snapped_points.append(math.hypot(sx - x, sz - z))
    return sx, sz


def _from_habitat(
    raw: HabitatEpisode, goals: list[HabitatGoal], scene: Scene, read: HabitatImport, where: str
) -> ObjectNavEpisode:
    hx, _, z = raw.start_position
    moved = len(read.snapped_points)
    x, z = _on_lattice(-hx, z, read)
    yaw, turned = yaw_of(raw.start_rotation)
    if turned > 1e-6:
        read.snapped_yaws.append(turned)
    paths = raw.shortest_paths or [[]]
    actions = [ACTIONS[a] for a in paths[0]]
    if actions and (turned > 1e-6 or len(read.snapped_points) > moved):
        read.dropped_paths += 1
        actions = []
    grid = nav_grid(scene, LOCOBOT)
    if not grid.is_navigable(x, z):
        raise DataError(where, "start_position", f"{list(raw.start_position)} is not navigable in {scene.id}")
    goals = [g for g in (_goal_from_habitat(g, scene, grid, read, where) for g in goals) if g["view_points"]]
    episode = {
        "episode_id": raw.episode_id,
        "scene_id": scene.id,
        "start_position": [x, z],
        "start_rotation": yaw,
        "object_category": raw.object_category,
        "goals": goals,
        "geodesic_distance": raw.info.geodesic_distance,
        "euclidean_distance": raw.info.euclidean_distance,
        "difficulty": raw.info.difficulty or difficulty(raw.info.geodesic_distance),
        "reference_actions": actions,
    }
    validated(ObjectNavEpisodeModel, episode, where)  # homesim's own limits: a known category, goals in view, ...
    return ObjectNavEpisode.from_dict(episode)


def _goal_from_habitat(g: HabitatGoal, scene: Scene, grid: NavGrid, read: HabitatImport, where: str) -> dict:
    """A goal from the scene's object that `object_name` names, with the view points that are navigable
    (once on the lattice)."""
    if g.object_name not in scene.fixed:
        raise DataError(where, "object_name", f"{g.object_name!r} is not an object of scene {scene.id}")
    f = scene.fixed[g.object_name]
    points = [_on_lattice(-v.agent_state.position[0], v.agent_state.position[2], read) for v in g.view_points]
    return {
        "object_id": g.object_name,
        "object_category": g.object_category,
        "position": list(f.position),
        "box": [list(f.box.lo), list(f.box.hi)],
        "view_points": [list(p) for p in points if grid.is_navigable(*p)],
    }


def _unique_ids(episodes: list[ObjectNavEpisode], where: Path, read: HabitatImport) -> None:
    """habitat's loader numbers episodes 0, 1, ... in each content file: ids that repeat in a split are
    renamed <scene>/<id> (all of the split's, so names do not depend on file order); a repeat within one
    scene is an error."""
    if len({e.episode_id for e in episodes}) == len(episodes):
        return
    renamed = [f"{e.scene_id}/{e.episode_id}" for e in episodes]
    repeated = [n for n, k in Counter(renamed).items() if k > 1]
    if repeated:
        raise DataError(str(where), "episode_id", f"{repeated[0]!r} appears more than once in one scene")
    episodes[:] = [replace(e, episode_id=name) for e, name in zip(episodes, renamed)]
    read.renamed += len(episodes)
