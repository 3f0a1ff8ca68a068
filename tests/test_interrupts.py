"""Commands interrupted (SIGINT, as Ctrl-C sends, or SIGKILL) at chosen and at random moments: nothing
finished is lost or damaged, a rerun continues to the bytes of an uninterrupted run, and worker processes
end with their parent. A few trials in the default run; many under `slow` (the figures are printed)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from homesim.agents.random_agent import RandomAgent
from homesim.files import check_output

SRC = str(Path(__file__).resolve().parents[1] / "src")
SLOW_TRIALS = 40  # interrupts at random moments under `-m slow` (two chosen ones in the default run)


def _environment() -> dict:
    tests = str(Path(__file__).parent)  # (agents defined here, such as SlowAgent)
    return os.environ | {
        "PYTHONPATH": os.pathsep.join([SRC, tests, os.environ.get("PYTHONPATH", "")]),
        "COLUMNS": "200",
    }


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


WORKERS_SCRIPT = """
import os, sys, time
from homesim.parallel import Workers, run_chunks

def setup():
    return None

def work(_, chunk):
    with open(os.path.join(sys.argv[1], str(os.getpid())), "w"):
        pass
    time.sleep(600)

for _ in run_chunks(setup, (), work, [1, 2], Workers(2)):
    pass
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_worker_processes_end_when_their_parent_is_killed(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", WORKERS_SCRIPT, str(tmp_path)], env=_environment())
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [int(p.name) for p in tmp_path.iterdir()]
        assert len(workers) == 2 and all(map(_alive, workers))
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # (not left behind by this test either)
        os.kill(pid, signal.SIGKILL)
    assert not left, "worker processes outlived their killed parent"


# --- evaluate and generate interrupted, then run again ------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def episodes(tmp_path_factory) -> Path:
    from homesim.datasets.folder import write_dataset
    from homesim.datasets.objectnav.generate import generate

    splits, scenes, _ = generate(3, 4, seed=1)
    folder = tmp_path_factory.mktemp("objectnav") / "data"
    write_dataset(folder, splits, scenes, {}, suite="objectnav")
    return folder


def _command(kind: str, out: Path, episodes: Path, seed: int = 0, workers: int = 1) -> list[str]:
    common = ["--out", str(out), "--seed", str(seed), "--workers", str(workers)]
    if kind == "evaluate":
        return ["evaluate", "--episodes", str(episodes), "--agent", "random", *common]
    return ["generate", "handmethat", "--episodes", "24", *common]


def _homesim(args: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "homesim", *args], env=_environment(), capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


@pytest.fixture(scope="module")
def references(episodes, tmp_path_factory) -> dict:
    """Each command's output when nothing interrupts it, and an older finished one to be overwritten."""
    root, made = tmp_path_factory.mktemp("references"), {}
    for kind in ("evaluate", "generate"):
        for seed in (0, 1):
            started = time.monotonic()
            done = _homesim(_command(kind, root / f"{kind}-{seed}", episodes, seed))
            assert done.returncode == 0, done.stderr
            made[kind, seed], made[kind, "seconds"] = root / f"{kind}-{seed}", time.monotonic() - started
    return made


TRIAL_FIGURES: Counter = Counter()


def _trial(kind, how, moment, workers, overwrite, episodes, references, tmp_path) -> None:
    """Runs the command, interrupts it (`how`: SIGINT or SIGKILL) at `moment` (seconds, or "first record"),
    checks that the output's name holds the old output (or nothing) or the whole new one, never a mix, runs
    it again where the new one is not in place, and checks the bytes."""
    out, reference = tmp_path / "out", _files(references[kind, 0])
    old = None
    if overwrite:  # a finished output of other settings, which the interrupted run was replacing
        shutil.copytree(references[kind, 1], out)
        old = _files(out)
    args = _command(kind, out, episodes, workers=workers) + ["--overwrite"] * overwrite
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "homesim", *args], env=_environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    records = Path(f"{out}.partial") / "records.jsonl"
    while process.poll() is None:
        if moment == "first record" and records.is_file() and records.stat().st_size:
            break
        if moment != "first record" and time.monotonic() - started >= moment:
            break
        time.sleep(0.01)
    process.send_signal(how)
    stdout, stderr = process.communicate(timeout=120)
    assert "Traceback" not in stdout + stderr, stdout + stderr
    finished = process.returncode == 0
    if how == signal.SIGINT and process.returncode == 130:  # (what was kept and how to go on, if anything was)
        assert "interrupted" in stdout + stderr
    if not out.exists() and Path(f"{out}.old").exists():  # killed between a swap's two renames: the next
        check_output(out, "evaluation" if kind == "evaluate" else "dataset", overwrite=True)  # command completes it
    after = _files(out) if out.exists() else None
    assert after in (old, reference), "an interrupted command left a damaged or unfinished output under its name"
    if after != reference:  # the signal came before the new output was put in place: run it again
        again = _homesim(args)
        assert again.returncode == 0, again.stdout + again.stderr
        assert _files(out) == reference, "the run continued after an interrupt differs from an uninterrupted one"
    outcome = "finished before" if finished else "interrupted, then continued" if after != reference else "in place"
    TRIAL_FIGURES[kind, signal.Signals(how).name, outcome] += 1


