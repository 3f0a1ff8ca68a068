"""`homesim evaluate --agent llm`'s own options (`--llm-*`, one help panel), gathered into the agent's settings
(`EvaluationConfig.agent_options`, `homesim.llm.agent.LLMSettings`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

PANEL = "Language-model agent (--agent llm)"


def _option(help: str, **kwargs) -> typer.models.OptionInfo:
    return typer.Option(help=help, rich_help_panel=PANEL, **kwargs)


BaseUrl = Annotated[str | None, _option("an OpenAI-compatible endpoint (default http://127.0.0.1:8000/v1)")]
Model = Annotated[str | None, _option("the model to ask (its name at the endpoint)")]
KeyEnv = Annotated[str | None, _option("the environment variable holding the API key (the key is never recorded)")]
Offline = Annotated[
    Path | None,
    _option("no endpoint: write each prompt to DIR/prompts, read its answer from DIR/answers; run again to go on"),
]
Cache = Annotated[
    Path | None, _option("SQLite answer cache: a rerun asks nothing twice (default OUT.llm_cache.sqlite, beside the output folder)")
]
Preset = Annotated[str | None, _option("react (a thought line, then the command; the default) or act (the command)")]
Template = Annotated[Path | None, _option("a Jinja2 prompt template of your own (blocks system and turn)", exists=True)]
Mode = Annotated[
    str | None,
    _option("generate (the default) or score: the command of highest log-likelihood (a completions endpoint)"),
]
Examples = Annotated[
    int | None, _option("example games of the episode's task type, played by the expert (default 1)", min=0)
]
ExamplesFrom = Annotated[
    Path | None,
    _option("episodes the example games come from (default: --episodes; their train split if any)", exists=True),
]
Context = Annotated[
    int | None, _option("tokens a prompt and its reply may take; older steps are left out (default 8192)")
]
MaxTokens = Annotated[int | None, _option("tokens a reply may take (default 256)")]
Temperature = Annotated[float | None, _option("sampling temperature (default 0)")]
MaxInvalid = Annotated[int | None, _option("invalid replies in a row that end an episode (default: none do)", min=1)]
MaxReplies = Annotated[int | None, _option("replies an episode may take (default: the suite's own limits)", min=1)]


def agent_options(given: dict[str, object], episodes: Path | None, layouts: Path | None, out: Path) -> dict:
    """The LLM agent's settings from the options given (None: not given), with the defaults that depend on the
    command: the cache in the output folder, the example games from the evaluated episodes."""
    options = {name: (str(value) if isinstance(value, Path) else value) for name, value in given.items()}
    options = {name: value for name, value in options.items() if value is not None}
    options.setdefault("cache", str(out.parent / f"{out.name}.llm_cache.sqlite"))  # beside OUT: it outlives OUT.partial
    options.setdefault("examples_from", None if episodes is None else str(episodes))
    options.setdefault("layouts", None if layouts is None else str(layouts))
    return {name: value for name, value in options.items() if value is not None}
