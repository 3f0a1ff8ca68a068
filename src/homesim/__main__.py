"""`python -m homesim`: the `homesim` command."""

from homesim.cli import app

app(prog_name="homesim")
