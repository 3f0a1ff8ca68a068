"""Runs and datasets for the tests of homesim's pages (view, play --web, annotate), made once per session: a
small generated ALFRED dataset with the expert's and the random agent's evaluations, and an ObjectNav dataset
with its expert's."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.evaluation.evaluate import EvaluationConfig, evaluate


def homesim(*args: str) -> str:
    """Runs a homesim command in this process; its output (it must succeed)."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def evaluated(dataset: Path, agent: str, out: Path, split: str | None = None) -> Path:
    read = read_episodes(dataset, split=split)
    evaluate(read.splits, read.scenes, EvaluationConfig(agent=agent, suite=read.suite), out)
    return out


@pytest.fixture(scope="session")
def alfred_runs(tmp_path_factory) -> dict[str, Path]:
    """{"dataset", "expert", "random"}: 8 generated ALFRED demonstrations and two evaluations of them."""
    folder = tmp_path_factory.mktemp("alfred-runs")
    homesim("generate", "alfred", "--episodes", "8", "--out", str(folder / "dataset"))
    return {
        "dataset": folder / "dataset",
        "expert": evaluated(folder / "dataset", "expert", folder / "expert"),
        "random": evaluated(folder / "dataset", "random", folder / "random"),
    }


@pytest.fixture(scope="session")
def objectnav_run(tmp_path_factory) -> dict[str, Path]:
    """{"dataset", "expert"}: a generated ObjectNav dataset (3 houses) and its expert's run on val."""
    folder = tmp_path_factory.mktemp("objectnav-run")
    homesim("generate", "objectnav", "--houses", "3", "--episodes", "2", "--out", str(folder / "dataset"))
    return {"dataset": folder / "dataset", "expert": evaluated(folder / "dataset", "expert", folder / "expert", "val")}
