"""An agent that raises ends its episode there, with why in the record, in every suite; an evaluation in
which every episode ended so exits non-zero (issue 25, item 16)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.folder import write_dataset
from homesim.evaluation.records import read_records


class AlwaysRaises:
    def __init__(self, seed: int = 0) -> None:
        pass

    def reset(self, task) -> None:
        pass

    def act(self, observation):
        raise ZeroDivisionError("the policy divided by zero")


class NoReset:
    def __init__(self, seed: int = 0) -> None:
        pass

    def act(self, observation):
        raise AssertionError("never asked: it has no reset")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict:
    from homesim.datasets.handmethat.generate import make_episode
    from homesim.datasets.objectnav.generate import generate

    root = tmp_path_factory.mktemp("data")
    splits, scenes, _ = generate(3, 1, seed=0)
    write_dataset(root / "objectnav", splits, scenes, {}, suite="objectnav")
    write_dataset(root / "handmethat", {"test": [make_episode(0, i)[0] for i in range(2)]}, {}, {}, suite="handmethat")
    return {
        "alfred": (),
        "objectnav": ("--episodes", root / "objectnav"),
        "handmethat": ("--episodes", root / "handmethat"),
    }


@pytest.mark.parametrize("suite", ["alfred", "objectnav", "handmethat"])
@pytest.mark.parametrize("agent, why", [("AlwaysRaises", "ZeroDivisionError in act"), ("NoReset", "in reset")])
def test_every_episode_ending_at_the_agents_exception_exits_non_zero(datasets, tmp_path, suite, agent, why):
    args = ["evaluate", *datasets[suite], "--agent", f"{__name__}:{agent}", "--out", tmp_path / "run"]
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "every episode ended at an exception of the agent" in said, said
    records = read_records(tmp_path / "run" / "records.jsonl")
    assert records and all(r.end_reason == "agent_error" and r.path_length == 0 for r in records)
    assert all(len(r.failures) == 1 and why in r.failures[0][1] for r in records)
