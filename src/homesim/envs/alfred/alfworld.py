"""ALFWorld's text environment interface over homesim's text game: scripts written for ALFWorld's
`alfworld.agents.environment.AlfredTWEnv` run on homesim by changing the import.

    import homesim.envs.alfred.alfworld as environment          # was: import alfworld.agents.environment as environment
    env = environment.AlfredTWEnv(config, train_eval="eval_out_of_distribution").init_env(batch_size=1)
    obs, infos = env.reset()                              # batched: obs[0], infos["admissible_commands"][0]
    obs, scores, dones, infos = env.step(["go to countertop 1"])

`config` is ALFWorld's (its `base_config.yaml`, as a dict): `dataset.data_path` / `eval_id_data_path` /
`eval_ood_data_path` per `train_eval`, `env.task_types` (ALFWorld's numbers 1-6), the steps per episode
(`dagger.training.max_nb_steps_per_episode`, or `rl.training...` for DQN), `dataset.num_train_games` /
`num_eval_games`, `env.goal_desc_human_anns_prob`. homesim reads three more: `env.alfworld_version`
("0.3" or "0.4", the default; `envs.alfred.wording`), `dataset.layouts` (ALFRED's layout files, for
ALFRED trajectories) and, optionally, `dataset.scene_evidence` (more ALFRED trajectories, not played,
whose observations complete the floor plans: train's, for ALFWorld's seen scenes). A data path is what
homesim reads anywhere: ALFRED trajectories (a json_2.1.0 tree or a .jsonl[.gz]) or a homesim dataset
folder (its train / valid_seen / valid_unseen split, per `train_eval`). As in ALFWorld, the games are
the six task types without movable receptacles or slicing.

`infos` has, per game of the batch, ALFWorld's keys: `admissible_commands`, `won`,
`goal_condition_success_rate`, `extra.gamefile` (the trajectory's traj_data.json where there is one on
disk, else one homesim writes in its cache folder with what ALFWorld's agents read there: the task type and
pddl_params), `facts` (`envs.alfred.alfworld_facts`) and, where
ALFWorld gives it (training with DAgger), `extra.expert_plan`: homesim's expert's next command (the live
planner, in place of ALFWorld's hand-coded expert, whose code homesim does not ship). Games are played in
a seeded shuffled cycle (`seed()`, 1234 by default, as TextWorld's batch env); a finished game keeps
answering its last step until the next `reset()`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import tempfile
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path

import numpy as np

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.datasets.alfred.importer import import_trajectories
from homesim.datasets.alfred.trajectories import read_trajectories
from homesim.datasets.sources import Episodes, kind_of, read_episodes
from homesim.envs.alfred.alfworld_facts import facts
from homesim.envs.alfred.text import AlfredTextEnv
from homesim.envs.alfred.text_expert import expert_command
from homesim.envs.alfred.wording import LATEST
from homesim.errors import DataError
from homesim.planning.alfred.expert import Unrecoverable
from homesim.world import scene_cache
from homesim.world.scene import Scene

TASK_TYPES = {  # ALFWorld's numbering in `env.task_types`
    1: "pick_and_place_simple",
    2: "look_at_obj_in_light",
    3: "pick_clean_then_place_in_recep",
    4: "pick_heat_then_place_in_recep",
    5: "pick_cool_then_place_in_recep",
    6: "pick_two_obj_and_place",
}
DATA_PATHS = {
    "train": "data_path",
    "eval_in_distribution": "eval_id_data_path",
    "eval_out_of_distribution": "eval_ood_data_path",
}
DATASET_SPLITS = {"train": "train", "eval_in_distribution": "valid_seen", "eval_out_of_distribution": "valid_unseen"}
SEED = 1234  # TextWorld's batch env seeds its game order so


def _section(config: Mapping, *keys: str) -> Mapping:
    for key in keys:
        config = config.get(key) or {}
    return config


def is_alfworld_game(episode: AlfredEpisode) -> bool:
    """ALFWorld's games: its six task types, no movable receptacle, nothing sliced."""
    return episode.goal.task_type in TASK_TYPES.values() and not episode.goal.object_sliced


