"""The human's request at the cut of generated HandMeThat episodes (the generator's `ask` over the
pragmatics): what is meant serves the goal, what is said is true of it, the sets are consistent."""

from __future__ import annotations

import random

import pytest

from homesim.datasets.handmethat.episode import replay
from homesim.datasets.handmethat.generate import ask, steps_left, watched
from homesim.language.handmethat.utterances import says_no_more
from homesim.planning.alfred.expert import Unrecoverable
from homesim.tasks.handmethat.relevance import relevance
from homesim.tasks.handmethat.formula import holds
from homesim.tasks.handmethat.goals import sample_goal
from homesim.world.handmethat.sampling import sample_scene


def _asked(wanted: int, seed: int = 0):
    rng, found = random.Random(seed), []
    for _ in range(200):
        scene = sample_scene(rng)
        goal = sample_goal(scene, rng)
        if goal is None or holds(goal.formula, scene):
            continue
        try:
            parts, cut = watched(goal, scene, rng)
        except Unrecoverable:
            continue
        if cut is None:
            continue
        state = replay(scene, tuple(a for _, actions in parts for a in actions)[:cut])
        asked = ask(goal, scene, state, steps_left(parts, cut), rng)
        if asked is not None and asked[0] is not None:
            found.append((goal, scene, state, *asked))
            if len(found) == wanted:
                return found
    pytest.fail(f"fewer than {wanted} requests in 200 scenes")


def test_requests_serve_the_goal() -> None:
    for goal, scene, state, subgoal, r in _asked(6):
        quest = r.meaning.quest
        assert r.utterance.quest == quest and says_no_more(r.meaning, r.utterance)
        assert r.in_meaning and set(r.in_meaning) <= set(r.useful)
        assert set(r.in_meaning) <= set(r.in_utterance) and r.level in (1, 2, 3, 4)
        assert subgoal in goal.subgoals
        relevant = relevance(goal.formula, scene)  # their robot's helps range over the relevant things only
        assert {thing for thing, _ in r.useful} <= relevant.things


def test_requests_are_seeded() -> None:
    assert _asked(2, seed=5) == _asked(2, seed=5)
