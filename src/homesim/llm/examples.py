"""Few-shot example games written by homesim's own expert: for each task type, the first episodes of that type
(`Suite.task_type`, in the order of the source's work items) played by the expert through the suite's own
runner, in the same interface and wording as the evaluation, each step kept as the LLM agent would see it
(`Suite.observation_text`), the expert's command and, as the thought, the sub-goal it serves in words
(`Suite.text_play.expert`). Games the expert did not win are left out. One more game per type than asked
is made, so that an episode is never its own example."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from homesim.agents.protocol import AgentAction, TaskSpec

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig
    from homesim.evaluation.suite import Suite

MAX_EXAMPLE_STEPS = 40  # an example game longer than this is cut (ObjectNav's walks), and says so


@dataclass(frozen=True)
class ExampleGame:
    task_type: str
    episode_id: str
    steps: tuple[dict, ...]  # {observation, thought, command} each

    def fields(self) -> dict:
        return {"task_type": self.task_type, "steps": list(self.steps)}


class ExpertRecorder:
    """An agent that plays the expert's hint and keeps each step in words."""

    needs_expert_hints = True

    def __init__(self, suite: Suite) -> None:
        self.suite, self.play = suite, suite.text_play
        self.observations = self.play.pixels  # the images its text rendering reads (ObjectNav's)
        self.steps: list[dict] = []

    def reset(self, task: TaskSpec) -> None:
        self.steps = []

    def act(self, observation: dict) -> AgentAction:
        command, subgoal = self.play.expert(observation)
        thought = f"I need to {subgoal}." if subgoal else f"I {command}."
        self.steps.append(
            {"observation": self.suite.observation_text(observation), "thought": thought, "command": command}
        )
        answer = self.play.action(command)
        return answer if isinstance(answer, AgentAction) else AgentAction(answer)


def example_games(
    suite: Suite, splits: dict, scenes: dict, config: EvaluationConfig, per_type: int
) -> dict[str, list[ExampleGame]]:
    """Up to `per_type` + 1 won games of each task type, from the episodes of `splits` (their `train` split
    alone where they have one)."""
    if per_type <= 0:
        return {}
    if splits.get("train"):
        splits = {"train": splits["train"]}
    chosen: dict[str, int] = {}
    picked: dict[str, list] = {}
    for split, episodes in sorted(splits.items()):
        for episode in episodes:
            kind = suite.task_type(episode)
            if chosen.get(kind, 0) <= per_type:
                chosen[kind] = chosen.get(kind, 0) + 1
                picked.setdefault(split, []).append(episode)
    recorder = ExpertRecorder(suite)
    played = replace(config, agent="expert", agent_options={}, subgoals=False, observation_filter="none")
    runner = suite.runner(picked, scenes, played, recorder)
    games: dict[str, list[ExampleGame]] = {}
    seen: set[tuple] = set()
    for item in suite.work_items(picked, played):
        if item[:2] in seen:  # one game an episode (ALFRED's first annotation)
            continue
        seen.add(item[:2])
        record = runner.run(item)
        if not record.goal_satisfied:
            continue
        steps = recorder.steps[:MAX_EXAMPLE_STEPS]
        if len(recorder.steps) > MAX_EXAMPLE_STEPS:
            steps[-1] = steps[-1] | {
                "command": steps[-1]["command"] + f"  ({len(recorder.steps) - len(steps)} more steps)"
            }
        games.setdefault(record.task_type, []).append(ExampleGame(record.task_type, record.episode_id, tuple(steps)))
    return games


def examples_for(games: dict[str, list[ExampleGame]], task: TaskSpec, per_type: int) -> list[ExampleGame]:
    """The example games an episode is shown: `per_type` of its task type (all types' first ones where its
    type has none, or the task does not say it), never the episode itself."""
    pool = games.get(task.task_type) or [g for kind in sorted(games) for g in games[kind][:1]]
    return [g for g in pool if g.episode_id != task.episode_id][:per_type]
