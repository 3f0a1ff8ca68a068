"""HandMeThat's metrics on hand-built records, every expected value worked out by hand:

* score = mean episode score; success = score > 0 (their script's test, not the goal flag);
* moves in successful episodes = mean moves over the episodes with score > 0, None (N/A) when none;
* per hardness level and quest type, with bootstrap intervals.
"""

from __future__ import annotations

from homesim.evaluation.handmethat.metrics import HANDMETHAT_METRICS
from homesim.evaluation.handmethat.report import handmethat_table, paper_cell
from homesim.evaluation.metrics import summarize
from homesim.evaluation.records import EpisodeRecord


def rec(episode_id: str, score: int, moves: int, level: int, quest: str = "bring_me", asked: int = 0) -> EpisodeRecord:
    won = score > 0 or moves > 100  # 100 - moves: more than 100 moves is a win with a score below 0
    return EpisodeRecord(
        episode_id=episode_id,
        annotation=0,
        split="test",
        task_type=quest,
        actions=[["look", None]] * moves,
        action_success=[True] * moves,
        failures=[],
        conditions_met=int(won),
        conditions_total=1,
        goal_satisfied=won,
        path_length=moves,
        reference_length=4,
        stopped=False,
        end_reason="goal_satisfied" if won else "max_steps",
        commands=moves,
        suite="handmethat",
        measures={
            "score": score,
            "moves": moves,
            "question_cost": asked,
            "questions": asked // 10,
            "level": level,
            "quest_type": quest,
        },
    )


# a: level 1, won in 4 moves (score 96); b: level 1, lost (40 moves, -40); c: level 2, won in 5 moves after one
# question (score 100 - 5 - 10 = 85); d: level 2, move_to, lost (-40).
RECORDS = [
    rec("a", 96, 4, 1),
    rec("b", -40, 40, 1),
    rec("c", 85, 5, 2, asked=10),
    rec("d", -40, 40, 2, quest="move_to"),
]


def test_overall_figures() -> None:
    figures = summarize(RECORDS, samples=200, metrics=HANDMETHAT_METRICS)["test"]["all"]
    assert figures["episodes"] == 4
    assert figures["score"]["value"] == (96 - 40 + 85 - 40) / 4
    assert figures["success_rate"]["value"] == 0.5
    assert figures["moves_in_success"]["value"] == 4.5
    assert figures["question_cost"]["value"] == 2.5
    low, high = figures["score"]["ci95"]
    assert -40 <= low <= 25.25 <= high <= 96


def test_breakdowns_by_level_and_quest_type() -> None:
    summary = summarize(RECORDS, samples=200, metrics=HANDMETHAT_METRICS)["test"]
    assert summary["by_level"]["level 1"]["score"]["value"] == 28.0
    assert summary["by_level"]["level 2"]["moves_in_success"]["value"] == 5.0
    assert summary["by_quest_type"]["move_to"]["success_rate"]["value"] == 0.0
    assert summary["by_quest_type"]["move_to"]["moves_in_success"]["value"] is None  # N/A: no success
    assert summary["by_quest_type"]["bring_me"]["episodes"] == 3


def test_success_is_a_positive_score_not_the_goal_flag() -> None:
    late = rec("late", -5, 105, 3)  # reached the goal after spending 105: their script counts a failure
    figures = summarize([late], samples=50, metrics=HANDMETHAT_METRICS)["test"]["all"]
    assert late.goal_satisfied and figures["success_rate"]["value"] == 0.0


def test_paper_cell_and_table() -> None:
    summary = summarize(RECORDS, samples=50, metrics=HANDMETHAT_METRICS)
    assert paper_cell(summary["test"]["all"]) == "25.2 (50.0%, 4.5)"
    assert paper_cell(summary["test"]["by_quest_type"]["move_to"]) == "-40.0 (0.0%, N/A)"
    table = handmethat_table({"splits": summary, "config": {"options": {"observability": "full"}}}, "random")
    headers = [c.header for c in table.columns]
    assert headers[:2] == ["split", "full\nlevel 1"]
    assert headers[5:] == [f"full\n{c}" for c in ("overall", "bring_me", "move_to", "change_state")]
    assert table.row_count == 1  # the one split
