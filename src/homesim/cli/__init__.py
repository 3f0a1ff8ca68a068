"""The `homesim` command: one module per job or suite, each registering its sub-commands on the one app."""

from homesim.cli import (  # noqa: F401  (registers the sub-commands)
    agents,
    alfred,
    browser,
    demo,
    evaluate,
    handmethat,
    handmethat_generate,
    objectnav_generate,
    render,
    server,
    train,
    verify,
)
from homesim.cli.common import app

__all__ = ["app"]
