"""Learned baselines: vocabularies, the training loop with checkpoints and resumption, and each suite's models
and trainers (`alfred/`, `handmethat/`). Needs PyTorch (pinned to its CPU wheel); nothing below this layer
imports it."""
