"""HandMeThat's learned baselines: the demonstrations, Seq2Seq (+ oracles) and DRRN trained a few steps,
checkpoints played through the evaluation suite, and resumption."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from homesim.agents.learned import load_learned  # noqa: E402
from homesim.datasets.folder import write_dataset  # noqa: E402
from homesim.datasets.handmethat.generate import generate  # noqa: E402
from homesim.envs.handmethat import HandMeThatEnv  # noqa: E402
from homesim.evaluation.handmethat.suite import run_handmethat_episode  # noqa: E402
from homesim.learning.handmethat import train as handmethat_train  # noqa: E402
from homesim.learning.handmethat.data import Transcript, demonstrations  # noqa: E402
from homesim.learning.handmethat.drrn import DrrnAgent, DrrnSettings  # noqa: E402
from homesim.learning.handmethat.train import train_handmethat  # noqa: E402
from homesim.learning.loop import TrainConfig, load_checkpoint  # noqa: E402
from homesim.learning.request import TrainRequest  # noqa: E402


@pytest.fixture(autouse=True)
def _small_and_one_thread(monkeypatch):
    monkeypatch.setattr(handmethat_train, "MODEL", {"embed": 16, "hidden": 16})
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def episodes() -> list:
    return sorted((e for split in generate(4, seed=0)[0].values() for e in split), key=lambda e: e.id)


@pytest.fixture(scope="module")
def data(episodes, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hmt") / "data"
    write_dataset(out, {"train": episodes, "test": episodes[:1]}, {}, {"test": True}, suite="handmethat")
    return out


def _train(data: Path, out: Path, agent: str, split: str | None = None, **config) -> object:
    settings = {"epochs": 1, "batch_size": 4, "checkpoint_every": 2, "lr": 3e-3} | config
    return train_handmethat(TrainRequest(agent, data, out, TrainConfig(**settings), split=split))


def _losses(out: Path) -> list[float]:
    return [json.loads(line)["loss"] for line in Path(f"{out}.log.jsonl").read_text().splitlines()]


def test_demonstrations_are_the_expert_commands_with_what_the_model_reads(episodes):
    demos = demonstrations(episodes[:2], "full", oracle="subgoal")
    first = [d for d in demos if d.episode_id == episodes[0].id]
    env = HandMeThatEnv(episodes[:1], observability="full", expert_hints=True)
    text, info = env.reset(options={"episode": 0})
    assert first[0].command == info["expert_command"]
    assert first[0].history == Transcript(text, env.task).text and env.task.strip() not in first[0].history
    assert first[0].context.endswith("subgoal: " + episodes[0].subgoal)
    assert first[1].history.startswith(first[0].history + " [SEP] " + first[0].command + " [SEP] ")
    env.step(first[0].command)


def test_seq2seq_learns_and_its_checkpoint_plays_an_episode(data, episodes, tmp_path):
    out = tmp_path / "s2s.pt"
    _train(data, out, "seq2seq_goal", epochs=8, lr=1e-2)
    losses = _losses(out)
    assert losses[-1] < 0.5 * losses[0]
    agent = load_learned(out, seed=0, suite="handmethat")  # as `homesim evaluate --agent s2s.pt` does
    assert agent.needs_oracle == "goal"
    env = HandMeThatEnv(episodes, observability="full", max_steps=6)
    record = run_handmethat_episode(env, agent, episodes[0], "train")
    assert record.commands == len(record.actions) >= 1
    assert all(isinstance(command, str) for command, _ in record.actions)


def test_oracle_only_for_agents_that_ask(episodes):
    seen = []

    class Spy:
        def __init__(self, oracle=None):
            self.needs_oracle = oracle

        def reset(self, task):
            pass

        def act(self, observation):
            seen.append(observation.get("oracle"))
            return "stop"

    env = HandMeThatEnv(episodes, observability="full")
    for spy in (Spy(), Spy("subgoal")):
        run_handmethat_episode(env, spy, episodes[0], "train")
    assert seen == [None, episodes[0].subgoal]


def test_drrn_chooses_only_admissible_commands_and_resumes_to_the_same_weights(data, episodes, tmp_path, monkeypatch):
    monkeypatch.setattr(handmethat_train, "DRRN", DrrnSettings(episodes_per_epoch=2, updates_per_epoch=4))
    whole, stopped = tmp_path / "whole.pt", tmp_path / "stopped.pt"
    _train(data, whole, "drrn", epochs=2)
    _train(data, stopped, "drrn", epochs=2, max_steps=6)  # stops in epoch 2
    checkpoint = torch.load(stopped, weights_only=True)
    checkpoint["finished"], checkpoint["config"]["max_steps"] = False, None  # as if killed there
    torch.save(checkpoint, stopped)
    Path(f"{stopped}.plays.jsonl").write_text(Path(f"{stopped}.plays.jsonl").read_text() + '{"epoch": 1, "pl')
    _train(data, stopped, "drrn", epochs=2)
    a, b = load_checkpoint(whole)["model"], load_checkpoint(stopped)["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)

    agent = DrrnAgent(load_checkpoint(whole))
    env = HandMeThatEnv(episodes, observability="full", max_steps=8)
    commands_offered = []

    class Watch:
        needs_oracle = None

        def reset(self, task):
            agent.reset(task)

        def act(self, observation):
            commands_offered.append(observation["admissible_commands"])
            return agent.act(observation)

    record = run_handmethat_episode(env, Watch(), episodes[1], "train")
    assert len(record.actions) == len(commands_offered) > 0
    assert all(said in offered for (said, _), offered in zip(record.actions, commands_offered, strict=True))
    assert all(record.action_success)


def test_train_and_evaluate_from_the_command_line(data, tmp_path):
    from typer.testing import CliRunner

    from homesim.cli import app

    out = tmp_path / "drrn.pt"
    runner = CliRunner()
    trained = runner.invoke(app, ["train", "--agent", "drrn", "--data", str(data), "--out", str(out), "--max-steps", "1"])
    assert trained.exit_code == 0, trained.output
    describe = load_checkpoint(out)["describe"]
    assert (describe["agent"], describe["observability"]) == ("drrn", "partial")
    evaluate = ["evaluate", "--agent", str(out), "--episodes", str(data), "--split", "test", "--out", str(tmp_path / "eval")]
    evaluated = runner.invoke(app, evaluate)
    assert evaluated.exit_code == 0, evaluated.output
    assert len((tmp_path / "eval" / "records.jsonl").read_text().splitlines()) == 1
    assert json.loads((tmp_path / "eval" / "run.json").read_text())["options"] == {"observability": "partial"}
    other_game = runner.invoke(app, [*evaluate, "--observability", "full"])  # evaluated in the game it learned
    assert other_game.exit_code == 2 and "trained in the partial game" in other_game.output
    refused = runner.invoke(app, ["train", "--agent", "seq2seq_pm", "--data", str(data), "--out", str(out)])
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert refused.output.strip().splitlines()[-1].startswith("Error: --agent 'seq2seq_pm'")


def test_an_exported_checkpoint_plays_and_its_card_names_the_episodes_it_learned_from(data, episodes, tmp_path):
    import subprocess

    from homesim.files import digest_of
    from homesim.learning.export import export_weights, list_digest

    out = tmp_path / "s2s.pt"
    _train(data, out, "seq2seq", max_steps=1)
    card = export_weights(out, tmp_path / "pub.pt", {})
    assert card["sha256"] == digest_of(tmp_path / "pub.pt") and card["agent"] == "seq2seq"
    (learned,) = card["data"]
    tree = "find * -type f | LC_ALL=C sort | xargs sha256sum | sha256sum"  # the card's digest of a folder
    by_shell = subprocess.run(tree, shell=True, cwd=data, capture_output=True, text=True, check=True).stdout.split()[0]
    assert learned["sha256"] == "sha256:" + by_shell and learned["split"] == "train"
    assert learned["episode_list_sha256"] == list_digest([e.id for e in episodes]) and learned["episodes"] == 4
    agent = load_learned(tmp_path / "pub.pt", seed=0, suite="handmethat")
    record = run_handmethat_episode(HandMeThatEnv(episodes, max_steps=3), agent, episodes[0], "train")
    assert record.actions


def test_the_authors_layout_keeps_its_splits_and_any_folder_name_trains(episodes, tmp_path):
    """`generate handmethat --format handmethat` writes their layout (an index of train/validate/test): they stay
    three splits; a flat folder of the authors' files (named anything, as their `samples/`) is one split."""
    from homesim.datasets.handmethat.export import write_handmethat
    from homesim.datasets.sources import read_episodes
    from homesim.errors import DataError

    theirs = tmp_path / "theirs"
    write_handmethat(theirs, {"train": episodes[:2], "validation": episodes[2:3], "test": episodes[3:]})
    (theirs / "generation.json").write_text("{}")  # the generator's summary beside the splits: no episode
    read = read_episodes(theirs)
    assert {k: len(v) for k, v in read.splits.items()} == {"test": 1, "train": 2, "validation": 1}
    assert not read.skipped
    assert [e.id for e in read_episodes(theirs, split="train").all()] == [e.id for e in episodes[:2]]
    with pytest.raises(DataError, match="make the splits 'test', 'train', 'validation', not 'val'"):
        read_episodes(theirs, split="val")
    samples = tmp_path / "samples"
    write_handmethat(tmp_path / "written", {"samples": episodes[:2]})
    (tmp_path / "written" / "HandMeThat_with_expert_demonstration").rename(samples)  # their files, loose
    result = _train(samples, tmp_path / "flat.pt", "seq2seq", max_steps=1)
    assert result.steps == 1 and load_checkpoint(tmp_path / "flat.pt")["describe"]["split"] == "samples"
    _train(theirs, tmp_path / "val.pt", "seq2seq", max_steps=1, split="validation")
    assert load_checkpoint(tmp_path / "val.pt")["describe"]["episodes"] == 1
    with pytest.raises(ValueError, match="make the splits 'test', 'train', 'validation', not 'nope'"):
        train_handmethat(TrainRequest("seq2seq", theirs, tmp_path / "x.pt", TrainConfig(), split="nope"))
    held_out = tmp_path / "held_out"
    write_handmethat(held_out, {"validation": episodes[:1], "test": episodes[1:2]})
    with pytest.raises(ValueError, match="has the splits test, validation: choose one with --split"):
        train_handmethat(TrainRequest("seq2seq", held_out, tmp_path / "x.pt", TrainConfig()))


