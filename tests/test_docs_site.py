"""The documentation site builds with warnings as errors (a broken link or anchor, a page missing from the
navigation, a module mkdocstrings cannot read), and its reference pages cover what the code has: a page per
registered env with one episode of the expert (a GIF and a map, or a text game's transcript), every command's
help, every suite's measures with what they read. `-m slow` also opens its pages in Chromium (screenshots of
them go to HOMESIM_SCREENSHOTS when set: docs/screenshots holds them)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import gymnasium
import pytest
import typer

import homesim.envs  # noqa: F401  (registers the envs)
from page_support import shot
from homesim.cli import app
from homesim.evaluation.suites import SUITES

ROOT = Path(__file__).resolve().parents[1]
pytest_plugins = ["server_support"]


def build(out: Path, pictures: bool) -> str:
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "HOMESIM_DOCS_PICTURES": "on" if pictures else "off",
        "NO_MKDOCS_2_WARNING": "1",  # the theme's notice about a future MkDocs, printed on every build
        "DISABLE_MKDOCS_2_WARNING": "true",
    }
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stderr


def env_page(site: Path, env_id: str) -> Path:
    return site / "reference" / "envs" / env_id.replace("/", "-") / "index.html"


def check_reference(site: Path) -> None:
    for env_id in (i for i in gymnasium.registry if i.startswith("homesim/")):
        page = env_page(site, env_id).read_text()
        assert env_id in page and "Spaces" in page and "Options" in page and "Limits" in page
    cli = (site / "reference" / "cli" / "index.html").read_text()
    for name in typer.main.get_command(app).list_commands(None):
        assert f"homesim {name}" in cli
    suites = (site / "reference" / "suites" / "index.html").read_text()
    for suite in SUITES.values():
        assert f'id="{suite.name}"' in suites
        for name, reads in suite.metrics.reads.items():
            assert name in suites and all(r in suites for r in reads)
    assert (site / "reference" / "api" / "homesim.evaluation.suite" / "index.html").exists()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    build(out, pictures=True)
    return out


def test_the_site_builds_with_warnings_as_errors_and_shows_each_envs_episode(site):
    check_reference(site)
    assert (site / "index.html").exists() and (site / "suites" / "alfred" / "index.html").exists()
    for env_id in (i for i in gymnasium.registry if i.startswith("homesim/")):
        page = env_page(site, env_id).read_text()
        stem = env_id.replace("/", "-")
        pictures = [p for p in (site / "reference" / "envs").glob(f"{stem}*") if p.suffix in (".gif", ".png")]
        transcript = page.count("<pre>") >= 2  # a text game's transcript beside the snippet that makes the env
        assert pictures or transcript, f"{env_id}: neither pictures nor a transcript"
        assert all(p.stat().st_size < 400_000 for p in pictures), "pictures are kept small"


def test_every_written_page_is_in_the_navigation():
    """Generated pages are reached from their index pages; every page written by hand is in mkdocs.yml's nav."""
    nav = (ROOT / "mkdocs.yml").read_text()
    written = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    assert written and [page for page in written if f": {page}" not in nav and f"- {page}" not in nav] == []


def test_the_readmes_links_into_the_site_lead_somewhere():
    links = re.findall(r"\]\((docs/[^)#]+)", (ROOT / "README.md").read_text())
    assert links and [link for link in links if not (ROOT / link).is_file()] == []


@pytest.mark.slow
def test_the_built_pages_in_chromium(site, browser):
    pages_in_chromium(site, browser)


def pages_in_chromium(site: Path, browser) -> None:
    """The home page, a suite's page and an env's page, served from the built site: each shows its title, the
    env's its episode (screenshots of them in HOMESIM_SCREENSHOTS, when set)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{server.server_address[1]}/"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        for path, name, title in (
            ("", "docs-home", "homesim"),
            ("suites/objectnav/", "docs-suite", "ObjectNav"),
            ("reference/envs/homesim-ObjectNav-v0/", "docs-env", "homesim/ObjectNav-v0"),
        ):
            page.goto(address + path)
            page.wait_for_load_state("networkidle")
            assert title in page.locator("h1").first.inner_text()
            shot(page, name)
        page.goto(address + "reference/envs/homesim-ObjectNav-v0/")
        assert page.locator("img[src$='.gif']").evaluate("image => image.naturalWidth") > 0
    finally:
        page.close()
        server.shutdown()
