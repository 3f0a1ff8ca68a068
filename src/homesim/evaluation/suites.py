"""The suite registry: every benchmark homesim reproduces, by the name records and dataset folders give it.
Commands and features ask an entry (`evaluation.suite.Suite`: its fields are the extension points) and never
switch on a suite's name; a new suite is one entry here and its rooms."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points

from homesim.agents.protocol import Agent
from homesim.evaluation.alfred.suite import ALFRED
from homesim.evaluation.handmethat.suite import HANDMETHAT
from homesim.evaluation.objectnav.suite import OBJECTNAV
from homesim.evaluation.suite import AGENTS, COMPARISONS, Comparison, Suite, SuiteRunner, WorkItem

SUITES: dict[str, Suite] = {suite.name: suite for suite in (ALFRED, HANDMETHAT, OBJECTNAV)}
DEFAULT = ALFRED.name  # what a command runs when neither its data nor the user names a suite

__all__ = [
    "DEFAULT", "SUITES", "Suite", "SuiteRunner", "WorkItem", "any_suite_agents", "any_suite_comparisons", "load_agent",
    "suite_named",
]  # fmt: skip


def suite_named(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; known: {', '.join(SUITES)}") from None


def load_agent(spec: str, seed: int = 0, suite: str = DEFAULT, options: Mapping | None = None) -> Agent:
    """An agent for `suite`: one of its built-in agents by name, an agent of the `homesim.agents` entry points
    (`llm`; `options` are its own settings), a `homesim train` checkpoint (`*.pt`) or `module:Class` (called
    with `seed=`)."""
    from homesim.evaluation.evaluate import EvaluationConfig

    config = EvaluationConfig(agent=spec, seed=seed, suite=suite, agent_options=dict(options or {}))
    return suite_named(suite).agent(config)


def any_suite_agents() -> list[str]:
    """The agents that play any suite, made above the registry (`homesim.agents` entry points)."""
    return sorted(e.name for e in entry_points(group=AGENTS))


def any_suite_comparisons() -> dict[str, Comparison]:
    """Tables that compare runs of any one suite, made above the registry (`homesim.comparisons` entry points)."""
    return {e.name: e.load() for e in sorted(entry_points(group=COMPARISONS), key=lambda e: e.name)}
