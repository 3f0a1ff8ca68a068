"""ObjectNav's metrics on hand-built records. Every expected value is worked out by hand and written as a
literal, so a test fails if a formula changes:

* success S = every required criterion met;
* SPL = S * d0 / max(d0, p);  soft SPL = max(0, 1 - dT/d0) * d0 / max(d0, p);
* edge cases: d0 = 0 (start in the success zone), p = 0, d0 undefined (unreachable), dT undefined.
"""

from __future__ import annotations

import json
import math

import pytest

from homesim.evaluation.measures import Measure, Measures, finite
from homesim.evaluation.metrics import bootstrap_interval, figures, metric, summarize
from homesim.evaluation.objectnav.metrics import OBJECTNAV_MEASURES, OBJECTNAV_METRICS
from homesim.evaluation.records import EpisodeRecord

ALL = ("intentionality", "validity", "proximity", "visibility")
TERMS = OBJECTNAV_METRICS.terms


def rec(
    episode_id: str,
    d0: float | None,
    d_t: float | None,
    path: float,
    failed: tuple[str, ...] = (),
    *,
    steps: int = 10,
    collisions: int = 0,
    category: str = "chair",
    difficulty: str = "easy",
    required: tuple[str, ...] = ALL,
    split: str = "val",
) -> EpisodeRecord:
    criteria = {name: name not in failed for name in (*ALL, "oracle_visibility")}
    met = all(criteria[c] for c in required)
    return EpisodeRecord(
        episode_id=episode_id,
        annotation=0,
        split=split,
        task_type=category,
        actions=[["MOVE_FORWARD", None]] * steps,
        action_success=[True] * steps,
        failures=[],
        conditions_met=int(met),
        conditions_total=1,
        goal_satisfied=met,
        path_length=steps,
        reference_length=0,
        stopped="intentionality" not in failed,
        end_reason="stop" if "intentionality" not in failed else "max_steps",
        suite="objectnav",
        measures={
            "category": category,
            "difficulty": difficulty,
            "geodesic_distance": d0,
            "distance_to_goal": d_t,
            "agent_path_length": path,
            "collisions": collisions,
            "criteria": criteria,
            "required": list(required),
        },
    )


def values(record: EpisodeRecord) -> dict:
    return OBJECTNAV_MEASURES.of(record)


# --- one episode at a time ---------------------------------------------------------------------------------


def test_a_success_on_a_longer_path():
    # d0 4, p 5: SPL = 4/5; soft SPL = (1 - 0/4) * 4/5
    v = values(rec("a", 4.0, 0.0, 5.0))
    assert v["success"] == 1.0 and v["spl"] == pytest.approx(0.8) and v["soft_spl"] == pytest.approx(0.8)


def test_a_path_shorter_than_the_geodesic_is_capped():
    # p < d0 (the success zone reached before the nearest view point): weight d0/max(d0, p) = 1
    assert values(rec("a", 4.0, 0.5, 3.0))["spl"] == 1.0
    # soft SPL: (1 - 0.5/4) * 1 = 0.875
    assert values(rec("a", 4.0, 0.5, 3.0))["soft_spl"] == pytest.approx(0.875)


def test_a_failure_has_no_spl_but_soft_spl_counts_progress():
    # stopped 1 m short of a 4 m goal after 6 m: soft SPL = (1 - 1/4) * 4/6 = 0.5
    v = values(rec("f", 4.0, 1.0, 6.0, failed=("proximity",)))
    assert v["success"] == 0.0 and v["spl"] == 0.0 and v["soft_spl"] == pytest.approx(0.5)
    assert v["distance_to_goal"] == 1.0


def test_ending_farther_than_the_start_gives_no_progress():
    # dT 6 > d0 4: max(0, 1 - 6/4) = 0
    assert values(rec("g", 4.0, 6.0, 3.0, failed=("proximity",)))["soft_spl"] == 0.0


@pytest.mark.parametrize("failed", ALL)
def test_any_required_criterion_failing_fails_the_episode(failed):
    assert values(rec("x", 2.0, 0.0, 2.0, failed=(failed,)))["success"] == 0.0
    assert values(rec("x", 2.0, 0.0, 2.0, failed=(failed,)))["spl"] == 0.0


