"""Agents from what a user names: one of a suite's built-in agents (the suite's registry entry lists them),
a `homesim train` checkpoint (`model.pt`), an action file (`actions.json`, played again) or an import path
(`my_package.my_module:MyAgent`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from homesim.agents.learned import is_checkpoint_spec, load_learned
from homesim.agents.protocol import Agent
from homesim.agents.remote import PREFIX, remote_agent
from homesim.agents.replay import ActionsAgent, is_action_file_spec, read_action_file


def make_agent(spec: str, seed: int, named: Mapping[str, Callable[..., Agent]], suite: str, stop: str) -> Agent:
    """Builds an agent from one of `named` (the suite's built-in agents), a checkpoint (`*.pt`) of the
    `suite`, an action file of the `suite` (played, then `stop`), or `module:Class` (called with `seed=`)."""
    if spec in named:
        return named[spec](seed=seed)
    if is_checkpoint_spec(spec):
        return load_learned(spec, seed, suite)
    if spec.startswith(PREFIX):  # a challenge server's remote evaluation, in this process
        return remote_agent(spec)
    if is_action_file_spec(spec):
        actions = read_action_file(spec)
        if actions.suite != suite:
            raise ValueError(f"{spec}: its actions are for {actions.suite}, not {suite}")
        return ActionsAgent(actions, stop)
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ValueError(f"unknown agent {spec!r}: use one of {', '.join(named)} or module.path:ClassName")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"cannot load agent {spec!r}: {e}") from e
    return cls(seed=seed)
