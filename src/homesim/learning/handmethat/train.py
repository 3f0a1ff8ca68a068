"""`homesim train` for HandMeThat: Seq2Seq (+goal, +subgoal) by imitation of the expert, DRRN by Q-learning
in the game, each with `loop.train` (progress, checkpoints, resumption) on the data's `train` split (or the
one `--split` names, or the data's only split).

A model is trained in one game, partially observable (the default; the paper's Table 2) or fully (its
Table 3): the histories it reads are that game's, and it is evaluated in it. The expert's commands are the
same in both (it plans from the full state, as theirs does). The vocabulary is built from the expert's demonstrations on the
training episodes (for DRRN too, which uses nothing else of them).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import torch

from homesim.datasets.folder import read_manifest
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.datasets.sources import kind_of, read_episodes
from homesim.envs.handmethat import OBSERVABILITY
from homesim.errors import DataError
from homesim.learning.handmethat import drrn, seq2seq
from homesim.learning.export import split_provenance
from homesim.learning.handmethat.data import demonstrations, texts_of
from homesim.learning.loop import TrainResult, train
from homesim.learning.request import Trainer, TrainRequest
from homesim.learning.vocab import Vocab

AGENTS = (*seq2seq.ORACLE_OF, "drrn")
SPLIT = "train"
MODEL = {"embed": 64, "hidden": 64}
DRRN = drrn.DrrnSettings()


def train_handmethat(request: TrainRequest) -> TrainResult:
    if request.agent not in AGENTS:
        raise ValueError(f"--agent {request.agent!r}: HandMeThat's learned baselines are {', '.join(AGENTS)}")
    request.reject("handmethat", "ablation", "dagger_rounds", "episodes", "layouts", "workers")
    observability = request.observability or "partial"
    if observability not in OBSERVABILITY:
        raise ValueError(f"--observability {observability!r}: use partial or full")
    split, episodes = training_split(request.data, request.split)
    if not episodes:
        raise ValueError(f"--data {request.data}: no {split} episodes to learn from")
    oracle = seq2seq.ORACLE_OF.get(request.agent)
    demos = demonstrations(episodes, observability, oracle)
    vocab = Vocab.build(texts_of(demos))
    describe = {
        "suite": "handmethat",
        "agent": request.agent,
        "data": str(request.data.resolve()),
        "split": split,
        "episodes": len(episodes),
        "observability": observability,
        "oracle": oracle,
        "model": MODEL,
        "vocab": vocab.to_dict(),
    }
    config = request.config
    torch.manual_seed(config.seed)
    label = f"handmethat {request.agent}"
    if request.agent == "drrn":
        settings = DRRN
        describe |= {"drrn": asdict(settings)}
        model = drrn.build_model(describe)
        plays = request.out.with_name(request.out.name + ".plays.jsonl")
        if not request.out.exists():  # a new run: plays of an earlier one are not this run's
            plays.unlink(missing_ok=True)
        experience = drrn.Experience(
            model, episodes, observability, vocab, settings, config.epochs, config.batch_size, config.seed, plays
        )
        return train(
            model, lambda m, batch: drrn.td_loss(m, batch, settings.gamma), experience.batches, request.out,
            config, describe, label,
        )  # fmt: skip
    describe |= {"demonstrations": len(demos)}
    model = seq2seq.build_model(describe)
    examples = seq2seq.examples(demos, vocab)
    return train(
        model, seq2seq.imitation_loss, lambda epoch, g: seq2seq.batches_of(examples, config.batch_size, g),
        request.out, config, describe, label,
    )  # fmt: skip


def training_split(data: Path, split: str | None) -> tuple[str, list[HandMeThatEpisode]]:
    """The split learned from and its episodes: `split`, else `train`, else the data's only split (a folder of
    the authors' files is one split, named after the folder); a ValueError naming the splits there are."""
    read = read_episodes(data, split=split, suite="handmethat")
    if split is None:
        split = SPLIT if SPLIT in read.splits or len(read.splits) != 1 else next(iter(read.splits))
    if split not in read.splits:
        raise ValueError(f"--data {data} has the splits {', '.join(read.splits)}: choose one with --split")
    return split, read.splits[split]


def holds_episodes(data: Path) -> bool:
    """Whether `data` holds HandMeThat episodes: the authors' files, or a homesim dataset folder of them."""
    try:
        kind = kind_of(data)
        return kind == "handmethat_files" or (
            kind == "dataset" and read_manifest(data)["suite"] == HandMeThatEpisode.suite
        )
    except DataError:
        return False


def provenance(describe: dict) -> list[dict]:
    """What a checkpoint learned from: its data's digest and the ids of its split's episodes."""
    data = Path(describe["data"])
    ids = [e.id for e in training_split(data, describe["split"])[1]] if data.exists() else None
    return split_provenance(describe, ids)


TRAINER = Trainer("HandMeThat episodes", holds_episodes, train_handmethat, AGENTS, provenance)
