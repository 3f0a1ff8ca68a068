"""The code blocks of the site's hand-written pages (`docs/**/*.md`), read as the tests run them.

A ```` ```python ```` or ```` ```bash ```` block runs, in the order of its page, in a folder of the page's own:
Python blocks in one namespace per page, shell blocks with `bash -e` and `homesim` meaning this tree's
`python3 -m homesim`. An HTML comment on the line before a block says otherwise:

* `<!-- slow -->`: it runs only under `pytest -m slow` (with the shared data's samples linked in its folder:
  `json_2.1.0/`, `gen/layouts/`, HandMeThat's `samples/` and `task-bring_me-2-0-2.json`);
* `<!-- skip: why -->`: it never runs (a synopsis with placeholders, a server, an endpoint), and is counted;
* `<!-- output -->` before a ```` ```text ```` block: what the block before it printed holds these lines, in a
  row, numbers and the width of table rules aside (`shape`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
RUNNABLE = ("python", "bash")
MARKER = re.compile(r"^<!--\s*(slow|skip|output)\s*(?::\s*(.*?))?\s*-->$")
NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")
RULE = re.compile(r"([─━═┄╌-])\1+")  # a table's rule, as long as the table is wide


@dataclass
class Block:
    page: Path
    line: int  # of its opening fence, 1-based
    language: str
    code: str
    mode: str  # "run", "slow" or "skip"
    reason: str = ""  # why a block is skipped
    output: str | None = None  # lines it must print, in a row (an `<!-- output -->` block after it)

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(DOCS)}:{self.line}"


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def blocks(page: Path) -> list[Block]:
    """The page's runnable blocks, each with its mode and the output it documents."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        language, code = fence.group(1), "\n".join(lines[i + 1 : end]) + "\n"
        marker = MARKER.match(lines[i - 1].strip()) if i > 0 else None
        kind, reason = (marker.group(1), marker.group(2) or "") if marker else ("run", "")
        if kind == "output":
            if not found or language != "text":
                raise ValueError(f"{page}:{i + 1}: an output block follows a python or bash block, as ```text")
            found[-1].output = code
        elif language in RUNNABLE:
            if kind == "skip" and not reason:
                raise ValueError(f"{page}:{i + 1}: a skipped block says why (<!-- skip: why -->)")
            found.append(Block(page, i + 1, language, code, kind, reason))
        elif marker:
            raise ValueError(f"{page}:{i + 1}: <!-- {kind} --> marks a ```{language} block, which never runs")
        i = end + 1
    return found


def shape(text: str) -> list[str]:
    """The text's lines as a reader sees their shape: numbers as 0, rules and spaces collapsed, blanks gone."""
    shaped = (RULE.sub(r"\1", NUMBER.sub("0", line)) for line in text.splitlines())
    return [" ".join(line.split()) for line in shaped if line.strip()]
