"""`homesim view` in process (the app through a test client): what it reads before serving, the episode table
and its filters, episodes played again exactly as recorded and drawn at any step, runs side by side, missing
episodes, addresses out of range, and the result plots (also `homesim report --figures`)."""

from __future__ import annotations

import io
import shutil
import socket

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image
from typer.testing import CliRunner

from homesim.cli import app
from homesim.cli.browser import listening_socket
from homesim.datasets.sources import read_episodes
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.plots import BAR_COLOUR, LABEL_WIDTH, share_chart
from homesim.evaluation.records import read_records
from homesim.render.pictures import MASK_COLOUR
from homesim.web.viewer import create_viewer
from homesim.web.viewing import Replays, load_sources

pytest_plugins = ["viewer_support"]


@pytest.fixture(scope="module")
def viewed(alfred_runs):
    sources = load_sources(
        [alfred_runs["expert"], alfred_runs["random"], alfred_runs["dataset"]], [alfred_runs["dataset"]]
    )
    return sources, TestClient(create_viewer(sources))


def picture(answer) -> np.ndarray:
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/png", answer.text[:300]
    return np.asarray(Image.open(io.BytesIO(answer.content)).convert("RGB"))


def test_a_path_that_is_neither_a_run_nor_a_dataset_is_one_line_and_nothing_is_served(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    result = CliRunner().invoke(app, ["view", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {tmp_path}: (path): neither a run folder (run.json and records.jsonl) nor a dataset folder"
        " (dataset.json)"
    ]
    assert "http://" not in result.output
    result = CliRunner().invoke(app, ["view", str(tmp_path), "--episodes", str(tmp_path / "notes.txt")])
    assert result.exit_code == 1 and "notes.txt: (file): not valid JSON" in result.output


def test_the_table_filters_by_success_source_split_and_task_type(viewed, alfred_runs):
    sources, client = viewed
    random_records = read_records(alfred_runs["random"] / "records.jsonl")
    failed = client.get("/", params={"success": "no"}).text
    assert failed.count('class="episode"') == sum(not r.goal_satisfied for r in random_records) > 0
    kind = random_records[0].task_type
    chosen = client.get("/s/1", params={"task_type": kind, "split": random_records[0].split}).text
    expected = sum(r.task_type == kind and r.split == random_records[0].split for r in random_records)
    assert chosen.count('class="episode"') == expected and f"{expected} of {len(random_records)} episodes" in chosen
    assert "task success" in chosen and "[" in chosen  # the summary, with intervals


@pytest.mark.parametrize("run", ["expert", "random"])
def test_every_record_plays_again_as_it_was_recorded(viewed, alfred_runs, run):
    sources, _ = viewed
    source = sources[0 if run == "expert" else 1]
    replays = Replays(sources)
    for row in source.rows:
        replay = replays.of(row)
        assert replay.success == [True, *row.record.action_success]
        assert replay.steps == len(row.record.actions) + 1
        conditions = next(v for name, v in replay.series.items() if name.startswith("goal conditions"))
        assert conditions[-1] == row.record.conditions_met


def test_a_frame_is_drawn_at_any_step_in_each_picture(viewed):
    sources, client = viewed
    row = max(sources[0].rows, key=lambda r: len(r.record.actions))
    base = f"/s/0/{row.number}"
    first, last = picture(client.get(f"{base}/frame/0.png")), picture(client.get(f"{base}/frame/{row.steps}.png"))
    assert first.shape == (300, 300, 3) and not np.array_equal(first, last)
    interaction = next(i for i, (name, target) in enumerate(row.record.actions) if target)
    for step, aimed in ((interaction, True), (0, bool(row.record.actions[0][1]))):
        seen = picture(client.get(f"{base}/frame/{step}.png"))
        masked = picture(client.get(f"{base}/frame/{step}.png", params={"image": "mask"}))
        tinted = masked != (0.45 * seen.astype(np.float32)).astype(np.uint8)
        assert tinted.any() == aimed  # the next action's target, red over the dimmed view
        if aimed:
            red = (0.35 * seen.astype(np.float32) + 0.65 * MASK_COLOUR).astype(np.uint8)
            assert (masked[tinted.any(axis=2)] == red[tinted.any(axis=2)]).all()
    for image in ("depth", "segmentation"):
        assert picture(client.get(f"{base}/frame/1.png", params={"image": image})).shape == (300, 300, 3)
    assert picture(client.get(f"{base}/map/{row.steps}.png")).ndim == 3
    page = client.get(base).text
    assert 'id="step"' in page and f'max="{row.steps}"' in page and "goal conditions met" in page


@pytest.mark.parametrize(
    "address",
    ["/s/7", "/s/0/0", "/s/0/999", "/s/0/1/frame/999.png", "/s/0/1/map/-1.png", "/s/0/1?step=999", "/s/x",
     "/s/0/1/frame/1.png?image=x-ray", "/?page_number=9", "/s/0/plot/nothing.png", "/s/0/1?compare=0"],
)  # fmt: skip
def test_an_address_out_of_range_is_a_404_page(viewed, address):
    _, client = viewed
    answer = client.get(address)
    assert answer.status_code == 404 and 'class="error"' in answer.text and "homesim view" in answer.text


def test_a_record_whose_episode_is_missing_is_shown_as_missing(alfred_runs):
    sources = load_sources([alfred_runs["expert"]])  # the built-in episodes, not the ones it ran on
    client = TestClient(create_viewer(sources))
    assert all(row.episode is None for row in sources[0].rows)
    assert "are not in the built-in ALFRED episodes" in client.get("/").text
    page = client.get("/s/0/1")
    assert page.status_code == 200 and "is missing" in page.text
    assert sources[0].rows[0].record.actions[0][0] in page.text  # the record's own actions are listed
    assert client.get("/s/0/1/frame/0.png").status_code == 404


def test_two_runs_side_by_side_on_one_episode(viewed):
    sources, client = viewed
    row = sources[1].rows[0]
    page = client.get(f"/s/1/{row.number}", params={"compare": 0}).text
    assert page.count('class="pane"') == 2 and "expert" in page and "random" in page
    assert f"/s/1/{row.number}?compare=2" in page  # the dataset's demonstration is offered too


def test_a_dataset_shows_its_demonstrations_each_reaching_its_goal(viewed, alfred_runs):
    sources, client = viewed
    dataset = sources[2]
    assert dataset.kind == "dataset" and len(dataset.rows) == 8
    for row in dataset.rows:
        replay = Replays(sources).of(row)
        assert replay.ending.startswith("the expert's demonstration: goal met") and all(replay.success)
        assert replay.segments and len(replay.segments) == replay.steps  # the sub-goal timeline
    assert 'class="timeline"' in client.get("/s/2/1").text


def test_objectnav_replays_show_the_distance_to_goal_and_the_robots_view(objectnav_run):
    sources = load_sources([objectnav_run["expert"]], [objectnav_run["dataset"]])
    client = TestClient(create_viewer(sources))
    row = sources[0].rows[0]
    replay = Replays(sources).of(row)
    distance = replay.series["distance to goal (m)"]
    assert (
        distance[-1] == pytest.approx(row.record.measures["distance_to_goal"], abs=1e-4) and distance[0] > distance[-1]
    )
    assert picture(client.get("/s/0/1/frame/0.png")).shape == (480, 640, 3)
    assert picture(client.get("/s/0/1/frame/0.png", params={"image": "depth"})).shape == (480, 640, 3)
    assert client.get("/s/0/1/frame/0.png", params={"image": "mask"}).status_code == 404  # no interactions
    assert picture(client.get(f"/s/0/1/map/{replay.steps - 1}.png")).ndim == 3


def test_handmethat_replays_are_transcripts(handmethat_samples, tmp_path):
    files = tmp_path / "samples"
    files.mkdir()
    for sample in sorted(handmethat_samples.glob("*.json"))[:3]:
        shutil.copy(sample, files)
    run = tmp_path / "heuristic"
    read = read_episodes(files)
    evaluate(read.splits, read.scenes, EvaluationConfig(agent="heuristic", suite=read.suite), run)
    sources = load_sources([run], [files])
    client = TestClient(create_viewer(sources))
    for row in sources[0].rows:
        replay = Replays(sources).of(row)
        assert len(replay.transcript) == len(row.record.actions) + 1 and replay.images == ()
        assert replay.series["score"][-1] == row.record.measures["score"]
    page = client.get("/s/0/1").text
    assert "Welcome to the world!" in page and "Human stops and says" in page
    assert client.get("/s/0/1/frame/0.png").status_code == 404


def test_report_figures_writes_a_chart_per_breakdown(alfred_runs, tmp_path):
    output = (
        CliRunner().invoke(app, ["report", str(alfred_runs["random"]), "--figures", str(tmp_path / "plots")]).output
    )
    written = sorted(p.name for p in (tmp_path / "plots").glob("*.png"))
    splits = {r.split for r in read_records(alfred_runs["random"] / "records.jsonl")}
    assert written == sorted(["all-splits.png"] * (len(splits) > 1) + [f"{s}-by_task_type.png" for s in splits])
    assert "plots of" in output


def test_a_chart_draws_each_share_with_its_interval():
    chart = share_chart(
        {
            "all": {"episodes": 4, "s": {"value": 1.0, "ci95": [0.5, 1.0]}},
            "none": {"episodes": 0, "s": {"value": None}},
        },
        "s",
        "t",
    )
    bar_row = chart[8 + 22 + 6]  # the first group's row, above its interval's line
    coloured = np.flatnonzero((bar_row == BAR_COLOUR).all(axis=1))
    assert coloured.min() == LABEL_WIDTH and coloured.max() >= LABEL_WIDTH + 290  # 100% reaches the end
    assert not (chart[8 + 2 * 22 + 11] == BAR_COLOUR).all(axis=1).any()  # no value, no bar


def test_a_taken_port_gives_the_next_free_one():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with listening_socket(port) as sock:
            host, given = sock.getsockname()
            assert host == "127.0.0.1" and given > port


def test_a_text_game_record_is_a_transcript_and_a_mask_record_says_why_it_cannot_be_drawn(alfred_runs, tmp_path):
    read = read_episodes(alfred_runs["dataset"], split="train")
    small = {"train": read.splits["train"][:2]}
    evaluate(small, read.scenes, EvaluationConfig(interface="text"), tmp_path / "text")
    evaluate(
        small, read.scenes, EvaluationConfig(agent="random", interaction="mask", pixels=("rgb",)), tmp_path / "mask"
    )
    sources = load_sources([tmp_path / "text", tmp_path / "mask"], [alfred_runs["dataset"]])
    client = TestClient(create_viewer(sources))
    for row in sources[0].rows:
        replay = Replays(sources).of(row)
        assert replay.success == [True, *row.record.action_success] and replay.images == ()
        assert len(replay.transcript) == len(row.record.actions) + 1 and replay.transcript[1].startswith("> ")
    assert "You are in the middle of a room" in client.get("/s/0/1").text
    page = client.get("/s/1/1")
    assert page.status_code == 200 and "aims its interactions by masks" in page.text
