"""`homesim/ALFRED-v0` as N episodes stepped as arrays: Gymnasium's native vector env, what
`gymnasium.make_vec("homesim/ALFRED-v0", num_envs=N, vectorization_mode="vector_entry_point")` makes, for the
oracle interaction interface (object ids) without pixels.

Env i of the batch is the single env (`embodied.AlfredEnv`) reset with seed s + i (Gymnasium's convention for
`reset(seed=s)`), stepped with the i-th action, auto-reset the step after its episode ends (Gymnasium's
NEXT_STEP mode: that step's action is ignored, its reward is 0): the same observations, rewards, terminations,
truncations and infos, stacked as `SyncVectorEnv` stacks a single env's, which `tests/test_env_alfred_vector.py`
checks step for step. Actions are batched as the single env's action space batches: `{"action": N indices into
ALFRED's actions, "target": N object ids}` (a target is read only for an interaction).

No rule is written twice. A state is split in two: the agent's pose, an integer per env (its scene's reachable
cell, yaw and horizon), and its arrangement (the objects, what the agent holds, the history sets), an index
into the arrangements met so far, each kept once however many envs are in it. What each part of a step costs:
* navigation (MoveAhead, RotateLeft/Right, LookUp/Down), STOP, the counters and ALFRED's limits: array look-ups
  over the whole batch, in tables of what `world.dynamics.step` does from every cell, yaw and horizon (made
  once per scene by calling it: where a move is blocked, its message);
* interactions (Pickup, Put, Open, Close, ToggleOn/Off, Slice) fall back per env: what one does depends on
  the whole arrangement (what is inside what, where a put object lands, what a faucet cleans), so it is
  `world.dynamics.step` itself (and `tasks.alfred.code_history` under `rules`), called once per
  (arrangement, pose, action, target) and looked up after that (a dict look-up per interacting env);
* what the observations and infos read, `visible_objects` and the goal conditions, are kept per
  (arrangement, pose) and (arrangement, episode), with the pose only where the goal reads the agent's view
  (`tasks.alfred.conditions_read_the_view`): a dict look-up per env. Visible objects not yet listed are read from
  the arrangement's placed objects (`PoseViews.placed`, stacked per scene in `ListedRows`): one gather.
When the arrangements met pass ARRANGEMENTS, those no env is in are forgotten with everything kept about them;
past KEPT answers, the answers are redone as they are met again.

An episode must start with one agent on a reachable cell of its scene, at one of the yaws and horizons the
scene's views are tabled for (every imported ALFRED episode and built-in one does); any other is refused,
naming the episode. Expert hints, pixels and mask interaction are not batched: use `vectorization_mode="sync"`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from homesim.envs.alfred.embodied import MAX_FAILS, MAX_STEPS, AlfredEnv, plain_text
from homesim.envs.alfred.episodes import EpisodesOption, annotation_of
from homesim.envs.batched import (
    DRAWS,
    check_num_envs,
    chosen_episodes,
    draw_episodes,
    reset_mask,
    reset_seeds,
    seed_generators,
)
from homesim.tasks.alfred import code_history, conditions_read_the_view, goal_conditions
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, MOVE_AHEAD, NAVIGATION_ACTIONS, STOP, Action
from homesim.world.dynamics import step as world_step
from homesim.world.frustum import HORIZONS, YAWS
from homesim.world.scene import Scene, standing_points
from homesim.world.state import AgentState, State
from homesim.world.views import POSES_PER_CELL, pose_views

ARRANGEMENTS = 20_000  # arrangements kept before those no env is in are forgotten (with all kept about them)
KEPT = 2_000_000  # answers kept (visible objects, interactions' outcomes, goal conditions) before they are redone
MOVABLE_BYTES = 16 * 2**20  # what a scene's views keep of movable objects' answers (4 MB for single envs)
LISTED_BYTES = 128 * 2**20  # the scenes' stacked listings (`ListedRows`), past which they are made anew
INVALID = len(ACTIONS)  # the index an invalid action reads in the tables below
CODE = {name: k for k, name in enumerate(ACTIONS)}
MOVE, STOP_CODE = CODE[MOVE_AHEAD], CODE[STOP]
INTERACTS = np.isin(np.arange(INVALID + 1), [CODE[a] for a in INTERACT_ACTIONS])
NAMES = np.array([*ACTIONS, None], dtype=object)
INFO_KEYS = (
    "episode_id", "goal_conditions_met", "goal_conditions_total", "goal_satisfied", "last_action",
    "last_action_target", "last_action_success", "last_action_message", "steps", "failures",
)  # fmt: skip


class AlfredVectorEnv(VectorEnv):
    """N ALFRED episodes in many scenes, stepped as arrays. The arguments are the single env's."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        episodes: EpisodesOption = None,
        scenes: Mapping[str, Scene] | None = None,
        max_steps: int = MAX_STEPS,
        max_fails: int = MAX_FAILS,
        expert_hints: bool = False,
        pixels: Sequence[str] = (),
        interaction: str = "oracle",
        split: str | None = None,
        layouts: str | None = None,
        rules: Mapping[str, str] | None = None,
    ) -> None:
        check_num_envs(num_envs)
        for given, what in ((expert_hints, "expert hints"), (pixels, "pixels"), (interaction != "oracle", "masks")):
            if given:
                raise ValueError(f"{what} are not batched: use vectorization_mode='sync' for them")
        # The single env checks the other arguments; its rules and its reading of an action are the ones used.
        single = AlfredEnv(episodes, scenes, max_steps, max_fails, split=split, layouts=layouts, rules=rules)
        self._single = single
        self.episodes, self.scenes, self.catalog = single.episodes, single.scenes, single.catalog
        self.num_envs, self.max_steps, self.max_fails = num_envs, max_steps, max_fails
        self.single_observation_space, self.single_action_space = single.observation_space, single.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._tables()
        n = num_envs
        self._episode, self._text = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._cell, self._yaw, self._horizon = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._arrangement = np.zeros(n, np.int64)
        self._steps, self._failures = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._met, self._total = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._draws, self._drawn = np.zeros((n, DRAWS), np.int64), np.full(n, DRAWS)
        self._autoreset = np.zeros(n, dtype=bool)
        self._started = False

    # --- tables ------------------------------------------------------------------------------------------

    def _tables(self) -> None:
        """Every scene's cells (numbered together), what the world's navigation does from each cell, yaw and
        horizon, and each episode's start: scene, cell, yaw, horizon and arrangement."""
        scene_ids = list(dict.fromkeys(e.scene_id for e in self.episodes))
        self._scene_ids, self._scene_index = scene_ids, {s: k for k, s in enumerate(scene_ids)}
        points = [standing_points(self.scenes[s].reachable) for s in scene_ids]
        sizes = np.array([len(p) for p in points])
        self._offset = np.cumsum(sizes) - sizes
        self._cell_scene = np.repeat(np.arange(len(scene_ids)), sizes)
        self._x, self._z = (np.concatenate([p[:, k] for p in points]) for k in (0, 1))
        self._stride = int(sizes.max()) * POSES_PER_CELL  # poses of the largest scene: a pose key's stride
        self._next, self._blocked = self._moves(points)
        self._turn, self._look, self._look_message = self._turns_and_looks()
        self._arrangements: list[State] = []
        self._arrangement_scene: list[int] = []
        self._interned: dict[tuple, int] = {}
        self._forget()
        starts = [self._start_of(e) for e in self.episodes]
        self._episode_cell, self._episode_yaw, self._episode_horizon = (np.array(c) for c in zip(*starts))
        self._episode_arrangement = np.array(
            [self._intern(e.initial_state, self._scene_index[e.scene_id]) for e in self.episodes]
        )
        self._kept = len(self._arrangements)  # the episodes' own arrangements are never forgotten
        self._episode_ids = np.array([e.id for e in self.episodes], dtype=object)
        self._reads_view = np.array([conditions_read_the_view(e.goal) for e in self.episodes])
        self._texts: dict[tuple[int, int], int] = {}  # (episode, annotation) -> index into the two below
        self._goal_texts: list[str] = []
        self._instructions: list[str] = []

    def _moves(self, points: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """MoveAhead from each cell at each yaw, as `world.dynamics.step` does it: the cell reached (-1:
        blocked) and the message of a blocked move."""
        targets, messages = [], []
        for k, (scene_id, xz) in enumerate(zip(self._scene_ids, points)):
            scene, cells = self.scenes[scene_id], {p: c for c, p in enumerate(map(tuple, xz.tolist()))}
            for x, z in xz.tolist():
                for yaw in YAWS:
                    state = State({}, (AgentState(x, z, yaw, 0),))
                    after, event = world_step(scene, state, Action(MOVE_AHEAD), catalog=self.catalog)
                    me = after.agents[0]
                    targets.append(cells[me.x, me.z] + self._offset[k] if event.success else -1)
                    messages.append(event.message)
        return np.array(targets, np.int64), np.array(messages, dtype=object)

    def _turns_and_looks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per action and yaw, the yaw after it (its index); per action and horizon, the horizon after it (-1:
        refused) and the message of a refusal, as `world.dynamics.step` does them anywhere."""
        scene = self.scenes[self._scene_ids[0]]
        turn = np.tile(np.arange(len(YAWS)), (INVALID + 1, 1))
        look = np.tile(np.arange(len(HORIZONS)), (INVALID + 1, 1))
        look_message = np.full(look.shape, "", dtype=object)
        for name in NAVIGATION_ACTIONS:
            if name == MOVE_AHEAD:
                continue
            for y, yaw in enumerate(YAWS):
                for h, horizon in enumerate(HORIZONS):
                    after, event = world_step(scene, State({}, (AgentState(0.0, 0.0, yaw, horizon),)), Action(name))
                    turn[CODE[name], y] = YAWS.index(after.agents[0].yaw)
                    look[CODE[name], h] = HORIZONS.index(after.agents[0].horizon) if event.success else -1
                    look_message[CODE[name], h] = event.message
        return turn, look, look_message

    def _start_of(self, episode) -> tuple[int, int, int]:
        agents = episode.initial_state.agents
        me = agents[0] if len(agents) == 1 else AgentState(float("nan"), float("nan"), -1, -1)
        cell = np.flatnonzero((self._x == me.x) & (self._z == me.z))
        cell = cell[self._cell_scene[cell] == self._scene_index[episode.scene_id]]
        if not len(cell) or me.yaw not in YAWS or me.horizon not in HORIZONS:
            raise ValueError(
                f"episode {episode.id}: the batched env needs one agent on a reachable cell of {episode.scene_id}"
                f" at a yaw in {YAWS} and a horizon in {HORIZONS}, not {agents}"
                " (use vectorization_mode='sync' for it)"
            )
        return int(cell[0]), YAWS.index(me.yaw), HORIZONS.index(me.horizon)

    # --- Gymnasium API -----------------------------------------------------------------------------------

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        n = self.num_envs
        seeds, options = reset_seeds(seed, n), dict(options or {})
        mask = reset_mask(options, n)
        chosen, annotation = options.pop("episode", None), options.pop("annotation", 0)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}: reset_mask, episode and annotation are known")
        envs = np.flatnonzero(mask)
        picked = None if chosen is None else chosen_episodes(chosen, envs, n, len(self.episodes))
        seed_generators(self._rngs, self._drawn, envs, seeds)
        self._start(envs, self._draw(envs) if picked is None else picked, annotation)
        self._autoreset[envs] = False
        self._started = True
        info = self._info(np.full(n, INVALID), np.full(n, None, object), np.ones(n, bool), np.full(n, "", object))
        for key in INFO_KEYS:  # the others' values are not theirs: masked out, as Gymnasium masks them
            info[f"_{key}"] = mask.copy()
        return self._observation(), info

    def step(self, actions: Mapping):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        n = self.num_envs
        a, targets = self._batched(actions)
        live = ~self._autoreset  # the others are reset now, their actions ignored
        valid = live & (a >= 0) & (a < INVALID)
        code = np.where(valid, a, INVALID)
        success, message = np.ones(n, dtype=bool), np.full(n, "", dtype=object)
        target = np.full(n, None, dtype=object)
        # navigation, as array look-ups
        slot = self._cell * len(YAWS) + self._yaw
        ahead, horizon = self._next[slot], self._look[code, self._horizon]
        blocked, refused = (code == MOVE) & (ahead < 0), horizon < 0
        message[blocked] = self._blocked[slot[blocked]]
        message[refused] = self._look_message[code[refused], self._horizon[refused]]
        success &= ~blocked & ~refused
        self._cell = np.where((code == MOVE) & ~blocked, ahead, self._cell)
        self._yaw = self._turn[code, self._yaw]
        self._horizon = np.where(refused, self._horizon, horizon)
        # invalid actions and interactions, env by env
        others = np.flatnonzero(live & (~valid | INTERACTS[code]))
        before = self._arrangement.copy()
        for i, pose, read in zip(others.tolist(), self._pose(others).tolist(), map(targets.__getitem__, others)):
            if type(read) is not str or not read or not INTERACTS[code[i]]:  # not a plain id: the single env reads it
                name, read, problem = self._single._read({"action": a[i], "target": targets[i]})
                if name is None:
                    code[i], success[i], message[i] = INVALID, False, problem
                    continue
            self._arrangement[i], success[i], message[i] = self._interact(i, pose, int(code[i]), read)
            target[i] = read
        stopped = code == STOP_CODE
        counted = live & ~stopped
        self._failures += counted & ~success
        self._steps += counted & (success | (self._failures < self.max_fails))
        truncated = counted & ((self._steps >= self.max_steps) | (self._failures >= self.max_fails))
        moved = (self._arrangement != before) | (self._reads_view[self._episode] & ~(code == INVALID))
        self._conditions(np.flatnonzero(live & moved))
        reward = (stopped & (self._met == self._total)).astype(np.float64)
        names = np.where(live, code, INVALID)
        resetting = np.flatnonzero(self._autoreset)
        if len(resetting):
            self._start(resetting, self._draw(resetting), 0)
            reward[resetting] = 0.0
            success[resetting], message[resetting] = True, ""
        self._autoreset = stopped | truncated
        info = self._info(names, target, success, message)
        return self._observation(), reward, stopped, truncated, info

    # --- helpers -----------------------------------------------------------------------------------------

    def _batched(self, actions: Mapping) -> tuple[np.ndarray, Sequence]:
        n = self.num_envs
        if not isinstance(actions, Mapping) or "action" not in actions:
            raise ValueError(
                f"actions: a dict of 'action' ({n} indices) and 'target' ({n} object ids), not {actions!r}"
            )
        a = np.asarray(actions["action"])
        targets = actions.get("target", (None,) * n)
        if a.shape != (n,) or a.dtype.kind not in "iu" or len(targets) != n:
            raise ValueError(
                f"actions: 'action' an integer array of shape ({n},) indexing ALFRED's actions and 'target' {n}"
                f" object ids, not {a!r} and {len(targets)} targets"
            )
        return a, targets

    def _pose(self, envs: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Each env's pose as its scene's views number it: (cell * yaws + yaw) * horizons + horizon."""
        cell = self._cell[envs] - self._offset[self._cell_scene[self._cell[envs]]]
        return (cell * len(YAWS) + self._yaw[envs]) * len(HORIZONS) + self._horizon[envs]

    def _state(self, i: int) -> State:
        """Env i's world state, as its single env holds it."""
        kept, cell = self._arrangements[self._arrangement[i]], self._cell[i]
        x, z, held = float(self._x[cell]), float(self._z[cell]), kept.agents[0].held
        agent = AgentState(x, z, YAWS[self._yaw[i]], HORIZONS[self._horizon[i]], held)
        return State(kept.objects, (agent,), kept.cleaned, kept.heated, kept.cooled)

    def _interact(self, i: int, pose: int, code: int, target: str) -> tuple[int, bool, str]:
        """Env i's interaction from its pose: the arrangement after it, its success and message (the world's,
        once per arrangement, pose, action and target)."""
        key = (int(self._arrangement[i]), pose, code, target)
        known = self._transitions.get(key)
        if known is None:
            scene_index = self._arrangement_scene[key[0]]
            scene, before = self.scenes[self._scene_ids[scene_index]], self._state(i)
            after, event = world_step(scene, before, Action(ACTIONS[code], target), catalog=self.catalog)
            if event.success and self._single.code_history:
                after = code_history(scene, before, after, ACTIONS[code], target)
            changed = self._intern(after, scene_index) if event.success else key[0]  # a failure changes nothing
            known = self._transitions[key] = (changed, event.success, event.message)
        return known

    def _intern(self, state: State, scene_index: int) -> int:
        """The arrangement's index (its objects in their order, what the agent holds, the history sets), a new
        one if it was not met before."""
        held = state.agents[0].held
        key = (scene_index, tuple(state.objects.values()), held, state.cleaned, state.heated, state.cooled)
        index = self._interned.get(key)
        if index is None:
            index = self._interned[key] = len(self._arrangements)
            self._arrangements.append(state)
            self._arrangement_scene.append(scene_index)
        return index

    def _forget(self) -> None:
        """Everything kept per arrangement."""
        self._transitions: dict[tuple, tuple[int, bool, str]] = {}
        self._visible: dict[int, tuple[str, ...]] = {}
        self._goal_conditions: dict[int, tuple[int, int]] = {}
        self._listings: dict[int, tuple] = {}  # per arrangement: its scene's views, placed objects, hidden ones
        self._listed: dict[int, ListedRows] = {}  # per scene: where each placed object is listed from

    def _compact(self) -> None:
        """Past ARRANGEMENTS, keep only the episodes' arrangements and those an env is in (renumbered); past KEPT
        answers, forget them."""
        if len(self._visible) + len(self._transitions) + len(self._goal_conditions) > KEPT:
            self._forget()
        if len(self._arrangements) <= ARRANGEMENTS + self._kept + self.num_envs:
            return
        used = np.unique(np.concatenate([np.arange(self._kept), self._arrangement]))
        renumber = np.full(len(self._arrangements), -1, np.int64)
        renumber[used] = np.arange(len(used))
        self._arrangements = [self._arrangements[k] for k in used.tolist()]
        self._arrangement_scene = [self._arrangement_scene[k] for k in used.tolist()]
        self._interned = {key: int(renumber[k]) for key, k in self._interned.items() if renumber[k] >= 0}
        self._arrangement = renumber[self._arrangement]
        self._forget()

    def _draw(self, envs: np.ndarray) -> np.ndarray:
        return draw_episodes(self._rngs, self._draws, self._drawn, envs, len(self.episodes))

    def _start(self, envs: np.ndarray, chosen: np.ndarray, annotation: object) -> None:
        texts = [self._text_of(e, annotation) for e in chosen.tolist()]  # checked before any env changes
        self._compact()
        self._episode[envs], self._text[envs] = chosen, texts
        self._cell[envs], self._yaw[envs] = self._episode_cell[chosen], self._episode_yaw[chosen]
        self._horizon[envs], self._arrangement[envs] = self._episode_horizon[chosen], self._episode_arrangement[chosen]
        self._steps[envs] = self._failures[envs] = 0
        self._conditions(envs)

    def _text_of(self, episode: int, annotation: object) -> int:
        """The goal and directives the single env shows for an episode's annotation, numbered."""
        chosen = annotation_of(self.episodes[episode], annotation)  # checked each time, as the single env does
        key = (episode, -1 if chosen is None else int(annotation))
        index = self._texts.get(key)
        if index is None:
            index = self._texts[key] = len(self._goal_texts)
            self._goal_texts.append(plain_text(chosen.task_desc if chosen else "", 1024))
            self._instructions.append(plain_text("\n".join(chosen.high_descs) if chosen else "", 4096))
        return index

    def _conditions(self, envs: np.ndarray) -> None:
        """The goal conditions met and in all for `envs`, kept per arrangement and episode (and pose, where the
        goal reads the view)."""
        episode = self._episode[envs]
        pose = np.where(self._reads_view[episode], self._pose(envs) + 1, 0)
        keys = (self._arrangement[envs] * len(self.episodes) + episode) * (self._stride + 1) + pose
        kept = self._goal_conditions
        found = [kept.get(k) for k in keys.tolist()]
        for k, (key, value) in enumerate(zip(keys.tolist(), found)):
            if value is None:
                i = int(envs[k])
                scene = self.scenes[self.episodes[episode[k]].scene_id]
                goal = self.episodes[episode[k]].goal
                found[k] = kept[key] = goal_conditions(scene, self._state(i), goal, reading=self._single.reading)
        if found:
            self._met[envs], self._total[envs] = np.array(found, np.int64).T

    def _observation(self) -> dict:
        poses = self._pose()
        keys = (self._arrangement * self._stride + poses).tolist()
        kept = self._visible
        visible = [kept.get(k) for k in keys]
        missing = [i for i, seen in enumerate(visible) if seen is None]
        if missing and sum(table.matrix.nbytes for table in self._listed.values()) > LISTED_BYTES:
            self._listed, self._listings = {}, {}  # made anew as envs need them
        for i in missing:
            visible[i] = kept[keys[i]] = self._visible_from(i, int(poses[i]))
        texts = self._text.tolist()
        return {
            "goal": tuple(self._goal_texts[t] for t in texts),
            "instructions": tuple(self._instructions[t] for t in texts),
            "visible_objects": tuple(visible),
        }

    def _visible_from(self, i: int, pose: int) -> tuple[str, ...]:
        """`visible_objects` for env i, read from its arrangement's listing (what `PoseViews.visible` takes from
        a state, kept per arrangement here: a scene's views keep only the last state's)."""
        arrangement = int(self._arrangement[i])
        listing = self._listings.get(arrangement)
        if listing is None:
            scene_index = self._arrangement_scene[arrangement]
            views = pose_views(self.scenes[self._scene_ids[scene_index]])
            views.movable_bytes = MOVABLE_BYTES
            ids, rows = views.placed(self._arrangements[arrangement], self.catalog)
            table = self._listed.get(scene_index)
            if table is None:
                table = self._listed[scene_index] = ListedRows(len(views.positions) * POSES_PER_CELL)
            listing = self._listings[arrangement] = (views, np.array(ids, dtype=object), table.index(rows), {})
        views, ids, rows, hidden = listing
        found = [*views.fixed(pose), *ids[self._listed[self._arrangement_scene[arrangement]].matrix[rows, pose]]]
        return tuple(views.unhidden(found, self._arrangements[arrangement], self.catalog, hidden))

    def _info(self, names: np.ndarray, target: np.ndarray, success: np.ndarray, message: np.ndarray) -> dict:
        """The single env's info for every env, with Gymnasium's masks."""
        values = {
            "episode_id": self._episode_ids[self._episode],
            "goal_conditions_met": self._met.copy(),
            "goal_conditions_total": self._total.copy(),
            "goal_satisfied": self._met == self._total,
            "last_action": NAMES[names],
            "last_action_target": target,
            "last_action_success": success,
            "last_action_message": message,
            "steps": self._steps.copy(),
            "failures": self._failures.copy(),
        }
        info = {}
        for key, value in values.items():
            info[key], info[f"_{key}"] = value, np.ones(self.num_envs, dtype=bool)
        return info


class ListedRows:
    """Where placed objects are listed from (`PoseViews.placed`'s bool arrays over a scene's poses), stacked as the
    rows of one matrix, so that which of an arrangement's objects a pose lists is one gather."""

    def __init__(self, poses: int) -> None:
        self.matrix = np.zeros((64, poses), dtype=bool)
        self.rows: dict[int, int] = {}  # id of an array -> its row
        self.arrays: list[np.ndarray] = []  # every array stacked, kept alive so that its id stays its own

    def index(self, arrays: list[np.ndarray]) -> np.ndarray:
        """The rows of these arrays, each stacked the first time it is met."""
        found = []
        for array in arrays:
            row = self.rows.get(id(array))
            if row is None:
                row = self.rows[id(array)] = len(self.arrays)
                self.arrays.append(array)
                if row == len(self.matrix):
                    self.matrix = np.concatenate([self.matrix, np.zeros_like(self.matrix)])
                self.matrix[row] = array
            found.append(row)
        return np.array(found, dtype=np.int64)
