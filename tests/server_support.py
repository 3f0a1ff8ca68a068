"""Databases for the challenge server's tests: SQLite in a temporary folder, and a real PostgreSQL server
(Debian's `postgresql` package) started for the test session in a temporary folder, on a free loopback port.
Where PostgreSQL is not installed the PostgreSQL cases skip with the reason, except in CI
(`HOMESIM_REQUIRE_SHARED_DATA=1` or `CI`), where they fail: CI must test what a deployment runs."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

REQUIRED = bool(os.environ.get("CI") or os.environ.get("HOMESIM_REQUIRE_SHARED_DATA"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_postgres(*command: str) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)


class PostgresServer:
    """A throwaway PostgreSQL cluster; `url(name)` makes a fresh database on it."""

    def __init__(self) -> None:
        binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not binaries:
            raise FileNotFoundError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
        self.bin = Path(binaries[-1]).parent
        self.folder = Path(tempfile.mkdtemp(prefix="homesim-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        self.port = _free_port()
        data = self.folder / "data"
        subprocess.run(_as_postgres(str(self.bin / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"),
                       check=True, capture_output=True)  # fmt: skip
        options = f"-k {self.folder} -p {self.port} -h 127.0.0.1 -c fsync=off"
        start = [str(self.bin / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"]
        subprocess.run(_as_postgres(*start), check=True, capture_output=True)
        self.count = 0

    def url(self) -> str:
        import psycopg

        self.count += 1
        name = f"homesim_{self.count}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        stop = [str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop"]
        subprocess.run(_as_postgres(*stop), capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    try:
        server = PostgresServer()
    except (FileNotFoundError, subprocess.CalledProcessError, ImportError) as e:
        if REQUIRED:
            pytest.fail(f"PostgreSQL is needed in CI and could not start: {e}")
        pytest.skip(f"PostgreSQL could not start here: {e}")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """The same tests on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'server.db'}"
    return request.getfixturevalue("postgres").url()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (no browser can be downloaded here)."""
    if CHROMIUM is None:
        if REQUIRED:
            pytest.fail("Chromium is needed in CI for the browser tests (apt-get install chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def nav_challenge(url: str, count: int) -> tuple:
    """A database at `url` holding the ObjectNav challenge "nav" on the first `count` built-in episodes, and a
    team: (its sessions, the splits, the scenes, the team's token)."""
    from homesim.datasets.objectnav.builtin import builtin_objectnav
    from homesim.evaluation.suites import SUITES
    from homesim.server.challenges import add_team, create_challenge
    from homesim.server.db import connect, migrate, sessions

    engine = connect(url)
    migrate(engine)
    made = sessions(engine)
    episodes, scenes = builtin_objectnav()
    splits = {"test": episodes[:count]}
    with made.begin() as session:
        create_challenge(session, "nav", "nav", SUITES["objectnav"], splits, scenes)
        token = add_team(session, "remote team")
    return made, splits, scenes, token
