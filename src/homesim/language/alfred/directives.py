"""ALFRED-style language directives for a demonstration: a high-level goal sentence and one
step-by-step sentence per sub-goal, several annotations per demonstration that differ in wording, as
ALFRED's Mechanical Turk annotators wrote them (ALFRED paper, section 3.2).

An annotation is written the way one annotator would: they settle on a name for each kind of object
(drawn as often as ALFRED's annotators used it, `lexicon`), a writing style (capitals, full stops),
and describe each step with one of its templates, filled with what the demonstration shows: where an
object was picked up from, whether a container was opened, and for every walk the turns and
distance the agent actually took and what stands beside where it stopped (`routes`).
"""

from __future__ import annotations

import random
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from typing import Protocol

from homesim.language.alfred.lexicon import Lexicon, fill, lexicon, plural, with_articles
from homesim.language.alfred.routes import SHORT_WALK, Route, landmark, rank, route
from homesim.tasks.alfred import AlfredGoal, Annotation, Subgoal
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.geometry import object_box
from homesim.world.scene import Scene
from homesim.world.state import State

ATTEMPTS_PER_ANNOTATION = 10  # redraws allowed to make each annotation differ from the others
LANDMARK_SHARE = 0.35  # of walks whose destination is told by what stands next to it, when something does
OBJECT_AT_PLACE_SHARE = 0.25  # of walks to an object told as "the apple on the counter", not "the counter"
SIDE_SHARE = 0.4  # of final turns told as "the fridge on your right" rather than "turn right to the fridge"
TWO_LEGS_SHARE = 0.5  # of walks with one turn on the way that tell both legs
RANK_SHARE = 0.5  # of walks to one of several like objects in view that say which ("the top drawer")
RETURN_SHARE = 0.5  # of walks back to a place visited before told as such ("go back to the table")
SLICED_GOAL_SHARE = 0.3  # of sliced-object goals that say the slicing ("Slice an apple and ...")


class Demonstration(Protocol):
    """An expert demonstration (`planning.alfred.expert.ExpertPlan`): sub-goals, the low-level actions with the
    index of the sub-goal each belongs to, and the state each action is taken in."""

    subgoals: list[Subgoal]
    actions: list[Action]
    subgoal_index: list[int]
    states: list[State]


@dataclass(frozen=True)
class Step:
    """One sub-goal as the person describing it sees it in the demonstration."""

    kind: str
    object: str | None  # what the step acts on (GotoLocation: what the agent walks up to)
    receptacle: str | None = None
    source: str | None = None  # where the object lies as the step starts
    held: str | None = None  # what the agent holds as the step starts
    content: str | None = None  # what lies in the carried object (the apple in the bowl)
    opened: bool = False  # the step opens a closed container
    switch: str = "on"
    route: Route | None = None
    place: str | None = None  # GotoLocation: the fixed object walked to
    landmark: tuple[str, str] | None = None  # GotoLocation: (side, fixed object) beside the place
    rank: str | None = None  # GotoLocation: which of the like objects in view the place is ("top" drawer)
    revisit: bool = False  # GotoLocation: the place was walked to before


def annotate(
    scene: Scene, demo: Demonstration, goal: AlfredGoal, rng: random.Random, count: int = 3
) -> tuple[Annotation, ...]:
    """`count` annotations of one demonstration, each worded differently where the demonstration allows;
    the same `rng` state gives the same annotations."""
    steps = read_steps(scene, demo)
    classes = _classes(demo)
    found: list[Annotation] = []
    attempts = count * ATTEMPTS_PER_ANNOTATION
    for attempt in range(attempts):
        annotation = _Annotator(lexicon(), goal, steps, classes, rng).annotation()
        # Annotators rarely word the goal alike: a repeated goal sentence is redrawn while attempts last.
        fresh_goal = all(annotation.task_desc != a.task_desc for a in found) or attempt >= attempts // 2
        if annotation not in found and fresh_goal:
            found.append(annotation)
        if len(found) == count:
            break
    while len(found) < count:  # a demonstration too plain to word `count` ways
        found.append(found[-1])
    return tuple(found)


