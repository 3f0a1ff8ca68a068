"""Replaying ALFRED's expert demonstrations: exact figures on the 70 samples and the 251 valid_seen
trajectories (a regression anywhere in import, dynamics or goal checks changes them), malformed input
reported per trajectory while the rest replays on, and (slow) the acceptance bars on all of train.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest
from replay_expectations import SCENE_SOURCE_KEYS, SUMMARY_KEYS

from homesim.datasets.alfred.replay import replay_path
from homesim.tasks.alfred import TASK_TYPES

FIGURE_KEYS = {"total", "all_actions_succeeded", "goal_satisfied", "goal_condition_ratio"}
VALID_SEEN_BY_TYPE = {
    "look_at_obj_in_light": 29,
    "pick_and_place_simple": 46,
    "pick_and_place_with_movable_recep": 34,
    "pick_clean_then_place_in_recep": 37,
    "pick_cool_then_place_in_recep": 38,
    "pick_heat_then_place_in_recep": 34,
    "pick_two_obj_and_place": 33,
}


def perfect(total: int) -> dict:
    return {"total": total, "all_actions_succeeded": total, "goal_satisfied": total, "goal_condition_ratio": 1.0}


@pytest.fixture(scope="module")
def samples_summary(alfred_samples, alfred_layouts) -> dict:
    return replay_path(alfred_samples, alfred_layouts).summary()


@pytest.fixture(scope="module")
def valid_seen_report(alfred_trajectories, alfred_layouts):
    return replay_path(alfred_trajectories / "valid_seen.jsonl.gz", alfred_layouts)


@pytest.fixture(scope="module")
def valid_seen_lines(alfred_trajectories) -> list[dict]:
    with gzip.open(alfred_trajectories / "valid_seen.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def in_floor_plan(lines: list[dict], floor_plan: str) -> list[dict]:
    return [copy.deepcopy(t) for t in lines if t["scene"]["floor_plan"] == floor_plan]


def write_jsonl(path: Path, trajectories: list[dict]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in trajectories))
    return path


# --- the real data replays perfectly ---------------------------------------------------------------------


def test_the_70_samples_replay_perfectly(samples_summary):
    s = samples_summary
    assert {k: s[k] for k in FIGURE_KEYS} == perfect(70)
    assert s["malformed"] == 0 and s["failures"] == [] and s["errors"] == []
    assert s["by_task_type"] == {t: perfect(10) for t in TASK_TYPES}


def test_the_251_valid_seen_trajectories_replay_perfectly(valid_seen_report):
    s = valid_seen_report.summary()
    assert {k: s[k] for k in FIGURE_KEYS} == perfect(251)
    assert s["malformed"] == 0 and s["failures"] == [] and s["errors"] == []
    assert s["by_task_type"] == {t: perfect(n) for t, n in VALID_SEEN_BY_TYPE.items()}
    assert all(r.conditions_met == r.conditions_total > 0 for r in valid_seen_report.results)


def test_summary_shape(valid_seen_report, valid_seen_lines):
    s = valid_seen_report.summary()
    assert set(s) == SUMMARY_KEYS
    assert list(s["by_task_type"]) == sorted(TASK_TYPES)  # all 7 types, in name order
    assert all(set(f) == FIGURE_KEYS for f in s["by_task_type"].values())
    assert set(s["scene_sources"]) == SCENE_SOURCE_KEYS
    # scene sources are summed over the floor plans the trajectories use
    floor_plans = {t["scene"]["floor_plan"] for t in valid_seen_lines}
    assert set(valid_seen_report.scenes) == floor_plans
    for key in SCENE_SOURCE_KEYS:
        assert s["scene_sources"][key] == sum(p[key] for p in valid_seen_report.scenes.values())
    assert json.loads(json.dumps(s)) == s  # JSON-ready as is


def test_a_failure_is_reported_with_its_first_failing_action(valid_seen_lines, alfred_layouts, tmp_path):
    """Without its first PickupObject the expert's next PutObject has nothing in hand: the summary lists it."""
    t = in_floor_plan(valid_seen_lines, "FloorPlan1")[1]
    lows = t["plan"]["low_actions"]
    i = next(i for i, low in enumerate(lows) if low["api_action"]["action"] == "PickupObject")
    del lows[i]
    put = next(j for j, low in enumerate(lows) if low["api_action"]["action"] == "PutObject")
    s = replay_path(write_jsonl(tmp_path / "one.jsonl", [t]), alfred_layouts).summary()
    assert s["total"] == 1 and s["all_actions_succeeded"] == 0 and s["malformed"] == 0
    (failure,) = s["failures"]
    assert failure["first_failure"]["index"] == put and failure["first_failure"]["action"] == "PutObject"
    assert failure["name"] == f"{t['split']}/{t['path']}"
    assert set(failure["first_failure"]) == {"index", "action", "target", "message"}


