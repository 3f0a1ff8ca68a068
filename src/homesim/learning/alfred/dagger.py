"""DAgger for ALFRED's Seq2Seq(+PM) (what ALFRED could not offer: its expert only knew the demonstration).

Each round, the current model acts in `homesim/ALFRED-v0` (mask mode, rgb) on the training episodes, one
annotation per episode (round k takes annotation k mod their number), and the live expert labels every
state it visits with its next action and the ground-truth mask of its target (`expert_hints=True`). The
labelled steps are a frames folder of their own (`<out>.dagger/round-K/`, the format of `homesim alfred
frames`, frames downsized from 300x300 at pixel centres), and the next model is trained, from the previous
one's weights, on the demonstrations and every round's steps together. The states the learner visits have
no ALFRED sub-goal index: their rows hold sub-goal -1, and the progress monitors are not trained on them.
An episode ends when the learner stops, a limit is reached (2x the demonstration + 10 steps, or ALFRED's 10
failures), or the expert finds the goal unreachable.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.embodied import MAX_FAILS, AlfredEnv
from homesim.evaluation.runner import task_spec
from homesim.learning.alfred.agent import Seq2SeqAgent, downsize
from homesim.learning.alfred.frames import (
    STEP_DTYPE,
    Trajectory,
    class_map,
    class_names,
    frames_meta,
    shard_name,
    trajectory_line,
    write_shard,
)
from homesim.world.actions import ACTIONS, STOP
from homesim.world.scene import Scene

UNKNOWN_SUBGOAL = -1


def learner_trajectory(env: AlfredEnv, agent: Seq2SeqAgent, episode: AlfredEpisode, annotation: int) -> Trajectory:
    """The learner's own trajectory in `episode`, each step labelled with the expert's action and mask."""
    size = agent.config.size
    class_ids = {c: i for i, c in enumerate(class_names())}
    env.max_steps = 2 * len(episode.expert_actions) + 10
    observation, info = env.reset(options={"episode": episode, "annotation": annotation})
    agent.reset(task_spec(episode, annotation))
    frames, masks, classes, steps = [], [], [], []
    while True:
        expert = info["expert_action"]
        if expert is None:  # the learner made the goal unreachable: no label to learn from
            break
        frame, scene, state = env.frame, env.scene, env.state
        frames.append(downsize(frame.rgb, size))
        classes.append(downsize(class_map(frame, scene, state, class_ids), size))
        target = 0
        if expert.target is not None:
            target = class_ids[(state.objects.get(expert.target) or scene.fixed[expert.target]).cls]
        masks.append(np.packbits(downsize(info["expert_mask"], size).reshape(-1)) if expert.target else None)
        steps.append((ACTIONS.index(expert.name), UNKNOWN_SUBGOAL, target))
        if expert.name == STOP:
            break
        reply = agent.act(observation)
        observation, _, stopped, truncated, info = env.step({"action": reply.action, "target": reply.target})
        if stopped or truncated:
            break
    n, cells = len(steps), size[0] * size[1]
    packed = np.zeros((n, (cells + 7) // 8), np.uint8)
    for t, mask in enumerate(masks):
        if mask is not None:
            packed[t] = mask
    line = trajectory_line(episode, n, 0, episode.annotations[annotation : annotation + 1])
    return Trajectory(np.array(frames), packed, np.array(classes), np.array(steps, STEP_DTYPE), line)


def collect_round(
    agent: Seq2SeqAgent, episodes: list[AlfredEpisode], scenes: dict[str, Scene], out: Path, round_: int
) -> Path:
    """Round `round_`'s labelled steps as a frames folder at `out` (kept as it is if already complete)."""
    if (out / "meta.json").is_file() and json.loads((out / "meta.json").read_text()).get("complete"):
        return out
    shutil.rmtree(out, ignore_errors=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    env = AlfredEnv(episodes, scenes, max_fails=MAX_FAILS, expert_hints=True, interaction="mask", pixels=("rgb",))
    trajectories = [
        learner_trajectory(env, agent, e, round_ % len(e.annotations)) for e in episodes if e.annotations
    ]
    trajectories = [t for t in trajectories if t.line["length"]]
    size = agent.config.size[0]
    write_shard(tmp / shard_name(0), trajectories, [], size)
    steps = sum(t.line["length"] for t in trajectories)
    settings = {"size": [size, size], "source": f"dagger round {round_}", "split": None, "limit": None}
    meta = frames_meta(settings | {"shard_size": max(len(trajectories), 1)}, len(trajectories), steps, True)
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    os.replace(tmp, out)
    return out
