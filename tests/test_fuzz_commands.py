"""The fuzz suite, the commands' other inputs: frames folders (`homesim train`), checkpoints (`homesim evaluate
--agent X.pt`, `homesim train` resuming), `homesim play` and `homesim render-episode`. Each damaged input
(cut short, corrupt, another version, another suite, a bad option) must end in one line and a non-zero exit,
never a traceback, an internal error or a hang, and never damage an output that was there; the fields of
their JSON files are mutated as in `test_fuzz_inputs` (one line, any exit). A sample in the default run; all
of it under `slow`, with the figures."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_fuzz_inputs import FIGURES, corpus, invoke, mutated

# a writer left open by a failed write complains as it is collected: an error here, not a warning
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")

SAMPLE, SLOW_SAMPLE = 3, 200  # field mutations tried per file


def _size(request) -> int:
    return SLOW_SAMPLE if request.node.get_closest_marker("slow") else SAMPLE


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """Two built-in ALFRED episodes and two HandMeThat episodes as dataset folders, a frames folder of the ALFRED
    ones, a finished checkpoint of each suite, an evaluation's run folder, an episode file and its scene."""
    pytest.importorskip("torch")
    from render_support import make_renderer

    from homesim.datasets.alfred.builtin import builtin_episodes
    from homesim.datasets.folder import write_dataset
    from homesim.datasets.handmethat.generate import make_episode

    make_renderer(8, 8).close()
    root = tmp_path_factory.mktemp("made")
    episodes, scenes = builtin_episodes()
    write_dataset(root / "alfred", {"builtin": episodes[:2]}, scenes, {})
    write_dataset(root / "handmethat", {"train": [make_episode(k, k)[0] for k in range(2)]}, {}, {}, suite="handmethat")
    (root / "episode.json").write_text(json.dumps(episodes[0].to_dict()))
    (root / "scene.json").write_text(json.dumps(scenes[episodes[0].scene_id].to_dict()))
    for args in (
        ["alfred", "frames", "--episodes", root / "alfred", "--out", root / "frames", "--size", "8"],
        ["train", "--agent", "seq2seq", "--data", root / "frames", "--out", root / "alfred.pt", "--max-steps", "1"],
        ["train", "--agent", "seq2seq", "--data", root / "handmethat", "--out", root / "handmethat.pt", "--max-steps", "1"],
        ["evaluate", "--episodes", root / "alfred", "--agent", "random", "--out", root / "run"],
    ):  # fmt: skip
        code, output = invoke(args)
        assert code == 0, output
    return root


