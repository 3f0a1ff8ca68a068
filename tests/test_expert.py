"""The expert from any state: it solves ALFRED's tasks from their starts and from states random play
leaves behind, recovers when the world goes off its plan, and says why when a goal became unreachable."""

import random
from dataclasses import replace

import pytest

from homesim.datasets.alfred.importer import import_alfred
from homesim.planning.alfred.expert import Expert, Unrecoverable, plan
from homesim.tasks.alfred import AlfredGoal, goal_satisfied
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import alfred_catalog
from homesim.world.dynamics import step
from homesim.world.random_actions import random_action


@pytest.fixture(scope="module")
def samples(alfred_samples, alfred_layouts):
    splits, scenes, errors = import_alfred(alfred_samples, alfred_layouts)
    assert not errors
    return sorted((e for es in splits.values() for e in es), key=lambda e: e.id), scenes


def play_expert(scene, state, goal, limit=1000):
    """Steps the expert until it stops; every action it takes must succeed."""
    expert = Expert(scene, goal)
    for _ in range(limit):
        action = expert.next_action(state)
        if action.name == A.STOP:
            return state
        state, event = step(scene, state, action)
        assert event.success, (action, event.message)
    raise AssertionError("the expert never stopped")


def test_plans_from_every_sample_start_reach_the_goal_and_are_consistent(samples):
    episodes, scenes = samples
    for e in episodes:
        demo = plan(scenes[e.scene_id], e.initial_state, e.goal)
        assert len(demo.actions) == len(demo.subgoal_index) == len(demo.states)
        assert demo.subgoal_index == sorted(demo.subgoal_index) and max(demo.subgoal_index) == len(demo.subgoals) - 1
        state = e.initial_state
        for expected, action in zip(demo.states, demo.actions, strict=True):
            assert state == expected
            state, event = step(scenes[e.scene_id], state, action)
            assert event.success
        assert goal_satisfied(scenes[e.scene_id], state, e.goal), e.id


def test_from_states_random_play_leaves_the_expert_finishes_or_says_unrecoverable(samples):
    episodes, scenes = samples
    rng, catalog, outcomes = random.Random(0), alfred_catalog(), []
    for i in range(60):
        e = episodes[i % len(episodes)]
        scene, state = scenes[e.scene_id], e.initial_state
        for _ in range(rng.randrange(5, 60)):
            state, _ = step(scene, state, random_action(scene, state, catalog, rng), catalog=catalog)
        try:
            outcomes.append(goal_satisfied(scene, play_expert(scene, state, e.goal), e.goal))
        except Unrecoverable:
            outcomes.append("unrecoverable")
    assert outcomes.count(True) + outcomes.count("unrecoverable") == 60
    assert outcomes.count(True) >= 55  # random play rarely destroys what a task needs


def test_the_expert_recovers_when_the_agent_leaves_its_plan(samples):
    episodes, scenes = samples
    e = episodes[0]
    scene, state, expert = scenes[e.scene_id], e.initial_state, Expert(scenes[e.scene_id], e.goal)
    for _ in range(5):  # follow the plan a little, then wander off it
        state, _ = step(scene, state, expert.next_action(state))
    for detour in (A.ROTATE_LEFT, A.ROTATE_LEFT, A.LOOK_UP):
        state, _ = step(scene, state, Action(detour))
    assert goal_satisfied(scene, play_expert(scene, state, e.goal), e.goal)


def test_a_goal_is_unrecoverable_once_its_only_objects_are_gone(samples):
    episodes, scenes = samples
    e = next(e for e in episodes if e.goal.task_type == "pick_and_place_simple" and not e.goal.object_sliced)
    targets = tuple(o.id for o in e.initial_state.objects.values() if o.cls == e.goal.object_target)
    gone = e.initial_state.with_objects({}, removed=targets)
    with pytest.raises(Unrecoverable, match=f"no {e.goal.object_target}"):
        Expert(scenes[e.scene_id], e.goal).next_action(gone)


