"""Agents from what a user names: one of a suite's built-in agents (the suite's registry entry lists them),
a `homesim train` checkpoint (`model.pt`) or an import path (`my_package.my_module:MyAgent`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from homesim.agents.learned import is_checkpoint_spec, load_learned
from homesim.agents.protocol import Agent


def make_agent(spec: str, seed: int, named: Mapping[str, Callable[..., Agent]], suite: str) -> Agent:
    """Builds an agent from one of `named` (the suite's built-in agents), a checkpoint (`*.pt`) of the
    `suite`, or `module:Class`; the class is called with `seed=`."""
    if spec in named:
        return named[spec](seed=seed)
    if is_checkpoint_spec(spec):
        return load_learned(spec, seed, suite)
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ValueError(f"unknown agent {spec!r}: use one of {', '.join(named)} or module.path:ClassName")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"cannot load agent {spec!r}: {e}") from e
    if not isinstance(cls, type):
        raise ValueError(f"{spec!r} is a {type(cls).__name__}, not an agent class")
    return cls(seed=seed)
