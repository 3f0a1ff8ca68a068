"""What each HandMeThat action does: explicit preconditions (`why_not`) and effects, as their PDDL
domains define them with Table 10's constraints, for either agent.

`step(state, action) -> (state, event)` is pure: a failed action returns the state unchanged and says
why. Each check is a chain of reasons, the first that applies returned (`or` stops there).
`applicable.applicable_actions` lists exactly the actions these preconditions accept (tested against
every grounding).

Faithful details of their domain worth knowing: heating needs no open door (a closed microwave's
contents heat) and turns the appliance off; soaking turns the sink off; cooling leaves the fridge on;
opening needs no free hand; a knife slices only what lies directly on the location; the human's
`is-working` flag (whose turn it is) is the episode's business, not the world's.
"""

from __future__ import annotations

from collections.abc import Callable

from homesim.world.actions import Event
from homesim.world.handmethat.actions import SCHEMAS, HmtAction
from homesim.world.handmethat.catalog import handmethat_catalog
from homesim.world.handmethat.state import HUMAN, INSIDE, ONTOP, Agent, HmtState

Check = Callable[[HmtState, str, tuple[str, ...]], str | None]
Apply = Callable[[HmtState, str, tuple[str, ...]], HmtState]


def _accessible_at(state: HmtState, name: str, place: str) -> str | None:
    """Their `(or (and (inside o p) (or (not (openable p)) (open p))) (ontop o p))`."""
    t = state.things[name]
    if t.parent != place:
        return f"{name} is not in or on {place}"
    p = state.things[place]
    if t.relation == INSIDE and p.category.can("openable") and "open" not in p.states:
        return f"{place} is closed"
    return None


def _at(state: HmtState, agent: str, loc: str) -> str | None:
    here = state.agent(agent).at
    return None if here == loc else f"the {agent} is at {here}, not at {loc}"


def _location(state: HmtState, name: str) -> str | None:
    return None if not state.things[name].category.movable else f"{name} is not a location"


def _known(state: HmtState, args: tuple[str, ...], skip: tuple[int, ...] = ()) -> str | None:
    for i, a in enumerate(args):
        if i not in skip and a not in state.things:
            return f"there is no {a}"
    return None


# --- preconditions ---------------------------------------------------------------------------------


