"""Input models of homesim's own file formats (pydantic), with limits: a scene file, a world state, and the
episodes of a dataset folder's split files. A file is checked against its model when it is read, before any
of it reaches the engine, and what is wrong is one `DataError` naming the file (and line) and the field.

Two kinds of check: the models (types, sizes, finite numbers in range, known names), and what only the
whole says (`check_state`, `check_in_scene`): an object's parent exists and no object is its own
ancestor, a held object is held by one agent and lies nowhere, the agents stand inside the scene.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    StringConstraints,
    field_validator,
    model_validator,
)

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.errors import DataError
from homesim.tasks.alfred import TASK_TYPES
from homesim.tasks.objectnav import CATEGORIES, DIFFICULTY, ObjectNavEpisode
from homesim.world.actions import ACTIONS
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import HORIZON_MAX, HORIZON_MIN
from homesim.world.handmethat import handmethat_catalog
from homesim.world.objectnav.navgrid import ACTIONS as OBJECTNAV_ACTIONS
from homesim.world.scene import GRID_SIZE

MAX_COORDINATE = 10_000.0  # metres from the origin: no house is larger
MAX_CELL = int(MAX_COORDINATE / GRID_SIZE)
MAX_ITEMS = 100_000  # objects, cells, actions, ... in one file's list
OUTSIDE = 2.0  # metres an agent may stand beyond the scene's reachable cells (and still be in it)

Name = Annotated[StrictStr, StringConstraints(min_length=1, max_length=256)]
Text = Annotated[StrictStr, StringConstraints(max_length=100_000)]
Metres = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
Distance = Annotated[float, Field(allow_inf_nan=False, ge=0.0, le=MAX_COORDINATE * 10)]
Cell = Annotated[int, Field(strict=True, ge=-MAX_CELL, le=MAX_CELL)]
Degrees = Annotated[int, Field(strict=True, ge=0, lt=360)]
Index = Annotated[int, Field(strict=True, ge=0, le=MAX_ITEMS)]
Point3 = tuple[Metres, Metres, Metres]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BoxModel(_Model):
    lo: Point3
    hi: Point3

    @model_validator(mode="before")
    @classmethod
    def _pair(cls, value: Any) -> Any:
        if isinstance(value, list | tuple) and len(value) == 2:
            return {"lo": value[0], "hi": value[1]}
        raise ValueError("a box is [[x, y, z] low, [x, y, z] high]")

    @model_validator(mode="after")
    def _ordered(self) -> BoxModel:
        if any(lo > hi for lo, hi in zip(self.lo, self.hi, strict=True)):
            raise ValueError(f"a box's low corner {list(self.lo)} is above its high corner {list(self.hi)}")
        return self


# --- world state --------------------------------------------------------------------------------------------


class ObjectModel(_Model):
    id: Name
    cls: Name
    position: Point3 | None = None
    parent: Name | None = None
    is_open: StrictBool = False
    is_on: StrictBool = False
    is_dirty: StrictBool = False
    is_hot: StrictBool = False
    is_cold: StrictBool = False


class AgentModel(_Model):
    x: Metres
    z: Metres
    yaw: Degrees
    horizon: Annotated[int, Field(strict=True, ge=HORIZON_MIN, le=HORIZON_MAX)]
    held: Name | None = None

    @field_validator("yaw")
    @classmethod
    def _right_angle(cls, yaw: int) -> int:
        if yaw % 90:
            raise ValueError(f"{yaw} is not a multiple of 90 degrees (ALFRED's agent turns by 90)")
        return yaw


class StateModel(_Model):
    objects: Annotated[list[ObjectModel], Field(max_length=MAX_ITEMS)]
    agents: Annotated[list[AgentModel], Field(min_length=1, max_length=64)]
    cleaned: Annotated[list[Name], Field(max_length=MAX_ITEMS)] = []
    heated: Annotated[list[Name], Field(max_length=MAX_ITEMS)] = []
    cooled: Annotated[list[Name], Field(max_length=MAX_ITEMS)] = []

    @model_validator(mode="after")
    def _whole(self) -> StateModel:
        check_state(self)
        return self


def check_state(state: StateModel) -> None:
    """What only the whole state says: ids unique, parents that exist and never loop, a held object held by
    one agent, lying nowhere and in nothing, the history sets naming objects (a ValueError naming the field)."""
    objects = {o.id: o for o in state.objects}
    if len(objects) != len(state.objects):
        raise ValueError("objects: an object id is given twice")
    for i, o in enumerate(state.objects):
        if o.parent is not None and o.parent not in objects:
            raise ValueError(f"objects.{i}.parent: no object {o.parent!r} in the state")
        seen, parent = {o.id}, o.parent
        while parent is not None:
            if parent in seen:
                raise ValueError(f"objects.{i}.parent: {o.id!r} is inside itself (its parents loop)")
            seen.add(parent)
            parent = objects[parent].parent
    held = [a.held for a in state.agents if a.held is not None]
    if len(set(held)) != len(held):
        raise ValueError("agents: two agents hold one object")
    for k, a in enumerate(state.agents):
        if a.held is None:
            continue
        if a.held not in objects:
            raise ValueError(f"agents.{k}.held: no object {a.held!r} in the state")
        if objects[a.held].parent is not None or objects[a.held].position is not None:
            raise ValueError(f"agents.{k}.held: {a.held!r} is held, so it lies nowhere (no parent, no position)")
    for name in ("cleaned", "heated", "cooled"):
        for object_id in getattr(state, name):
            if object_id not in objects:
                raise ValueError(f"{name}: no object {object_id!r} in the state")


# --- scenes -------------------------------------------------------------------------------------------------


class FixedModel(_Model):
    id: Name
    cls: Name
    position: Point3
    box: BoxModel
    use_poses: Annotated[list[tuple[Metres, Metres, Degrees, int]], Field(max_length=MAX_ITEMS)] = []
    starts_open: StrictBool = False


class SceneModel(_Model):
    id: Name
    room_type: Name
    camera_height: Annotated[float, Field(allow_inf_nan=False, gt=0.0, le=10.0)]
    reachable: Annotated[list[tuple[Cell, Cell]], Field(min_length=1, max_length=4 * MAX_ITEMS)]
    fixed: Annotated[list[FixedModel], Field(max_length=MAX_ITEMS)]
    provenance: dict = {}
    rooms: Annotated[list[tuple[Name, Metres, Metres, Metres, Metres]], Field(max_length=1000)] = []
    walls: Annotated[list[BoxModel], Field(max_length=MAX_ITEMS)] = []
    doorways: Annotated[list[BoxModel], Field(max_length=MAX_ITEMS)] = []

    @model_validator(mode="after")
    def _rooms_have_area(self) -> SceneModel:
        for i, (_, x0, z0, x1, z1) in enumerate(self.rooms):
            if not (x0 < x1 and z0 < z1):
                raise ValueError(f"rooms.{i}: its corners ({x0}, {z0}) and ({x1}, {z1}) enclose no floor")
        return self


def bounds_of(scene: Mapping) -> tuple[float, float, float, float]:
    """The floor a scene's agents may stand on, with `OUTSIDE` metres around its reachable cells."""
    cells = scene["reachable"]
    xs, zs = [c[0] * GRID_SIZE for c in cells], [c[1] * GRID_SIZE for c in cells]
    return min(xs) - OUTSIDE, min(zs) - OUTSIDE, max(xs) + OUTSIDE, max(zs) + OUTSIDE


