"""The agent of a Seq2Seq / Seq2Seq+PM checkpoint (`homesim evaluate --agent CKPT.pt`), in mask mode.

It reads goal <sep> instructions once per episode, keeps the decoder's state across steps, sees the 300x300
`rgb` frame downsized to the model's HxW (sampled at the low-resolution pixels' centres, as the frames
were rendered), and takes the most likely action. An interaction's target is its mask upsampled to the
frame: the pixels above 0.5, or if none, the TOP_PIXELS most likely ones. The checkpoint's ablation is
applied here too, so the agent never sees what it was trained without.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from homesim.agents.protocol import AgentAction, TaskSpec, filter_observation, filter_task
from homesim.learning.seq2seq import START, Seq2Seq, Seq2SeqConfig, language_ids
from homesim.learning.vocab import Vocab
from homesim.render import ALFRED
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS

TOP_PIXELS = 100  # a mask with no pixel above 0.5 still points at its likeliest object


def downsize(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An HxWx3 frame at `size`, each pixel the one under the smaller pixel's centre (nearest sampling)."""
    rows = ((np.arange(size[0]) + 0.5) * rgb.shape[0] / size[0]).astype(int)
    columns = ((np.arange(size[1]) + 0.5) * rgb.shape[1] / size[1]).astype(int)
    return rgb[rows][:, columns]


def interaction_mask(logits: torch.Tensor, shape: tuple[int, int]) -> np.ndarray:
    """Mask logits [h, w] as a boolean mask of the frame's `shape`."""
    scores = F.interpolate(logits[None, None], size=shape, mode="bilinear", align_corners=False)[0, 0].numpy()
    mask = scores > 0.0  # probability above 0.5
    if not mask.any():
        mask = np.zeros(scores.size, dtype=bool)
        mask[np.argpartition(-scores.ravel(), TOP_PIXELS)[:TOP_PIXELS]] = True
        mask = mask.reshape(shape)
    return mask


class Seq2SeqAgent:
    def __init__(self, model: Seq2Seq, vocab: Vocab) -> None:
        self.model, self.vocab = model.eval(), vocab
        self.ablation = model.config.ablation

    def reset(self, task: TaskSpec) -> None:
        task = filter_task(self.ablation, task)
        instructions: list[int] = []
        for i, directive in enumerate(task.instructions):
            instructions += ([Vocab.SEP] if i else []) + self.vocab.encode(directive)
        ids = language_ids(self.vocab.encode(task.goal), instructions, self.ablation, Vocab.SEP)
        with torch.no_grad():
            self.words, self.pad, self.state = self.model.encode_language(torch.tensor([ids]), torch.tensor([len(ids)]))
        self.previous = torch.tensor([START])

    def act(self, observation: dict) -> AgentAction:
        observation = filter_observation(self.ablation, observation)
        config = self.model.config
        if config.sees and "rgb" not in observation:
            raise ValueError("this checkpoint sees rgb frames: evaluate it with --pixels rgb")
        frame = downsize(observation["rgb"], config.size) if config.sees else np.zeros((*config.size, 3), np.uint8)
        with torch.no_grad():
            visual = self.model.encode_frames(torch.from_numpy(frame).permute(2, 0, 1)[None])
            feature, self.state = self.model.decode_step(self.words, self.pad, visual, self.previous, self.state)
            action = int(self.model.actor(feature).argmax(-1))
            self.previous = torch.tensor([action])
            name = ACTIONS[action]
            if name not in INTERACT_ACTIONS:
                return AgentAction(name)
            shape = observation["rgb"].shape[:2] if "rgb" in observation else (ALFRED["height"], ALFRED["width"])
            return AgentAction(name, interaction_mask(self.model.masks(feature)[0], shape))


def seq2seq_agent(checkpoint: dict, seed: int = 0) -> Seq2SeqAgent:
    """The agent of a finished `homesim train --agent seq2seq|seq2seq_pm` checkpoint (greedy: the seed
    changes nothing)."""
    # one step of one episode is too small to share between threads; on a loaded machine torch's threads
    # spin against other processes (measured: 20x slower training at 2 threads than at 1 under load 20)
    torch.set_num_threads(1)
    describe = checkpoint["describe"]
    model = Seq2Seq(Seq2SeqConfig.from_dict(describe["model"]))
    model.load_state_dict(checkpoint["model"])
    return Seq2SeqAgent(model, Vocab.from_dict(describe["vocab"]))