def _check_move(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    frm, to = args
    for p in (frm, to):
        if p == HUMAN:
            if agent == "human":
                return "the human cannot move to itself"
        elif p not in s.things:
            return f"there is no {p}"
        elif s.things[p].category.movable:
            return f"{p} is not a location"
    return _at(s, agent, frm)


def _check_pick(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, loc = args
    return (
        _known(s, args)
        or _at(s, agent, loc)
        or (None if s.agent(agent).hand_empty else f"the {agent}'s hand is not empty")
        or _location(s, loc)
        or (None if s.things[obj].category.movable else f"{obj} cannot be picked up")
        or _accessible_at(s, obj, loc)
    )


def _check_pick_from(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, rec, loc = args
    return (
        _known(s, args)
        or _at(s, agent, loc)
        or (None if s.agent(agent).hand_empty else f"the {agent}'s hand is not empty")
        or _location(s, loc)
        or (None if s.things[rec].category.cls == "RECEPTACLE" else f"{rec} is not a receptacle")
        or (None if s.things[obj].category.movable else f"{obj} cannot be picked up")
        or (None if not s.things[obj].category.receptacle else f"{obj} is a receptacle: pick it up at {loc}")
        or _accessible_at(s, rec, loc)
        or _accessible_at(s, obj, rec)
    )


def _check_put_location(relation: str) -> Check:
    def check(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
        obj, loc = args
        can = "holds_inside" if relation == INSIDE else "holds_ontop"
        return (
            _known(s, args)
            or _at(s, agent, loc)
            or (None if obj in s.agent(agent).held else f"the {agent} is not holding {obj}")
            or _location(s, loc)
            or (None if getattr(s.things[loc].category, can) else f"nothing can be put {relation} {loc}")
            or (_closed(s, loc) if relation == INSIDE else None)
        )

    return check


def _closed(s: HmtState, name: str) -> str | None:
    t = s.things[name]
    return f"{name} is closed" if t.category.can("openable") and "open" not in t.states else None


def _check_put_receptacle(relation: str) -> Check:
    def check(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
        obj, rec, loc = args
        can = "holds_inside" if relation == INSIDE else "holds_ontop"
        return (
            _known(s, args)
            or _at(s, agent, loc)
            or (None if obj in s.agent(agent).held else f"the {agent} is not holding {obj}")
            or _location(s, loc)
            or (None if s.things[rec].category.cls == "RECEPTACLE" else f"{rec} is not a receptacle")
            or (None if not s.things[obj].category.receptacle else f"{obj} is a receptacle: put it at {loc}")
            or _accessible_at(s, rec, loc)
            or (None if getattr(s.things[rec].category, can) else f"nothing can be put {relation} {rec}")
            or (_closed(s, rec) if relation == INSIDE else None)
        )

    return check


def _check_open_location(opening: bool) -> Check:
    def check(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
        (loc,) = args
        return (
            _known(s, args)
            or (None if s.things[loc].category.can("openable") else f"{loc} cannot be opened or closed")
            or _at(s, agent, loc)
            or _open_state(s, loc, opening)
        )

    return check


def _open_state(s: HmtState, name: str, opening: bool) -> str | None:
    is_open = "open" in s.things[name].states
    if opening and is_open:
        return f"{name} is already open"
    if not opening and not is_open:
        return f"{name} is already closed"
    return None


def _check_open_receptacle(opening: bool) -> Check:
    def check(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
        rec, loc = args
        return (
            _known(s, args)
            or (None if s.things[rec].category.can("openable") else f"{rec} cannot be opened or closed")
            or _at(s, agent, loc)
            or _open_state(s, rec, opening)
            or _accessible_at(s, rec, loc)
        )

    return check


def _toggle_state(s: HmtState, name: str, on: bool) -> str | None:
    t = s.things[name]
    if not t.category.can("toggleable"):
        return f"{name} cannot be toggled"
    if on == ("toggled" in t.states):
        return f"{name} is already {'on' if on else 'off'}"
    return None


def _check_toggle_location(on: bool) -> Check:
    def check(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
        (loc,) = args
        return _known(s, args) or _at(s, agent, loc) or _toggle_state(s, loc, on)

    return check


def _check_toggle_movable(on: bool) -> Check:
    def check(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
        obj, loc = args
        return (
            _known(s, args)
            or _at(s, agent, loc)
            or _toggle_state(s, obj, on)
            or _accessible_at(s, obj, loc)
        )

    return check


def _appliance(s: HmtState, loc: str, kinds: frozenset[str], verb: str) -> str | None:
    t = s.things[loc]
    if t.category.movable or t.type not in kinds:
        return f"one can only {verb} things at the {', '.join(sorted(kinds))}"
    return None if "toggled" in t.states else f"{loc} is not on"


def _ability(s: HmtState, name: str, ability: str) -> str | None:
    return None if s.things[name].category.can(ability) else f"{name} is not {ability}"


def _not_receptacle(s: HmtState, name: str) -> str | None:
    return f"{name} is a receptacle" if s.things[name].category.receptacle else None


def _check_heat(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, loc = args
    return (
        _known(s, args)
        or (None if s.agent(agent).hand_empty else f"the {agent}'s hand is not empty")
        or _at(s, agent, loc)
        or _ability(s, obj, "cookable")
        or _appliance(s, loc, handmethat_catalog().heats, "heat")
        or (None if s.things[obj].parent == loc else f"{obj} is not in or on {loc}")
        or _not_receptacle(s, obj)
    )


def _check_cool(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, loc = args
    return (
        _known(s, args)
        or (None if s.agent(agent).hand_empty else f"the {agent}'s hand is not empty")
        or _at(s, agent, loc)
        or _in(s, obj, loc)
        or _ability(s, obj, "freezable")
        or _appliance(s, loc, handmethat_catalog().cools, "cool")
        or _not_receptacle(s, obj)
    )


def _in(s: HmtState, obj: str, loc: str) -> str | None:
    t = s.things[obj]
    return None if t.parent == loc and t.relation == INSIDE else f"{obj} is not in {loc}"


def _check_slice(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, tool, loc = args
    slicers = handmethat_catalog().slices
    return (
        _known(s, args)
        or (None if tool in s.agent(agent).held else f"the {agent} is not holding {tool}")
        or (None if s.things[tool].type in slicers else f"one can only slice with a {', '.join(sorted(slicers))}")
        or _ability(s, obj, "sliceable")
        or _at(s, agent, loc)
        or (None if s.things[obj].parent == loc and s.things[obj].relation == ONTOP else f"{obj} is not on {loc}")
        or _not_receptacle(s, obj)
        or _location(s, loc)
    )


def _check_soak(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, loc = args
    return (
        _known(s, args)
        or _at(s, agent, loc)
        or _in(s, obj, loc)
        or _ability(s, obj, "soakable")
        or _appliance(s, loc, handmethat_catalog().soaks, "soak")
        or _not_receptacle(s, obj)
    )


def _cleaning(s: HmtState, agent: str, target: str, tool: str) -> str | None:
    t, k = s.things[target], s.things[tool]
    if tool not in s.agent(agent).held:
        return f"the {agent} is not holding {tool}"
    if not (t.category.can("dustyable") or t.category.can("stainable")):
        return f"{target} cannot get dirty"
    if k.category.can("soakable") and "soaked" not in k.states:
        return f"{tool} must be soaked first"
    if not t.category.cleaned_by(k.type):
        return f"a {k.type} does not clean a {t.type}"
    return None


def _check_clean_obj(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, tool, loc = args
    return (
        _known(s, args)
        or _at(s, agent, loc)
        or _location(s, loc)
        or (None if s.things[obj].category.movable else f"{obj} is a location: clean it as one")
        or _accessible_at(s, obj, loc)
        or _cleaning(s, agent, obj, tool)
    )


def _check_clean_location(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    tool, loc = args
    return (
        _known(s, args)
        or _at(s, agent, loc)
        or _location(s, loc)
        or _cleaning(s, agent, loc, tool)
    )


def _check_bring(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, _human = args
    return (
        _known(s, args, skip=(1,))
        or (None if _human == HUMAN else f"{_human} is not the human")
        or _at(s, agent, HUMAN)
        or (None if obj in s.robot.held else f"the robot is not holding {obj}")
    )


def _check_take(s: HmtState, agent: str, args: tuple[str, ...]) -> str | None:
    obj, _human = args
    return (
        _known(s, args, skip=(1,))
        or (None if _human == HUMAN else f"{_human} is not the human")
        or _at(s, agent, HUMAN)
        or (None if s.robot.hand_empty else "the robot's hand is not empty")
        or (None if obj in s.human.held else f"the human is not holding {obj}")
    )


# --- effects ---------------------------------------------------------------------------------------


def _do_move(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    return s.with_agents(**{agent: Agent(args[1], s.agent(agent).held)})


def _do_pick(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    me = s.agent(agent)
    return s.moved(args[0], None, None, **{agent: Agent(me.at, (*me.held, args[0]))})


def _do_put(relation: str) -> Apply:
    def apply(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
        obj, parent = args[0], args[1]  # the location, or the receptacle (before its location)
        me = s.agent(agent)
        return s.moved(obj, parent, relation, **{agent: Agent(me.at, tuple(h for h in me.held if h != obj))})

    return apply


def _set_state(target: int, state: str, value: bool) -> Apply:
    def apply(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
        name = args[target]
        old = s.things[name].states
        return s.with_states({name: old | {state} if value else old - {state}})

    return apply


def _do_heat(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    obj, loc = args
    return s.with_states(
        {obj: (s.things[obj].states | {"cooked"}) - {"frozen"}, loc: s.things[loc].states - {"toggled"}}
    )


def _do_cool(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    obj = args[0]
    return s.with_states({obj: (s.things[obj].states | {"frozen"}) - {"cooked"}})


def _do_soak(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    obj, loc = args
    return s.with_states({obj: s.things[obj].states | {"soaked"}, loc: s.things[loc].states - {"toggled"}})


def _do_clean(target: int) -> Apply:
    def apply(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
        name = args[target]
        return s.with_states({name: s.things[name].states - {"dusty", "stained"}})

    return apply


def _do_bring(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    obj = args[0]
    robot = Agent(s.robot.at, tuple(h for h in s.robot.held if h != obj))
    return s.with_agents(robot=robot, human=Agent(s.human.at, (*s.human.held, obj)))


def _do_take(s: HmtState, agent: str, args: tuple[str, ...]) -> HmtState:
    obj = args[0]
    human = Agent(s.human.at, tuple(h for h in s.human.held if h != obj))
    return s.with_agents(robot=Agent(s.robot.at, (*s.robot.held, obj)), human=human)


VERBS: dict[str, tuple[Check, Apply]] = {
    "move": (_check_move, _do_move),
    "pick-up-at-location": (_check_pick, _do_pick),
    "pick-up-from-receptacle-at-location": (_check_pick_from, _do_pick),
    "put-inside-location": (_check_put_location(INSIDE), _do_put(INSIDE)),
    "put-ontop-location": (_check_put_location(ONTOP), _do_put(ONTOP)),
    "put-inside-receptacle-at-location": (_check_put_receptacle(INSIDE), _do_put(INSIDE)),
    "put-ontop-receptacle-at-location": (_check_put_receptacle(ONTOP), _do_put(ONTOP)),
    "open-location": (_check_open_location(True), _set_state(0, "open", True)),
    "close-location": (_check_open_location(False), _set_state(0, "open", False)),
    "open-receptacle-at-location": (_check_open_receptacle(True), _set_state(0, "open", True)),
    "close-receptacle-at-location": (_check_open_receptacle(False), _set_state(0, "open", False)),
    "toggle-on-location": (_check_toggle_location(True), _set_state(0, "toggled", True)),
    "toggle-off-location": (_check_toggle_location(False), _set_state(0, "toggled", False)),
    "toggle-on-movable-at-location": (_check_toggle_movable(True), _set_state(0, "toggled", True)),
    "toggle-off-movable-at-location": (_check_toggle_movable(False), _set_state(0, "toggled", False)),
    "heat-obj": (_check_heat, _do_heat),
    "cool-obj": (_check_cool, _do_cool),
    "slice-obj": (_check_slice, _set_state(0, "sliced", True)),
    "soak-obj": (_check_soak, _do_soak),
    "clean-obj-at-location": (_check_clean_obj, _do_clean(0)),
    "clean-location": (_check_clean_location, _do_clean(1)),
    "bring-to-human": (_check_bring, _do_bring),
    "take-from-human": (_check_take, _do_take),
}
assert {n.split("-", 1)[1] for n in SCHEMAS} == set(VERBS)


def why_not(state: HmtState, action: HmtAction) -> str | None:
    """Why the action cannot be taken in this state, or None when its preconditions hold."""
    return VERBS[action.verb][0](state, action.agent, action.args)


def step(state: HmtState, action: HmtAction) -> tuple[HmtState, Event]:
    """The state after the action and what happened; a failed action changes nothing and says why."""
    why = why_not(state, action)
    if why is not None:
        return state, Event(action, False, why)  # type: ignore[arg-type]  # Event is shared with ALFRED
    return VERBS[action.verb][1](state, action.agent, action.args), Event(action, True)  # type: ignore[arg-type]
