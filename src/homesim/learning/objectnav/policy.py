"""The ObjectNav policy DD-PPO's baselines use, small: a CNN over depth and the goal's semantic mask, GPS+Compass,
the goal category and the previous action, a GRU, and actor and critic heads.

It sees images at IMAGE = 48x64 (LoCoBot's 4:3): the training env renders them at that size (its embodiment
with width 64 and height 48), and an evaluated agent takes every tenth pixel of LoCoBot's 640x480 frames
(`downsampled`), the pixel nearest each small pixel's centre.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch
from torch import nn

from homesim.envs.objectnav.env import CATEGORY_NAMES
from homesim.world.objectnav.embodiment import LOCOBOT, Embodiment
from homesim.world.objectnav.navgrid import ACTIONS

IMAGE = (48, 64)  # height, width
PIXELS = ("depth", "semantic")  # the images it reads
NO_ACTION = len(ACTIONS)  # the previous action at an episode's start
GPS_SCALE = 0.1  # metres -> network units


def training_embodiment(embodiment: Embodiment = LOCOBOT) -> Embodiment:
    """The robot with its camera's images at the policy's size."""
    return replace(embodiment, width=IMAGE[1], height=IMAGE[0])


def downsampled(image: np.ndarray) -> np.ndarray:
    """A full-size image ((..., H, W)) at IMAGE: the pixel nearest the centre of each small pixel."""
    if image.shape[-2:] == IMAGE:
        return image
    step_y, step_x = image.shape[-2] // IMAGE[0], image.shape[-1] // IMAGE[1]
    return image[..., step_y // 2 :: step_y, step_x // 2 :: step_x][..., : IMAGE[0], : IMAGE[1]]


def inputs(observations: dict, embodiment: Embodiment = LOCOBOT) -> dict[str, torch.Tensor]:
    """A batch of the vector env's observations ((N, ...) arrays) as the network's inputs."""
    low, high = embodiment.depth_range
    depth = (downsampled(observations["depth"]) - low) / (high - low)
    goal = observations["objectgoal"].reshape(-1)
    mask = downsampled(observations["semantic"]) == goal[:, None, None]
    compass = observations["compass"].reshape(-1)
    return {
        "image": torch.from_numpy(np.stack([depth, mask], axis=1).astype(np.float32)),
        "pose": torch.from_numpy(
            np.stack([*(observations["gps"].T * GPS_SCALE), np.sin(compass), np.cos(compass)], axis=1).astype(
                np.float32
            )
        ),
        "goal": torch.from_numpy(goal.astype(np.int64)),
    }


class PolicyNet(nn.Module):
    """Actor-critic with memory. `forward` takes one step of N envs; `hidden` is (N, hidden), zeroed where an
    episode starts (`starts`)."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.hidden = hidden
        self.cnn = nn.Sequential(
            nn.Conv2d(2, 32, 8, stride=4),
            nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2),
            nn.ReLU(),
            nn.Conv2d(64, 32, 3, stride=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        height, width = IMAGE
        for kernel, stride in ((8, 4), (4, 2), (3, 1)):
            height, width = (height - kernel) // stride + 1, (width - kernel) // stride + 1
        flat = 32 * height * width
        self.visual = nn.Sequential(nn.Linear(flat, hidden), nn.ReLU())
        self.goal = nn.Embedding(len(CATEGORY_NAMES), 32)
        self.previous = nn.Embedding(NO_ACTION + 1, 32)
        self.pose = nn.Sequential(nn.Linear(4, 32), nn.ReLU())
        self.memory = nn.GRUCell(hidden + 96, hidden)
        self.actor = nn.Linear(hidden, len(ACTIONS))
        self.critic = nn.Linear(hidden, 1)
        for layer in (self.actor, self.critic):  # small first policy (near uniform) and value
            nn.init.orthogonal_(layer.weight, gain=0.01 if layer is self.actor else 1.0)
            nn.init.zeros_(layer.bias)

    def encode(self, x: dict[str, torch.Tensor], previous: torch.Tensor, starts: torch.Tensor) -> torch.Tensor:
        """What the memory reads of a step, for any number of steps at once; the previous action is none
        where an episode starts."""
        previous = torch.where(starts, torch.full_like(previous, NO_ACTION), previous)
        parts = [self.visual(self.cnn(x["image"])), self.goal(x["goal"]), self.previous(previous), self.pose(x["pose"])]
        return torch.cat(parts, dim=1)

    def step(
        self, features: torch.Tensor, hidden: torch.Tensor, starts: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One step of N envs: logits (N, actions), values (N,) and the next memory (zeroed where episodes start)."""
        hidden = self.memory(features, hidden * (~starts).unsqueeze(1).float())
        return self.actor(hidden), self.critic(hidden).squeeze(1), hidden

    def forward(
        self, x: dict[str, torch.Tensor], previous: torch.Tensor, hidden: torch.Tensor, starts: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.step(self.encode(x, previous, starts), hidden, starts)
