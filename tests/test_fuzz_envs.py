"""The fuzz suite, envs: Hypothesis stateful tests over every registered env. Random valid actions, bad
actions of every type and resets, with the world's invariants checked after each step; a twin env fed the
same actions answers the same (determinism), and is now and then replaced by a deep copy or a pickled copy
of the env mid-episode (copy and pickle). Small in the default run; `-m slow` runs many more examples and
prints the figures (steps, bad actions, resets, copies per env)."""

from __future__ import annotations

import copy
import math
import pickle
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.evaluation.suites import SUITES
from homesim.world.scene import to_cell

FIGURES: Counter = Counter()  # what the machines tried, by (env id, kind)

BAD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=300),
    st.binary(max_size=50),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.integers(), st.text(max_size=20)), max_size=3),
    st.fixed_dictionaries({"action": st.one_of(st.integers(-5, 20), st.text(max_size=20), st.none())}),
    st.builds(
        lambda a, t: {"action": a, "target": t},
        st.integers(-3, 15),
        st.one_of(st.text(max_size=40), st.none(), st.integers()),
    ),
    st.just(np.zeros((3, 3))),
    st.just(np.int64(1)),
)


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


# --- what each env's valid actions and world invariants are ----------------------------------------------


def _alfred_action(env, observation, info, draw):
    visible = list(observation.get("visible_objects", ())) or [""]
    return {"action": draw(st.integers(0, 12)), "target": draw(st.sampled_from(visible))}


def _admissible(env, observation, info, draw):
    return draw(st.sampled_from(info["admissible_commands"] or ["look"]))


def _objectnav_action(env, observation, info, draw):
    return draw(st.sampled_from([1, 1, 1, 2, 3, 4, 5, 0]))  # STOP less often: it ends the episode


def _alfred_world(env, observation, info, before) -> None:
    """One parent per object that exists and never loops, held objects lie nowhere, the agent stands on a
    reachable cell with a right-angle yaw and a horizon in range, nothing visible lies in a closed receptacle."""
    state, scene, catalog = env.state, env.scene, env.catalog
    for o in state.objects.values():
        assert o.parent is None or o.parent in state.objects, f"{o.id}'s parent {o.parent} is gone"
        ancestors = state.ancestors(o.id)
        assert o.id not in ancestors
    held = [a.held for a in state.agents if a.held]
    assert len(held) == len(set(held)), "one object held twice"
    for object_id in held:
        assert state.objects[object_id].parent is None and state.objects[object_id].position is None
    for o in state.objects.values():
        assert o.position is not None or o.id in scene.fixed or o.id in held, f"{o.id} is nowhere"
    agent = state.agents[0]
    assert agent.yaw in (0, 90, 180, 270) and -30 <= agent.horizon <= 60
    assert to_cell(agent.x, agent.z) in scene.reachable, f"agent at ({agent.x}, {agent.z}) off the floor"
    for object_id in observation.get("visible_objects", ()) if isinstance(observation, dict) else ():
        if object_id in state.objects and state.objects[object_id].position is not None:
            for outer in state.ancestors(object_id):
                o = state.objects[outer]
                assert o.is_open or not catalog[o.cls].openable, f"{object_id} seen inside closed {outer}"


def _objectnav_reckoning(env, observation, info, before) -> None:
    """GPS and compass move as dead reckoning says: a turn changes the compass by the embodiment's turn and
    not the GPS; a successful move shifts the GPS by one step; anything else changes neither."""
    if before is None:
        assert np.allclose(observation["gps"], 0) and np.allclose(observation["compass"], 0)
        return
    (gps, compass), action = before
    moved = float(np.hypot(*(observation["gps"] - gps)))
    turned = (math.degrees(float(observation["compass"][0] - compass[0])) + 180) % 360 - 180
    name, success, e = info["last_action"], info["last_action_success"], env.embodiment
    if name == "MOVE_FORWARD" and success:
        assert abs(turned) < 1e-3 and 0 < moved <= e.forward * 1.5 + 1e-4, (moved, turned)
    elif name in ("TURN_LEFT", "TURN_RIGHT") and success:
        assert abs(abs(turned) - e.turn) < 1e-3 and moved < 1e-5, (moved, turned)
    else:
        assert moved < 1e-5 and abs(turned) < 1e-3, (name, moved, turned)


def _handmethat_score(env, observation, info, before) -> None:
    """The score is the sum of the rewards given."""
    assert abs(info["score"] - env._fuzz_rewards) < 1e-9, (info["score"], env._fuzz_rewards)


@dataclass(frozen=True)
class Adapter:
    valid: Callable  # (env, observation, info, draw) -> a valid action
    invariants: Callable  # (env, observation, info, what was seen before) -> None (asserts)
    kwargs: Callable[[], dict] = dict  # what the env needs beyond its defaults


def _handmethat_kwargs() -> dict:
    from homesim.datasets.handmethat.generate import make_episode

    return {"episodes": [make_episode(0, i)[0] for i in range(3)]}