def test_only_the_required_criteria_count():
    # strict visibility failed, but this evaluation asked for oracle visibility instead
    oracle = ("intentionality", "validity", "proximity", "oracle_visibility")
    record = rec("v", 2.0, 0.0, 2.5, failed=("visibility",), required=oracle)
    assert values(record)["success"] == 1.0 and values(record)["spl"] == pytest.approx(0.8)
    assert values(rec("v", 2.0, 0.0, 2.5, failed=("visibility",)))["success"] == 0.0


def test_no_required_criterion_is_no_success():
    assert values(rec("n", 2.0, 0.0, 2.0, required=()))["success"] == 0.0


def test_steps_and_collisions():
    v = values(rec("s", 2.0, 0.0, 2.0, steps=37, collisions=4))
    assert v["num_steps"] == 37.0 and v["collisions"] == 4.0


# --- edge cases -----------------------------------------------------------------------------------------------


def test_start_inside_the_success_zone_and_stop_at_once():
    # d0 = 0, p = 0: weight 1 (nothing is shorter), progress 1 (ends on a view point)
    v = values(rec("z", 0.0, 0.0, 0.0, steps=0))
    assert v == {
        "success": 1.0,
        "spl": 1.0,
        "distance_to_goal": 0.0,
        "soft_spl": 1.0,
        "num_steps": 0.0,
        "collisions": 0.0,
    }


def test_start_inside_the_success_zone_and_wander():
    # d0 = 0, p = 3: weight 0/3 = 0, whatever the success
    v = values(rec("w", 0.0, 0.0, 3.0))
    assert v["success"] == 1.0 and v["spl"] == 0.0 and v["soft_spl"] == 0.0
    v = values(rec("w", 0.0, 1.5, 3.0, failed=("proximity",)))
    assert v["spl"] == 0.0 and v["soft_spl"] == 0.0


def test_a_zero_length_path_away_from_the_goal():
    # d0 3, p 0: weight 3/3 = 1, progress 1 - 3/3 = 0
    v = values(rec("p", 3.0, 3.0, 0.0, failed=("proximity",), steps=0))
    assert v["spl"] == 0.0 and v["soft_spl"] == 0.0 and v["distance_to_goal"] == 3.0


def test_a_zero_length_path_that_succeeds():
    # the criteria met where the view-point lattice says 0.2 m to go: weight 1, progress 0
    v = values(rec("q", 0.2, 0.2, 0.0, steps=0))
    assert v["spl"] == 1.0 and v["soft_spl"] == 0.0


@pytest.mark.parametrize("unreachable", [None, math.inf, math.nan, "far"])
def test_an_unreachable_goal_gives_finite_figures(unreachable):
    # d0 undefined: the limit d0 -> infinity gives weight 1, so SPL = soft SPL = S; dT undefined is left out
    failed = values(rec("u", unreachable, unreachable, 7.0, failed=("proximity",)))
    assert failed["spl"] == 0.0 and failed["soft_spl"] == 0.0 and failed["distance_to_goal"] is None
    succeeded = values(rec("u", unreachable, 0.0, 7.0))
    assert succeeded["spl"] == 1.0 and succeeded["soft_spl"] == 1.0


def test_an_end_no_path_leaves_is_left_out_of_the_mean_distance():
    records = [rec("a", 4.0, 2.0, 5.0, failed=("proximity",)), rec("b", 4.0, None, 5.0, failed=("proximity",))]
    assert metric(records, "distance_to_goal", TERMS) == 2.0
    # soft SPL of b: no progress measurable -> 0; of a: (1 - 2/4) * 4/5 = 0.4; mean 0.2
    assert metric(records, "soft_spl", TERMS) == pytest.approx(0.2)
    assert metric([records[1]], "distance_to_goal", TERMS) is None


def test_no_nan_or_inf_reaches_a_summary_of_edge_cases():
    records = [
        rec("z", 0.0, 0.0, 0.0, steps=0),
        rec("w", 0.0, 0.0, 3.0),
        rec("u", None, None, 7.0, failed=("proximity",)),
        rec("i", math.inf, math.inf, 7.0, failed=("proximity",)),
        rec("n", math.nan, math.nan, math.nan, failed=("proximity",)),
        rec("p", 3.0, 3.0, 0.0, failed=("intentionality",), steps=0),
    ]
    summary = summarize(records, samples=50, metrics=OBJECTNAV_METRICS)
    text = json.dumps(summary, allow_nan=False)  # raises on NaN or infinity
    assert "NaN" not in text and "Infinity" not in text


