"""`homesim/HandMeThat-v0`: the text game prints the authors' text (the samples' demo observations, step by
step, in both settings), scores as their env does, answers bad commands and questions as theirs, and is a
well-behaved Gymnasium env."""

from __future__ import annotations

import json
import random
import re

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.datasets.sources import read_episodes
from homesim.envs.handmethat import HandMeThatEnv
from homesim.language.handmethat.text import NOT_ABLE, NOT_UNDERSTOOD
from homesim.world.handmethat import applicable_actions


@pytest.fixture(scope="module")
def episodes(handmethat_samples):
    return read_episodes(handmethat_samples).all()


@pytest.fixture(scope="module")
def raw(handmethat_samples):
    """The sample files' JSON, by episode id."""
    return {p.stem: json.loads(p.read_text()) for p in sorted(handmethat_samples.glob("*.json"))}


def by_id(episodes, episode_id):
    return next(e for e in episodes if e.id == episode_id)


@pytest.mark.parametrize(
    "observability, field", [("partial", "demo_observations_partially"), ("full", "demo_observations_fully")]
)
def test_demo_actions_print_the_authors_observations_exactly(episodes, raw, observability, field):
    env = HandMeThatEnv(episodes, observability=observability)
    steps = 0
    for i, episode in enumerate(episodes):
        reference = raw[episode.id][field]
        env.reset(options={"episode": i})
        said = [env.history()]
        for command in episode.demo_actions:
            _, reward, terminated, _, info = env.step(command)
            assert info["last_command_success"], (episode.id, command, info["problem"])
            said.append(env.history())
        assert said[: len(reference)] == reference, episode.id  # their recorder stops before the last answer
        assert terminated and info["won"] and info["score"] == 100 - len(episode.demo_actions)
        steps += len(reference)
    assert steps == 101  # every step of the 24 samples compared


def test_the_reset_observation_tells_the_task_then_what_the_robot_sees(episodes, raw):
    env = HandMeThatEnv(episodes, observability="partial")
    observation, info = env.reset(options={"episode": 0})
    task = raw[episodes[0].id]["task_description"]
    assert observation.startswith("Welcome to the world!\nIn the room, there is the human, a countertop,")
    assert task in observation and observation.endswith("Now it is your turn to help human to achieve the goal!\n")
    assert info["score"] == 0 and info["moves"] == 0 and info["level"] == episodes[0].level


def test_partial_observations_hide_closed_containers_and_other_locations(episodes):
    episode = by_id(episodes, "task-bring_me-60-0-2")  # the soup is in the closed microwave
    partial, full = HandMeThatEnv([episode], "partial"), HandMeThatEnv([episode], "full")
    start_partial, _ = partial.reset(options={"episode": 0})
    start_full, _ = full.reset(options={"episode": 0})
    assert "soup 0" not in start_partial and "In microwave you can see" in start_full and "soup 0" in start_full
    seen, _, _, _, _ = partial.step("move to microwave")
    assert "You see closed" in seen and "microwave" in seen and "soup 0" not in seen
    seen, _, _, _, _ = partial.step("open microwave")
    assert seen.startswith("You open the microwave.\nYou are at the microwave.") and "soup 0" in seen
    effect, _, _, _, _ = full.step("move to microwave")
    assert effect == "You move from the floor to the microwave."  # fully observable: the effect alone


def test_bad_commands_cost_one_and_change_nothing(episodes):
    env = HandMeThatEnv(episodes, observability="full")
    env.reset(options={"episode": 0})
    before = env.state
    for said, answer in [
        ("dance wildly", NOT_UNDERSTOOD),  # no such command
        ("pick up unicorn 7", NOT_UNDERSTOOD),  # no such thing
        ("open pad 0", NOT_UNDERSTOOD),  # a thing that is neither a location nor a receptacle
        ("pick up pad 0", NOT_ABLE),  # it is in the cabinet, and the robot is on the floor
        ("give pad 0 to human", NOT_ABLE),
        (42, NOT_UNDERSTOOD),  # not even text
    ]:
        observation, reward, terminated, truncated, info = env.step(said)
        assert observation == answer and reward == -1 and not (terminated or truncated), said
        assert not info["last_command_success"] and info["problem"], said
        assert env.state is before
    info = env.step("pick up pad 0")[4]
    assert info["problem"] == "pad#0 is not in or on floor"  # why, for the logs; the robot reads NOT_ABLE
    assert info["score"] == -7 and info["moves"] == 7


