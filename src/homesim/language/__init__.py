"""Language for the suites: ALFRED-style goal and step-by-step directives written from demonstrations."""

from homesim.language.alfred.directives import annotate

__all__ = ["annotate"]