def test_slicing_the_only_apple_makes_a_whole_apple_task_unrecoverable(samples):
    episodes, scenes = samples
    e = next(e for e in episodes if e.goal.object_sliced)
    whole_goal = replace(e.goal, object_sliced=False)
    state = e.initial_state
    for obj in [o for o in state.objects.values() if o.cls == e.goal.object_target]:
        piece = f"{obj.id}|{e.goal.object_target}Sliced_0"
        state = state.with_objects(
            {piece: replace(obj, id=piece, cls=f"{e.goal.object_target}Sliced")}, removed=(obj.id,)
        )
    with pytest.raises(Unrecoverable):
        plan(scenes[e.scene_id], state, whole_goal)
    assert goal_satisfied(scenes[e.scene_id], play_expert(scenes[e.scene_id], state, e.goal), e.goal)  # sliced: fine


def test_a_sliced_task_without_any_knife_is_unrecoverable(samples):
    episodes, scenes = samples
    e = next(e for e in episodes if e.goal.object_sliced)
    catalog = alfred_catalog()
    knives = tuple(o.id for o in e.initial_state.objects.values() if catalog[o.cls].slices)
    with pytest.raises(Unrecoverable, match="knife"):
        plan(scenes[e.scene_id], e.initial_state.with_objects({}, removed=knives), e.goal)


def test_a_goal_already_met_needs_no_action(samples):
    episodes, scenes = samples
    e = episodes[0]
    done = play_expert(scenes[e.scene_id], e.initial_state, e.goal)
    assert plan(scenes[e.scene_id], done, e.goal).actions == []
    assert Expert(scenes[e.scene_id], e.goal).next_action(done) == Action(A.STOP)


def test_the_expert_solves_the_builtin_procedural_tasks():
    from homesim.datasets.alfred.builtin import builtin_episodes

    episodes, scenes = builtin_episodes()
    for e in episodes:
        assert goal_satisfied(scenes[e.scene_id], play_expert(scenes[e.scene_id], e.initial_state, e.goal), e.goal)
    assert isinstance(episodes[0].goal, AlfredGoal)


def test_with_sees_the_path_ends_where_sees_holds_and_without_it_where_the_engine_sees():
    from homesim.datasets.alfred.builtin import builtin_episodes
    from homesim.planning.poses import path_to_use, pose_of, walk

    episodes, scenes = builtin_episodes()
    episode = episodes[1]
    scene, state = scenes[episode.scene_id], episode.initial_state
    catalog = alfred_catalog()
    target = next(o for o in state.objects if o.startswith(episode.goal.parent_target + "|"))
    nearest = path_to_use(scene, state, catalog, 0, target)
    refused = pose_of(walk(scene, state, 0, nearest).agents[0])

    def sees(there, object_id):  # a view that hides the target from the nearest pose only
        assert object_id == target
        return pose_of(there.agents[0]) != refused

    other = path_to_use(scene, state, catalog, 0, target, sees=sees)
    assert other != nearest and pose_of(walk(scene, state, 0, other).agents[0]) != refused
    assert path_to_use(scene, state, catalog, 0, target, sees=lambda there, object_id: False) == nearest


def test_the_experts_answer_is_a_function_of_the_state_not_of_how_often_it_is_asked(samples):
    """Issue 33, item 10: `next_action` moved along its plan on every call, so a hint asked again after a
    failed (no-op) step differed, and so did the state the episode ended in."""
    episodes, scenes = samples
    replanned_otherwise = ("look_at_obj_in_light-Pen-None-DeskLamp-319/", "pick_and_place_with_movable_recep-Watch")
    chosen = [e for e in episodes if e.id.startswith(replanned_otherwise)]  # a plan from mid-way differs there
    assert len(chosen) == 2
    for episode in chosen:
        scene, state = scenes[episode.scene_id], episode.initial_state
        calm, eager = Expert(scene, episode.goal), Expert(scene, episode.goal)
        for count in range(300):
            action = calm.next_action(state)
            again = [eager.next_action(state) for _ in range(1 + count % 3)]  # asked once, twice, three times
            assert again == [action] * len(again)
            if action.name == A.STOP:
                break
            state, event = step(scene, state, action)
            assert event.success
        assert goal_satisfied(scene, state, episode.goal)
