"""HandMeThat's expert: a plan of robot actions from any state to what the human meant.

Like the authors' expert it knows the meaning and the objects it fits (`_objects_in_meaning`) and reads
the whole state, whatever the robot may observe; it goes to the object, opens what is closed on the
way, picks it up, and brings it to the human (`bring_me`), puts it in or on the target (`move_to`), or
changes its state with their recipes (`change_state`: heat on the stove, cool in the fridge, soak in the
sink, slice on the table with a knife, clean with a suitable tool, soaked first when it must be).
Unlike theirs it starts from any state: it first sets down a wrong thing in hand, takes things back
from the human, and lifts the object out of whatever is carried. Of several fitting objects it takes
the one with the shortest plan (the first in the list among equals).

Each plan is built by stepping the engine, so every action in it is known to succeed; when the meaning
cannot be achieved any more the reason is raised as `Unrecoverable`.
"""

from __future__ import annotations

from collections.abc import Sequence

from homesim.planning.alfred.expert import Unrecoverable
from homesim.tasks.handmethat.task import CHANGE_VERBS, Meaning, meaning_satisfied
from homesim.world.handmethat import HUMAN, INSIDE, ONTOP, HmtAction, HmtState, step
from homesim.world.handmethat.catalog import handmethat_catalog

WORKBENCH = "table"  # where their expert slices and cleans
STOVE, FRIDGE, SINK = "stove", "refrigerator", "sink"  # where their expert heats, cools and soaks
ABILITY_OF_VERB = {
    "open": "openable",
    "toggle": "toggleable",
    "heat": "cookable",
    "cool": "freezable",
    "soak": "soakable",
    "slice": "sliceable",
    "clean": "dustyable or stainable",
}
FLOOR = "floor"  # where a thing in the way is set down when the robot's place takes nothing


def plan(meaning: Meaning, objects: Sequence[str], state: HmtState) -> list[HmtAction]:
    """The shortest of the plans for each fitting object; [] when the meaning is already achieved."""
    if meaning_satisfied(meaning, objects, state):
        return []
    plans, reasons = [], []
    for obj in objects:
        try:
            plans.append(_Planner(state).achieve(meaning, obj))
        except Unrecoverable as e:
            reasons.append(f"{obj}: {e}")
    if not plans:
        raise Unrecoverable("; ".join(reasons) or "no object fits the meaning")
    return min(plans, key=len)


def next_action(meaning: Meaning, objects: Sequence[str], state: HmtState) -> HmtAction | None:
    """The expert's next robot action from this state (None: the meaning is achieved)."""
    actions = plan(meaning, objects, state)
    return actions[0] if actions else None


