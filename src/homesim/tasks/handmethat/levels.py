"""HandMeThat's hardness levels (their paper's section 3.3, their `get_hardness_level`), from four sets of
(thing, argument) pairs: A(m) what the human means, A(u) what the utterance fits, A(g) the things whose
help serves the goal, A(r) what the RSA listener reads the utterance as.

1: the utterance alone picks out the meaning, A(m) = A(u);
2: the utterance and the goal do, A(m) = A(g) & A(u);
3: pragmatic reasoning does, A(m) = A(g) & A(r);
4: none of these (the request stays ambiguous).
"""

from __future__ import annotations

from collections.abc import Iterable

Pairs = Iterable[tuple[str, str | None]]


def level_of(useful: Pairs, in_meaning: Pairs, in_utterance: Pairs, in_reading: Pairs) -> int:
    ag, am, au, ar = (set(x) for x in (useful, in_meaning, in_utterance, in_reading))
    if am == au:
        return 1
    if am == ag & au:
        return 2
    if am == ag & ar:
        return 3
    return 4
