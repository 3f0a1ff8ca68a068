"""`homesim export-weights`: a finished ALFRED checkpoint without its optimizer state, playing exactly as the
checkpoint it came from, with a card whose digests are those of the weights and the frames' source; the
exported file is never trained on, and bad requests are refused in one line."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import TINY_FRAMES
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.envs.alfred.embodied import AlfredEnv
from homesim.evaluation.runner import run_episode
from homesim.evaluation.suites import load_agent
from homesim.files import digest_of
from homesim.learning.alfred.train import train_alfred
from homesim.learning.export import card_path, list_digest
from homesim.learning.loop import TrainConfig, load_checkpoint
from homesim.learning.request import TrainRequest

pytestmark = pytest.mark.usefixtures("tiny_alfred_frames")  # torch on one thread; skips without headless OpenGL


@pytest.fixture(scope="module")
def trained(tiny_alfred_frames, tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "run.pt"
    config = TrainConfig(epochs=1, max_steps=2, batch_size=2, lr=3e-3)
    train_alfred(TrainRequest("seq2seq_pm", tiny_alfred_frames, out, config))
    return out


def export(checkpoint, out, *more):
    args = ["export-weights", "--checkpoint", str(checkpoint), "--out", str(out), *more]
    return CliRunner().invoke(app, args, env={"COLUMNS": "300"})


def test_the_weights_play_as_the_checkpoint_did_at_a_third_of_its_size(trained, tmp_path, alfred_trajectories,
                                                                       alfred_layouts):  # fmt: skip
    out = tmp_path / "pub" / "s2s_pm.pt"
    result = export(trained, out, "--note", "command=homesim train --agent seq2seq_pm", "--note", "seconds=3")
    assert result.exit_code == 0, result.output
    full, published = load_checkpoint(trained), load_checkpoint(out)
    assert "optimizer" in full and not {"optimizer", "rng"} & published.keys() and published["weights_only"]
    assert all(torch.equal(full["model"][k], published["model"][k]) for k in full["model"])
    assert out.stat().st_size < 0.5 * trained.stat().st_size
    valid_seen = alfred_trajectories / "valid_seen.jsonl.gz"
    read = read_episodes(valid_seen, alfred_layouts)
    env = AlfredEnv(read.all()[:1], read.scenes, max_steps=12, interaction="mask", pixels=("rgb",))
    records = [run_episode(env, load_agent(str(path)), read.all()[0], split="valid_seen") for path in (trained, out)]
    assert records[0].actions == records[1].actions and len(records[0].actions) > 0

    card = json.loads(card_path(out).read_text())
    assert card["sha256"] == digest_of(out) and card["bytes"] == out.stat().st_size
    assert (card["agent"], card["steps"], card["epochs"]) == ("seq2seq_pm", 2, 0)
    assert card["notes"] == {"command": "homesim train --agent seq2seq_pm", "seconds": "3"}
    (data,) = card["data"]
    ids = [e.id for e in read.all()[: TINY_FRAMES["limit"]]]
    assert data["source_sha256"] == digest_of(valid_seen) and data["episodes"] == len(ids) == TINY_FRAMES["limit"]
    assert data["episode_list_sha256"] == list_digest(ids)

    again = tmp_path / "again.pt"
    assert export(trained, again).exit_code == 0
    assert digest_of(again) == card["sha256"]  # the same checkpoint, the same bytes


def test_a_published_file_is_never_trained_on_and_bad_requests_are_one_line(trained, tiny_alfred_frames, tmp_path):
    out = tmp_path / "w.pt"
    assert export(trained, out).exit_code == 0
    result = export(trained, out)
    assert result.exit_code == 2 and "exists: give --overwrite" in result.output
    assert export(trained, out, "--overwrite").exit_code == 0
    result = export(trained, tmp_path / "x.pt", "--note", "command")
    assert result.exit_code == 2 and "give KEY=VALUE" in result.output
    result = export(trained, trained)
    assert result.exit_code == 2 and "is the --checkpoint itself" in result.output

    args = ["train", "--agent", "seq2seq_pm", "--data", str(tiny_alfred_frames), "--out", str(out), "--max-steps", "3"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "a published checkpoint (homesim export-weights) has no optimizer state" in result.output

    cut = tmp_path / "cut.pt"
    config = TrainConfig(epochs=1, max_steps=2, batch_size=2, checkpoint_every=1)
    train_alfred(TrainRequest("seq2seq", tiny_alfred_frames, cut, config))
    torch.save(load_checkpoint(cut) | {"finished": False}, cut)
    result = export(cut, tmp_path / "y.pt")
    assert result.exit_code == 1 and "finished: training has not finished" in result.output
    assert not (tmp_path / "y.pt").exists()
