"""ALFRED's low-level action space: 5 navigation actions, 7 interactions and STOP."""

from __future__ import annotations

from dataclasses import dataclass

MOVE_AHEAD = "MoveAhead_25"
ROTATE_LEFT = "RotateLeft_90"
ROTATE_RIGHT = "RotateRight_90"
LOOK_UP = "LookUp_15"
LOOK_DOWN = "LookDown_15"
PICKUP = "PickupObject"
PUT = "PutObject"
OPEN = "OpenObject"
CLOSE = "CloseObject"
TOGGLE_ON = "ToggleObjectOn"
TOGGLE_OFF = "ToggleObjectOff"
SLICE = "SliceObject"
STOP = "Stop"

NAVIGATION_ACTIONS = (MOVE_AHEAD, ROTATE_LEFT, ROTATE_RIGHT, LOOK_UP, LOOK_DOWN)
INTERACT_ACTIONS = (PICKUP, PUT, OPEN, CLOSE, TOGGLE_ON, TOGGLE_OFF, SLICE)
ACTIONS = NAVIGATION_ACTIONS + INTERACT_ACTIONS + (STOP,)

# AI2-THOR's API names (in ALFRED's `api_action`) and ALFRED's stop token, mapped to ours.
ALIASES = {
    "MoveAhead": MOVE_AHEAD,
    "RotateLeft": ROTATE_LEFT,
    "RotateRight": ROTATE_RIGHT,
    "LookUp": LOOK_UP,
    "LookDown": LOOK_DOWN,
    "<<stop>>": STOP,
}


@dataclass(frozen=True)
class Action:
    """An action name and, for interactions, the object id it targets (for PutObject: the receptacle)."""

    name: str
    target: str | None = None

    def __post_init__(self) -> None:
        if self.name not in ACTIONS:
            raise ValueError(f"unknown action {self.name!r}; ALFRED's actions are {', '.join(ACTIONS)}")
        if (self.name in INTERACT_ACTIONS) != (self.target is not None):
            need = "needs a target object id" if self.name in INTERACT_ACTIONS else "takes no target"
            raise ValueError(f"action {self.name} {need}")

    @staticmethod
    def parse(name: str, target: str | None = None) -> Action:
        """Builds an action from our name, AI2-THOR's API name or ALFRED's stop token."""
        return Action(ALIASES.get(name, name), target)


@dataclass(frozen=True)
class Event:
    """What an action did: whether it succeeded and, if not, why (a failed action changes nothing)."""

    action: Action
    success: bool
    message: str = ""
