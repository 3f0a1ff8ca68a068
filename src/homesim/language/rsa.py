"""Rational Speech Acts (Frank and Goodman's RSA, as HandMeThat's generator runs it): a speaker and a
listener that reason about each other `depth` times over a literal semantics.

Matrices are meanings x utterances. The literal speaker (depth 0) is the literal semantics itself, 1
where the utterance is true of the meaning, unnormalised as in their code; the listener at depth d is
P(m | u) proportional to prior(m) * S_d(u | m); the speaker at depth d > 0 is P(u | m) proportional to
exp(alpha * (log L_{d-1}(m | u) - cost(u))). HandMeThat uses depth 10 and alpha 2 (their supplement A.3;
their generator's `get_pragmatic_speaker` and `get_pragmatic_listener`).
"""

from __future__ import annotations

import numpy as np

DEPTH, ALPHA = 10, 2.0


def speaker(
    literal: np.ndarray, prior: np.ndarray, costs: np.ndarray, depth: int = DEPTH, alpha: float = ALPHA
) -> np.ndarray:
    """S_depth(u | m), meanings x utterances (rows sum to 1 for depth > 0)."""
    if literal.shape != (len(prior), len(costs)):
        raise ValueError(f"literal semantics is {literal.shape}, not meanings x utterances {(len(prior), len(costs))}")
    s = literal.astype(float)
    for _ in range(depth):
        with np.errstate(divide="ignore"):  # log 0 = -inf: an utterance false of a meaning is never said
            s = np.exp(alpha * (np.log(listen(s, prior)) - costs))
        s /= s.sum(axis=1, keepdims=True)
    return s


def listener(
    literal: np.ndarray, prior: np.ndarray, costs: np.ndarray, depth: int = DEPTH, alpha: float = ALPHA
) -> np.ndarray:
    """L_depth(m | u), meanings x utterances (columns sum to 1): the listener of the depth-`depth` speaker."""
    return listen(speaker(literal, prior, costs, depth, alpha), prior)


def listen(s: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """The listener of a speaker: P(m | u) proportional to prior(m) * S(u | m), meanings x utterances."""
    joint = prior[:, None] * s
    total = joint.sum(axis=0, keepdims=True)
    if not total.all():
        raise ValueError("an utterance is true of no meaning with prior > 0: the listener cannot read it")
    return joint / total
