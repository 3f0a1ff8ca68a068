"""Evaluation: the episode runner with ALFRED's limits, episode records, metrics, sub-goal evaluation."""
