"""homesim: a fast, headless household simulator and benchmark suite for instruction-following agents."""

__version__ = "0.1.0"
