"""`homesim annotate` as ALFRED's annotators worked, in Debian's Chromium through Playwright: two annotators
watch a generated demonstration (its sub-goal segments as coloured bars), write a goal and an instruction per
segment, the page refuses a too-short one, both save, and `homesim evaluate` then plays both annotations."""

from __future__ import annotations

import shutil

from page_support import served, shot, stop
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.sources import read_episodes
from homesim.evaluation.records import read_records

pytest_plugins = ["server_support", "viewer_support"]


def _write(page, goal: str, directives: list[str]) -> None:
    page.fill("textarea[name=goal]", goal)
    for field, text in zip(page.locator("textarea[name=directive]").all(), directives, strict=True):
        field.fill(text)
    page.click("form.directives button")


def test_write_directives_and_read_them_back_with_homesim(browser, alfred_runs, tmp_path):
    dataset = shutil.copytree(alfred_runs["dataset"], tmp_path / "dataset")
    before = read_episodes(dataset, split="train").splits["train"][0]
    process, address = served("annotate", str(dataset), "--annotator", "alice")
    first, second = (browser.new_page(viewport={"width": 1280, "height": 900}) for _ in range(2))
    try:
        first.goto(address)
        shot(first, "annotate-demonstrations")
        first.click("a[href='/a/train/1']")
        second.goto(first.url)
        segments = first.locator("textarea[name=directive]").count()
        assert segments == first.locator(".timeline span").count() == max(before.expert_subgoal_index) + 1
        first.locator(".timeline span").nth(segments - 1).click()  # to the last segment's first step
        assert first.locator("#shown-step").inner_text() != "0"
        directives = [f"then do part {k + 1} of the task" for k in range(segments)]
        _write(first, "Too short", directives)
        assert "fewer than 3 words" in first.locator("ul.problems").inner_text()
        _write(first, "Clean the apple and put it away.", directives)
        first.wait_for_selector("p.saved")
        second.fill("input[name=annotator]", "bob")
        _write(second, "Wash an apple, then store it.", [f"bob's step {k + 1} goes here" for k in range(segments)])
        second.wait_for_selector("p.saved")
        second.goto(second.url.split("?")[0])
        shot(second, "annotate-episode")
    finally:
        first.close()
        second.close()
        stop(process)
    after = read_episodes(dataset, split="train").splits["train"][0]
    written = after.annotations[len(before.annotations) :]
    assert [a.task_desc for a in written] == ["Clean the apple and put it away.", "Wash an apple, then store it."]
    assert list(written[0].high_descs) == directives
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["evaluate", "--episodes", str(dataset), "--split", "train", "--out", str(run)])
    assert result.exit_code == 0, result.output
    played = {r.annotation for r in read_records(run / "records.jsonl") if r.episode_id == before.id}
    assert played == set(range(len(after.annotations)))  # the two new annotations are played too
