"""HandMeThat's Seq2Seq baseline and its +goal / +subgoal oracle variants: behaviour cloning of the expert
(their trainer's offline imitation of the demonstrations, cross-entropy on each command's tokens), and the
agent that plays a checkpoint by writing its next command token by token (greedy, as theirs does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.learning.handmethat.data import Demo, Reader, context
from homesim.learning.handmethat.models import Seq2Seq, clip, pad
from homesim.learning.vocab import Vocab

# agent name -> what its oracle is told (None: only what every agent sees)
ORACLE_OF: dict[str, str | None] = {"seq2seq": None, "seq2seq_goal": "goal", "seq2seq_subgoal": "subgoal"}


@dataclass(frozen=True)
class Example:
    """A demonstration step as token ids: context, (clipped) history, the command then EOS."""

    context: list[int]
    history: list[int]
    command: list[int]


def examples(demos: Sequence[Demo], vocab: Vocab) -> list[Example]:
    contexts: dict[str, list[int]] = {}  # an episode's steps share their context
    return [
        Example(
            contexts.setdefault(d.context, vocab.encode(d.context)),
            clip(vocab.encode(d.history)),
            vocab.encode(d.command) + [Vocab.EOS],
        )
        for d in demos
    ]


def batches_of(items: Sequence, batch_size: int, generator: torch.Generator) -> list[list]:
    """The items shuffled by `generator` and cut into batches (the last may be smaller)."""
    order = torch.randperm(len(items), generator=generator).tolist()
    return [[items[i] for i in order[k : k + batch_size]] for k in range(0, len(order), batch_size)]


def imitation_loss(model: Seq2Seq, batch: list[Example]) -> dict[str, torch.Tensor]:
    target = pad([e.command for e in batch])
    logits = model(pad([e.context for e in batch]), pad([e.history for e in batch]), target)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=Vocab.PAD)
    exact = ((logits.argmax(-1) == target) | (target == Vocab.PAD)).all(1).float().mean()
    return {"loss": loss, "command_accuracy": exact}


def detokenize(vocab: Vocab, ids: list[int]) -> str:
    """Generated tokens as a command: words joined by spaces, a thing's type glued back ("tea_bag 0")."""
    return vocab.decode(ids).replace(" _ ", "_")


def build_model(describe: dict) -> Seq2Seq:
    return Seq2Seq(len(Vocab.from_dict(describe["vocab"])), **describe["model"])


class Seq2SeqAgent:
    """Plays a Seq2Seq checkpoint: reads the task (and its oracle's formula) and the history it has seen."""

    def __init__(self, checkpoint: dict, seed: int = 0) -> None:
        describe = checkpoint["describe"]
        self.vocab = Vocab.from_dict(describe["vocab"])
        self.model = build_model(describe)
        self.model.load_state_dict(checkpoint["model"])
        self.model.eval()
        self.needs_oracle = describe["oracle"]
        self.observability = describe["observability"]  # the game it was trained in
        self.reader, self.last = Reader(), ""

    def reset(self, task: TaskSpec) -> None:
        self.reader.reset()

    def act(self, observation: dict) -> AgentAction:
        history = self.reader.history(observation, self.last)
        said = context(observation["task"], self.needs_oracle, observation.get("oracle", ""))
        ids = [self.vocab.encode(said)], [clip(self.vocab.encode(history))]
        with torch.no_grad():
            self.last = detokenize(self.vocab, self.model.generate(pad(ids[0]), pad(ids[1]))[0])
        return AgentAction(self.last)


def load_seq2seq_agent(checkpoint: dict, seed: int) -> Seq2SeqAgent:
    return Seq2SeqAgent(checkpoint, seed)
