"""Generating ALFRED-style datasets: valid, balanced, solvable tasks with demonstrations and directives;
the same seed gives the same bytes, with any number of workers; unseen splits use unseen scenes."""

import collections
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.alfred.generate import SPLITS, generate, procedural_places, split_counts
from homesim.datasets.folder import read_dataset
from homesim.language.alfred.directives import annotate
from homesim.tasks.alfred import TASK_TYPES, goal_conditions, goal_satisfied
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


@pytest.fixture(scope="module")
def generated():
    places = procedural_places(split_counts(140), seed=3)
    splits, problems = generate(places, 140, seed=3, annotate=annotate)
    scenes = {p.scene.id: p.scene for pool in places.values() for p in pool}
    return splits, scenes, problems


def test_the_requested_count_arrives_in_all_five_splits(generated):
    splits, _, _ = generated
    assert {s: len(e) for s, e in splits.items()} == split_counts(140)
    assert set(splits) == set(SPLITS)


def test_every_task_type_is_sampled_and_balanced(generated):
    splits, _, _ = generated
    counts = collections.Counter(e.goal.task_type for es in splits.values() for e in es)
    assert set(counts) == set(TASK_TYPES)
    assert max(counts.values()) - min(counts.values()) <= 10  # greedy anti-imbalance, within room-type limits


def test_every_demonstration_replays_to_its_goal_from_an_unsatisfied_start(generated):
    splits, scenes, _ = generated
    for episodes in splits.values():
        for e in episodes:
            scene, state = scenes[e.scene_id], e.initial_state
            met, total = goal_conditions(scene, state, e.goal)
            assert met < total, e.id
            for action in e.expert_actions:
                state, event = step(scene, state, action)
                assert event.success, (e.id, action, event.message)
            assert goal_satisfied(scene, state, e.goal), e.id
            assert len(e.expert_subgoal_index) == len(e.expert_actions)
            assert max(e.expert_subgoal_index) == len(e.subgoals) - 1


def test_every_demonstration_has_three_annotations_with_a_sentence_per_subgoal(generated):
    splits, _, _ = generated
    for episodes in splits.values():
        for e in episodes:
            assert len(e.annotations) == 3
            for a in e.annotations:
                assert a.task_desc and len(a.high_descs) == len(e.subgoals)
                assert "{" not in a.task_desc + " ".join(a.high_descs)


def test_tasks_respect_alfred_room_types_and_compatibility(generated):
    splits, scenes, _ = generated
    catalog = alfred_catalog()
    for episodes in splits.values():
        for e in episodes:
            assert scenes[e.scene_id].room_type in catalog.task_room_types[e.goal.task_type]
            if e.goal.parent_target:
                placed = e.goal.mrecep_target or e.goal.target_class
                assert catalog.can_contain(e.goal.parent_target, placed)


def test_unseen_splits_use_scenes_never_in_train(generated):
    splits, _, _ = generated
    train = {e.scene_id for e in splits["train"]}
    for split in ("valid_unseen", "test_unseen"):
        assert not train & {e.scene_id for e in splits[split]}
    places = procedural_places(split_counts(140), seed=3)
    train_rooms = {p.scene.id for p in places["train"]}
    for split in ("valid_seen", "test_seen"):
        assert {e.scene_id for e in splits[split]} <= train_rooms  # seen: rooms train has


def test_the_same_seed_gives_the_same_bytes_with_any_number_of_workers(tmp_path):
    outs = []
    for name, workers in (("a", 1), ("b", 1), ("c", 2)):
        result = run(
            "generate", "alfred", "--episodes", 12, "--seed", 5, "--workers", workers, "--out", tmp_path / name
        )
        assert result.exit_code == 0, result.output
        outs.append(
            {
                p.relative_to(tmp_path / name): p.read_bytes()
                for p in sorted((tmp_path / name).rglob("*"))
                if p.is_file()
            }
        )
    assert outs[0] == outs[1] == outs[2]
    result = run("generate", "alfred", "--episodes", 12, "--seed", 6, "--out", tmp_path / "d")
    assert (tmp_path / "d" / "train.jsonl.gz").read_bytes() != outs[0][Path("train.jsonl.gz")]


def test_a_generated_dataset_is_evaluated_like_alfred_expert_all_random_none(tmp_path):
    assert run("generate", "alfred", "--episodes", 21, "--seed", 1, "--out", tmp_path / "data").exit_code == 0
    splits, scenes = read_dataset(tmp_path / "data")
    assert sum(map(len, splits.values())) == 21
    for agent, success in (("expert", 1.0), ("random", 0.0)):
        result = run("evaluate", "--episodes", tmp_path / "data", "--agent", agent, "--out", tmp_path / agent)
        assert result.exit_code == 0, result.output
        summary = json.loads((tmp_path / agent / "summary.json").read_text())
        for split in summary["splits"].values():
            assert split["all"]["task_success"]["value"] == success, agent


def test_generation_in_alfreds_real_floor_plans(alfred_layouts, alfred_trajectories, tmp_path):
    result = run(
        "generate",
        "alfred",
        "--scenes",
        "alfred",
        "--layouts",
        alfred_layouts,
        "--trajectories",
        alfred_trajectories / "valid_seen.jsonl.gz",
        "--episodes",
        20,
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0, result.output
    splits, scenes = read_dataset(tmp_path)
    unseen = {f"FloorPlan{n}" for n in (10, 219, 308, 424, 9, 29, 215, 226, 315, 325, 404, 425)}
    assert {e.scene_id for e in splits["valid_unseen"] + splits["test_unseen"]} <= unseen
    assert not {e.scene_id for e in splits["train"]} & unseen
