"""`homesim view` as a person uses it, in Debian's Chromium through Playwright: the command serves two runs and
their dataset, the table is filtered and an episode opened, the slider moves and the frame changes, play runs
the episode on, and two runs are shown side by side. With HOMESIM_SCREENSHOTS set, each page is saved there."""

from __future__ import annotations

import re

import pytest
from page_support import served, shot, stop

from homesim.evaluation.records import read_records

pytest_plugins = ["server_support", "viewer_support"]


@pytest.fixture(scope="module")
def viewer(alfred_runs):
    runs = alfred_runs
    process, address = served(
        "view", str(runs["expert"]), str(runs["random"]), str(runs["dataset"]), "--episodes", str(runs["dataset"])
    )
    yield address
    stop(process)


@pytest.fixture
def page(browser):
    opened = browser.new_page(viewport={"width": 1280, "height": 900})
    yield opened
    opened.close()


def test_filter_a_runs_table_and_open_an_episode(viewer, page, alfred_runs):
    failed = [r for r in read_records(alfred_runs["random"] / "records.jsonl") if not r.goal_satisfied]
    page.goto(viewer)
    shot(page, "view-table")
    page.select_option("select[name=success]", "no")
    page.click("form.filters button")
    page.wait_for_url(re.compile(r"success=no"))
    links = page.locator("a.episode")
    assert links.count() == len(failed) and page.locator("table.episodes span.yes").count() == 0
    links.first.click()
    page.wait_for_selector("section.pane img.frame")
    assert page.locator("h1").inner_text().startswith(failed[0].episode_id)
    page.goto(viewer + "s/1")
    shot(page, "view-run")
    assert page.locator(".plots img").count() >= 1


def _loaded(page, selector: str, part: str) -> None:
    page.wait_for_function(
        "([selector, part]) => { const i = document.querySelector(selector);"
        " return i.src.includes(part) && i.complete && i.naturalWidth > 0; }",
        arg=[selector, part],
        timeout=20_000,
    )


def test_move_the_slider_and_the_frame_changes(viewer, page, alfred_runs):
    records = read_records(alfred_runs["expert"] / "records.jsonl")
    number = max(range(len(records)), key=lambda i: len(records[i].actions)) + 1
    page.goto(f"{viewer}s/0/{number}")
    frame = "section.pane img.frame"
    _loaded(page, frame, "/frame/0.png")
    before = page.locator(frame).screenshot()
    page.locator("#step").fill("4")
    _loaded(page, frame, "/frame/4.png")
    assert page.locator(frame).screenshot() != before
    assert page.locator("tr.current td").first.inner_text() == "4"
    page.check("input[value=depth]")
    _loaded(page, frame, "image=depth")
    shot(page, "view-episode")
    page.click("#play")
    page.wait_for_function("() => +document.getElementById('shown-step').textContent > 5", timeout=20_000)
    page.click("#play")  # pause


def test_two_runs_side_by_side(viewer, page):
    page.goto(viewer + "s/1/1")
    page.click("a.compare >> nth=0")
    page.wait_for_url(re.compile(r"compare=0"))
    assert page.locator("section.pane").count() == 2
    _loaded(page, "section.pane:nth-of-type(2) img.frame", "/frame/0.png")
    shot(page, "view-side-by-side")
