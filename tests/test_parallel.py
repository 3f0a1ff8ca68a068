"""Evaluation on Ray (`homesim.parallel`): the same bytes as one local process, a killed worker survived,
and a work item that fails on every try reported in its record while the run goes on. A local Ray
instance is started on this machine (no network beyond localhost)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from homesim.agents.random_agent import RandomAgent
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.evaluation.alfred.suite import work_items
from homesim.evaluation.evaluate import EvaluationConfig, chunks_of, evaluate
from homesim.evaluation.records import read_records
from homesim.parallel import RAY_SETTINGS, Workers, prestart, run_chunks

ray = pytest.importorskip("ray")

# a folder of this test run's own (concurrent runs must not share marks), which the Ray workers see too
MARKS = Path(os.environ.setdefault("HOMESIM_TEST_MARKS", tempfile.mkdtemp(prefix="homesim-test-marks-")))
os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])


class DyingAgent(RandomAgent):
    """A random agent whose worker process dies at the start of episode `builtin-0-2`: once (a mark left
    behind says it already died), or every time when the mark is a directory."""

    def reset(self, task):
        mark = MARKS / task.episode_id
        if task.episode_id == "builtin-0-2" and not mark.is_file():
            if not mark.is_dir():
                mark.write_text("died once")
            os._exit(1)  # the worker process is gone, as if killed
        super().reset(task)


@pytest.fixture(scope="module")
def ray_instance():
    settings = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
    ray.init(num_cpus=2, _system_config=RAY_SETTINGS, **settings)  # as homesim starts one
    yield
    ray.shutdown()


@pytest.fixture()
def marks():
    MARKS.mkdir(parents=True, exist_ok=True)
    for mark in MARKS.iterdir():
        mark.rmdir() if mark.is_dir() else mark.unlink()
    return MARKS


def _run(out, agent="random", workers: int | Workers = 1):
    episodes, scenes = builtin_episodes(count=20)  # 18 scenes of an item each: for 2 workers, 9 chunks
    return evaluate({"builtin": episodes}, scenes, EvaluationConfig(agent), out, workers=workers)


def test_ray_gives_the_same_bytes_as_one_local_process(ray_instance, tmp_path):
    _run(tmp_path / "local")
    _run(tmp_path / "ray", workers=Workers(2, "ray"))
    for name in ("records.jsonl", "summary.json", "run.json"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name


def test_a_killed_worker_is_survived(ray_instance, marks, tmp_path):
    _run(tmp_path / "local")
    _run(tmp_path / "ray", f"{__name__}:DyingAgent", Workers(2, "ray"))
    assert (marks / "builtin-0-2").read_text() == "died once"  # it did die, and its work was done again
    assert (tmp_path / "local" / "records.jsonl").read_bytes() == (tmp_path / "ray" / "records.jsonl").read_bytes()


def test_work_that_fails_every_try_is_reported_in_its_record(ray_instance, marks, tmp_path):
    (marks / "builtin-0-2").mkdir()  # dies every time
    _run(tmp_path / "ray", f"{__name__}:DyingAgent", Workers(2, "ray"))
    records = read_records(tmp_path / "ray" / "records.jsonl")
    episodes, _ = builtin_episodes(count=20)
    assert sorted(r.episode_id for r in records) == sorted(e.id for e in episodes)  # the run went on
    failed = [r for r in records if r.end_reason == "worker_failed"]
    # the chunk holding the dying episode (its scene's work items, and other scenes') is reported; the others
    # were played
    chunks = chunks_of(work_items({"builtin": episodes}, False), {"builtin": episodes}, workers=2)
    dying = next(chunk for chunk in chunks if any(episodes[i].id == "builtin-0-2" for _, i, _, _ in chunk))
    assert sorted(r.episode_id for r in failed) == sorted(episodes[i].id for _, i, _, _ in dying)
    assert all("failed 2 times on Ray" in r.failures[0][1] and not r.goal_satisfied for r in failed)
    assert all(r.path_length > 0 for r in records if r.end_reason != "worker_failed")


def test_replay_and_generation_on_ray_give_what_one_process_gives(ray_instance, alfred_samples, alfred_layouts):
    from homesim.datasets.alfred.generate import generate, procedural_places, split_counts
    from homesim.datasets.alfred.replay import replay_path
    from homesim.language.alfred.directives import annotate

    alone = replay_path(alfred_samples, alfred_layouts).summary()
    assert replay_path(alfred_samples, alfred_layouts, workers=Workers(2, "ray")).summary() == alone
    places = procedural_places(split_counts(12), 0)
    one = generate(places, 12, 0, annotate)
    assert generate(places, 12, 0, annotate, workers=Workers(2, "ray")) == one


def _shared_value(value):
    return value


def _with_shared(state, chunk):
    return state, chunk


def test_ray_workers_kept_between_runs_use_each_runs_own_shared_data(ray_instance):
    for value in ("first run", "second run"):  # the second run's workers are the first's, set up again
        results = dict(run_chunks(_shared_value, (value,), _with_shared, list(range(6)), Workers(2, "ray")))
        assert results == {i: (value, i) for i in range(6)}


def test_shared_data_that_pickle_cannot_pickle_goes_as_ray_would_send_it(ray_instance):
    offset = 10
    results = dict(run_chunks(_shared_value, (lambda x: x + offset,), _applied, [1, 2, 3], Workers(2, "ray")))
    assert results == {0: 11, 1: 12, 2: 13}


def _applied(function, chunk):
    return function(chunk)


def _imported(state, module):
    return module in sys.modules


def test_a_run_after_prestart_runs_on_the_workers_it_started(ray_instance):
    prestart(Workers(2, "ray"), ("tabnanny",))  # a module nothing else here imports
    time.sleep(2.5)  # the caller reads its data; the workers, started and idle meanwhile, are kept
    assert dict(run_chunks(_shared_value, (None,), _imported, ["tabnanny"] * 6, Workers(2, "ray"))) == {
        i: True for i in range(6)
    }


def test_a_run_on_other_workers_than_prestarted_gives_back_the_prestarted_ones(ray_instance):
    prestart(Workers(1, "ray"), ())
    results = dict(run_chunks(_shared_value, ("run",), _with_shared, list(range(4)), Workers(2, "ray")))
    assert results == {i: ("run", i) for i in range(4)}
    assert ray.util.placement_group_table() == {} or all(
        group["state"] == "REMOVED" for group in ray.util.placement_group_table().values()
    )


def test_evaluate_on_ray_started_before_the_episodes_are_read_gives_the_bytes_of_one_process(ray_instance, tmp_path):
    from typer.testing import CliRunner

    from homesim.cli import app

    for name, options in (("one", []), ("ray", ["--workers", "2", "--backend", "ray"])):
        result = CliRunner().invoke(app, ["evaluate", "--agent", "random", "--out", str(tmp_path / name), *options])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "one" / "records.jsonl").read_bytes() == (tmp_path / "ray" / "records.jsonl").read_bytes()


def test_a_worker_evaluating_alfred_does_not_import_scipy():
    """A Ray worker imports what it runs at its first chunk; scipy (ObjectNav's grids) would add 0.3-0.7 s."""
    code = "import sys, homesim.evaluation.evaluate, homesim.evaluation.alfred.suite; print('scipy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
