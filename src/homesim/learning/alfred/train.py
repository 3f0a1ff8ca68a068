"""`homesim train` for ALFRED: Seq2Seq, Seq2Seq+PM (`learning.alfred.seq2seq`) and MOCA (`learning.alfred.moca`) by
imitation on a frames folder (`homesim alfred frames`), through the shared loop (`learning.loop.train`),
then, for the Seq2Seq models, `--dagger-rounds N` rounds of DAgger (`learning.alfred.dagger`).

A batch is `batch_size` (trajectory, annotation) pairs drawn in the epoch's seeded order, so a run is the
same for a seed and a resumed run skips the batches it trained on without reading their frames. The
checkpoint's `describe` holds the model's settings, the ablation and the vocabulary: the agent
(`learning.alfred.agent`) is rebuilt from the file alone. With DAgger, each round's checkpoint and labelled
steps go beside `--out` in `<out>.dagger/` (round-0.pt is plain imitation) and the last round's is `--out`;
every piece is resumable, so the command run again after a kill carries on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import ConcatDataset

from homesim.datasets.sources import read_episodes
from homesim.learning.alfred.agent import seq2seq_agent
from homesim.learning.alfred.dagger import collect_round
from homesim.learning.alfred.data import AlfredFrames, collate, frames_provenance, read_meta, trajectory_texts
from homesim.learning.alfred.frames import FORMAT
from homesim.learning.alfred.moca import Moca, MocaConfig, moca_loss
from homesim.learning.alfred.seq2seq import Seq2Seq, Seq2SeqConfig, language_ids, seq2seq_loss
from homesim.learning.loop import TrainResult, load_checkpoint, train
from homesim.learning.request import Trainer, TrainRequest
from homesim.learning.vocab import Vocab

MODELS = ("seq2seq", "seq2seq_pm", "moca")


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


def model_config(agent: str, vocab_size: int, meta: dict, ablation: str = "none") -> Seq2SeqConfig | MocaConfig:
    """The settings of `agent`'s model for a frames folder with this meta.json and vocabulary size."""
    config = Seq2SeqConfig(vocab_size, tuple(meta["size"]), progress_monitor=agent == "seq2seq_pm", ablation=ablation)
    return MocaConfig(config, tuple(meta["classes"])) if agent == "moca" else config


def network(config: Seq2SeqConfig | MocaConfig) -> tuple[Seq2Seq | Moca, Callable]:
    """The model of these settings, with its training loss (model, batch) -> the loss's parts."""
    return (Moca(config), moca_loss) if isinstance(config, MocaConfig) else (Seq2Seq(config), seq2seq_loss)


def _train(
    request: TrainRequest,
    config: Seq2SeqConfig | MocaConfig,
    vocab: Vocab,
    folders: list[Path],
    out: Path,
    start: Path | None,
) -> TrainResult:
    """Trains on the frames `folders` into `out`, from the weights of checkpoint `start` (else the seed's)."""
    dataset = ConcatDataset([AlfredFrames(folder, vocab) for folder in folders])
    size = request.config.batch_size

    def batches(epoch: int, generator: torch.Generator) -> list[list[int]]:
        order = torch.randperm(len(dataset), generator=generator).tolist()
        return [order[i : i + size] for i in range(0, len(order), size)]

    torch.manual_seed(request.config.seed)
    model, objective = network(config)

    def loss(model: Seq2Seq | Moca, rows: list[int]) -> dict[str, torch.Tensor]:
        return objective(model, batch_of([dataset[i] for i in rows], request.ablation))
    if start is not None:
        model.load_state_dict(load_checkpoint(start)["model"])
    describe = {
        "suite": "alfred",
        "agent": request.agent,
        "model": config.to_dict(),
        "vocab": vocab.to_dict(),
        "data": [str(folder) for folder in folders],
        "dagger_round": len(folders) - 1,
    }
    return train(model, loss, batches, out, request.config, describe, label=f"alfred {request.agent} {out.name}")


def train_alfred(request: TrainRequest) -> TrainResult:
    if request.agent not in MODELS:
        raise ValueError(f"--agent {request.agent!r}: ALFRED's learned agents are {', '.join(MODELS)}")
    unused = ("dagger_rounds",) if request.agent == "moca" else ()  # DAgger's learner is a Seq2Seq agent
    dagger = () if request.dagger_rounds else ("episodes", "layouts")
    request.reject("alfred", "workers", "observability", "split", *unused, *dagger)
    meta = read_meta(request.data)
    vocab = Vocab.build(trajectory_texts(request.data))
    config = model_config(request.agent, len(vocab), meta, request.ablation)
    if not request.dagger_rounds:
        return _train(request, config, vocab, [request.data], request.out, None)
    side = Path(f"{request.out}.dagger")
    folders, previous = [request.data], side / "round-0.pt"
    result = _train(request, config, vocab, folders, previous, None)
    # the learner acts in the episodes the demonstrations came from, unless --episodes names others
    source, split, limit = (meta["source"], meta["split"], meta.get("limit")) if request.episodes is None else (
        request.episodes, None, None
    )
    read = read_episodes(source, request.layouts, split, "alfred")
    episodes = read.all()[:limit] if limit else read.all()
    for k in range(1, request.dagger_rounds + 1):
        agent = seq2seq_agent(load_checkpoint(previous))
        folders.append(collect_round(agent, episodes, read.scenes, side / f"round-{k}", k))
        out = request.out if k == request.dagger_rounds else side / f"round-{k}.pt"
        result, previous = _train(request, config, vocab, folders, out, previous), out
    return result


def is_frames_folder(data: Path) -> bool:
    """Whether `data` is a frames folder (`homesim alfred frames`), complete or not."""
    try:
        return json.loads((data / "meta.json").read_text()).get("format") == FORMAT
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return False


TRAINER = Trainer(
    "an ALFRED frames folder (homesim alfred frames)", is_frames_folder, train_alfred, tuple(MODELS), frames_provenance
)
