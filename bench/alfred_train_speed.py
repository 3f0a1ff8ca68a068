"""Training speed of ALFRED's Seq2Seq(+PM) and MOCA (`homesim.learning`) on a frames folder: demonstration
steps per second through the data pipeline alone (reading and batching the memory-mapped shards) and
through whole optimisation steps (data, forward, backward, Adam), against the bar of one epoch over 300k
64x64 steps in well under 20 minutes (250 steps/s). A dense matrix product measured just before and just
after gives the machine's speed under its current load in the same run (GFLOP/s), to read the figures by.

    homesim alfred frames --episodes train.jsonl.gz --layouts gen/layouts --out frames64 --limit 64
    python bench/alfred_train_speed.py --data frames64 [--agent seq2seq_pm] [--batch-size 16] [--batches 8]
        [--threads 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from homesim.learning.alfred.data import AlfredFrames, trajectory_texts
from homesim.learning.alfred.train import MODELS, batch_of, model_config, network
from homesim.learning.vocab import Vocab

BAR = 300_000 / (20 * 60)  # steps/s for one 300k-step epoch in 20 minutes


def matmul_gflops(seconds: float = 1.0) -> float:
    a = torch.randn(512, 512)
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        a @ a
        done += 1
    return done * 2 * 512**3 / (time.perf_counter() - started) / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a frames folder (homesim alfred frames)")
    parser.add_argument("--agent", choices=list(MODELS), default="seq2seq_pm")
    parser.add_argument("--batch-size", type=int, default=16, help="(trajectory, annotation) pairs per batch")
    parser.add_argument("--batches", type=int, default=8, help="timed batches (after one warm-up batch)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    vocab = Vocab.build(trajectory_texts(args.data))
    dataset = AlfredFrames(args.data, vocab)
    torch.manual_seed(0)
    model, objective = network(model_config(args.agent, len(vocab), dataset.meta))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(0)).tolist()
    rows = [order[(i * args.batch_size) % len(order) :][: args.batch_size] for i in range(args.batches + 1)]

    before = matmul_gflops()
    started, loaded = time.perf_counter(), 0
    for chosen in rows[1:]:
        loaded += int(batch_of([dataset[i] for i in chosen], "none")["lengths"].sum())
    loading = loaded / (time.perf_counter() - started)

    trained, seconds = 0, 0.0
    for k, chosen in enumerate(rows):
        started = time.perf_counter()
        batch = batch_of([dataset[i] for i in chosen], "none")
        loss = objective(model.train(), batch)["loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if k:  # the first batch warms up
            seconds += time.perf_counter() - started
            trained += int(batch["lengths"].sum())
    after = matmul_gflops()
    training = trained / seconds

    figures = {
        "agent": args.agent,
        "frame": "x".join(map(str, dataset.meta["size"])),
        "batch (trajectories)": args.batch_size,
        "threads": args.threads,
        "parameters": sum(p.numel() for p in model.parameters()),
        "data steps/s": round(loading),
        "training steps/s": round(training),
        "minutes per 300k steps": round(300_000 / training / 60, 1),
        "x the 20-minute bar": round(training / BAR, 2),
        "matmul GFLOP/s before, after": f"{before:.1f}, {after:.1f}",
    }
    table = Table(title=f"{args.agent} training speed on {args.data} ({trained} steps timed)")
    for name in figures:
        table.add_column(name, justify="right")
    table.add_row(*map(str, figures.values()))
    Console().print(table)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
