"""ObjectNav's PPO agent (`learning.objectnav`): a few updates on the batched env, resumption to the same
weights, the batched env's snapshots, and the checkpoint playing through the evaluator (each episode the same
whatever came before it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from homesim.agents.learned import load_learned  # noqa: E402
from homesim.datasets.folder import write_dataset  # noqa: E402
from homesim.datasets.objectnav.builtin import builtin_objectnav  # noqa: E402
from homesim.envs.objectnav.vector import ObjectNavVectorEnv  # noqa: E402
from homesim.evaluation.evaluate import EvaluationConfig, evaluate  # noqa: E402
from homesim.evaluation.objectnav.suite import objectnav_options  # noqa: E402
from homesim.envs.objectnav.episodes import objectnav_episodes  # noqa: E402
from homesim.learning.export import export_weights, list_digest, source_digest  # noqa: E402
from homesim.learning.loop import TrainConfig, load_checkpoint  # noqa: E402
from homesim.learning.objectnav import train as objectnav_train  # noqa: E402
from homesim.learning.objectnav.policy import IMAGE, downsampled  # noqa: E402
from homesim.learning.objectnav.ppo import PPOSettings  # noqa: E402
from homesim.learning.objectnav.train import TRAINER, train_objectnav  # noqa: E402
from homesim.learning.request import TrainRequest  # noqa: E402
from homesim.render import RenderingUnavailable  # noqa: E402

ENTRY_POINTS = """[homesim.checkpoints]
objectnav.ppo = homesim.learning.objectnav.agent:ppo_agent
"""


@pytest.fixture(autouse=True)
def _small_and_one_thread(monkeypatch):
    monkeypatch.setattr(objectnav_train, "PPO", PPOSettings(rollout=8, hidden=32))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    episodes, scenes = builtin_objectnav()
    out = tmp_path_factory.mktemp("objectnav") / "data"
    write_dataset(out, {"train": episodes[:6], "val": episodes[6:]}, scenes, {"test": True}, suite="objectnav")
    return out


@pytest.fixture
def registered(tmp_path, monkeypatch):
    """The checkpoint builder as pyproject.toml declares it, whether or not this install has it yet."""
    info = tmp_path / "entry" / "homesim_objectnav_ppo-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: homesim-objectnav-ppo\nVersion: 0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(info.parent))


def _train(data: Path, out: Path, **config):
    settings = {"max_steps": 2, "batch_size": 3, "checkpoint_every": 1, "lr": 1e-3} | config
    try:
        return train_objectnav(TrainRequest("ppo", data, out, TrainConfig(**settings)))
    except RenderingUnavailable as e:
        pytest.skip(str(e))


def test_ppo_trains_logs_and_resumes_to_the_same_weights(data, tmp_path):
    assert TRAINER.accepts(data) and not TRAINER.accepts(tmp_path)
    whole, halves = tmp_path / "whole.pt", tmp_path / "halves.pt"
    result = _train(data, whole, max_steps=3)
    log = [json.loads(line) for line in Path(f"{whole}.log.jsonl").read_text().splitlines()]
    assert result.steps == 3 and [line["step"] for line in log] == [1, 2, 3]
    assert log[-1]["frames"] == 3 * 8 * 3 and all(np.isfinite(line["loss"]) for line in log)
    _train(data, halves, max_steps=1)  # a run stopped after one update ...
    _train(data, halves, max_steps=3)  # ... and resumed
    a, b = load_checkpoint(whole), load_checkpoint(halves)
    assert a["finished"] and b["finished"] and b["step"] == 3
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert _log_but_time(whole) == _log_but_time(halves)
    again = _train(data, whole, max_steps=3)  # a finished run of this budget: nothing more to train
    assert (again.stopped, again.steps, result.stopped) == ("done before", 3, "max_steps")


def _log_but_time(out: Path) -> list[dict]:
    lines = Path(f"{out}.log.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]


def test_bad_requests_are_one_line_errors(data, tmp_path):
    with pytest.raises(ValueError, match="--agent 'dqn'"):
        train_objectnav(TrainRequest("dqn", data, tmp_path / "x.pt", TrainConfig(max_steps=1)))
    with pytest.raises(ValueError, match="--max-steps"):
        train_objectnav(TrainRequest("ppo", data, tmp_path / "x.pt", TrainConfig()))
    with pytest.raises(ValueError, match="--workers"):
        train_objectnav(TrainRequest("ppo", data, tmp_path / "x.pt", TrainConfig(max_steps=1), workers=2))
    with pytest.raises(ValueError, match="--split"):
        train_objectnav(TrainRequest("ppo", data, tmp_path / "x.pt", TrainConfig(max_steps=1), split="val"))


def test_a_snapshot_restores_every_env_exactly():
    episodes, scenes = builtin_objectnav()
    a, b = ObjectNavVectorEnv(5, episodes, scenes, max_steps=9), ObjectNavVectorEnv(5, episodes, scenes, max_steps=9)
    a.reset(seed=4)
    actions = np.random.default_rng(0).integers(0, 6, size=(40, 5))
    for step in actions[:20]:
        a.step(step)
    observations = b.restore(json.loads(json.dumps(a.snapshot())))  # as plain JSON-like values survive
    assert all(np.array_equal(observations[k], a._observation()[k]) for k in observations)
    for step in actions[20:]:
        first, second = a.step(step), b.step(step)
        assert all(np.array_equal(first[0][k], second[0][k]) for k in first[0])
        assert np.array_equal(first[1], second[1]) and list(first[4]["episode_id"]) == list(second[4]["episode_id"])


def test_the_policy_reads_full_frames_at_its_size():
    frame = np.arange(480 * 640).reshape(480, 640)
    small = downsampled(frame[None])
    assert small.shape == (1, *IMAGE) and small[0, 0, 0] == frame[5, 5] and small[0, -1, -1] == frame[475, 635]


def test_the_checkpoint_plays_through_the_evaluator_whatever_the_order(data, tmp_path, registered):
    """Each episode plays the same, whichever episodes came before it (as with any number of workers; these
    run in this process, which has made OpenGL contexts: forked workers could not render)."""
    out = tmp_path / "ppo.pt"
    _train(data, out, max_steps=1)
    agent = load_learned(out, seed=0, suite="objectnav")
    assert agent.observations == ("depth", "semantic")
    episodes, scenes = builtin_objectnav()
    config = EvaluationConfig(agent=str(out), suite="objectnav", options=objectnav_options(), max_steps=12)
    played = []
    for k, order in enumerate((episodes[5:], episodes[5:][::-1])):
        evaluate({"val": order}, scenes, config, tmp_path / f"eval{k}")
        records = [json.loads(line) for line in (tmp_path / f"eval{k}" / "records.jsonl").read_text().splitlines()]
        played.append({r["episode_id"]: r["actions"] for r in records})
    assert played[0] == played[1] and len(played[0]) == 3
    assert any(len(actions) > 1 for actions in played[0].values())


def test_an_unfinished_or_foreign_checkpoint_does_not_play(data, tmp_path, registered):
    out = tmp_path / "ppo.pt"
    _train(data, out, max_steps=1)
    checkpoint = load_checkpoint(out)
    torch.save(checkpoint | {"finished": False}, tmp_path / "unfinished.pt")
    with pytest.raises(ValueError, match="training has not finished"):
        load_learned(tmp_path / "unfinished.pt", suite="objectnav")
    with pytest.raises(ValueError, match="objectnav checkpoint cannot play alfred"):
        load_learned(out, suite="alfred")


@pytest.mark.slow
def test_homesim_evaluate_plays_a_checkpoint_alike_on_1_and_2_workers(data, tmp_path, registered):
    """The command, in fresh processes (forked workers render: the process that forks them must have made no
    OpenGL context, and have run no torch operation, or its children hang)."""
    out = tmp_path / "ppo.pt"
    _train(data, out, max_steps=1)
    environment = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    records = []
    for workers in (1, 2):
        folder = tmp_path / f"eval{workers}"
        command = ["evaluate", "--episodes", str(data), "--split", "val", "--agent", str(out), "--out", str(folder)]
        subprocess.run(
            [sys.executable, "-m", "homesim", *command, "--workers", str(workers)],
            env=environment, check=True, timeout=600, capture_output=True,
        )  # fmt: skip
        records.append((folder / "records.jsonl").read_text())
    assert records[0] == records[1] and len(records[0].splitlines()) == 2


def test_an_exported_checkpoint_names_its_dataset_by_digest(data, tmp_path, registered):
    """The card of a published PPO checkpoint says which episodes it learned from (issue 25's cards)."""
    out = tmp_path / "ppo.pt"
    _train(data, out, max_steps=1)
    card = export_weights(out, tmp_path / "weights.pt", {})
    ids = [e.id for e in objectnav_episodes(data, None, "train")[0]]
    (source,) = card["data"]
    assert source["split"] == "train" and source["episodes"] == len(ids) == 6
    assert source["episode_list_sha256"] == list_digest(ids) and source["sha256"] == source_digest(data)


def test_the_curve_bench_keeps_its_points_and_refuses_other_settings(data, tmp_path):
    """bench/objectnav_ppo_curve.py --json: a point measured before is read back, not played again; a file of
    other settings is a one-line refusal."""
    out = tmp_path / "ppo.pt"
    _train(data, out, max_steps=1)
    bench = Path(__file__).parents[1] / "bench" / "objectnav_ppo_curve.py"
    curve = tmp_path / "curve.json"

    def run(*extra):
        command = [sys.executable, str(bench), "--episodes", str(data), str(out), "--json", str(curve)]
        return subprocess.run([*command, "--plot", str(tmp_path / "c.png"), *extra], capture_output=True, text=True)

    first = run("--count", "2")
    assert first.returncode == 0, first.stderr
    points = json.loads(curve.read_text())["points"]
    assert [p["frames"] for p in points] == [0, 8 * 3]
    written = json.loads(curve.read_text())
    written["points"][1]["success"] = [0.5, 0.25, 0.75]  # a mark that no play of 2 episodes gives
    curve.write_text(json.dumps(written))
    again = run("--count", "2")
    assert again.returncode == 0, again.stderr
    assert "success  50.0% [25.0, 75.0]" in again.stdout
    other = run("--count", "3")
    assert other.returncode != 0 and "points of other settings" in other.stderr
    assert json.loads(curve.read_text()) == written
