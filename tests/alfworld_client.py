"""ALFWorld's own hand-coded expert (`HandCodedTWAgent`, from the alfworld 0.4.2 wheel, its files unchanged)
driven by ALFWorld's own loop against homesim's `AlfredTWEnv`: the expert's command if admissible, else
`look` (ALFWorld's `AlfredExpert` wrapper), starting with `look`.

alfworld and textworld (pinned in pyproject's `[tool.homesim]`, with what their import needs) are installed
by `install.sh`, so `from alfworld.agents.expert import HandCodedTWAgent` works as in ALFWorld (tested).
Here the expert's module files are loaded by path, with TextWorld's `core.py` (where its `Agent` base class
lives), each under its own module name, and removed from `sys.modules` afterwards, so that one version's
put command can be swapped for the other's: for ALFWorld 0.3's wording, the expert is alfworld 0.3.5's, and
the two releases' expert files differ only in the put command (0.3 `put {} in/on {}`, 0.4 `move {} to {}`,
eight lines), so the 0.4.2 files are loaded with that string in 0.3's form.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import random
import sys
import tomllib
import types
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
PINS = dict(pin.split("==") for pin in tomllib.loads(PYPROJECT.read_text())["tool"]["homesim"]["alfworld-client"])
EXPERT_FILES = ("alfworld/agents/expert/handcoded_expert.py", "alfworld/agents/expert/handcoded_expert_tw.py")
PUT = {"0.4": '"move {} to {}"', "0.3": '"put {} in/on {}"'}


def _installed(name: str, version: str) -> Path:
    """Where a distribution's package lives, skipping the test where it is absent or another version."""
    try:
        found = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{name} {version} is not installed (./install.sh: pip install --no-deps {name}=={version})")
    if found != version:
        pytest.skip(f"{name} {found} is installed; the ALFWorld client tests run {name} {version}")
    return Path(importlib.util.find_spec(name).origin).parent.parent


def _load(name: str, path: Path, source: str | None = None) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(source if source is not None else path.read_text(), str(path), "exec"), module.__dict__)
    return module


@dataclass(frozen=True)
class Expert:
    agent: type  # HandCodedTWAgent
    give_ups: tuple[type, ...]  # what it raises when it runs out of steps or ideas


def load_expert(version: str) -> Expert:
    """ALFWorld's `HandCodedTWAgent`, speaking ALFWorld `version`'s put command."""
    alfworld, textworld = (_installed(name, PINS[name]) for name in ("alfworld", "textworld"))
    with mock.patch.dict(sys.modules):
        for package in ("textworld", "alfworld", "alfworld.gen", "alfworld.agents", "alfworld.agents.expert"):
            sys.modules[package] = types.ModuleType(package)
        sys.modules["textworld"].Agent = _load("textworld.core", textworld / "textworld" / "core.py").Agent
        _load("alfworld.gen.constants", alfworld / "alfworld" / "gen" / "constants.py")
        for file in EXPERT_FILES:
            source = (alfworld / file).read_text()
            assert source.count(PUT["0.4"]) > 0
            _load(file.removesuffix(".py").replace("/", "."), alfworld / file, source.replace(PUT["0.4"], PUT[version]))
        base = sys.modules["alfworld.agents.expert.handcoded_expert"]
        return Expert(
            sys.modules["alfworld.agents.expert.handcoded_expert_tw"].HandCodedTWAgent,
            (base.HandCodedAgentTimeout, base.HandCodedAgentFailed),
        )


@dataclass
class Game:
    gamefile: str
    task_type: str
    won: bool
    steps: int
    end: str  # "won", "steps" (out of commands), or the expert's own give-up ("timeout", "failed")
    commands: list[str]
    refused: list[str]  # what the expert wanted that was not admissible (`look` was said instead)

    def moved_again(self, moves: str) -> bool:
        """Whether the expert wanted to put down, a second time, an object it had already put down: it had
        not noticed that it put it down (the 0.4.2 expert notices only commands saying "put")."""
        put = {" ".join(c.split()[1:3]) for c in self.commands if c.startswith(moves)}
        return any(c.startswith(moves) and " ".join(c.split()[1:3]) in put for c in self.refused)


def play(env, expert: Expert, games: int, max_steps: int, seed: int = 0) -> list[Game]:
    """`games` games of a batch-1 env, as ALFWorld's `AlfredExpert` wrapper plays them."""
    played = []
    for k in range(games):
        random.seed(seed + k)  # the expert breaks ties with the `random` module
        obs, infos = env.reset()
        gamefile = infos["extra.gamefile"][0]
        agent = expert.agent(max_steps=200)
        agent.reset(gamefile)
        agent.observe(obs[0])
        command, commands, refused, end, won = "look", [], [], "steps", False
        for _ in range(max_steps):
            obs, _, dones, infos = env.step([command])
            commands.append(command)
            won = infos["won"][0]
            if dones[0]:
                end = "won" if won else "steps"
                break
            state = {
                "feedback": obs[0],
                "facts": infos["facts"][0],
                "admissible_commands": infos["admissible_commands"][0],
                "won": won,
            }
            try:
                wanted = agent.act(state, 0, won, command)
            except expert.give_ups as stop:
                end = type(stop).__name__.removeprefix("HandCodedAgent").lower()
                break
            command = wanted if wanted in state["admissible_commands"] else "look"
            if command != wanted:
                refused.append(wanted)
        task_type = env.games[gamefile].goal.task_type
        played.append(Game(gamefile, task_type, won, len(commands), end, commands, refused))
    return played


def by_task_type(played: list[Game]) -> dict[str, tuple[int, int]]:
    """Won and played per task type."""
    won, total = Counter(g.task_type for g in played if g.won), Counter(g.task_type for g in played)
    return {t: (won[t], total[t]) for t in sorted(total)}
