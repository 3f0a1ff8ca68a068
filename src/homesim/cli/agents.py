"""`homesim new-agent`: a working agent to start from, written where the user wants it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import app, console

CLASS = "MyAgent"  # the templates' class


@app.command("new-agent")
def new_agent(
    file: Annotated[Path, typer.Argument(help="the Python file to write, e.g. my_agent.py")],
    suite: Annotated[str, typer.Option(help="the benchmark it plays: alfred, objectnav or handmethat")] = "alfred",
) -> None:
    """Write an agent that runs as it is (reset(task), act(observation)) to start yours from, and say how to
    evaluate it."""
    from homesim.evaluation.suites import SUITES

    if suite not in SUITES:
        raise typer.BadParameter(f"unknown suite {suite!r}; known: {', '.join(SUITES)}", param_hint="--suite")
    if file.suffix != ".py":
        raise typer.BadParameter(f"{file}: a Python file, ending in .py", param_hint="FILE")
    if file.exists():
        raise typer.BadParameter(f"{file} exists: homesim writes a new file, never over one", param_hint="FILE")
    template = importlib.util.find_spec(SUITES[suite].template).origin
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(Path(template).read_text(encoding="utf-8"), encoding="utf-8")
    title = SUITES[suite].title
    said = f"wrote {file}: an agent for {title}, class {CLASS} (what it is given: docs/agents.md)"
    console.print(said, highlight=False)
    run = f"homesim evaluate --suite {suite} --agent {file}:{CLASS} --out runs/mine"
    console.print(f"run it on the built-in episodes:\n  {run}", highlight=False)
