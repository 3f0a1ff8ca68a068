"""HandMeThat's action schemas: the robot's primitive actions (their `robot_domain.pddl`, what the text
env's commands map to) and the human's (their `domain_human_and_robot_abstract.pddl`), by their names.

An action is its schema's name and its arguments after the agent, which the name's prefix gives:
`HmtAction("robot-pick-up-from-receptacle-at-location", ("pad#1", "box#0", "cabinet"))`. The human is
the argument `human` (their `h`) where the robot gives or takes.
"""

from __future__ import annotations

from dataclasses import dataclass

# verb -> its parameters after the agent; both agents have all of these
SHARED = {
    "move": ("from", "to"),
    "pick-up-at-location": ("obj", "loc"),
    "pick-up-from-receptacle-at-location": ("obj", "rec", "loc"),
    "put-inside-location": ("obj", "loc"),
    "put-ontop-location": ("obj", "loc"),
    "put-inside-receptacle-at-location": ("obj", "rec", "loc"),
    "put-ontop-receptacle-at-location": ("obj", "rec", "loc"),
    "open-location": ("loc",),
    "close-location": ("loc",),
    "open-receptacle-at-location": ("rec", "loc"),
    "close-receptacle-at-location": ("rec", "loc"),
    "toggle-on-location": ("loc",),
    "toggle-off-location": ("loc",),
    "toggle-on-movable-at-location": ("obj", "loc"),
    "toggle-off-movable-at-location": ("obj", "loc"),
    "heat-obj": ("obj", "loc"),
    "cool-obj": ("obj", "loc"),
    "slice-obj": ("obj", "tool", "loc"),
    "soak-obj": ("obj", "loc"),
    "clean-obj-at-location": ("obj", "tool", "loc"),
    "clean-location": ("tool", "loc"),
}
ROBOT_ONLY = {"bring-to-human": ("obj", "human"), "take-from-human": ("obj", "human")}
SCHEMAS: dict[str, tuple[str, ...]] = {
    **{f"robot-{verb}": params for verb, params in {**SHARED, **ROBOT_ONLY}.items()},
    **{f"human-{verb}": params for verb, params in SHARED.items()},
}


@dataclass(frozen=True, slots=True)
class HmtAction:
    """One grounded action: a schema name of `SCHEMAS` and its arguments (thing names) after the agent."""

    name: str
    args: tuple[str, ...]

    def __post_init__(self) -> None:
        params = SCHEMAS.get(self.name)
        if params is None:
            raise ValueError(f"unknown HandMeThat action {self.name!r}")
        if len(self.args) != len(params):
            raise ValueError(f"{self.name} takes {len(params)} arguments ({', '.join(params)}), not {self.args!r}")

    @classmethod
    def known(cls, name: str, args: tuple[str, ...]) -> HmtAction:
        """An action built without checking its schema, for callers that only build valid ones (the
        applicable-action enumeration, on every step)."""
        action = object.__new__(cls)
        object.__setattr__(action, "name", name)
        object.__setattr__(action, "args", args)
        return action

    @property
    def agent(self) -> str:
        """"robot" or "human"."""
        return self.name.split("-", 1)[0]

    @property
    def verb(self) -> str:
        return self.name.split("-", 1)[1]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"
