"""Task definitions per suite: goals, goal conditions and what counts as success."""