def test_a_measure_answering_nan_is_refused():
    broken = Measures((Measure("x", (), lambda r, read: math.nan),))
    with pytest.raises(ValueError, match="measure 'x' of episode z is nan"):
        broken.of(rec("z", 1.0, 0.0, 1.0))


def test_finite_reads_numbers_only():
    assert finite(2) == 2.0 and finite(0.5) == 0.5
    assert [finite(v) for v in (None, math.inf, -math.inf, math.nan, "1", True)] == [None] * 6


# --- over episodes --------------------------------------------------------------------------------------------

# a: S, d0 4, dT 0,   p 5   -> SPL 0.8,  soft 0.8
# b: S, d0 2, dT 0.5, p 2   -> SPL 1,    soft (1 - 0.25) * 1 = 0.75
# c: F, d0 5, dT 2.5, p 10  -> SPL 0,    soft (1 - 0.5) * 0.5 = 0.25
# d: F, d0 3, dT 3,   p 0   -> SPL 0,    soft 0
FOUR = [
    rec("a", 4.0, 0.0, 5.0, steps=30, collisions=2, category="chair", difficulty="medium"),
    rec("b", 2.0, 0.5, 2.0, steps=12, collisions=0, category="bed", difficulty="easy"),
    rec("c", 5.0, 2.5, 10.0, failed=("visibility",), steps=60, collisions=6, category="chair", difficulty="hard"),
    rec("d", 3.0, 3.0, 0.0, failed=("intentionality", "proximity"), steps=500, category="toilet", difficulty="medium"),
]


def test_figures_are_means_over_episodes():
    assert metric(FOUR, "success", TERMS) == 0.5
    assert metric(FOUR, "spl", TERMS) == pytest.approx(0.45)  # (0.8 + 1) / 4
    assert metric(FOUR, "soft_spl", TERMS) == pytest.approx(0.45)  # (0.8 + 0.75 + 0.25 + 0) / 4
    assert metric(FOUR, "distance_to_goal", TERMS) == pytest.approx(1.5)  # (0 + 0.5 + 2.5 + 3) / 4
    assert metric(FOUR, "num_steps", TERMS) == pytest.approx(150.5)  # (30 + 12 + 60 + 500) / 4
    assert metric(FOUR, "collisions", TERMS) == 2.0


def test_summaries_break_down_by_difficulty_and_category():
    summary = summarize(FOUR, samples=100, metrics=OBJECTNAV_METRICS)["val"]
    assert summary["all"]["episodes"] == 4
    assert list(summary["by_difficulty"]) == ["easy", "hard", "medium"]
    assert list(summary["by_category"]) == ["bed", "chair", "toilet"]
    medium = summary["by_difficulty"]["medium"]
    assert medium["episodes"] == 2 and medium["spl"]["value"] == pytest.approx(0.4)  # (0.8 + 0) / 2
    chair = summary["by_category"]["chair"]
    assert chair["success"]["value"] == 0.5 and chair["soft_spl"]["value"] == pytest.approx(0.525)  # (0.8+0.25)/2


def test_intervals_hold_the_value_and_are_seeded():
    for name in ("success", "spl", "soft_spl", "distance_to_goal"):
        low, high = bootstrap_interval(FOUR, name, terms=TERMS)
        assert low <= metric(FOUR, name, TERMS) <= high
        assert bootstrap_interval(FOUR, name, terms=TERMS) == [low, high]
    assert figures(FOUR, 100, OBJECTNAV_METRICS)["success"]["ci95"] == [0.0, 1.0]


def test_measures_come_after_what_they_read_whatever_the_declared_order():
    names = [m.name for m in OBJECTNAV_MEASURES.ordered]
    assert names.index("success") < names.index("spl")
    assert names.index("distance_to_goal") < names.index("soft_spl")
    late = Measures((Measure("b", ("a",), lambda r, read: read["a"] + 1), Measure("a", (), lambda r, read: 1.0)))
    assert late.of(FOUR[0]) == {"a": 1.0, "b": 2.0}


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="reads 'nothing', which is not declared"):
        Measures((Measure("a", ("nothing",), lambda r, read: 0.0),))
    with pytest.raises(ValueError, match="cycle: a -> b -> a"):
        Measures((Measure("a", ("b",), lambda r, read: 0.0), Measure("b", ("a",), lambda r, read: 0.0)))
    with pytest.raises(ValueError, match="declared twice"):
        Measures((Measure("a", (), lambda r, read: 0.0), Measure("a", (), lambda r, read: 0.0)))
