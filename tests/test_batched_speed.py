"""bench/batched_speed.py's smoke: the whole bench on tiny batches and fractions of a second (the figures
themselves are measured by hand, see docs/benchmarks.md): every case has its rows, each figure positive."""

import importlib
import json
from pathlib import Path

import pytest

TINY = ["--objectnav-sizes", "2,4", "--alfred-sizes", "2", "--render-batches", "2,3", "--pixel-size", "16"]
TINY += ["--houses", "1", "--per-house", "2", "--seconds", "0.05", "--warm-up", "0.05", "--minigrid-steps", "200"]


def test_batched_speed_writes_every_case_with_positive_figures(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "bench"))  # as the bench imports its own
    out = tmp_path / "figures.json"
    importlib.import_module("batched_speed").main([*TINY, "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["minigrid_steps_per_s"] > 0 and len(figures["minigrid_before_after"]) == 2
    cases = [(r["case"], r["num_envs"]) for r in figures["rows"]]
    expected = [("ObjectNav, no pixels", 2), ("ObjectNav, no pixels", 4), ("ObjectNav, 2 processes", 4)]
    expected += [("ObjectNav, no episode ends", 2), ("ObjectNav, no episode ends", 4)]
    expected += [("ALFRED, oracle ids, no pixels", 2), ("ALFRED, 2 processes", 2)]
    if "rendering_unavailable" not in figures:
        expected += [("RGB-D + semantic 16x16", 2), ("RGB-D + semantic 16x16", 3)]
    assert cases == expected
    for r in figures["rows"]:
        for key in ("per_s", "single_per_s", "x_single", "x_minigrid", "bytes_per_env"):
            assert r[key] > 0, (r["case"], key)
        assert r["x_single"] == pytest.approx(r["per_s"] / r["single_per_s"])
        assert r["met"] is (None if r["target"] is None else r["per_s"] >= r["target"])
    targets = [r["target"] for r in figures["rows"][:7]]
    assert targets == [None] * 5 + [200_000] * 2  # ObjectNav's only at N >= 1,024, and not stepping alone
