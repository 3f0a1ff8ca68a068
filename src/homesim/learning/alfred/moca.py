"""A MOCA-style modular agent (Singh et al., "Factorizing Perception and Policy for Interactive Instruction
Following", 2021): the seed paper's second baseline, sized like `learning.alfred.seq2seq` for a CPU.

MOCA factorises the agent into two streams that read the same frames and language, each with its own
language encoder and attention: the action policy module predicts the action (and, as Seq2Seq+PM, the
progress monitors), the interactive perception module predicts the class of the object to interact with.
Which instance of that class is chosen from the frame's instance segmentation (`learning.alfred.agent.
MocaAgent`). Here both streams are `Seq2Seq` decoders without a mask decoder; deliberate differences from
MOCA: its Mask R-CNN detector is replaced by the renderer's ground-truth segmentation (`--pixels
rgb,segmentation,semantic`), its dynamic filters by the Seq2Seq attention, and its ResNet by the small CNN
each stream trains from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch import nn
from torch.nn import functional as F

from homesim.learning.alfred.seq2seq import INTERACTIONS, Seq2Seq, Seq2SeqConfig, seq2seq_loss


@dataclass(frozen=True)
class MocaConfig:
    stream: Seq2SeqConfig  # the size, ablation and layer sizes both streams share
    classes: tuple[str, ...]  # the class head's outputs; index 0 is "" (no object), as in frames folders

    @property
    def policy(self) -> Seq2SeqConfig:
        return replace(self.stream, heads=("action",), progress_monitor=True)

    @property
    def perception(self) -> Seq2SeqConfig:
        return replace(self.stream, heads=(), progress_monitor=False)

    def to_dict(self) -> dict:
        return {"stream": self.stream.to_dict(), "classes": list(self.classes)}

    @classmethod
    def from_dict(cls, d: dict) -> MocaConfig:
        return cls(Seq2SeqConfig.from_dict(d["stream"]), tuple(d["classes"]))


class Moca(nn.Module):
    def __init__(self, config: MocaConfig) -> None:
        super().__init__()
        self.config = config
        self.policy = Seq2Seq(config.policy)
        self.perception = Seq2Seq(config.perception)
        self.classifier = nn.Linear(self.perception.features, len(config.classes))


def moca_loss(model: Moca, batch: dict) -> dict[str, torch.Tensor]:
    """The policy stream's Seq2Seq+PM loss (action cross-entropy, 0.1 x each progress monitor's L2) plus the
    target class's cross-entropy on the perception stream's interaction steps."""
    parts = seq2seq_loss(model.policy, batch)
    features = model.perception(batch)
    steps = torch.arange(features.shape[1]).unsqueeze(0) < batch["lengths"].unsqueeze(1)
    aimed = steps & torch.isin(batch["actions"], INTERACTIONS) & (batch["target_class"] > 0)
    logits = model.classifier(features[aimed])
    # a batch without an interaction still gives a (zero) class loss, so every log line has the same parts
    parts["class"] = F.cross_entropy(logits, batch["target_class"][aimed]) if aimed.any() else features.sum() * 0
    parts["loss"] = parts["loss"] + parts["class"]
    return parts
