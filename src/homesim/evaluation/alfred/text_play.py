"""ALFRED for agents that read and write text (`Suite.text_play`): in the text game, ALFWorld's own words and
admissible commands; embodied (oracle mode), what the agent perceives in words (the goal, the directives, how
its last action went, the objects it can interact with, by id) and ALFRED's actions written `Name [object id]`."""

from __future__ import annotations

from homesim.agents.protocol import AgentAction
from homesim.envs.alfred.wording import LATEST, Wording
from homesim.evaluation.suite import Breakdown, TextPlay
from homesim.world.actions import INTERACT_ACTIONS, NAVIGATION_ACTIONS, STOP, Action

# ALFWorld's six task types as ReAct and AgentBench name their columns (ALFRED's seventh, the movable
# receptacle, is not among ALFWorld's games)
ALFWORLD_TYPES = {
    "pick_and_place_simple": "pick",
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
    "look_at_obj_in_light": "look",
    "pick_two_obj_and_place": "pick2",
    "pick_and_place_with_movable_recep": "movable",
}
BREAKDOWN = Breakdown(
    "task type", lambda record: ALFWORLD_TYPES.get(record.task_type, record.task_type), tuple(ALFWORLD_TYPES.values())
)

EMBODIED_RULES = f"""You are a robot in a room of a house, carrying out a household task.
Each turn, say one action: {", ".join(NAVIGATION_ACTIONS)} (one step of 0.25 m ahead, a quarter turn, a tilt
of the camera by 15 degrees), or an interaction with an object you see, written with its id:
{", ".join(f"{a} <id>" for a in INTERACT_ACTIONS)}.
You can interact only with objects you see within 1.5 m; you hold one object at a time; slicing needs a knife
in hand; a microwave heats and a fridge cools what is in it; a faucet cleans what is in the sink below it.
Say {STOP} when the task is done. Ten failed actions end the episode."""


def observation_text(observation: dict) -> str:
    """What an ALFRED agent perceives, as text: the text game's own words, or, embodied, the goal, the
    directives, the outcome of the last action and (oracle mode) the objects it can interact with."""
    if "text" in observation:
        return str(observation["text"])
    lines = [f"Your task is to: {observation.get('goal', '')}"]
    directives = observation.get("instructions") or ()  # the env's: one string, a directive a line
    directives = directives.splitlines() if isinstance(directives, str) else directives
    lines += [f"Step {i + 1}: {d}" for i, d in enumerate(d for d in directives if d)]
    if "last_action_success" in observation:
        said = observation.get("last_action_message") or ""
        lines.append(f"Last action: {'succeeded' if observation['last_action_success'] else 'failed'}. {said}".strip())
    if "visible_objects" in observation:
        seen = [f"{i.split('|')[0]} ({i})" for i in observation["visible_objects"]]
        lines.append(f"You see: {', '.join(seen) or 'nothing you can reach'}.")
    return "\n".join(lines)


def _rules(observation: dict) -> str:
    commands = observation.get("admissible_commands")
    if commands is None:
        return EMBODIED_RULES
    wording = Wording("0.3" if any(c.startswith("put ") for c in commands) else LATEST)
    return (
        "You are in a room of a house, carrying out a household task in a text game. Each turn, say one"
        f" command.{wording.help()}Objects are named by kind and number (apple 1). The game ends when the task is done."
    )


def _commands(observation: dict) -> list[str]:
    if "admissible_commands" in observation:
        return list(observation["admissible_commands"])
    visible = observation.get("visible_objects") or ()
    return [*NAVIGATION_ACTIONS, *(f"{a} {i}" for a in INTERACT_ACTIONS for i in visible), STOP]


def _action(command: str) -> AgentAction:
    name, _, target = command.strip().partition(" ")
    return AgentAction(name, target.strip() or None) if name in INTERACT_ACTIONS else AgentAction(command)


def _expert(observation: dict) -> tuple[str, str]:
    if "expert_command" in observation:
        return observation["expert_command"] or STOP, observation.get("expert_subgoal", "")
    action: Action | None = observation.get("expert_action")
    if action is None or action.name == STOP:
        return STOP, ""
    return (action.name if action.target is None else f"{action.name} {action.target}"), observation.get(
        "expert_subgoal", ""
    )


TEXT_PLAY = TextPlay(rules=_rules, commands=_commands, action=_action, expert=_expert, stop=STOP)
