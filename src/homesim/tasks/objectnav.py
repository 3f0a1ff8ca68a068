"""ObjectNav episodes as the ObjectNav working group defines them (`objectnav-revisited.txt`): a scene, a
start pose and a target category; every instance of the category is a goal, with its *view points*:
navigable points within r = 1 m of the object from which it is visible with a suitable camera orientation
(the success zone), sampled on a grid of 3/32 m (the paper: R_agent / 2 = 0.09 m).

Distances: `geodesic_distance` is habitat's: the shortest path on the navigable area from the start to the
nearest view point of any instance (`goal_distance`, `world.objectnav.geodesic`), rounded to 0.1 mm in the
episode file (an evaluation measures it again at reset); `euclidean_distance` the straight line to the nearest
view point. The paper's filters (reachable, geodesic / euclidean >= 1.05, shortest path <= 750 actions) are
applied where episodes are generated (`datasets.objectnav.generate`); easy / medium / hard bin the geodesic
distance, as RoboTHOR's challenge does. The expert walks by `goal_field`, the distance along the agent's own
lattice moves (`world.objectnav.navgrid`), which is what its path can reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from homesim.world.objectnav.embodiment import Embodiment
from homesim.world.objectnav.geodesic import GoalDistance, nav_area
from homesim.world.objectnav.navgrid import NavGrid
from homesim.world.objectnav.sight import oracle_sees_from
from homesim.world.scene import Box, Scene

# Categories as the 2020 Habitat challenge names them (its 21 MP3D categories), those the catalog has:
# category -> catalog classes.
CATEGORIES: dict[str, tuple[str, ...]] = {
    "chair": ("Chair", "ArmChair"),
    "table": ("DiningTable", "CoffeeTable", "SideTable", "Desk"),
    "cabinet": ("Cabinet",),
    "sofa": ("Sofa",),
    "bed": ("Bed",),
    "chest_of_drawers": ("Dresser",),
    "plant": ("HousePlant",),
    "sink": ("Sink",),
    "toilet": ("Toilet",),
    "tv_monitor": ("Television",),
    "bathtub": ("Bathtub",),
    "counter": ("CounterTop",),
}
SUCCESS_DISTANCE = 1.0  # r: metres from the object's surface
VIEW_POINT_STRIDE = 3  # lattice steps between view points: 3/32 m, about habitat's R_agent / 2
MIN_RATIO = 1.05  # geodesic / euclidean, the paper's filter against straight-line episodes
MAX_ACTIONS = 750  # the paper's limit on the shortest path's actions
MIN_GEODESIC = 1.0  # metres: habitat's generator starts no closer than this
DIFFICULTY = (("easy", 0.0, 4.0), ("medium", 4.0, 8.0), ("hard", 8.0, math.inf))  # geodesic metres


def difficulty(geodesic: float) -> str:
    for name, lo, hi in DIFFICULTY:
        if lo <= geodesic < hi:
            return name
    raise ValueError(f"no difficulty for a geodesic distance of {geodesic}")


@dataclass(frozen=True)
class ObjectGoal:
    """One instance of the target category: its id, position, box and view points ((x, z) on the lattice)."""

    object_id: str
    object_category: str
    position: tuple[float, float, float]
    box: Box
    view_points: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict:
        return {
            "object_id": self.object_id,
            "object_category": self.object_category,
            "position": list(self.position),
            "box": [list(self.box.lo), list(self.box.hi)],
            "view_points": [list(p) for p in self.view_points],
        }

    @staticmethod
    def from_dict(d: dict) -> ObjectGoal:
        return ObjectGoal(
            object_id=d["object_id"],
            object_category=d["object_category"],
            position=tuple(float(v) for v in d["position"]),
            box=Box(tuple(d["box"][0]), tuple(d["box"][1])),
            view_points=tuple((float(x), float(z)) for x, z in d["view_points"]),
        )


@dataclass(frozen=True)
class ObjectNavEpisode:
    suite: ClassVar[str] = "objectnav"  # the suite registry's name for it, as dataset.json spells it
    episode_id: str
    scene_id: str
    start_position: tuple[float, float]  # x, z on the lattice
    start_rotation: int  # yaw in degrees, a multiple of the embodiment's turn
    object_category: str
    goals: tuple[ObjectGoal, ...]
    geodesic_distance: float
    euclidean_distance: float
    difficulty: str
    reference_actions: tuple[str, ...] = ()  # the expert's actions from the start, STOP included

    @property
    def id(self) -> str:
        """The episode's id, by the name every suite's episodes answer to (habitat's `episode_id`)."""
        return self.episode_id

    def to_dict(self) -> dict:
        return {
            "episode_id": self.episode_id,
            "scene_id": self.scene_id,
            "start_position": list(self.start_position),
            "start_rotation": self.start_rotation,
            "object_category": self.object_category,
            "goals": [g.to_dict() for g in self.goals],
            "geodesic_distance": self.geodesic_distance,
            "euclidean_distance": self.euclidean_distance,
            "difficulty": self.difficulty,
            "reference_actions": list(self.reference_actions),
        }

    @staticmethod
    def from_dict(d: dict) -> ObjectNavEpisode:
        if d["object_category"] not in CATEGORIES:
            raise ValueError(f"object_category {d['object_category']!r} is not one of {', '.join(CATEGORIES)}")
        if d["difficulty"] not in {name for name, _, _ in DIFFICULTY}:
            raise ValueError(f"difficulty {d['difficulty']!r} is not easy, medium or hard")
        goals = tuple(ObjectGoal.from_dict(g) for g in d["goals"])
        if not goals or not all(g.view_points for g in goals):
            raise ValueError("an episode needs goals, each with view points")
        x, z = d["start_position"]
        return ObjectNavEpisode(
            episode_id=str(d["episode_id"]),
            scene_id=d["scene_id"],
            start_position=(float(x), float(z)),
            start_rotation=int(d["start_rotation"]),
            object_category=d["object_category"],
            goals=goals,
            geodesic_distance=float(d["geodesic_distance"]),
            euclidean_distance=float(d["euclidean_distance"]),
            difficulty=d["difficulty"],
            reference_actions=tuple(d.get("reference_actions", ())),
        )

    @property
    def view_points(self) -> np.ndarray:
        """(N, 2) every goal's view points."""
        return np.array([p for g in self.goals for p in g.view_points], dtype=float).reshape(-1, 2)


def instances(scene: Scene, category: str) -> list[str]:
    """The ids of the scene's objects of a category, in id order."""
    classes = CATEGORIES[category]
    return sorted(f.id for f in scene.fixed.values() if f.cls in classes)


def view_points(grid: NavGrid, box: Box, r: float = SUCCESS_DISTANCE) -> tuple[tuple[float, float], ...]:
    """The navigable view-point-grid points within r of the box (on the floor plan) that see it after
    turning in place, in lattice order."""
    points = grid.navigable_points(VIEW_POINT_STRIDE)
    dx = np.maximum(np.maximum(box.lo[0] - points[:, 0], points[:, 0] - box.hi[0]), 0.0)
    dz = np.maximum(np.maximum(box.lo[2] - points[:, 1], points[:, 1] - box.hi[2]), 0.0)
    near = points[np.hypot(dx, dz) <= r]
    return tuple((float(x), float(z)) for x, z in near[oracle_sees_from(grid, box, near)])


def category_goals(scene: Scene, grid: NavGrid, category: str, r: float = SUCCESS_DISTANCE) -> tuple[ObjectGoal, ...]:
    """Every instance of the category with its view points; instances with none are left out (as the paper does)."""
    goals = []
    for object_id in instances(scene, category):
        f = scene.fixed[object_id]
        points = view_points(grid, f.box, r)
        if points:
            goals.append(ObjectGoal(object_id, category, f.position, f.box, points))
    return tuple(goals)


def goal_distance(grid: NavGrid, goals: tuple[ObjectGoal, ...]) -> GoalDistance:
    """The geodesic distance to the goals' nearest view point (what d_0 and the distance to goal read), built
    once per scene and goal set."""
    key = ("goal_distance", grid.embodiment, tuple(g.object_id for g in goals))
    distance = grid.scene.pose_visibility.get(key)
    if distance is None:
        points = np.array([p for g in goals for p in g.view_points], dtype=float).reshape(-1, 2)
        distance = grid.scene.pose_visibility[key] = GoalDistance(nav_area(grid), points)
    return distance


def goal_field(grid: NavGrid, goals: tuple[ObjectGoal, ...]) -> np.ndarray:
    """The distance field to every view point of the goals along the agent's own lattice moves (what the
    expert walks by), built once per scene and goal set."""
    key = ("goal_field", grid.embodiment, tuple(g.object_id for g in goals))
    field = grid.scene.pose_visibility.get(key)
    if field is None:
        points = np.array([p for g in goals for p in g.view_points], dtype=float).reshape(-1, 2)
        field = grid.scene.pose_visibility[key] = grid.distance_field(points).astype(np.float32)
    return field


def euclidean_to(points: np.ndarray, x: float, z: float) -> float:
    """Straight-line metres from (x, z) to the nearest of the points."""
    return float(np.hypot(points[:, 0] - x, points[:, 1] - z).min())


def embodied_scene(scene: Scene, embodiment: Embodiment) -> Scene:
    """The scene as the embodiment's camera sees it (the renderer reads `Scene.camera_height`)."""
    return replace(scene, camera_height=embodiment.camera_height)
