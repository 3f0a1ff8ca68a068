"""Text-game speed with admissible commands on: `homesim/ALFRED-Text-v0` over ALFRED's 251 valid_seen
episodes, and ALFWorld's interface to it (`homesim.envs.alfred.alfworld.AlfredTWEnv`, batch of 1, infos with
facts as ALFWorld's hand-coded expert asks, over valid_seen's 187 ALFWorld games), against TextWorld (a
`tw-make custom --world-size 5 --nb-objects 10 --quest-length 5 --seed 1` game,
`EnvInfos(admissible_commands=True)`) and TextWorldExpress (its "coin" game, valid actions listed every
step), measured in the same run, one process each.

    pip install -e ".[bench]"   # TextWorldExpress runs on Java: apt-get install -y default-jre-headless
    python bench/text_speed.py [--steps 20000] [--warmup 10000] [--homesim-warmup 150000] [--cold [--fresh-cache]]
        [--games homesim TextWorldExpress] [--json out.json]

The agent says a random admissible command every step (seeded) and starts a new episode when one ends
(won, lost, or 50 commands: the text env's budget, imposed on the others too). Resets are timed apart:
steps/s counts steps only, and the mean reset time is its own column ("with resets": steps/s with the
resets' time counted; "per CPU s": steps per second of CPU time, resets counted, of the game's process and
the processes it started; "homesim is": the ratio of steps/s, and in brackets of steps/s with resets and of
steps per CPU second).
Setup (loading the episodes, generating and compiling the TextWorld game, starting Java) is timed apart.
Before the timed steps, each game plays untimed warm-up steps, shown with their own speed: `--warmup` for
TextWorld and TextWorldExpress (Java's JIT settles within a few thousand), `--homesim-warmup` for homesim, which
keeps what it works out per scene and per object (the random agent meets most of valid_seen's 88 scenes
within 20,000 steps). `--cold` times homesim from its first step instead (no warm-up, a fresh env: every
scene is entered for the first time during the timed steps; a reset that enters a new scene builds its
pose and route tables, or reads them from the disk cache where an earlier run left them
(`homesim.world.scene_cache`: `$HOMESIM_CACHE`, by default ~/.cache/homesim; a line under the table says
for how many scenes), so the columns with resets counted say what that costs), against the others after
their warm-up. `--fresh-cache` starts homesim with an empty cache, so that every scene's tables are built
during the timed steps. A competitor that cannot run here is skipped with a line saying why.
ALFWorld's own engine (TextWorld's PDDL env with fast-downward) does not install here: its row is the
speed measured on a machine like this one (`../shared/REFERENCE-FACTS.md`: 15 steps/s with admissible
commands), not a run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.alfred.importer import import_alfred
from homesim.envs.alfred.text import MAX_COMMANDS, AlfredTextEnv
from homesim.world import scene_cache
from homesim.world.views import version as views_version

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"
HOMESIM = "homesim"
ALFWORLD_API = "AlfredTWEnv"
ALFWORLD_PDDL = ("ALFWorld PDDL (ref.)", 15.0)  # REFERENCE-FACTS.md, measured on this machine class

GAMES = (HOMESIM, ALFWORLD_API, "TextWorld", "TextWorldExpress")

Reset = Callable[[], list[str]]  # -> the admissible commands
Step = Callable[[str], tuple[list[str], bool]]  # command -> the admissible commands, whether the episode ended


class Unavailable(Exception):
    """A competitor that cannot run here; the message says why."""


def cpu_seconds() -> float:
    """CPU time of this process and of every process under it (TextWorldExpress's Java server), from /proc:
    on a loaded machine a game of two processes gets more of it than one of one, so steps per CPU second
    compare the games where steps/s cannot."""
    total, pids = time.process_time(), [os.getpid()]
    while pids:
        pid = pids.pop()
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                children = [int(c) for c in (task / "children").read_text().split()]
                for child in children:
                    fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
                    total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
                pids += children
        except OSError:  # no /proc here, or a process that just ended
            continue
    return total


def play(reset: Reset, step: Step, rng: random.Random, steps: int) -> dict:
    """Random admissible commands for `steps` steps; steps/s excludes the resets, which are timed apart."""
    resets, reset_seconds = 0, 0.0
    cpu = cpu_seconds()
    begin = time.perf_counter()
    commands = reset()
    reset_seconds += time.perf_counter() - begin
    for _ in range(steps):
        commands, done = step(rng.choice(commands))
        if done:
            started = time.perf_counter()
            commands = reset()
            reset_seconds += time.perf_counter() - started
            resets += 1
    seconds = time.perf_counter() - begin
    cpu = cpu_seconds() - cpu
    return {
        "steps_per_cpu_s_with_resets": steps / cpu,
        "steps_per_s": steps / (seconds - reset_seconds),
        "steps_per_s_with_resets": steps / seconds,
        "resets": resets,
        "reset_ms": 1000 * reset_seconds / (resets + 1),
    }


def homesim_game(trajectories: Path, layouts: Path, seed: int, notes: dict) -> tuple[Reset, Step]:
    splits, scenes, _ = import_alfred(trajectories, layouts)
    kept = [scene_cache.path_of(s, "views", views_version()) for s in scenes.values()]
    notes["cached_scenes"] = sum(path is not None and path.is_file() for path in kept)
    notes["scenes"], notes["cache"] = len(scenes), str(scene_cache.folder())
    env = AlfredTextEnv([e for es in splits.values() for e in es], scenes)
    env.reset(seed=seed)  # seeds the env's episode draws; `play` resets again

    def reset() -> list[str]:
        return env.reset()[1]["admissible_commands"]

    def step(command: str) -> tuple[list[str], bool]:
        _, _, terminated, truncated, info = env.step(command)
        return info["admissible_commands"], terminated or truncated

    return reset, step


def alfworld_api_game(trajectories: Path, layouts: Path) -> tuple[Reset, Step]:
    from homesim.envs.alfred.alfworld import AlfredTWEnv

    config = {"dataset": {"eval_id_data_path": str(trajectories), "layouts": str(layouts)}}
    env = AlfredTWEnv(config, train_eval="eval_in_distribution").init_env(batch_size=1)

    def reset() -> list[str]:
        return env.reset()[1]["admissible_commands"][0]

    def step(command: str) -> tuple[list[str], bool]:
        _, _, dones, infos = env.step([command])
        return infos["admissible_commands"][0], dones[0]

    return reset, step


def textworld_game(folder: Path) -> tuple[Reset, Step]:
    import textworld

    options = textworld.GameOptions()  # what `tw-make custom --world-size 5 ... --seed 1` sets
    options.seeds, options.nb_rooms, options.nb_objects = 1, 5, 10
    options.chaining.min_length = options.chaining.max_length = options.chaining.max_depth = 5
    options.path = str(folder / "game.z8")
    game_file, _ = textworld.make(options)
    env = textworld.start(game_file, request_infos=textworld.EnvInfos(admissible_commands=True))
    said = 0

    def reset() -> list[str]:
        nonlocal said
        said = 0
        return env.reset()["admissible_commands"]

    def step(command: str) -> tuple[list[str], bool]:
        nonlocal said
        said += 1
        state, _, done = env.step(command)
        return state["admissible_commands"], done or said >= MAX_COMMANDS

    return reset, step


def textworld_express_game(seed: int) -> tuple[Reset, Step]:
    from textworld_express import TextWorldExpressEnv

    if shutil.which("java") is None:
        raise Unavailable("it runs on Java, and there is no `java` (apt-get install -y default-jre-headless)")
    env = TextWorldExpressEnv(envStepLimit=MAX_COMMANDS)
    env.load(gameName="coin", gameParams="")
    env.reset(seed=seed, gameFold="train", generateGoldPath=False)  # later resets draw the next seeds

    def reset() -> list[str]:
        return sorted(env.reset()[1]["validActions"])

    def step(command: str) -> tuple[list[str], bool]:
        _, _, done, infos = env.step(command)
        return sorted(infos["validActions"]), done

    return reset, step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--warmup", type=int, default=10_000)
    parser.add_argument("--homesim-warmup", type=int, default=150_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cold", action="store_true", help="homesim from its first step, no warm-up")
    parser.add_argument(
        "--fresh-cache", action="store_true", help="homesim's scene tables built in the timed steps (an empty cache)"
    )
    parser.add_argument("--games", nargs="+", choices=GAMES, help="only these games (default: all)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.cold:
        args.homesim_warmup = 0
    console = Console(width=120)
    figures: dict[str, dict] = {}
    notes: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        if args.fresh_cache:
            os.environ["HOMESIM_CACHE"] = str(Path(folder) / "scene-cache")
        games = {
            HOMESIM: (lambda: homesim_game(args.trajectories, args.layouts, args.seed, notes), args.homesim_warmup),
            ALFWORLD_API: (lambda: alfworld_api_game(args.trajectories, args.layouts), args.homesim_warmup),
            "TextWorld": (lambda: textworld_game(Path(folder)), args.warmup),
            "TextWorldExpress": (lambda: textworld_express_game(args.seed), args.warmup),
        }
        for name, (make, warmup) in games.items():
            if args.games and name not in args.games:
                continue
            begin = time.perf_counter()
            try:
                reset, step = make()
            except ImportError as missing:
                console.print(f"skipped {name}: {missing.name} is not installed (pip install -e '.[bench]')")
                continue
            except Unavailable as reason:
                console.print(f"skipped {name}: {reason}")
                continue
            setup = time.perf_counter() - begin
            cold = play(reset, step, random.Random(args.seed), warmup) if warmup else None
            timed = play(reset, step, random.Random(args.seed + 1), args.steps)
            figures[name] = {
                **timed,
                "setup_s": setup,
                "warmup_steps": warmup,
                "warmup_steps_per_s": cold["steps_per_s"] if cold else None,
            }
    ours = figures.get(HOMESIM)
    cold = " from a cold start" if args.cold else ""
    title = f"text games, random admissible commands, {args.steps:,} timed steps (homesim: valid_seen{cold})"
    table = Table(title=title)
    columns = ("game", "setup s", "warm-up steps", "warm-up steps/s", "steps/s", "ms/reset", "with resets")
    for column in (*columns, "per CPU s", "homesim is"):
        table.add_column(column, justify="right")
    for name, f in figures.items():
        if ours:
            f["homesim_ratio"] = ours["steps_per_s"] / f["steps_per_s"]
            f["homesim_ratio_with_resets"] = ours["steps_per_s_with_resets"] / f["steps_per_s_with_resets"]
            f["homesim_ratio_per_cpu_s"] = ours["steps_per_cpu_s_with_resets"] / f["steps_per_cpu_s_with_resets"]
        table.add_row(
            name,
            f"{f['setup_s']:.1f}",
            f"{f['warmup_steps']:,}",
            f"{f['warmup_steps_per_s']:,.0f}" if f["warmup_steps_per_s"] else "-",
            f"{f['steps_per_s']:,.0f}",
            f"{f['reset_ms']:.2f}",
            f"{f['steps_per_s_with_resets']:,.0f}",
            f"{f['steps_per_cpu_s_with_resets']:,.0f}",
            f"{f['homesim_ratio']:.1f}x ({f['homesim_ratio_with_resets']:.1f}x, {f['homesim_ratio_per_cpu_s']:.1f}x)"
            if ours
            else "-",
        )
    if ALFWORLD_API in figures:
        name, speed = ALFWORLD_PDDL
        ratio = figures[ALFWORLD_API]["steps_per_s"] / speed
        figures[name] = {"steps_per_s": speed, "alfworld_api_ratio": ratio}
        table.add_row(name, "-", "-", "-", f"{speed:,.0f}", "-", "-", "-", f"AlfredTWEnv {ratio:,.0f}x")
    console.print(table)
    if notes:
        console.print(
            f"homesim's scene tables (pose views, routes) were in the cache for {notes['cached_scenes']} of "
            f"{notes['scenes']} scenes ({notes['cache']}); the others were built when first entered"
        )
        figures[HOMESIM] = {**figures.get(HOMESIM, {}), **notes}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
