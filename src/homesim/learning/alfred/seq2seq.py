"""ALFRED's Seq2Seq baseline (its paper, section 4.1) and Seq2Seq+PM (4.2), sized for a CPU.

As in the paper: a BiLSTM encodes goal <sep> instructions; at each step the decoder state attends over
the words (z = (W_x h_{t-1})^T x), an LSTM cell takes u_t = [v_t; x_t; a_{t-1}], and [h_t; u_t] feeds an
action head over ALFRED's 13 actions and a three-layer deconvolution mask decoder (sigmoid, rebalanced
BCE); +PM adds progress (t/T) and sub-goal progress (c_t/C) heads trained with L2, scaled by 0.1.
Deliberate differences: no pretrained ResNet-18 can be downloaded here, so the visual encoder is a small
CNN trained from scratch on HxW frames (64x64 by default), and the sizes are smaller (decoder 256, not 512;
v_t 256, not 2500; language 64 per direction, not 100), so an epoch over ALFRED's train fits a CPU.

The paper's ablations are ALFRED's observation filters (`agents.protocol.OBSERVATION_FILTERS`), applied in
training as in evaluation: hidden language is blanked (the sequence keeps only its <sep>), hidden pixels
are removed (v_t = 0; the model has no CNN).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from homesim.agents.protocol import OBSERVATION_FILTERS
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS

AUXILIARY_WEIGHT = 0.1  # the paper's scale of the progress monitors' losses (action and mask weigh 1)
START = len(ACTIONS)  # a_{t-1} before the first step
INTERACTIONS = torch.tensor([ACTIONS.index(a) for a in INTERACT_ACTIONS])


@dataclass(frozen=True)
class Seq2SeqConfig:
    vocab_size: int
    size: tuple[int, int] = (64, 64)  # frame height, width; each a multiple of 8
    embed: int = 64  # word embedding
    language: int = 64  # BiLSTM hidden size per direction
    visual: int = 256  # v_t
    hidden: int = 256  # decoder LSTM
    action_embed: int = 32
    dropout: float = 0.3  # on the visual features and the decoder state, as the paper
    progress_monitor: bool = False  # +PM
    ablation: str = "none"
    heads: tuple[str, ...] = ("action", "mask")  # MOCA's streams: the policy's action only, the perception's none

    def __post_init__(self) -> None:
        if self.ablation not in OBSERVATION_FILTERS:
            raise ValueError(f"unknown ablation {self.ablation!r}; known: {', '.join(OBSERVATION_FILTERS)}")
        if len(self.size) != 2 or any(s % 8 or s < 8 for s in self.size):
            raise ValueError(f"frame size {self.size}: height and width must be multiples of 8")
        if set(self.heads) - {"action", "mask"}:
            raise ValueError(f"heads {self.heads}: some of action, mask")

    @property
    def sees(self) -> bool:
        return "rgb" not in OBSERVATION_FILTERS[self.ablation]

    def to_dict(self) -> dict:
        written = asdict(self) | {"size": list(self.size), "heads": list(self.heads)}
        if self.heads == Seq2SeqConfig.heads:  # as checkpoints written before MOCA say it, so they resume
            del written["heads"]
        return written

    @classmethod
    def from_dict(cls, d: dict) -> Seq2SeqConfig:
        return cls(**(d | {"size": tuple(d["size"]), "heads": tuple(d.get("heads", cls.heads))}))


def language_ids(goal: list[int], instructions: list[int], ablation: str, sep: int) -> list[int]:
    """goal <sep> instructions as the ablation lets the model read them (a hidden part is left empty)."""
    hidden = OBSERVATION_FILTERS[ablation]
    return ([] if "goal" in hidden else list(goal)) + [sep] + ([] if "instructions" in hidden else list(instructions))


class FrameEncoder(nn.Module):
    """RGB frame -> v_t: strided convolutions to a (H/8)x(W/8) map, a 1x1 convolution reducing its channels
    (the paper's head on ResNet's conv5), and a fully-connected layer."""

    def __init__(self, size: tuple[int, int], out: int) -> None:
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(3, 16, 8, stride=4, padding=2),
            nn.ReLU(),
            nn.Conv2d(16, 32, 4, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 16, 1),
            nn.ReLU(),
        )
        self.fc = nn.Linear(16 * (size[0] // 8) * (size[1] // 8), out)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:  # uint8 [N, 3, H, W] -> [N, out]
        return F.relu(self.fc(self.convs(frames.float() / 255.0).flatten(1)))


class MaskDecoder(nn.Module):
    """[h_t; u_t] -> mask logits [N, H, W]: a fully-connected layer to a 32x(H/8)x(W/8) map and three
    deconvolutions, each doubling the resolution."""

    def __init__(self, inputs: int, size: tuple[int, int]) -> None:
        super().__init__()
        self.grid = (size[0] // 8, size[1] // 8)
        self.fc = nn.Linear(inputs, 16 * self.grid[0] * self.grid[1])
        self.deconvs = nn.Sequential(
            nn.ConvTranspose2d(16, 16, 4, stride=2, padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(8, 1, 4, stride=2, padding=1),
        )

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        grid = F.relu(self.fc(features)).view(-1, 16, *self.grid)
        return self.deconvs(grid).squeeze(1)


class Seq2Seq(nn.Module):
    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        self.config = c = config
        self.embed = nn.Embedding(c.vocab_size, c.embed, padding_idx=0)
        self.encoder = nn.LSTM(c.embed, c.language, batch_first=True, bidirectional=True)
        words = 2 * c.language
        self.self_attention = nn.Linear(words, 1)  # pools the words to initialise the decoder (paper, appendix)
        self.init_state = nn.Linear(words, 2 * c.hidden)
        self.frames = FrameEncoder(c.size, c.visual) if c.sees else None
        self.action_embed = nn.Embedding(len(ACTIONS) + 1, c.action_embed)
        self.attention = nn.Linear(c.hidden, words, bias=False)  # W_x
        inputs = c.visual + words + c.action_embed  # u_t
        self.cell = nn.LSTMCell(inputs, c.hidden)
        self.dropout = nn.Dropout(c.dropout)
        features = c.hidden + inputs  # [h_t; u_t]
        self.features = features
        self.actor = nn.Linear(features, len(ACTIONS)) if "action" in c.heads else None
        self.masks = MaskDecoder(features, c.size) if "mask" in c.heads else None
        self.progress = nn.Linear(features, 2) if c.progress_monitor else None  # p_t and c_t

    # --- the pieces the trainer and the agent share --------------------------------------------------

    def encode_language(self, ids: torch.Tensor, lengths: torch.Tensor) -> tuple:
        """Word ids [B, L] (padded with 0) -> (word encodings x [B, L, 2l], padding mask, the decoder's
        initial (h, c))."""
        packed = pack_padded_sequence(self.embed(ids), lengths.cpu(), batch_first=True, enforce_sorted=False)
        x, _ = pad_packed_sequence(self.encoder(packed)[0], batch_first=True, total_length=ids.shape[1])
        pad = ids == 0
        weights = self.self_attention(x).squeeze(-1).masked_fill(pad, float("-inf")).softmax(-1)
        h, c = torch.tanh(self.init_state((weights.unsqueeze(-1) * x).sum(1))).chunk(2, dim=-1)
        return x, pad, (h.contiguous(), c.contiguous())

    def encode_frames(self, frames: torch.Tensor) -> torch.Tensor:
        """uint8 frames [N, 3, H, W] -> v [N, visual] (dropped out in training); zeros without vision."""
        if self.frames is None:
            return frames.new_zeros((frames.shape[0], self.config.visual), dtype=torch.float32)
        return self.dropout(self.frames(frames))

    def decode_step(self, x, pad, visual, previous, state) -> tuple[torch.Tensor, tuple]:
        """One decoder step: attention from h_{t-1}, the LSTM cell on u_t; returns [h_t; u_t] and (h, c)."""
        z = torch.bmm(x, self.attention(state[0]).unsqueeze(-1)).squeeze(-1).masked_fill(pad, float("-inf"))
        attended = (z.softmax(-1).unsqueeze(-1) * x).sum(1)
        u = torch.cat([visual, attended, self.action_embed(previous)], dim=-1)
        h, c = self.cell(u, state)
        return torch.cat([self.dropout(h), u], dim=-1), (h, c)

    def forward(self, batch: dict) -> torch.Tensor:
        """Teacher forcing over a batch: [h_t; u_t] for every step, [B, T, features]."""
        x, pad, state = self.encode_language(batch["language"], batch["language_lengths"])
        frames = batch["frames"]
        b, t = frames.shape[:2]
        steps = torch.arange(t).unsqueeze(0) < batch["lengths"].unsqueeze(1)
        visual = frames.new_zeros((b, t, self.config.visual), dtype=torch.float32)
        visual[steps] = self.encode_frames(frames[steps])  # the padding's frames are not encoded
        previous = torch.cat([torch.full((b, 1), START), batch["actions"][:, :-1]], dim=1)
        features = []
        for i in range(t):
            feature, state = self.decode_step(x, pad, visual[:, i], previous[:, i], state)
            features.append(feature)
        return torch.stack(features, dim=1)


def rebalanced_bce(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """BCE averaged over the target's pixels plus BCE averaged over the others (masks are sparse: a small
    object would otherwise be drowned by the background), per mask, then over masks."""
    targets = targets.float()
    bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none").flatten(1)
    inside, outside = targets.flatten(1), 1 - targets.flatten(1)
    on_target = (bce * inside).sum(1) / inside.sum(1).clamp(min=1)
    off_target = (bce * outside).sum(1) / outside.sum(1).clamp(min=1)
    return (on_target + off_target).mean()


def seq2seq_loss(model: Seq2Seq, batch: dict) -> dict[str, torch.Tensor]:
    """The paper's training loss: action cross-entropy + the mask's rebalanced BCE on interaction steps
    (+PM: 0.1 x each progress monitor's L2), averaged over the steps of the demonstrations."""
    features = model(batch)
    steps = torch.arange(features.shape[1]).unsqueeze(0) < batch["lengths"].unsqueeze(1)
    actions = batch["actions"]
    parts = {"action": F.cross_entropy(model.actor(features[steps]), actions[steps])}
    total = parts["action"]
    if model.masks is not None:
        aimed = steps & torch.isin(actions, INTERACTIONS) & batch["masks"].flatten(2).any(-1)
        # a batch without an interaction still gives a (zero) mask loss, so every log line has the same parts
        masks = rebalanced_bce(model.masks(features[aimed]), batch["masks"][aimed]) if aimed.any() else None
        parts["mask"] = masks if masks is not None else features.sum() * 0
        total = total + parts["mask"]
    if model.progress is not None:
        monitored = steps & (batch["subgoal"] >= 0)  # DAgger's learner states have no sub-goal index (-1)
        predicted = torch.sigmoid(model.progress(features[monitored]))
        parts["progress"] = F.mse_loss(predicted[:, 0], batch["progress"][monitored])
        parts["subgoal_progress"] = F.mse_loss(predicted[:, 1], batch["subgoal_progress"][monitored])
        if not monitored.any():  # a batch of learner states only
            parts["progress"] = parts["subgoal_progress"] = features.sum() * 0
        total = total + AUXILIARY_WEIGHT * (parts["progress"] + parts["subgoal_progress"])
    return {"loss": total} | parts
