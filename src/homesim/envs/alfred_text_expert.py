"""The expert in the text game, at any state: the live expert (`planning.expert`) plans the task from the
embodied state under the text, and its first high-level step that needs saying, said as a command."""

from __future__ import annotations

from homesim.envs.alfred_text import AlfredTextEnv, subgoal_commands
from homesim.planning.expert import plan


def expert_command(env: AlfredTextEnv) -> str | None:
    """The next text command of the expert's plan from the env's current state, or None when the plan
    has nothing left to do. Raises `planning.expert.Unrecoverable` where the goal cannot be reached."""
    for subgoal in plan(env.scene, env.state, env.episode.goal, catalog=env.catalog).subgoals:
        # Steps the text already took (a GotoLocation to where the agent is) say nothing; the next one speaks.
        commands = subgoal_commands(env, subgoal)
        if commands:
            return commands[0]
    return None