CHOSEN = [  # (command, signal, moment, workers, overwrite)
    ("evaluate", signal.SIGINT, "first record", 1, True),
    ("generate", signal.SIGKILL, 2.5, 2, False),
]


@pytest.mark.parametrize("kind, how, moment, workers, overwrite", CHOSEN, ids=["evaluate-SIGINT", "generate-SIGKILL"])
def test_an_interrupted_command_loses_nothing_and_continues_to_the_same_bytes(
    episodes, references, tmp_path, kind, how, moment, workers, overwrite
):
    _trial(kind, how, moment, workers, overwrite, episodes, references, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(SLOW_TRIALS))
def test_interrupts_at_random_moments(episodes, references, tmp_path, trial):
    rng = random.Random(trial)
    kind = rng.choice(["evaluate", "generate"])
    how = rng.choice([signal.SIGINT, signal.SIGKILL])
    moment = rng.uniform(0.3, 1.1) * references[kind, "seconds"]  # (some after the run finished)
    _trial(kind, how, moment, rng.choice([1, 2]), rng.random() < 0.5, episodes, references, tmp_path)
    print(f"\ninterrupt trials: {dict(TRIAL_FIGURES)}")


def test_a_ray_address_where_something_else_listens_is_given_up_on(tmp_path):
    """Issue 33, item 6: Ray, given an address where no cluster answers, retried for ever and ignored SIGTERM."""
    import socket

    pytest.importorskip("ray")
    with socket.create_server(("127.0.0.1", 0)) as server:  # listens, and never answers
        address = f"127.0.0.1:{server.getsockname()[1]}"
        args = ["evaluate", "--backend", "ray", "--ray-address", address, "--out", str(tmp_path / "o")]
        environment = _environment() | {"HOMESIM_RAY_ANSWER": "3"}
        done = subprocess.run([sys.executable, "-m", "homesim", *args], env=environment, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1 and f"no Ray cluster answered at {address} within 3" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("moment", [0.2, 0.5, 0.8, 1.1])  # (its modules take about a second to load)
def test_ctrl_c_while_homesim_starts_is_no_traceback(tmp_path, moment):
    process = subprocess.Popen([sys.executable, "-m", "homesim", "evaluate", "--out", str(tmp_path / "o")],
                               env=_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(moment)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode in (0, 130, -signal.SIGINT) and "Traceback" not in stdout + stderr, stderr  # (0: done)


# --- Ray: the processes of a local instance end with the driver ----------------------------------------------


class SlowAgent(RandomAgent):
    """A random agent that takes a second per episode where HOMESIM_TEST_SLOW is set, so that a run on Ray is
    killed while its workers work (named `test_interrupts:SlowAgent` on the command line: the workers import it
    from here); elsewhere the random agent, so that the run's repeats take no longer than they must."""

    def reset(self, task):
        time.sleep(float(os.environ.get("HOMESIM_TEST_SLOW", 0)))
        super().reset(task)


def _marked(mark: str) -> dict[int, str]:
    """The live processes whose environment holds `mark` (a Ray instance's processes inherit the driver's), by
    pid, with what each runs."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _alive(int(entry.name)):
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
            except OSError:  # ended meanwhile, or not ours to read
                pass
    return found


def _gone_within(mark: str, since: float, seconds: float, which=lambda command: True) -> tuple[float, dict]:
    """Waits until `seconds` after `since` (a monotonic time) for the marked processes that `which` picks to
    end: when they had (seconds after `since`), and those left."""
    while True:
        left = {pid: command for pid, command in _marked(mark).items() if which(command)}
        if not left or time.monotonic() - since > seconds:
            return time.monotonic() - since, left
        time.sleep(0.2)


RAY_WORKERS_END = 20  # seconds the worker processes, the raylet and the GCS may outlive a killed driver
RAY_ALL_END = 90  # every process of the instance: Ray's agents report the raylet's death to the GCS, up to 60 s


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("everything", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["workers", "all"])
def test_ray_processes_end_with_a_killed_driver_and_the_run_goes_on(tmp_path, everything):
    """Issue 33, item 3 on Ray (`evaluate --backend ray`, a local instance): the driver SIGKILLed while its
    workers run chunks; the worker processes, raylet and GCS end within RAY_WORKERS_END seconds (and, under
    slow, Ray's dashboard and runtime-env agents within RAY_ALL_END), and the run's folder, run again (here on
    this machine, without Ray), ends in the bytes of a run never interrupted."""
    pytest.importorskip("ray")
    from homesim.datasets.alfred.builtin import builtin_episodes
    from homesim.datasets.folder import write_dataset

    episodes, scenes = builtin_episodes(count=12)
    write_dataset(tmp_path / "data", {"builtin": episodes}, scenes, {})
    mark = f"HOMESIM_TEST_RAY_RUN={tmp_path.name}-{os.getpid()}"
    environment = _environment() | dict([mark.split("=")]) | {"HOMESIM_TEST_SLOW": "1"}
    run = ["evaluate", "--episodes", str(tmp_path / "data"), "--agent", f"{__name__}:SlowAgent"]
    out = tmp_path / "out"
    driver = subprocess.Popen([sys.executable, "-m", "homesim", *run, "--backend", "ray", "--workers", "2",
                               "--out", str(out)], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    records = Path(f"{out}.partial") / "records.jsonl"
    try:
        deadline = time.monotonic() + 300
        while driver.poll() is None and not (records.is_file() and records.stat().st_size):
            assert time.monotonic() < deadline, "no record within 300 s"
            time.sleep(0.05)
        assert driver.poll() is None, driver.stderr.read().decode()[-2000:]
        assert any(command.startswith("ray::_ray_task") for command in _marked(mark).values()), _marked(mark)
    finally:
        driver.kill()
        killed = time.monotonic()
        driver.wait()
    try:
        waited, left = _gone_within(mark, killed, RAY_WORKERS_END, lambda command: "Agent" not in command)
        assert not left, f"Ray processes outlived their killed driver by {RAY_WORKERS_END} s: {left}"
        print(f"\nthe Ray workers, raylet and GCS ended within {waited:.1f} s of their driver's kill")
        if everything:
            waited, left = _gone_within(mark, killed, RAY_ALL_END)
            assert not left, f"Ray processes outlived their killed driver by {RAY_ALL_END} s: {left}"
            print(f"every process of the Ray instance ended within {waited:.1f} s of their driver's kill")
    finally:
        for pid in _marked(mark):  # nothing left behind by this test either
            os.kill(pid, signal.SIGKILL)
    again = _homesim([*run, "--out", str(out)])
    assert again.returncode == 0, again.stdout + again.stderr
    assert _homesim([*run, "--out", str(tmp_path / "reference")]).returncode == 0
    assert _files(out) == _files(tmp_path / "reference")
