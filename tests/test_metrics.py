"""ALFRED's metrics on hand-built episode records. Every expected value is worked out by hand and written
as a literal, so that a test fails if any formula changes:

* task success = successes / N;
* goal-condition success, pooled = sum(met) / sum(total);
* PLW = sum(s * min(1, L*/L) * L*) / sum(L*), with s = goal_satisfied (task) or met/total (goal-cond);
* an agent that stops at step 0 (L = 0) has weight 1; a zero-length expert (L* = 0) adds nothing.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from homesim.evaluation.alfred.subgoals import summarize_subgoals
from homesim.evaluation.metrics import (
    TERMS,
    bootstrap_interval,
    bootstrap_intervals,
    common_failure,
    figures,
    metric,
    summarize,
)
from homesim.evaluation.records import EpisodeRecord

METRICS = ("task_success", "goal_condition_success", "plw_task_success", "plw_goal_condition_success")


def rec(
    episode_id: str,
    satisfied: bool,
    met: int,
    total: int,
    path_length: int,
    reference_length: int,
    *,
    split: str = "valid_seen",
    task_type: str = "pick_and_place_simple",
    end_reason: str = "stop",
    annotation: int = 0,
    subgoal: dict | None = None,
) -> EpisodeRecord:
    return EpisodeRecord(
        episode_id=episode_id,
        annotation=annotation,
        split=split,
        task_type=task_type,
        actions=[["RotateLeft_90", None]] * path_length,
        action_success=[True] * path_length,
        failures=[],
        conditions_met=met,
        conditions_total=total,
        goal_satisfied=satisfied,
        path_length=path_length,
        reference_length=reference_length,
        stopped=end_reason == "stop",
        end_reason=end_reason,
        subgoal=subgoal,
    )


# Six episodes (s = success, met/total, L = path length, L* = expert length, efficiency min(1, L*/L)):
#   a  success 2/2  L 10    L* 10  eff 1
#   b  success 3/3  L 20    L* 10  eff 0.5
#   c  fail    1/4  L 5     L* 8   eff 1 (shorter than the expert: capped)
#   d  fail    0/2  L 0     L* 6   eff 1 (stopped at step 0)
#   e  fail    1/2  L 1000  L* 12  eff 0.012 (hit max_steps)
#   f  fail    2/3  L 10    L* 4   eff 0.4 (hit max_fails)
SIX = [
    rec("a", True, 2, 2, 10, 10),
    rec("b", True, 3, 3, 20, 10),
    rec("c", False, 1, 4, 5, 8),
    rec("d", False, 0, 2, 0, 6),
    rec("e", False, 1, 2, 1000, 12, end_reason="max_steps"),
    rec("f", False, 2, 3, 10, 4, end_reason="max_fails"),
]


def test_task_success_is_successes_over_episodes():
    assert metric(SIX, "task_success") == pytest.approx(2 / 6)
    assert metric(SIX, "task_success") == pytest.approx(0.3333333333)


def test_goal_condition_success_is_pooled_not_averaged():
    # sum(met) = 2+3+1+0+1+2 = 9; sum(total) = 2+3+4+2+2+3 = 16. (The mean of ratios would be 0.5694.)
    assert metric(SIX, "goal_condition_success") == pytest.approx(0.5625)


def test_plw_task_success():
    # sum(L*) = 50; a: 1*1*10 = 10, b: 1*0.5*10 = 5, the failures 0 -> 15/50
    assert metric(SIX, "plw_task_success") == pytest.approx(0.3)


def test_plw_goal_condition_success():
    # a 1*1*10 = 10; b 1*0.5*10 = 5; c 0.25*1*8 = 2; d 0; e 0.5*0.012*12 = 0.072; f (2/3)*0.4*4 = 1.0666667
    # -> 18.1386667 / 50
    assert metric(SIX, "plw_goal_condition_success") == pytest.approx(0.3627733333)


def test_plw_never_exceeds_the_unweighted_figure():
    assert metric(SIX, "plw_task_success") <= metric(SIX, "task_success")


def test_episodes_over_the_limits_count_as_episodes():
    over = [r for r in SIX if r.end_reason != "stop"]
    assert [r.end_reason for r in over] == ["max_steps", "max_fails"]
    assert metric(over, "task_success") == 0.0
    assert metric(over, "goal_condition_success") == pytest.approx(0.6)  # (1+2) / (2+3)
    # e: 0.5*0.012*12 = 0.072; f: (2/3)*0.4*4 = 1.0666667; / (12+4)
    assert metric(over, "plw_goal_condition_success") == pytest.approx(0.0711666667)
    assert metric(over, "plw_task_success") == 0.0


# --- stop at step 0 ----------------------------------------------------------------------------------


def test_an_agent_that_stops_at_step_0_has_weight_1_and_no_division_by_zero():
    stopped_at_0 = rec("z", True, 1, 1, 0, 5)  # L = 0
    assert metric([stopped_at_0], "plw_task_success") == 1.0
    assert metric([stopped_at_0], "plw_goal_condition_success") == 1.0


def test_a_stop_at_step_0_is_counted_not_dropped():
    # ALFRED's code divides by L and so drops the first; here it is one of two episodes.
    records = [rec("z", False, 0, 2, 0, 5), rec("y", True, 2, 2, 10, 5)]
    assert metric(records, "task_success") == 0.5
    assert metric(records, "goal_condition_success") == 0.5
    # z: fail, L 0, L* 5 -> 0;  y: success, L 10, L* 5 -> 1 * 0.5 * 5 = 2.5;  sum(L*) = 10
    assert metric(records, "plw_task_success") == pytest.approx(0.25)
    assert metric(records, "plw_goal_condition_success") == pytest.approx(0.25)


# --- zero-length expert -------------------------------------------------------------------------------


def test_a_zero_length_expert_contributes_nothing_to_plw():
    zero = rec("zero", True, 1, 1, 3, 0)  # L* = 0: its term and its weight are both 0
    assert metric([rec("a", True, 2, 2, 10, 10), zero], "plw_task_success") == 1.0
    assert metric([rec("c", False, 1, 4, 5, 8), zero], "plw_task_success") == 0.0
    assert metric([rec("c", False, 1, 4, 5, 8), zero], "task_success") == 0.5  # still one of two episodes


def test_only_zero_length_experts_give_no_plw():
    records = [rec("zero", True, 1, 1, 3, 0), rec("zero2", False, 0, 1, 0, 0)]
    assert metric(records, "plw_task_success") is None
    assert metric(records, "plw_goal_condition_success") is None
    assert metric(records, "task_success") == 0.5
    assert bootstrap_interval(records, "plw_task_success") is None


def test_no_goal_conditions_at_all_gives_no_goal_condition_success():
    assert metric([rec("x", False, 0, 0, 4, 4)], "goal_condition_success") is None
    assert metric([rec("x", False, 0, 0, 4, 4), rec("y", False, 1, 2, 4, 4)], "goal_condition_success") == 0.5


# --- no records ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRICS)
def test_no_records_gives_none(name):
    assert metric([], name) is None
    assert bootstrap_interval([], name) is None


def test_figures_of_no_records():
    empty = {name: {"value": None, "ci95": None} for name in METRICS}
    assert figures([]) == {"episodes": 0, **empty}


def test_figures_give_mean_path_length_and_text_commands_where_there_are_any():
    embodied = [rec("a", True, 1, 1, 10, 10), rec("b", False, 0, 1, 20, 10)]
    assert figures(embodied)["mean_path_length"] == 15.0 and "mean_commands" not in figures(embodied)
    text = [replace(r, commands=n) for r, n in zip(embodied, (3, 6), strict=True)]
    assert figures(text)["mean_commands"] == 4.5


def test_the_metric_set_is_alfreds_four():
    assert set(TERMS) == set(METRICS)


# --- bootstrap intervals --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRICS)
def test_bootstrap_is_deterministic(name):
    assert bootstrap_interval(SIX, name) == bootstrap_interval(SIX, name)
    assert bootstrap_interval(SIX, name, seed=7) == bootstrap_interval(SIX, name, seed=7)
    assert figures(SIX)[name]["ci95"] == figures(SIX)[name]["ci95"]


@pytest.mark.parametrize("name", METRICS)
def test_bootstrap_interval_contains_the_value(name):
    low, high = bootstrap_interval(SIX, name)
    assert low < high
    assert low <= metric(SIX, name) <= high
    assert 0.0 <= low and high <= 1.0


def test_one_set_of_draws_gives_every_metric_the_interval_of_resampling_it_alone():
    """The reference: each sample's sum over its drawn episodes, on every metric's own draws of seed 0, on
    records whose PLW terms are fractions (where the order of adding changes the last bits)."""
    rng = np.random.default_rng(3)
    drawn = zip(rng.integers(2, size=97), rng.integers(0, 4, 97), rng.integers(0, 40, 97), rng.integers(1, 30, 97))
    records = [rec(f"r{i}", bool(s), int(met), 4, int(n), int(expert)) for i, (s, met, n, expert) in enumerate(drawn)]
    for samples in (2, 250):  # (one sample alone numpy sums pairwise: the last bits may differ)
        expected = {}
        for name in METRICS:
            terms = np.array([TERMS[name](r) for r in records])
            sums = terms[np.random.default_rng(0).integers(len(records), size=(samples, len(records)))].sum(axis=1)
            defined = sums[:, 1] > 0
            expected[name] = [float(x) for x in np.percentile(sums[defined, 0] / sums[defined, 1], [2.5, 97.5])]
        assert bootstrap_intervals(records, METRICS, samples) == expected
        assert {name: bootstrap_interval(records, name, samples) for name in METRICS} == expected


def test_bootstrap_interval_is_a_point_when_all_records_agree():
    all_succeed = [rec(f"s{i}", True, 2, 2, 10 + i, 10) for i in range(5)]
    assert bootstrap_interval(all_succeed, "task_success") == [1.0, 1.0]
    assert bootstrap_interval(all_succeed, "goal_condition_success") == [1.0, 1.0]
    all_fail = [rec(f"f{i}", False, 1, 2, 10, 10) for i in range(5)]
    assert bootstrap_interval(all_fail, "task_success") == [0.0, 0.0]
    assert bootstrap_interval(all_fail, "goal_condition_success") == [0.5, 0.5]
    assert bootstrap_interval(all_fail, "plw_goal_condition_success") == [0.5, 0.5]


def test_figures_holds_value_and_interval_per_metric():
    result = figures(SIX, samples=200)
    assert result["episodes"] == 6
    assert result["task_success"]["value"] == pytest.approx(0.3333333333)
    assert result["goal_condition_success"]["value"] == pytest.approx(0.5625)
    assert result["plw_task_success"]["value"] == pytest.approx(0.3)
    assert result["plw_goal_condition_success"]["value"] == pytest.approx(0.3627733333)
    assert all(len(result[name]["ci95"]) == 2 for name in METRICS)


# --- summaries ----------------------------------------------------------------------------------------


def _summary_records() -> list[EpisodeRecord]:
    return [
        rec("a", True, 1, 1, 4, 4, split="valid_seen", task_type="pick_and_place_simple"),
        rec("b", False, 0, 1, 8, 4, split="valid_seen", task_type="pick_and_place_simple"),
        rec("c", True, 3, 3, 20, 10, split="valid_seen", task_type="pick_heat_then_place_in_recep"),
        rec("d", False, 1, 2, 10, 5, split="valid_unseen", task_type="look_at_obj_in_light"),
        # a sub-goal record: ignored by `summarize`
        rec("a", True, 1, 1, 2, 2, subgoal={"index": 0, "action": "GotoLocation", "success": True}),
    ]


def test_summarize_groups_by_split_then_task_type():
    summary = summarize(_summary_records(), samples=100)
    assert list(summary) == ["valid_seen", "valid_unseen"]
    seen = summary["valid_seen"]
    assert list(seen["by_task_type"]) == ["pick_and_place_simple", "pick_heat_then_place_in_recep"]
    assert seen["all"]["episodes"] == 3  # the sub-goal record is not one of them
    assert seen["all"]["task_success"]["value"] == pytest.approx(0.6666666667)
    assert seen["all"]["goal_condition_success"]["value"] == pytest.approx(0.8)  # 4/5
    # a 1*1*4 = 4; b 0; c 1*0.5*10 = 5 -> 9/18
    assert seen["all"]["plw_task_success"]["value"] == pytest.approx(0.5)
    simple = seen["by_task_type"]["pick_and_place_simple"]
    assert simple["episodes"] == 2 and simple["task_success"]["value"] == 0.5
    assert simple["plw_task_success"]["value"] == 0.5  # 4 / 8
    heat = seen["by_task_type"]["pick_heat_then_place_in_recep"]
    assert heat["episodes"] == 1 and heat["plw_task_success"]["value"] == 0.5
    unseen = summary["valid_unseen"]
    assert unseen["all"]["episodes"] == 1 and list(unseen["by_task_type"]) == ["look_at_obj_in_light"]
    assert unseen["all"]["task_success"]["value"] == 0.0
    assert unseen["all"]["goal_condition_success"]["value"] == 0.5
    # d: s = 1/2, L 10, L* 5: 0.5 * min(1, 5/10) * 5 / 5
    assert unseen["all"]["plw_goal_condition_success"]["value"] == pytest.approx(0.25)


def test_summarize_does_not_depend_on_record_order():
    records = _summary_records()
    assert summarize(records, samples=100) == summarize(list(reversed(records)), samples=100)


def test_summarize_of_only_subgoal_records_is_empty():
    subgoal_only = [r for r in _summary_records() if r.subgoal is not None]
    assert summarize(subgoal_only) == {}
    assert summarize([]) == {}


def test_summarize_subgoals_groups_by_split_and_subgoal_type():
    def sub(episode, index, action, ok, path, ref, split="valid_seen"):
        return rec(
            episode, ok, int(ok), 1, path, ref, split=split, subgoal={"index": index, "action": action, "success": ok}
        )

    records = [
        sub("a", 0, "GotoLocation", True, 5, 5),
        sub("a", 2, "GotoLocation", False, 10, 4),
        sub("a", 1, "PickupObject", True, 2, 1),
        sub("b", 0, "GotoLocation", True, 6, 3, split="train"),
        rec("a", True, 1, 1, 4, 4),  # a whole-episode record: ignored
    ]
    summary = summarize_subgoals(records, samples=100)
    assert list(summary) == ["train", "valid_seen"]
    assert list(summary["valid_seen"]) == ["GotoLocation", "PickupObject"]
    goto = summary["valid_seen"]["GotoLocation"]
    assert goto["episodes"] == 2
    assert goto["task_success"]["value"] == 0.5
    assert goto["plw_task_success"]["value"] == pytest.approx(5 / 9)  # (1*1*5 + 0) / (5+4)
    pickup = summary["valid_seen"]["PickupObject"]
    assert pickup["episodes"] == 1 and pickup["plw_task_success"]["value"] == 0.5  # min(1, 1/2)
    assert summary["train"]["GotoLocation"]["plw_task_success"]["value"] == 0.5  # min(1, 3/6)
    assert summarize_subgoals([rec("a", True, 1, 1, 4, 4)]) == {}


# --- a run that failed one way throughout -----------------------------------------------------------------------


def test_a_run_whose_every_failure_has_one_reason_and_no_success_is_flagged():
    why = "PickupObject needs a 300x300 boolean mask, got str"
    records = [replace(rec(k, False, 0, 1, 10, 10), failures=[[2, why], [5, why]]) for k in "abc"]
    assert common_failure(records) == (
        f"no episode succeeded, and all 6 failed steps (in 3 episodes) failed for one reason: {why}"
    )
    assert common_failure(records[:2] + [replace(records[2], failures=[[1, "another reason"]])]) is None
    assert common_failure(records[:2] + [rec("d", True, 1, 1, 10, 10)]) is None
    assert common_failure([rec("e", False, 0, 1, 10, 10)]) is None  # no failed step: nothing to say
