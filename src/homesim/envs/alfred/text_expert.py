"""The expert in the text game, at any state: the live expert (`planning.alfred.expert`) plans the task from the
embodied state under the text, and its first high-level step that needs saying, said as a command."""

from __future__ import annotations

from homesim.envs.alfred.text import AlfredTextEnv
from homesim.planning.alfred.expert import plan
from homesim.tasks.alfred import Subgoal
from homesim.world.geometry import enclosed


def expert_command(env: AlfredTextEnv) -> str | None:
    """The next text command of the expert's plan from the env's current state, or None when the plan
    has nothing left to do. Raises `planning.alfred.expert.Unrecoverable` where the goal cannot be reached."""
    step = expert_step(env)
    return None if step is None else step[0]


def expert_step(env: AlfredTextEnv) -> tuple[str, Subgoal] | None:
    """The expert's next text command and the high-level step of its plan it serves (None: nothing left)."""
    for subgoal in plan(env.scene, env.state, env.episode.goal, catalog=env.catalog).subgoals:
        # Steps the text already took (a GotoLocation to where the agent is) say nothing; the next one speaks.
        commands = subgoal_commands(env, subgoal)
        if commands:
            return commands[0], subgoal
    return None


def subgoal_commands(env: AlfredTextEnv, subgoal: Subgoal) -> list[str]:
    """Text commands for one of the expert's high-level steps (ALFRED's GotoLocation, PickupObject, ...),
    in the env's current state: it goes where the step acts first and opens a closed receptacle in the way."""
    n, state = env.names, env.state
    if subgoal.action == "GotoLocation":
        place = env.place_of(subgoal.object_id)
        return [] if place is None or place == env.location else [f"go to {n[place]}"]
    obj, receptacle = subgoal.object_id, subgoal.receptacle_id
    target = receptacle if subgoal.action in ("PutObject", "CleanObject", "HeatObject", "CoolObject") else obj
    commands = []
    place = env.place_of(target)
    if place is not None and place != env.location:
        commands.append(f"go to {n[place]}")
    closed = enclosed(state, env.catalog, target) if target != place else None
    if subgoal.action == "PutObject" and env.catalog[state.objects[target].cls].openable:
        closed = None if state.objects[target].is_open else target
    if closed is not None and state.holder_of(closed) is None:
        commands.append(f"open {n[closed]}")
    held = env.held
    if subgoal.action == "PickupObject":
        parent = state.objects[obj].parent
        commands.append(f"take {n[obj]} from {n[parent if parent is not None else place]}")
    elif subgoal.action == "PutObject":
        commands.append(env.wording.put_command(n[obj], n[receptacle]))
    elif subgoal.action in ("CleanObject", "HeatObject", "CoolObject"):
        verb = subgoal.action[: -len("Object")].lower()
        commands.append(f"{verb} {n[obj]} with {n[receptacle]}")
    elif subgoal.action == "SliceObject":
        commands.append(f"slice {n[obj]} with {n[held] if held else 'nothing'}")
    elif subgoal.action == "ToggleObject":
        commands.append(f"use {n[obj]}")
    return commands