class AlfredTWEnv:
    """ALFWorld's `AlfredTWEnv(config, train_eval)`: collects the games, `init_env(batch_size)` plays them."""

    def __init__(self, config: Mapping, train_eval: str = "train") -> None:
        if train_eval not in DATA_PATHS:
            raise ValueError(f"train_eval={train_eval!r}: one of {', '.join(DATA_PATHS)}")
        self.config, self.train_eval = config, train_eval
        self.collect_game_files()

    def collect_game_files(self, verbose: bool = False) -> None:
        dataset, env = _section(self.config, "dataset"), _section(self.config, "env")
        key = DATA_PATHS[self.train_eval]
        if not dataset.get(key):
            raise ValueError(f"config dataset.{key} is not set: the games of train_eval={self.train_eval!r}")
        path, layouts, evidence = (_path(dataset.get(k)) for k in (key, "layouts", "scene_evidence"))
        read = self._read(path, layouts, evidence)
        for problem in read.skipped[:1]:
            raise ValueError(f"{len(read.skipped)} game(s) could not be read, the first: {problem}")
        wanted = {TASK_TYPES[t] for t in env.get("task_types", TASK_TYPES) if t in TASK_TYPES}
        episodes = [e for e in read.all() if is_alfworld_game(e) and e.goal.task_type in wanted]
        limit = dataset.get("num_train_games" if self.train_eval == "train" else "num_eval_games", -1) or -1
        if limit > 0:
            episodes = episodes[:limit]
        files = path.rglob("traj_data.json") if path.is_dir() else ()
        on_disk = {f"{f.parts[-3]}/{f.parts[-2]}": str(f) for f in files}
        self.games = {on_disk.get(e.id) or _written_game(path, e): e for e in episodes}
        self.game_files, self.num_games, self.scenes = list(self.games), len(self.games), read.scenes
        if verbose:
            print(f"Overall we have {self.num_games} games in split={self.train_eval}")

    def _read(self, path: Path, layouts: Path | None, evidence: Path | None) -> Episodes:
        """The games at `path`; with `dataset.scene_evidence`, ALFRED trajectories whose floor plans complete
        the scenes (ALFWorld's seen scenes are train's: a faucet the valid_seen trajectories never saw)."""
        if kind_of(path) == "dataset" or evidence is None:
            split = DATASET_SPLITS[self.train_eval] if kind_of(path) == "dataset" else None
            return read_episodes(path, layouts, split, "alfred")
        if layouts is None:
            raise ValueError(f"{path} holds ALFRED trajectories: set dataset.layouts (ALFRED's layout files)")
        games = list(read_trajectories(path))
        ids = {t.task for t in games if not isinstance(t, DataError)}
        splits, scenes, skipped = import_trajectories(chain(games, read_trajectories(evidence)), layouts)
        episodes = [e for es in splits.values() for e in es if e.id in ids]
        return Episodes({"games": sorted(episodes, key=lambda e: e.id)}, scenes, "alfred", skipped)

    def init_env(self, batch_size: int) -> AlfredTWBatchEnv:
        env, training = _section(self.config, "env"), _section(self.config, "general")
        method = training.get("training_method", "dagger")
        max_steps = _section(self.config, "rl" if method == "dqn" else "dagger", "training").get(
            "max_nb_steps_per_episode", 50
        )
        return AlfredTWBatchEnv(
            self.games,
            self.scenes,
            batch_size,
            max_steps=max_steps,
            alfworld_version=str(env.get("alfworld_version", LATEST)),
            expert_plan=method == "dagger" and self.train_eval == "train",
            human_goals=float(env.get("goal_desc_human_anns_prob", 0.0)),
        )


def _written_game(path: Path, episode: AlfredEpisode) -> str:
    """A traj_data.json for a game whose data has none on disk (a .jsonl[.gz] split, a homesim dataset), with
    what ALFWorld's agents read beside `extra.gamefile` (its hand-coded expert: the task type and pddl_params),
    in homesim's cache folder (`world.scene_cache`; a temporary one when caching is off)."""
    base = scene_cache.folder() or Path(tempfile.gettempdir()) / "homesim"
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    file = base / "alfworld-games" / digest / episode.id / "traj_data.json"
    goal = episode.goal.to_dict()
    text = json.dumps({"task_id": episode.id, "task_type": goal.pop("task_type"), "pddl_params": goal}, indent=1)
    if not file.is_file() or file.read_text(encoding="utf-8") != text:
        file.parent.mkdir(parents=True, exist_ok=True)
        partial = file.with_name(f"{file.name}.{os.getpid()}")  # whole or not at all, whoever writes it too
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, file)
    return str(file)