def _kept(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _fails_in_one_line(args: list, output_at: Path | None = None, input: str | None = None) -> str:
    """Runs a command that must fail: non-zero, one line, and what was at `output_at` still there unchanged."""
    before = _kept(output_at) if output_at is not None else None
    code, output = invoke(args, input)
    assert code != 0, f"{args}: exit 0\n{output}"
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines and ("Error" in lines[-1] or "homesim" in lines[-1] or "Usage" in output), output
    if output_at is not None:
        assert _kept(output_at) == before, f"{args} changed {output_at}"
    return output


# --- frames folders ---------------------------------------------------------------------------------------


def _shard(folder: Path) -> Path:
    return next(folder.glob("shard-*"))


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


FRAMES_DAMAGE = {
    "meta.json missing": lambda f: (f / "meta.json").unlink(),
    "meta.json cut short": lambda f: _cut(f / "meta.json"),
    "meta.json a list": lambda f: (f / "meta.json").write_text("[]"),
    "meta.json nested deep": lambda f: (f / "meta.json").write_text("[" * 100_000 + "]" * 100_000),
    "meta.json version 2": lambda f: _edit(f / "meta.json", version=2),
    "meta.json another format": lambda f: _edit(f / "meta.json", format="homesim-objectnav-frames"),
    "meta.json not complete": lambda f: _edit(f / "meta.json", complete=False),
    "meta.json size negative": lambda f: _edit(f / "meta.json", size=[-8, 8]),
    "meta.json counts wrong": lambda f: _edit(f / "meta.json", trajectories=99),
    "frames.npy cut short": lambda f: _cut(_shard(f) / "frames.npy"),
    "frames.npy garbage": lambda f: (_shard(f) / "frames.npy").write_bytes(b"\x93NUMPY garbage" * 10),
    "masks.npy of floats": lambda f: np.save(_shard(f) / "masks.npy", np.zeros((3, 8), np.float32)),
    "steps.npy missing": lambda f: (_shard(f) / "steps.npy").unlink(),
    "trajectories.jsonl cut short": lambda f: _cut(_shard(f) / "trajectories.jsonl"),
    "trajectories.jsonl not JSON": lambda f: (_shard(f) / "trajectories.jsonl").write_text("{not json\n"),
    "trajectories.jsonl empty": lambda f: (_shard(f) / "trajectories.jsonl").write_text(""),
    "a shard folder empty": lambda f: (f / "shard-00007").mkdir(),
    "a shard a device": lambda f: _device(_shard(f) / "frames.npy"),
}


def _edit(path: Path, **fields) -> None:
    path.write_text(json.dumps(json.loads(path.read_text()) | fields))


def _device(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _train_on(frames: Path, out: Path) -> list:
    return ["train", "--agent", "seq2seq", "--data", frames, "--out", out, "--max-steps", "1"]


@pytest.mark.parametrize("damage", FRAMES_DAMAGE)
def test_damaged_frames_folders_fail_in_one_line(made, tmp_path, damage):
    frames = shutil.copytree(made / "frames", tmp_path / "frames")
    FRAMES_DAMAGE[damage](frames)
    _fails_in_one_line(_train_on(frames, tmp_path / "x.pt"))
    assert not (tmp_path / "x.pt").exists()
    FIGURES["frames folders"] += 1


def _first_value(path: Path) -> object:
    """A JSON file's value, or a JSON-lines file's first."""
    text = path.read_text()
    return json.loads(text.splitlines()[0] if path.suffix == ".jsonl" else text)


def _frames_files(folder: Path) -> dict:
    return {"meta.json": folder / "meta.json", "trajectories.jsonl": _shard(folder) / "trajectories.jsonl"}


def _fuzz_frames(made, tmp_path, name, size) -> None:
    value = _first_value(_frames_files(made / "frames")[name])
    for k, (path, mutation) in enumerate(corpus(value, seed=len(name), size=size)):
        frames = shutil.copytree(made / "frames", tmp_path / f"case{k}")
        _frames_files(frames)[name].write_text(json.dumps(mutated(value, path, mutation)) + "\n")
        invoke(_train_on(frames, tmp_path / f"case{k}.pt"))
        FIGURES[f"frames {name}"] += 1


@pytest.mark.parametrize("name", ["meta.json", "trajectories.jsonl"])
def test_mutated_frames_files_get_one_line_answers(made, tmp_path, name, request):
    _fuzz_frames(made, tmp_path, name, _size(request))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["meta.json", "trajectories.jsonl"])
def test_mutated_frames_files_at_length(made, tmp_path, name, request):
    _fuzz_frames(made, tmp_path, name, _size(request))
    print(f"\nfuzz frames {name}: {FIGURES[f'frames {name}']} inputs, each answered in time without a traceback")


FRAMES_OUT = {  # where `alfred frames` may not write: a dataset, a folder of other files, a file, nowhere
    "a dataset folder": lambda m, t: shutil.copytree(m / "alfred", t / "out"),
    "a folder of notes": lambda m, t: (t / "out").mkdir() or (t / "out" / "notes.txt").write_text("mine"),
    "a file": lambda m, t: (t / "out").write_text("mine"),
    "frames of another size": lambda m, t: shutil.copytree(m / "frames", t / "out") and _edit(t / "out" / "meta.json", size=[16, 16]),
    "frames with a damaged shard": lambda m, t: shutil.copytree(m / "frames", t / "out") and _cut(_shard(t / "out") / "trajectories.jsonl"),
}  # fmt: skip


def _tree(path: Path) -> dict:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {p.relative_to(path.parent).as_posix(): p.read_bytes() for p in files}


@pytest.mark.parametrize("place", FRAMES_OUT)
def test_frames_are_never_written_over_what_is_there(made, tmp_path, place):
    FRAMES_OUT[place](made, tmp_path)
    before = _tree(tmp_path / "out")
    _fails_in_one_line(["alfred", "frames", "--episodes", made / "alfred", "--out", tmp_path / "out", "--size", "8"])
    assert _tree(tmp_path / "out") == before
    FIGURES["frames outputs"] += 1


# --- checkpoints ------------------------------------------------------------------------------------------


def _torch_saved(path: Path, value: dict) -> None:
    import torch

    torch.save(value, path)


def _reworded(path: Path, **fields) -> None:
    import torch

    _torch_saved(path, torch.load(path, weights_only=True) | fields)


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for k in random.Random(0).sample(range(len(data)), 64):
        data[k] ^= 0xFF
    path.write_bytes(bytes(data))


CHECKPOINT_DAMAGE = {
    "cut short": _cut,
    "cut by a byte": lambda p: p.write_bytes(p.read_bytes()[:-1]),
    "bits flipped": _flip,
    "empty": lambda p: p.write_bytes(b""),
    "a text file": lambda p: p.write_text("not a checkpoint\n"),
    "a zip of other things": lambda p: shutil.make_archive(str(p.with_suffix("")), "zip", p.parent / "frames")
    and Path(str(p.with_suffix("")) + ".zip").rename(p),
    "another format": lambda p: _torch_saved(p, {"format": "something-else", "version": 1}),
    "version 2": lambda p: _reworded(p, version=2),
    "no description": lambda p: _torch_saved(p, {"format": "homesim-checkpoint", "version": 1}),
    "description of another kind": lambda p: _reworded(p, describe=[1, 2]),
    "another suite's": lambda p: shutil.copy(p.parent / "handmethat.pt", p),
    "not finished": lambda p: _reworded(p, finished=False),
    "an agent no one builds": lambda p: _reworded(p, describe={"suite": "alfred", "agent": "nonesuch"}),
    "a folder": lambda p: p.unlink() or p.mkdir(),
}


@pytest.mark.parametrize("damage", CHECKPOINT_DAMAGE)
def test_damaged_checkpoints_fail_in_one_line(made, tmp_path, damage):
    shutil.copytree(made / "frames", tmp_path / "frames")
    shutil.copy(made / "handmethat.pt", tmp_path)
    checkpoint = shutil.copy(made / "alfred.pt", tmp_path / "agent.pt")
    CHECKPOINT_DAMAGE[damage](checkpoint)
    run = tmp_path / "run"
    _fails_in_one_line(["evaluate", "--episodes", made / "alfred", "--agent", checkpoint, "--out", run])
    assert not run.exists()
    if damage not in ("not finished", "a folder"):  # training on resumes an unfinished one; a folder is no file
        # training on from it: refused, and the file left as it was (it may be all the user has)
        _fails_in_one_line(_train_on(tmp_path / "frames", checkpoint), output_at=checkpoint)
    FIGURES["checkpoints"] += 1


# --- homesim play -----------------------------------------------------------------------------------------

PLAY_OPTIONS = [
    ["play", "alfred", "--episode", "-1"], ["play", "alfred", "--episode", "99"],
    ["play", "alfred", "--episode", "1" + "0" * 30], ["play", "alfred", "--split", "nope"],
    ["play", "alfred", "--alfworld-version", "9"], ["play", "alfred", "--interface", "pixels"],
    ["play", "alfred", "--episodes", "/dev/zero"], ["play", "alfred", "--episodes", "{made}/handmethat"],
    ["play", "alfred", "--episodes", "{made}/frames"], ["play", "alfred", "--episodes", "{made}/alfred/scenes"],
    ["play", "handmethat", "--episode", "-1"], ["play", "handmethat", "--episode", "99"],
    ["play", "handmethat", "--episodes", "{made}/alfred"], ["play", "handmethat", "--split", "nope"],
    ["play", "handmethat", "--episodes", "{made}/episode.json"],
    ["play", "--web", "nope", "alfred"], ["play", "--web", "alfred", "--port", "0", "alfred"],
    ["play", "--web", "alfred", "--episodes", "/dev/zero", "alfred"],
]  # fmt: skip


@pytest.mark.parametrize("args", PLAY_OPTIONS, ids=[" ".join(a) for a in PLAY_OPTIONS])
def test_play_with_bad_options_fails_in_one_line(made, args):
    _fails_in_one_line([a.format(made=made) for a in args], input="quit\n")
    FIGURES["play options"] += 1


TYPED = {
    "nothing at all": "",
    "no newline at the end": "look",
    "bytes of no text": "\x00\x01\x02\xff\xfe\n\x1b[2J\n",
    "a long line": "take " + "x" * 1_000_000 + "\n",
    "many commands": "look\n" * 2000,
    "commands of other suites": "MoveAhead\nhand me that\n/quit\n",
}


@pytest.mark.parametrize("suite", ["alfred", "handmethat"])
@pytest.mark.parametrize("typed", TYPED)
def test_play_answers_anything_typed_without_a_traceback(suite, typed):
    code, _ = invoke(["play", suite], input=TYPED[typed])
    assert code in (0, 1)
    FIGURES["play input"] += 1


# --- homesim render-episode -----------------------------------------------------------------------------------


def _render(what: Path, out: Path, *more) -> list:
    return ["render-episode", what, "--out", out, *more]


RENDER_CASES = {
    "records cut short": lambda m, t: _render(_damaged(m / "run" / "records.jsonl", t, _cut), t / "v.gif"),
    "records empty": lambda m, t: _render(_damaged(m / "run" / "records.jsonl", t, lambda p: p.write_text("")), t / "v.gif"),
    "records not JSON": lambda m, t: _render(_damaged(m / "run" / "records.jsonl", t, lambda p: p.write_text("{x\n")), t / "v.gif"),
    "record 99": lambda m, t: _render(m / "run" / "records.jsonl", t / "v.gif", "--record", "99"),
    "record of other episodes": lambda m, t: _render(m / "run" / "records.jsonl", t / "v.gif", "--episodes", m / "handmethat"),
    "out a text file": lambda m, t: _render(m / "run" / "records.jsonl", t / "v.txt"),
    "out in /proc": lambda m, t: _render(m / "run" / "records.jsonl", Path("/proc/v.gif")),
    "out a folder": lambda m, t: _render(m / "run" / "records.jsonl", t),
    "fps 0": lambda m, t: _render(m / "run" / "records.jsonl", t / "v.gif", "--fps", "0"),
    "episode cut short": lambda m, t: _render(_damaged(m / "episode.json", t, _cut), t / "v.gif", "--scene", m / "scene.json"),
    "episode without its scene": lambda m, t: _render(m / "episode.json", t / "v.gif"),
    "scene cut short": lambda m, t: _render(m / "episode.json", t / "v.gif", "--scene", _damaged(m / "scene.json", t, _cut)),
    "scene a list": lambda m, t: _render(m / "episode.json", t / "v.gif", "--scene", _damaged(m / "scene.json", t, lambda p: p.write_text("[]"))),
    "scene nested deep": lambda m, t: _render(m / "episode.json", t / "v.gif", "--scene", _damaged(m / "scene.json", t, lambda p: p.write_text("[" * 100_000))),
    "scene of another episode": lambda m, t: _render(m / "episode.json", t / "v.gif", "--scene", _damaged(m / "scene.json", t, lambda p: _edit(p, id="Elsewhere"))),
    "episode bytes of no text": lambda m, t: _render(_damaged(m / "episode.json", t, lambda p: p.write_bytes(b"\xff\xfe\x00")), t / "v.gif", "--scene", m / "scene.json"),
    "scene a device": lambda m, t: _render(m / "episode.json", t / "v.gif", "--scene", "/dev/zero"),
}  # fmt: skip


def _damaged(path: Path, tmp_path: Path, damage) -> Path:
    copy = shutil.copy(path, tmp_path / f"damaged-{path.name}")
    damage(copy)
    return copy


@pytest.mark.parametrize("case", RENDER_CASES)
def test_render_episode_with_bad_input_fails_in_one_line(made, tmp_path, case):
    args = RENDER_CASES[case](made, tmp_path)
    out = Path(args[3])
    earlier = out.suffix == ".gif" and out.parent == tmp_path
    if earlier:  # a video made before: a failed command leaves it
        out.write_bytes(b"GIF89a an earlier video")
    _fails_in_one_line(args, output_at=out if earlier else None)
    FIGURES["render-episode"] += 1


def _fuzz_rendered(made, tmp_path, name, size) -> None:
    source = {"episode": made / "episode.json", "scene": made / "scene.json", "record": made / "run" / "records.jsonl"}
    value = _first_value(source[name])
    for k, (path, mutation) in enumerate(corpus(value, seed=len(name), size=size)):
        bad = tmp_path / f"case{k}-{source[name].name}"
        bad.write_text(json.dumps(mutated(value, path, mutation)) + "\n")
        files = source | {name: bad}
        more = ["--episodes", made / "alfred"] if name == "record" else ["--scene", files["scene"]]
        what = files["record"] if name == "record" else files["episode"]
        invoke(_render(what, tmp_path / f"case{k}.gif", *more))
        FIGURES[f"render-episode {name}"] += 1


@pytest.mark.parametrize("name", ["episode", "scene", "record"])
def test_render_episode_of_mutated_files_gets_one_line_answers(made, tmp_path, name, request):
    _fuzz_rendered(made, tmp_path, name, _size(request))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["episode", "scene", "record"])
def test_render_episode_of_mutated_files_at_length(made, tmp_path, name, request):
    _fuzz_rendered(made, tmp_path, name, _size(request))
    print(f"\nfuzz render-episode {name}: {FIGURES[f'render-episode {name}']} inputs, each without a traceback")
