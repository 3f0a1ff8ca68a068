"""The layers import downward only, as the design page's diagram draws them (docs/design.md): a module may import
its own layer and the layers below it, never one above (function-level imports included)."""

import re
from pathlib import Path

import homesim

# lowest first; a layer may import any layer of a lower rank
RANKS = {
    "errors": 0, "parallel": 0,
    "files": 0.5,  # writes whole files, and raises the errors of errors.py
    "schemas": 0,  # the JSON Schemas of those files (data, and their reader)
    "world": 1,
    "render": 2, "scenes": 2, "tasks": 2,
    "planning": 3, "language": 3,
    "datasets": 4,
    "envs": 5,
    "agents": 6,
    "evaluation": 7,
    "learning": 8, "server": 8, "llm": 8,
    "web": 9,
    "cli": 10,
    "__main__": 11,
}  # fmt: skip
IMPORT = re.compile(r"^\s*(?:from|import) homesim\.(\w+)", re.M)


def test_every_import_points_downward():
    root = Path(homesim.__file__).parent
    upward = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.name == "__init__.py" and len(relative.parts) == 1:
            continue
        layer = relative.parts[0].removesuffix(".py")
        for imported in IMPORT.findall(path.read_text()):
            if imported != layer and RANKS[imported] >= RANKS[layer]:
                upward.append(f"{relative} imports homesim.{imported}")
    assert upward == []
    assert set(RANKS) >= {p.name.removesuffix(".py") for p in root.iterdir() if not p.name.startswith("__init")} - {
        "__pycache__"
    }


def test_the_design_pages_diagram_draws_these_layers_in_this_order():
    page = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text()
    diagram = page.split("The layers import downward only", 1)[1].split("```")[1]
    drawn = [  # each line's layers: the names before the description (two or more spaces)
        set(re.split(r"\s{2,}", line.strip().removeprefix("└─").strip())[0].split(", "))
        for line in diagram.strip().splitlines()
    ]
    ranked = [{name for name, r in RANKS.items() if r == rank} for rank in sorted(set(RANKS.values()), reverse=True)]
    assert drawn == ranked
