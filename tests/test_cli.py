"""The `homesim` command, run in-process with typer's CliRunner: `alfred replay`, `alfred import-scenes`
and `rooms` (the built-in default, which needs no data)."""

from __future__ import annotations

import json
from pathlib import Path

from replay_expectations import SUMMARY_KEYS
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.alfred.trajectories import read_trajectories
from homesim.scenes.alfred import build_scene, gather_evidence
from homesim.tasks.alfred import TASK_TYPES
from homesim.world.scene import Scene
from homesim.world.state import State


def run(*args: str | Path):
    # A wide terminal, so that error panels do not wrap the long paths they name.
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def said(result) -> str:
    """What the user sees: the output, and the message of an exception that ended the command."""
    text = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += f"\n{type(result.exception).__name__}: {result.exception}"
    return text


# --- alfred replay -------------------------------------------------------------------------------------------


def test_replay_the_samples_prints_the_table_and_writes_the_summary(alfred_samples, alfred_layouts, tmp_path):
    out = tmp_path / "reports" / "replay.json"  # its folder is created
    result = run("alfred", "replay", "--trajectories", alfred_samples, "--layouts", alfred_layouts, "--json", out)
    assert result.exit_code == 0, said(result)
    assert "ALFRED expert replay" in result.output
    for task_type in TASK_TYPES:
        assert task_type in result.output
    assert "70 (100.0%)" in result.output and "10 (100.0%)" in result.output
    assert "where the scenes came from" in result.output and "cells from layout" in result.output
    assert "malformed" not in result.output
    summary = json.loads(out.read_text())
    assert set(summary) == SUMMARY_KEYS
    assert (summary["total"], summary["all_actions_succeeded"], summary["goal_satisfied"]) == (70, 70, 70)
    assert summary["goal_condition_ratio"] == 1.0 and summary["malformed"] == 0
    assert set(summary["by_task_type"]) == set(TASK_TYPES)
    assert summary["failures"] == [] and summary["errors"] == []


def test_replay_reports_malformed_trajectories(alfred_samples, alfred_layouts, tmp_path):
    lines = [t.data for t in read_trajectories(alfred_samples)][:2]
    del lines[1]["plan"]
    file = tmp_path / "two.jsonl"
    file.write_text("".join(json.dumps(t) + "\n" for t in lines))
    result = run("alfred", "replay", "--trajectories", file, "--layouts", alfred_layouts)
    assert result.exit_code == 0, said(result)
    assert f"malformed {file}:2: plan: missing" in " ".join(result.output.split())
    assert "1 trajectory could not be replayed" in result.output


def test_replay_with_a_missing_trajectories_path_fails_naming_it(alfred_layouts, tmp_path):
    missing = tmp_path / "no-such-trajectories"
    result = run("alfred", "replay", "--trajectories", missing, "--layouts", alfred_layouts)
    assert result.exit_code != 0
    assert str(missing) in said(result)


def test_replay_with_a_missing_layouts_folder_fails_naming_it(alfred_samples, tmp_path):
    missing = tmp_path / "no-such-layouts"
    result = run("alfred", "replay", "--trajectories", alfred_samples, "--layouts", missing)
    assert result.exit_code != 0
    assert str(missing) in said(result)


def test_replay_where_nothing_replays_still_reports(alfred_samples, alfred_layouts, tmp_path):
    data = next(t.data for t in read_trajectories(alfred_samples))
    del data["plan"]
    file = tmp_path / "bad.jsonl"
    file.write_text(json.dumps(data) + "\n")
    result = run("alfred", "replay", "--trajectories", file, "--layouts", alfred_layouts)
    assert not isinstance(result.exception, IndexError), said(result)
    assert f"{file}:1: plan: missing" in " ".join(result.output.split())


# --- alfred import-scenes ------------------------------------------------------------------------------------