def _path(value: object) -> Path | None:
    return Path(os.path.expandvars(str(value))) if value else None


def get_environment(env_type: str) -> type[AlfredTWEnv]:
    """ALFWorld's `get_environment`: only its text environment exists in homesim."""
    if env_type != "AlfredTWEnv":
        raise ValueError(f"env type {env_type!r}: homesim offers ALFWorld's text environment, AlfredTWEnv")
    return AlfredTWEnv


class AlfredTWBatchEnv:
    """A batch of text games played in lockstep, answering as TextWorld's batch gym env does."""

    def __init__(
        self,
        games: Mapping[str, AlfredEpisode],
        scenes: Mapping[str, Scene],
        batch_size: int = 1,
        max_steps: int = 50,
        alfworld_version: str = LATEST,
        expert_plan: bool = False,
        human_goals: float = 0.0,
    ) -> None:
        if not games:
            raise ValueError("no games to play (check the data path, env.task_types and the game limits)")
        if batch_size < 1:
            raise ValueError(f"batch_size={batch_size}: at least 1")
        self.games, self.batch_size = dict(games), batch_size
        self.expert_plan, self.human_goals = expert_plan, human_goals
        episodes = list(self.games.values())
        self.envs = [
            AlfredTextEnv(episodes, scenes, max_commands=max_steps, alfworld_version=alfworld_version)
            for _ in range(batch_size)
        ]
        self.seed(SEED)

    def seed(self, seed: int | None = None) -> list[int]:
        """Seeds the order the games come in (a shuffled cycle) and the human goals' draws."""
        self._rng = np.random.default_rng(seed)
        self._goals = random.Random(seed)
        self._queue: list[str] = []
        return [seed]

    def _next_game(self) -> str:
        if not self._queue:
            self._queue = [self.game_files[i] for i in self._rng.permutation(len(self.game_files))]
        return self._queue.pop(0)

    @property
    def game_files(self) -> list[str]:
        return list(self.games)

    def reset(self) -> tuple[tuple[str, ...], dict[str, list]]:
        """Starts the next game in each slot of the batch."""
        self.gamefiles = [self._next_game() for _ in range(self.batch_size)]
        self.last: list[tuple[str, float, bool, dict] | None] = [None] * self.batch_size
        observations, infos = [], []
        for env, gamefile in zip(self.envs, self.gamefiles, strict=True):
            episode = self.games[gamefile]
            annotation = "template"
            if episode.annotations and self._goals.random() < self.human_goals:
                annotation = self._goals.randrange(len(episode.annotations))
            observation, info = env.reset(options={"episode": episode, "annotation": annotation})
            observations.append(observation)
            infos.append(self._infos(env, info, gamefile))
        return tuple(observations), _by_key(infos)

    def step(self, commands: Sequence[str]) -> tuple[tuple[str, ...], tuple[float, ...], tuple[bool, ...], dict]:
        """One command per game of the batch: observations, scores (1 once won), dones, infos."""
        if not isinstance(commands, list | tuple) or len(commands) != self.batch_size:
            raise ValueError(f"step() takes a list of {self.batch_size} command(s), one per game; got {commands!r}")
        for i, (env, command) in enumerate(zip(self.envs, commands, strict=True)):
            if self.last[i] is not None and self.last[i][2]:
                continue  # the game is over: it keeps answering its last step
            observation, _, won, truncated, info = env.step(command)
            self.last[i] = (observation, float(won), won or truncated, self._infos(env, info, self.gamefiles[i]))
        observations, scores, dones, infos = zip(*self.last, strict=True)
        return observations, scores, dones, _by_key(infos)

    def _infos(self, env: AlfredTextEnv, info: dict, gamefile: str) -> dict:
        infos = {
            "admissible_commands": info["admissible_commands"],
            "won": info["won"],
            "goal_condition_success_rate": info["goal_conditions_met"] / info["goal_conditions_total"],
            "extra.gamefile": gamefile,
            "facts": facts(env),
        }
        if self.expert_plan:
            try:
                infos["extra.expert_plan"] = [expert_command(env) or "look"]
            except Unrecoverable:
                infos["extra.expert_plan"] = ["look"]
        return infos

    def close(self) -> None:
        pass


def _by_key(infos: Sequence[dict]) -> dict[str, list]:
    return {key: [info[key] for info in infos] for key in infos[0]}
