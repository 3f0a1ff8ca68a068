"""The evaluation suites: what `homesim evaluate --suite NAME` runs. A suite gives its work items (the
units an evaluation is split into, in a fixed order), a runner that plays one work item into an episode
record (built once per worker process), its metric set, and its protocol's step limits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rich.table import Table

from homesim.evaluation.handmethat import suite as handmethat_suite
from homesim.evaluation.objectnav import suite as objectnav_suite
from homesim.evaluation.alfred.suite import AlfredRunner, failed_record, work_items
from homesim.evaluation.handmethat.metrics import HANDMETHAT_METRICS
from homesim.evaluation.handmethat.report import handmethat_table
from homesim.evaluation.metrics import ALFRED_METRICS, MetricSet
from homesim.evaluation.objectnav.metrics import OBJECTNAV_METRICS
from homesim.evaluation.objectnav.report import objectnav_table
from homesim.evaluation.records import EpisodeRecord
from homesim.evaluation.report import splits_table

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig

WorkItem = tuple  # a suite's own unit of work: (split, episode index, ...)


class SuiteRunner(Protocol):
    def run(self, item: WorkItem) -> EpisodeRecord: ...


@dataclass(frozen=True)
class Suite:
    work_items: Callable[[Mapping[str, Sequence], EvaluationConfig], list[WorkItem]]
    runner: Callable[[Mapping[str, Sequence], Mapping, EvaluationConfig], SuiteRunner]  # (splits, scenes, config)
    metrics: MetricSet
    failed: Callable[[Mapping[str, Sequence], Mapping, WorkItem, str], EpisodeRecord]  # a record for an unplayed item
    max_steps: int
    max_fails: int | None  # None: failed actions do not end an episode
    table: Callable[[dict, str], Table] = splits_table  # a summary's table, under a title


SUITES: dict[str, Suite] = {
    "alfred": Suite(
        work_items=lambda splits, config: work_items(splits, config.subgoals),
        runner=AlfredRunner,
        metrics=ALFRED_METRICS,
        failed=failed_record,
        max_steps=1000,
        max_fails=10,
    ),
    "handmethat": Suite(
        work_items=handmethat_suite.work_items,
        runner=handmethat_suite.HandMeThatRunner,
        metrics=HANDMETHAT_METRICS,
        failed=handmethat_suite.failed_record,
        max_steps=40,
        max_fails=None,
        table=handmethat_table,
    ),
    "objectnav": Suite(
        work_items=objectnav_suite.work_items,
        runner=objectnav_suite.ObjectNavRunner,
        metrics=OBJECTNAV_METRICS,
        failed=objectnav_suite.failed_record,
        max_steps=500,
        max_fails=None,
        table=objectnav_table,
    ),
}


def suite_named(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; known: {', '.join(SUITES)}") from None
