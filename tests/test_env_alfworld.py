"""ALFWorld's interface over the text game (`homesim.envs.alfred.alfworld`): its constructor and config, batched
reset/step, its infos and facts, its games; each ALFWorld version's wording kept throughout a game; a
ReAct-style loop written as ALFWorld's users write it runs unchanged."""

from __future__ import annotations

import re

import pytest

import homesim.envs.alfred.alfworld as environment
from homesim.envs.alfred.text import AlfredTextEnv
from homesim.envs.alfred.text_expert import expert_command, subgoal_commands
from homesim.envs.alfred.wording import WELCOME, Wording
from homesim.planning.alfred.expert import plan


def config(path, version="0.4", **dataset) -> dict:
    """ALFWorld's base_config.yaml, as far as its text env reads it, with homesim's two keys."""
    return {
        "dataset": {"data_path": str(path), "eval_id_data_path": str(path), "num_train_games": -1, **dataset},
        "env": {"type": "AlfredTWEnv", "task_types": [1, 2, 3, 4, 5, 6], "alfworld_version": version},
        "general": {"training_method": "dagger"},
        "dagger": {"training": {"max_nb_steps_per_episode": 50}},
    }


@pytest.fixture(scope="module")
def seen(alfred_samples, alfred_layouts) -> dict:
    return config(alfred_samples / "valid_seen", layouts=str(alfred_layouts))


@pytest.fixture(scope="module")
def games(seen) -> environment.AlfredTWEnv:
    """valid_seen's 12 ALFWorld games among the samples, collected once."""
    return environment.AlfredTWEnv(seen, train_eval="train")


def expert_moves(env, slot: int = 0):
    """homesim's expert's commands for the game in a slot of a batch env, planned once at its start."""
    text = env.envs[slot]
    for subgoal in plan(text.scene, text.episode.initial_state, text.episode.goal).subgoals:
        yield from subgoal_commands(text, subgoal)


def test_the_games_are_alfworlds_six_task_types_without_movable_or_sliced(seen, games, alfred_samples):
    tw = games
    on_disk = [p for p in (alfred_samples / "valid_seen").rglob("traj_data.json")]
    eligible = [p for p in on_disk if "movable" not in str(p) and "Sliced" not in str(p)]
    assert tw.num_games == len(tw.game_files) == len(eligible) == 12
    assert sorted(tw.game_files) == sorted(map(str, eligible))  # the trajectories' own files
    only = environment.AlfredTWEnv(seen | {"env": seen["env"] | {"task_types": [2]}}, train_eval="train")
    assert {e.goal.task_type for e in only.games.values()} == {"look_at_obj_in_light"}
    two = environment.AlfredTWEnv(seen | {"dataset": seen["dataset"] | {"num_train_games": 2}}, train_eval="train")
    assert two.num_games == 2
    assert environment.get_environment("AlfredTWEnv") is environment.AlfredTWEnv


def test_bad_settings_are_one_line_errors(seen):
    with pytest.raises(ValueError, match="train_eval='test'"):
        environment.AlfredTWEnv(seen, train_eval="test")
    with pytest.raises(ValueError, match="dataset.eval_ood_data_path is not set"):
        environment.AlfredTWEnv(seen, train_eval="eval_out_of_distribution")
    with pytest.raises(ValueError, match="alfworld_version='0.2'"):
        environment.AlfredTWEnv(seen | {"env": seen["env"] | {"alfworld_version": "0.2"}}).init_env(1)
    with pytest.raises(ValueError, match="AlfredThorEnv"):
        environment.get_environment("AlfredThorEnv")
    env = environment.AlfredTWEnv(seen).init_env(batch_size=1)
    env.reset()
    with pytest.raises(ValueError, match="a list of 1 command"):
        env.step("look")


