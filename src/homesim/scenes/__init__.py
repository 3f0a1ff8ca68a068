"""Where scenes come from: the real ALFRED floor plans (importer) and procedural rooms (generator)."""
