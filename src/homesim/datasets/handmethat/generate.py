"""`homesim generate handmethat`: HandMeThat episodes made the way the paper's pipeline makes them
(section 3, supplement A): a seeded scene, a goal from the templates that is false at the start, the
human's plan to it (subgoal by subgoal, in a random order), the plan cut where the robot starts watching,
then the request, its hardness, and the subgoal the meant help serves (when it serves none, the try is
rejected, as theirs).

Episode k of seed S draws everything from its own generator (`handmethat/S/k`), so the episodes, and the
bytes written, do not depend on how many workers made them. The splits are 90/5/5 (their Version 2's
proportions) within each (level, quest type) group, so every split has the same mix.

The request (meaning, utterance, the listener's reading, the level) is the pragmatics' (`ask`), with
their goal distance: the FF heuristic of the human's relaxed task over the goal's relevant things
(`planning.handmethat.ff`, `tasks.handmethat.relevance`).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

from homesim.datasets.handmethat.episode import HandMeThatEpisode, Reading, replay
from homesim.files import Journal, journaled
from homesim.language.handmethat.commands import command
from homesim.language.handmethat.pragmatics import Request, help_values, helps_of, request, useful_objects
from homesim.language.handmethat.speech import request as sentence
from homesim.language.handmethat.speech import task_description
from homesim.language.handmethat.text import Names
from homesim.parallel import Failed, Workers, run_chunks
from homesim.planning.alfred.expert import Unrecoverable
from homesim.planning.handmethat.expert import plan as expert_plan
from homesim.planning.handmethat.ff import ff_distance
from homesim.planning.handmethat.human import cut_plan, forall_starts, human_plan, human_subplans
from homesim.tasks.handmethat.relevance import relevance
from homesim.tasks.handmethat.formula import holds
from homesim.tasks.handmethat.goals import Goal, sample_goal
from homesim.tasks.handmethat.task import QUEST_TYPES
from homesim.world.handmethat import HmtAction
from homesim.world.handmethat.helping import help_step, why_not_help
from homesim.world.handmethat.sampling import sample_scene
from homesim.world.handmethat.state import HmtState

SPLITS = {"train": 0.9, "validation": 0.05, "test": 0.05}
TRAINING = {"train": 0.9 / 0.95, "validation": 0.05 / 0.95}  # with a level-balanced test split made apart
GOALS_PER_SCENE = 5  # goals tried on one scene before sampling another
SCENES_PER_EPISODE = 50  # an episode index gives up after this many scenes (never seen to happen)
CHUNK = 25  # episodes per unit of work
LEVELS = (1, 2, 3, 4)
ROUND = 4000  # episodes made at most in one round towards a level-balanced test split
BALANCE_LIMIT = 200  # episodes made per episode kept, at most, before a level-balanced split gives up
Left = Sequence[tuple[str, int]]  # each subgoal, in the human's order, and the steps left of its part of the plan


def ask(
    goal: Goal, scene: HmtState, state: HmtState, left: Left, rng: random.Random, quests: Sequence[str] = QUEST_TYPES
) -> tuple[str | None, Request] | None:
    """The human's request at the cut `state` of the `scene` (`language.handmethat.pragmatics`): a quest
    type drawn among those with a useful meaning, helps valued by h_FF over the goal's relevant things
    (as the scene has them, grounded in an order drawn as their process's sets order them), move_to
    towards the goal's positions, and the subgoal the meant help serves (`served_subgoal`, from `left`:
    each subgoal, in the human's order, with the steps of its part of the plan still to do; None when the
    help shortens none). None when no quest has a useful meaning or the relaxed goal is out of
    reach. Their generator rejects the scene in all these cases."""
    remaining = sum(n for _, n in left)
    relevant = relevance(goal.formula, scene)
    distance = ff_distance(goal.formula, state, relevant.candidates(state, rng), rng)
    now = distance(state)
    if math.isinf(now):
        return None
    targets = tuple(n for n in state.things if n in relevant.positions)  # their rel_targets["POSITION"]
    quests = list(quests)
    rng.shuffle(quests)
    for quest in quests:
        values = help_values(state, quest, distance, remaining, relevant, targets)
        asked = request(state, quest, values, useful_objects(values, now), remaining, targets, rng)
        if asked is not None:
            return served_subgoal(left, state, asked, targets), asked
    return None


def served_subgoal(left: Left, state: HmtState, asked: Request, targets: Sequence[str]) -> str | None:
    """Their `get_subgoal`: the subgoal whose plan the help for the first thing of A(m) shortens most
    (the first among equals, in the human's order), None when it shortens none: for each subgoal, the
    steps `left` of its part of the human's plan against the human's plan for it after the help."""
    thing, arg = asked.in_meaning[0]
    quest = asked.meaning.quest
    helps = [h for a, h in helps_of(state, quest, thing, targets) if a == arg and why_not_help(state, h) is None]
    if not helps:
        return None
    helped = help_step(state, helps[0])[0]
    best, most = None, 0
    for subgoal, before in left:
        after = _steps(subgoal, helped)
        if after is not None and before - after > most:
            best, most = subgoal, before - after
    return best


def _steps(subgoal: str, state: HmtState) -> int | None:
    """The length of the human's plan for `subgoal` from `state` (0 when it holds), None when the
    human's planner finds none."""
    if holds(subgoal, state):
        return 0
    try:
        return len(human_plan(subgoal, state))
    except Unrecoverable:
        return None


def watched(goal: Goal, scene: HmtState, rng: random.Random) -> tuple[list[tuple[str, list[HmtAction]]], int | None]:
    """The human's plan in its subgoals' parts (`human_subplans`) and where it is cut (`cut_plan`; None when
    nowhere); `Unrecoverable` when a subgoal has no plan."""
    parts = human_subplans(goal.subgoals, scene, rng)
    plan = [a for _, actions in parts for a in actions]
    return parts, cut_plan(plan, scene, rng, forall_starts(parts))


def steps_left(parts: Sequence[tuple[str, Sequence]], cut: int) -> list[tuple[str, int]]:
    """Each subgoal of the human's plan (`human_subplans`) with the steps of its part after the first `cut`."""
    left, t = [], 0
    for subgoal, actions in parts:
        left.append((subgoal, min(len(actions), max(0, t + len(actions) - cut))))
        t += len(actions)
    return left


def make_episode(seed: int, index: int) -> tuple[HandMeThatEpisode, Counter]:
    """Episode `index` of `seed`, and why the tries before it were rejected."""
    rng = random.Random(f"handmethat/{seed}/{index}")
    rejected: Counter = Counter()
    for _ in range(SCENES_PER_EPISODE):
        scene = sample_scene(rng)
        for _ in range(GOALS_PER_SCENE):
            episode, why = _try(scene, rng, f"hmt-{seed}-{index:06d}")
            if episode is not None:
                return episode, rejected
            rejected[why] += 1
    raise RuntimeError(f"episode {index} of seed {seed}: no episode in {SCENES_PER_EPISODE} scenes: {rejected}")


def _try(scene: HmtState, rng: random.Random, episode_id: str) -> tuple[HandMeThatEpisode | None, str]:
    goal = sample_goal(scene, rng)
    if goal is None:
        return None, "a category blank has no type in the scene"
    if holds(goal.formula, scene):
        return None, "goal already true at the start"
    try:
        parts, cut = watched(goal, scene, rng)
    except Unrecoverable:
        return None, "no plan for the human"
    plan = [a for _, actions in parts for a in actions]
    if cut is None:
        return None, "no allowed cut of the human's plan"
    past = tuple(plan[:cut])
    state = replay(scene, past)
    found = ask(goal, scene, state, steps_left(parts, cut), rng)
    if found is None:
        return None, "no useful meaning at the cut"
    subgoal, asked = found
    if subgoal is None:
        return None, "the meant help shortens no subgoal's plan"
    names = Names(state)
    try:
        demo = expert_plan(asked.meaning, [o for o, _ in asked.in_meaning], state)
    except Unrecoverable:
        return None, "the robot's expert cannot do what is asked"
    said = sentence(asked.utterance, names, rng)
    episode = HandMeThatEpisode(
        id=episode_id,
        initial_state=scene,
        human_actions=past,
        goal=goal.formula,
        subgoal=subgoal,
        meaning=asked.meaning,
        utterance=asked.utterance,
        objects_in_meaning=asked.in_meaning,
        level=asked.level,
        demo_actions=tuple(command(a, names) for a in demo),
        task_description=task_description(past, said),
        reading=Reading(asked.reading, asked.in_utterance, asked.useful, asked.in_reading, tuple(plan)),
    )
    return episode, ""


def _setup() -> None:
    return None


def _chunk(_: None, chunk: tuple[int, int, int]) -> tuple[list[HandMeThatEpisode], Counter]:
    seed, start, stop = chunk
    episodes, rejected = [], Counter()
    for index in range(start, stop):
        episode, why = make_episode(seed, index)
        episodes.append(episode)
        rejected += why
    return episodes, rejected


def generate(
    episodes: int,
    seed: int,
    workers: Workers = Workers(),
    progress: Callable = lambda items, total, description: items,
    balance_levels: int = 0,
    journal: Journal | None = None,
) -> tuple[dict[str, list[HandMeThatEpisode]], Counter]:
    """`episodes` episodes split into train / validation / test, and the rejections by reason. With
    `balance_levels` N the `episodes` are split into train and validation (90 to 5) and the test split is
    the first N of each level among the seed's next episodes (`balanced`), as their Version 1 kept about
    as many test episodes of each level. With a `journal`, chunks of episodes made before (by a run that
    was interrupted) are taken from it."""
    made, rejected = _made(seed, 0, episodes, workers, progress, "episodes", journal)
    if not balance_levels:
        return split(made), rejected
    test, more = balanced(seed, episodes, balance_levels, workers, progress, made, journal)
    return split(made, TRAINING) | {"test": test}, rejected + more


def _made(
    seed: int,
    start: int,
    stop: int,
    workers: Workers,
    progress: Callable,
    description: str,
    journal: Journal | None = None,
) -> tuple[list[HandMeThatEpisode], Counter]:
    """Episodes `start` to `stop - 1` of the seed, in index order, and the rejections (chunks the `journal`
    holds are taken from it)."""
    chunks = [(seed, s, min(s + CHUNK, stop)) for s in range(start, stop, CHUNK)]
    results: list = [None] * len(chunks)
    finished = journaled(
        journal,
        chunks,
        lambda todo: run_chunks(_setup, (), _chunk, todo, workers),
        keep=lambda result: not isinstance(result, Failed),
    )
    for i, result in progress(finished, len(chunks), description):
        if isinstance(result, Failed):
            raise RuntimeError(f"episodes {chunks[i][1]}-{chunks[i][2] - 1}: {result.reason}")
        results[i] = result
    made = [e for chunk_episodes, _ in results for e in chunk_episodes]
    return made, sum((r for _, r in results), Counter())


def balanced(
    seed: int,
    start: int,
    per_level: int,
    workers: Workers,
    progress: Callable,
    seen: Sequence[HandMeThatEpisode] = (),
    journal: Journal | None = None,
) -> tuple[list[HandMeThatEpisode], Counter]:
    """The first `per_level` episodes of each level among episodes `start`, `start` + 1, ... of the seed, in
    index order, and the rejections. Episodes are made in rounds sized from the levels' frequencies so far
    (in `seen` and the rounds before: the same whatever the workers); more than `BALANCE_LIMIT` episodes per
    episode kept is an error naming the level short of them."""
    kept: dict[int, list[HandMeThatEpisode]] = {level: [] for level in LEVELS}
    frequency = Counter(e.level for e in seen)
    index, rejected = start, Counter()
    while short := {level: per_level - len(k) for level, k in kept.items() if len(k) < per_level}:
        if index - start >= BALANCE_LIMIT * per_level * len(LEVELS):
            level, missing = max(short.items(), key=lambda x: x[1])
            raise RuntimeError(
                f"--balance-levels {per_level}: {index - start} episodes of seed {seed} gave level {level} only "
                f"{per_level - missing} times"
            )
        total = sum(frequency.values())
        wanted = max(math.ceil(n * max(total, 1) / max(frequency[level], 1)) for level, n in short.items())
        stop = index + min(max(wanted, CHUNK), ROUND)
        made, why = _made(seed, index, stop, workers, progress, "balanced test", journal)
        index += len(made)
        rejected += why
        frequency.update(e.level for e in made)
        for e in made:
            if len(kept[e.level]) < per_level:
                kept[e.level].append(e)
    return sorted((e for k in kept.values() for e in k), key=lambda e: e.id), rejected


def split(episodes: list[HandMeThatEpisode], shares: dict[str, float] = SPLITS) -> dict[str, list[HandMeThatEpisode]]:
    """90/5/5 (or other `shares`, summing to 1) within each (level, quest type) group, in episode order (the
    k-th of a group goes where the running proportions lag most). Small groups round the held-out splits down,
    so a split they leave empty takes the last episode of the largest (when there are episodes enough for every
    split)."""
    out: dict[str, list[HandMeThatEpisode]] = {s: [] for s in shares}
    seen: Counter = Counter()
    given: dict[tuple, Counter] = {}
    for e in episodes:
        group = (e.level, e.quest_type)
        seen[group] += 1
        counts = given.setdefault(group, Counter())
        name = max(shares, key=lambda s: shares[s] * seen[group] - counts[s])
        counts[name] += 1
        out[name].append(e)
    for name in shares:
        if not out[name] and len(episodes) >= len(shares):
            out[name].append(out[max(shares, key=lambda s: len(out[s]))].pop())
    return out
