"""Datasets: file formats, loaders, and importers of public data (ALFRED's trajectories)."""
