"""`homesim/ObjectNav-v0`: object-goal navigation as the ObjectNav working group defines it, a thin
Gymnasium shell over `world.objectnav.navgrid.nav_step` (LoCoBot: 0.25 m forward, 30 degree turns and looks, no
sliding, 500 actions).

Actions: `Discrete(6)`, habitat's order: STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT, LOOK_UP, LOOK_DOWN (the
names are accepted too). A blocked move or a look past the camera's limits is a failed step that changes
nothing; anything that is not an action is a failed step too, never an exception.

Observations: `objectgoal` (the target category's index in `tasks.objectnav.CATEGORIES`), `gps` (metres
[forward, right] of the start pose, in its frame), `compass` (radians turned right since the start, in
(-pi, pi]) and, only when asked (`pixels=`), `rgb`, `depth` (metres, clipped to [0.5, 5]) and `semantic`
(per pixel the category index of the object seen, -1 for anything of no category) at the embodiment's
640x480.

STOP ends the episode (`terminated`); 500 actions without one cut it short (`truncated`). The episode is
then judged by the success criteria chosen (`criteria=`, all four by default; `tasks.objectnav_criteria`).
Distances are habitat's continuous geodesic distances to the nearest view point (`tasks.objectnav.goal_distance`),
d_0 measured at reset; the agent moves on the lattice. Reward (AllenAct's for RoboTHOR): -0.01 a step, plus
the decrease in that distance, plus 10 on success. `info` has `distance_to_goal`, `agent_path_length`,
`collisions`, `num_steps` each step, and at the end `criteria`, `success`, `spl`, `soft_spl` (the
evaluation's measures, `evaluation.objectnav.metrics`, on this episode) and `measures`, what a record keeps:
d_0, d_T, the path, the criteria and their inputs, and the poses (`episode_measures`). With `expert_hints=True`, `info["expert_action"]`
is the expert's next action from the current pose (None, with `info["expert_problem"]`, off the navigable
area).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from homesim.envs.objectnav.episodes import ObjectNavEpisodes, objectnav_episodes
from homesim.envs.options import NEEDS_RESET, chosen_episode, reset_options
from homesim.tasks.objectnav import CATEGORIES, ObjectNavEpisode, embodied_scene, goal_distance
from homesim.tasks.objectnav_criteria import (
    DEFAULT_CRITERIA,
    SUCCESS_DISTANCE,
    UNDEFINED_SPL,
    VIEW_POINT_DISTANCE,
    criteria_from,
    criteria_inputs,
    parse_criteria,
    soft_spl,
    spl,
    succeeded,
)
from homesim.world.objectnav.embodiment import LOCOBOT, Embodiment
from homesim.world.objectnav.navgrid import ACTIONS, LATTICE, nav_grid, nav_step
from homesim.world.scene import Scene
from homesim.world.state import AgentState, State

PIXELS = ("rgb", "depth", "semantic")
# views the renderer keeps drawn: random actions see 46% of their views again within 4 (1: 21%, 8: 50%),
# read back without drawing; 2.4 MB each at RGB-D 640x480
KEPT_VIEWS = 4
CATEGORY_NAMES = tuple(CATEGORIES)  # objectgoal and semantic index these
CATEGORY_OF = {cls: CATEGORY_NAMES.index(category) for category, classes in CATEGORIES.items() for cls in classes}
STEP_PENALTY, SUCCESS_REWARD = -0.01, 10.0
NO_OBJECTS: dict = {}  # ObjectNav's goals are fixed objects; movable ones are not drawn


def lattice_pose(agent: AgentState) -> list[int]:
    """A pose as a record keeps it: x and z in lattice steps (1/32 m: exact), yaw and camera pitch in degrees."""
    return [round(agent.x / LATTICE), round(agent.z / LATTICE), agent.yaw, agent.horizon]


def episode_measures(
    episode: ObjectNavEpisode,
    rules: Mapping,
    d0: float,
    distance_to_goal: float,
    path_length: float,
    collisions: int,
    criteria: dict[str, bool],
    inputs: dict,
    poses: dict,
) -> dict:
    """What a record keeps of an ObjectNav episode (`evaluation.objectnav.metrics` reads it), as JSON values,
    an unreachable distance as null: enough to judge and score it again without the engine. `rules`: the
    evaluation's (`ObjectNavRules`); `poses`: `start` and `end` (`lattice_pose`) and `positions`, the lattice
    points it stood on, one more after each move (the path length is the sum of their distances)."""

    def distance(d: float) -> float | None:
        return float(d) if math.isfinite(d) else None

    return {
        "category": episode.object_category,
        "difficulty": episode.difficulty,
        "geodesic_distance": distance(d0),
        "distance_to_goal": distance(distance_to_goal),
        "agent_path_length": round(path_length, 6),
        "collisions": collisions,
        "criteria": criteria,
        "required": list(rules["criteria"]),
        "success_distance": rules["success_distance"],
        "view_point_distance": rules["view_point_distance"],
        "undefined_spl": rules["undefined_spl"],
        "inputs": inputs,
        "poses": poses,
    }


def objectnav_rules(
    criteria: str | Sequence[str] = DEFAULT_CRITERIA,
    success_distance: float = SUCCESS_DISTANCE,
    view_point_distance: float = VIEW_POINT_DISTANCE,
    undefined_spl: str = "limit",
) -> dict:
    """An evaluation's ObjectNav rules, checked: the success criteria required, their distances (metres) and
    how SPL reads where its formula has no value (`tasks.objectnav_criteria`)."""
    for name, value in (("success distance", success_distance), ("view point distance", view_point_distance)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"{name} {value!r}: a positive number of metres")
    if undefined_spl not in UNDEFINED_SPL:
        raise ValueError(f"undefined SPL {undefined_spl!r}: one of {', '.join(UNDEFINED_SPL)}")
    return {
        "criteria": list(parse_criteria(criteria)),
        "success_distance": float(success_distance),
        "view_point_distance": float(view_point_distance),
        "undefined_spl": undefined_spl,
    }


def sensors(pixels: Sequence[str]) -> tuple[str, ...]:
    """The images asked for, checked."""
    if isinstance(pixels, str) or set(pixels) - set(PIXELS):
        raise ValueError(f"pixels={pixels!r}: give a sequence of some of {', '.join(PIXELS)}")
    return tuple(pixels)


def observation_space(embodiment: Embodiment, pixels: Sequence[str]) -> spaces.Dict:
    """habitat's sensors: the goal category, GPS+compass, and the images asked for at the embodiment's size."""
    height, width = embodiment.height, embodiment.width
    images = {
        "rgb": spaces.Box(0, 255, (height, width, 3), np.uint8),
        "depth": spaces.Box(*embodiment.depth_range, (height, width), np.float32),
        "semantic": spaces.Box(-1, len(CATEGORY_NAMES) - 1, (height, width), np.int32),
    }
    return spaces.Dict(
        {
            "objectgoal": spaces.Discrete(len(CATEGORY_NAMES)),
            "gps": spaces.Box(np.finfo(np.float32).min, np.finfo(np.float32).max, (2,), np.float32),
            "compass": spaces.Box(-math.pi, math.pi, (1,), np.float32),
        }
        | {k: images[k] for k in pixels}
    )


def semantic(scene: Scene, frame) -> np.ndarray:
    """Per pixel, the category index of the object drawn there (-1: no category, or nothing)."""
    return frame.labels(lambda object_id: CATEGORY_OF.get(scene.fixed[object_id].cls, -1))


class ObjectNavEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        episodes: ObjectNavEpisodes | str | Path | None = None,
        scenes: Mapping[str, Scene] | None = None,
        split: str | None = None,
        pixels: Sequence[str] = (),
        criteria: str | Sequence[str] = DEFAULT_CRITERIA,
        success_distance: float = SUCCESS_DISTANCE,
        view_point_distance: float = VIEW_POINT_DISTANCE,
        undefined_spl: str = "limit",
        max_steps: int | None = None,
        expert_hints: bool = False,
        embodiment: Embodiment = LOCOBOT,
    ) -> None:
        self.episodes, self.scenes = objectnav_episodes(episodes, scenes, split)
        pixels = sensors(pixels)
        if not (isinstance(success_distance, int | float) and 0 < success_distance < math.inf):
            raise ValueError(f"success_distance={success_distance!r}: a positive number of metres")
        self.pixels, self.embodiment = tuple(pixels), embodiment
        self.rules = objectnav_rules(criteria, success_distance, view_point_distance, undefined_spl)
        self.max_steps = embodiment.max_steps if max_steps is None else max_steps
        self.expert_hints = expert_hints
        self.renderer = None
        if self.pixels:
            from homesim.render import Renderer

            images = {"rgb": "rgb", "depth": "depth", "semantic": "segmentation"}  # sensor -> image drawn
            self.renderer = Renderer(
                **embodiment.renderer_settings(), images=[images[p] for p in self.pixels], views=KEPT_VIEWS
            )
        self._views: dict[str, Scene] = {}  # scenes seen from the embodiment's camera height
        self.action_space = spaces.Discrete(len(ACTIONS))
        self.episode: ObjectNavEpisode | None = None

    @functools.cached_property
    def observation_space(self) -> spaces.Dict:
        """Made when first asked for: its Boxes take a millisecond, and an evaluation's runner never asks (a remote
        evaluation makes a runner per episode played at once)."""
        return observation_space(self.embodiment, self.pixels)

    # --- Gymnasium API -----------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.episode = None  # until this reset is done: every option is checked before the state is touched
        episode = chosen_episode(reset_options(options).get("episode"), self.episodes, ObjectNavEpisode, self.np_random)
        if episode.scene_id not in self.scenes:
            raise ValueError(f"episode {episode.episode_id}: no scene {episode.scene_id!r}")
        self.episode = episode
        self.scene = self.scenes[self.episode.scene_id]
        self.grid = nav_grid(self.scene, self.embodiment)
        self.goal = goal_distance(self.grid, self.episode.goals)
        (x, z), yaw = self.episode.start_position, self.episode.start_rotation
        self.agent = self.start = AgentState(x, z, yaw, 0)
        self.positions = [lattice_pose(self.agent)[:2]]
        self.expert = None
        if self.expert_hints:
            from homesim.planning.objectnav_expert import ObjectNavExpert

            self.expert = ObjectNavExpert(self.scene, self.episode, self.embodiment)
        self.steps, self.collisions, self.path_length = 0, 0, 0.0
        self.distance = self.start_distance = self.goal.distance(x, z)  # d_0, measured live as habitat does
        self.last = ("", True, "")
        self.over = ""
        return self._observation(), self._info()

    def step(self, action: object) -> tuple[dict, float, bool, bool, dict]:
        if self.episode is None:
            raise RuntimeError(NEEDS_RESET)
        if self.over:
            raise RuntimeError(
                f"episode {self.episode.episode_id} is over ({self.over}): call reset() to start another"
            )
        name, problem = self._read(action)
        before = self.agent
        if name is None:
            self.last = (None, False, problem)
        else:
            self.agent, event = nav_step(self.grid, self.agent, name)
            self.collisions += event.collided
            self.last = (name, event.success, event.message)
        if (self.agent.x, self.agent.z) != (before.x, before.z):
            self.path_length += math.hypot(self.agent.x - before.x, self.agent.z - before.z)
            self.positions.append(lattice_pose(self.agent)[:2])
        self.steps += 1
        stopped = name == "STOP"
        truncated = not stopped and self.steps >= self.max_steps
        distance = self.goal.distance(self.agent.x, self.agent.z)
        reward = STEP_PENALTY
        if math.isfinite(distance) and math.isfinite(self.distance):
            reward += self.distance - distance
        self.distance = distance
        info = self._info()
        if stopped or truncated:
            self.over = "the agent stopped" if stopped else "the step limit was reached"
            info |= self._verdict(stopped)
            reward += SUCCESS_REWARD * info["success"]
        return self._observation(), reward, stopped, truncated, info

    # --- helpers -----------------------------------------------------------------------------------------

    @staticmethod
    def _read(action: object) -> tuple[str | None, str]:
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, int | np.integer) and not isinstance(action, bool):
            if 0 <= action < len(ACTIONS):
                return ACTIONS[int(action)], ""
            return None, f"invalid action index {action}: ObjectNav has {len(ACTIONS)} actions"
        if isinstance(action, str) and action in ACTIONS:
            return action, ""
        return None, f"invalid action {action!r}: one of {', '.join(ACTIONS)} or its index"

    def view_scene(self) -> Scene:
        """The scene as the embodiment's camera sees it (its camera height, not ALFRED's agent's), made
        once per scene so the renderer keeps its uploaded geometry."""
        view = self._views.get(self.scene.id)
        if view is None or view.fixed is not self.scene.fixed:
            view = self._views[self.scene.id] = embodied_scene(self.scene, self.embodiment)
        return view

    def render_state(self) -> State:
        """What the camera sees: the scene's fixed objects (the goals are among them) and the agent. One
        objects dict for every frame, so the renderer keeps its object instances from frame to frame."""
        return State(objects=NO_OBJECTS, agents=(self.agent,))

    def _observation(self) -> dict:
        dx, dz = self.agent.x - self.start.x, self.agent.z - self.start.z
        s, c = math.sin(math.radians(self.start.yaw)), math.cos(math.radians(self.start.yaw))
        turned = (self.agent.yaw - self.start.yaw + 180) % 360 - 180
        observation = {
            "objectgoal": CATEGORY_NAMES.index(self.episode.object_category),
            "gps": np.array([dx * s + dz * c, dx * c - dz * s], dtype=np.float32),
            "compass": np.array([math.radians(turned if turned != -180 else 180)], dtype=np.float32),
        }
        if self.renderer is not None:
            state = self.render_state()
            frame = self.renderer.render(self.view_scene(), state)
            if "rgb" in self.pixels:
                observation["rgb"] = frame.rgb
            if "depth" in self.pixels:
                observation["depth"] = frame.depth
            if "semantic" in self.pixels:
                observation["semantic"] = semantic(self.scene, frame)
        return observation

    def _info(self) -> dict:
        hints = {}
        if self.expert is not None:  # privileged: the expert's next action from this very pose
            from homesim.planning.objectnav_expert import Unrecoverable

            try:
                hints = {"expert_action": self.expert.next_action(self.agent), "expert_problem": ""}
            except Unrecoverable as e:
                hints = {"expert_action": None, "expert_problem": str(e)}
        return hints | {
            "episode_id": self.episode.episode_id,
            "distance_to_goal": self.distance,
            "agent_path_length": self.path_length,
            "collisions": self.collisions,
            "num_steps": self.steps,
            "last_action": self.last[0],
            "last_action_success": self.last[1],
            "last_action_message": self.last[2],
        }

    def verdict(self) -> dict:
        """The success criteria and measures were the episode to end now without a STOP (an evaluation
        whose agent raised ends it so)."""
        return self._verdict(False)

    def _verdict(self, stopped: bool) -> dict:
        """The success criteria where the agent ended, and the episode's measures."""
        inputs = criteria_inputs(self.grid, {g.object_id: g.box for g in self.episode.goals}, self.agent)
        poses = {"start": lattice_pose(self.start), "positions": self.positions, "end": lattice_pose(self.agent)}
        travelled = (self.start_distance, self.distance, self.path_length, self.collisions)
        return episode_verdict(self.episode, self.rules, inputs, stopped, *travelled, poses)


def episode_verdict(
    episode: ObjectNavEpisode,
    rules: Mapping,
    inputs: dict,
    stopped: bool,
    start_distance: float,
    distance: float,
    path_length: float,
    collisions: int,
    poses: dict,
) -> dict:
    """What `info` says of an episode at its end, from what the criteria read where it ended (`criteria_inputs`)
    and its measures: the single env's and the batched env's (`vector`) one verdict."""
    d_t = distance if math.isfinite(distance) else None
    criteria = criteria_from(
        inputs, stopped, d_t, rules["criteria"], rules["success_distance"], rules["view_point_distance"]
    )
    travelled = (start_distance, distance, path_length, collisions)
    measures = episode_measures(episode, rules, *travelled, criteria, inputs, poses)
    success = succeeded(criteria, rules["criteria"])
    d0, path, undefined = measures["geodesic_distance"], measures["agent_path_length"], rules["undefined_spl"]
    return {
        "measures": measures,
        "criteria": criteria,
        "success": bool(success),
        "spl": spl(success, d0, path, undefined),
        "soft_spl": soft_spl(success, d0, d_t, path, undefined),
    }