def test_batched_reset_and_step_answer_as_textworlds_batch_env(games):
    env = environment.AlfredTWBatchEnv(games.games, games.scenes, batch_size=2)
    obs, infos = env.reset()
    assert isinstance(obs, tuple) and len(obs) == 2 and all(o.startswith(WELCOME + "\n\n") for o in obs)
    assert set(infos) == {"admissible_commands", "won", "goal_condition_success_rate", "extra.gamefile", "facts"}
    assert all(len(values) == 2 for values in infos.values())
    first = infos["extra.gamefile"]
    assert infos["won"] == [False, False] and first[0] != first[1]
    obs, scores, dones, infos = env.step(["look", "inventory"])
    assert obs == ("You are in the middle of a room. Looking quickly around you, you see nothing.",
                   "You are not carrying anything.")  # fmt: skip
    assert scores == (0.0, 0.0) and dones == (False, False)
    moves = expert_moves(env, 1)
    for _ in range(49):
        last = env.step(["look", next(moves, "look")])
        infos = last[3]
    assert last[2] == (True, True) and last[3]["won"] == [False, True] and last[1] == (0.0, 1.0)
    assert env.step(["inventory", "inventory"]) == last  # finished games keep their last answer
    again = environment.AlfredTWBatchEnv(games.games, games.scenes, batch_size=2)
    assert again.reset()[1]["extra.gamefile"] == first != env.reset()[1]["extra.gamefile"]  # a seeded cycle


def test_the_expert_plan_is_given_where_alfworld_gives_it(seen, games):
    env = games.init_env(batch_size=1)  # training with DAgger
    _, infos = env.reset()
    command = infos["extra.expert_plan"][0][0]
    assert command == expert_command(env.envs[0]) and command in infos["admissible_commands"][0]
    evaluation = environment.AlfredTWEnv(seen, train_eval="eval_in_distribution").init_env(batch_size=1)
    assert "extra.expert_plan" not in evaluation.reset()[1]
    dqn = environment.AlfredTWEnv(seen | {"general": {"training_method": "dqn"}}).init_env(batch_size=1)
    assert "extra.expert_plan" not in dqn.reset()[1]


def test_facts_follow_the_game_in_alfworlds_predicates(games):
    heat = {f: e for f, e in games.games.items() if e.goal.task_type == "pick_heat_then_place_in_recep"}
    env = environment.AlfredTWBatchEnv(heat, games.scenes)
    obs, infos = env.reset()
    said = []
    for command in expert_moves(env):
        obs, _, _, infos = env.step([command])
        said.append(command)
        facts = {f"{f.name} {' '.join(f.names)}" for f in infos["facts"][0]}
        if command.startswith("take "):
            held = command.split()[1:3]
            assert f"holds agent1 {' '.join(held)}" in facts and "holdsany agent1" in facts
        if command.startswith("heat "):
            assert f"ishot {' '.join(held)}" in facts
            assert obs[0] == f"You heat the {' '.join(held)} using the {command.split(' with ')[1]}."
    place = said[-1].split(" to ")[1]
    assert f"inreceptacle {' '.join(held)} {place}" in facts and "holdsany agent1" not in facts
    assert any(f.startswith("atlocation agent1 loc ") for f in facts)
    assert infos["goal_condition_success_rate"] == [1.0]


@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_each_version_speaks_its_own_words_throughout(games, version):
    """Arrival, put command and its feedback, `help`: one version's, never the other's."""
    env = environment.AlfredTWBatchEnv(games.games, games.scenes, alfworld_version=version)
    wording, other = Wording(version), Wording("0.4" if version == "0.3" else "0.3")
    texts = []
    for _ in range(4):
        env.reset()
        for command in expert_moves(env):
            obs, _, dones, infos = env.step([command])
            texts.append((command, obs[0], infos["admissible_commands"][0]))
        assert dones[0] and infos["won"][0]
    puts = [(c, o) for c, o, _ in texts if wording.parse(c) and wording.parse(c)[0] == "put"]
    assert puts and all(o == wording.put(*wording.parse(c)[1]) for c, o in puts)
    admissible = [a for *_, commands in texts for a in commands]
    assert not any(other.parse(a) and other.parse(a)[0] == "put" for a in admissible)
    arrivals = [o for c, o, _ in texts if c.startswith("go to ")]
    pattern = r"You arrive at loc \d+\. " if version == "0.3" else r"You arrive at [a-z]+ \d+\. "
    assert arrivals and all(re.match(pattern + r"(On the|The) [a-z]+ \d+", o) for o in arrivals)
    env.reset()
    assert ("put (object) in/on" if version == "0.3" else "move (object) to") in env.step(["help"])[0][0]


