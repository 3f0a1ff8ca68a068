"""What every `homesim` sub-command shares: the app and its groups, the console, the ALFRED file options,
and the rule that a user's mistake is answered in one line (what and where), never with a traceback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import track
from typer.core import TyperGroup

from homesim import __version__
from homesim.errors import DataError


class OneLineErrors(TyperGroup):
    """Bad input (a malformed file, an unknown split, an unreadable path) ends the command with one line
    naming what and where. Whatever else is raised is a bug of ours and keeps its traceback."""

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # the output was cut short (`| head`): nothing to say
            raise typer.Exit(1) from None
        except (DataError, OSError, ValueError) as e:
            typer.echo(f"Error: {e or type(e).__name__}", err=True)
            raise typer.Exit(1) from e


def _version(show: bool) -> None:
    if show:
        typer.echo(f"homesim {__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=OneLineErrors,
    help="homesim: a fast, headless household simulator for instruction-following agents.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """homesim: a fast, headless household simulator for instruction-following agents."""


def group(name: str, help: str) -> typer.Typer:
    """A sub-command group of `homesim` (`homesim NAME ...`)."""
    sub = typer.Typer(cls=OneLineErrors, help=help, no_args_is_help=True)
    app.add_typer(sub, name=name)
    return sub


generate_app = group("generate", "Generate datasets: new tasks with expert demonstrations and directives.")
play_app = group("play", "Play a benchmark yourself, in the terminal or (--web SUITE) the browser: a human baseline.")

console = Console(width=None if sys.stdout.isatty() else 150)  # piped output: wide tables, no wrapping

TrajectoriesOption = Annotated[
    Path,
    typer.Option(
        "--trajectories", exists=True, help="ALFRED trajectories: a json_2.1.0 tree, a traj_data.json, or a .jsonl[.gz]"
    ),
]
LayoutsOption = Annotated[
    Path,
    typer.Option(
        "--layouts",
        exists=True,
        file_okay=False,
        help="folder of ALFRED's layout files (FloorPlanN-layout.npy, -objects.json, -openable.json)",
    ),
]


def progress(items, total: int, description: str):
    """A progress bar over `items` (how generators report their stages)."""
    return track(items, total=total, description=description, console=console)


def percent(n: int, total: int) -> str:
    return f"{n} ({100 * n / total:.1f}%)" if total else "0"


def plural(n: int, word: str) -> str:
    """`1 command`, `2 commands`, `2 trajectories`."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else f"{n} {word}s"


BackendOption = Annotated[
    str, typer.Option(help="local (processes on this machine) or ray (a Ray cluster; see --ray-address)")
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(help="with --backend ray: a cluster's address (auto: the one `ray start` joined); none: a local one"),
]


def workers_of(count: int, backend: str, address: str | None, imports: tuple[str, ...] = ()):
    """The processes a command runs on (`homesim.parallel.Workers`), or a usage error naming the option.
    Ray's worker processes start at once, each importing `imports` (the modules of the command's work), so
    a command asks for them before it reads its data, and they start meanwhile."""
    from homesim.parallel import Workers, prestart

    try:
        workers = Workers(count, backend, address)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--backend") from e
    prestart(workers, imports)
    return workers


def play_in_terminal(env, episode: int) -> dict:
    """Plays one episode of a text env with commands typed (or piped) in, and returns the last `info`:
    `quit` stops; piped commands are echoed, as a terminal would show them."""
    if not 0 <= episode < len(env.episodes):
        raise typer.BadParameter(
            f"there are {len(env.episodes)} episodes (0 to {len(env.episodes) - 1})", param_hint="--episode"
        )
    observation, info = env.reset(options={"episode": episode})
    console.print(observation, highlight=False, markup=False)
    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    while True:
        try:
            command = input("> " if interactive else "")
        except EOFError:
            break
        if not interactive:
            console.print(f"> {command}", highlight=False, markup=False)
        if command.strip() in ("quit", "exit"):
            break
        observation, _, terminated, truncated, info = env.step(command)
        style = None if info["last_command_success"] else "yellow"
        console.print(observation, style=style, highlight=False, markup=False)
        if terminated or truncated:
            break
    return info
