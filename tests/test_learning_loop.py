"""The shared training loop: it learns, its checkpoints resume to the same weights, bad files are one line."""

import zipfile

import pytest
import torch
from typer.testing import CliRunner

from homesim.cli import app
from homesim.errors import DataError
from homesim.evaluation.suites import load_agent
from homesim.learning.loop import TrainConfig, load_checkpoint, train
from homesim.learning.vocab import Vocab, tokenize

torch.set_num_threads(1)
POINTS = torch.linspace(-1, 1, 64).unsqueeze(1)
TARGETS = 3 * POINTS - 0.5


def model(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)  # dropout makes the RNG state part of what a resumed run must restore
    return torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Dropout(0.1), torch.nn.Tanh(), torch.nn.Linear(16, 1))


def batches(epoch: int, generator: torch.Generator) -> list[torch.Tensor]:
    order = torch.randperm(len(POINTS), generator=generator)
    return [order[i : i + 8] for i in range(0, len(order), 8)]


def mse(net: torch.nn.Module, rows: torch.Tensor) -> dict[str, torch.Tensor]:
    loss = torch.nn.functional.mse_loss(net(POINTS[rows]), TARGETS[rows])
    return {"loss": loss, "mse": loss.detach()}


CONFIG = TrainConfig(epochs=3, lr=1e-2, checkpoint_every=5)
DESCRIBE = {"suite": "toy", "agent": "mlp"}


def test_training_lowers_the_loss_and_logs_it(tmp_path):
    net = model(0)
    with torch.no_grad():
        before = float(mse(net.eval(), torch.arange(64))["loss"])
    result = train(net, mse, batches, tmp_path / "m.pt", CONFIG, DESCRIBE)
    assert (result.steps, result.epochs) == (24, 3)
    with torch.no_grad():
        assert float(mse(net.eval(), torch.arange(64))["loss"]) < before / 2
    log = result.log.read_text().splitlines()
    assert len(log) == 5 and '"mse"' in log[0]  # every 5 steps, and the end
    assert load_checkpoint(tmp_path / "m.pt")["finished"]


def test_a_killed_run_resumes_to_the_same_weights(tmp_path):
    whole = model(0)
    train(whole, mse, batches, tmp_path / "whole.pt", CONFIG, DESCRIBE)

    calls = 0

    def dies_at_step_13(net, rows):
        nonlocal calls
        calls += 1
        if calls == 13:
            raise KeyboardInterrupt
        return mse(net, rows)

    with pytest.raises(KeyboardInterrupt):
        train(model(0), dies_at_step_13, batches, tmp_path / "cut.pt", CONFIG, DESCRIBE)
    assert load_checkpoint(tmp_path / "cut.pt")["step"] == 10
    resumed = model(7)  # whatever it starts from, the checkpoint's weights are loaded
    result = train(resumed, mse, batches, tmp_path / "cut.pt", CONFIG, DESCRIBE)
    assert result.steps == 24
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert result.log.read_text() == (tmp_path / "whole.pt.log.jsonl").read_text()