# --- reading the demonstration ------------------------------------------------------------------


class _Classes(dict):
    """Object id -> class, from the demonstration's first state; a slice, made part-way through, has
    its class at the end of its id (`Apple|...|AppleSliced_1`)."""

    def __missing__(self, object_id: str) -> str:
        return object_id.rsplit("|", 1)[-1].rsplit("_", 1)[0]


def _classes(demo: Demonstration) -> dict[str, str]:
    return _Classes({o.id: o.cls for o in demo.states[0].objects.values()} if demo.states else {})


def read_steps(scene: Scene, demo: Demonstration) -> list[Step]:
    """What each sub-goal of the demonstration did (one step per sub-goal, in order), from its actions,
    the state they start in and the state they leave."""
    steps: list[Step] = []
    for i, subgoal in enumerate(demo.subgoals):
        # Sub-goal indices never decrease along a plan: each sub-goal's actions are one slice.
        first, end = bisect_left(demo.subgoal_index, i), bisect_right(demo.subgoal_index, i)
        start = demo.states[min(first, len(demo.states) - 1)]
        after = demo.states[end] if end < len(demo.states) else None
        step = _step(scene, subgoal, demo.actions[first:end], start, after)
        if step.place is not None and any(s.place == step.place for s in steps):
            step = replace(step, revisit=True)
        steps.append(step)
    return steps


def _step(scene: Scene, subgoal: Subgoal, actions: list[Action], start: State, after: State | None) -> Step:
    me = start.agents[0]
    obj, receptacle = subgoal.object_id, subgoal.receptacle_id
    opened = any(a.name == A.OPEN for a in actions)
    if subgoal.action == "GotoLocation":
        return _walk(scene, obj, actions, start, after)
    content = _content(start, obj) if obj in start.objects else None
    source = start.objects[obj].parent if obj in start.objects and me.held != obj else None
    switch = "off" if any(a.name == A.TOGGLE_OFF for a in actions) and subgoal.action == "ToggleObject" else "on"
    return Step(subgoal.action, obj, receptacle, source, me.held, content, opened, switch)


def _content(state: State, obj: str) -> str | None:
    children = sorted(state.children(obj))
    return children[0] if children else None


def _walk(scene: Scene, target: str, actions: list[Action], start: State, after: State | None) -> Step:
    """A GotoLocation: the route, the fixed object walked to (the one the target lies in or on), and a
    landmark beside it seen from where the walk ends."""
    place = target if target in scene.fixed else next((a for a in start.ancestors(target) if a in scene.fixed), None)
    found = which = None
    if after is not None and place is not None:
        lex, agent = lexicon(), after.agents[0]
        box = object_box(scene, after, lex.catalog, place)
        found = landmark(scene, agent, box, set(lex.templates["landmarks"]), {scene.fixed[place].cls})
        which = rank(scene, agent, place)
    held = start.agents[0].held
    return Step(
        "GotoLocation",
        target,
        held=held,
        content=_content(start, held) if held else None,
        route=route(actions, start.agents[0], scene),
        place=place,
        landmark=found,
        rank=which,
    )


# --- writing ------------------------------------------------------------------------------------


