"""Every command answers a user's mistake with a short message naming what and where, never a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from homesim.cli import app


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    (root / "bad.json").write_text('{"task_type": ')
    (root / "empty").mkdir()
    (root / "dataset").mkdir()
    (root / "dataset" / "dataset.json").write_text('{"version": 1, "suite": "alfred", "splits": {"train": 0}}')
    return root


CASES = [
    (["play", "alfred", "--split", "nosplit", "--episodes", "{root}/dataset"], "no split 'nosplit'"),
    (["play", "alfred", "--split", "nosplit"], "the built-in episodes: --split: they have one split"),
    (["play", "alfred", "--episodes", "{root}/bad.json"], "not valid JSON"),
    (["play", "alfred", "--alfworld-version", "9"], "homesim speaks ALFWorld 0.3 and 0.4"),
    (["play", "alfred", "--episode", "99"], "there are 4 episodes"),
    (["evaluate", "--episodes", "{root}/bad.json", "--out", "{root}/o"], "not valid JSON"),
    (["evaluate", "--episodes", "{root}/empty", "--out", "{root}/o"], "neither a dataset.json nor ALFRED"),
    (["evaluate", "--episodes", "{root}/dataset", "--split", "nosplit", "--out", "{root}/o"], "no split 'nosplit'"),
    (["evaluate", "--agent", "nobody", "--out", "{root}/o"], "unknown agent 'nobody'"),
    (["evaluate", "--pixels", "smell", "--out", "{root}/o"], "some of rgb,depth,segmentation"),
    (["evaluate", "--interaction", "telepathy", "--out", "{root}/o"], "use oracle or mask"),
    (["evaluate", "--backend", "ray", "--ray-address", "127.0.0.1:1", "--out", "{root}/o"], "cannot reach a Ray"),
    (["evaluate", "--backend", "ray", "--ray-address", "nonsense", "--out", "{root}/o"], "is not a Ray address"),
    (["evaluate", "--workers", "1" * 40, "--out", "{root}/o"], "at most"),
    (["evaluate", "--episodes", "/dev/zero", "--out", "{root}/o"], "not a regular file"),
    (["report", "{root}/empty"], "cannot read the evaluation"),
    (["generate", "alfred", "--scenes", "mars", "--out", "{root}/g"], "use procedural or alfred"),
    (["generate", "alfred", "--scenes", "alfred", "--out", "{root}/g"], "--scenes alfred needs --layouts"),
    (["alfred", "replay", "--trajectories", "{root}/bad.json", "--layouts", "{root}/empty"], "not valid JSON"),
    (["alfred", "import-scenes", "--layouts", "{root}/empty", "--out", "{root}/s"], "no floor plans to import"),
    (["render-episode", "{root}/bad.json", "--out", "{root}/v.mp4"], "not valid JSON"),
    (["render-episode", "{root}/bad.json", "--out", "{root}/v.avi"], "must end in"),
]


@pytest.mark.parametrize("args, message", CASES, ids=[" ".join(a[:2]) + f" #{i}" for i, (a, _) in enumerate(CASES)])
def test_a_mistake_gets_a_message_not_a_traceback(files, args, message):
    result = CliRunner().invoke(app, [a.format(root=files) for a in args], env={"COLUMNS": "400"})
    text = " ".join(result.output.split())
    assert result.exit_code != 0
    assert "Traceback" not in result.output and not (
        result.exception and not isinstance(result.exception, SystemExit)
    ), f"{type(result.exception).__name__}: {result.exception}"
    assert message in text, result.output


def _commands(group, path=()):
    """Every sub-command of the app, as the words that name it."""
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name)


def test_help_cuts_nothing_in_an_80_column_terminal():
    import typer.main

    for words in _commands(typer.main.get_command(app)):
        result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0 and "…" not in result.output, (words, result.output)


TRUNCATED = [  # fmt: skip
    ["evaluate", "--episodes", "{cut}", "--layouts", "{layouts}", "--out", "{root}/o"],
    ["alfred", "replay", "--trajectories", "{cut}", "--layouts", "{layouts}"],
    ["alfred", "frames", "--episodes", "{cut}", "--layouts", "{layouts}", "--out", "{root}/f"],
    ["generate", "alfred", "--scenes", "alfred", "--layouts", "{layouts}", "--trajectories", "{cut}",
     "--out", "{root}/g"],
    ["alfred", "import-scenes", "--layouts", "{layouts}", "--trajectories", "{cut}", "--out", "{root}/s"],
]


@pytest.mark.parametrize("args", TRUNCATED, ids=[" ".join(a[:2]) for a in TRUNCATED])
def test_a_truncated_alfred_file_is_named_not_aborted(alfred_trajectories, alfred_layouts, tmp_path, args):
    """Issue 25, item 4: a .jsonl.gz cut short (a download stopped) printed only "Aborted."."""
    cut = tmp_path / "valid_seen.jsonl.gz"
    cut.write_bytes((alfred_trajectories / "valid_seen.jsonl.gz").read_bytes()[:200_000])
    filled = [a.format(cut=cut, layouts=alfred_layouts, root=tmp_path) for a in args]
    result = CliRunner().invoke(app, filled, env={"COLUMNS": "400"})
    assert result.exit_code == 1 and "Aborted" not in result.output
    assert f"{cut}: (file): unreadable after line 125 (cut short?)" in " ".join(result.output.split())


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "--agent", "seq2seq", "--data", "{data}", "--out", "{root}"], "is a folder: give the checkpoint"),
        (["train", "--agent", "seq2seq", "--data", "{data}", "--out", "/proc/t.pt"], "cannot write in /proc"),
        (["generate", "alfred", "--scenes", "alfred", "--layouts", "{root}", "--out", "{root}/g"], "no FloorPlan*"),
        (["generate", "objectnav", "--scenes", "alfred", "--layouts", "{root}", "--out", "{root}/g"], "no FloorPlan*"),
    ],
)
def test_path_errors_name_what_is_wrong_with_the_path(tmp_path, args, message):
    """Issue 25, item 13: "(file): no such checkpoint", an Errno about a .log.jsonl path, "no scenes for split
    train" without a word of the layout files."""
    from homesim.datasets.folder import write_dataset
    from homesim.datasets.handmethat.generate import make_episode

    write_dataset(tmp_path / "data", {"train": [make_episode(0, 0)[0]]}, {}, {}, suite="handmethat")
    filled = [a.format(data=tmp_path / "data", root=tmp_path) for a in args]
    result = CliRunner().invoke(app, filled, env={"COLUMNS": "400"})
    assert result.exit_code != 0 and message in " ".join(result.output.replace("│", " ").split()), result.output
