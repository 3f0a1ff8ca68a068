"""`homesim play handmethat`: HandMeThat's text game in the terminal (a human baseline)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import console, play_app, play_in_terminal, plural


@play_app.command("handmethat")
def play_handmethat(
    episodes: Annotated[
        Path | None,
        typer.Option(
            "--episodes",
            exists=True,
            help="HandMeThat's episode files (one, or a folder) or a homesim dataset folder; default: the built-in"
            " ones",
        ),
    ] = None,
    observability: Annotated[str, typer.Option(help="partial (your location only) or full")] = "partial",
    split: Annotated[str | None, typer.Option(help="the split to play")] = None,
    episode: Annotated[int, typer.Option(help="which episode (0 is the first)")] = 0,
) -> None:
    """Help the human through HandMeThat's text interface: type commands (`help` lists them), `quit` to stop."""
    from homesim.envs.handmethat import OBSERVABILITY, HandMeThatEnv

    if observability not in OBSERVABILITY:
        raise typer.BadParameter(f"{observability!r}: use partial or full", param_hint="--observability")
    env = HandMeThatEnv(episodes, observability=observability, split=split)
    info = play_in_terminal(env, episode)
    verdict = "[bold green]You helped the human![/]" if info["won"] else "[bold red]Goal not reached.[/]"
    asked = f", {plural(info['questions'], 'question')} (cost {info['question_cost']:g})" if info["questions"] else ""
    console.print(f"{verdict} Score {info['score']:g} after {plural(info['moves'], 'move')}{asked}.")
