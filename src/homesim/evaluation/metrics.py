"""ALFRED's metrics as pure functions over episode records, exactly as its evaluation code defines them,
with the edge cases its code gets wrong guarded (an agent that stops at step 0 is counted).

* task success: the share of episodes whose goal is satisfied at the end;
* goal-condition success: pooled, sum(conditions met) / sum(conditions total);
* path-length weighted (PLW): sum(s * min(1, L*/L) * L*) / sum(L*), where s is the episode's score
  (success, or its goal-condition ratio), L* the expert's length and L the agent's path length.
  An episode with L = 0 has weight 1 (it cannot be shorter than the expert); with sum(L*) = 0 the
  PLW figures are undefined (None).

Every figure also gets a 95% bootstrap confidence interval (resampling episodes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from homesim.evaluation.records import EpisodeRecord

BOOTSTRAP_SAMPLES = 1000


def _efficiency(r: EpisodeRecord) -> float:
    """ALFRED's min(1, L*/L): 1 for an episode that took no step."""
    return 1.0 if r.path_length == 0 else min(1.0, r.reference_length / r.path_length)


def _condition_ratio(r: EpisodeRecord) -> float:
    return r.conditions_met / r.conditions_total if r.conditions_total else 0.0


# Each metric is a ratio of sums over episodes: (its numerator, its denominator) for one episode.
TERMS: dict[str, Callable[[EpisodeRecord], tuple[float, float]]] = {
    "task_success": lambda r: (float(r.goal_satisfied), 1.0),
    "goal_condition_success": lambda r: (float(r.conditions_met), float(r.conditions_total)),
    "plw_task_success": lambda r: (r.goal_satisfied * _efficiency(r) * r.reference_length, float(r.reference_length)),
    "plw_goal_condition_success": lambda r: (
        _condition_ratio(r) * _efficiency(r) * r.reference_length,
        float(r.reference_length),
    ),
}


def _terms(records: Sequence[EpisodeRecord], name: str) -> np.ndarray:
    return np.array([TERMS[name](r) for r in records], dtype=np.float64).reshape(-1, 2)


def metric(records: Sequence[EpisodeRecord], name: str) -> float | None:
    """A metric's value, or None where it is undefined (no episodes, no conditions, no expert length)."""
    numerator, denominator = _terms(records, name).sum(axis=0)
    return float(numerator / denominator) if denominator else None


def bootstrap_interval(
    records: Sequence[EpisodeRecord], name: str, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0
) -> list[float] | None:
    """The 95% percentile bootstrap interval of a metric, resampling episodes with replacement."""
    terms = _terms(records, name)
    if not len(terms):
        return None
    draws = np.random.default_rng(seed).integers(len(terms), size=(samples, len(terms)))
    sums = terms[draws].sum(axis=1)
    defined = sums[:, 1] > 0
    if not defined.any():
        return None
    low, high = np.percentile(sums[defined, 0] / sums[defined, 1], [2.5, 97.5])
    return [float(low), float(high)]


def mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def figures(records: Sequence[EpisodeRecord], samples: int = BOOTSTRAP_SAMPLES) -> dict:
    """Every metric with its interval: {"episodes": n, name: {"value", "ci95"}}, and the mean path length
    (low-level steps) and, for text-game records, the mean number of text commands."""
    said = [r.commands for r in records if r.commands is not None]
    return {
        "episodes": len(records),
        **{
            name: {"value": metric(records, name), "ci95": bootstrap_interval(records, name, samples)} for name in TERMS
        },
        "mean_path_length": mean([r.path_length for r in records]),
        **({"mean_commands": mean(said)} if said else {}),
    }


def summarize(records: Sequence[EpisodeRecord], samples: int = BOOTSTRAP_SAMPLES) -> dict:
    """The figures per split and, within each split, per task type (the ALFRED paper's Table A1).
    Sub-goal records are summarized by `homesim.evaluation.subgoals` instead."""
    ordered = sorted((r for r in records if r.subgoal is None), key=lambda r: r.key)
    by_split: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in ordered:
        by_split[r.split].append(r)
    summary = {}
    for split, rs in sorted(by_split.items()):
        by_type: dict[str, list[EpisodeRecord]] = defaultdict(list)
        for r in rs:
            by_type[r.task_type].append(r)
        summary[split] = {
            "all": figures(rs, samples),
            "by_task_type": {t: figures(trs, samples) for t, trs in sorted(by_type.items())},
        }
    return summary
