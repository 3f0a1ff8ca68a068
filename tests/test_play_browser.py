"""`homesim play --web` as a person plays, in Debian's Chromium through Playwright: a built-in ALFRED episode
played to success with the keyboard and clicks on the view (each click made where the target is drawn, as a
person would aim), its record found and reported, its demonstration written; a HandMeThat episode played
through the text box. The moves are the experts' (ALFRED's, aiming only at what the frame shows)."""

from __future__ import annotations

import json
import shutil

import numpy as np
from page_support import served, shot, stop
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.handmethat.files import read_handmethat_file
from homesim.datasets.sources import read_episodes
from homesim.envs.handmethat import HandMeThatEnv
from homesim.evaluation.records import read_records
from homesim.evaluation.suites import SUITES
from homesim.planning.alfred.expert import Expert
from homesim.render import ALFRED, Renderer
from homesim.tasks.alfred import goal_satisfied
from homesim.world.actions import INTERACT_ACTIONS
from homesim.world.dynamics import step

pytest_plugins = ["server_support"]


def _aim(mask: np.ndarray) -> tuple[int, int]:
    """The target's pixel nearest its middle: where a person clicks."""
    rows, columns = np.nonzero(mask)
    nearest = np.argmin((rows - rows.mean()) ** 2 + (columns - columns.mean()) ** 2)
    return int(rows[nearest]), int(columns[nearest])


def _steps_shown(page, steps: int) -> None:
    page.wait_for_function(f"document.getElementById('game-step').textContent === '{steps}'", timeout=30_000)


def test_play_a_builtin_alfred_episode_to_success_with_keys_and_clicks(browser, tmp_path):
    out = tmp_path / "human"
    process, address = served("play", "--web", "alfred", "--out", str(out))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(address)
        shot(page, "play-episodes")
        page.click("button.play >> nth=0")
        page.wait_for_selector("#view")
        episode, scenes = builtin_episodes()[0][0], builtin_episodes()[1]
        scene, person = scenes[episode.scene_id], SUITES["alfred"].person
        key_of = {action: key for key, action in reversed(person.keys.items())}  # each action's first key
        state, taken = episode.initial_state, []
        with Renderer(**ALFRED) as renderer:
            expert = Expert(scene, episode.goal, sees=lambda s, o: o in renderer.render(scene, s).visible_ids())
            while not goal_satisfied(scene, state, episode.goal):
                action = expert.next_action(state)
                if action.name in INTERACT_ACTIONS:
                    page.keyboard.press(str(person.aimed.index(action.name) + 1))
                    row, column = _aim(renderer.render(scene, state).mask(action.target))
                    box = page.locator("#view").bounding_box()
                    scale = box["width"] / ALFRED["width"]
                    page.mouse.click(box["x"] + (column + 0.5) * scale, box["y"] + (row + 0.5) * scale)
                else:
                    page.keyboard.press(key_of[action.name])
                state, event = step(scene, state, action)
                assert event.success, event.message
                taken.append([action.name, action.target])
                _steps_shown(page, len(taken))
        assert len(taken) > 5 and any(target for _, target in taken)
        shot(page, "play-alfred")
        page.keyboard.press(key_of["Stop"])
        page.wait_for_selector("#ended:not([hidden])")
        assert "success" in page.locator("#ended").inner_text()
    finally:
        page.close()
        stop(process)
    (played,) = read_records(out / "records.jsonl")
    assert played.goal_satisfied and played.stopped and played.actions == taken and all(played.action_success)
    report = CliRunner().invoke(app, ["report", str(out)])
    assert report.exit_code == 0 and "human" in report.output and "summary.json matches the records" in report.output
    demonstrations = read_episodes(out / "demonstrations")
    (shown,) = demonstrations.all()
    assert [[a.name, a.target] for a in shown.expert_actions] == taken
    frames = tmp_path / "frames"  # the demonstration as the learned baselines' training data
    made = CliRunner().invoke(
        app, ["alfred", "frames", "--episodes", str(out / "demonstrations"), "--out", str(frames), "--size", "16"]
    )
    assert made.exit_code == 0, made.output
    (line,) = [json.loads(x) for x in next(frames.rglob("trajectories.jsonl")).read_text().splitlines()]
    assert line["length"] == len(taken) + 1  # its steps and the closing Stop


def test_play_a_handmethat_episode_through_the_text_box(browser, tmp_path, handmethat_samples):
    files = tmp_path / "samples"
    files.mkdir()
    sample = sorted(handmethat_samples.glob("*.json"))[0]
    shutil.copy(sample, files)
    out = tmp_path / "human"
    process, address = served("play", "--web", "handmethat", "--episodes", str(files), "--out", str(out))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(address)
        page.click("button.play >> nth=0")
        page.wait_for_selector("#command")
        env = HandMeThatEnv([read_handmethat_file(sample)])
        env.reset(options={"episode": 0})
        said = []
        while not env.won:
            command = env.expert_command()
            page.wait_for_selector(f"#commands li >> text='{command}'")  # offered as admissible
            page.fill("#command", command)
            page.press("#command", "Enter")
            env.step(command)
            said.append(command)
            _steps_shown(page, len(said))
        page.wait_for_selector("#ended:not([hidden])")
        shot(page, "play-handmethat")
    finally:
        page.close()
        stop(process)
    (played,) = read_records(out / "records.jsonl")
    assert played.goal_satisfied and [c for c, _ in played.actions] == said and played.measures["score"] > 0
