"""What HandMeThat's learned baselines read and imitate (the paper's supplement C.1).

A model reads two texts: the *context*, their `task_desc` (the human's actions and request), followed for
the oracle variants by " goal: " and the human's hidden goal, or " subgoal: " and the part of it the
request serves, in their goal language (as their Seq2Seq trainer appends `_goal` / `_subgoal`); and the
*history*, "obs_0 [SEP] a_0 [SEP] obs_1 ... [SEP] obs_k", obs_0 being the opening without the task.
`Transcript` builds the history from what the agent protocol shows (the game's answers and the agent's own
commands), so a model is trained on exactly what it will be shown when it plays.

The demonstrations are the live expert's (`info["expert_command"]`) played through the text game on each
training episode, in the observability the model is trained for: one `Demo` per expert command.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import SEP, HandMeThatEnv
from homesim.evaluation.handmethat.suite import ORACLES


def context(task: str, oracle: str | None = None, formula: str = "") -> str:
    """The model's first input: the task description, with the oracle's formula when there is one."""
    task = " ".join(task.split())
    return task if oracle is None else f"{task} {oracle}: {formula}"


def oracle_formula(episode: HandMeThatEpisode, oracle: str | None) -> str:
    """The formula the oracle variant `oracle` is told ("" for none), as the evaluation tells it."""
    return "" if oracle is None else ORACLES[oracle](episode)


class Transcript:
    """The history so far, from the game's answers and the commands said."""

    def __init__(self, opening: str, task: str) -> None:
        self.parts = [opening.replace(task, "", 1) if task else opening]

    def said(self, command: str, answer: str) -> None:
        self.parts.append(f"{SEP}{command}{SEP}{answer}")

    @property
    def text(self) -> str:
        return "".join(self.parts)


class Reader:
    """An agent's transcript, kept from its observations (`text`, `task`) and the commands it said."""

    def __init__(self) -> None:
        self.transcript: Transcript | None = None

    def reset(self) -> None:
        self.transcript = None

    def history(self, observation: dict, last_command: str) -> str:
        """The history up to this observation, `last_command` being what the agent said before it."""
        if self.transcript is None:
            self.transcript = Transcript(observation["text"], observation["task"])
        else:
            self.transcript.said(last_command, observation["text"])
        return self.transcript.text


@dataclass(frozen=True)
class Demo:
    """One imitation example: what the model reads and the expert's next command."""

    episode_id: str
    level: int
    context: str
    history: str
    command: str


def demonstrations(
    episodes: Iterable[HandMeThatEpisode], observability: str, oracle: str | None = None
) -> list[Demo]:
    """The expert's commands on each episode, with what a model reads before each; an episode the
    expert cannot finish contributes the commands it said (the generator keeps only episodes it wins)."""
    episodes = list(episodes)
    env = HandMeThatEnv(episodes, observability=observability, expert_hints=True)
    demos = []
    for episode in episodes:
        text, info = env.reset(options={"episode": episode})
        said = context(env.task, oracle, oracle_formula(episode, oracle))
        transcript = Transcript(text, env.task)
        over = False
        while not over and info.get("expert_command"):
            command = info["expert_command"]
            demos.append(Demo(episode.id, episode.level, said, transcript.text, command))
            text, _, terminated, truncated, info = env.step(command)
            transcript.said(command, text)
            over = terminated or truncated
    return demos


def texts_of(demos: Sequence[Demo]) -> Iterable[str]:
    """Every text the vocabulary is built from (each history once: the last of an episode holds the rest)."""
    for i, demo in enumerate(demos):
        yield demo.command
        if i + 1 == len(demos) or demos[i + 1].episode_id != demo.episode_id:
            yield demo.context
            yield demo.history
