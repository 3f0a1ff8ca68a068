"""HandMeThat's world under the text game: random robot actions with the applicable actions listed at every
step, and the expert's plans, on the authors' 24 sample episodes (207-266 objects each).

    python bench/handmethat_world_speed.py [--steps 20000] [--json out.json]

The reference, run in the same process: listing the applicable actions the obvious way, by asking
`why_not` of every typed grounding of every robot schema over the places and the things at the robot's
location and in hands (the same list as `applicable_actions`, which the tests check on every grounding). Their text env's 90-115 steps/s with
admissible commands (`../shared/REFERENCE-FACTS.md`) is shown beside it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.handmethat.files import read_handmethat_files
from homesim.planning.handmethat.expert import plan
from homesim.world.handmethat import HUMAN, SCHEMAS, HmtAction, applicable_actions, step, why_not

SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "handmethat" / "samples"
THEIRS = 115.0  # their text env's steps/s with admissible commands, partially observable, measured here


def obvious_applicable(state) -> list[HmtAction]:
    """Every typed grounding of every robot schema, kept when `why_not` accepts it: places from the
    locations and the human, things from those at the robot's location (two levels down) and in hands."""
    places = [*state.locations, HUMAN]
    things = [*state.robot.held, *state.human.held]
    if state.robot.at != HUMAN:
        things += [n for t in state.contents(state.robot.at) for n in (t, *state.contents(t))]
    pools = {"from": places, "to": places, "loc": places, "human": [HUMAN]}
    return [
        a
        for schema, params in SCHEMAS.items()
        if schema.startswith("robot-")
        for args in itertools.product(*(pools.get(p, things) for p in params))
        if why_not(state, a := HmtAction(schema, args)) is None
    ]


def steps_per_second(episodes, steps: int, enumerate_actions, seed: int) -> float:
    rng = random.Random(seed)
    begin, done = time.perf_counter(), 0
    while done < steps:
        state = episodes[done % len(episodes)].start_state
        for _ in range(40):  # their episode length
            state, _ = step(state, rng.choice(enumerate_actions(state)))
            done += 1
    return done / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=Path, default=SAMPLES)
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--reference-steps", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    episodes = [e for e in read_handmethat_files(args.episodes) if not isinstance(e, Exception)]
    ours = steps_per_second(episodes, args.steps, applicable_actions, seed=0)
    obvious = steps_per_second(episodes, args.reference_steps, obvious_applicable, seed=0)
    begin, plans = time.perf_counter(), 0
    while time.perf_counter() - begin < 2.0:
        e = episodes[plans % len(episodes)]
        plan(e.meaning, [o for o, _ in e.objects_in_meaning], e.start_state)
        plans += 1
    expert_ms = 1000 * (time.perf_counter() - begin) / plans
    table = Table(title=f"HandMeThat world: random robot actions with applicable actions, {len(episodes)} episodes")
    for column in ("what", "steps/s", "homesim is"):
        table.add_column(column, justify="right")
    table.add_row("applicable_actions + step", f"{ours:,.0f}", "")
    table.add_row("obvious enumeration (same run)", f"{obvious:,.0f}", f"{ours / obvious:,.0f}x")
    table.add_row("their text env (measured here)", f"{THEIRS:,.0f}", f"{ours / THEIRS:,.0f}x")
    Console().print(table)
    Console().print(f"expert: {expert_ms:.3f} ms per plan from the start ({plans} plans)")
    if args.json:
        result = {"steps_per_s": ours, "obvious_steps_per_s": obvious, "theirs": THEIRS, "expert_ms": expert_ms}
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
