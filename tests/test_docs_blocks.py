"""Every Python and shell block of the site's pages runs (`docs_blocks` says how they are read and marked):
the quick ones here, page by page, the slow ones too under `-m slow`; a block that documents its output is
compared with what it printed (`test_a_documented_output_that_changes_shape_fails` shows that this bites)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED_DATA, require_shared
from docs_blocks import DOCS, Block, blocks, pages, shape

SRC = Path(__file__).resolve().parents[1] / "src"
PAGES = {str(page.relative_to(DOCS)): blocks(page) for page in pages()}
SAMPLES = {  # what the slow blocks read, linked into their folder
    "json_2.1.0": SHARED_DATA / "alfred" / "samples" / "json_2.1.0",
    "gen/layouts": SHARED_DATA / "alfred" / "layouts",
    "samples": SHARED_DATA / "handmethat" / "samples",
    "task-bring_me-2-0-2.json": SHARED_DATA / "handmethat" / "samples" / "task-bring_me-2-0-2.json",
}


def counts() -> dict[str, int]:
    every = [b for found in PAGES.values() for b in found]
    return {mode: sum(b.mode == mode for b in every) for mode in ("run", "slow", "skip")}


def shell_env(folder: Path) -> dict[str, str]:
    """`homesim` (and `python`) on the PATH as this tree's package, run by the interpreter running the tests."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "homesim").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m homesim "$@"\n')
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    pythonpath = os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])
    return os.environ | {"PATH": path, "PYTHONPATH": pythonpath, "COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}


def run_block(block: Block, folder: Path, namespace: dict) -> str:
    """Runs one block in `folder`; what it printed."""
    if block.language == "bash":
        done = subprocess.run(
            ["bash", "-e", "-c", block.code], cwd=folder, env=shell_env(folder), capture_output=True, text=True
        )
        assert done.returncode == 0, f"{block.name} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        return done.stdout
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block.code, block.name, "exec"), namespace)  # noqa: S102  (the page's own example)
    return printed.getvalue()


def check_output(block: Block, printed: str) -> None:
    if block.output is not None:
        expected, got = shape(block.output), shape(printed)
        runs = (got[i : i + len(expected)] for i in range(len(got) - len(expected) + 1))
        assert expected in runs, f"{block.name}: its documented output is not in what it printed:\n{printed}"


def run_page(name: str, modes: tuple[str, ...], folder: Path, monkeypatch) -> int:
    monkeypatch.chdir(folder)
    namespace: dict = {"__name__": "__docs__"}
    ran = 0
    for block in PAGES[name]:
        if block.mode in modes:
            check_output(block, run_block(block, folder, namespace))
            ran += 1
    return ran


@pytest.mark.parametrize("name", [n for n, found in PAGES.items() if any(b.mode == "run" for b in found)])
def test_a_pages_quick_blocks_run(name, tmp_path, monkeypatch):
    assert run_page(name, ("run",), tmp_path, monkeypatch) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, found in PAGES.items() if any(b.mode == "slow" for b in found)])
def test_a_pages_blocks_run_slow_ones_too(name, tmp_path, monkeypatch):
    for link, target in SAMPLES.items():
        (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / link).symlink_to(require_shared(target))
    assert run_page(name, ("run", "slow"), tmp_path, monkeypatch) > 0


def test_every_block_is_run_or_marked():
    """Every python and bash block of the pages runs, quick or slow, or says why it is skipped (as the
    reader of `docs_blocks` refuses a skip without a reason); the counts are printed (`-s`)."""
    found = counts()
    print(f"docs code blocks: {found['run']} run by default, {found['slow']} slow, {found['skip']} skipped")
    assert found["run"] >= 10 and found["run"] + found["slow"] > found["skip"] / 2
    assert any(b.output is not None for page in PAGES.values() for b in page)


def test_a_documented_output_that_changes_shape_fails(tmp_path):
    """The output check compares shapes: new figures pass, a new column or line does not."""
    block = Block(DOCS / "x.md", 1, "bash", "", "run", output="| split | episodes | SR |\n| builtin | 4 | 100.0 |\n")
    check_output(block, "a title\n| split | episodes | SR |\n| builtin | 12 | 87.5 |\n")
    with pytest.raises(AssertionError):
        check_output(block, "| split | episodes | SR | SPL |\n| builtin | 12 | 87.5 | 3.0 |\n")
    with pytest.raises(AssertionError):
        check_output(block, "| split | episodes | SR |\n| builtin | 12 | 87.5 | |\n")
    with pytest.raises(AssertionError):
        check_output(block, "| split | episodes | SR |\nwarning: nothing succeeded\n| builtin | 12 | 87.5 |\n")


def test_a_marker_without_its_block_is_refused(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- skip -->\n```bash\nhomesim demo\n```\n")
    with pytest.raises(ValueError, match="says why"):
        blocks(page)
    page.write_text("<!-- output -->\n```text\nhello\n```\n")
    with pytest.raises(ValueError, match="follows a python or bash block"):
        blocks(page)
