"""PPO for ObjectNav on the batched env (`envs.objectnav.vector`): DD-PPO's losses (clipped surrogate, value
regression, entropy bonus, GAE) with a recurrent policy, on one process.

An update plays `rollout` steps of every env with the current policy, then takes `epochs` passes over them
in `minibatches` groups of envs (each env's steps replayed through the memory from where the rollout began).
Gymnasium's next-step auto-reset: the step after an episode's end only resets that env, so it is left out of
the losses, and the next one starts a new memory. An episode cut by the step limit counts as ended (no value
is bootstrapped across it), as habitat's trainer does.

Checkpoints (`learning.loop`'s format) hold the weights, the optimizer, the random state and where every env
stands (`ObjectNavVectorEnv.snapshot`) with the policy's memory, so a run stopped and resumed trains the
same weights as one never stopped. The log (`<out>.log.jsonl`) has a line per update: frames seen, the
training episodes that ended (success, SPL, SoftSPL) and the losses.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from homesim.agents.learned import FORMAT, VERSION, load_checkpoint
from homesim.envs.objectnav.vector import ObjectNavVectorEnv
from homesim.errors import DataError
from homesim.learning.loop import TrainConfig, TrainResult, keep_log_until, log_path, save_checkpoint
from homesim.learning.objectnav.policy import PolicyNet, inputs


@dataclass(frozen=True)
class PPOSettings:
    rollout: int = 64  # steps per env per update
    epochs: int = 2  # passes over each rollout (DD-PPO's)
    minibatches: int = 2  # groups of envs per pass
    clip: float = 0.2
    value_weight: float = 0.5
    entropy_weight: float = 0.01
    gamma: float = 0.99
    gae_lambda: float = 0.95
    grad_clip: float = 0.5
    hidden: int = 256


@dataclass
class Rollout:
    """One update's steps, (T, N, ...) each, and the memory each env started them with."""

    inputs: dict[str, torch.Tensor]
    previous: torch.Tensor
    starts: torch.Tensor
    valid: torch.Tensor  # False: an auto-reset step (its action ignored)
    actions: torch.Tensor
    log_probs: torch.Tensor
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    memory: torch.Tensor


class Player:
    """The envs and the policy's side of them: observations, memory, previous actions, which envs start an
    episode (new memory) and which are to be reset by their next step."""

    def __init__(self, envs: ObjectNavVectorEnv, net: PolicyNet, seed: int) -> None:
        n = envs.num_envs
        self.envs, self.net = envs, net
        self.observations, _ = envs.reset(seed=seed)
        self.memory = torch.zeros(n, net.hidden)
        self.previous = torch.zeros(n, dtype=torch.int64)
        self.starts, self.pending = torch.ones(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool)

    def state(self) -> dict:
        return {
            "envs": self.envs.snapshot(), "memory": self.memory, "previous": self.previous,
            "starts": self.starts, "pending": self.pending,
        }  # fmt: skip

    def load(self, state: dict) -> None:
        self.observations = self.envs.restore(state["envs"])
        self.memory, self.previous = state["memory"], state["previous"]
        self.starts, self.pending = state["starts"], state["pending"]

    @torch.no_grad()
    def play(self, settings: PPOSettings) -> tuple[Rollout, list[dict]]:
        """`rollout` steps of every env, with advantages; and the measures of the episodes that ended."""
        memory, steps, ended = self.memory, [], []
        for _ in range(settings.rollout):
            x = inputs(self.observations, self.envs.embodiment)
            logits, value, self.memory = self.net(x, self.previous, self.memory, self.starts)
            policy = torch.distributions.Categorical(logits=logits)
            action = policy.sample()
            step = {"inputs": x, "previous": self.previous, "starts": self.starts, "valid": ~self.pending}
            step |= {"actions": action, "log_probs": policy.log_prob(action), "values": value}
            self.observations, reward, terminated, truncated, info = self.envs.step(action.numpy())
            done = torch.from_numpy(terminated | truncated)
            steps.append(step | {"rewards": torch.from_numpy(reward).float(), "done": done})
            if "success" in info:
                for i in np.flatnonzero(info["_success"]):
                    ended.append({k: float(info[k][i]) for k in ("success", "spl", "soft_spl")})
            self.starts, self.pending, self.previous = self.pending, done, action
        x = inputs(self.observations, self.envs.embodiment)
        _, last_value, _ = self.net(x, self.previous, self.memory, self.starts)
        return _rollout(steps, last_value, memory, settings), ended


def _rollout(steps: list[dict], last_value: torch.Tensor, memory: torch.Tensor, settings: PPOSettings) -> Rollout:
    stacked = {k: torch.stack([s[k] for s in steps]) for k in steps[0] if k != "inputs"}
    x = {k: torch.stack([s["inputs"][k] for s in steps]) for k in steps[0]["inputs"]}
    values, rewards, valid = stacked["values"], stacked["rewards"], stacked["valid"]
    going_on = (~stacked["done"]).float()
    advantages = torch.zeros_like(values)
    following, next_value = torch.zeros_like(last_value), last_value
    for t in reversed(range(len(steps))):
        delta = rewards[t] + settings.gamma * going_on[t] * next_value - values[t]
        following = valid[t].float() * (delta + settings.gamma * settings.gae_lambda * going_on[t] * following)
        advantages[t], next_value = following, values[t]
    return Rollout(
        x, stacked["previous"], stacked["starts"], valid, stacked["actions"], stacked["log_probs"], values,
        advantages, advantages + values, memory,
    )  # fmt: skip


