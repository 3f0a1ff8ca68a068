"""`homesim/ALFRED-Text-v0`: ALFRED episodes as ALFWorld's text game, over the embodied state.

Observations and commands are strings, in the words of one ALFWorld version (`alfworld_version="0.4"`,
the default, or "0.3": `envs.alfred.wording`). Receptacles and objects are named "<class lowercase> <n>"
(numbered per class by sorted object id at reset; pieces made by slicing are numbered when they appear).
The agent is always "at" one place (a fixed receptacle), or in the middle of the room at the start; an
object in no receptacle (a floor lamp, a desk lamp, anything lying loose) is listed on the nearest open
surface, as ALFWorld lists lamps on their receptacles. Commands (`help` lists them):

    go to X, open X, close X, take X from Y, move X to Y (0.3: put X in/on Y), use X,
    clean X with Y, heat X with Y, cool X with Y, slice X with Y, examine X, inventory, look, help

Each command runs as ALFRED's low-level actions through `world.dynamics.step`: the agent walks (the
expert's `path_to_use`) to a pose from which the target can be used, then interacts; clean/heat/cool are
ALFRED's macros (heat: open, put, close, toggle on, toggle off, open, take, close); `use` switches a
device on or off. A command is atomic: if any of its actions fails, none is kept, the answer is "Nothing
happens." and it counts as a failed command (`info["problem"]` says why). Invalid input never raises. As
in ALFWorld, only the current place is described, and what is inside a closed receptacle is unknown until
it is opened. The episode ends (`terminated`, reward 1) when the goal is met; `max_commands` text
commands or `max_steps` low-level steps cut it short (`truncated`). `info` carries
`admissible_commands`, `won`, goal conditions met/total, `low_level_steps` and `commands`;
`low_level_actions` holds the embodied trajectory executed so far.

Speed (`bench/text_speed.py`): routes to fixed places are read off per-scene tables (`planning.alfred.use_routes`,
the same paths, built for every place when a reset first enters the scene, or read from the disk cache of
`world.scene_cache` where an earlier run left them), a path's moves are made in one
go (`planning.poses.walk`), and what the objects show (places, descriptions, admissible commands) is worked
out once per state of the objects.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar, NamedTuple

import gymnasium
from gymnasium import spaces

from homesim.datasets.alfred.episode import AlfredEpisode
from homesim.envs.alfred.episodes import EpisodesOption, annotation_of, choose_episode, episodes_with_scenes
from homesim.envs.alfred.wording import LATEST, NOTHING, Wording, goal_sentence
from homesim.envs.options import NEEDS_RESET, reset_options
from homesim.planning.alfred.expert import clean_actions
from homesim.planning.alfred.use_routes import UseRoutes
from homesim.planning.poses import pose_of, walk
from homesim.tasks.alfred import goal_conditions
from homesim.world import actions as A
from homesim.world.actions import Action
from homesim.world.catalog import CLEANS, COOLS, HEATS, alfred_catalog
from homesim.world.dynamics import step
from homesim.world.geometry import enclosed, why_not_visible
from homesim.world.scene import Scene

MAX_COMMANDS = 50  # ALFWorld's usual budget of text commands per episode
MAX_STEPS = 1000  # ALFRED's budget of low-level steps
NAVIGATION = {name: Action(name) for name in A.NAVIGATION_ACTIONS}


class _Layout(NamedTuple):
    """Where the loose objects (not places, not held) are, in one state of the objects."""

    place: dict[str, str | None]  # each one's place
    on: dict[str | None, list[str]]  # by what each lies directly in or on (lying loose: its place), in name order
    at: dict[str | None, list[str]]  # by place, in name order


class _Failed(Exception):
    """A command that cannot run: the message says why (the agent only sees "Nothing happens.")."""


class _OverBudget(_Failed):
    """A command the low-level steps left cannot carry out: the episode is cut short there, as ALFRED's
    limit would cut the embodied episode (retrying it, or a longer one, could only fail again)."""


class AlfredTextEnv(gymnasium.Env):
    metadata: ClassVar[dict] = {"render_modes": []}

    def __init__(
        self,
        episodes: EpisodesOption = None,
        scenes: Mapping[str, Scene] | None = None,
        max_commands: int = MAX_COMMANDS,
        max_steps: int = MAX_STEPS,
        split: str | None = None,
        layouts: str | Path | None = None,
        alfworld_version: str = LATEST,
    ) -> None:
        self.wording = Wording(alfworld_version)
        self.episodes, self.scenes = episodes_with_scenes(episodes, scenes, split, layouts)
        self.max_commands, self.max_steps = max_commands, max_steps
        self.catalog = alfred_catalog()
        self._routes: dict[str, UseRoutes] = {}  # per scene id
        self.observation_space = spaces.Text(16384, min_length=0, charset=string.printable)
        self.action_space = spaces.Text(256, min_length=0, charset=string.printable)
        self.episode: AlfredEpisode | None = None

    # --- Gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        self.episode = None  # until this reset is done: every option is checked before the state is touched
        options = reset_options(options, ("episode", "annotation"))
        episode = choose_episode(self.episodes, self.scenes, options.get("episode"), self.np_random)
        k = options.get("annotation", 0)
        annotation = None if k == "template" else annotation_of(episode, k)
        self.episode = episode
        self.scene, self.state = self.scenes[self.episode.scene_id], self.episode.initial_state
        if self.scene.id not in self._routes:  # a scene not met before: its route tables are built now
            self._routes[self.scene.id] = UseRoutes(self.scene, self.catalog)
            self._routes[self.scene.id].prepare(self.state)
        self.routes = self._routes[self.scene.id]
        self._origin = pose_of(self.state.agents[0])[:2]  # where the agent starts: what it can walk to from there
        self._memo_objects: dict | None = None  # the objects `_memo` was derived from
        task = goal_sentence(self.episode.goal) if annotation is None else annotation.task_desc.strip().rstrip(".")
        self.task = "".join(c for c in task if c in string.printable)
        self.names: dict[str, str] = {}
        self.ids: dict[str, str] = {}
        self._counts: dict[str, int] = {}
        self._order: dict[str, tuple[str, int]] = {}  # names sort by class, then number
        self._name_new_objects()
        self.locations = sorted(
            (f.id for f in self.scene.fixed.values() if self._is_place(f.cls) and self._usable(f.id)),
            key=self._order.__getitem__,
        )
        self._places = frozenset(self.locations)
        self._go_to = sorted(((p, f"go to {self.names[p]}") for p in self.locations), key=lambda pc: pc[1])
        self.location_numbers = self._number_locations()
        self._nearest_place: dict[tuple, str] = {}
        self.location: str | None = None
        self.low_level_actions: list[Action] = []
        self.commands, self.failed_commands, self.won, self.over = 0, 0, False, ""
        self.last = (True, "")
        return self.wording.intro([self.names[p] for p in self.locations], self.task), self._info()

    def step(self, command: str) -> tuple[str, float, bool, bool, dict]:
        if self.episode is None:
            raise RuntimeError(NEEDS_RESET)
        if self.over:
            raise RuntimeError(f"episode {self.episode.id} is over ({self.over}): call reset() to start another")
        self.commands += 1
        spent = False
        try:
            parsed = self.wording.parse(command)
            if parsed is None:
                raise _Failed(f"not a command: {command!r}; type 'help' for the commands")
            verb, args = parsed
            ids = tuple(self._id(name) for name in args)
            feedback = getattr(self, f"_{verb}")(*ids)
            self.last = (True, "")
        except _Failed as failure:
            feedback, self.last = NOTHING, (False, str(failure))
            self.failed_commands += 1
            spent = isinstance(failure, _OverBudget)
        info = self._info()
        newly_won = info["won"] and not self.won
        self.won = info["won"]
        truncated = not self.won and (
            spent or self.commands >= self.max_commands or len(self.low_level_actions) >= self.max_steps
        )
        if self.won or truncated:
            self.over = "the goal is met" if self.won else "a limit was reached"
        return feedback, float(newly_won), self.won, truncated, info

    # --- names and places ------------------------------------------------------------------------

    def _usable(self, object_id: str) -> bool:
        """Whether the agent can get to use the thing, where it is now (`UseRoutes.usable`): a place or an
        object it cannot is never listed, so that every admissible command is one the engine carries out."""
        return self.routes.usable(self.state, object_id, self._origin)

    def _is_place(self, cls: str) -> bool:
        """Where `go to` leads: fixed receptacles (ALFWorld's receptacles)."""
        return self.catalog[cls].receptacle

    def _number_locations(self) -> dict[str, int]:
        """ALFWorld 0.3's "loc N" of each place: its use poses in order, places used from one pose sharing one."""
        fixed = self.scene.fixed
        poses = {p: [(u.x, u.z, u.yaw, u.horizon) for u in fixed[p].use_poses] for p in self.locations}
        spot = {p: min(poses[p], default=tuple(fixed[p].position)) for p in self.locations}
        numbers = {s: n for n, s in enumerate(sorted(set(spot.values())), start=1)}
        return {p: numbers[s] for p, s in spot.items()}

    def _name_new_objects(self) -> None:
        for object_id in sorted(set(self.state.objects) - set(self.names)):
            cls = self.state.objects[object_id].cls.lower()
            self._counts[cls] = self._counts.get(cls, 0) + 1
            name = f"{cls} {self._counts[cls]}"
            self.names[object_id], self.ids[name] = name, object_id
            self._order[object_id] = (cls, self._counts[cls])

    def name_of(self, object_id: str) -> str:
        """The text name of an object id."""
        return self.names[object_id]

    def _id(self, name: str) -> str:
        object_id = self.ids.get(name)
        if object_id is None or object_id not in self.state.objects:
            raise _Failed(f"there is no {name} here")
        return object_id

    @property
    def held(self) -> str | None:
        return self.state.agents[0].held

    def _derived(self) -> dict:
        """Memos of what follows from the objects alone (where each object is, what each place shows, the
        admissible commands there): `go to` moves only the agent, so they hold until an object changes.
        Taking or putting something changes the objects too (the held one's parent and position)."""
        if self._memo_objects is not self.state.objects:
            self._memo_objects, self._memo = self.state.objects, {}
        return self._memo

    def place_of(self, object_id: str) -> str | None:
        """The place an object is at: itself for a place, its nearest enclosing place, or (for an object lying
        loose) the nearest open surface to it; None while it is held."""
        if object_id in self._places:
            return object_id
        return self._layout().place.get(object_id)

    def _find_place(self, object_id: str) -> str | None:
        current = object_id
        while True:
            if current in self._places:
                return current
            parent = self.state.objects[current].parent
            if parent is None:
                break
            current = parent
        position = self.state.objects[current].position
        if position is None and current in self.scene.fixed and self._is_switch(current):
            position = self.scene.fixed[current].position  # a lamp is listed where it stands
        if position is None:
            return None
        key = (current, position)
        if key not in self._nearest_place:
            x, _, z = position

            def gap(place: str) -> float:
                (x0, _, z0), (x1, _, z1) = self.scene.fixed[place].box.lo, self.scene.fixed[place].box.hi
                return max(x0 - x, 0, x - x1) ** 2 + max(z0 - z, 0, z - z1) ** 2

            surfaces = [p for p in self.locations if self._is_surface(p)]  # a loose object is not inside anything
            self._nearest_place[key] = min(surfaces or self.locations, key=lambda p: (gap(p), p))
        return self._nearest_place[key]

    def _is_switch(self, object_id: str) -> bool:
        """A device `use` turns on and off (a lamp, a light switch), as opposed to an appliance's part (a faucet)."""
        c = self.catalog[self.state.objects[object_id].cls]
        return c.toggleable and c.effect is None

    def _is_surface(self, place: str) -> bool:
        c = self.catalog[self.state.objects[place].cls]
        return c.receptacle and not c.openable

    def _layout(self) -> _Layout:
        """Where the loose objects are, worked out in one pass over the objects, once per state of them."""
        memo = self._derived()
        if "layout" not in memo:
            place: dict[str, str | None] = {}
            on: dict[str | None, list[str]] = {}
            at: dict[str | None, list[str]] = {}
            places, held = self._places, self.held
            for i, o in self.state.objects.items():
                if i in places or i == held or not self._usable(i):
                    continue
                place[i] = where = self._find_place(i)
                on.setdefault(o.parent if o.parent is not None else where, []).append(i)
                at.setdefault(where, []).append(i)
            for found in (*on.values(), *at.values()):
                found.sort(key=self._order.__getitem__)
            memo["layout"] = _Layout(place, on, at)
        return memo["layout"]

    def _on(self, place: str) -> list[str]:
        """What lies directly in or on a place (loose objects near it included), as ALFWorld lists it."""
        return self._layout().on.get(place, [])

    def _here(self) -> list[str]:
        """Every object the agent can see where it is: at its place and not shut in a closed receptacle."""
        if self.location is None:
            return []
        here = self._derived().setdefault("here", {})
        if self.location not in here:
            at = self._layout().at.get(self.location, [])
            here[self.location] = [o for o in at if enclosed(self.state, self.catalog, o) is None]
        return here[self.location]

    def _reachable(self, object_id: str) -> None:
        """Raises unless the object is the agent's place or can be seen there."""
        if object_id != self.location and object_id not in self._here():
            where = f"at {self.names[self.location]}" if self.location else "in the middle of the room"
            raise _Failed(f"you see no {self.names[object_id]} {where}")

    def _holding(self, object_id: str) -> None:
        if self.held != object_id:
            raise _Failed(f"you are not carrying {self.names[object_id]}")

    # --- descriptions ----------------------------------------------------------------------------

    def describe(self, object_id: str) -> str:
        """What `examine` says: a receptacle's contents (remembered per state of the objects), or an object's
        state as ALFWorld's facts have it (cleaned, heated, cooled, sliced, on/off)."""
        o, c = self.state.objects[object_id], self.catalog[self.state.objects[object_id].cls]
        if not c.receptacle:
            return self.wording.examine_object(self.names[object_id], self.object_facts(object_id))
        descriptions = self._derived().setdefault("describe", {})
        if object_id not in descriptions:
            contents = [self.names[i] for i in self._on(object_id)]
            descriptions[object_id] = self.wording.receptacle(
                self.names[object_id], contents, c.openable, o.is_open, object_id in self._places
            )
        return descriptions[object_id]

    def object_facts(self, object_id: str) -> set[str]:
        """Which of clean, hot, cool (ALFRED's history sets, as ALFWorld's isclean/ishot/iscool), sliced
        (a piece), on/off (a switchable device) hold for an object."""
        state, c = self.state, self.catalog[self.state.objects[object_id].cls]
        history = (("clean", state.cleaned), ("hot", state.heated), ("cool", state.cooled))
        facts = {word for word, done in history if object_id in done}
        if c.sliced_from is not None:
            facts.add("sliced")
        if c.toggleable:
            facts.add("on" if state.objects[object_id].is_on else "off")
        return facts

    # --- executing low-level actions ----------------------------------------------------------------

    def _run(self, interactions: Sequence[Action], approach: tuple[str, str | None] | None = None) -> None:
        """Walks (to `approach` first, if given, then to any target out of view) and interacts, on a copy
        of the state; commits only if every action succeeded, else raises `_Failed`."""
        state, done = self.state, []

        def do(action: Action) -> None:
            nonlocal state
            state, event = step(self.scene, state, action, catalog=self.catalog)
            if not event.success:
                raise _Failed(f"{action.name} {self.names.get(action.target or '', '')}: {event.message}".strip())
            done.append(action)

        def walk_to(target: str, also: str | None = None) -> None:
            nonlocal state
            path = self.routes.path(state, target, also)
            if path is None:
                raise _Failed(f"no reachable pose from which {self.names[target]} can be used")
            arrived = walk(self.scene, state, 0, path)  # all at once: each step goes where the planner went
            if arrived is None:  # a step would fail after all: take them one by one, to say which and why
                for name in path:
                    do(NAVIGATION[name])
                return
            state = arrived
            done.extend(NAVIGATION[name] for name in path)

        if approach is not None:
            walk_to(*approach)
        for action in interactions:
            if why_not_visible(self.scene, state, self.catalog, 0, action.target) is not None:
                walk_to(action.target)
            do(action)
        if len(self.low_level_actions) + len(done) > self.max_steps:
            raise _OverBudget(f"the command needs {len(done)} low-level steps, over the limit of {self.max_steps}")
        objects, self.state = self.state.objects, state
        self.low_level_actions += done
        if state.objects is not objects:
            self._name_new_objects()

    # --- the commands ------------------------------------------------------------------------------

    def _go(self, place: str) -> str:
        if place not in self.locations:
            raise _Failed(
                f"{self.names[place]} is not a place to go to; places: {', '.join(self.names[p] for p in self.locations)}"
            )
        self._run([], approach=(place, None))
        self.location = place
        return self.wording.arrive(self.names[place], self.location_numbers[place], self.describe(place))

    def _open(self, target: str) -> str:
        self._reachable(target)
        if not self.catalog[self.state.objects[target].cls].openable or self.state.objects[target].is_open:
            raise _Failed(f"{self.names[target]} cannot be opened")
        self._run([Action(A.OPEN, target)])
        return f"You open the {self.names[target]}. {self.describe(target)}"

    def _close(self, target: str) -> str:
        self._reachable(target)
        if not self.catalog[self.state.objects[target].cls].openable or not self.state.objects[target].is_open:
            raise _Failed(f"{self.names[target]} cannot be closed")
        self._run([Action(A.CLOSE, target)])
        return f"You close the {self.names[target]}."

    def _take(self, obj: str, source: str) -> str:
        if self.held is not None:
            raise _Failed(f"you are already carrying {self.names[self.held]}")
        self._reachable(obj)
        if source != self.location and source not in self.state.ancestors(obj):
            raise _Failed(f"{self.names[obj]} is not in/on {self.names[source]}")
        if not self.catalog[self.state.objects[obj].cls].pickupable:
            raise _Failed(f"{self.names[obj]} cannot be picked up")
        self._run([Action(A.PICKUP, obj)])
        return f"You pick up the {self.names[obj]} from the {self.names[source]}."

    def _put(self, obj: str, receptacle: str) -> str:
        self._holding(obj)
        self._reachable(receptacle)
        r = self.state.objects[receptacle]
        if not self.catalog[r.cls].receptacle:
            raise _Failed(f"{self.names[receptacle]} is not a receptacle")
        if self.catalog[r.cls].openable and not r.is_open:
            raise _Failed(f"{self.names[receptacle]} is closed")
        self._run([Action(A.PUT, receptacle)])
        return self.wording.put(self.names[obj], self.names[receptacle])

    def _use(self, target: str) -> str:
        """Switches a device on, or off (ALFWorld's `use`)."""
        self._reachable(target)
        if not self._is_switch(target):
            raise _Failed(f"{self.names[target]} cannot be turned on or off")
        turn_on = not self.state.objects[target].is_on
        self._run([Action(A.TOGGLE_ON if turn_on else A.TOGGLE_OFF, target)])
        return f"You turn {'on' if turn_on else 'off'} the {self.names[target]}."

    def _appliance(self, obj: str, appliance: str, effect: str) -> None:
        self._holding(obj)
        self._reachable(appliance)
        c = self.catalog[self.state.objects[appliance].cls]
        if (c.basin if effect == CLEANS else c.effect != effect) or appliance not in self.locations:
            raise _Failed(f"{self.names[appliance]} cannot do that")

    def _heat(self, obj: str, appliance: str) -> str:
        self._appliance(obj, appliance, HEATS)
        self._run(self._macro(obj, appliance, heat=True))
        return f"You heat the {self.names[obj]} using the {self.names[appliance]}."

    def _cool(self, obj: str, appliance: str) -> str:
        self._appliance(obj, appliance, COOLS)
        self._run(self._macro(obj, appliance, heat=False))
        return f"You cool the {self.names[obj]} using the {self.names[appliance]}."

    def _macro(self, obj: str, appliance: str, heat: bool) -> list[Action]:
        """ALFRED's heat/cool macro: open, put, close, (toggle on, toggle off,) open, take, close."""
        state = self.state.objects[appliance]
        opening = [] if state.is_open else [Action(A.OPEN, appliance)]
        off = [Action(A.TOGGLE_OFF, appliance)] if heat and state.is_on else []
        cycle = [Action(A.TOGGLE_ON, appliance), Action(A.TOGGLE_OFF, appliance)] if heat else []
        return [
            *opening,
            *off,
            Action(A.PUT, appliance),
            Action(A.CLOSE, appliance),
            *cycle,
            Action(A.OPEN, appliance),
            Action(A.PICKUP, obj),
            Action(A.CLOSE, appliance),
        ]

    def _clean(self, obj: str, basin: str) -> str:
        self._holding(obj)
        self._reachable(basin)
        if not self.catalog[self.state.objects[basin].cls].basin:
            raise _Failed(f"{self.names[basin]} is not a sink basin")
        faucet = self._faucet_of(basin)
        if faucet is None:
            raise _Failed(f"no faucet runs into {self.names[basin]}")
        steps = clean_actions(self.state, obj, basin, faucet)
        # the basin and its faucet in view together, so the water runs into the basin the agent sees
        together = self.routes.path(self.state, basin, faucet) is not None
        self._run(steps, approach=(basin, faucet) if together else None)
        return f"You clean the {self.names[obj]} using the {self.names[basin]}."

    def _faucet_of(self, basin: str) -> str | None:
        """The faucet whose closest basin is this one (ALFRED's rule for what a faucet cleans)."""
        fixed = self.scene.fixed
        basins = [f.id for f in fixed.values() if self.catalog[f.cls].basin]

        def d2(a: str, b: str) -> float:
            (ax, _, az), (bx, _, bz) = fixed[a].position, fixed[b].position
            return (ax - bx) ** 2 + (az - bz) ** 2

        faucets = sorted(f.id for f in fixed.values() if self.catalog[f.cls].effect == CLEANS)
        serving = [f for f in faucets if min(basins, key=lambda b: (d2(f, b), b)) == basin]
        return min(serving, key=lambda f: (d2(f, basin), f), default=None)

    def _slice(self, obj: str, tool: str) -> str:
        self._holding(tool)
        self._reachable(obj)
        if not self.catalog[self.state.objects[tool].cls].slices:
            raise _Failed(f"{self.names[tool]} cannot cut")
        self._run([Action(A.SLICE, obj)])
        return f"You sliced the {self.names[obj]} with the {self.names[tool]}."

    def _examine(self, target: str) -> str:
        if target != self.held:
            self._reachable(target)
        return self.describe(target)

    def _inventory(self) -> str:
        return self.wording.inventory(None if self.held is None else self.names[self.held])

    def _look(self) -> str:
        if self.location is None:
            return self.wording.middle_of_room([])
        return self.wording.facing(self.names[self.location])

    def _help(self) -> str:
        return self.wording.help()

    # --- admissible commands and info ------------------------------------------------------------

    def admissible_commands(self) -> list[str]:
        """The commands whose text-level preconditions hold now (as ALFWorld lists them)."""
        admissible = self._derived().setdefault("admissible", {})
        if self.location not in admissible:
            admissible[self.location] = self._admissible()
        return list(admissible[self.location])

    def _admissible(self) -> list[str]:
        n, held, place, objects, catalog = self.names, self.held, self.location, self.state.objects, self.catalog
        found = ["inventory", "look"]
        if held is not None:
            found.append(f"examine {n[held]}")
            in_hand = objects[held].cls
            cuts = catalog[in_hand].slices
        for o in ([place] if place is not None else []) + self._here():
            s = objects[o]
            c = catalog[s.cls]
            name = n[o]
            found.append(f"examine {name}")
            if c.openable:
                found.append(f"{'close' if s.is_open else 'open'} {name}")
            if self._is_switch(o):
                found.append(f"use {name}")
            if held is None:
                if c.pickupable:
                    found.append(f"take {name} from {n[s.parent if s.parent is not None else place]}")
                continue
            fits = not c.pickupable or catalog.can_contain(s.cls, in_hand)
            if fits and c.receptacle and not (c.openable and not s.is_open):
                found.append(self.wording.put_command(n[held], name))
            if cuts and c.sliced_class:
                found.append(f"slice {name} with {n[held]}")
        if held is not None and place is not None:
            c = catalog[objects[place].cls]
            verb = "clean" if c.basin else {HEATS: "heat", COOLS: "cool"}.get(c.effect)
            if verb is not None and (verb != "clean" or self._faucet_of(place) is not None):
                found.append(f"{verb} {n[held]} with {n[place]}")
        found = sorted(set(found))  # "go to" commands are never among them: add the sorted ones and merge
        found += (command for p, command in self._go_to if p != place)
        found.sort()
        return found

    def _goal_conditions(self) -> tuple[int, int]:
        # Beyond the objects, a goal reads ALFRED's history sets, and only looking at something under a
        # lamp reads the agent's pose (the lamp in view).
        state, goal = self.state, self.episode.goal
        pose = state.agents if goal.task_type == "look_at_obj_in_light" else None
        key = (pose, state.cleaned, state.heated, state.cooled)
        conditions = self._derived().setdefault("goal", {})
        if key not in conditions:
            conditions[key] = goal_conditions(self.scene, state, goal)
        return conditions[key]

    def _info(self) -> dict:
        met, total = self._goal_conditions()
        return {
            "episode_id": self.episode.id,
            "admissible_commands": self.admissible_commands(),
            "won": met == total,
            "goal_conditions_met": met,
            "goal_conditions_total": total,
            "goal_satisfied": met == total,
            "location": self.names[self.location] if self.location else None,
            "low_level_steps": len(self.low_level_actions),
            "commands": self.commands,
            "failed_commands": self.failed_commands,
            "last_command_success": self.last[0],
            "problem": self.last[1],
        }
