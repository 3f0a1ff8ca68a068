"""The fuzz suite, inputs: a corpus of malformed files for every reader, each run through the command that
reads it, and malformed command lines. Every input must end in a one-line answer (exit 0, or 1 for bad input,
or 2 for a bad option), never a traceback or an internal error, and within a time limit. Inputs are valid
files mutated one field at a time (deleted, null, a bool, -1, 1e308, NaN, text, a list, an object, nested
deep), cut short, or bit-flipped. A sample in the default run; all of them under `slow`, with the figures."""

from __future__ import annotations

import copy
import gzip
import json
import random
import shutil
import signal
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.folder import write_dataset

LIMIT = 60  # seconds one input may take (a hang otherwise)
SAMPLE, SLOW_SAMPLE = 6, 300  # mutations tried per target
FIGURES: Counter = Counter()
MUTATIONS = ("delete", None, True, -1, 1e308, float("nan"), "x", [], {}, "deep")


class Hang(BaseException):  # not an Exception: nothing in homesim may catch it
    pass


def _alarm(signum, frame):
    raise Hang


def invoke(args: list, input: str | bytes | None = None) -> tuple[int, str]:
    """A command's exit code and output (`input` on its standard input), or an AssertionError for a traceback, an
    internal error or a hang."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    try:
        result = CliRunner().invoke(app, [str(a) for a in args], input=input, env={"COLUMNS": "200"})
    except Hang:
        FIGURES["hangs"] += 1
        raise AssertionError(f"no answer within {LIMIT} s: {args}") from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    if crashed or "Traceback" in result.output or result.exit_code not in (0, 1, 2):
        FIGURES["crashes"] += 1
        raise AssertionError(f"{args}: exit {result.exit_code}, {result.exception!r}\n{result.output}")
    return result.exit_code, result.output


def paths_of(value, at=()) -> list[tuple]:
    """Every place in a JSON value: keys of objects, indices of lists (the first few of a long one)."""
    found = [at] if at else []
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths_of(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            found += paths_of(v, (*at, i))
    return found


def mutated(value, path: tuple, mutation) -> object:
    value = copy.deepcopy(value)
    *parents, last = path
    holder = value
    for key in parents:
        holder = holder[key]
    if mutation == "delete":
        if isinstance(holder, list):
            holder.pop(last)
        else:
            del holder[last]
    else:
        holder[last] = [[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]] if mutation == "deep" else mutation
    return value


def corpus(value, seed: int, size: int) -> list[tuple]:
    """`size` (path, mutation) pairs of a value, drawn with `seed` (all of them if fewer)."""
    pairs = [(p, m) for p in paths_of(value) for m in MUTATIONS]
    random.Random(seed).shuffle(pairs)
    return pairs[:size]


def _size(request) -> int:
    return SLOW_SAMPLE if request.node.get_closest_marker("slow") else SAMPLE


# --- the files: a dataset folder per suite, a finished run ------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    from homesim.datasets.alfred.builtin import builtin_episodes
    from homesim.datasets.handmethat.generate import make_episode
    from homesim.datasets.objectnav.generate import generate

    root = tmp_path_factory.mktemp("corpus")
    episodes, scenes = builtin_episodes()
    write_dataset(root / "alfred", {"builtin": episodes[:1]}, scenes, {})
    splits, houses, _ = generate(3, 1, seed=0)
    write_dataset(root / "objectnav", {"val": splits["val"][:1]}, houses, {}, suite="objectnav")
    write_dataset(root / "handmethat", {"test": [make_episode(0, 0)[0]]}, {}, {}, suite="handmethat")
    code, _ = invoke(["evaluate", "--episodes", root / "alfred", "--agent", "random", "--out", root / "run"])
    assert code == 0
    (root / "run" / "manifest.json").unlink()  # so that a mutated file is read, not refused by its digest
    return root


def _split_line(folder: Path) -> tuple[Path, dict]:
    split = next(folder.glob("*.jsonl.gz"))
    return split, json.loads(gzip.decompress(split.read_bytes()))


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


TARGETS = ["alfred episode", "objectnav episode", "handmethat episode", "scene", "dataset.json", "run.json",
           "record", "alfred trajectory", "handmethat file", "openable.json"]  # fmt: skip


def _value(target: str, base: Path, samples: dict):
    if target.endswith(" episode"):
        return _split_line(base / target.split()[0])[1]
    if target == "scene":
        return json.loads(next((base / "alfred" / "scenes").glob("*.json")).read_text())
    if target == "dataset.json":
        return json.loads((base / "alfred" / "dataset.json").read_text())
    if target == "run.json":
        return json.loads((base / "run" / "run.json").read_text())
    if target == "record":
        return json.loads((base / "run" / "records.jsonl").read_text().splitlines()[0])
    return json.loads(samples[target].read_text())


def _case(target: str, base: Path, samples: dict, tmp_path: Path, bad: object) -> list:
    """The command line that reads the target, with `bad` written in its place."""
    text = json.dumps(bad)
    if target.endswith(" episode"):
        folder = _copy(base / target.split()[0], tmp_path / "data")
        split, _ = _split_line(folder)
        split.write_bytes(gzip.compress(text.encode()))
        return ["evaluate", "--episodes", folder, "--agent", "random", "--out", tmp_path / "out"]
    if target in ("scene", "dataset.json"):
        folder = _copy(base / "alfred", tmp_path / "data")
        file = next((folder / "scenes").glob("*.json")) if target == "scene" else folder / "dataset.json"
        file.write_text(text)
        return ["evaluate", "--episodes", folder, "--agent", "random", "--out", tmp_path / "out"]
    if target in ("run.json", "record"):
        run = _copy(base / "run", tmp_path / "run")
        if target == "run.json":
            (run / "run.json").write_text(text)
        else:
            lines = (run / "records.jsonl").read_text().splitlines()
            (run / "records.jsonl").write_text("\n".join([text, *lines[1:]]) + "\n")
        return ["report", run]
    if target == "alfred trajectory":
        (tmp_path / "traj_data.json").write_text(text)
        return ["evaluate", "--episodes", tmp_path / "traj_data.json", "--layouts", samples["layouts"],
                "--agent", "random", "--out", tmp_path / "out"]  # fmt: skip
    if target == "handmethat file":
        (tmp_path / "episode.json").write_text(text)
        return ["evaluate", "--episodes", tmp_path / "episode.json", "--agent", "random", "--out", tmp_path / "out"]
    layouts = tmp_path / "layouts"
    layouts.mkdir()
    for kind in ("layout.npy", "objects.json", "openable.json"):
        shutil.copy(samples["layouts"] / f"FloorPlan1-{kind}", layouts)
    (layouts / "FloorPlan1-openable.json").write_text(text)
    return ["alfred", "import-scenes", "--layouts", layouts, "--out", tmp_path / "scenes"]


@pytest.fixture(scope="module")
def samples(alfred_samples, alfred_layouts, handmethat_samples) -> dict:
    return {
        "alfred trajectory": next(alfred_samples.rglob("traj_data.json")),
        "handmethat file": next(handmethat_samples.glob("*.json")),
        "openable.json": alfred_layouts / "FloorPlan1-openable.json",
        "layouts": alfred_layouts,
    }


def _fuzz_target(target, base, samples, tmp_path, size) -> None:
    value = _value(target, base, samples)
    for k, (path, mutation) in enumerate(corpus(value, seed=len(target), size=size)):
        where = tmp_path / f"case{k}"
        where.mkdir()
        invoke(_case(target, base, samples, where, mutated(value, path, mutation)))
        FIGURES[target] += 1


@pytest.mark.parametrize("target", TARGETS)
def test_malformed_files_get_one_line_answers(base, samples, tmp_path, target, request):
    _fuzz_target(target, base, samples, tmp_path, _size(request))


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_malformed_files_at_length(base, samples, tmp_path, target, request):
    _fuzz_target(target, base, samples, tmp_path, _size(request))
    print(f"\nfuzz {target}: {FIGURES[target]} inputs, each answered in time without a traceback")


# --- files cut short, bit-flipped, nested deep, not files at all -----------------------------------------------


@pytest.mark.parametrize("damage", ["cut", "flip", "deep", "empty", "device"])
@pytest.mark.parametrize("suite", ["alfred", "objectnav", "handmethat"])
def test_damaged_split_files_get_one_line_answers(base, tmp_path, damage, suite):
    folder = _copy(base / suite, tmp_path / "data")
    split, _ = _split_line(folder)
    data = split.read_bytes()
    if damage == "cut":
        split.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        split.write_bytes(data[:20] + bytes([data[20] ^ 0xFF]) + data[21:])
    elif damage == "deep":
        split.write_bytes(gzip.compress(b"[" * 200_000 + b"]" * 200_000))
    elif damage == "empty":
        split.write_bytes(b"")
    else:
        split.unlink()
        split.symlink_to("/dev/zero")
    code, output = invoke(["evaluate", "--episodes", folder, "--out", tmp_path / "out"])
    assert code == 1 and str(split) in " ".join(output.split()), output
    FIGURES["damaged files"] += 1


OPTIONS = [
    ["evaluate", "--workers", "0"], ["evaluate", "--workers", "9" * 40], ["evaluate", "--seed", "1e9"],
    ["evaluate", "--episodes", "/dev/zero"], ["evaluate", "--episodes", "/"], ["evaluate", "--split", "../x"],
    ["evaluate", "--agent", "os:getcwd"], ["evaluate", "--agent", "os:sep"], ["evaluate", "--agent", ":"],
    ["evaluate", "--pixels", "rgb,,smell"], ["evaluate", "--success-distance", "nan"], ["evaluate", "--criteria", ""],
    ["evaluate", "--out", "/proc/x"], ["evaluate", "--out", "/dev/null"],
    ["generate", "alfred", "--episodes", "1" + "0" * 30], ["generate", "objectnav", "--houses", "-3"],
    ["generate", "handmethat", "--episodes", "0"], ["generate", "alfred", "--out", "/dev/null"],
    ["render-episode", "/dev/zero", "--out", "x.mp4"], ["render-episode", "{run}/records.jsonl", "--out", "x.mp4", "--fps", "nan"],
    ["render-episode", "{run}/records.jsonl", "--out", "x.mp4", "--record", "9" * 30],
    ["report", "/dev/zero"], ["report", "{run}", "--table", "nope"], ["report", "/nonexistent"],
    ["train", "--agent", "seq2seq", "--data", "/dev/zero", "--out", "x.pt"],
    ["train", "--agent", "x", "--data", "{run}", "--out", "x.pt", "--lr", "inf"],
]  # fmt: skip


@pytest.mark.parametrize("args", OPTIONS, ids=[" ".join(a)[:60] for a in OPTIONS])
def test_malformed_command_lines_get_one_line_answers(base, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    code, _ = invoke([a.format(run=base / "run") for a in args])
    assert code != 0
    FIGURES["command lines"] += 1
