"""HandMeThat's DRRN baseline (their supplement C.1, after Jericho's DRRN): online Q-learning over the
admissible commands with the game's own reward (-1 a command, +100 at the goal), epsilon-greedy
exploration, a replay buffer, and the loss || r + gamma max_a' Q(obs', a') - Q(obs, a) || (Huber), the
max over the next state's admissible commands (0 once the episode is over). Like Jericho's DRRN and
unlike their port, there is no target network: targets come from the network being trained, without
gradient. The state is the task description and the history (`handmethat_data`), as for Seq2Seq.

Each epoch of `loop.train` first plays `episodes_per_epoch` training episodes with the current network
(epsilon falling linearly from `epsilon_start` to `epsilon_end` over the run), then makes
`updates_per_epoch` updates on batches drawn from the buffer. The commands played are logged per epoch
beside the checkpoint (`<out>.plays.jsonl`); the game is deterministic, so a resumed run rebuilds its
buffer by replaying them and goes on with the very same transitions and batches.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from torch.nn import functional as F

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.handmethat import HandMeThatEnv
from homesim.errors import DataError
from homesim.learning.handmethat.data import Reader, Transcript, context
from homesim.learning.handmethat.models import DrrnQ, clip, pad
from homesim.learning.vocab import Vocab
from homesim.world.actions import STOP


@dataclass(frozen=True)
class DrrnSettings:
    episodes_per_epoch: int = 16
    updates_per_epoch: int = 64
    gamma: float = 0.9
    capacity: int = 5000  # transitions kept
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05


@dataclass(frozen=True)
class Transition:
    context: torch.Tensor
    history: torch.Tensor
    command: torch.Tensor
    reward: float
    next_history: torch.Tensor
    next_commands: tuple[torch.Tensor, ...]
    done: bool


class Tokens:
    """Texts as id tensors; commands, which recur, encoded once."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab, self.commands = vocab, {}

    def text(self, text: str) -> torch.Tensor:
        return torch.tensor(clip(self.vocab.encode(text)), dtype=torch.long)

    def command(self, text: str) -> torch.Tensor:
        if text not in self.commands:
            self.commands[text] = torch.tensor(self.vocab.encode(text), dtype=torch.long)
        return self.commands[text]


def q_values(
    model: DrrnQ, contexts: Sequence[torch.Tensor], histories: Sequence[torch.Tensor],
    commands: Sequence[Sequence[torch.Tensor]],
) -> list[torch.Tensor]:  # fmt: skip
    """Q of each state's commands (one tensor per state; empty for a state without commands)."""
    states = model.states(pad([c.tolist() for c in contexts]), pad([h.tolist() for h in histories]))
    owner = torch.tensor([i for i, said in enumerate(commands) for _ in said], dtype=torch.long)
    flat = [c.tolist() for said in commands for c in said]
    q = model(states, pad(flat), owner) if flat else torch.zeros(0)
    return list(torch.split(q, [len(said) for said in commands]))


def choose(
    model: DrrnQ, context_ids: torch.Tensor, history: torch.Tensor, commands: Sequence[str], tokens: Tokens
) -> str:
    """The admissible command of highest Q."""
    with torch.no_grad():
        q = q_values(model, [context_ids], [history], [[tokens.command(c) for c in commands]])[0]
    return commands[int(q.argmax())]


def td_loss(model: DrrnQ, batch: Sequence[Transition], gamma: float) -> dict[str, torch.Tensor]:
    with torch.no_grad():
        ahead = q_values(model, [t.context for t in batch], [t.next_history for t in batch],
                         [() if t.done else t.next_commands for t in batch])  # fmt: skip
        best = torch.tensor([float(q.max()) if len(q) else 0.0 for q in ahead])
        target = torch.tensor([t.reward for t in batch]) + gamma * best
    q = torch.cat(q_values(model, [t.context for t in batch], [t.history for t in batch], [[t.command] for t in batch]))
    return {"loss": F.smooth_l1_loss(q, target), "q": q.mean()}