class _Annotator:
    """One annotator's annotation: their names for things and their style, kept throughout."""

    def __init__(
        self, lex: Lexicon, goal: AlfredGoal, steps: list[Step], classes: dict[str, str], rng: random.Random
    ) -> None:
        self.lex, self.goal, self.steps, self.classes, self.rng = lex, goal, steps, classes, rng
        self.t = lex.templates
        styles = self.t["styles"]
        self.style = rng.choices(styles, weights=[s["weight"] for s in styles])[0]
        self._names: dict[str, str] = {}

    def annotation(self) -> Annotation:
        goal = self._finish(self.goal_sentence())
        return Annotation(goal, tuple(self._finish(self.step_sentence(s)) for s in self.steps))

    # --- words ---

    def name(self, cls: str) -> str:
        if cls not in self._names:
            self._names[cls] = self.lex.name(cls, self.rng)
        return self._names[cls]

    def name_of(self, object_id: str) -> str:
        return self.name(self.classes[object_id])

    def carried(self, object_id: str, content: str | None) -> str:
        """An object, with what it holds if anything ("bowl with the apple")."""
        if content is None:
            return self.name_of(object_id)
        slots = {"container": self.name_of(object_id), "content": self.name_of(content)}
        return fill(self.rng.choice(self.t["holder"]), slots, self.rng)

    def choose(self, section: dict, kind: str, *variants: str) -> str:
        """A template of `kind`, from its general ones and those of the situations in `variants`."""
        candidates = list(section[kind])
        for v in variants:
            candidates += section.get(f"{kind}/{v}", [])
        return self.rng.choice(candidates)

    def _finish(self, sentence: str) -> str:
        for name in self._names.values():
            if plural(name) == name:  # "a keys" -> "the keys"
                sentence = re.sub(rf"\b[Aa] {name}\b", f"the {name}", sentence)
        sentence = with_articles(sentence.strip()).rstrip(".")
        first = sentence[0].upper() if self.style["capitalize"] else sentence[0].lower()
        return first + sentence[1:] + ("." if self.style["period"] else "")

    # --- the goal ---

    def goal_sentence(self) -> str:
        goal, rng = self.goal, self.rng
        slots = {"object": self.name(goal.object_target)}
        if goal.object_sliced:
            slots["whole"] = slots["object"]
            slots["object"] = fill(rng.choice(self.t["sliced"]), slots, rng)
        slots["objects"] = plural(slots["object"])
        for slot, prep, cls in (("recep", "prep", goal.parent_target), ("mrecep", "mprep", goal.mrecep_target)):
            if cls:
                slots[slot], slots[prep] = self.name(cls), self.lex.preposition(cls)
        if goal.toggle_target:
            slots["lamp"] = self.name(goal.toggle_target)
        if goal.task_type in self.t["state_adjectives"]:
            slots["adj"] = rng.choice(self.t["state_adjectives"][goal.task_type])
        source = self._goal_source()
        variants = ("source",) if source else ()
        if source:
            slots["source"] = self.name_of(source)
        if goal.object_sliced and rng.random() < SLICED_GOAL_SHARE:
            rest = fill(
                self.choose(self.t["goal"], goal.task_type), {**slots, "object": rng.choice(self.t["pieces"])}, rng
            )
            return fill(rng.choice(self.t["goal"]["sliced"]), {**slots, "rest": rest[0].lower() + rest[1:]}, rng)
        return fill(self.choose(self.t["goal"], goal.task_type, *variants), slots, rng)

    def _goal_source(self) -> str | None:
        """Where the demonstration found the goal's object (or the whole one it sliced)."""
        wanted = {self.goal.object_target, self.goal.target_class}
        for s in self.steps:
            if s.kind in ("PickupObject", "SliceObject") and self.classes[s.object] in wanted and s.source:
                return s.source
        return None

    # --- the steps ---

    def step_sentence(self, step: Step) -> str:
        if step.kind == "GotoLocation":
            return self.walk(step)
        slots = {"switch": step.switch}
        if step.object is not None:
            slots["object"] = self.carried(step.object, step.content if step.kind != "SliceObject" else None)
        if step.receptacle is not None:
            slots["recep"] = self.name_of(step.receptacle)
            slots["prep"] = self.lex.preposition(self.classes[step.receptacle])
        if step.held is not None:
            slots["held"] = self.name_of(step.held)
        variants = []
        if step.source is not None:
            where = self.lex.preposition(self.classes[step.source])
            source = {"source": self.name_of(step.source)}
            slots.update(source, prep_source=where)
            slots["from_source"] = fill(self.rng.choice(self.t["source"][where]), source, self.rng)
            slots["on_source"] = fill(self.rng.choice(self.t["on_source"][where]), source, self.rng)
            variants.append("source")
        else:
            slots["from_source"] = slots["on_source"] = ""
        if step.opened:
            variants.append("opened")
        if slots.get("prep") == "in":
            variants.append("in")
        if step.held is not None and step.kind == "ToggleObject":
            variants.append("holding")
        return fill(self.choose(self.t["steps"], step.kind, *variants), slots, self.rng)

    def walk(self, step: Step) -> str:
        g, r, rng = self.t["goto"], step.route, self.rng
        slots = {"dest": self.destination(step)}
        if not r.walks and not r.first_turn:
            return fill(rng.choice(g[{"down": "look_down", "up": "look_up"}.get(r.look, "in_place")]), slots, rng)
        clauses = [rng.choice(g["turn"][r.first_turn])] if r.first_turn else []
        if r.walks:
            clauses += self._legs(step)
        if r.final_turn and r.final_turn != "around" and rng.random() < SIDE_SHARE:
            slots["dest"] += fill(rng.choice(g["side"]), {"side": r.final_turn}, rng)
            tail = g["link_after_walk"]
        elif r.final_turn:
            clauses.append(rng.choice(g["turn"][r.final_turn]))
            tail = g["link_after_turn"]
        else:
            tail = g["link_after_walk"] if r.walks else g["link_after_turn"]
        if step.revisit and tail is g["link_after_walk"] and rng.random() < RETURN_SHARE:
            tail = g["link_back"]
        return self._join(clauses) + fill(rng.choice(tail), slots, rng)

    def _legs(self, step: Step) -> list[str]:
        """The walking clauses: one for the whole walk, or both legs around a single turn on the way."""
        g, r, rng = self.t["goto"], step.route, self.rng
        if len(r.middle_turns) == 1 and rng.random() < TWO_LEGS_SHARE:
            first, second = ("short" if steps <= SHORT_WALK else "medium" for steps in (r.legs[0], r.legs[-1]))
            return [
                self._walk_clause(first, step),
                rng.choice(g["turn"][r.middle_turns[0]]),
                rng.choice(g["walk"][second]),
            ]
        return [self._walk_clause(r.distance, step)]

    def _walk_clause(self, distance: str, step: Step) -> str:
        g = self.t["goto"]
        if step.held is None:
            return self.rng.choice(g["walk"][distance])
        held = {"held": self.carried(step.held, step.content)}
        return fill(self.rng.choice(g["walk_holding"][distance]), held, self.rng)

    def _join(self, clauses: list[str]) -> str:
        text = clauses[0]
        for i, clause in enumerate(clauses[1:], start=2):
            text += (self.rng.choice(self.t["goto"]["connectors"]) if i == len(clauses) else ", ") + clause
        return text

    def destination(self, step: Step) -> str:
        """Where a walk ends: the place (counter), the object at the place (apple on the counter), or the
        place by its landmark (counter left of the sink)."""
        g, rng = self.t["goto"], self.rng
        if step.place is None:
            return self.name_of(step.object)
        place = self.name_of(step.place)
        if step.rank is not None and rng.random() < RANK_SHARE:
            place = f"{rng.choice(g['rank'][step.rank])} {place}"
        if step.object != step.place and rng.random() < OBJECT_AT_PLACE_SHARE:
            slots = {
                "object": self.name_of(step.object),
                "place": place,
                "prep": self.lex.preposition(self.classes[step.place]),
            }
            return fill(rng.choice(g["at_object"]), slots, rng)
        if step.landmark is not None and rng.random() < LANDMARK_SHARE:
            side, fixed = step.landmark
            return fill(rng.choice(g["landmark"][side]), {"dest": place, "landmark": self.name_of(fixed)}, rng)
        return place
