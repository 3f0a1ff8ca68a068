"""The suite registry: every benchmark homesim reproduces, by the name records and dataset folders give it.
Commands and features ask an entry (`evaluation.suite.Suite`: its fields are the extension points) and never
switch on a suite's name; a new suite is one entry here and its rooms."""

from __future__ import annotations

from homesim.agents.protocol import Agent
from homesim.agents.registry import make_agent
from homesim.evaluation.alfred.suite import ALFRED
from homesim.evaluation.handmethat.suite import HANDMETHAT
from homesim.evaluation.objectnav.suite import OBJECTNAV
from homesim.evaluation.suite import Suite, SuiteRunner, WorkItem

SUITES: dict[str, Suite] = {suite.name: suite for suite in (ALFRED, HANDMETHAT, OBJECTNAV)}
DEFAULT = ALFRED.name  # what a command runs when neither its data nor the user names a suite

__all__ = ["DEFAULT", "SUITES", "Suite", "SuiteRunner", "WorkItem", "load_agent", "suite_named"]


def suite_named(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; known: {', '.join(SUITES)}") from None


def load_agent(spec: str, seed: int = 0, suite: str = DEFAULT) -> Agent:
    """An agent for `suite`: one of its built-in agents by name, a `homesim train` checkpoint (`*.pt`), an
    action file (`*.json`) or `module:Class` (called with `seed=`)."""
    entry = suite_named(suite)
    return make_agent(spec, seed, entry.agents, entry.name, entry.stop_action)