# --- malformed input ---------------------------------------------------------------------------------------


@pytest.fixture
def mixed_input(valid_seen_lines, alfred_layouts, tmp_path) -> tuple[Path, Path, list[dict]]:
    """Seven lines: 3 good (FloorPlan1), then an unknown action, an objectId edited to one that does
    not exist, a trajectory without `plan`, and a FloorPlan2 trajectory whose layout files are missing."""
    layouts = tmp_path / "layouts"
    layouts.mkdir()
    for file in alfred_layouts.glob("FloorPlan1-*"):
        (layouts / file.name).symlink_to(file)
    fp1 = in_floor_plan(valid_seen_lines, "FloorPlan1")
    good = fp1[:3]
    unknown_action, edited_id, no_plan = fp1[3], fp1[4], fp1[5]
    unknown_action["plan"]["low_actions"][2]["api_action"]["action"] = "Teleport"
    lows = edited_id["plan"]["low_actions"]
    i = next(i for i, low in enumerate(lows) if low["api_action"]["action"] == "PickupObject")
    lows[i]["api_action"]["objectId"] = lows[i]["api_action"]["objectId"].split("|")[0] + "|+09.99|+09.99|+09.99"
    del no_plan["plan"]
    no_layout = in_floor_plan(valid_seen_lines, "FloorPlan2")[0]
    path = write_jsonl(tmp_path / "mixed.jsonl", good + [unknown_action, edited_id, no_plan, no_layout])
    return path, layouts, good


def test_mixed_input_replays_the_good_trajectories_and_reports_the_bad(mixed_input):
    path, layouts, good = mixed_input
    report = replay_path(path, layouts)
    s = report.summary()
    assert {k: s[k] for k in FIGURE_KEYS} == perfect(3)
    assert [r.name for r in report.results] == [f"{t['split']}/{t['path']}" for t in good]
    errors = s["errors"]
    assert s["malformed"] == len(errors) >= 4
    assert any(e.startswith(f"{path}:6: plan: missing") for e in errors)
    assert any("plan.low_actions[2].api_action.action: unknown action 'Teleport'" in e for e in errors)
    assert any("|+09.99|+09.99|+09.99" in e and ".api_action" in e and "not in the scene" in e for e in errors)
    assert any(f"{path}:7: scene.floor_plan" in e for e in errors)
    assert any("FloorPlan2-layout.npy" in e for e in errors)


def test_mixed_input_counts_each_malformed_trajectory_once(mixed_input):
    path, layouts, _ = mixed_input
    assert replay_path(path, layouts).summary()["malformed"] == 4


def test_mixed_input_errors_name_their_file_and_line(mixed_input):
    path, layouts, _ = mixed_input
    errors = replay_path(path, layouts).summary()["errors"]
    for line in (4, 5, 6, 7):
        assert any(e.startswith(f"{path}:{line}: ") for e in errors), f"no error names {path}:{line}"


def _set(*keys_and_value):
    """An edit setting trajectory[k1][k2]... = value."""
    *keys, value = keys_and_value

    def edit(t: dict) -> None:
        for k in keys[:-1]:
            t = t[k]
        t[keys[-1]] = value

    return edit


def _first_put_into(receptacle_id: str):
    def edit(t: dict) -> None:
        low = next(low for low in t["plan"]["low_actions"] if low["api_action"]["action"] == "PutObject")
        low["api_action"]["receptacleObjectId"] = receptacle_id

    return edit


