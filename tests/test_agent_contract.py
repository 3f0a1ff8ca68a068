"""The agent contract as a user meets it: an agent class is named by module path or by file, made with `seed=`
when it takes one and with nothing otherwise; a module the working directory holds but Python does not search
gets a hint; `homesim new-agent` writes a template that runs as it is, for every suite."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.evaluation.records import read_records
from homesim.evaluation.suites import SUITES, load_agent

AGENT = """
from homesim.agents.protocol import AgentAction


class MyAgent:
    def reset(self, task):
        pass

    def act(self, observation):
        return AgentAction("Stop")


class Seeded(MyAgent):
    def __init__(self, seed=0):
        self.seed = seed


class Needy(MyAgent):
    def __init__(self, model_path):
        self.model_path = model_path
"""


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


@pytest.fixture
def package(tmp_path, monkeypatch):
    """my_package/my_agent.py in a working directory that is not on Python's path (as for the homesim script)."""
    (tmp_path / "my_package").mkdir()
    (tmp_path / "my_package" / "__init__.py").write_text("")
    (tmp_path / "my_package" / "my_agent.py").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    for name in [m for m in sys.modules if m.startswith("my_package")]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


def test_an_agent_class_without_seed_is_made_with_no_arguments(package, monkeypatch):
    monkeypatch.syspath_prepend(str(package))
    agent = load_agent("my_package.my_agent:MyAgent", seed=5)
    assert type(agent).__name__ == "MyAgent"
    assert load_agent("my_package.my_agent:Seeded", seed=5).seed == 5


def test_an_agent_is_named_by_its_file(package):
    assert load_agent("my_package/my_agent.py:Seeded", seed=3).seed == 3
    with pytest.raises(ValueError, match="no file nowhere.py"):
        load_agent("nowhere.py:MyAgent")
    with pytest.raises(ValueError, match="has no 'Nobody'"):
        load_agent("my_package/my_agent.py:Nobody")


def test_a_module_in_the_working_directory_gets_a_hint(package):
    with pytest.raises(ValueError) as raised:
        load_agent("my_package.my_agent:MyAgent")
    said = str(raised.value)
    assert "No module named 'my_package'" in said and "PYTHONPATH=." in said
    assert "--agent my_package/my_agent.py:MyAgent" in said
    with pytest.raises(ValueError, match="is it installed, or on PYTHONPATH"):
        load_agent("not_here_at_all.agent:MyAgent")


def test_a_constructor_that_needs_more_is_one_line(package):
    with pytest.raises(ValueError, match=r"cannot make agent .*Needy.*model_path.*Class\(seed=\.\.\.\) or Class\(\)"):
        load_agent("my_package/my_agent.py:Needy")


def test_evaluate_runs_an_agent_written_as_the_readme_says(package):
    result = run("evaluate", "--agent", "my_package/my_agent.py:MyAgent", "--out", package / "out")
    assert result.exit_code == 0, result.output
    records = read_records(package / "out" / "records.jsonl")
    assert records and all(r.end_reason == "stop" for r in records)
    result = run("evaluate", "--agent", "my_package.my_agent:MyAgent", "--out", package / "out2")
    assert result.exit_code != 0 and "PYTHONPATH=." in " ".join(result.output.split())


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_new_agent_writes_a_template_that_runs(suite, tmp_path):
    file = tmp_path / f"{suite}_agent.py"
    result = run("new-agent", file, "--suite", suite)
    assert result.exit_code == 0, result.output
    assert f"--agent {file}:MyAgent" in " ".join(result.output.split())
    result = run("evaluate", "--suite", suite, "--agent", f"{file}:MyAgent", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    records = read_records(tmp_path / "out" / "records.jsonl")
    assert records and all(r.suite == suite for r in records)
    assert not any("agent raised" in str(reason) for r in records for _, reason in r.failures)
    again = run("new-agent", file, "--suite", suite)
    assert again.exit_code != 0 and "exists" in again.output