def _inside(bounds: tuple[float, float, float, float], x: float, z: float) -> bool:
    return bounds[0] <= x <= bounds[2] and bounds[1] <= z <= bounds[3]


# --- episodes -----------------------------------------------------------------------------------------------


class GoalModel(_Model):
    task_type: Name
    object_target: Name
    parent_target: Annotated[StrictStr, StringConstraints(max_length=256)] = ""
    toggle_target: Annotated[StrictStr, StringConstraints(max_length=256)] = ""
    mrecep_target: Annotated[StrictStr, StringConstraints(max_length=256)] = ""
    object_sliced: StrictBool = False

    @field_validator("task_type")
    @classmethod
    def _known(cls, task_type: str) -> str:
        if task_type not in TASK_TYPES:
            raise ValueError(f"unknown ALFRED task type {task_type!r}")
        return task_type


class AnnotationModel(_Model):
    task_desc: Text
    high_descs: Annotated[list[Text], Field(max_length=1000)]


class SubgoalModel(_Model):
    action: Name
    object_id: Name | None
    receptacle_id: Name | None
    location: tuple[Metres, Metres] | None


class AlfredEpisodeModel(_Model):
    id: Name
    scene_id: Name
    initial_state: StateModel
    goal: GoalModel
    expert_actions: Annotated[list[tuple[Name, Name | None]], Field(max_length=MAX_ITEMS)]
    expert_subgoal_index: Annotated[list[Index], Field(max_length=MAX_ITEMS)]
    annotations: Annotated[list[AnnotationModel], Field(max_length=1000)]
    subgoals: Annotated[list[SubgoalModel], Field(max_length=MAX_ITEMS)] = []

    @model_validator(mode="after")
    def _whole(self) -> AlfredEpisodeModel:
        if len(self.expert_subgoal_index) != len(self.expert_actions):
            raise ValueError("expert_subgoal_index: one index per expert action")
        for i, (name, _) in enumerate(self.expert_actions):
            if name not in ACTIONS:
                raise ValueError(f"expert_actions.{i}: unknown action {name!r}")
        classes = alfred_catalog().classes
        for i, o in enumerate(self.initial_state.objects):
            if o.cls not in classes:
                raise ValueError(f"initial_state.objects.{i}.cls: {o.cls!r} is not an ALFRED object class")
        return self

    def check_in_scene(self, scene: Mapping) -> None:
        bounds = bounds_of(scene)
        for k, a in enumerate(self.initial_state.agents):
            if not _inside(bounds, a.x, a.z):
                raise ValueError(f"initial_state.agents.{k}: ({a.x}, {a.z}) is outside scene {scene['id']}")
        fixed = {f["id"] for f in scene["fixed"]}
        held = {a.held for a in self.initial_state.agents}
        for i, o in enumerate(self.initial_state.objects):
            if o.position is None and o.id not in fixed and o.id not in held:
                raise ValueError(f"initial_state.objects.{i}: {o.id!r} has no position, and is neither fixed nor held")


