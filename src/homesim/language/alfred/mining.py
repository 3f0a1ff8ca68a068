"""Mines the names ALFRED's annotators use for each object class from their step-by-step directives.

Each directive is aligned with the high-level step it describes, so the object a step acts on is
known: the noun phrase after "pick up"/"put"/"slice"/"turn on" names the step's object, the one after
the last "in"/"on" names a PutObject's receptacle (and gives that receptacle's preposition), and the
one after "to"/"towards" names a GotoLocation's destination (counted only for names the class also
has from its own steps: a walk "to the sink" often ends at the counter beside it). Colours, sizes, materials and states are
stripped (they describe one scene's instance, or the task, not the class). A name is kept for a class
when it is common for that class; another class's name must be very common to count (a pot is often
called a pan, but "plate" for the microwave a plate stands in, or "toaster" for the counter a walk
ends at, is a slip). Counts are kept so that generated directives use names as often as
people do. Regenerate the package's table with

    python -m homesim.language.alfred.mining ../shared/data/alfred/trajectories/train.jsonl.gz \
        src/homesim/language/data/synonyms.json
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

MIN_COUNT = 5  # mentions; fewer is a typo or one annotator's whim
MIN_SHARE = 0.015  # of the class's mentions
MIN_BORROWED_SHARE = 0.20  # another class's name is a synonym (pan for a pot), not a slip, above this share

_DETERMINERS = r"(?:the|a|an|one|another|that|this|some|other|second|first|remaining)"
_ENDS_PHRASE = set(
    "from off on in into onto inside that which to and at near next by under beside of with then behind above below "
    "over for you your it is so until down up out back closest nearest sitting between leaning hanging standing "
    "lying laying directly there underneath again left right".split()
)
_STRIPPED = set(
    "red green blue yellow black white brown grey gray silver orange pink purple gold golden dark light clear "
    "metal wooden wood plastic small large big little tall short heated hot warm chilled cold cooled cool cooked "
    "clean cleaned washed rinsed wet dirty microwaved leftmost rightmost middle top bottom upper lower front far "
    "second third the a an".split()
)
# Words that name a place or a quantity, not an object ("walk to the wall", "the set of keys").
_NOT_NAMES = set(
    "wall object item thing floor ground foot room corner area one container half base rear section couple".split()
)
_MEASURES = {"set", "pair", "piece", "slice", "head", "bar", "loaf", "roll", "box", "bunch", "stick", "wedge"}
# Parts of a receptacle ("the back of the toilet"): the receptacle is named after "of".
_PARTS = re.compile(
    r"\b(?:top|back|front|edge|end|middle|center|centre|corner|side|bottom|foot|shelf|part)\s+(?:of|in)\s+"
)
_CLASS_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")  # "HousePlant" -> house plant, "TVStand" -> tv stand
_VERBS = {
    "PickupObject": "pick up|grab|take|get|remove|lift|retrieve|pick",
    "PutObject": "put|place|set|drop|leave",
    "SliceObject": "slice|cut",
    "ToggleObject": "turn on|switch on|turn|switch|light",
}
_RECEPTACLE_PREPOSITION = rf"\b(in|on|into|onto|inside)\s+(?:{_DETERMINERS}\s+)?([a-z][a-z ]*)"
_GOTO_PREPOSITION = rf"\b(?:to|towards|toward|face|facing|reach)\s+(?:{_DETERMINERS}\s+)([a-z][a-z ]*)"


def noun_phrase(words: str) -> str | None:
    """The object name at the start of `words`, up to three words, adjectives of instance and state left out;
    a measure keeps what it measures ("head of lettuce")."""
    kept = []
    for word in words.split():
        if word == "of" and len(kept) == 1 and kept[0] in _MEASURES:
            kept.append(word)
        elif word in _ENDS_PHRASE:
            break
        elif kept or word not in _STRIPPED:  # adjectives come before the noun ("counter top" stays)
            kept.append(word)
    phrase = " ".join(kept[:4]).removesuffix(" of")
    return phrase if phrase and phrase not in _NOT_NAMES else None


def after_verb(text: str, verbs: str) -> str | None:
    m = re.search(rf"\b(?:{verbs})\s+(?:{_DETERMINERS}\s+)?(?:{_DETERMINERS}\s+)?([a-z][a-z ]*)", text)
    return noun_phrase(m.group(1)) if m else None


def object_class(object_id: str) -> str:
    """AI2-THOR's class of an object id; a slice's id ends in its own class (`Apple|...|AppleSliced_1`)."""
    parts = object_id.split("|")
    return parts[-1].split("_")[0] if len(parts) > 4 else parts[0]


def _normalise(sentence: str) -> str:
    text = re.sub(r"'s\b", "", sentence.lower())
    return _PARTS.sub("", re.sub(r"[^a-z ]+", " , ", text))


class _Tally:
    def __init__(self, class_names: Iterable[str]) -> None:
        self.by_lower = {c.lower(): c for c in class_names}
        self.class_words = {" ".join(_CLASS_WORDS.findall(c)).lower(): c for c in class_names}
        self.names: dict[str, Counter] = defaultdict(Counter)
        self.destinations: dict[str, Counter] = defaultdict(Counter)
        self.prepositions: dict[str, Counter] = defaultdict(Counter)

    def step(self, action: dict, sentence: str, goto_class: str | None) -> None:
        text = _normalise(sentence)
        kind = action["action"]
        if kind in _VERBS and action.get("objectId"):
            self._name(object_class(action["objectId"]), after_verb(text, _VERBS[kind]))
        if kind == "PutObject" and action.get("receptacleObjectId"):
            found = re.findall(_RECEPTACLE_PREPOSITION, text)
            if found:
                preposition, words = found[-1]
                receptacle = object_class(action["receptacleObjectId"])
                self._name(receptacle, noun_phrase(words))
                self.prepositions[receptacle]["on" if preposition in ("on", "onto") else "in"] += 1
        if kind == "GotoLocation" and goto_class:
            m = re.search(_GOTO_PREPOSITION, text)
            phrase = noun_phrase(m.group(1)) if m else None
            if phrase:
                self.destinations[goto_class][phrase] += 1

    def _name(self, cls: str, phrase: str | None) -> None:
        if phrase:
            self.names[cls][phrase] += 1

    def trajectory(self, data: dict) -> None:
        high = [h for h in data["plan"].get("high_pddl", []) if h["planner_action"]["action"] != "End"]
        for annotation in data.get("turk_annotations", {}).get("anns", []):
            for h, sentence in zip(high, annotation.get("high_descs", [])):
                args = h.get("discrete_action", {}).get("args") or [""]
                self.step(h["planner_action"], sentence, self.by_lower.get(args[0]))

    def _borrowed(self, phrase: str, cls: str) -> bool:
        """Whether the phrase is another class's name: its class name in words ("toaster"), or a name
        another class is called more often."""
        if self.class_words.get(phrase, cls) != cls:
            return True
        return any(other != cls and counts[phrase] > self.names[cls][phrase] for other, counts in self.names.items())

    def table(self) -> dict:
        for cls, counts in self.destinations.items():
            for phrase, n in counts.items():
                if phrase in self.names.get(cls, ()):
                    self.names[cls][phrase] += n
        classes = {}
        for cls in sorted(self.names):
            counts, total = self.names[cls], sum(self.names[cls].values())
            kept = {
                phrase: n
                for phrase, n in counts.most_common()
                if n >= MIN_COUNT and n / total >= (MIN_BORROWED_SHARE if self._borrowed(phrase, cls) else MIN_SHARE)
            }
            if kept:
                classes[cls] = {"names": kept}
                if self.prepositions[cls]:
                    classes[cls]["prepositions"] = dict(self.prepositions[cls].most_common())
        return classes


def mine_synonyms(trajectories: Iterable[dict], class_names: Iterable[str]) -> dict:
    """{class: {"names": {name: mentions}, "prepositions": {"in"|"on": mentions}}} from raw ALFRED trajectories."""
    tally = _Tally(class_names)
    for data in trajectories:
        tally.trajectory(data)
    return tally.table()


def read_jsonl(path: Path) -> Iterable[dict]:
    with (gzip.open if path.name.endswith(".gz") else open)(path, "rt", encoding="utf-8") as lines:
        yield from (json.loads(line) for line in lines if line.strip())


def main(argv: list[str]) -> None:
    from homesim.world.catalog import alfred_catalog

    source, out = Path(argv[0]), Path(argv[1])
    table = mine_synonyms(read_jsonl(source), alfred_catalog().classes)
    about = (
        f"Names ALFRED's annotators use per object class, with mention counts, mined from {source.name} by "
        "homesim.language.alfred.mining; prepositions: how often a receptacle is put 'in' or 'on'."
    )
    out.write_text(json.dumps({"about": about, "classes": table}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
