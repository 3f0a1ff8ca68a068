"""HandMeThat played by a person in the browser (its `Suite.person`): the text game under their protocol (40
commands, their costs and score), in the run's observability, the admissible commands offered."""

from __future__ import annotations

from collections.abc import Mapping

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import HandMeThatEnv
from homesim.evaluation.handmethat.suite import handmethat_record
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.runner import Play
from homesim.evaluation.suite import GameView


class HandMeThatGame:
    """One HandMeThat episode a person plays."""

    def __init__(self, episode: HandMeThatEpisode, scenes: Mapping, split: str, options: Mapping) -> None:
        self.episode, self.split = episode, split
        self.env = HandMeThatEnv([episode], observability=str(options.get("observability", "partial")))
        text, self.info = self.env.reset(options={"episode": 0})
        self.transcript = [text]
        self.played, self.over, self.stopped = Play(), False, False

    def view(self) -> GameView:
        message = "" if self.info["last_command_success"] else self.info["problem"]
        return GameView("\n".join(self.transcript), None, self.info["admissible_commands"], self.info["moves"], message)

    def act(self, action: str, pixel: tuple[int, int] | None = None) -> None:
        if self.over:
            raise ValueError(f"episode {self.episode.id} is over")
        text, _, terminated, truncated, self.info = self.env.step(action)
        self.transcript += [f"> {action}", text]
        self.played.keep(action, None, self.info["last_command_success"], self.info["problem"])
        self.over, self.stopped = terminated or truncated, terminated and not self.info["won"]

    def record(self) -> EpisodeRecord:
        return handmethat_record(self.episode, self.split, self.played, self.info, self.stopped)

    def demonstration(self) -> None:
        return None

    def close(self) -> None:
        """Nothing to let go: the text game holds no OpenGL context."""