def test_a_finished_run_given_more_steps_trains_on_to_the_weights_of_the_longer_run(tmp_path):
    longer = model(0)
    train(longer, mse, batches, tmp_path / "long.pt", TrainConfig(epochs=2, max_steps=11), DESCRIBE)
    assert train(model(0), mse, batches, tmp_path / "m.pt", TrainConfig(epochs=2, max_steps=5), DESCRIBE).steps == 5
    again = train(model(3), mse, batches, tmp_path / "m.pt", TrainConfig(epochs=2, max_steps=5), DESCRIBE)
    assert again.steps == 5  # nothing more asked: left as it is
    extended = model(3)
    assert train(extended, mse, batches, tmp_path / "m.pt", TrainConfig(epochs=2, max_steps=11), DESCRIBE).steps == 11
    for a, b in zip(longer.state_dict().values(), extended.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_max_steps_stops_early_and_another_runs_checkpoint_is_not_overwritten(tmp_path):
    out = tmp_path / "m.pt"
    assert train(model(0), mse, batches, out, TrainConfig(epochs=3, max_steps=4), DESCRIBE).steps == 4
    with pytest.raises(DataError, match="another run"):
        train(model(0), mse, batches, out, TrainConfig(epochs=3, max_steps=4), DESCRIBE | {"agent": "other"})


def test_bad_checkpoints_are_one_line_errors(tmp_path):
    with pytest.raises(DataError, match="no such checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
    (tmp_path / "garbage.pt").write_bytes(b"not a zip")
    (tmp_path / "notes.pt").write_text("my notes about the run\n")
    for name in ("garbage.pt", "notes.pt"):
        with pytest.raises(DataError, match="not a homesim checkpoint, or one cut short") as raised:
            load_checkpoint(tmp_path / name)
        assert "weights_only" not in str(raised.value) and "\n" not in str(raised.value)
    torch.save({"weights": torch.zeros(2)}, tmp_path / "whole.pt")
    (tmp_path / "cut.pt").write_bytes((tmp_path / "whole.pt").read_bytes()[:-100])
    with pytest.raises(DataError, match="or one cut short"):
        load_checkpoint(tmp_path / "cut.pt")
    with zipfile.ZipFile(tmp_path / "other.pt", "w") as archive:
        archive.writestr("readme.txt", "a zip, but not PyTorch's")
    with pytest.raises(DataError, match="a damaged or foreign PyTorch file") as raised:
        load_checkpoint(tmp_path / "other.pt")
    assert "weights_only" not in str(raised.value) and "\n" not in str(raised.value)
    torch.save({"weights": torch.zeros(2)}, tmp_path / "foreign.pt")
    with pytest.raises(DataError, match="not a homesim checkpoint"):
        load_agent(str(tmp_path / "foreign.pt"))


def test_an_unfinished_or_other_suites_checkpoint_does_not_play(tmp_path):
    out = tmp_path / "m.pt"
    train(model(0), mse, batches, out, TrainConfig(max_steps=2), DESCRIBE)
    with pytest.raises(ValueError, match="a toy checkpoint cannot play alfred"):
        load_agent(str(out), suite="alfred")


def test_the_vocabulary_is_deterministic_and_round_trips():
    texts = ["Pick up the apple.", "put the apple in the fridge", "the end"]
    vocab = Vocab.build(texts)
    assert vocab.words[5:8] == ["the", "apple", "."]  # most frequent first, ties by the word
    assert Vocab.build(reversed(texts)).words == vocab.words
    assert vocab.encode("the banana") == [vocab.index["the"], Vocab.UNK]
    assert Vocab.from_dict(vocab.to_dict()).words == vocab.words
    assert vocab.decode(vocab.encode("put the apple")) == "put the apple"
    words = ["walk", "to", "the", "sink", ",", "then", "turn", "left", "."]
    assert tokenize("Walk to the sink, then turn left.") == words


def test_train_refuses_data_that_is_not_training_data(tmp_path):
    (tmp_path / "x.json").write_text('{"plan": 1, "scene": 2, "task_type": "x"}')
    data = str(tmp_path / "x.json")
    result = CliRunner().invoke(app, ["train", "--agent", "seq2seq", "--data", data, "--out", "m.pt"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("Error: --data")
    assert "not training data" in result.output and "Traceback" not in result.output


def test_report_plots_training_curves_of_checkpoints(tmp_path):
    """`homesim report A.pt B.pt.log.jsonl --plot curves.png`: a panel per logged figure, a line per run."""
    import numpy as np
    from PIL import Image

    from homesim.learning.curves import COLOURS, PANEL_HEIGHT, WIDTH

    train(model(0), mse, batches, tmp_path / "a.pt", CONFIG, DESCRIBE)
    train(model(1), mse, batches, tmp_path / "b.pt", TrainConfig(epochs=2, lr=1e-3, checkpoint_every=3), DESCRIBE)
    out = tmp_path / "plots" / "curves.png"
    args = ["report", str(tmp_path / "a.pt"), str(tmp_path / "b.pt.log.jsonl"), "--plot", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert said.startswith("loss, mse of ") and "(a.pt: step 24, b.pt: step 16) drawn to" in said
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (24 + 2 * PANEL_HEIGHT, WIDTH, 3)
    for top in (24, 24 + PANEL_HEIGHT):  # each panel holds both runs' lines
        panel = image[top : top + PANEL_HEIGHT]
        assert all((panel == colour).all(axis=-1).sum() > 20 for colour in COLOURS[:2])
    (tmp_path / "c.pt.log.jsonl").write_text('{"step": 1, "loss": 0.5}\n{"loss": 0.4}\n')
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "c.pt"), "--plot", str(out)], env={"COLUMNS": "300"})
    assert bad.exit_code == 1 and "c.pt.log.jsonl:2: step: missing" in bad.output  # c.pt itself need not exist
    gone = CliRunner().invoke(app, ["report", str(tmp_path / "d.pt"), "--plot", str(out)], env={"COLUMNS": "300"})
    assert gone.exit_code == 1 and "d.pt.log.jsonl: (file): no training log" in gone.output
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "c.pt.log.jsonl"), "--plot", str(out)])
    assert bad.exit_code == 1 and "c.pt.log.jsonl:2: step: missing" in bad.output and "Traceback" not in bad.output
    (tmp_path / "d.pt").write_bytes(b"")
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "d.pt"), "--plot", str(out)])
    assert bad.exit_code == 1 and "d.pt.log.jsonl: (file): no training log" in bad.output
