"""Agents by name (each suite's `random`, `expert`, ...), by checkpoint file (`model.pt`) or by import path
(`my_package.my_module:MyAgent`)."""

from __future__ import annotations

import importlib

from homesim.agents.expert_agent import ExpertAgent
from homesim.agents.objectnav.frontier import FrontierAgent
from homesim.agents.handmethat_heuristic import HandMeThatHeuristicAgent
from homesim.agents.learned import is_checkpoint_spec, load_learned
from homesim.agents.objectnav.simple import ObjectNavExpertAgent, ObjectNavRandomAgent
from homesim.agents.protocol import Agent
from homesim.agents.random_agent import RandomAgent

AGENTS: dict[str, dict[str, type]] = {  # suite -> name -> class
    "alfred": {"random": RandomAgent, "expert": ExpertAgent},
    # HandMeThat's random baseline: a random admissible command; the expert: the live planner's next command;
    # the heuristic: their paper's (ground the request, prefer the kinds the human handled, one trial)
    "handmethat": {"random": RandomAgent, "expert": ExpertAgent, "heuristic": HandMeThatHeuristicAgent},
    "objectnav": {"expert": ObjectNavExpertAgent, "random": ObjectNavRandomAgent, "frontier": FrontierAgent},
}


def load_agent(spec: str, seed: int = 0, suite: str = "alfred") -> Agent:
    """Builds an agent from one of the suite's names, a `homesim train` checkpoint (`*.pt`) or `module:Class`;
    the class is called with `seed=`."""
    named = AGENTS.get(suite, {})
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
    return cls(seed=seed)
