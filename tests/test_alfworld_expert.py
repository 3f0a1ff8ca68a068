"""A real ALFWorld client on homesim: ALFWorld's own hand-coded expert (the alfworld 0.4.2 wheel's
`HandCodedTWAgent`, files unchanged; `alfworld_client`) driven by ALFWorld's own loop against
`homesim.envs.alfred.alfworld.AlfredTWEnv`, in ALFWorld 0.3's wording and in 0.4's, with ALFWorld's 50 commands.

Its losses are its own: it finds things by going through the receptacles one after another, so in big
rooms it can run out of commands still searching; and the 0.4.2 expert keeps track of what it carries by
looking for "put" in its last command, which 0.4's `move X to Y` (its own grammar's) lacks, so after its
first put it believes it still holds that object and asks to move it again: its pick-two tasks are won
only when its random fallback happens to say the right `move`. The slow test prints each loss's commands."""

from __future__ import annotations

import gzip
import json

import pytest
from alfworld_client import by_task_type, load_expert, play

from homesim.envs.alfred.alfworld import AlfredTWBatchEnv, AlfredTWEnv
from homesim.envs.alfred.wording import LATEST

MAX_STEPS = 50  # ALFWorld's max_nb_steps_per_episode
PICK_TWO = "pick_two_obj_and_place"


def games(path, version, layouts, evidence=None) -> AlfredTWEnv:
    dataset = {"eval_id_data_path": str(path), "layouts": str(layouts)}
    if evidence:
        dataset["scene_evidence"] = str(evidence)
    config = {"dataset": dataset, "env": {"alfworld_version": version}}
    return AlfredTWEnv(config, train_eval="eval_in_distribution")


@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_alfworlds_expert_wins_valid_seen_samples(version, alfred_samples, alfred_layouts):
    """Six of the samples' valid_seen games, one per task type: all won, but for the 0.4.2 expert's pick-two."""
    tw = games(alfred_samples / "valid_seen", version, alfred_layouts)
    played = play(tw.init_env(batch_size=1), load_expert(version), 6, MAX_STEPS)
    assert len({g.task_type for g in played}) == 6
    lost = [g for g in played if not g.won]
    if version == "0.3":
        assert not lost, [(g.gamefile, g.commands) for g in lost]
    else:
        assert [g.task_type for g in lost] == [PICK_TWO] and lost[0].moved_again("move ")


@pytest.fixture(scope="module")
def valid_seen_tree(alfred_trajectories, tmp_path_factory):
    """valid_seen as ALFWorld keeps it: a json_2.1.0 tree, whose traj_data.json the expert reads."""
    root = tmp_path_factory.mktemp("json_2.1.0") / "valid_seen"
    with gzip.open(alfred_trajectories / "valid_seen.jsonl.gz", "rt") as lines:
        for line in lines:
            folder = root / json.loads(line)["path"].strip("/")
            folder.mkdir(parents=True)
            (folder / "traj_data.json").write_text(line)
    return root


@pytest.fixture(scope="module")
def valid_seen_games(valid_seen_tree, alfred_trajectories, alfred_layouts) -> AlfredTWEnv:
    """valid_seen's 187 ALFWorld games, in its scenes as train's trajectories complete them (ALFWorld's seen
    scenes)."""
    return games(valid_seen_tree, LATEST, alfred_layouts, alfred_trajectories / "train.jsonl.gz")


@pytest.mark.slow
@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_alfworlds_expert_on_valid_seen(version, valid_seen_games):
    expert, tw = load_expert(version), valid_seen_games
    assert tw.num_games == 187
    env = AlfredTWBatchEnv(tw.games, tw.scenes, max_steps=MAX_STEPS, alfworld_version=version)
    played = play(env, expert, tw.num_games, MAX_STEPS)
    print(f"\nALFWorld {version}: {sum(g.won for g in played)}/{len(played)} won in {MAX_STEPS} commands")
    for task_type, (won, total) in by_task_type(played).items():
        print(f"  {task_type:34} {won:3}/{total}")
    for g in played:
        if not g.won:
            print(f"  lost ({g.end} after {g.steps}): {g.gamefile}\n    last commands: {g.commands[-8:]}")
    assert len({g.gamefile for g in played}) == 187
    lost = [g for g in played if not g.won]
    if version == "0.3":
        assert sum(g.won for g in played) >= 0.95 * len(played)
        assert all(g.end == "steps" for g in lost)  # out of commands, still searching
        return
    others = [g for g in played if g.task_type != PICK_TWO]
    assert sum(g.won for g in others) >= 0.95 * len(others)
    assert all(g.end == "steps" for g in lost)
    assert all(g.moved_again("move ") for g in lost if g.task_type == PICK_TWO)


def test_alfworlds_expert_imports_as_in_alfworld_and_plays_a_split_file(alfred_samples, alfred_layouts, tmp_path):
    """`install.sh` installs what `from alfworld.agents.expert import HandCodedTWAgent` needs, so an ALFWorld
    script's import works; and games read from one .jsonl.gz (no traj_data.json beside them) get one written,
    with the task type and pddl_params the expert reads at reset."""
    from alfworld_client import PINS, Expert, _installed

    _installed("alfworld", PINS["alfworld"])  # skips, as the other client tests, where it is not installed
    from alfworld.agents.expert import HandCodedTWAgent
    from alfworld.agents.expert.handcoded_expert import HandCodedAgentFailed, HandCodedAgentTimeout

    split = tmp_path / "valid_seen.jsonl.gz"
    with gzip.open(split, "wt") as lines:
        for file in sorted((alfred_samples / "valid_seen").rglob("traj_data.json")):
            lines.write(json.dumps(json.loads(file.read_text())) + "\n")
    tw = games(split, "0.4", alfred_layouts)
    for gamefile, episode in tw.games.items():
        written = json.loads(open(gamefile).read())
        assert written["task_type"] == episode.goal.task_type and written["task_id"] == episode.id
        assert written["pddl_params"]["object_target"] == episode.goal.object_target
    expert = Expert(HandCodedTWAgent, (HandCodedAgentTimeout, HandCodedAgentFailed))
    played = play(tw.init_env(batch_size=1), expert, 3, MAX_STEPS)
    assert all(g.won for g in played if g.task_type != PICK_TWO) and any(g.won for g in played)
