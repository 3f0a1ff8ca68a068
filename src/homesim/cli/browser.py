"""`homesim view`, `homesim play --web` and `homesim annotate`: homesim in the browser, served on 127.0.0.1.

    homesim view out/eval out/random --episodes DATASET     # runs (and dataset folders): table, episodes, plots
    homesim play --web alfred --episodes DATASET --out out/human
    homesim annotate DATASET --annotator alice

Everything is read and checked before serving (a bad path is one line, and nothing is served); the address is
printed; `--port` picks the port, the next free one if it is taken (default: any free port).
"""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import app, console, play_app

HOST = "127.0.0.1"  # these pages are for the person at this machine: nothing else is ever bound
PORTS_TRIED = 100  # from --port on, before giving up

PortOption = Annotated[
    int | None, typer.Option("--port", min=1, max=65535, help="the port (taken: the next free one); default: any free")
]


def listening_socket(port: int | None) -> socket.socket:
    """A socket bound to 127.0.0.1 and listening: on `port`, or the next free one after it, or any free one.
    Bound here and handed to the server, so no other program takes the port in between."""
    candidates = [0] if port is None else range(port, min(port + PORTS_TRIED, 65536))
    for candidate in candidates:
        # IPPROTO_TCP named: asyncio turns Nagle off on the connections only of a socket that says it is TCP
        # (with proto 0 every answer on a kept-alive connection waited ~40 ms for a delayed ACK)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.bind((HOST, candidate))
        except OSError as e:
            sock.close()
            if e.errno == errno.EADDRINUSE:
                continue
            raise
        sock.listen(128)
        return sock
    raise OSError(f"--port {port}: it and the {PORTS_TRIED - 1} ports after it are all in use")


def serve(web_app, what: str, port: int | None) -> None:
    """Serves the app on 127.0.0.1 until Ctrl-C, after printing its address."""
    import uvicorn

    sock = listening_socket(port)
    console.print(f"{what} at http://{HOST}:{sock.getsockname()[1]}/ (Ctrl-C stops)", highlight=False)
    server = uvicorn.Server(uvicorn.Config(web_app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


EpisodesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--episodes",
        exists=True,
        help="the episodes the runs read, as evaluate took them (a dataset folder, ALFRED trajectories with"
        " --layouts, HandMeThat's files); repeat it for runs of several suites; default: the built-in episodes",
    ),
]
LayoutsOption = Annotated[
    Path | None, typer.Option("--layouts", exists=True, file_okay=False, help="ALFRED layout files (for trajectories)")
]


@app.command("view")
def view(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="PATH...", exists=True, help="run folders (from evaluate) and dataset folders"),
    ],
    episodes: EpisodesOption = None,
    layouts: LayoutsOption = None,
    port: PortOption = None,
) -> None:
    """Look at episodes in the browser: every run's and dataset's episodes in one table with filters, each
    run's summary and plots, and any episode step by step (its view, map, actions, figures), two runs side
    by side."""
    from homesim.web.viewer import create_viewer
    from homesim.web.viewing import load_sources

    sources = load_sources(paths, episodes or [], layouts)
    for source in sources:
        if source.missing:
            console.print(f"[yellow]{source.path}:[/] {source.missing}")
    count = sum(len(s.rows) for s in sources)
    serve(create_viewer(sources), f"homesim view ({count} episodes)", port)


@play_app.callback(invoke_without_command=True)
def play_web(
    ctx: typer.Context,
    web: Annotated[
        str | None,
        typer.Option("--web", metavar="SUITE", help="play SUITE in the browser: alfred, objectnav, handmethat"),
    ] = None,
    episodes: Annotated[
        Path | None,
        typer.Option(
            "--episodes", exists=True, help="--web: the episodes to play (default: the suite's built-in ones)"
        ),
    ] = None,
    layouts: LayoutsOption = None,
    split: Annotated[str | None, typer.Option("--split", help="--web: only this split")] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", file_okay=False, help="--web: the run folder to write (default: out/human-SUITE)"),
    ] = None,
    port: PortOption = None,
) -> None:
    """Play a benchmark yourself: `homesim play --web SUITE` in the browser (each episode a record of a run folder,
    a human row for `homesim report`), or `homesim play alfred|handmethat` in the terminal."""
    if ctx.invoked_subcommand is not None:
        if web is not None:
            raise typer.BadParameter(f"--web plays in the browser: give it alone, not with {ctx.invoked_subcommand}")
        return
    if web is None:
        console.print(ctx.get_help())
        raise typer.Exit()
    from homesim.datasets.sources import read_episodes
    from homesim.evaluation.suites import SUITES
    from homesim.web.play import PersonRun, create_play

    if web not in SUITES:
        raise typer.BadParameter(f"unknown suite {web!r}; known: {', '.join(SUITES)}", param_hint="--web")
    suite = SUITES[web]
    if suite.person is None:
        raise typer.BadParameter(f"{suite.title} cannot be played in the browser", param_hint="--web")
    source = read_episodes(episodes, layouts, split, suite.name)
    if not any(source.splits.values()):
        raise typer.BadParameter(f"no episodes to play in {episodes}", param_hint="--episodes")
    run = PersonRun(out or Path("out") / f"human-{suite.name}", suite, source)
    count = sum(map(len, source.splits.values()))
    serve(
        create_play(suite, source, run), f"homesim play {suite.title} ({count} episodes, records to {run.out}/)", port
    )


@app.command("annotate")
def annotate(
    dataset: Annotated[Path, typer.Argument(metavar="DATASET", exists=True, help="a dataset folder (dataset.json)")],
    annotator: Annotated[
        str, typer.Option("--annotator", envvar="USER", help="your annotator id, saved with what you write")
    ] = "",
    port: PortOption = None,
) -> None:
    """Write directives for a dataset's demonstrations in the browser, as ALFRED's annotators did: watch each,
    then write a goal and one instruction per sub-goal segment; saved into the dataset folder."""
    from homesim.datasets.folder import is_dataset, read_dataset, read_manifest
    from homesim.datasets.sources import Episodes
    from homesim.errors import DataError
    from homesim.evaluation.suites import suite_named
    from homesim.web.annotate import create_annotate

    if not is_dataset(dataset):
        raise DataError(str(dataset), "(folder)", "not a dataset folder (no dataset.json): annotations are kept in one")
    suite = suite_named(read_manifest(dataset)["suite"])
    if not suite.annotatable:
        raise DataError(str(dataset / "dataset.json"), "suite", f"{suite.title}'s episodes have no directives to write")
    splits, scenes = read_dataset(dataset, annotations=False)  # the annotators write their own
    count = sum(map(len, splits.values()))
    web_app = create_annotate(dataset, suite, Episodes(splits, scenes, suite.name), annotator)
    serve(web_app, f"homesim annotate {dataset} ({count} demonstrations)", port)