def _bad_planner_coordinates(t: dict) -> None:
    planner = [h["planner_action"] for h in t["plan"]["high_pddl"]]
    next(p for p in planner if "coordinateReceptacleObjectId" in p)["coordinateReceptacleObjectId"] = ["CounterTop"]


def _case(id: str, edit, field: str):
    return pytest.param(edit, field, id=id)


@pytest.mark.parametrize(
    "edit, field",
    [
        _case(
            "pose-without-position", _set("scene", "object_poses", [{"objectName": "Apple_1"}]), "scene.object_poses[0]"
        ),
        _case(
            "unknown-action",
            _set("plan", "low_actions", 0, "api_action", "action", "Fly"),
            "plan.low_actions[0].api_action.action",
        ),
        _case(
            "unknown-task-type",
            _set("task_type", "pick_and_juggle"),
            "task_type",
        ),
        _case(
            "init-without-x",
            lambda t: t["scene"]["init_action"].pop("x"),
            "scene.init_action",
        ),
        _case(
            "init-rotation-45",
            _set("scene", "init_action", "rotation", 45),
            "scene.init_action",
        ),
        _case(
            "low-action-empty",
            _set("plan", "low_actions", 0, {}),
            "plan.low_actions[0]",
        ),
        _case(
            "api-action-without-name",
            lambda t: t["plan"]["low_actions"][0]["api_action"].pop("action"),
            "plan.low_actions[0].api_action.action",
        ),
        _case(
            "low-actions-null",
            _set("plan", "low_actions", None),
            "plan.low_actions",
        ),
        _case(
            "scene-not-an-object",
            _set("scene", 5),
            "scene",
        ),
        _case(
            "pddl-params-null",
            _set("pddl_params", None),
            "pddl_params",
        ),
        _case(
            "bad-planner-coordinates",
            _bad_planner_coordinates,
            "plan.high_pddl",
        ),
        _case("unknown-class-id", _first_put_into("Bogus|+00.00|+00.00|+00.00"), "plan.low_actions["),
    ],
)
def test_one_malformed_trajectory_never_stops_the_others(valid_seen_lines, alfred_layouts, tmp_path, edit, field):
    """A good and a malformed trajectory of the same floor plan: the good one replays, the bad one is
    one error naming the field at fault."""
    good, bad = in_floor_plan(valid_seen_lines, "FloorPlan1")[:2]
    edit(bad)
    path = write_jsonl(tmp_path / "two.jsonl", [good, bad])
    s = replay_path(path, alfred_layouts).summary()
    assert {k: s[k] for k in FIGURE_KEYS} == perfect(1)
    (error,) = s["errors"]
    assert s["malformed"] == 1
    assert f"{path}:2" in error or bad["path"] in error
    assert f": {field}" in error


# --- the acceptance bars on all of train (slow) ------------------------------------------------------------


@pytest.fixture(scope="module")
def train_summary(alfred_trajectories, alfred_layouts) -> dict:
    return replay_path(alfred_trajectories / "train.jsonl.gz", alfred_layouts).summary()


@pytest.mark.slow
def test_train_replay_meets_the_acceptance_bars(train_summary):
    s = train_summary
    assert s["total"] == 6574 and s["malformed"] == 0
    assert s["goal_satisfied"] >= 0.95 * s["total"]
    assert s["all_actions_succeeded"] >= 0.90 * s["total"]
    assert set(s["by_task_type"]) == set(TASK_TYPES)
    for task_type, f in s["by_task_type"].items():
        assert f["goal_satisfied"] >= 0.85 * f["total"], task_type


@pytest.mark.slow
def test_train_replay_figures_do_not_regress(train_summary):
    """Today every train action succeeds and every goal but one is met. The exception starts with a fork
    lying in a mug in the sink: AI2-THOR counted the fork as in the mug only once the expert moved the
    mug, so ALFRED's goal was unmet at the start; our importer withdraws the guessed nesting (ALFRED
    never starts with its goal met) and the expert never touches the fork again."""
    s = train_summary
    assert (s["total"], s["all_actions_succeeded"], s["goal_satisfied"]) == (6574, 6574, 6573)
    (failure,) = s["failures"]
    assert failure["name"].startswith("train/pick_and_place_with_movable_recep-Fork-Mug-SinkBasin-11/")
