"""`homesim/ALFRED-v0`: ALFRED episodes as a Gymnasium environment, a thin shell over `world.step`.

Actions are dicts `{"action": index into ALFRED's 13 actions (or the name), "target": ...}`. The target
is an object id in oracle mode (`interaction="oracle"`, where observations list the `visible_objects`),
or a 300x300 mask in mask mode (`interaction="mask"`: an array, or ALFRED's run-length encoding of one, resolved
to an object by IoU with the instance segmentation of the frame the agent saw, as ALFRED does).
`pixels=("rgb", "depth", "segmentation", "semantic")` adds egocentric images to the observations (rendered
headless; off by default): instance segmentation indexes the frame's objects, `semantic` their classes
(`semantic_classes()`, -1: nothing), the ground truth a modular agent's detector would otherwise predict. An
invalid action is a failed step, never an exception.

ALFRED's limits end an episode: STOP ends it (`terminated`); 1000 steps or 10 failed actions cut it
short (`truncated`). Failed actions count as steps, except the 10th, which ends the episode before it is
counted (ALFRED's `eval_task.py` breaks before `t += 1`). `rules` choose how goal conditions read the state
(`tasks.alfred.RULES`: homesim's by default, ALFRED's code's quirks on request). The reward is 1 when the agent stops with the goal
satisfied. `info` carries goal conditions met/total and whether the last action succeeded, and why not.
With `expert_hints=True`, `info["expert_action"]` is the live expert's next action from the current
state (None, with `info["expert_problem"]`, where the goal became unreachable), `info["expert_subgoal"]` the
high-level step it serves in words ("heat the Apple with the Microwave"), and in mask mode
`info["expert_mask"]` the ground-truth mask of its target in the current frame (the renderer's).
Stepping an episode that is over (stopped or truncated) raises: call `reset()`.
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.episodes import EpisodesOption, annotation_of, choose_episode, episodes_with_scenes
from homesim.envs.options import NEEDS_RESET, reset_options
from homesim.planning.alfred.expert import Expert, Unrecoverable
from homesim.render import ALFRED, Renderer
from homesim.render.masks import read_runs, step_with_mask
from homesim.tasks.alfred import code_history, goal_conditions, reading_of
from homesim.world.actions import ACTIONS, ALIASES, INTERACT_ACTIONS, STOP, Action
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import visible_objects
from homesim.world.scene import Scene
from homesim.world.state import State

MAX_STEPS, MAX_FAILS = 1000, 10  # ALFRED's evaluation limits
PIXELS = ("rgb", "depth", "segmentation", "semantic")
MAX_DEPTH = 100.0  # metres: farther than any wall of a house
TEXT_CHARSET = string.printable
ID_CHARSET = string.ascii_letters + string.digits + "|+-._"
ID_LENGTH = 96


def plain_text(text: str, limit: int) -> str:
    """Human directives as printable ASCII (accents dropped), within a Text space's length."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(c if c in TEXT_CHARSET else " " for c in ascii_text)[:limit]


def read_mask(target: object, shape: tuple[int, int]) -> tuple[np.ndarray | None, str | None]:
    """An interaction mask as a boolean array, or None and why it is not one: a mask is an array of the
    frame's shape holding booleans or 0/1, or ALFRED's run-length encoding of one (a list of [start, length]),
    marking some pixels but not all (a mask of every pixel, or of none, points at nothing)."""
    if isinstance(target, list):
        target, problem = read_runs(target, shape)
        if problem is not None:
            return None, problem
    if not isinstance(target, np.ndarray):
        return None, f"needs a {shape[0]}x{shape[1]} boolean mask, got {type(target).__name__}"
    if target.shape != shape:
        return None, f"needs a {shape[0]}x{shape[1]} boolean mask, got shape {target.shape}"
    if target.dtype != bool and not (np.issubdtype(target.dtype, np.number) and np.isin(target, (0, 1)).all()):
        return None, f"a mask holds booleans or 0/1, got {target.dtype} values such as {target.flat[0]!r}"
    mask = target.astype(bool)
    if mask.all() or not mask.any():
        return None, f"a mask of {'every' if mask.any() else 'no'} pixel points at nothing"
    return mask, None


def semantic_classes() -> tuple[str, ...]:
    """The classes `semantic` pixels index: ALFRED's object types, sorted."""
    return tuple(sorted(alfred_catalog().classes))


CLASS_INDEX = {name: i for i, name in enumerate(semantic_classes())}


class AlfredEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        episodes: EpisodesOption = None,
        scenes: Mapping[str, Scene] | None = None,
        max_steps: int = MAX_STEPS,
        max_fails: int = MAX_FAILS,
        expert_hints: bool = False,
        pixels: Sequence[str] = (),
        interaction: str = "oracle",
        split: str | None = None,
        layouts: str | Path | None = None,
        rules: Mapping[str, str] | None = None,
    ) -> None:
        self.episodes, self.scenes = episodes_with_scenes(episodes, scenes, split, layouts)
        self.reading, self.code_history = reading_of(rules or {}), (rules or {}).get("history_sets") == "code"
        self.max_steps, self.max_fails = max_steps, max_fails
        self.expert_hints = expert_hints
        self.catalog = alfred_catalog()
        if isinstance(pixels, str) or set(pixels) - set(PIXELS):
            raise ValueError(f"pixels={pixels!r}: give a sequence of some of {', '.join(PIXELS)}")
        if interaction not in ("oracle", "mask"):
            raise ValueError(f"interaction={interaction!r}: use 'oracle' (object ids) or 'mask' (pixel masks)")
        self.pixels, self.interaction = tuple(pixels), interaction
        self.renderer = Renderer(**ALFRED) if self.pixels or interaction == "mask" else None  # one line if no EGL
        self.frame = None
        height, width = ALFRED["height"], ALFRED["width"]
        target = (
            spaces.MultiBinary((height, width))
            if interaction == "mask"
            else spaces.Text(ID_LENGTH, min_length=0, charset=ID_CHARSET)
        )
        self.action_space = spaces.Dict({"action": spaces.Discrete(len(ACTIONS)), "target": target})
        observed = {
            "goal": spaces.Text(1024, min_length=0, charset=TEXT_CHARSET),
            "instructions": spaces.Text(4096, min_length=0, charset=TEXT_CHARSET),
        }
        if interaction == "oracle":
            ids = spaces.Text(ID_LENGTH, min_length=1, charset=ID_CHARSET)
            observed["visible_objects"] = spaces.Sequence(ids, stack=False)
        image = {
            "rgb": spaces.Box(0, 255, (height, width, 3), np.uint8),
            "depth": spaces.Box(0.0, MAX_DEPTH, (height, width), np.float32),
            "segmentation": spaces.Box(-1, np.iinfo(np.int32).max, (height, width), np.int32),
            "semantic": spaces.Box(-1, len(semantic_classes()) - 1, (height, width), np.int32),
        }
        self.observation_space = spaces.Dict(observed | {k: image[k] for k in self.pixels})
        self.episode: AlfredEpisode | None = None

    # --- Gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.episode = None  # until this reset is done: every option is checked before the state is touched
        options = reset_options(options, ("episode", "annotation"))
        episode = choose_episode(self.episodes, self.scenes, options.get("episode"), self.np_random)
        annotation = annotation_of(episode, options.get("annotation", 0))
        self.episode = episode
        self.goal_text = plain_text(annotation.task_desc if annotation else "", 1024)
        self.instructions = plain_text("\n".join(annotation.high_descs) if annotation else "", 4096)
        self.scene = self.scenes[self.episode.scene_id]
        self.state = self.episode.initial_state
        # in mask mode the expert interacts only from where the rendered frame shows its target
        sees = self._rendered if self.interaction == "mask" else None
        self.expert = (
            Expert(self.scene, self.episode.goal, catalog=self.catalog, sees=sees, code_history=self.code_history)
            if self.expert_hints
            else None
        )
        self.steps, self.failures, self.over = 0, 0, ""
        self.last = (None, True, "")
        return self._observation(), self._info()

    def step(self, action: Mapping) -> tuple[dict, float, bool, bool, dict]:
        if self.episode is None:
            raise RuntimeError(NEEDS_RESET)
        if self.over:
            raise RuntimeError(f"episode {self.episode.id} is over ({self.over}): call reset() to start another")
        name, target, problem = self._read(action)
        before = self.state
        if name is None:
            parsed, success, message = None, False, problem
        elif name in INTERACT_ACTIONS and self.interaction == "mask":  # aimed at the frame the agent saw
            self.state, event = step_with_mask(self.scene, self.state, name, target, self.frame, catalog=self.catalog)
            parsed, success, message = event.action, event.success, event.message
        else:
            parsed = Action(name, target if name in INTERACT_ACTIONS else None)
            self.state, event = step(self.scene, self.state, parsed, catalog=self.catalog)
            success, message = event.success, event.message
        if success and self.code_history:
            self.state = code_history(self.scene, before, self.state, parsed.name, parsed.target)
        self.last = (parsed, success, message)
        stopped = parsed is not None and parsed.name == STOP
        if not stopped:  # ALFRED counts every step but the stop and the last failure, failed ones included
            self.failures += not success
            self.steps += success or self.failures < self.max_fails
        truncated = not stopped and (self.steps >= self.max_steps or self.failures >= self.max_fails)
        if stopped or truncated:
            self.over = "the agent stopped" if stopped else "a limit was reached"
        observation = self._observation()  # renders the frame the next mask (and the expert's) is aimed at
        info = self._info()
        reward = float(stopped and info["goal_satisfied"])
        return observation, reward, stopped, truncated, info

    def teacher_force(self, actions: Sequence[Action], seen: list | None = None) -> tuple[dict, dict]:
        """Plays actions for the agent (sub-goal evaluation's expert prefix): they change the state but
        count as neither steps nor failures. Returns the observation and info after them; with a list
        `seen`, appends (the observation before it, the action's name) for each action."""
        for action in actions:
            if seen is not None:
                seen.append((self._observation(), action.name))
            self.state, event = step(self.scene, self.state, action, catalog=self.catalog)
            if not event.success:
                raise RuntimeError(f"episode {self.episode.id}: teacher-forced {action} failed: {event.message}")
        return self._observation(), self._info()

    def __getstate__(self) -> dict:
        """Pickled without the renderer (an OpenGL context), which unpickling makes anew: vector envs and Ray
        send envs to other processes."""
        return dict(self.__dict__) | {"renderer": None, "frame": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.pixels or self.interaction == "mask":
            self.renderer = Renderer(**ALFRED)
            if self.episode is not None:
                self.frame = self.renderer.render(self.scene, self.state)

    # --- helpers -------------------------------------------------------------------------------------

    def _read(self, action: Mapping) -> tuple[str | None, object, str]:
        """The action name and target an agent's answer stands for, or None and why it is not an action."""
        if not isinstance(action, Mapping) or "action" not in action:
            return None, None, f"invalid action {action!r}: expected a dict with 'action' (and 'target')"
        name = action["action"]
        if isinstance(name, bool | np.bool_):
            return None, None, f"invalid action {name!r}: expected one of ALFRED's action names or its index"
        if isinstance(name, int | np.integer):
            if not 0 <= name < len(ACTIONS):
                return None, None, f"invalid action index {name}: ALFRED has {len(ACTIONS)} actions"
            name = ACTIONS[name]
        if not isinstance(name, str):
            return None, None, f"invalid action {name!r}: expected one of ALFRED's action names or its index"
        if ALIASES.get(name, name) not in ACTIONS:
            return None, None, f"unknown action {name!r}; ALFRED's actions are {', '.join(ACTIONS)}"
        name = ALIASES.get(name, name)
        if name not in INTERACT_ACTIONS:
            return name, None, ""
        target = action.get("target")
        if self.interaction == "mask":
            mask, problem = read_mask(target, (ALFRED["height"], ALFRED["width"]))
            return (name, mask, "") if problem is None else (None, None, f"{name}: {problem}")
        if not isinstance(target, str) or not target:
            return None, None, f"{name} needs a target object id, got {type(target).__name__}"
        return name, target, ""

    def _observation(self) -> dict:
        observation = {"goal": self.goal_text, "instructions": self.instructions}
        if self.interaction == "oracle":
            observation["visible_objects"] = tuple(visible_objects(self.scene, self.state, self.catalog, 0))
        if self.renderer is not None:
            self.frame = self.renderer.render(self.scene, self.state)
            observation |= {k: getattr(self.frame, k) for k in self.pixels if k != "semantic"}
            if "semantic" in self.pixels:
                observation["semantic"] = self.frame.labels(self._class_index)
        return observation

    def _class_index(self, object_id: str) -> int:
        return CLASS_INDEX[(self.state.objects.get(object_id) or self.scene.fixed[object_id]).cls]

    def _class_name(self, object_id: str) -> str:
        """An object's class, also for one the plan names that is gone (sliced): its id says it (`Apple|...`)."""
        found = self.state.objects.get(object_id) or self.scene.fixed.get(object_id)
        return found.cls if found is not None else object_id.split("|")[0]

    def _rendered(self, state: State, object_id: str) -> bool:
        return object_id in self.renderer.render(self.scene, state).visible_ids()

    def _mask_of(self, action: Action | None) -> np.ndarray | None:
        if action is None or action.target is None:
            return None
        if action.target not in self.frame.object_ids:
            return np.zeros(self.frame.segmentation.shape, dtype=bool)
        return self.frame.mask(action.target)

    def _info(self) -> dict:
        met, total = goal_conditions(self.scene, self.state, self.episode.goal, reading=self.reading)
        hints = {}
        if self.expert is not None:  # privileged: the live expert's next action from this very state
            try:
                hints = {"expert_action": self.expert.next_action(self.state), "expert_problem": ""}
            except Unrecoverable as e:
                hints = {"expert_action": None, "expert_problem": str(e)}
            subgoal = self.expert.subgoal if hints["expert_action"] is not None else None
            hints["expert_subgoal"] = "" if subgoal is None else subgoal.words(self._class_name)
            if self.interaction == "mask":  # the ground-truth mask of its target in the frame the agent sees
                hints["expert_mask"] = self._mask_of(hints["expert_action"])
        return hints | {
            "episode_id": self.episode.id,
            "goal_conditions_met": met,
            "goal_conditions_total": total,
            "goal_satisfied": met == total,
            "last_action": self.last[0].name if self.last[0] else None,
            "last_action_target": self.last[0].target if self.last[0] else None,
            "last_action_success": self.last[1],
            "last_action_message": self.last[2],
            "steps": self.steps,
            "failures": self.failures,
        }