def test_look_and_examine_are_free_inventory_costs_one_and_help_lists_the_commands(episodes):
    env = HandMeThatEnv(episodes, observability="partial")
    env.reset(options={"episode": 0})
    for said in ("look", "examine"):
        observation, reward, *_ = env.step(said)
        assert reward == 0, said
    # their env (data_generation/text_interface/env.py) charges inventory like any command
    observation, reward, *_ = env.step("inventory")
    assert reward == -1
    assert observation.startswith("You are holding nothing.\nRecall your task:\n\nThe human agent has taken")
    observation, reward, *_ = env.step("help")
    assert reward == -1 and "question: can you say it clearly;" in observation


def test_the_rules_a_text_agent_reads_say_what_each_command_costs_in_the_env(episodes):
    """The suite's rules (what an LLM agent is told) name the free commands; the env charges exactly those 0."""
    from homesim.evaluation.handmethat.suite import RULES

    free = re.search(r"([a-z, ]+) cost nothing", RULES).group(1).replace(" and ", ", ").split(", ")
    env = HandMeThatEnv(episodes, observability="partial")
    env.reset(options={"episode": 0})
    for said in ("look", "examine", "inventory", "help"):
        _, reward, *_ = env.step(said)
        assert (reward == 0) == (said in free), (said, reward, free)


def test_questions_are_answered_from_the_hidden_meaning_and_cost_apart(episodes):
    env = HandMeThatEnv([by_id(episodes, "task-bring_me-25-1-2")], "full")  # meaning: the clean pad in package 2
    env.reset(options={"episode": 0})
    answers = [env.step(q)[0:2] for q in (
        "question: which type do you mean",
        "question: which color do you like",
        "question: where is the object you want",
        "question: do you want a dusty one",
        "question: can you say it clearly",
    )]
    assert answers == [
        ("I mean the pad.", -10),
        ("Not any specific color.", -10),
        ("Inside the large red package (package 2).", -10),
        ("No, I mean the not dusty one.", -10),
        ("I mean the clean pad in the large red package (package 2).", -30),
    ]
    info = env.step("look")[4]
    assert info["questions"] == 5 and info["question_cost"] == 70 and info["score"] == -70


def test_questions_can_be_turned_off_or_priced(episodes):
    from homesim.envs.handmethat import Costs

    env = HandMeThatEnv(episodes, "full", questions=False)
    env.reset(options={"episode": 0})
    assert env.step("question: which type do you mean")[:2] == (NOT_UNDERSTOOD, -1)
    env = HandMeThatEnv(episodes, costs=Costs(question=2, say_it_clearly=5))
    env.reset(options={"episode": 0})
    assert env.step("question: which type do you mean")[1] == -2
    assert env.step("question: can you say it clearly")[1] == -5


def test_forty_commands_at_most_and_stop_ends_the_game(episodes):
    env = HandMeThatEnv(episodes)
    env.reset(options={"episode": 0})
    for k in range(40):
        _, _, terminated, truncated, info = env.step("move to sofa")
        assert not terminated and truncated == (k == 39)
    assert info["score"] == -40 and not info["won"]
    with pytest.raises(RuntimeError, match="over"):
        env.step("look")
    env.reset(options={"episode": 0})
    observation, reward, terminated, truncated, info = env.step("stop")
    assert observation == "You stop the game.\n" and terminated and not truncated and reward == -1


def test_admissible_commands_are_the_applicable_robot_actions_and_all_succeed(episodes):
    env = HandMeThatEnv(episodes)
    for i in range(0, len(episodes), 6):
        env.reset(options={"episode": i})
        for command in episodes[i].demo_actions[:-1]:
            info = env._info()
            actions = applicable_actions(env.state, "robot")
            assert info["admissible_commands"] == list(dict.fromkeys(env.command_for(a) for a in actions))
            assert command in info["admissible_commands"]
            state = env.state
            for other in info["admissible_commands"]:  # each one works from here
                env.state = state
                env.over = ""
                assert env.step(other)[4]["last_command_success"], other
            env.state, env.over, env.won = state, "", False
            env.step(command)


