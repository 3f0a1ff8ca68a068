"""ALFRED episodes are data: every imported episode survives a JSON round trip unchanged."""

import json

import pytest

from homesim.datasets.alfred.episode import AlfredEpisode, episode_from_trajectory
from homesim.datasets.alfred.trajectories import read_trajectories
from homesim.scenes.alfred import build_scene, gather_evidence


@pytest.fixture(scope="module")
def episodes(alfred_samples, alfred_layouts):
    trajectories = list(read_trajectories(alfred_samples))
    evidence = gather_evidence(t.data for t in trajectories)
    scenes = {fp: build_scene(fp, alfred_layouts, e) for fp, e in evidence.items()}
    return [episode_from_trajectory(t.source, t.data, scenes[t.data["scene"]["floor_plan"]]) for t in trajectories]


def test_every_sample_episode_round_trips_through_json(episodes):
    assert len(episodes) == 70
    for episode in episodes:
        again = AlfredEpisode.from_dict(json.loads(json.dumps(episode.to_dict())))
        assert again == episode
        assert again.initial_state.stable_hash() == episode.initial_state.stable_hash()


def test_episodes_carry_the_human_directives(episodes):
    for episode in episodes:
        assert episode.annotations, episode.id
        for annotation in episode.annotations:
            assert annotation.task_desc.strip()
            assert len(annotation.high_descs) >= 2  # one step-by-step sentence per sub-goal
        assert len(episode.expert_subgoal_index) == len(episode.expert_actions)
