"""The human's hidden goals: the paper's goal templates (Tables 12-16, the rewritten BEHAVIOR-100 goals) as
data (`tasks/data/handmethat_goals.json`), each a formula of the goal language with blanks for categories.

A blank `{subclass}` is filled with `type-T` for a type T of that subclass present in the scene (`{x_1}`
and `{x_2}` get distinct types), the same T wherever the blank recurs in one goal, as their generator
fills `[subclass]*`. A goal is one template name's formulas, filled and joined with `and`, as their
`_goal`; each formula is one of its subgoals (`_subgoal`).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from homesim.tasks.handmethat.formula import parse
from homesim.world.handmethat.catalog import handmethat_catalog
from homesim.world.handmethat.state import HmtState

_BLANK = re.compile(r"\{(\w+?)(?:_(\d))?\}")
# the pick-and-place templates their generator makes episodes of by default (its `pap_tasks`), by index
PICK_AND_PLACE = frozenset(
    {2, 3, 24, 25, 26, 30, 31, 32, 33, 35, 36, 46, 52, 53, 54, 55, 56, 57, 58, 60, 62, 63, 64, 65, 66}
)


@dataclass(frozen=True)
class Goal:
    index: int  # the template name's place in the list (their `goal_idx`)
    name: str  # "boxing books up for storage"
    subgoals: tuple[str, ...]  # each filled formula

    @property
    def formula(self) -> str:
        return f"(and {' '.join(self.subgoals)})"


@cache
def goal_templates() -> dict[str, tuple[str, ...]]:
    """Template name -> its formulas with blanks, in the tables' order (each checked to parse)."""
    raw = json.loads(resources.files("homesim.tasks").joinpath("data/handmethat_goals.json").read_text())
    out: dict[str, list[str]] = {}
    for t in raw["templates"]:
        parse(_BLANK.sub(lambda m: "type-x", t["formula"]))  # a typo in the data fails here, named
        out.setdefault(t["name"], []).append(t["formula"])
    return {name: tuple(formulas) for name, formulas in out.items()}


def fill(formula: str, state: HmtState, rng: random.Random, chosen: dict[str, str] | None = None) -> str | None:
    """The formula with each blank filled by a type present in the scene; None when a blank has none.
    `chosen` (blank -> type) carries the choices over to the goal's other formulas."""
    present: dict[str, list[str]] = {}
    for t in state.things.values():
        types = present.setdefault(t.category.subclass, [])
        if t.type not in types:
            types.append(t.type)
    chosen = {} if chosen is None else chosen
    for blank, subclass, _ in dict.fromkeys((m.group(0), m.group(1), m.group(2)) for m in _BLANK.finditer(formula)):
        if blank in chosen:
            continue
        taken = {v for k, v in chosen.items() if k.startswith("{" + subclass)}
        options = [t for t in present.get(subclass, ()) if t not in taken]
        if not options:
            return None
        chosen[blank] = rng.choice(options)
    return _BLANK.sub(lambda m: f"type-{chosen[m.group(0)]}", formula)


def sample_goal(state: HmtState, rng: random.Random) -> Goal | None:
    """A template name drawn uniformly, its formulas filled for this scene (None: a blank has no type)."""
    templates = goal_templates()
    index = rng.randrange(len(templates))
    name = list(templates)[index]
    chosen: dict[str, str] = {}
    subgoals = [fill(f, state, rng, chosen) for f in templates[name]]
    if any(s is None for s in subgoals):
        return None
    return Goal(index, name, tuple(subgoals))


@cache
def _template_patterns() -> tuple[re.Pattern, ...]:
    """Each template name's goal (its formulas joined with `and`) as a pattern: a blank matches a type of its
    subclass, the same type wherever the blank recurs."""
    types: dict[str, list[str]] = {}
    for c in handmethat_catalog().categories.values():
        types.setdefault(c.subclass, []).append(re.escape(c.type))
    patterns = []
    for formulas in goal_templates().values():
        text, groups, pattern, at = f"(and {' '.join(formulas)})", {}, "", 0
        for m in _BLANK.finditer(text):
            pattern += re.escape(text[at : m.start()])
            if m.group(0) in groups:
                pattern += f"(?P={groups[m.group(0)]})"
            else:
                groups[m.group(0)] = f"b{len(groups)}"
                pattern += rf"(?P<{groups[m.group(0)]}>type-(?:{'|'.join(types.get(m.group(1), ()))}))"
            at = m.end()
        patterns.append(re.compile(pattern + re.escape(text[at:])))
    return tuple(patterns)


def template_indices(formula: str) -> tuple[int, ...]:
    """The places in the template list (their `goal_idx`) of the templates a filled goal can have been made
    from (some fill to the same goals: "laying tile floors" and template 3 with tiles); () when none."""
    return tuple(i for i, p in enumerate(_template_patterns()) if p.fullmatch(formula))
