"""HandMeThat's `Suite.replay` (the viewer): a record's commands (or, with no record, the authors' expert
demonstration) said again in the text game, in the observability the run played, and the game's answers
kept as a transcript; the notes hold what the human did and said, and the episode's hardness."""

from __future__ import annotations

from collections.abc import Mapping

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import HandMeThatEnv
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.suite import Replay


def handmethat_replay(
    episode: HandMeThatEpisode, scenes: Mapping, record: EpisodeRecord | None, options: Mapping[str, object]
) -> Replay:
    env = HandMeThatEnv([episode], observability=str(options.get("observability", "partial")))
    text, info = env.reset(options={"episode": 0})
    said = list(episode.demo_actions) if record is None else [str(command) for command, _ in record.actions]
    transcript, actions, success, messages, scores = [text], ["start"], [True], [""], [float(info["score"])]
    for command in said:
        if env.over:
            break
        text, _, _, _, info = env.step(command)
        transcript.append(f"> {command}\n{text}")
        actions.append(command)
        success.append(info["last_command_success"])
        messages.append(info["problem"])
        scores.append(float(info["score"]))
    outcome = "won" if info["won"] else "not won"
    ending = "the expert's demonstration" if record is None else record.end_reason
    return Replay(
        title=env.task.strip().splitlines()[-1] if env.task.strip() else episode.id,
        notes=(*env.task.strip().splitlines(), f"level {episode.level}, {episode.quest_type}"),
        actions=actions,
        success=success,
        messages=messages,
        ending=f"{ending}: {outcome}, score {info['score']:g} after {info['moves']} moves",
        series={"score": scores},
        transcript=transcript,
    )