class Experience:
    """The replay buffer, filled by playing, and the log of the plays that rebuilds it on resumption."""

    def __init__(
        self, model: DrrnQ, episodes: Sequence[HandMeThatEpisode], observability: str, vocab: Vocab,
        settings: DrrnSettings, epochs: int, batch_size: int, seed: int, log: Path,
    ) -> None:  # fmt: skip
        self.model, self.settings, self.epochs, self.batch_size, self.seed, self.log = (
            model, settings, epochs, batch_size, seed, log
        )
        self.env = HandMeThatEnv(list(episodes), observability=observability)
        self.tokens = Tokens(vocab)
        self.buffer: deque[Transition] = deque(maxlen=settings.capacity)
        self.filled = 0  # epochs whose plays are in the buffer

    def epsilon(self, epoch: int) -> float:
        s, share = self.settings, epoch / max(1, self.epochs - 1)
        return s.epsilon_start + (s.epsilon_end - s.epsilon_start) * share

    def batches(self, epoch: int, generator: torch.Generator) -> list[list[Transition]]:
        logged = self._logged()
        for e in range(self.filled, epoch + 1):
            if e in logged:
                for index, commands in logged[e]:
                    said = iter(commands)
                    self._play(index, lambda *_: next(said))
            elif e == epoch:
                self._collect(epoch)
            else:
                raise DataError(str(self.log), f"epoch {e}", "this epoch's plays are missing: remove the checkpoint")
        self.filled = epoch + 1
        picks = torch.randint(len(self.buffer), (self.settings.updates_per_epoch, self.batch_size), generator=generator)
        return [[self.buffer[i] for i in row] for row in picks.tolist()]

    def _collect(self, epoch: int) -> None:
        rng, epsilon = random.Random(f"drrn/{self.seed}/{epoch}"), self.epsilon(epoch)

        def act(context_ids: torch.Tensor, history: torch.Tensor, commands: list[str]) -> str:
            explore, pick = rng.random() < epsilon, rng.choice(commands)
            return pick if explore else choose(self.model, context_ids, history, commands, self.tokens)

        plays = []
        for _ in range(self.settings.episodes_per_epoch):
            index = rng.randrange(len(self.env.episodes))
            plays.append([index, self._play(index, act)])
        with self.log.open("a") as log:
            log.write(json.dumps({"epoch": epoch, "plays": plays}) + "\n")

    def _logged(self) -> dict[int, list]:
        """The plays logged per epoch (a line cut short by a kill is no epoch: it is played again)."""
        logged = {}
        if self.log.exists():
            for line in self.log.read_text().splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue
                logged[entry["epoch"]] = entry["plays"]
        return logged

    def _play(self, index: int, act: Callable[[torch.Tensor, torch.Tensor, list[str]], str]) -> list[str]:
        """Plays episode `index` with `act`, adding its transitions to the buffer; returns the commands."""
        text, info = self.env.reset(options={"episode": index})
        context_ids = self.tokens.text(context(self.env.task))
        transcript = Transcript(text, self.env.task)
        history, commands, said, over = self.tokens.text(transcript.text), info["admissible_commands"], [], False
        while not over:
            command = act(context_ids, history, commands)
            text, reward, terminated, truncated, info = self.env.step(command)
            transcript.said(command, text)
            said.append(command)
            over = terminated or truncated
            following, commands = self.tokens.text(transcript.text), info["admissible_commands"]
            self.buffer.append(
                Transition(context_ids, history, self.tokens.command(command), float(reward), following,
                           tuple(self.tokens.command(c) for c in commands), over)  # fmt: skip
            )
            history = following
        return said


def build_model(describe: dict) -> DrrnQ:
    return DrrnQ(len(Vocab.from_dict(describe["vocab"])), **describe["model"])


class DrrnAgent:
    """Plays a DRRN checkpoint greedily: the admissible command of highest Q."""

    def __init__(self, checkpoint: dict, seed: int = 0) -> None:
        self.tokens = Tokens(Vocab.from_dict(checkpoint["describe"]["vocab"]))
        self.model = build_model(checkpoint["describe"])
        self.model.load_state_dict(checkpoint["model"])
        self.model.eval()
        self.observability = checkpoint["describe"]["observability"]  # the game it was trained in
        self.reader, self.last = Reader(), ""

    def reset(self, task: TaskSpec) -> None:
        self.reader.reset()

    def act(self, observation: dict) -> AgentAction:
        history = self.tokens.text(self.reader.history(observation, self.last))
        commands = list(observation["admissible_commands"])
        if not commands:
            return AgentAction(STOP)
        context_ids = self.tokens.text(context(observation["task"]))
        self.last = choose(self.model, context_ids, history, commands, self.tokens)
        return AgentAction(self.last)


def load_drrn_agent(checkpoint: dict, seed: int) -> DrrnAgent:
    return DrrnAgent(checkpoint, seed)
