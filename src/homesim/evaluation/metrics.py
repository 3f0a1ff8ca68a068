"""Metrics as pure functions over episode records, for every suite.

A suite declares its metrics as a `MetricSet`: each metric a ratio of sums over episodes (its numerator and
denominator for one episode, read off the record), the means it reports, and the breakdowns of its tables
(ALFRED: per task type). `summarize` gives the figures per split and per breakdown, each with a 95%
bootstrap confidence interval (resampling episodes). `homesim.evaluation.suites` lists every suite's set.

ALFRED's metrics, exactly as its evaluation code defines them, with the edge cases its code gets wrong
guarded (an agent that stops at step 0 is counted):

* task success: the share of episodes whose goal is satisfied at the end;
* goal-condition success: pooled, sum(conditions met) / sum(conditions total);
* path-length weighted (PLW): sum(s * min(1, L*/L) * L*) / sum(L*), where s is the episode's score
  (success, or its goal-condition ratio), L* the expert's length and L the agent's path length.
  An episode with L = 0 has weight 1 (it cannot be shorter than the expert); with sum(L*) = 0 the
  PLW figures are undefined (None).

"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from homesim.evaluation.records import EpisodeRecord

BOOTSTRAP_SAMPLES = 1000


def _efficiency(r: EpisodeRecord) -> float:
    """ALFRED's min(1, L*/L): 1 for an episode that took no step."""
    return 1.0 if r.path_length == 0 else min(1.0, r.reference_length / r.path_length)


def _condition_ratio(r: EpisodeRecord) -> float:
    return r.conditions_met / r.conditions_total if r.conditions_total else 0.0


Term = Callable[[EpisodeRecord], tuple[float, float]]  # one episode's (numerator, denominator) of a metric


@dataclass(frozen=True)
class MetricSet:
    """A suite's metrics: `terms` (name -> one episode's share of a ratio of sums), `means` (name -> one
    episode's value, None where it has none; the mean is over those that have one) and `breakdowns` (a
    summary key such as "by_task_type" -> the group a record falls in)."""

    terms: Mapping[str, Term]
    means: Mapping[str, Callable[[EpisodeRecord], float | None]]
    breakdowns: Mapping[str, Callable[[EpisodeRecord], str]]
    reads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # declared measures: the others each reads


TERMS: dict[str, Term] = {
    "task_success": lambda r: (float(r.goal_satisfied), 1.0),
    "goal_condition_success": lambda r: (float(r.conditions_met), float(r.conditions_total)),
    "plw_task_success": lambda r: (r.goal_satisfied * _efficiency(r) * r.reference_length, float(r.reference_length)),
    "plw_goal_condition_success": lambda r: (
        _condition_ratio(r) * _efficiency(r) * r.reference_length,
        float(r.reference_length),
    ),
}


def _terms(records: Sequence[EpisodeRecord], term: Term) -> np.ndarray:
    return np.array([term(r) for r in records], dtype=np.float64).reshape(-1, 2)


def metric(records: Sequence[EpisodeRecord], name: str, terms: Mapping[str, Term] = TERMS) -> float | None:
    """A metric's value, or None where it is undefined (no episodes, no conditions, no expert length)."""
    numerator, denominator = _terms(records, terms[name]).sum(axis=0)
    return float(numerator / denominator) if denominator else None


def bootstrap_interval(
    records: Sequence[EpisodeRecord],
    name: str,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    terms: Mapping[str, Term] = TERMS,
) -> list[float] | None:
    """The 95% percentile bootstrap interval of a metric, resampling episodes with replacement."""
    return bootstrap_intervals(records, (name,), samples, seed, terms)[name]


def bootstrap_intervals(
    records: Sequence[EpisodeRecord],
    names: Sequence[str],
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    terms: Mapping[str, Term] = TERMS,
) -> dict[str, list[float] | None]:
    """`bootstrap_interval` of each metric named, from one set of draws (each metric drew the same ones on
    its own). The draws are laid out episode by episode and each term's column is gathered alone: summed
    over that first axis, numpy adds the episodes one after another for all samples at once, the order
    (and so the bits) in which it sums each sample's episodes (of two samples or more), at a fraction of
    the cost (an ALFRED summary of 820 records took 0.25 CPU s, most of it here; now 0.04)."""
    if not records:
        return dict.fromkeys(names)
    draws = np.random.default_rng(seed).integers(len(records), size=(samples, len(records))).T.copy()
    intervals: dict[str, list[float] | None] = {}
    for name in names:
        numerators, denominators = (column[draws].sum(axis=0) for column in _terms(records, terms[name]).T)
        defined = denominators > 0
        if not defined.any():
            intervals[name] = None
            continue
        low, high = np.percentile(numerators[defined] / denominators[defined], [2.5, 97.5])
        intervals[name] = [float(low), float(high)]
    return intervals


def mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


ALFRED_METRICS = MetricSet(
    terms=TERMS,
    means={"mean_path_length": lambda r: r.path_length, "mean_commands": lambda r: r.commands},
    breakdowns={"by_task_type": lambda r: r.task_type},
)


def figures(
    records: Sequence[EpisodeRecord], samples: int = BOOTSTRAP_SAMPLES, metrics: MetricSet = ALFRED_METRICS
) -> dict:
    """Every metric with its interval: {"episodes": n, name: {"value", "ci95"}}, and every mean of the set
    (a mean no record has a value for is left out: text commands of embodied records, any mean of none)."""
    result: dict = {"episodes": len(records)}
    intervals = bootstrap_intervals(records, tuple(metrics.terms), samples, terms=metrics.terms)
    for name in metrics.terms:
        result[name] = {"value": metric(records, name, metrics.terms), "ci95": intervals[name]}
    for name, value_of in metrics.means.items():
        values = [v for v in map(value_of, records) if v is not None]
        if values:
            result[name] = mean(values)
    return result


def summarize(
    records: Sequence[EpisodeRecord], samples: int = BOOTSTRAP_SAMPLES, metrics: MetricSet = ALFRED_METRICS
) -> dict:
    """The figures per split and, within each split, per group of each breakdown (ALFRED: per task type,
    the paper's Table A1). Sub-goal records are summarized by `homesim.evaluation.alfred.subgoals` instead."""
    ordered = sorted((r for r in records if r.subgoal is None), key=lambda r: r.key)
    by_split: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in ordered:
        by_split[r.split].append(r)
    summary = {}
    for split, rs in sorted(by_split.items()):
        summary[split] = {"all": figures(rs, samples, metrics)}
        for breakdown, group_of in metrics.breakdowns.items():
            groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
            for r in rs:
                groups[group_of(r)].append(r)
            summary[split][breakdown] = {g: figures(grs, samples, metrics) for g, grs in sorted(groups.items())}
    return summary


def common_failure(records: Sequence[EpisodeRecord]) -> str | None:
    """A warning when a run went wrong in one way throughout: no episode reached its goal and every failed
    step failed for one and the same reason (an agent answering ids where masks are due, say)."""
    reasons = [str(why) for r in records for _, why in r.failures]
    if not reasons or any(r.goal_satisfied for r in records) or len(set(reasons)) > 1:
        return None
    episodes = sum(1 for r in records if r.failures)
    return f"no episode succeeded, and all {len(reasons)} failed steps (in {episodes} episodes) failed for one reason: {reasons[0]}"


def agent_summary(records: Sequence[EpisodeRecord]) -> dict | None:
    """What the agents reported of their episodes (`measures["agent"]`, `agents.protocol.Agent.measures`) over a
    run: numbers summed, counts by name summed, words (a finish reason) counted; lists (transcripts) left out.
    None when no agent reported anything (the summary then has no "agent" part)."""
    reported = [r.measures["agent"] for r in records if isinstance(r.measures.get("agent"), dict)]
    if not reported:
        return None
    total: dict = {"episodes": len(reported)}
    for figures in reported:
        for name, value in figures.items():
            if isinstance(value, bool) or value is None or isinstance(value, list):
                continue
            if isinstance(value, int | float):
                total[name] = total.get(name, 0) + value
            elif isinstance(value, str):
                total.setdefault(name, {})[value] = total.get(name, {}).get(value, 0) + 1
            elif isinstance(value, dict):
                counts = total.setdefault(name, {})
                for key, n in value.items():
                    if isinstance(n, int | float) and not isinstance(n, bool):
                        counts[key] = counts.get(key, 0) + n
    return {k: (round(v, 6) if isinstance(v, float) else dict(sorted(v.items())) if isinstance(v, dict) else v)
            for k, v in sorted(total.items())}  # fmt: skip
