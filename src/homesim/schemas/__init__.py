"""The JSON Schemas of the files homesim writes (`<name>.schema.json` beside this module, shipped with the
package): `manifest`, `dataset`, `generation`, `scene`, `episode-<suite>`, `annotation`, `run`, `record`,
`summary`, `frames-meta`, `frames-trajectory`, `checkpoint`, `checkpoint-log`, `actions`, `challenge`. Validate
with any JSON Schema (2020-12) library, e.g. `jsonschema.validate(data, schema("record"))`; the site's Formats
pages list their fields."""

from __future__ import annotations

import json
from importlib.resources import files


def names() -> list[str]:
    """Every schema's name."""
    return sorted(
        p.name.removesuffix(".schema.json") for p in files(__package__).iterdir() if p.name.endswith(".schema.json")
    )


def schema(name: str) -> dict:
    """The schema called `name` (ValueError naming the known ones)."""
    path = files(__package__) / f"{name}.schema.json"
    if not path.is_file():
        raise ValueError(f"no schema {name!r}; known: {', '.join(names())}")
    return json.loads(path.read_text(encoding="utf-8"))
