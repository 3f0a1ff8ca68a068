"""`python -m homesim` and the `homesim` command."""

import sys


def main() -> None:
    try:
        from homesim.cli import app

        app(prog_name="homesim")
    except KeyboardInterrupt:  # Ctrl-C while the command's modules load or its options are read: nothing done yet
        sys.stderr.write("interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    main()
