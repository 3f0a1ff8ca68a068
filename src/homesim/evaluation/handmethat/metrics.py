"""HandMeThat's metrics, as its evaluation script computes them, over episode records:

* score: the mean episode score, 100 x success minus the total action cost (each action 1, inventory, help
  and stop included; look and examine 0; questions their own cost: their `data_generation/text_interface/
  env.py`), so an agent that says 40 ordinary commands and never succeeds scores -40;
* success rate: the share of episodes with a score above 0 (their script's test, not the goal flag: an
  episode that reaches the goal after spending more than 100 has failed);
* moves in successful episodes: the mean number of commands said in the episodes that succeeded
  (undefined, "N/A" in their tables, when none did);
* question cost: the mean cost of the clarification questions asked, which their env counts apart.

Each is reported per split, per hardness level and per quest type (the layout of the paper's Tables 2
and 3), with a 95% bootstrap interval. A record carries its figures in `measures`: `score`, `moves`,
`question_cost`, `questions`, `level`, `quest_type`, and each command's reward (`rewards`), which
`homesim verify` checks them against.
"""

from __future__ import annotations

from homesim.evaluation.metrics import MetricSet, Term
from homesim.evaluation.records import EpisodeRecord


def succeeded(r: EpisodeRecord) -> bool:
    return r.measures["score"] > 0


TERMS: dict[str, Term] = {
    "score": lambda r: (float(r.measures["score"]), 1.0),
    "success_rate": lambda r: (float(succeeded(r)), 1.0),
    "moves_in_success": lambda r: (float(r.measures["moves"]), 1.0) if succeeded(r) else (0.0, 0.0),
    "question_cost": lambda r: (float(r.measures["question_cost"]), 1.0),
}

HANDMETHAT_METRICS = MetricSet(
    terms=TERMS,
    means={"mean_questions": lambda r: r.measures["questions"]},
    breakdowns={
        "by_level": lambda r: f"level {r.measures['level']}",
        "by_quest_type": lambda r: r.measures["quest_type"],
    },
)