def test_lamps_are_listed_on_their_receptacle_and_used_from_there(games):
    """ALFWorld: "On the sidetable 2, you see a alarmclock 1, a desklamp 1, ..." and `use desklamp 1` there."""
    episodes = [e for e in games.games.values() if e.goal.task_type == "look_at_obj_in_light"]
    env = AlfredTextEnv(episodes, games.scenes)
    for i, episode in enumerate(episodes):
        obs, info = env.reset(options={"episode": i})
        lamp = next(n for n in env.names.values() if n.startswith(episode.goal.toggle_target.lower() + " "))
        assert f"go to {lamp}" not in info["admissible_commands"] and f"a {lamp}," not in obs.split("\n\n")[1]
        place = env.name_of(env.place_of(env.ids[lamp]))
        obs, *_, info = env.step(f"go to {place}")
        assert f"a {lamp}" in obs and f"use {lamp}" in info["admissible_commands"], (obs, lamp)
        assert env.step(f"use {lamp}")[0] == f"You turn on the {lamp}."
        assert env.step(f"examine {lamp}")[0] == f"This {lamp} is on."


def test_examine_says_what_alfworld_says():
    w = Wording("0.4")
    assert w.examine_object("apple 1", {"clean", "hot"}) == "This is a hot and clean apple 1."
    assert w.examine_object("apple 1", {"cool"}) == "This is a cold apple 1."
    assert w.examine_object("applesliced 1", {"sliced", "hot"}) == "This is a hot sliced applesliced 1."
    assert w.examine_object("desklamp 1", {"off"}) == "This desklamp 1 is off."
    assert w.examine_object("mug 1", set()) == "There's nothing special about mug 1."
    assert w.inventory("apple 1") == "You are carrying: a apple 1."


PREFIXES = {  # ReAct's task prefixes
    "pick_and_place": "put", "pick_clean_then_place": "clean", "pick_heat_then_place": "heat",
    "pick_cool_then_place": "cool", "look_at_obj": "examine", "pick_two_obj": "puttwo",
}  # fmt: skip


def process_ob(ob: str) -> str:
    if ob.startswith("You arrive at loc "):
        ob = ob[ob.find(". ") + 2 :]
    return ob


def react_episode(env, llm) -> tuple[int, str]:
    """ReAct's ALFWorld loop (its notebook's `alfworld_run`), with the model replaced by `llm`."""
    ob, info = env.reset()
    ob = "\n".join(ob[0].split("\n\n")[1:])
    name = "/".join(info["extra.gamefile"][0].split("/")[-3:-1])
    prompt = ob + "\n>"
    for _ in range(50):
        action = llm(prompt).strip()
        if action.startswith("think:"):
            observation = "OK."
        else:
            observation, reward, done, info = env.step([action])
            observation, reward, done = process_ob(observation[0]), info["won"][0], done[0]
            if done:
                return reward, name
        prompt += f" {action}\n{observation}\n>"
    return 0, name


def scripted_model(env):
    """Stands in for ReAct's language model: it thinks first, then says the moves of homesim's expert,
    worked out on a twin of the game being played."""
    twin = AlfredTextEnv(list(env.games.values()), env.envs[0].scenes, alfworld_version="0.3")
    script: list[str] = []

    def llm(prompt: str) -> str:
        if not script:  # a new game
            game = env.games[env.gamefiles[0]]
            twin.reset(options={"episode": game, "annotation": "template"})
            script.append("think: To solve the task, I need to find and take the object first.")
            for subgoal in plan(twin.scene, game.initial_state, game.goal).subgoals:
                for command in subgoal_commands(twin, subgoal):
                    script.append(command)
                    twin.step(command)
        return script.pop(0)

    return llm


def test_a_react_loop_written_for_alfworld_runs_unchanged(alfred_samples, alfred_layouts):
    """ReAct speaks ALFWorld 0.3 ("You arrive at loc N.", `put X in/on Y`)."""
    split = "eval_out_of_distribution"
    setup = config(alfred_samples / "valid_seen", "0.3", layouts=str(alfred_layouts))
    setup["dataset"]["eval_ood_data_path"] = setup["dataset"]["data_path"]
    env = getattr(environment, setup["env"]["type"])(setup, train_eval=split)
    env = env.init_env(batch_size=1)
    llm = scripted_model(env)
    for _ in range(3):
        reward, name = react_episode(env, llm)
        assert reward and any(name.startswith(prefix) for prefix in PREFIXES), name
