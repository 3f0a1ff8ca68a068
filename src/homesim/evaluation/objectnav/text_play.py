"""ObjectNav for agents that read and write text (`Suite.text_play`): what the robot perceives in words, from
its sensors alone: the goal, where GPS+Compass put it and, from the depth and semantic images (which such an
agent asks for), each category in view with its distance and bearing, and how far it is clear ahead, to the
left and to the right. Its commands are habitat's six action names."""

from __future__ import annotations

import math

import numpy as np

from homesim.envs.objectnav.env import CATEGORY_NAMES
from homesim.evaluation.suite import TextPlay
from homesim.world.objectnav.embodiment import LOCOBOT
from homesim.world.objectnav.navgrid import ACTIONS

SEEN_SHARE = 0.002  # a category covering less of the frame than this is not mentioned (a few pixels at an edge)
SECTORS = (("on your left", 0, 1), ("ahead", 1, 2), ("on your right", 2, 3))  # thirds of the frame's columns

RULES = f"""You are a robot looking for an object in a house you have never seen. Each turn, say one action:
MOVE_FORWARD (0.25 m ahead), TURN_LEFT or TURN_RIGHT (30 degrees), LOOK_UP or LOOK_DOWN (30 degrees), or STOP.
Say STOP when the object is within 1 m of you and in view: that ends the episode, found or not.
A move into an obstacle does nothing. You have {LOCOBOT.max_steps} actions."""


def _in_view(depth: np.ndarray, semantic: np.ndarray) -> list[str]:
    """Each category in view, nearest first: its median distance, its bearing and its share of the frame."""
    width = semantic.shape[1]
    seen = []
    for index in np.unique(semantic):
        if index < 0:
            continue
        pixels = semantic == index
        share = float(pixels.mean())
        if share < SEEN_SHARE:
            continue
        columns = np.nonzero(pixels)[1]
        bearing = ((columns.mean() + 0.5) / width - 0.5) * LOCOBOT.hfov
        side = (
            "ahead" if abs(bearing) < 5 else f"{abs(bearing):.0f} degrees to your {'right' if bearing > 0 else 'left'}"
        )
        distance = float(np.median(depth[pixels]))
        seen.append((distance, f"a {CATEGORY_NAMES[index]} {distance:.1f} m away, {side}"))
    return [said for _, said in sorted(seen)]


def _clear(depth: np.ndarray) -> str:
    """How far the middle band of the depth image is clear in each third of the view (10th percentile)."""
    height, width = depth.shape
    band = depth[height // 3 : 2 * height // 3]
    parts = [
        f"{float(np.percentile(band[:, width * a // 3 : width * b // 3], 10)):.1f} m {where}" for where, a, b in SECTORS
    ]
    return "Free space: " + ", ".join(parts) + "."


def observation_text(observation: dict) -> str:
    """What the robot perceives, as text: its goal, where GPS+Compass put it (metres ahead and right of its
    start; its heading, degrees right of its start's) and, with depth and semantic images, what it sees."""
    ahead, right = (float(v) for v in observation["gps"])
    heading = math.degrees(float(observation["compass"][0]))
    lines = [
        f"Find a {CATEGORY_NAMES[int(observation['objectgoal'])]}.",
        f"You are {ahead:.2f} m ahead of and {right:.2f} m right of where you started, facing {heading:.0f} degrees"
        " right of your start's heading.",
    ]
    if "depth" in observation and "semantic" in observation:
        seen = _in_view(observation["depth"], observation["semantic"])
        lines.append(f"You see {'; '.join(seen)}." if seen else "You see no object of a known category.")
        lines.append(_clear(observation["depth"]))
    if observation.get("last_action_success") is False:
        lines.append(f"Your last action failed: {observation.get('last_action_message') or 'blocked'}.")
    return "\n".join(lines)


def _expert(observation: dict) -> tuple[str, str]:
    action = observation.get("expert_action") or "STOP"
    goal = CATEGORY_NAMES[int(observation["objectgoal"])]
    return action, f"stop: the {goal} is near and in view" if action == "STOP" else f"head for the nearest {goal}"


TEXT_PLAY = TextPlay(
    rules=lambda observation: RULES,
    commands=lambda observation: list(ACTIONS[1:]) + ["STOP"],
    action=lambda command: command,
    expert=_expert,
    stop="STOP",
    pixels=("depth", "semantic"),
)
