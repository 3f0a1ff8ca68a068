"""Words to indices for the learned baselines: ALFRED-style tokens (lower case, words and punctuation), a
vocabulary built deterministically from training text and stored in the checkpoint with the model."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

SPECIALS = ("<pad>", "<unk>", "<sep>", "<go>", "<eos>")
_TOKEN = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class Vocab:
    PAD, UNK, SEP, GO, EOS = range(len(SPECIALS))

    def __init__(self, words: Iterable[str]) -> None:
        self.words = list(SPECIALS) + [w for w in words if w not in SPECIALS]
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, texts: Iterable[str], min_count: int = 1) -> Vocab:
        """The words of `texts` seen at least `min_count` times, most frequent first (ties by the word), so
        the same texts give the same indices whatever their order."""
        counts = Counter(token for text in texts for token in tokenize(text))
        kept = sorted((w for w, n in counts.items() if n >= min_count), key=lambda w: (-counts[w], w))
        return cls(kept)

    def encode(self, text: str) -> list[int]:
        return [self.index.get(token, self.UNK) for token in tokenize(text)]

    def decode(self, ids: Iterable[int]) -> str:
        return " ".join(self.words[i] for i in ids if i != self.PAD)

    def to_dict(self) -> dict:
        return {"words": self.words[len(SPECIALS) :]}

    @classmethod
    def from_dict(cls, d: dict) -> Vocab:
        return cls(d["words"])

    def __len__(self) -> int:
        return len(self.words)
