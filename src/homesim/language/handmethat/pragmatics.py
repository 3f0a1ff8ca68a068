"""How HandMeThat's human chooses what to mean and what to say, and how a pragmatic listener reads it
(their supplement A.3, by the rules of their generator's `meaning.py` and `rsa.py`), at the state s_T
where the human stops and asks:

- the robot's helps of the quest type (`world.handmethat.helping`) over the goal's relevant things are
  valued as their `get_robot_operators_upon_goal` values them: by the goal distance after the help
  (-h_FF, +1 for bring_me) when a target's name is in the thing's (`Relevance.valued`), else by minus
  the human's remaining steps; A(g) is the helps whose value beats -h_FF(s_T) (`help_values`,
  `useful_objects`), so a help that is no help is useful when h_FF(s_T) exceeds the steps left, as in
  theirs;
- P(m | g) is proportional to exp(3 (U - 0.5 c(m))), U the mean value of the helps the meaning's things
  allow (minus the remaining steps for a thing without one), and 0 unless every thing the meaning fits
  is useful; meanings below 1e-3 are dropped (`meaning_prior`, their `prob_m_given_g`,
  `reformat_meanings` and `remove_low_probs`);
- the human samples a meaning, then an utterance from the depth-10 RSA speaker; the listener samples
  its reading (`request`, their `sample_meaning`, `get_utterance`, `estimate_meaning`), and the four sets
  give the level (`tasks.handmethat.levels`).

The goal distance (their FF heuristic) is the caller's: this module only asks it of states.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from homesim.language.handmethat.utterances import (
    KINDS,
    Objects,
    features,
    literal_semantics,
    matches,
    meaning_cost,
    meanings,
    objects_of,
    utterance_cost,
)
from homesim.language.rsa import listen, speaker
from homesim.tasks.handmethat.levels import level_of
from homesim.tasks.handmethat.relevance import Relevance
from homesim.tasks.handmethat.task import Meaning
from homesim.world.handmethat.helping import Help, help_step, why_not_help
from homesim.world.handmethat.state import HmtState

UNREACHABLE = 1e9  # their h_FF when the relaxed goal is out of reach
PRIOR_BETA, MEANING_COST_WEIGHT, KEPT = 3.0, 0.5, 1e-3
# change_state verb -> the robot's help that does it ("open" has none: no meaning to open is useful)
VERB_HELPS = {
    "toggle": "toggle-on",
    "heat": "heat-obj",
    "cool": "cool-obj",
    "slice": "slice-obj",
    "soak": "soak-obj",
    "clean": "clean-obj",
}
Values = dict[tuple[str, str | None], float]


def helps_of(state: HmtState, quest: str, name: str, targets: Sequence[str]) -> list[tuple[str | None, Help]]:
    """The helps of the quest for one thing, each with its argument (None, a target, a verb)."""
    parent = state[name].parent
    if quest == "bring_me":
        return [(None, Help("move-obj-to-human", (name, parent)))] if parent else []
    if quest == "move_to":
        if not parent:
            return []
        moves = ("move-obj-from-rec-into-rec", "move-obj-from-rec-onto-rec")
        return [(t, Help(m, (name, parent, t))) for t in targets if t != name for m in moves]
    return [(verb, Help(h, (name,))) for verb, h in VERB_HELPS.items()]


def help_values(
    state: HmtState,
    quest: str,
    goal_distance: Callable[[HmtState], float],
    remaining_steps: int,
    relevant: Relevance | None = None,
    targets: Sequence[str] = (),
) -> Values:
    """(thing, argument) -> the value of the robot's help, as their `get_robot_operators_upon_goal` sets
    it: -goal_distance after it, +1 for bring_me (0 when it reaches the goal; their 1e9 when the goal is
    then out of reach). Given the goal's `relevant` things, only their helps are valued (their robot's
    operators range over them, from and to relevant places); one whose thing (or move_to destination)
    names no target gets -remaining_steps without asking the distance. Where two helps share a key (into
    or onto a destination), the later one's value stands, as in their dict. Without `relevant`, every
    help is valued by the distance (move_to towards `targets`)."""
    values: Values = {}
    grounded = state.things.keys() if relevant is None else relevant.things
    places = [n for n, t in state.things.items() if n in grounded and t.category.receptacle] if relevant else targets
    for name, thing in state.things.items():
        if name not in grounded or (quest != "change_state" and not thing.category.movable):
            continue
        for arg, help in helps_of(state, quest, name, places):
            if why_not_help(state, help) is not None or not grounded >= set(help.args):
                continue
            if relevant is None or (relevant.valued(name) and (quest != "move_to" or relevant.names_position(arg))):
                h = min(goal_distance(help_step(state, help)[0]), UNREACHABLE)
                values[(name, arg)] = -h + (quest == "bring_me" and h > 0)
            else:
                values[(name, arg)] = -float(remaining_steps)
    return values


def useful_objects(values: Mapping[tuple[str, str | None], float], distance_now: float) -> Objects:
    """A(g): the helps whose value beats doing nothing, -h_FF at s_T (their `reward > -hff`)."""
    return tuple(k for k, v in values.items() if v > -min(distance_now, UNREACHABLE))


def meaning_prior(
    state: HmtState, candidates: Sequence[Meaning], values: Values, useful: Objects, remaining_steps: int
) -> np.ndarray:
    """P(m | g) over the candidates (their `prob_m_given_g` and `is_useful_meaning`, then those below 1e-3
    dropped and the rest renormalised, their `reformat_meanings`); all zero when no candidate is useful."""
    useful_set = set(useful)
    every = [(n, features(t)) for n, t in state.things.items()]  # locations too, as theirs
    of_kind: dict[tuple[str, object], list] = {}  # only things of the kind a description names can fit it
    for n, f in every:
        for kind in KINDS:
            of_kind.setdefault((kind, f[kind]), []).append((n, f))
    logits = np.full(len(candidates), -np.inf)
    for i, m in enumerate(candidates):
        d = m.details
        kind = next((k for k in KINDS if k in d), None)
        scope = every if kind is None else of_kind.get((kind, d[kind]), [])
        things = _all_useful(scope, d, m.target, useful_set)
        if not things:
            continue
        mean = sum(values.get((n, m.target), -remaining_steps) for n in things) / len(things)
        logits[i] = PRIOR_BETA * (mean - MEANING_COST_WEIGHT * meaning_cost(m))
    if np.isneginf(logits).all():
        return np.zeros(len(candidates))
    p = np.exp(logits - logits.max())
    p /= p.sum()
    p[p < KEPT] = 0.0
    return p / p.sum()


def _all_useful(every: list, description: dict, target: str | None, useful: set) -> list[str] | None:
    """The things the description fits, or None as soon as one of them is no help."""
    things = []
    for name, f in every:
        if matches(f, description):
            if (name, target) not in useful:
                return None
            things.append(name)
    return things


@dataclass(frozen=True)
class Request:
    """What the human means and says, how the listener reads it, the four sets and the level."""

    meaning: Meaning
    utterance: Meaning
    reading: Meaning
    useful: Objects  # A(g)
    in_meaning: Objects  # A(m)
    in_utterance: Objects  # A(u)
    in_reading: Objects  # A(r)

    @property
    def level(self) -> int:
        return level_of(self.useful, self.in_meaning, self.in_utterance, self.in_reading)


@dataclass(frozen=True)
class Pragmatics:
    """The meanings with P(m | g) > 0, the utterances under them and the RSA matrices between them."""

    meanings: list[Meaning]
    prior: np.ndarray
    utterances: list[Meaning]
    speaker: np.ndarray  # meanings x utterances, rows P(u | m)
    listener: np.ndarray  # meanings x utterances, columns P(m | u)

    def reading_of(self, utterance: Meaning) -> np.ndarray:
        """P(m | u) over `meanings` for an utterance under any of them."""
        return self.listener[:, self.utterances.index(utterance)]


def pragmatics(
    state: HmtState, quest: str, values: Values, useful: Objects, remaining_steps: int, targets: Sequence[str] = ()
) -> Pragmatics | None:
    """The RSA game at s_T (their `remove_low_probs`, then `get_pragmatic_speaker` and `_listener` at depth
    10), or None when no meaning is useful (their generator then rejects the scene). Only meanings about
    useful things are formed: any other has a thing it fits that is not useful."""
    about = {n for n, _ in useful}
    candidates = meanings(state, quest, targets, about=about)
    p = meaning_prior(state, candidates, values, useful, remaining_steps)
    if not p.any():
        return None
    kept = [m for m, pm in zip(candidates, p) if pm > 0]
    prior = p[p > 0]
    said, literal = literal_semantics(kept)
    costs = np.array([utterance_cost(u) for u in said])
    s = speaker(literal, prior, costs)
    return Pragmatics(kept, prior, said, s, listen(s, prior))


def request(
    state: HmtState,
    quest: str,
    values: Values,
    useful: Objects,
    remaining_steps: int,
    targets: Sequence[str],
    rng: random.Random,
) -> Request | None:
    """The human's meaning (sampled from P(m | g)), utterance (from the speaker) and the listener's
    sampled reading, as their generator draws them; None when no meaning is useful."""
    game = pragmatics(state, quest, values, useful, remaining_steps, targets)
    if game is None:
        return None
    mi = rng.choices(range(len(game.meanings)), weights=game.prior.tolist())[0]
    ui = rng.choices(range(len(game.utterances)), weights=game.speaker[mi].tolist())[0]
    ri = rng.choices(range(len(game.meanings)), weights=game.listener[:, ui].tolist())[0]
    meaning, utterance, reading = game.meanings[mi], game.utterances[ui], game.meanings[ri]
    return Request(
        meaning,
        utterance,
        reading,
        tuple(useful),
        objects_of(state, meaning),
        objects_of(state, utterance, targets),
        objects_of(state, reading),
    )
