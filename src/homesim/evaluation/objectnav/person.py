"""ObjectNav played by a person in the browser (its `Suite.person`): the robot's RGB view, keys to move, turn,
look and stop, under the working group's protocol (500 actions, the success criteria of the run)."""

from __future__ import annotations

from collections.abc import Mapping

from homesim.envs.objectnav.env import ObjectNavEnv
from homesim.evaluation.objectnav.suite import objectnav_options, objectnav_record
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.runner import Play
from homesim.evaluation.suite import GameView
from homesim.tasks.objectnav import ObjectNavEpisode
from homesim.world.objectnav.navgrid import ACTIONS
from homesim.world.scene import Scene


class ObjectNavGame:
    """One ObjectNav episode a person plays."""

    def __init__(self, episode: ObjectNavEpisode, scenes: Mapping[str, Scene], split: str, options: Mapping) -> None:
        self.episode, self.split = episode, split
        chosen = objectnav_options(**options)
        self.env = ObjectNavEnv([episode], {episode.scene_id: scenes[episode.scene_id]}, pixels=("rgb",), **chosen)
        self.observation, self.info = self.env.reset(options={"episode": episode})
        self.played, self.over, self.stopped = Play(), False, False

    def view(self) -> GameView:
        last = self.played.failures[-1][1] if self.played.success and not self.played.success[-1] else ""
        text = f"Find a {self.episode.object_category}, then stop next to it."
        return GameView(text, self.observation["rgb"], step=len(self.played.actions), message=last)

    def act(self, action: str, pixel: tuple[int, int] | None = None) -> None:
        if self.over:
            raise ValueError(f"episode {self.episode.episode_id} is over")
        if action not in ACTIONS:
            raise ValueError(f"{action!r} is not one of ObjectNav's actions ({', '.join(ACTIONS)})")
        self.observation, _, self.stopped, truncated, self.info = self.env.step(action)
        if not self.stopped:  # as an evaluation records it, the STOP left out
            info = self.info
            self.played.keep(info["last_action"], None, info["last_action_success"], info["last_action_message"])
        self.over = self.stopped or truncated

    def record(self) -> EpisodeRecord:
        if not self.over:
            raise ValueError(f"episode {self.episode.episode_id} is not over: its verdict comes at the end")
        return objectnav_record(self.episode, self.split, self.played, self.info, self.stopped)

    def demonstration(self) -> None:
        return None

    def close(self) -> None:
        self.env.renderer.close()
