"""`homesim/ALFRED-v0`: ALFRED episodes as a Gymnasium environment, a thin shell over `world.step`.

Actions are dicts `{"action": index into ALFRED's 13 actions (or the name), "target": object id}` in
oracle mode, or with `"target"` a HxW mask in mask mode (resolved to an object by IoU with the
instance segmentation, as ALFRED does). An invalid action is a failed step, never an exception.
With `expert_hints=True`, `info["expert_action"]` is the live expert's next action from the current
state (None, with `info["expert_problem"]`, where the goal became unreachable). ALFRED's limits end an episode: STOP ends it (`terminated`); 1000 steps or 10 failed actions cut it
short (`truncated`). Failed actions count as steps. The reward is 1 when the agent stops with the goal
satisfied. `info` carries goal conditions met/total and whether the last action succeeded, and why not.
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from homesim.datasets.alfred import AlfredEpisode
from homesim.datasets.builtin import builtin_episodes
from homesim.planning.expert import Expert, Unrecoverable
from homesim.tasks.alfred import goal_conditions
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, STOP, Action
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import visible_objects
from homesim.world.scene import Scene

MAX_STEPS, MAX_FAILS = 1000, 10  # ALFRED's evaluation limits
TEXT_CHARSET = string.printable
ID_CHARSET = string.ascii_letters + string.digits + "|+-._"
ID_LENGTH = 96


def plain_text(text: str, limit: int) -> str:
    """Human directives as printable ASCII (accents dropped), within a Text space's length."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(c if c in TEXT_CHARSET else " " for c in ascii_text)[:limit]


class AlfredEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        episodes: Sequence[AlfredEpisode] | None = None,
        scenes: Mapping[str, Scene] | None = None,
        max_steps: int = MAX_STEPS,
        max_fails: int = MAX_FAILS,
        expert_hints: bool = False,
    ) -> None:
        if episodes is None:
            episodes, scenes = builtin_episodes()
        missing = {e.scene_id for e in episodes} - set(scenes or {})
        if missing:
            raise ValueError(f"no scene given for scene ids {sorted(missing)}")
        self.episodes, self.scenes = list(episodes), dict(scenes)
        self.max_steps, self.max_fails = max_steps, max_fails
        self.expert_hints = expert_hints
        self.catalog = alfred_catalog()
        self.action_space = spaces.Dict(
            {
                "action": spaces.Discrete(len(ACTIONS)),
                "target": spaces.Text(ID_LENGTH, min_length=0, charset=ID_CHARSET),
            }
        )
        self.observation_space = spaces.Dict(
            {
                "goal": spaces.Text(1024, min_length=0, charset=TEXT_CHARSET),
                "instructions": spaces.Text(4096, min_length=0, charset=TEXT_CHARSET),
                "visible_objects": spaces.Sequence(
                    spaces.Text(ID_LENGTH, min_length=1, charset=ID_CHARSET), stack=False
                ),
            }
        )
        self.episode: AlfredEpisode | None = None

    # --- Gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        chosen = options.get("episode")
        if chosen is None:
            chosen = int(self.np_random.integers(len(self.episodes)))
        self.episode = self.episodes[int(chosen)] if isinstance(chosen, int | np.integer) else chosen
        if self.episode.scene_id not in self.scenes:
            raise ValueError(f"episode {self.episode.id}: no scene {self.episode.scene_id!r}")
        annotation = self.episode.annotations[options.get("annotation", 0)] if self.episode.annotations else None
        self.goal_text = plain_text(annotation.task_desc if annotation else "", 1024)
        self.instructions = plain_text("\n".join(annotation.high_descs) if annotation else "", 4096)
        self.scene = self.scenes[self.episode.scene_id]
        self.state = self.episode.initial_state
        self.expert = Expert(self.scene, self.episode.goal, catalog=self.catalog) if self.expert_hints else None
        self.steps, self.failures = 0, 0
        self.last = (None, True, "")
        return self._observation(), self._info()

    def step(self, action: Mapping) -> tuple[dict, float, bool, bool, dict]:
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        parsed, problem = self._parse(action)
        if parsed is None:
            success, message = False, problem
        else:
            self.state, event = step(self.scene, self.state, parsed, catalog=self.catalog)
            success, message = event.success, event.message
        self.last = (parsed, success, message)
        stopped = parsed is not None and parsed.name == STOP
        if not stopped:  # ALFRED counts every step but the stop, failed ones included
            self.steps += 1
            self.failures += not success
        info = self._info()
        reward = float(stopped and info["goal_satisfied"])
        truncated = not stopped and (self.steps >= self.max_steps or self.failures >= self.max_fails)
        return self._observation(), reward, stopped, truncated, info

    def teacher_force(self, actions: Sequence[Action]) -> tuple[dict, dict]:
        """Plays actions for the agent (sub-goal evaluation's expert prefix): they change the state but
        count as neither steps nor failures. Returns the observation and info after them."""
        for action in actions:
            self.state, event = step(self.scene, self.state, action, catalog=self.catalog)
            if not event.success:
                raise RuntimeError(f"episode {self.episode.id}: teacher-forced {action} failed: {event.message}")
        return self._observation(), self._info()

    # --- helpers -------------------------------------------------------------------------------------

    def _parse(self, action: Mapping) -> tuple[Action | None, str]:
        """The world action an agent's answer stands for, or None and why it is not one."""
        if not isinstance(action, Mapping) or "action" not in action:
            return None, f"invalid action {action!r}: expected a dict with 'action' (and 'target')"
        name = action["action"]
        if isinstance(name, int | np.integer):
            if not 0 <= name < len(ACTIONS):
                return None, f"invalid action index {name}: ALFRED has {len(ACTIONS)} actions"
            name = ACTIONS[name]
        if not isinstance(name, str):
            return None, f"invalid action {name!r}: expected one of ALFRED's action names or its index"
        target = action.get("target")
        target = None if isinstance(target, str) and not target else target
        if name in INTERACT_ACTIONS and not isinstance(target, str):
            return None, f"{name} needs a target object id, got {type(target).__name__}"
        try:
            return Action.parse(name, target if name in INTERACT_ACTIONS else None), ""
        except ValueError as e:
            return None, f"invalid action: {e}"

    def _observation(self) -> dict:
        return {
            "goal": self.goal_text,
            "instructions": self.instructions,
            "visible_objects": tuple(visible_objects(self.scene, self.state, self.catalog, 0)),
        }

    def _info(self) -> dict:
        met, total = goal_conditions(self.scene, self.state, self.episode.goal)
        hints = {}
        if self.expert is not None:  # privileged: the live expert's next action from this very state
            try:
                hints = {"expert_action": self.expert.next_action(self.state), "expert_problem": ""}
            except Unrecoverable as e:
                hints = {"expert_action": None, "expert_problem": str(e)}
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
