#!/usr/bin/env bash
# How the published ALFRED checkpoints were made (see README.md beside this file). Run from a checkout with
# ALFRED's trajectories and layouts at $ALFRED (default ../shared/data/alfred); the work goes in $WORK.
# Training reads the frames in a seeded order, so the same homesim commit gives the same weights on the same
# machine type (PyTorch's CPU kernels may round differently elsewhere).
set -euo pipefail
ALFRED=${ALFRED:-../shared/data/alfred}
WORK=${WORK:-work/checkpoints}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
export OMP_NUM_THREADS=1  # one torch thread: faster than two on a shared machine

# ALFRED's whole train split (6,574 trajectories)
homesim alfred frames --episodes "$ALFRED/trajectories/train.jsonl.gz" --layouts "$ALFRED/layouts" \
  --out "$WORK/frames64-train" --size 64 --workers 2

commit=$(git -C "$HERE" rev-parse HEAD)
split=$(sha256sum "$ALFRED/trajectories/train.jsonl.gz" | cut -d' ' -f1)
for pair in seq2seq_pm:s2s_pm moca:moca; do
  agent=${pair%%:*} name=${pair##*:}
  command="homesim train --agent $agent --data $WORK/frames64-train --out $WORK/$name.pt --batch-size 16"
  started=$(date +%s)
  $command
  homesim export-weights --checkpoint "$WORK/$name.pt" --out "$HERE/$name.pt" --overwrite \
    --note "command=$command" --note "commit=$commit" --note "seconds=$(( $(date +%s) - started ))" \
    --note "split_sha256=sha256:$split" --note "subset=none: the whole train split"
done