class _Planner:
    """Builds one plan by stepping a copy of the world: each helper reads the state the plan has reached."""

    def __init__(self, state: HmtState, agent: str = "robot") -> None:
        self.state, self.agent = state, agent  # the human's planner (handmethat_human) uses the same recipes
        self.actions: list[HmtAction] = []

    @property
    def me(self):
        return self.state.agent(self.agent)

    def do(self, name: str, *args: str) -> None:
        action = HmtAction(f"{self.agent}-{name}", args)
        self.state, event = step(self.state, action)
        if not event.success:
            raise Unrecoverable(f"{action} fails: {event.message}")
        self.actions.append(action)

    # --- getting about -------------------------------------------------------------------------------

    def go(self, place: str) -> None:
        if self.me.at != place:
            self.do("move", self.me.at, place)

    def open_up(self, name: str, loc: str) -> None:
        """Open `name` (the location itself or a receptacle at it) when it is closed."""
        t = self.state[name]
        if t.category.can("openable") and not t.is_("open"):
            if name == loc:
                self.do("open-location", loc)
            else:
                self.do("open-receptacle-at-location", name, loc)

    def put_down(self) -> None:
        """Set the held thing down where the robot is, or on the floor when that place takes nothing."""
        (held,) = self.me.held
        loc = self.me.at
        if loc == HUMAN or not self.state[loc].category.holds_ontop:
            loc = FLOOR
        self.go(loc)
        self.do("put-ontop-location", held, loc)

    # --- getting hold of a thing --------------------------------------------------------------------

    def obtain(self, obj: str) -> None:
        """End with the agent holding `obj`, wherever it was."""
        if self.me.held == (obj,):
            return
        if self.me.held:
            self.put_down()
        if self.state.holder(obj) == "human":
            top = self.state.top(obj)
            self.go(HUMAN)
            self.do("take-from-human", top, HUMAN)
            if top == obj:
                return
            self.put_down()
        self.pick_up(obj)

    def pick_up(self, obj: str) -> None:
        """Pick up a thing that lies at a location, directly or in or on a receptacle there."""
        s = self.state
        parent = s[obj].parent
        if parent is None:
            raise Unrecoverable(f"{obj} is nowhere the robot can reach")
        loc = s.location_of(obj)
        if loc is None:
            raise Unrecoverable(f"{obj} is in something held")
        self.go(loc)
        if parent == loc:
            if s[obj].relation == INSIDE:
                self.open_up(loc, loc)
            self.do("pick-up-at-location", obj, loc)
            return
        if s[parent].parent != loc:
            raise Unrecoverable(f"{obj} is nested deeper than a receptacle at a location")
        if s[parent].relation == INSIDE:
            self.open_up(loc, loc)
        if s[obj].relation == INSIDE:
            self.open_up(parent, loc)
        self.do("pick-up-from-receptacle-at-location", obj, parent, loc)

    def bring(self, obj: str, location: str) -> None:
        """Have `obj` in or on a location: fetched and put there unless it already is (so a plan made
        again midway, as the live expert's is, goes on from where it got to)."""
        if self.state[obj].parent != location:
            self.obtain(obj)
            self.place(obj, location)

    def hands_free(self) -> None:
        """Heating, cooling and soaking take an empty hand."""
        if self.me.held:
            self.put_down()

    def place(self, obj: str, target: str) -> None:
        """Put the held `obj` in or on `target` (a location, or a receptacle at one)."""
        t = self.state[target]
        relation = INSIDE if t.category.holds_inside else ONTOP
        if t.category.movable:
            loc = self.state.location_of(target)
            if loc is None or t.parent != loc:
                raise Unrecoverable(f"{target} is not at a location")
            self.go(loc)
            if t.relation == INSIDE:
                self.open_up(loc, loc)
            if relation == INSIDE:
                self.open_up(target, loc)
            self.do(f"put-{relation}-receptacle-at-location", obj, target, loc)
        else:
            self.go(target)
            if relation == INSIDE:
                self.open_up(target, target)
            self.do(f"put-{relation}-location", obj, target)

    def toggle_on(self, loc: str) -> None:
        if not self.state[loc].is_("toggled"):
            self.do("toggle-on-location", loc)

    # --- the quests -----------------------------------------------------------------------------------

    def achieve(self, meaning: Meaning, obj: str) -> list[HmtAction]:
        if obj not in self.state.things:
            raise Unrecoverable(f"there is no {obj}")
        if meaning.quest == "bring_me":
            self.obtain(obj)
            self.go(HUMAN)
            self.do("bring-to-human", obj, HUMAN)
        elif meaning.quest == "move_to":
            target = meaning.target
            if target not in self.state.things:
                raise Unrecoverable(f"there is no {target} to put {obj} at")
            t = self.state[target]
            if t.category.movable and (t.parent is None or t.parent != self.state.location_of(target)):
                self.obtain(target)  # in a hand or in something: set it down at a location first
                self.put_down()
            self.obtain(obj)
            self.place(obj, target)
        else:
            self.change(obj, meaning.target)
        return self.actions

    def change(self, obj: str, verb: str) -> None:
        catalog, t = handmethat_catalog(), self.state[obj]
        ability = ABILITY_OF_VERB[verb]
        if not (t.category.dirtiable if verb == "clean" else t.category.can(ability)):
            raise Unrecoverable(f"{obj} is not {ability}")
        if verb in ("open", "toggle"):
            self.switch(obj, CHANGE_VERBS[verb], True)
            return
        if verb == "clean":
            self.clean(obj)
            return
        if verb == "heat":
            self.bring(obj, STOVE)
            self.hands_free()
            self.go(STOVE)
            self.toggle_on(STOVE)
            self.do("heat-obj", obj, STOVE)
        elif verb == "cool":
            self.bring(obj, FRIDGE)
            self.hands_free()
            self.go(FRIDGE)
            self.toggle_on(FRIDGE)
            self.do("cool-obj", obj, FRIDGE)
        elif verb == "soak":
            self.soak(obj)
        else:
            self.bring(obj, WORKBENCH)
            self.obtain(self.nearest([n for n, k in self.state.things.items() if k.type in catalog.slices]))
            self.go(WORKBENCH)
            self.do("slice-obj", obj, self.me.held[0], WORKBENCH)
        assert CHANGE_VERBS[verb] is None or self.state[obj].is_(CHANGE_VERBS[verb])

    def switch(self, obj: str, state: str, on: bool) -> None:
        """Open or close (`state` "open"), turn on or off ("toggled") a location or a thing; a thing held
        or in something is set down at a location first (their actions reach only what is there)."""
        t = self.state[obj]
        if t.is_(state) == on:
            return
        if t.category.movable and (self.state.location_of(obj) is None or t.parent != self.state.top(obj)):
            self.obtain(obj)
            self.put_down()
        loc = self.state.location_of(obj)
        self.go(loc)
        if state == "open":
            verb = "open" if on else "close"
        else:
            verb = "toggle-on" if on else "toggle-off"
        if obj == loc:
            self.do(f"{verb}-location", loc)
            return
        if self.state[obj].relation == INSIDE:
            self.open_up(loc, loc)
        self.do(f"{verb}-{'receptacle' if state == 'open' else 'movable'}-at-location", obj, loc)

    def soak(self, obj: str) -> None:
        self.bring(obj, SINK)
        self.hands_free()
        self.go(SINK)
        self.toggle_on(SINK)
        self.do("soak-obj", obj, SINK)

    def clean(self, obj: str) -> None:
        t = self.state[obj]
        tools = [n for n, k in self.state.things.items() if t.category.cleaned_by(k.type)]
        if not tools:
            raise Unrecoverable(f"nothing in the scene cleans a {t.type}")
        # a tool that needs no soaking (or is soaked) first, then the nearest
        ready = [n for n in tools if not self.state[n].category.can("soakable") or self.state[n].is_("soaked")]
        tool = self.nearest(ready or tools)
        if t.category.movable:
            self.bring(obj, WORKBENCH)
        if tool not in ready:
            self.soak(tool)
            self.do("pick-up-at-location", tool, SINK)
        else:
            self.obtain(tool)
        if t.category.movable:
            self.go(WORKBENCH)
            self.do("clean-obj-at-location", obj, tool, WORKBENCH)
        else:
            self.go(obj)
            self.do("clean-location", tool, obj)

    def nearest(self, names: list[str]) -> str:
        """The thing quickest to get hold of (fewest actions), the first in file order among equals."""
        if not names:
            raise Unrecoverable("no such tool in the scene")

        def cost(name: str) -> int:
            trial = _Planner(self.state, self.agent)
            try:
                trial.obtain(name)
            except Unrecoverable:
                return 10**6
            return len(trial.actions)

        return min(names, key=cost)
