"""HandMeThat's learned text models, small enough to train on a CPU in minutes.

Both read the context (task description, + goal or subgoal) and the history (`handmethat_data`), each
encoded by `TextEncoder` (embeddings and residual 1-D convolutions: the history runs to ~1,200 tokens
in the fully observable game, where a recurrent encoder would be the bottleneck on a CPU); as in
ALFWorld's Seq2Seq, which theirs follows, the history's tokens attend to the context ("the hidden
representation of observation strings is obtained by using task description as attention").

* `Seq2Seq` generates the next command token by token with a GRU decoder attending to both (their
  agent's greedy generation: the command is written, not chosen, so it may be no command at all).
* `DrrnQ` is the DRRN of Jericho that their DRRN baseline uses: Q(s, a) from an encoding of the state
  and one of each admissible command, so it can only choose among admissible commands.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from homesim.learning.vocab import Vocab

HISTORY_HEAD, HISTORY_TAIL = 512, 128  # a longer history keeps its start (the scene) and its latest steps
MAX_COMMAND = 16  # tokens generated at most ("pick up chicken 2 from pan 1" is 7)


def clip(ids: list[int], head: int = HISTORY_HEAD, tail: int = HISTORY_TAIL) -> list[int]:
    return ids if len(ids) <= head + tail else ids[:head] + ids[-tail:]


def pad(rows: list[list[int]]) -> torch.Tensor:
    """Token rows as one (batch, longest) tensor, padded with `Vocab.PAD` (rows get at least one token)."""
    width = max(1, *(len(r) for r in rows))
    out = torch.full((len(rows), width), Vocab.PAD, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out


class TextEncoder(nn.Module):
    """Token ids -> one feature vector per token (padding masked by the caller)."""

    def __init__(self, embedding: nn.Embedding, hidden: int, layers: int = 2) -> None:
        super().__init__()
        self.embedding = embedding
        self.project = nn.Linear(embedding.embedding_dim, hidden)
        self.convs = nn.ModuleList(nn.Conv1d(hidden, hidden, 5, padding=2) for _ in range(layers))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.project(self.embedding(ids))
        keep = (ids != Vocab.PAD).unsqueeze(-1).float()
        for conv in self.convs:
            x = (x + F.relu(conv((x * keep).transpose(1, 2)).transpose(1, 2))) * keep
        return x


def attend(query: torch.Tensor, keys: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Dot-product attention of each query over the unmasked keys: (B, Q, H) x (B, K, H) -> (B, Q, H)."""
    scores = query @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
    scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
    return torch.softmax(scores, dim=-1) @ keys


def mean_pool(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).float()
    return (x * m).sum(1) / m.sum(1).clamp(min=1)


class ContextReader(nn.Module):
    """The history read in the light of the context: each history token fused with what it attends to in
    the context. Returns the fused history, its mask, the context's features and its mask."""

    def __init__(self, vocab_size: int, embed: int, hidden: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed, padding_idx=Vocab.PAD)
        self.context = TextEncoder(self.embedding, hidden)
        self.history = TextEncoder(self.embedding, hidden)
        self.fuse = nn.Linear(3 * hidden, hidden)

    def forward(self, context: torch.Tensor, history: torch.Tensor):
        c_mask, h_mask = context != Vocab.PAD, history != Vocab.PAD
        c, h = self.context(context), self.history(history)
        seen = attend(h, c, c_mask)
        fused = torch.relu(self.fuse(torch.cat([h, seen, h * seen], -1)))
        return fused, h_mask, c, c_mask


class Seq2Seq(nn.Module):
    def __init__(self, vocab_size: int, embed: int = 64, hidden: int = 64) -> None:
        super().__init__()
        self.reader = ContextReader(vocab_size, embed, hidden)
        self.start = nn.Linear(2 * hidden, hidden)
        self.cell = nn.GRUCell(embed + 2 * hidden, hidden)
        self.out = nn.Linear(3 * hidden, vocab_size)

    def _step(self, token, state, read):
        fused, h_mask, c, c_mask = read
        q = state.unsqueeze(1)
        on_history, on_context = attend(q, fused, h_mask)[:, 0], attend(q, c, c_mask)[:, 0]
        state = self.cell(torch.cat([self.reader.embedding(token), on_history, on_context], -1), state)
        return self.out(torch.cat([state, on_history, on_context], -1)), state

    def _begin(self, context, history):
        read = self.reader(context, history)
        fused, h_mask, c, c_mask = read
        return read, torch.tanh(self.start(torch.cat([mean_pool(fused, h_mask), mean_pool(c, c_mask)], -1)))

    def forward(self, context: torch.Tensor, history: torch.Tensor, command: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits (B, T, V) for `command` (B, T: the tokens then EOS), each step fed the
        token before it (GO first)."""
        read, state = self._begin(context, history)
        token = torch.full((command.shape[0],), Vocab.GO, dtype=torch.long)
        logits = []
        for t in range(command.shape[1]):
            out, state = self._step(token, state, read)
            logits.append(out)
            token = command[:, t]
        return torch.stack(logits, 1)

    @torch.no_grad()
    def generate(self, context: torch.Tensor, history: torch.Tensor, limit: int = MAX_COMMAND) -> list[list[int]]:
        """Greedy decoding: each row's tokens up to (not including) EOS."""
        read, state = self._begin(context, history)
        token = torch.full((context.shape[0],), Vocab.GO, dtype=torch.long)
        rows: list[list[int]] = [[] for _ in range(context.shape[0])]
        done = torch.zeros(context.shape[0], dtype=torch.bool)
        for _ in range(limit):
            out, state = self._step(token, state, read)
            token = out.argmax(-1)
            for i in (~done).nonzero().flatten().tolist():
                if token[i] != Vocab.EOS:
                    rows[i].append(int(token[i]))
            done |= token == Vocab.EOS
            if bool(done.all()):
                break
        return rows


class DrrnQ(nn.Module):
    """Q(s, a) = MLP(state encoding, command encoding), the state being the context and the history."""

    def __init__(self, vocab_size: int, embed: int = 64, hidden: int = 64) -> None:
        super().__init__()
        self.reader = ContextReader(vocab_size, embed, hidden)
        self.command = nn.GRU(embed, hidden, batch_first=True)
        self.q = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def states(self, context: torch.Tensor, history: torch.Tensor) -> torch.Tensor:
        fused, h_mask, c, c_mask = self.reader(context, history)
        return torch.cat([mean_pool(fused, h_mask), mean_pool(c, c_mask)], -1)

    def commands(self, ids: torch.Tensor) -> torch.Tensor:
        lengths = (ids != Vocab.PAD).sum(1).clamp(min=1)
        packed = nn.utils.rnn.pack_padded_sequence(
            self.reader.embedding(ids), lengths, batch_first=True, enforce_sorted=False
        )
        return self.command(packed)[1][0]

    def forward(self, states: torch.Tensor, commands: torch.Tensor, owner: torch.Tensor) -> torch.Tensor:
        """Q of each command (N rows of `commands`) in the state of its row `owner` in `states`."""
        return self.q(torch.cat([states[owner], self.commands(commands)], -1)).squeeze(-1)