def ppo_losses(net: PolicyNet, r: Rollout, envs: torch.Tensor, settings: PPOSettings) -> dict[str, torch.Tensor]:
    """The losses over the rollout's steps of `envs` (auto-reset steps left out), the memory replayed."""
    steps = r.actions.shape[0]
    x = {k: v[:, envs].flatten(0, 1) for k, v in r.inputs.items()}
    starts = r.starts[:, envs]
    features = net.encode(x, r.previous[:, envs].flatten(), starts.flatten()).view(steps, len(envs), -1)
    memory, logits, values = r.memory[envs], [], []
    for t in range(steps):
        step_logits, step_values, memory = net.step(features[t], memory, starts[t])
        logits.append(step_logits)
        values.append(step_values)
    policy = torch.distributions.Categorical(logits=torch.stack(logits))
    valid = r.valid[:, envs].float()
    count = valid.sum().clamp(min=1.0)
    advantages = r.advantages[:, envs]
    mean = (advantages * valid).sum() / count
    spread = (((advantages - mean) ** 2 * valid).sum() / count).sqrt()
    advantages = (advantages - mean) / (spread + 1e-8)
    ratio = torch.exp(policy.log_prob(r.actions[:, envs]) - r.log_probs[:, envs])
    clipped = torch.clamp(ratio, 1 - settings.clip, 1 + settings.clip)
    policy_loss = -(torch.minimum(ratio * advantages, clipped * advantages) * valid).sum() / count
    value_loss = 0.5 * (((torch.stack(values) - r.returns[:, envs]) ** 2) * valid).sum() / count
    entropy = (policy.entropy() * valid).sum() / count
    loss = policy_loss + settings.value_weight * value_loss - settings.entropy_weight * entropy
    return {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy}


def train_ppo(
    envs: ObjectNavVectorEnv, out: Path, config: TrainConfig, settings: PPOSettings, describe: dict
) -> TrainResult:
    """`config.max_steps` updates of `config.batch_size` envs (`envs`), saved to `out` every
    `config.checkpoint_every` updates; a checkpoint of the same run there is resumed (`config.epochs` is not
    read: `settings.epochs` passes each)."""
    started = time.perf_counter()
    torch.manual_seed(config.seed)
    net = PolicyNet(settings.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.lr, eps=1e-5)
    player = Player(envs, net, config.seed)
    describe = json.loads(json.dumps(describe))  # as it will read back from the file
    update, last_loss = 0, float("nan")
    if out.exists():
        checkpoint = load_checkpoint(out)
        if checkpoint["describe"] != describe or not config.same_run(checkpoint["config"]):
            raise DataError(str(out), "(file)", "holds a checkpoint of another run: give another --out or remove it")
        net.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        torch.set_rng_state(checkpoint["rng"])
        player.load(checkpoint["player"])
        update, last_loss = checkpoint["step"], checkpoint["loss"]
        keep_log_until(log_path(out), update)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        log_path(out).unlink(missing_ok=True)
    total = config.max_steps
    frames_per_update = settings.rollout * envs.num_envs
    if update >= total:  # a finished run of this budget: nothing left to train
        return TrainResult(update, update, last_loss, log_path(out), time.perf_counter() - started, "done before")

    def save(done: bool) -> None:
        save_checkpoint(
            out,
            {
                "format": FORMAT, "version": VERSION, "describe": describe, "config": asdict(config),
                "model": net.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(),
                "step": update, "epoch": update, "batch": 0, "finished": done, "loss": last_loss,
                "player": player.state(),
            },
        )  # fmt: skip

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, transient=False) as progress:
        task = progress.add_task("objectnav ppo", total=total, completed=update)
        while update < total:
            begin = time.perf_counter()
            rollout, ended = player.play(settings)
            sums: dict[str, float] = {}
            for _ in range(settings.epochs):
                order = torch.randperm(envs.num_envs)
                for group in order.chunk(settings.minibatches):
                    parts = ppo_losses(net, rollout, group, settings)
                    optimizer.zero_grad(set_to_none=True)
                    parts["loss"].backward()
                    torch.nn.utils.clip_grad_norm_(net.parameters(), settings.grad_clip)
                    optimizer.step()
                    for name, value in parts.items():
                        sums[name] = sums.get(name, 0.0) + float(value.detach()) / (
                            settings.epochs * settings.minibatches
                        )
            update += 1
            last_loss = sums["loss"]
            line = {"step": update, "frames": update * frames_per_update, "seconds": time.perf_counter() - begin}
            line["episodes"] = len(ended)  # the training episodes that ended in this update, and how
            line |= {k: float(np.mean([e[k] for e in ended])) for k in ("success", "spl", "soft_spl")} if ended else {}
            with log_path(out).open("a") as log:
                log.write(json.dumps(line | sums) + "\n")
            progress.update(task, completed=update, description=f"objectnav ppo loss {last_loss:.3f}")
            if update % config.checkpoint_every == 0 and update < total:
                save(False)
        save(True)
    return TrainResult(update, update, last_loss, log_path(out), time.perf_counter() - started, "max_steps")