ADAPTERS = {
    "homesim/ALFRED-v0": Adapter(_alfred_action, _alfred_world),
    "homesim/ALFRED-Text-v0": Adapter(_admissible, _alfred_world),
    "homesim/ObjectNav-v0": Adapter(_objectnav_action, _objectnav_reckoning),
    "homesim/HandMeThat-v0": Adapter(_admissible, _handmethat_score, _handmethat_kwargs),
}
ENV_IDS = [env_id for suite in SUITES.values() for env_id in suite.env_ids]


def test_every_registered_env_is_fuzzed():
    assert set(ENV_IDS) == set(ADAPTERS), "a new env needs its valid actions and invariants here"


_made: dict = {}


def _env(env_id: str):
    """An env of the id, made once per test session (each example resets it: that is under test too)."""
    if env_id not in _made:
        _made[env_id] = gymnasium.make(env_id, **ADAPTERS[env_id].kwargs()).unwrapped
    return _made[env_id]


def machine_for(env_id: str) -> type[RuleBasedStateMachine]:
    adapter = ADAPTERS[env_id]

    class EnvMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.env = _env(env_id)
            self.twin = copy.deepcopy(self.env)
            self.over = True
            self.seen = None  # for the invariants: what the last step showed (ObjectNav: gps, compass)

        def _reset(self, seed: int, episode: int | None) -> None:
            count = len(self.env.episodes)
            options = {"episode": episode % count} if episode is not None else None
            answers = [e.reset(seed=seed, options=options) for e in (self.env, self.twin)]
            assert _same(*answers), "two envs reset alike answer differently"
            self.observation, self.info = answers[0]
            self.env._fuzz_rewards = 0.0
            self.over, self.seen = False, None
            adapter.invariants(self.env, self.observation, self.info, None)
            self._remember()
            FIGURES[env_id, "resets"] += 1

        def _remember(self) -> None:
            if isinstance(self.observation, dict) and "gps" in self.observation:
                self.seen = ((self.observation["gps"].copy(), self.observation["compass"].copy()), None)

        @initialize(seed=st.integers(0, 2**16), episode=st.one_of(st.none(), st.integers(0, 50)))
        def start(self, seed, episode):
            self._reset(seed, episode)

        @rule(seed=st.integers(0, 2**16), episode=st.one_of(st.none(), st.integers(0, 50)))
        def reset(self, seed, episode):
            self._reset(seed, episode)

        @rule(options=st.one_of(BAD, st.fixed_dictionaries({"episode": st.integers(-(10**9), 10**9)})))
        def bad_reset(self, options):
            """A reset with any options: done alike by both envs, or refused alike with a ValueError (and
            then both ask for a reset before any step)."""
            outcomes = []
            for e in (self.env, self.twin):
                try:
                    outcomes.append(e.reset(seed=0, options=options))
                except ValueError as refused:
                    outcomes.append(type(refused))
            assert _same(*outcomes)
            if outcomes[0] is ValueError:
                self.over = True
                FIGURES[env_id, "refused resets"] += 1
            else:
                self.observation, self.info = outcomes[0]
                self.env._fuzz_rewards, self.over = 0.0, False
                adapter.invariants(self.env, self.observation, self.info, None)
                self._remember()
                FIGURES[env_id, "resets"] += 1

        def _step(self, action, kind: str) -> None:
            if self.over:
                for e in (self.env, self.twin):
                    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
                        e.step(action)
                return
            answer = self.env.step(action)
            assert _same(answer, self.twin.step(action)), "the twin answered the same action differently"
            self.observation, reward, terminated, truncated, self.info = answer
            assert isinstance(reward, int | float) and not isinstance(reward, bool) and math.isfinite(reward)
            assert isinstance(terminated, bool) and isinstance(truncated, bool)
            assert self.env.observation_space.contains(self.observation), "an observation outside its space"
            self.env._fuzz_rewards += reward
            adapter.invariants(self.env, self.observation, self.info, self.seen)
            self._remember()
            self.over = terminated or truncated
            FIGURES[env_id, kind] += 1

        @rule(data=st.data(), count=st.integers(1, 25))
        def valid_steps(self, data, count):
            for _ in range(count):
                if self.over:
                    break
                self._step(adapter.valid(self.env, self.observation, self.info, data.draw), "steps")

        @rule(bad=BAD)
        def bad_step(self, bad):
            self._step(bad, "bad actions")

        @precondition(lambda self: not self.over)
        @rule(how=st.sampled_from(["deepcopy", "pickle"]))
        def copy_mid_episode(self, how):
            rewards = self.env._fuzz_rewards
            self.twin = copy.deepcopy(self.env) if how == "deepcopy" else pickle.loads(pickle.dumps(self.env))
            self.twin._fuzz_rewards = rewards
            FIGURES[env_id, "copies"] += 1

        @invariant()
        def alive(self):
            assert self.env is not None

    EnvMachine.__name__ = f"EnvMachine_{env_id.split('/')[-1].replace('-', '_')}"
    return EnvMachine


def _run(env_id: str, examples: int, steps: int) -> None:
    machine = machine_for(env_id)
    machine.TestCase.settings = settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    machine.TestCase().runTest()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_fuzz_env(env_id):
    _run(env_id, examples=4, steps=15)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_fuzz_env_at_length(env_id):
    _run(env_id, examples=150, steps=60)
    figures = {kind: n for (env, kind), n in FIGURES.items() if env == env_id}
    print(f"\nfuzz {env_id}: {figures}")