def test_import_scenes_writes_one_file_per_floor_plan(alfred_samples, alfred_layouts, tmp_path):
    out = tmp_path / "scenes"
    result = run(
        "alfred",
        "import-scenes",
        "--trajectories",
        alfred_samples,
        "--layouts",
        alfred_layouts,
        "--out",
        out,
        "--used-only",
    )
    assert result.exit_code == 0, said(result)
    evidence = gather_evidence(t.data for t in read_trajectories(alfred_samples))
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{fp}.json" for fp in evidence)
    assert f"{len(evidence)} ALFRED floor plans, with evidence from 70 trajectories" in " ".join(result.output.split())
    for floor_plan, e in evidence.items():
        scene = Scene.from_dict(json.loads((out / f"{floor_plan}.json").read_text()))
        built = build_scene(floor_plan, alfred_layouts, e)
        assert scene == built and scene.provenance == built.provenance


def test_import_scenes_without_trajectories_imports_all_120_floor_plans_from_their_layouts(alfred_layouts, tmp_path):
    out = tmp_path / "scenes"
    result = run("alfred", "import-scenes", "--layouts", alfred_layouts, "--out", out)
    assert result.exit_code == 0, said(result)
    files = sorted(out.iterdir())
    assert len(files) == 120
    for file in files:
        scene = Scene.from_dict(json.loads(file.read_text()))
        assert scene.provenance["cells_from_expert_paths"] == 0  # no trajectories: the layout alone
        assert len(scene.reachable) == scene.provenance["cells_from_layout"] > 0
        assert scene.fixed


def test_import_scenes_with_a_missing_trajectories_path_fails_naming_it(alfred_layouts, tmp_path):
    missing = tmp_path / "no-such-trajectories"
    result = run("alfred", "import-scenes", "--trajectories", missing, "--layouts", alfred_layouts, "--out", tmp_path)
    assert result.exit_code != 0
    assert str(missing) in said(result)


def test_import_scenes_with_a_missing_layouts_folder_fails_naming_it(alfred_samples, tmp_path):
    missing = tmp_path / "no-such-layouts"
    result = run("alfred", "import-scenes", "--trajectories", alfred_samples, "--layouts", missing, "--out", tmp_path)
    assert str(missing) in said(result)
    assert result.exit_code != 0


# --- rooms ---------------------------------------------------------------------------------------------------


def rooms(seed: int, out: Path) -> dict[str, bytes]:
    result = run("rooms", "--seed", seed, "--steps", 200, "--out", out)
    assert result.exit_code == 0, said(result)
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_rooms_is_reproducible(tmp_path):
    first, again, other = rooms(3, tmp_path / "a"), rooms(3, tmp_path / "b"), rooms(4, tmp_path / "c")
    assert first == again
    assert len(first) == 9  # a scene and a start state per room type, and summary.json
    for name, content in first.items():
        if name.endswith(".scene.json"):
            Scene.from_dict(json.loads(content))
        elif name.endswith(".state.json"):
            State.from_dict(json.loads(content))
    summary = json.loads(first["summary.json"])
    assert (summary["seed"], summary["steps"], len(summary["rooms"])) == (3, 200, 4)
    # another seed: other rooms, other play
    assert other["summary.json"] != first["summary.json"]
    strip_id = lambda content: {k: v for k, v in json.loads(content).items() if k != "id"}
    scenes = lambda files: [strip_id(c) for n, c in sorted(files.items()) if n.endswith(".scene.json")]
    assert all(a != b for a, b in zip(scenes(first), scenes(other), strict=True))
    hashes = lambda files: [r["final_state_hash"] for r in json.loads(files["summary.json"])["rooms"]]
    assert all(a != b for a, b in zip(hashes(first), hashes(other), strict=True))


def test_version_and_python_dash_m():
    import subprocess
    import sys

    from homesim import __version__

    assert CliRunner().invoke(app, ["--version"]).output == f"homesim {__version__}\n"
    ran = subprocess.run([sys.executable, "-m", "homesim", "--version"], capture_output=True, text=True, check=True)
    assert ran.stdout == f"homesim {__version__}\n"
