"""Commands interrupted (SIGINT, as Ctrl-C sends, or SIGKILL) at chosen and at random moments: nothing
finished is lost or damaged, a rerun continues to the bytes of an uninterrupted run, and worker processes
end with their parent. A few trials in the default run; many under `slow` (the figures are printed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")
TRIALS, SLOW_TRIALS = 2, 12  # interrupts per command (default run, `-m slow`)


def _environment() -> dict:
    return os.environ | {"PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]), "COLUMNS": "200"}


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
