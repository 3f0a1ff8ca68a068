"""Agents from what a user names: one of a suite's built-in agents (the suite's registry entry lists them),
a `homesim train` checkpoint (`model.pt`), an action file (`actions.json`, played again), an import path
(`my_package.my_module:MyAgent`) or a file (`my_agent.py:MyAgent`). A class is made with `seed=` when its
constructor takes a seed, else with nothing."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType

from homesim.agents.learned import is_checkpoint_spec, load_learned
from homesim.agents.protocol import Agent
from homesim.agents.remote import PREFIX, remote_agent
from homesim.agents.replay import ActionsAgent, is_action_file_spec, read_action_file

CONTRACT = "an agent class is made as Class(seed=...) or Class(), and has reset(task) and act(observation)"


def make_agent(spec: str, seed: int, named: Mapping[str, Callable[..., Agent]], suite: str, stop: str) -> Agent:
    """Builds an agent from one of `named` (the suite's built-in agents), a checkpoint (`*.pt`) of the
    `suite`, an action file of the `suite` (played, then `stop`), `module:Class` or `file.py:Class`."""
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
    where, _, class_name = spec.rpartition(":")
    if not where or not class_name:
        raise ValueError(
            f"unknown agent {spec!r}: use one of {', '.join(named)}, a checkpoint (.pt),"
            " module.path:ClassName or file.py:ClassName"
        )
    module = _agent_module(where, spec)
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"cannot load agent {spec!r}: {where} has no {class_name!r}")
    return _construct(cls, seed, spec)


def _agent_module(where: str, spec: str) -> ModuleType:
    """The module an agent's class is in: a file (`*.py`), or a module found on Python's path."""
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise ValueError(f"cannot load agent {spec!r}: no file {where}")
        name = f"homesim_agent_{path.stem}"  # its own name, so it shadows no installed module
        found = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(found)
        sys.modules[name] = module  # (dataclasses and pickle look a class's module up there)
        try:
            found.loader.exec_module(module)
        except Exception as e:  # the user's file: say which and why, never a traceback of ours
            raise ValueError(f"cannot load agent {spec!r}: {where} raised {type(e).__name__}: {e}") from e
        return module
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as e:
        raise ValueError(f"cannot load agent {spec!r}: {e}{_path_hint(e.name, where, spec.rpartition(':')[2])}") from e
    except Exception as e:
        raise ValueError(f"cannot load agent {spec!r}: importing {where} raised {type(e).__name__}: {e}") from e


def _path_hint(missing: str | None, where: str, class_name: str) -> str:
    """Why a module the working directory holds is not found: `homesim` (the installed script) does not look
    there, as `python -m homesim` does."""
    top = (missing or "").partition(".")[0]
    here = Path.cwd()
    if top and ((here / top).is_dir() or (here / f"{top}.py").is_file()):
        if str(here) not in sys.path and "" not in sys.path:
            file = where.replace(".", "/") + ".py"
            return (
                f" (it is in the current directory, which the homesim command does not search: run it with"
                f" PYTHONPATH=. or name the file, --agent {file}:{class_name})"
            )
    return " (is it installed, or on PYTHONPATH?)"


def _construct(cls: object, seed: int, spec: str) -> Agent:
    if not callable(cls):
        raise ValueError(f"cannot load agent {spec!r}: it is a {type(cls).__name__}, not a class ({CONTRACT})")
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):  # some builtins have no signature: give them the seed
        parameters = ()
    takes_seed = any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    try:
        return cls(seed=seed) if takes_seed else cls()
    except Exception as e:  # the user's constructor: say so in one line
        raise ValueError(f"cannot make agent {spec!r}: {type(e).__name__}: {e} ({CONTRACT})") from e
