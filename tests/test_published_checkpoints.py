"""The checkpoints published in `checkpoints/alfred/` (Seq2Seq+PM and MOCA, one epoch on ALFRED's train split):
each card's digest is its weights', the file is weights only and under 15 MB, the card says how it was made,
and each plays built-in episodes with the one command the README gives (no data needed but its own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.files import digest_of
from homesim.learning.export import card_path
from homesim.learning.loop import load_checkpoint

PUBLISHED = Path(__file__).resolve().parents[1] / "checkpoints" / "alfred"
AGENTS = {"s2s_pm.pt": "seq2seq_pm", "moca.pt": "moca"}
MAX_BYTES = 15_000_000


@pytest.mark.parametrize("name", AGENTS)
def test_each_card_holds_its_weights_digest_and_how_they_were_made(name):
    weights = PUBLISHED / name
    card = json.loads(card_path(weights).read_text())
    assert card["sha256"] == digest_of(weights) and card["bytes"] == weights.stat().st_size < MAX_BYTES
    checkpoint = load_checkpoint(weights)
    assert checkpoint["weights_only"] and not {"optimizer", "rng"} & checkpoint.keys()
    assert (card["agent"], card["steps"], card["epochs"]) == (AGENTS[name], checkpoint["step"], checkpoint["epoch"])
    assert card["epochs"] == 1 and checkpoint["finished"]
    assert {"command", "commit", "seconds"} <= card["notes"].keys()
    (data,) = card["data"]
    assert data["source_sha256"].startswith("sha256:") and data["episode_list_sha256"].startswith("sha256:")


@pytest.mark.parametrize("name", AGENTS)
def test_each_checkpoint_plays_built_in_episodes_with_one_command(name, tmp_path):
    from render_support import make_renderer

    make_renderer(32, 32).close()  # skips where no headless OpenGL context can be made
    out = tmp_path / "run"
    args = ["evaluate", "--agent", str(PUBLISHED / name), "--limit", "2", "--out", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["actions"] for r in records)
    assert not any("agent raised" in reason for r in records for _, reason in r["failures"])
