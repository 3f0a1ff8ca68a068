"""The PPO agent's learning curve: success and SPL on a dataset's val split against the frames each checkpoint
was trained on, measured in the batched env (the policy's own 48x64 images), written as a PNG plot.

    python bench/objectnav_ppo_curve.py --episodes DATASET ppo-25.pt ppo-50.pt ... [--count 200]
                                        [--split val] [--plot curve.png] [--json curve.json]

Each checkpoint plays the split's first --count episodes once each (env i plays episode i, its actions drawn
from the policy with a generator seeded by --seed); the point at 0 frames is the untrained policy (near a
uniform random choice of actions). Intervals: 95% bootstrap over the episodes. Staged checkpoints come from
resuming one run with growing --max-steps (`homesim train` resumes to the very same weights).
With --json the points are written as each is measured and kept: run again with more checkpoints and only the
new ones are played (a file of other settings is refused).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
import torch
from PIL import Image, ImageDraw

from homesim.agents.learned import load_checkpoint
from homesim.envs.objectnav.episodes import objectnav_episodes
from homesim.envs.objectnav.vector import ObjectNavVectorEnv
from homesim.learning.objectnav.policy import PIXELS, PolicyNet, inputs, training_embodiment
from homesim.learning.objectnav.ppo import PPOSettings

MEASURES = ("success", "spl", "soft_spl")


@torch.no_grad()
def play(net: PolicyNet, envs: ObjectNavVectorEnv, seed: int) -> dict[str, np.ndarray]:
    """Each env's first episode (env i: episode i) played by the policy; its measures."""
    n = envs.num_envs
    observations, _ = envs.reset(seed=seed, options={"episode": np.arange(n)})
    generator = torch.Generator().manual_seed(seed)
    memory, previous = torch.zeros(n, net.hidden), torch.zeros(n, dtype=torch.int64)
    starts = torch.ones(n, dtype=torch.bool)
    found = {m: np.full(n, np.nan) for m in MEASURES}
    while np.isnan(found["success"]).any():
        logits, _, memory = net(inputs(observations, envs.embodiment), previous, memory, starts)
        previous = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=generator)[:, 0]
        observations, _, _, _, info = envs.step(previous.numpy())
        starts = torch.zeros(n, dtype=torch.bool)
        if "success" in info:
            first = info["_success"] & np.isnan(found["success"])
            for m in MEASURES:
                found[m][first] = info[m][first]
    return found


def interval(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float]:
    means = rng.choice(values, size=(1000, len(values))).mean(axis=1)
    return float(values.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def plot(points: list[dict], path: Path) -> None:
    """Success and SPL (percent, with intervals) against frames: a plain line plot."""
    width, height, margin = 720, 420, 60
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    frames = max(p["frames"] for p in points) or 1
    top = min(100.0, max(10.0, max(100 * p[m][2] for p in points for m in ("success", "spl")) * 1.2))

    def xy(f: float, v: float) -> tuple[float, float]:
        return margin + (width - 2 * margin) * f / frames, height - margin - (height - 2 * margin) * v / top

    draw.line([xy(0, 0), xy(frames, 0)], fill="black")
    draw.line([xy(0, 0), xy(0, top)], fill="black")
    for k in range(5):
        v = top * k / 4
        draw.text((8, xy(0, v)[1] - 6), f"{v:.0f}%", fill="black")
        f = frames * k / 4
        draw.text((xy(f, 0)[0] - 20, height - margin + 8), f"{f / 1e6:.2f}M", fill="black")
    for measure, colour in (("success", "blue"), ("spl", "red")):
        line = [xy(p["frames"], 100 * p[measure][0]) for p in points]
        draw.line(line, fill=colour, width=2)
        for p, (x, _) in zip(points, line):
            draw.line([(x, xy(0, 100 * p[measure][1])[1]), (x, xy(0, 100 * p[measure][2])[1])], fill=colour)
    draw.text((margin + 10, 10), "val success (blue) and SPL (red), % vs frames trained", fill="black")
    image.save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoints", nargs="+", type=Path)
    parser.add_argument("--episodes", type=Path, required=True)
    parser.add_argument("--split", default="val")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", type=Path, default=Path("ppo-curve.png"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = {"episodes": str(args.episodes.resolve()), "split": args.split, "count": args.count, "seed": args.seed}
    kept = {}
    if args.json and args.json.exists():
        before = json.loads(args.json.read_text())
        if not isinstance(before, dict) or before.get("settings") != settings:
            raise SystemExit(f"{args.json}: points of other settings (or another format): give another --json")
        kept = {p["frames"]: p for p in before["points"]}
    episodes, scenes = objectnav_episodes(args.episodes, None, args.split)
    count = min(args.count, len(episodes))
    envs = ObjectNavVectorEnv(count, episodes, scenes, pixels=PIXELS, embodiment=training_embodiment())
    torch.manual_seed(0)
    untrained = (0, PolicyNet(load_checkpoint(args.checkpoints[0])["describe"]["ppo"]["hidden"]))
    points = []
    for source in (untrained, *args.checkpoints):
        if isinstance(source, tuple):
            frames, net = source
        else:
            checkpoint = load_checkpoint(source)
            ppo = PPOSettings(**checkpoint["describe"]["ppo"])
            frames = checkpoint["step"] * ppo.rollout * checkpoint["config"]["batch_size"]
            net = PolicyNet(ppo.hidden)
            net.load_state_dict(checkpoint["model"])
        if frames in kept:
            point = kept[frames]
        else:
            net.eval()
            found = play(net, envs, args.seed)
            rng = np.random.default_rng(frames)  # each point's intervals its own, whatever was measured before it
            point = {"frames": frames, "load": os.getloadavg()[0]} | {m: interval(found[m], rng) for m in MEASURES}
            kept[frames] = point
            if args.json:
                args.json.write_text(
                    json.dumps(
                        {"settings": settings, "points": sorted(kept.values(), key=lambda p: p["frames"])}, indent=1
                    )
                )
        points.append(point)
        print(
            f"{frames:>10,} frames: success {100 * point['success'][0]:5.1f}% "
            f"[{100 * point['success'][1]:.1f}, {100 * point['success'][2]:.1f}], SPL {100 * point['spl'][0]:5.1f}%"
            f", SoftSPL {100 * point['soft_spl'][0]:5.1f}% ({count} {args.split} episodes; load {point['load']:.1f})"
        )
    plot(points, args.plot)


if __name__ == "__main__":
    main()
