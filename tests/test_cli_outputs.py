"""What commands write: never over a finished output without --overwrite, never a run into a dataset, and
a replaced folder holds only the new output (issue 25, item 3)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.folder import read_dataset


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_evaluate_refuses_a_finished_run_and_a_dataset(tmp_path):
    code, _ = run("evaluate", "--out", tmp_path / "eval")
    assert code == 0
    code, said = run("evaluate", "--agent", "random", "--out", tmp_path / "eval")
    assert code == 1 and f"{tmp_path / 'eval'} holds a finished evaluation: give --overwrite" in said
    assert '"agent": "expert"' in (tmp_path / "eval" / "run.json").read_text()  # untouched
    code, _ = run("evaluate", "--agent", "random", "--out", tmp_path / "eval", "--overwrite")
    assert code == 0 and '"agent": "random"' in (tmp_path / "eval" / "run.json").read_text()
    code, _ = run("generate", "objectnav", "--houses", "3", "--episodes", "1", "--out", tmp_path / "data")
    assert code == 0
    for overwrite in ((), ("--overwrite",)):
        code, said = run("evaluate", "--episodes", tmp_path / "data", "--out", tmp_path / "data", *overwrite)
        assert code == 1 and "holds a homesim dataset: an evaluation never goes there" in said
    assert read_dataset(tmp_path / "data")  # untouched


def test_generate_over_another_dataset_only_with_overwrite_and_then_without_its_files(tmp_path):
    data = tmp_path / "data"
    code, _ = run("generate", "alfred", "--episodes", "5", "--out", data)
    assert code == 0
    alfred_scenes = set((data / "scenes").iterdir())
    code, said = run("generate", "objectnav", "--houses", "3", "--episodes", "1", "--out", data)
    assert code == 1 and "holds a finished dataset: give --overwrite" in said
    assert set((data / "scenes").iterdir()) == alfred_scenes
    code, _ = run("generate", "objectnav", "--houses", "3", "--episodes", "1", "--out", data, "--overwrite")
    assert code == 0
    assert not alfred_scenes & set((data / "scenes").iterdir()) and not Path(f"{data}.partial").exists()
    assert read_dataset(data, suite="objectnav")
    code, said = run("objectnav", "import-habitat", "--habitat", tmp_path, "--out", data)
    assert code == 1 and "give --overwrite" in said


def test_report_marks_runs_played_on_different_data(tmp_path):
    """Issue 25, item 5: run.json records each split's digest; a table of runs on different data says so."""
    from homesim.datasets.alfred.builtin import builtin_episodes
    from homesim.datasets.folder import write_dataset

    episodes, scenes = builtin_episodes()
    write_dataset(tmp_path / "fewer", {"builtin": episodes[:2]}, scenes, {})
    assert run("evaluate", "--out", tmp_path / "all")[0] == 0
    assert run("evaluate", "--episodes", tmp_path / "fewer", "--out", tmp_path / "some")[0] == 0
    assert run("evaluate", "--seed", "1", "--out", tmp_path / "again")[0] == 0
    code, said = run("report", tmp_path / "all", tmp_path / "again")
    assert code == 0 and "DIFFERENT DATA" not in said
    code, said = run("report", tmp_path / "all", tmp_path / "some")
    assert code == 0 and f"DIFFERENT DATA: split builtin of {tmp_path / 'some'} is not the builtin of" in said


def test_nothing_goes_inside_a_dataset_or_a_run(tmp_path):
    assert run("generate", "handmethat", "--episodes", "3", "--out", tmp_path / "data")[0] == 0
    code, said = run("evaluate", "--episodes", tmp_path / "data", "--out", tmp_path / "data" / "eval")
    assert code == 1 and "is inside" in said and "a homesim dataset: give another --out" in said
    assert not (tmp_path / "data" / "eval").exists() and not (tmp_path / "data" / "eval.partial").exists()