class ObjectGoalModel(_Model):
    object_id: Name
    object_category: Name
    position: Point3
    box: BoxModel
    view_points: Annotated[list[tuple[Metres, Metres]], Field(min_length=1, max_length=MAX_ITEMS)]


class ObjectNavEpisodeModel(_Model):
    episode_id: Name
    scene_id: Name
    start_position: tuple[Metres, Metres]
    start_rotation: Degrees
    object_category: Name
    goals: Annotated[list[ObjectGoalModel], Field(min_length=1, max_length=MAX_ITEMS)]
    geodesic_distance: Distance
    euclidean_distance: Distance
    difficulty: Name
    reference_actions: Annotated[list[Name], Field(max_length=MAX_ITEMS)] = []

    @model_validator(mode="after")
    def _whole(self) -> ObjectNavEpisodeModel:
        if self.object_category not in CATEGORIES:
            raise ValueError(f"object_category: {self.object_category!r} is not one of {', '.join(CATEGORIES)}")
        if self.difficulty not in {name for name, _, _ in DIFFICULTY}:
            raise ValueError(f"difficulty: {self.difficulty!r} is not easy, medium or hard")
        if self.start_rotation % 30:
            raise ValueError(f"start_rotation: {self.start_rotation} is not a multiple of the robot's 30 degree turn")
        unknown = [a for a in self.reference_actions if a not in OBJECTNAV_ACTIONS]
        if unknown:
            raise ValueError(f"reference_actions: unknown action {unknown[0]!r}")
        return self

    def check_in_scene(self, scene: Mapping) -> None:
        if not _inside(bounds_of(scene), *self.start_position):
            raise ValueError(f"start_position: {list(self.start_position)} is outside scene {scene['id']}")


class ThingModel(_Model):
    name: Name
    type: Name
    states: Annotated[list[Name], Field(max_length=64)] = []
    size: Name | None = None
    color: Name | None = None
    parent: Name | None = None
    relation: Literal["inside", "ontop"] | None = None


class HmtAgentModel(_Model):
    at: Name
    held: Annotated[list[Name], Field(max_length=MAX_ITEMS)] = []


class HmtStateModel(_Model):
    things: Annotated[list[ThingModel], Field(min_length=1, max_length=MAX_ITEMS)]
    robot: HmtAgentModel
    human: HmtAgentModel

    @model_validator(mode="after")
    def _whole(self) -> HmtStateModel:
        """Names unique and known types; parents that exist and never loop; agents at a thing, holding things."""
        catalog = handmethat_catalog()
        things = {t.name: t for t in self.things}
        if len(things) != len(self.things):
            raise ValueError("things: a thing's name is given twice")
        for i, t in enumerate(self.things):
            if t.type not in catalog.categories:
                raise ValueError(f"things.{i}.type: unknown object type {t.type!r}")
            seen, parent = {t.name}, t.parent
            while parent is not None:
                if parent not in things:
                    raise ValueError(f"things.{i}.parent: no thing {parent!r}")
                if parent in seen:
                    raise ValueError(f"things.{i}.parent: {t.name!r} is inside itself (its parents loop)")
                seen.add(parent)
                parent = things[parent].parent
        for who in ("robot", "human"):
            agent = getattr(self, who)
            if agent.at not in things:
                raise ValueError(f"{who}.at: no thing {agent.at!r}")
            for name in agent.held:
                if name not in things:
                    raise ValueError(f"{who}.held: no thing {name!r}")
        return self


class HandMeThatEpisodeModel(_Model):
    """The fields the game reads (the meanings and the reading are checked by their own `from_dict`)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    id: Name
    initial_state: HmtStateModel
    human_actions: Annotated[
        list[Annotated[list[Name], Field(min_length=1, max_length=16)]], Field(max_length=MAX_ITEMS)
    ]
    goal: Text
    subgoal: Text
    objects_in_meaning: Annotated[list[tuple[Name, Any]], Field(max_length=MAX_ITEMS)]
    level: Annotated[int, Field(strict=True, ge=1, le=4)]
    demo_actions: Annotated[list[Text], Field(max_length=MAX_ITEMS)]
    task_description: Text


# by the suite each episode type declares (a suite without a model here is checked by its `from_dict`)
EPISODE_MODELS: dict[str, type[_Model]] = {
    AlfredEpisode.suite: AlfredEpisodeModel,
    ObjectNavEpisode.suite: ObjectNavEpisodeModel,
    HandMeThatEpisode.suite: HandMeThatEpisodeModel,
}


def checked_in_scene(episode: _Model, scene: Mapping, where: str) -> None:
    """An episode's places checked against its scene's floor (a DataError naming `where` and the field)."""
    check = getattr(episode, "check_in_scene", None)
    if check is None:
        return
    try:
        check(scene)
    except ValueError as e:
        field, _, problem = str(e).partition(": ")
        raise DataError(where, field, problem) from None
