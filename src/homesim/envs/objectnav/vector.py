"""`homesim/ObjectNav-v0` as N episodes stepped as arrays: Gymnasium's native vector env, what
`gymnasium.make_vec("homesim/ObjectNav-v0", num_envs=N, vectorization_mode="vector_entry_point")` makes.

Env i of the batch is the single env (`env.ObjectNavEnv`) reset with seed s + i (Gymnasium's convention for
`reset(seed=s)`), stepped with the i-th action, auto-reset the step after its episode ends (Gymnasium's
NEXT_STEP mode: that step's action is ignored, its reward is 0): the same observations, rewards,
terminations, truncations and infos, stacked as Gymnasium stacks a single env's (`SyncVectorEnv`), which
`tests/test_env_objectnav_vector.py` checks step for step. No rule is written twice: a step is array
look-ups in the tables of the single env's own rules, built once per house and goal set (the lattice motion of
`NavGrid.node_moves` and `navgrid`'s turn and look functions), and an episode's end is judged by the single
env's verdict (`env.episode_verdict`), called for each env that ends, on what the criteria read there
(`criteria_inputs_many`, kept per goal set and pose).

Distances to goal are the single env's, habitat's continuous geodesic distances (`GoalDistance`), which cost
0.2-0.4 ms a point: too much to compute for every lattice point of every goal set before the first step
(60,000 points a house), so each goal set's table over its house's nodes is filled as envs reach them, every
node reached in a step at once (`GoalDistance.node_distances`: the table the single env's `distance` keeps its
values in, so the same floats, shared with every env of the process), and read from then on;
`fill_distances` computes them all at once. The verdicts are the cost that stays: what the criteria read at
an end (`criteria_inputs`: every goal instance seen, and seen by turning in place) is sight tests, the lines
of sight of every env ending in a step traced at once (`criteria_inputs_many`: each end's lines in the same
groups as the single env's, so the same answers; `bench/objectnav_end_cost.py`: 0.66 ms an end against 2.5
ms alone, at load 5.5); kept per goal set and pose, and oracle visibility per goal set and position (turning
in place does not change it).

With `pixels=`, every env's view is drawn by the batch renderer (`render.batch`: many views per pass, each
the single renderer's frame to the bit) at the embodiment's image size (a smaller one: `embodiment=
dataclasses.replace(LOCOBOT, width=128, height=128)`).

Poses are nodes: the navigable lattice points of every house, numbered together, so a pose is an integer
and a move is `next[node, heading]`. An episode must start on a node facing a heading the embodiment can
turn to (every generated or imported episode does); any other is refused, naming the episode. Expert hints
are not batched: use `vectorization_mode="sync"` for them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from homesim.envs.batched import (
    DRAWS,
    check_num_envs,
    chosen_episodes,
    draw_episodes,
    reset_mask,
    reset_seeds,
    seed_generators,
)
from homesim.envs.objectnav.env import (
    CATEGORY_NAMES,
    NO_OBJECTS,
    STEP_PENALTY,
    SUCCESS_REWARD,
    ObjectNavEnv,
    episode_verdict,
    observation_space,
    semantic,
    sensors,
)
from homesim.envs.objectnav.episodes import ObjectNavEpisodes
from homesim.parallel import collector_paused
from homesim.tasks.objectnav import embodied_scene, goal_distance
from homesim.tasks.objectnav_criteria import criteria_inputs_many
from homesim.world.objectnav.navgrid import (
    ACTIONS,
    LATTICE,
    LOOK_SIGN,
    TURN_SIGN,
    NavGrid,
    blocked_message,
    heading,
    nav_grid,
    pitch_limit_message,
    pitched,
    turned,
)
from homesim.world.scene import Scene
from homesim.world.state import AgentState, State

PIXEL_BATCH = 64  # views per rendering pass (the layered framebuffer holds this many of each image)
JUDGED = 100_000  # criteria inputs kept per (goal set, pose) before the store starts again
TRAIL = 512  # moves each env's trail holds at first (doubled when an episode outlasts it)
FILL = 8192  # distances computed at once by fill_distances
NO_ACTION = len(ACTIONS)  # the index an invalid or ignored action reads in the tables below
STOP, MOVE_FORWARD = ACTIONS.index("STOP"), ACTIONS.index("MOVE_FORWARD")
TURNS = np.array([TURN_SIGN.get(a, 0) for a in ACTIONS] + [0])
LOOKS = np.array([LOOK_SIGN.get(a, 0) for a in ACTIONS] + [0])
NAMES = np.array([*ACTIONS, None, ""], dtype=object)  # info's last_action: an action, invalid, just reset
# what a snapshot keeps: every env's state, episode and episode draws
STATE = (
    "_node", "_yaw", "_horizon", "_steps", "_collisions", "_path", "_distance", "_start_distance", "_episode",
    "_start_x", "_start_z", "_sin", "_cos", "_start_yaw", "_goal", "_base", "_trail", "_moves", "_draws", "_drawn",
    "_autoreset",
)  # fmt: skip
# compass by (yaw - start yaw + 180) % 360, as the single env computes it
COMPASS = np.array([math.radians(t - 180 if t else 180) for t in range(360)], dtype=np.float32)


class ObjectNavVectorEnv(VectorEnv):
    """N ObjectNav episodes in many houses, stepped as arrays. The arguments are the single env's: `settings`
    its criteria, success_distance, view_point_distance, undefined_spl, max_steps and embodiment."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        episodes: ObjectNavEpisodes | str | None = None,
        scenes: dict[str, Scene] | None = None,
        split: str | None = None,
        pixels: Sequence[str] = (),
        expert_hints: bool = False,
        **settings,
    ) -> None:
        check_num_envs(num_envs)
        if expert_hints:
            raise ValueError("expert hints are not batched: use vectorization_mode='sync' for them")
        # The single env checks the other arguments; its rules are the ones used below.
        single = ObjectNavEnv(episodes, scenes, split, **settings)
        self.episodes, self.scenes, self.rules = single.episodes, single.scenes, single.rules
        self.embodiment = embodiment = single.embodiment
        self.num_envs, self.max_steps, self.pixels = num_envs, single.max_steps, sensors(pixels)
        self.single_observation_space = observation_space(embodiment, self.pixels)
        self.single_action_space = single.action_space
        self.renderer = None
        if self.pixels:
            from homesim.render.batch import BatchRenderer

            images = {"rgb": "rgb", "depth": "depth", "semantic": "segmentation"}  # sensor -> image drawn
            drawn = [images[p] for p in self.pixels]
            batch, houses = min(num_envs, PIXEL_BATCH), len(self.scenes)
            self.renderer = BatchRenderer(batch, **embodiment.renderer_settings(), images=drawn, scenes=houses)
            self._views = {i: embodied_scene(scene, embodiment) for i, scene in self.scenes.items()}
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._tables()
        n = num_envs
        self._node, self._yaw, self._horizon = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._steps, self._collisions = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._path, self._distance, self._start_distance = np.zeros(n), np.zeros(n), np.zeros(n)
        # the nodes each env's episode stood on, one more after each move, and how many
        self._trail, self._moves = np.zeros((n, min(self.max_steps, TRAIL) + 1), np.int32), np.zeros(n, np.int64)
        self._episode = np.zeros(n, np.int64)
        # per env, copied from its episode at reset: start pose, its frame, goal category, distance base
        self._start_x, self._start_z, self._sin, self._cos = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
        self._start_yaw, self._goal, self._base = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._draws, self._drawn = np.zeros((n, DRAWS), np.int64), np.full(n, DRAWS)
        self._autoreset = np.zeros(n, dtype=bool)
        self._started = False
        self._judged: dict[tuple, dict] = {}
        self._oracle_seen: dict[int, list[str]] = {}  # per goal set and node: oracle visibility is the pose's

    # --- tables ------------------------------------------------------------------------------------------

    def _tables(self) -> None:
        """Every house's nodes and moves, every goal set's distance table over its house's nodes (NaN until
        an env reaches one: `_distances_at`), and each episode's start node, heading, frame, category and
        distance base, as flat arrays."""
        e = self.embodiment
        houses: dict[str, tuple[NavGrid, int, np.ndarray]] = {}
        goal_sets: dict[tuple, int] = {}
        moves, lattice = [], []
        nodes_so_far = distances_so_far = 0
        self._sets = []  # per goal set: where its table starts, its distances
        start, base = np.zeros(len(self.episodes), np.int64), np.zeros(len(self.episodes), np.int64)
        for index, episode in enumerate(self.episodes):
            if episode.scene_id not in houses:
                grid = nav_grid(self.scenes[episode.scene_id], e)
                nodes, targets = grid.node_moves()
                houses[episode.scene_id] = (grid, nodes_so_far, nodes)
                moves.append(targets + nodes_so_far)
                lattice.append(nodes + (grid.i0, grid.j0))
                nodes_so_far += len(nodes)
            grid, offset, nodes = houses[episode.scene_id]
            key = (episode.scene_id, tuple(g.object_id for g in episode.goals))
            if key not in goal_sets:
                goal_sets[key] = distances_so_far
                self._sets.append((distances_so_far, goal_distance(grid, episode.goals)))
                distances_so_far += len(nodes)
            start[index] = offset + self._start_node(grid, nodes, episode)
            base[index] = goal_sets[key] - offset
        self._grids = {scene_id: grid for scene_id, (grid, _, _) in houses.items()}
        self._next = np.concatenate(moves).ravel()  # next[node * headings + heading]
        self._lattice = np.concatenate(lattice)  # each node's lattice point from x = z = 0: a record's pose
        self._x, self._z = self._lattice[:, 0] * LATTICE, self._lattice[:, 1] * LATTICE
        self._distances = np.concatenate([goal.at_nodes() for _, goal in self._sets])  # a copy, read at once
        self._set_starts = np.array([start for start, _ in self._sets])
        self._headings = len(e.yaws)
        # the single env adds hypot(x' - x, z' - z) per step: for a move by (di, dj) lattice steps, exactly this
        steps = next(iter(self._grids.values())).steps  # the embodiment's, the same in every house
        self._length = np.array([math.hypot(di * LATTICE, dj * LATTICE) for di, dj in steps])
        yaws = [episode.start_rotation for episode in self.episodes]
        self._episode_start, self._episode_base = start, base
        self._episode_yaw = np.array(yaws, np.int64)
        self._episode_sin = np.array([math.sin(math.radians(y)) for y in yaws])
        self._episode_cos = np.array([math.cos(math.radians(y)) for y in yaws])
        self._episode_goal = np.array([CATEGORY_NAMES.index(e.object_category) for e in self.episodes], np.int64)
        self._episode_ids = np.array([e.episode_id for e in self.episodes], dtype=object)
        self._messages = np.array(["", pitch_limit_message(e), *(blocked_message(y) for y in range(360))], object)

    def _start_node(self, grid: NavGrid, nodes: np.ndarray, episode) -> int:
        (x, z), yaw = episode.start_position, episode.start_rotation
        i, j = grid.index(x, z)
        local = int(np.searchsorted(nodes[:, 0] * grid.shape[1] + nodes[:, 1], i * grid.shape[1] + j))
        on_node = local < len(nodes) and tuple(nodes[local]) == (i, j) and grid.point(i, j) == (x, z)
        if not on_node or yaw not in self.embodiment.yaws:
            raise ValueError(
                f"episode {episode.episode_id}: the batched env needs a start on a navigable lattice point of"
                f" {episode.scene_id} facing one of {self.embodiment.name}'s headings, not ({x}, {z}) at yaw {yaw}"
                " (use vectorization_mode='sync' for it)"
            )
        return local

    # --- Gymnasium API -----------------------------------------------------------------------------------

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        n = self.num_envs
        seeds, options = reset_seeds(seed, n), dict(options or {})
        envs = np.flatnonzero(reset_mask(options, n))
        seed_generators(self._rngs, self._drawn, envs, seeds)
        chosen = options.pop("episode", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}: reset_mask and episode are known")
        self._start(envs, self._draw(envs) if chosen is None else chosen_episodes(chosen, envs, n, len(self.episodes)))
        self._autoreset[envs] = False
        self._started = True
        return self._observation(), self._reset_info(envs, full=len(envs) == n)

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        n, e = self.num_envs, self.embodiment
        a = np.asarray(actions)
        if a.shape != (n,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions: an integer array of shape ({n},) indexing {', '.join(ACTIONS)}, not {a!r}")
        live = ~self._autoreset  # the others are reset now, their actions ignored
        valid = live & (a >= 0) & (a < len(ACTIONS))
        act = np.where(valid, a, NO_ACTION)
        node, yaw, slot = self._node, self._yaw, heading(e, self._yaw)
        target = self._next[node * self._headings + slot]
        forward = act == MOVE_FORWARD
        moved = forward & (target != node)
        collided = forward & ~moved
        self._node = np.where(forward, target, node)
        self._yaw = turned(e, yaw, TURNS[act])
        horizon, allowed = pitched(e, self._horizon, LOOKS[act])
        self._horizon = np.where(allowed, horizon, self._horizon)
        self._path += np.where(moved, self._length[slot], 0.0)
        self._record(np.flatnonzero(moved))
        self._collisions += collided
        self._steps += live
        stopped = act == STOP
        truncated = live & ~stopped & (self._steps >= self.max_steps)
        distance = self._distances_at(self._base + self._node)
        with np.errstate(invalid="ignore"):
            progress = np.where(np.isfinite(distance) & np.isfinite(self._distance), self._distance - distance, 0.0)
        reward = STEP_PENALTY + progress
        self._distance = distance
        # info's last action: its name (None: invalid), success and message, as the single env says them
        message = np.where(collided, 2 + yaw, np.where(allowed, 0, 1))
        info = self._info(np.where(live, act, NO_ACTION + 1), valid & ~collided & allowed, message)
        for i in np.flatnonzero(live & ~valid).tolist():
            info["last_action_message"][i] = ObjectNavEnv._read(a[i])[1]
        with collector_paused():  # the verdicts' many small lists and dicts, a thousand ends a step
            verdicts = self._verdicts(np.flatnonzero(stopped | truncated).tolist(), stopped)
            if verdicts:
                self._add_verdicts(info, verdicts)
        for i, verdict in verdicts:
            reward[i] += SUCCESS_REWARD * verdict["success"]
        resetting = np.flatnonzero(self._autoreset)
        if len(resetting):
            self._start(resetting, self._draw(resetting))
            reward[resetting] = 0.0
            for key, value in self._reset_info(resetting, full=False).items():
                if not key.startswith("_"):
                    info[key][resetting] = value[resetting]
        self._autoreset = stopped | truncated
        return self._observation(), reward, stopped, truncated, info

    def snapshot(self) -> dict:
        """Every env's state and episode generator (plain lists and dicts: a checkpoint can hold them), so that
        `restore` continues exactly where this stands (a training run resumed after a stop)."""
        if not self._started:
            raise RuntimeError("call reset() before snapshot()")
        arrays = {name: getattr(self, name).tolist() for name in STATE}
        return {"arrays": arrays, "generators": [g.bit_generator.state for g in self._rngs]}

    def restore(self, snapshot: dict) -> dict:
        """Back to a `snapshot` of an env made with the same arguments; the observations there."""
        for name in STATE:
            setattr(self, name, np.array(snapshot["arrays"][name], dtype=getattr(self, name).dtype))
        self._rngs = [np.random.Generator(np.random.PCG64()) for _ in range(self.num_envs)]
        for generator, state in zip(self._rngs, snapshot["generators"]):
            generator.bit_generator.state = state
        self._started = True
        return self._observation()

    def fill_distances(self) -> int:
        """Computes every goal set's distance at every node now, rather than where envs first stand (seconds
        per goal set: 60,000 nodes a house at about 0.2 ms each), so that no step computes one; how many were
        computed."""
        unknown = np.flatnonzero(np.isnan(self._distances))
        for start in range(0, len(unknown), FILL):
            self._distances_at(unknown[start : start + FILL])
        return len(unknown)

    def close_extras(self, **kwargs) -> None:
        if self.renderer is not None:
            self.renderer.close()

    # --- helpers -----------------------------------------------------------------------------------------

    def _draw(self, envs: np.ndarray) -> np.ndarray:
        return draw_episodes(self._rngs, self._draws, self._drawn, envs, len(self.episodes))

    def _start(self, envs: np.ndarray, chosen: np.ndarray) -> None:
        start = self._episode_start[chosen]
        self._episode[envs], self._node[envs] = chosen, start
        self._yaw[envs] = self._start_yaw[envs] = self._episode_yaw[chosen]
        self._horizon[envs] = self._steps[envs] = self._collisions[envs] = 0
        self._path[envs] = 0.0
        self._start_x[envs], self._start_z[envs] = self._x[start], self._z[start]
        self._sin[envs], self._cos[envs] = self._episode_sin[chosen], self._episode_cos[chosen]
        self._goal[envs], self._base[envs] = self._episode_goal[chosen], self._episode_base[chosen]
        self._distance[envs] = self._start_distance[envs] = self._distances_at(self._base[envs] + start)
        self._trail[envs, 0], self._moves[envs] = start, 1

    def _observation(self) -> dict:
        """GPS+compass in each start's frame and the goal category: the single env's sensors, as arrays."""
        dx, dz = self._x[self._node] - self._start_x, self._z[self._node] - self._start_z
        s, c = self._sin, self._cos
        gps = np.empty((self.num_envs, 2), dtype=np.float32)
        gps[:, 0], gps[:, 1] = dx * s + dz * c, dx * c - dz * s
        compass = COMPASS[(self._yaw - self._start_yaw + 180) % 360][:, None]
        observation = {"objectgoal": self._goal.copy(), "gps": gps, "compass": compass}
        if self.renderer is not None:
            observation |= self._images()
        return observation

    def _images(self) -> dict:
        """Every env's view drawn in batches, as the single env draws its own (`env.ObjectNavEnv._observation`)."""
        scenes = [self.episodes[e].scene_id for e in self._episode.tolist()]
        x, z = self._x[self._node].tolist(), self._z[self._node].tolist()
        agents = zip(x, z, self._yaw.tolist(), self._horizon.tolist())
        views = [(self._views[s], State(objects=NO_OBJECTS, agents=(AgentState(*a),))) for s, a in zip(scenes, agents)]
        frames = self.renderer.render_many(views)
        images = {"rgb": frames.rgb, "depth": frames.depth}
        if "semantic" in self.pixels:
            images["semantic"] = np.stack([semantic(self.scenes[s], frames[k]) for k, s in enumerate(scenes)])
        return {p: images[p] for p in self.pixels}

    def _info(self, names: np.ndarray, success: np.ndarray, messages: np.ndarray) -> dict:
        """The single env's per-step info for every env, with Gymnasium's masks."""
        values = {
            "episode_id": self._episode_ids[self._episode],
            "distance_to_goal": self._distance.copy(),
            "agent_path_length": self._path.copy(),
            "collisions": self._collisions.copy(),
            "num_steps": self._steps.copy(),
            "last_action": NAMES[names],
            "last_action_success": success,
            "last_action_message": self._messages[messages],
        }
        info = {}
        for key, value in values.items():
            info[key], info[f"_{key}"] = value, np.ones(self.num_envs, dtype=bool)
        return info

    def _reset_info(self, envs: np.ndarray, full: bool) -> dict:
        """The info of a fresh episode for `envs` (the others masked out unless `full`)."""
        n = self.num_envs
        info = self._info(np.full(n, NO_ACTION + 1), np.ones(n, dtype=bool), np.zeros(n, np.int64))
        if not full:
            for key in [k for k in info if not k.startswith("_")]:
                info[f"_{key}"][:] = False
                info[f"_{key}"][envs] = True
        return info

    def _distances_at(self, entries: np.ndarray) -> np.ndarray:
        """The distance table's values at `entries` (goal set base + node), those not yet known computed first,
        every goal set's at once."""
        distance = self._distances[entries]
        unknown = np.isnan(distance)
        if unknown.any():
            missing = np.unique(entries[unknown])
            sets = np.searchsorted(self._set_starts, missing, side="right") - 1
            for k in np.unique(sets).tolist():
                start, goal = self._sets[k]
                these = missing[sets == k]
                self._distances[these] = goal.node_distances(these - start)
            distance = self._distances[entries]
        return distance

    def _record(self, moved: np.ndarray) -> None:
        """Each moved env's new node on its trail (grown when an episode outlasts it: a large max_steps)."""
        if len(moved) and self._moves[moved].max() >= self._trail.shape[1]:
            self._trail = np.concatenate([self._trail, np.zeros_like(self._trail)], axis=1)
        self._trail[moved, self._moves[moved]] = self._node[moved]
        self._moves[moved] += 1

    def _verdicts(self, ends: list[int], stopped: np.ndarray) -> list[tuple[int, dict]]:
        """The single env's verdict on each ending env's episode; what the criteria read judged once per goal set
        and pose, the poses not judged yet all at once (`criteria_inputs_many`, per house)."""
        keys = list(zip(*(a[ends].tolist() for a in (self._base + self._node, self._yaw, self._horizon))))
        new: dict[str, dict[tuple, int]] = {}  # per house, the poses to judge and an env ending there
        for i, key in zip(ends, keys):
            if key not in self._judged:
                new.setdefault(self.episodes[self._episode[i]].scene_id, {}).setdefault(key, i)
        for scene_id, judged in new.items():
            if len(self._judged) + len(judged) > JUDGED:
                self._judged.clear()
                self._oracle_seen.clear()
            asked = []
            for (entry, yaw, horizon), i in judged.items():
                node = int(self._node[i])
                agent = AgentState(float(self._x[node]), float(self._z[node]), yaw, horizon)
                goals = {g.object_id: g.box for g in self.episodes[self._episode[i]].goals}
                asked.append((goals, agent, self._oracle_seen.get(entry)))
            for key, inputs in zip(judged, criteria_inputs_many(self._grids[scene_id], asked)):
                self._judged[key] = inputs
                self._oracle_seen[key[0]] = inputs["oracle_seen"]
        return [(i, self._verdict(i, bool(stopped[i]), self._judged[key])) for i, key in zip(ends, keys)]

    def _verdict(self, i: int, stopped: bool, inputs: dict) -> dict:
        """The single env's verdict on env i's episode, from what its criteria read (`inputs`, kept)."""
        node, yaw, horizon = int(self._node[i]), int(self._yaw[i]), int(self._horizon[i])
        episode = self.episodes[self._episode[i]]
        inputs = {k: type(v)(v) if isinstance(v, dict | list) else v for k, v in inputs.items()}  # each its own
        trail = self._trail[i, : self._moves[i]]
        start = self._trail[i, 0]
        poses = {
            "start": [int(self._lattice[start, 0]), int(self._lattice[start, 1]), int(self._start_yaw[i]), 0],
            "positions": self._lattice[trail].tolist(),
            "end": [int(self._lattice[node, 0]), int(self._lattice[node, 1]), yaw, horizon],
        }
        travelled = (float(self._start_distance[i]), float(self._distance[i]), float(self._path[i]))
        return episode_verdict(episode, self.rules, inputs, stopped, *travelled, int(self._collisions[i]), poses)

    def _add_verdicts(self, info: dict, verdicts: list[tuple[int, dict]]) -> None:
        """Stack the ends' verdicts into info as Gymnasium does (`VectorEnv._add_info`, which makes each
        array from the first value it meets), in env order; where the arrays are made, values are assigned
        into them without `_add_info`'s N-long masks made afresh per key."""
        for i, verdict in verdicts:
            self._assign(info, verdict, i)

    def _assign(self, info: dict, values: dict, i: int) -> None:
        for key, value in values.items():
            if key not in info:  # the first of its key: Gymnasium's own array
                self._add_info(info, {key: value}, i)
                continue
            if isinstance(value, dict):
                self._assign(info[key], value, i)
            else:
                info[key][i] = value
            info[f"_{key}"][i] = True
