"""Agents rebuilt from `homesim train` checkpoints: the checkpoint says which suite and model it holds, and
that model's builder (imported only when used, so nothing else needs torch) makes the agent."""

from __future__ import annotations

import importlib
from pathlib import Path

from homesim.agents.protocol import Agent

# (suite, agent) in a checkpoint's `describe` -> "module:function(checkpoint: dict, seed: int) -> Agent"
LEARNED: dict[tuple[str, str], str] = {
    ("alfred", "seq2seq"): "homesim.learning.alfred.agent:seq2seq_agent",
    ("alfred", "seq2seq_pm"): "homesim.learning.alfred.agent:seq2seq_agent",
    ("alfred", "moca"): "homesim.learning.alfred.agent:moca_agent",
    ("handmethat", "seq2seq"): "homesim.learning.handmethat.seq2seq:load_seq2seq_agent",
    ("handmethat", "seq2seq_goal"): "homesim.learning.handmethat.seq2seq:load_seq2seq_agent",
    ("handmethat", "seq2seq_subgoal"): "homesim.learning.handmethat.seq2seq:load_seq2seq_agent",
    ("handmethat", "drrn"): "homesim.learning.handmethat.drrn:load_drrn_agent",
}


def is_checkpoint_spec(spec: str) -> bool:
    return spec.endswith(".pt")


def load_learned(path: str | Path, seed: int = 0, suite: str = "alfred") -> Agent:
    from homesim.learning.loop import load_checkpoint

    checkpoint = load_checkpoint(path)
    describe = checkpoint["describe"]
    if describe.get("suite") != suite:
        raise ValueError(f"{path}: a {describe.get('suite')} checkpoint cannot play {suite}")
    if not checkpoint["finished"]:
        raise ValueError(f"{path}: training has not finished (step {checkpoint['step']}): run homesim train again")
    name = describe.get("agent")
    if (suite, name) not in LEARNED:
        known = ", ".join(agent for s, agent in LEARNED if s == suite)
        raise ValueError(f"{path}: no {suite} agent is built from a {name!r} checkpoint; known: {known}")
    module, _, function = LEARNED[suite, name].partition(":")
    return getattr(importlib.import_module(module), function)(checkpoint, seed)
