"""`homesim demo`, the README's first command: it generates, evaluates, explains what it counted and ends
with what to try next."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from homesim.cli import app


def test_the_demo_explains_its_counts_keeps_one_split_order_and_says_what_next(tmp_path):
    result = CliRunner().invoke(app, ["demo", "--episodes", "10", "--out", str(tmp_path)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    out = result.output
    # the dataset table counts the annotations an evaluation plays, and says so
    assert "annotations" in out and "an evaluation plays each annotation as one episode" in out
    train = json.loads((tmp_path / "dataset" / "dataset.json").read_text())["splits"]["train"]
    assert f"│ train        │ {train:>8} │ {3 * train:>11} │" in out
    # the generation table and both evaluation tables list the splits in one order
    order = ["train", "valid_seen", "valid_unseen", "test_seen", "test_unseen"]
    for table in out.split("┏")[1:]:
        rows = [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")]
        splits = [r for r in rows if r in order]
        assert splits == [s for s in order if s in splits]
    assert "generating tasks" in out and "evaluating expert" in out and "evaluating random" in out
    assert "What to try next" in out and "homesim play alfred" in out and "homesim render-episode" in out
    # and ObjectNav: a few episodes in generated houses, the expert and the random agent on its val split
    assert "Success [95% CI]" in out and "SoftSPL" in out and "--agent frontier" in out
    expert = json.loads((tmp_path / "objectnav" / "expert" / "summary.json").read_text())["splits"]["val"]["all"]
    assert expert["success"]["value"] == 1.0
    # run again, it leaves what it made alone unless asked (issue 25, item 3)
    again = CliRunner().invoke(app, ["demo", "--episodes", "10", "--out", str(tmp_path)], env={"COLUMNS": "300"})
    assert again.exit_code == 1 and "holds a finished dataset: give --overwrite" in " ".join(again.output.split())
