"""`homesim train --agent ppo` for ObjectNav: PPO (`ppo`) on the batched env of the dataset's `train` split,
`--batch-size` envs seeing depth and semantic at the policy's size, for `--max-steps` updates."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from homesim.datasets.folder import read_manifest
from homesim.datasets.sources import kind_of
from homesim.envs.objectnav.episodes import objectnav_episodes
from homesim.envs.objectnav.vector import ObjectNavVectorEnv
from homesim.errors import DataError
from homesim.learning.export import split_provenance
from homesim.learning.loop import TrainResult
from homesim.learning.objectnav.policy import IMAGE, PIXELS, training_embodiment
from homesim.learning.objectnav.ppo import PPOSettings, train_ppo
from homesim.learning.request import Trainer, TrainRequest
from homesim.tasks.objectnav import ObjectNavEpisode

SPLIT = "train"
PPO = PPOSettings()


def train_objectnav(request: TrainRequest) -> TrainResult:
    if request.agent != "ppo":
        raise ValueError(f"--agent {request.agent!r}: ObjectNav's learned agent is ppo")
    request.reject("objectnav", "ablation", "dagger_rounds", "episodes", "layouts", "workers", "observability", "split")
    config = request.config
    if config.max_steps is None:
        raise ValueError("--max-steps: how many PPO updates to train (each plays --batch-size envs 64 steps)")
    if config.epochs != 1:
        raise ValueError(f"--epochs: PPO trains for --max-steps updates ({PPO.epochs} passes over each)")
    episodes, scenes = objectnav_episodes(request.data, None, SPLIT)
    envs = ObjectNavVectorEnv(config.batch_size, episodes, scenes, pixels=PIXELS, embodiment=training_embodiment())
    describe = {
        "suite": "objectnav",
        "agent": "ppo",
        "data": str(request.data.resolve()),
        "split": SPLIT,
        "episodes": len(episodes),
        "image": list(IMAGE),
        "ppo": asdict(PPO),
    }
    try:
        return train_ppo(envs, request.out, config, PPO, describe)
    finally:
        envs.close()


def provenance(describe: dict) -> list[dict]:
    """What a checkpoint learned from: its dataset's digest and the ids of its split's episodes."""
    data = Path(describe["data"])
    ids = [e.id for e in objectnav_episodes(data, None, describe["split"])[0]] if data.exists() else None
    return split_provenance(describe, ids)


def holds_objectnav(data: Path) -> bool:
    """Whether `data` is a homesim dataset folder of ObjectNav episodes."""
    try:
        return kind_of(data) == "dataset" and read_manifest(data)["suite"] == ObjectNavEpisode.suite
    except DataError:
        return False


TRAINER = Trainer(
    "an ObjectNav dataset folder (homesim generate objectnav)", holds_objectnav, train_objectnav, ("ppo",), provenance
)
