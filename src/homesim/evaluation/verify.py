"""Re-checks an evaluation from its files (`homesim verify RUN`): every figure of `summary.json` recomputed
from the records and `run.json` alone, and every record checked against itself by its suite
(`Suite.check_record`: ALFRED's step counts and failures, HandMeThat's costs, ObjectNav's poses, path and
criteria), and, given the episodes the run read, against the engine (ObjectNav's distances and criteria
inputs, ALFRED's actions played again). A record edited by hand disagrees with one or the other.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from homesim.evaluation.evaluate import read_run, summary_of
from homesim.evaluation.records import read_records
from homesim.evaluation.suites import suite_named


@dataclass
class Verdict:
    """What `verify_run` found: how many figures and records it checked, and what disagrees."""

    figures: int = 0
    records: int = 0
    differing: list[str] = field(default_factory=list)  # "path: summary.json has X, the records give Y"
    problems: list[str] = field(default_factory=list)  # "record N (episode): what"

    @property
    def ok(self) -> bool:
        return not self.differing and not self.problems


def verify_run(out: str | Path, splits: Mapping | None = None, scenes: Mapping | None = None) -> Verdict:
    """Recomputes `out`'s summary and checks its records; `splits`/`scenes`: the episodes it read, if given."""
    out = Path(out)
    config = read_run(out)
    records = read_records(out / "records.jsonl")
    suite = suite_named(config.suite)
    verdict = Verdict(records=len(records))
    for number, record in enumerate(records, start=1):
        for problem in suite.check_record(record, config, splits, scenes):
            verdict.problems.append(f"record {number} ({record.episode_id}): {problem}")
    recomputed = json.loads(json.dumps(summary_of(records, config)))
    written = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for path, ours, theirs in _leaves(written, recomputed):
        verdict.figures += 1
        if ours != theirs:
            verdict.differing.append(f"{path}: summary.json has {ours!r}, the records give {theirs!r}")
    return verdict


def _leaves(a: object, b: object, path: str = "") -> Iterator[tuple[str, object, object]]:
    """Every value of `a` with the value at the same place in `b` (None where `b` has none), and `b`'s own."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            yield from _leaves(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b)):
            yield from _leaves(x, y, f"{path}[{k}]")
    else:
        yield path, a, b
