"""`python -m homesim` and the `homesim` command."""

import sys


def main() -> None:
    try:
        from homesim.cli import app
    except KeyboardInterrupt:  # Ctrl-C while the command's modules load: nothing was done yet
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    app(prog_name="homesim")


if __name__ == "__main__":
    main()