def test_train_says_why_it_stopped_and_what_an_interruption_kept(data, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from homesim.cli import app
    from homesim.learning.handmethat import seq2seq

    def said(*extra):
        args = ["train", "--agent", "seq2seq", "--data", str(data), "--batch-size", "1", *extra]
        result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
        return result.exit_code, " ".join(result.output.split())

    out = str(tmp_path / "m.pt")
    code, text = said("--out", out, "--max-steps", "2")
    assert code == 0 and "epochs completed" in text
    assert "stopped at --max-steps 2, 2 batches into epoch 1 (" in text and "optimisation steps an epoch)" in text
    code, text = said("--out", out, "--max-steps", "2")
    assert code == 0 and f"{out} had finished this budget before (at step 2): nothing more to train" in text
    code, text = said("--out", str(tmp_path / "e.pt"), "--max-steps", "100000")
    assert code == 0 and "stopped after --epochs 1 (" in text and "before --max-steps 100000" in text
    calls = []
    loss = seq2seq.imitation_loss

    def interrupted(model, batch):  # Ctrl-C in the fifth step
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return loss(model, batch)

    monkeypatch.setattr(seq2seq, "imitation_loss", interrupted)
    code, text = said("--out", str(tmp_path / "i.pt"), "--checkpoint-every", "2", "--epochs", "3")
    assert code == 130 and f"interrupted: {tmp_path / 'i.pt'} keeps the checkpoint of step 4; the same command" in text
