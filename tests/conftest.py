"""Shared fixtures. Tests that need the real ALFRED data read it from ../shared/data (never from the
repository); they skip where it is absent, and fail instead when HOMESIM_REQUIRE_SHARED_DATA=1 (CI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(
    os.environ.get("HOMESIM_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
ALFRED_DATA = SHARED_DATA / "alfred"
HANDMETHAT_DATA = SHARED_DATA / "handmethat"


def require_shared(path: Path) -> Path:
    if path.exists():
        return path
    reason = f"real data not found at {path} (set HOMESIM_SHARED_DATA to the folder holding alfred/ and handmethat/)"
    if os.environ.get("HOMESIM_REQUIRE_SHARED_DATA") == "1":
        pytest.fail(f"HOMESIM_REQUIRE_SHARED_DATA=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def alfred_layouts() -> Path:
    return require_shared(ALFRED_DATA / "layouts")


@pytest.fixture(scope="session")
def alfred_samples() -> Path:
    """70 real ALFRED trajectories in the original json_2.1.0 tree."""
    return require_shared(ALFRED_DATA / "samples" / "json_2.1.0")


@pytest.fixture(scope="session")
def alfred_trajectories() -> Path:
    return require_shared(ALFRED_DATA / "trajectories")


@pytest.fixture(scope="session")
def handmethat_samples() -> Path:
    """24 episode files made with HandMeThat's generator (bring_me; levels 1-3), in their JSON."""
    return require_shared(HANDMETHAT_DATA / "samples")


@pytest.fixture(scope="session", autouse=True)
def scene_cache_folder(tmp_path_factory) -> Path:
    """The disk cache of scene tables (`world.scene_cache`) in a folder of the session's own, so that tests
    neither read what an older run left nor leave anything behind."""
    folder = tmp_path_factory.mktemp("scene-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOMESIM_CACHE", str(folder))
        yield folder


TINY_FRAMES = {"size": 16, "limit": 2}  # the learned ALFRED agents' tests: frame size, demonstrations


@pytest.fixture(scope="session")
def tiny_alfred_frames(alfred_trajectories, alfred_layouts, tmp_path_factory) -> Path:
    """A frames folder of valid_seen's first demonstrations at a tiny size, made once for every learning test
    (torch on one thread; skips where no headless OpenGL context can be made)."""
    import torch
    from render_support import make_renderer

    from homesim.learning.alfred.frames import extract_frames

    torch.set_num_threads(1)
    make_renderer(TINY_FRAMES["size"], TINY_FRAMES["size"]).close()
    out = tmp_path_factory.mktemp("frames") / "f"
    extract_frames(alfred_trajectories / "valid_seen.jsonl.gz", out, alfred_layouts, **TINY_FRAMES)
    return out
