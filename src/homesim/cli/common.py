"""What every `homesim` sub-command shares: the app and its groups, the console, the ALFRED file options,
and the rule that a user's mistake is answered in one line (what and where), never with a traceback."""

from __future__ import annotations

import os
import sys
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import track
from typer.core import TyperGroup

from homesim import __version__
from homesim.errors import DataError

INTERNAL_ERROR = 70  # the exit status of a bug of ours (sysexits' EX_SOFTWARE); 1 is the user's mistake
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
RAY_ANSWER = float(os.environ.get("HOMESIM_RAY_ANSWER", 60))  # seconds a Ray cluster has to answer a command
MAX_WORKERS = 1024  # processes a command may ask for
MAX_EPISODES = 10_000_000  # episodes a generator may be asked for (ALFRED has 8,055 demonstrations)


class OneLineErrors(TyperGroup):
    """Bad input (a malformed file, an unknown split, an unreadable path) ends the command with one line
    naming what and where. Whatever else is raised is a bug of ours: one line saying so and asking for a
    report (`HOMESIM_TRACEBACK=1` shows the traceback), never a raw traceback."""

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # typer's own: usage errors, exits
        except BrokenPipeError:  # the output was cut short (`| head`): nothing to say
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(INTERRUPTED) from None
        except (DataError, OSError, ValueError, EOFError) as e:  # EOFError: a compressed file cut short
            typer.echo(f"Error: {e or type(e).__name__}", err=True)
            raise typer.Exit(1) from e
        except RecursionError as e:
            typer.echo("Error: an input nested too deeply to read", err=True)
            raise typer.Exit(1) from e
        except Exception as e:
            if os.environ.get("HOMESIM_TRACEBACK") == "1":
                raise
            frame = traceback.extract_tb(e.__traceback__)[-1]
            typer.echo(
                f"homesim: internal error (a bug of homesim's, not of your input): {type(e).__name__}: {e}"
                f" [{Path(frame.filename).name}:{frame.lineno}]. Please report it with the command you ran"
                " (HOMESIM_TRACEBACK=1 shows the traceback).",
                err=True,
            )
            raise typer.Exit(INTERNAL_ERROR) from e


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


OverwriteOption = Annotated[
    bool,
    typer.Option("--overwrite", help="replace what --out holds (a finished output of this command's kind: it stays"
                 " until the new one is complete), or start over from an interrupted one"),
]  # fmt: skip


def interrupted(out: Path, done: str) -> typer.Exit:
    """Says what an interrupted command kept (`done`, in `out`'s .partial folder) and how to go on."""
    from homesim.files import partial_of

    console.print(f"[yellow]interrupted:[/] {done} kept in {partial_of(out)}; run the same command again to continue")
    return typer.Exit(INTERRUPTED)


@contextmanager
def output_folder(out: Path, kind: str, settings: dict, overwrite: bool):
    """The folder a command writes its output into, and the journal of its finished chunks of work
    (`homesim.files`): made beside `out` and put in place when the block ends; after Ctrl-C (or a kill)
    the same command continues where it was."""
    from homesim.files import JOURNAL, Journal, open_output

    output = open_output(out, kind, settings, overwrite)
    journal = Journal(output.work / JOURNAL)
    if journal.done:
        console.print(f"continuing: {plural(len(journal.done), 'chunk')} of work kept in {output.work}")
    try:
        yield output.work, journal
    except KeyboardInterrupt:
        raise interrupted(out, plural(len(journal.done), "chunk") + " of finished work") from None
    output.finish()


def floor_plans_of(layouts: Path) -> list[str]:
    """The ALFRED floor plans whose layout files are in --layouts, or a usage error saying there are none."""
    from homesim.scenes.alfred import floor_plans_in

    names = floor_plans_in(layouts)
    if not names:
        problem = f"no FloorPlan*-layout.npy in {layouts}: give the folder of ALFRED's layout files"
        raise typer.BadParameter(problem, param_hint="--layouts")
    return names


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

    most = MAX_WORKERS if backend == "ray" else min(MAX_WORKERS, 8 * (os.cpu_count() or 1))
    if count > most:
        where = "on a Ray cluster" if backend == "ray" else f"here ({os.cpu_count()} CPUs; a Ray cluster takes more)"
        raise typer.BadParameter(f"{count}: at most {most} {where}", param_hint="--workers")
    try:
        workers = Workers(count, backend, address)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--backend") from e
    try:
        with _given_up_after(RAY_ANSWER, f"no Ray cluster answered at {address} within {RAY_ANSWER:g} s"):
            prestart(workers, imports)
    except ConnectionError as e:
        raise typer.BadParameter(str(e), param_hint="--ray-address") from e
    return workers


@contextmanager
def _given_up_after(seconds: float, message: str):
    """Ends the command with `message` (status 1) if the block has not returned within `seconds`: Ray, given an
    address where something else listens, retries inside its C++ client for ever and ignores SIGTERM, so
    nothing but leaving the process stops it."""
    done = threading.Event()

    def give_up() -> None:
        if not done.is_set():
            sys.stderr.write(f"Error: {message}\n")
            sys.stderr.flush()
            os._exit(1)

    timer = threading.Timer(seconds, give_up)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()


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