def test_check_env_and_make(episodes):
    env = gymnasium.make("homesim/HandMeThat-v0", episodes=episodes[:2], observability="full").unwrapped
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("mode, vector_kwargs", [("sync", {}), ("async", {"shared_memory": False})])
def test_vector_env(episodes, mode, vector_kwargs):
    envs = gymnasium.make_vec(
        "homesim/HandMeThat-v0", num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs, episodes=episodes[:2]
    )
    try:
        observations, info = envs.reset(seed=[1, 2])
        assert all(o.startswith("Welcome to the world!") for o in observations)
        observations, rewards, *_ = envs.step(("look", "fly away"))
        assert list(rewards) == [0, -1] and observations[1].startswith(NOT_UNDERSTOOD)
    finally:
        envs.close()


def test_same_commands_same_text(episodes):
    def play() -> list[str]:
        env = HandMeThatEnv(episodes)
        said = [env.reset(seed=3)[0]]
        for command in ("move to table", "look", "pick up pad 0", "move to human"):
            said.append(env.step(command)[0])
        return said + [env.history()]

    assert play() == play()


def test_bad_arguments_are_clear_errors(episodes, tmp_path):
    with pytest.raises(ValueError, match="needs episodes"):
        HandMeThatEnv([])
    with pytest.raises(ValueError, match="observability"):
        HandMeThatEnv(episodes, observability="some")
    with pytest.raises(ValueError, match="out of range"):
        HandMeThatEnv(episodes).reset(options={"episode": 99})
    with pytest.raises(RuntimeError, match="reset"):
        HandMeThatEnv(episodes).step("look")


def test_expert_hints_lead_to_the_goal_from_wherever_the_robot_wandered(episodes):
    env = HandMeThatEnv(episodes, expert_hints=True)
    rng = random.Random(0)
    for i in range(0, len(episodes), 4):
        _, info = env.reset(options={"episode": i})
        for _ in range(8):  # off the demonstration's path first
            _, _, terminated, _, info = env.step(rng.choice(info["admissible_commands"]))
            if terminated:
                break
        while not env.over:
            assert info["expert_command"] in info["admissible_commands"]
            _, _, _, _, info = env.step(info["expert_command"])
        assert info["won"], episodes[i].id
    assert "expert_command" not in HandMeThatEnv(episodes).reset(options={"episode": 0})[1]


@pytest.mark.parametrize("observability", ["partial", "full"])
def test_remembered_views_and_commands_equal_fresh_ones(episodes, observability):
    from homesim.language.handmethat.text import Viewer

    env = HandMeThatEnv(episodes, observability=observability)
    rng = random.Random(1)
    for i in range(0, len(episodes), 3):
        _, info = env.reset(options={"episode": i})
        while not env.over:
            fresh = Viewer(env.game.names)
            assert env.look() == fresh.look(env.state, env.fully)
            assert env.game.viewer.look(env.state, False) == fresh.look(env.state, False)
            actions = applicable_actions(env.state, "robot")
            assert info["admissible_commands"] == list(dict.fromkeys(env.command_for(a) for a in actions))
            _, _, _, _, info = env.step(rng.choice(info["admissible_commands"]))


def _readme_block(marker: str) -> str:
    """The Python block of the HandMeThat page (docs/suites/handmethat.md) that holds `marker`."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "suites" / "handmethat.md").read_text()
    return next(b.split("```")[0] for b in text.split("```python\n")[1:] if marker in b.split("```")[0])


def test_the_readme_block_runs_on_the_builtin_episodes():
    """The README's HandMeThat block, but for the line that needs the authors' files: the built-in episodes
    need no arguments, and `history()` is reached through `env.unwrapped`."""
    block = _readme_block('gymnasium.make("homesim/HandMeThat-v0")')
    code = "\n".join(line for line in block.splitlines() if 'episodes="samples/"' not in line)
    scope: dict = {}
    exec(code, scope)  # noqa: S102  (the README's own lines)
    env = scope["env"]
    assert env.unwrapped.history().startswith("Welcome to the world!") and " [SEP] move to cabinet [SEP] " in (
        env.get_wrapper_attr("history")()
    )
    assert len(env.unwrapped.episodes) == 6
    check_env(env.unwrapped)


def test_the_builtin_episodes_are_the_same_each_time():
    from homesim.datasets.handmethat.builtin import _builtin, builtin_handmethat

    first = [e.to_dict() for e in builtin_handmethat()[0]]
    _builtin.cache_clear()
    assert [e.to_dict() for e in builtin_handmethat()[0]] == first
    assert len({(e.level, e.quest_type) for e in builtin_handmethat()[0]}) > 1
