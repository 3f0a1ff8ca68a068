"""`homesim train` for ALFRED: Seq2Seq and Seq2Seq+PM (`learning.seq2seq`) by imitation on a frames folder
(`homesim alfred frames`), through the shared loop (`learning.loop.train`).

A batch is `batch_size` (trajectory, annotation) pairs drawn in the epoch's seeded order, so a run is the
same for a seed and a resumed run skips the batches it trained on without reading their frames. The
checkpoint's `describe` holds the model's settings, the ablation and the vocabulary: the agent
(`learning.alfred_agent`) is rebuilt from the file alone.
"""

from __future__ import annotations

import torch
from torch.nn.utils.rnn import pad_sequence

from homesim.learning.alfred_data import AlfredFrames, collate, read_meta, trajectory_texts
from homesim.learning.loop import TrainResult, train
from homesim.learning.request import TrainRequest
from homesim.learning.seq2seq import Seq2Seq, Seq2SeqConfig, language_ids, seq2seq_loss
from homesim.learning.vocab import Vocab

MODELS = {"seq2seq": False, "seq2seq_pm": True}  # agent -> with the progress monitors


def batch_of(items: list[dict], ablation: str) -> dict:
    """Dataset items as one batch: padded steps (`alfred_data.collate`) and goal <sep> instructions as the
    ablation shows them ("language", "language_lengths")."""
    batch = collate(items)
    language = [
        torch.tensor(language_ids(item["goal"].tolist(), item["instructions"].tolist(), ablation, Vocab.SEP))
        for item in items
    ]
    batch["language"] = pad_sequence(language, batch_first=True)
    batch["language_lengths"] = torch.tensor([len(ids) for ids in language])
    return batch


def train_alfred(request: TrainRequest) -> TrainResult:
    if request.agent not in MODELS:
        raise ValueError(f"--agent {request.agent!r}: ALFRED's learned agents are {', '.join(MODELS)}")
    request.reject("alfred", "dagger_rounds", "episodes", "layouts", "workers")
    meta = read_meta(request.data)
    vocab = Vocab.build(trajectory_texts(request.data))
    config = Seq2SeqConfig(
        vocab_size=len(vocab),
        size=tuple(meta["size"]),
        progress_monitor=MODELS[request.agent],
        ablation=request.ablation,
    )
    dataset = AlfredFrames(request.data, vocab)
    size = request.config.batch_size

    def batches(epoch: int, generator: torch.Generator) -> list[list[int]]:
        order = torch.randperm(len(dataset), generator=generator).tolist()
        return [order[i : i + size] for i in range(0, len(order), size)]

    def loss(model: Seq2Seq, rows: list[int]) -> dict[str, torch.Tensor]:
        return seq2seq_loss(model, batch_of([dataset[i] for i in rows], config.ablation))

    torch.manual_seed(request.config.seed)
    model = Seq2Seq(config)
    describe = {
        "suite": "alfred",
        "agent": request.agent,
        "model": config.to_dict(),
        "vocab": vocab.to_dict(),
        "data": str(request.data),
        "trajectories": meta["trajectories"],
        "steps": meta["steps"],
    }
    return train(model, loss, batches, request.out, request.config, describe, label=f"alfred {request.agent}")
