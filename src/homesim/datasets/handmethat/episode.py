"""A HandMeThat episode in homesim's form: the scene as it was before the human acted (each episode carries
its own world, so `scene_id` is None), the human's actions, which replay to the state the robot starts
in, the human's hidden goal, the request (utterance) and its hidden meaning, the hardness level and the
authors' expert demonstration (text commands).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from homesim.tasks.handmethat.formula import Formula, parse
from homesim.tasks.handmethat.task import Meaning, success_formula
from homesim.world.handmethat import HmtAction, HmtState, step

LEVELS = (1, 2, 3, 4)
Objects = tuple[tuple[str, str | None], ...]  # (thing, the quest's argument): a set A(.) of the paper


@dataclass(frozen=True)
class Reading:
    """What the generator knew of a request beside its meaning, as the authors' files keep it: the
    listener's reading of the utterance (`_rsa_meaning`), the sets A(u), A(g) and A(r)
    (`_objects_in_utterance`, `_useful_objects`, `_objects_in_rsa_meaning`) and the human's whole plan
    (`_possible_solution`)."""

    rsa_meaning: Meaning
    objects_in_utterance: Objects
    useful_objects: Objects
    objects_in_rsa_meaning: Objects
    possible_solution: tuple[HmtAction, ...]

    def to_dict(self) -> dict:
        return {
            "rsa_meaning": self.rsa_meaning.to_dict(),
            "objects_in_utterance": [list(o) for o in self.objects_in_utterance],
            "useful_objects": [list(o) for o in self.useful_objects],
            "objects_in_rsa_meaning": [list(o) for o in self.objects_in_rsa_meaning],
            "possible_solution": [[a.name, *a.args] for a in self.possible_solution],
        }

    @staticmethod
    def from_dict(d: dict) -> Reading:
        return Reading(
            rsa_meaning=Meaning.from_dict(d["rsa_meaning"]),
            objects_in_utterance=_objects(d["objects_in_utterance"]),
            useful_objects=_objects(d["useful_objects"]),
            objects_in_rsa_meaning=_objects(d["objects_in_rsa_meaning"]),
            possible_solution=tuple(HmtAction(a[0], tuple(a[1:])) for a in d["possible_solution"]),
        )


def _objects(value: list) -> Objects:
    return tuple((o, extra) for o, extra in value)


class HumanActionFailed(ValueError):
    """One of the human's past actions cannot be taken where the replay has got to."""

    def __init__(self, index: int, action: HmtAction, why: str) -> None:
        super().__init__(f"{action} fails: {why}")
        self.index, self.action, self.why = index, action, why


def replay(state: HmtState, actions: Sequence[HmtAction]) -> HmtState:
    """The state after the actions; raises `HumanActionFailed` at the first one that fails."""
    for i, action in enumerate(actions):
        state, event = step(state, action)
        if not event.success:
            raise HumanActionFailed(i, action, event.message)
    return state


@dataclass(frozen=True)
class HandMeThatEpisode:
    suite: ClassVar[str] = "handmethat"  # the suite registry's name for it, as dataset.json spells it
    id: str
    initial_state: HmtState  # before the human's actions; robot and human on the floor, hands empty
    human_actions: tuple[HmtAction, ...]
    goal: str  # the human's hidden goal, in their goal language (`_goal`)
    subgoal: str  # the part of it the request serves (`_subgoal`)
    meaning: Meaning  # what the human means (`_meaning`)
    utterance: Meaning  # what the human says (`utterance`): the meaning, maybe with parts left out
    # the things the meaning fits, any one of which will do, each with their file's second entry (a
    # move_to's place, a change_state's verb, None for bring_me)
    objects_in_meaning: tuple[tuple[str, str | None], ...]
    level: int  # hardness, 1 to 4
    demo_actions: tuple[str, ...] = ()  # the authors' expert's text commands
    task_description: str = ""  # their text of the human's actions and request
    reading: Reading | None = None  # generated episodes: the listener's reading, the sets, the human's plan
    start_state: HmtState = field(init=False, repr=False, compare=False)  # where the robot starts
    scene_id: None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level {self.level!r} is not one of {LEVELS}")
        parse(self.goal), parse(self.subgoal)  # a malformed goal fails here, not mid-evaluation
        missing = [o for o, _ in self.objects_in_meaning if o not in self.initial_state.things]
        if missing:
            raise ValueError(f"objects_in_meaning names {missing[0]!r}, which is not in the scene")
        self.success  # noqa: B018  (a meaning that cannot be checked fails here)
        object.__setattr__(self, "start_state", replay(self.initial_state, self.human_actions))

    @property
    def quest_type(self) -> str:
        return self.meaning.quest

    @property
    def success(self) -> Formula:
        """What the robot must bring about (their text env's check)."""
        return success_formula(self.meaning, [o for o, _ in self.objects_in_meaning])

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "initial_state": self.initial_state.to_dict(),
            "human_actions": [[a.name, *a.args] for a in self.human_actions],
            "goal": self.goal,
            "subgoal": self.subgoal,
            "meaning": self.meaning.to_dict(),
            "utterance": self.utterance.to_dict(),
            "objects_in_meaning": [list(o) for o in self.objects_in_meaning],
            "level": self.level,
            "demo_actions": list(self.demo_actions),
            "task_description": self.task_description,
        } | ({"reading": self.reading.to_dict()} if self.reading else {})

    @staticmethod
    def from_dict(d: dict) -> HandMeThatEpisode:
        return HandMeThatEpisode(
            id=d["id"],
            initial_state=HmtState.from_dict(d["initial_state"]),
            human_actions=tuple(HmtAction(a[0], tuple(a[1:])) for a in d["human_actions"]),
            goal=d["goal"],
            subgoal=d["subgoal"],
            meaning=Meaning.from_dict(d["meaning"]),
            utterance=Meaning.from_dict(d["utterance"]),
            objects_in_meaning=_objects(d["objects_in_meaning"]),
            level=d["level"],
            demo_actions=tuple(d["demo_actions"]),
            task_description=d["task_description"],
            reading=Reading.from_dict(d["reading"]) if "reading" in d else None,
        )
