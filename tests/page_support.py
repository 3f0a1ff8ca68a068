"""Serving homesim's pages in a test: a served command's address, stopping it, and screenshots of the pages
(saved in the folder HOMESIM_SCREENSHOTS names, when it is set: docs/screenshots holds the README's)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

SHOTS = os.environ.get("HOMESIM_SCREENSHOTS")


def served(*args: str) -> tuple[subprocess.Popen, str]:
    """A homesim command that serves pages, and the address it printed (within 120 s)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "homesim", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if found:
            return process, found.group(0)
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"no address printed by homesim {' '.join(args)}: {process.stdout.read()}")


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def shot(page, name: str) -> None:
    """The page as far as the window shows it, as a small PNG (256 colours) in the HOMESIM_SCREENSHOTS folder."""
    if SHOTS:
        from PIL import Image

        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, f"{name}.png")
        page.screenshot(path=path)
        Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)
