"""Files are written whole or not at all, output folders appear whole, and a command continues what an
interrupted run of it left (homesim.files)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from homesim.datasets.folder import read_dataset, write_dataset
from homesim.datasets.objectnav.generate import generate as generate_objectnav
from homesim.errors import DataError
from homesim.files import (
    JOURNAL,
    Journal,
    OutputError,
    check_manifest,
    check_output,
    open_output,
    parse_json,
    partial_of,
    read_json,
    write_file,
    write_manifest,
)

# --- one file ---------------------------------------------------------------------------------------------


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = write_file(tmp_path / "a.json", "old")

    def broken(_):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="disk full"):
        write_file(path, "new")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_json_nested_too_deeply_is_a_data_error_not_a_recursion_error(tmp_path):
    with pytest.raises(DataError, match="nested too deeply"):
        parse_json("[" * 100_000, "deep.json")
    with pytest.raises(DataError, match="not a regular file"):
        read_json("/dev/zero")  # read forever, were it read


# --- manifests ----------------------------------------------------------------------------------------------


def test_a_manifest_names_a_file_changed_cut_short_or_missing(tmp_path):
    write_file(tmp_path / "a.txt", "alpha")
    write_file(tmp_path / "b" / "c.txt", "gamma")
    manifest = write_manifest(tmp_path, "test")
    assert set(manifest["files"]) == {"a.txt", "b/c.txt"}
    assert check_manifest(tmp_path) == manifest
    (tmp_path / "a.txt").write_text("alphA")
    with pytest.raises(DataError, match="a.txt: .file.: its content changed"):
        check_manifest(tmp_path)
    (tmp_path / "a.txt").write_text("alp")
    with pytest.raises(DataError, match="3 bytes, but 5 when it was written"):
        check_manifest(tmp_path)
    (tmp_path / "a.txt").unlink()
    with pytest.raises(DataError, match="a.txt: .file.: missing"):
        check_manifest(tmp_path)
    assert check_manifest(tmp_path, ["b/c.txt"])  # only what a reader reads


# --- output folders -----------------------------------------------------------------------------------------


def _make(out: Path, text: str, overwrite: bool = False, kind: str = "dataset") -> None:
    output = open_output(out, kind, {"text": text}, overwrite)
    write_file(output.work / "data.txt", text)
    output.finish()


def test_an_output_appears_whole_and_is_replaced_only_when_asked(tmp_path):
    out = tmp_path / "out"
    _make(out, "first")
    assert (out / "data.txt").read_text() == "first" and not partial_of(out).exists()
    with pytest.raises(OutputError, match="holds a finished dataset: give --overwrite"):
        _make(out, "second")
    with pytest.raises(OutputError, match="holds a homesim dataset: an evaluation never goes there"):
        check_output(out, "evaluation", overwrite=True)
    output = open_output(out, "dataset", {"text": "second"}, overwrite=True)
    assert (out / "data.txt").read_text() == "first"  # kept while the new one is made
    write_file(output.work / "data.txt", "second")
    output.finish()
    assert (out / "data.txt").read_text() == "second" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_folder_of_other_files_is_never_replaced(tmp_path):
    write_file(tmp_path / "mine" / "thesis.tex", "years of work")
    with pytest.raises(OutputError, match="not a homesim output"):
        check_output(tmp_path / "mine", "dataset", overwrite=True)
    with pytest.raises(OutputError, match="is a file"):
        check_output(tmp_path / "mine" / "thesis.tex", "dataset")


def test_an_unfinished_output_is_continued_with_the_same_settings_only(tmp_path):
    out = tmp_path / "out"
    first = open_output(out, "dataset", {"seed": 1})
    write_file(first.work / "half.txt", "half")  # then killed
    again = open_output(out, "dataset", {"seed": 1})
    assert again.resumed and (again.work / "half.txt").exists()
    with pytest.raises(OutputError, match=r"unfinished dataset of other settings \(seed: 1 there, 2 now\)"):
        open_output(out, "dataset", {"seed": 2})
    fresh = open_output(out, "dataset", {"seed": 2}, overwrite=True)
    assert not fresh.resumed and not (fresh.work / "half.txt").exists()


@pytest.mark.parametrize("cut", ["after the manifest", "after moving the old one aside"])
def test_a_swap_cut_short_by_a_kill_is_completed(tmp_path, cut):
    out = tmp_path / "out"
    _make(out, "first")
    output = open_output(out, "dataset", {"text": "second"}, overwrite=True)
    write_file(output.work / "data.txt", "second")
    (output.work / "started.json").unlink()
    write_manifest(output.work, "dataset")
    if cut == "after moving the old one aside":
        os.rename(out, out.with_name("out.old"))
    check_output(out, "dataset", overwrite=True)  # the next command finds it so
    assert (out / "data.txt").read_text() == "second" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# --- journals -------------------------------------------------------------------------------------------------


def test_a_journal_keeps_finished_chunks_and_drops_one_cut_short(tmp_path):
    calls = []

    def run(chunks):
        for i, chunk in enumerate(chunks):
            calls.append(chunk)
            yield i, chunk * 10

    journal = Journal(tmp_path / JOURNAL)
    assert dict(journal.resumed([1, 2, 3], run)) == {0: 10, 1: 20, 2: 30}
    with open(tmp_path / JOURNAL, "ab") as f:
        f.write(b"\x00" * 7)  # an entry cut short by a kill
    calls.clear()
    again = Journal(tmp_path / JOURNAL)
    assert dict(again.resumed([1, 2, 3, 4], run)) == {0: 10, 1: 20, 2: 30, 3: 40} and calls == [4]


def test_generation_interrupted_and_continued_gives_the_same_episodes(tmp_path):
    whole = generate_objectnav(3, 2, seed=5)

    class Stop(Exception):
        pass

    def interrupting(items, total, description):
        for count, item in enumerate(items):
            if count == 1:
                raise Stop
            yield item

    with pytest.raises(Stop):
        generate_objectnav(3, 2, seed=5, progress=interrupting, journal=Journal(tmp_path / JOURNAL))
    assert len(Journal(tmp_path / JOURNAL).done) == 2  # each kept as it came (the second before its yield)
    kept = (tmp_path / JOURNAL).read_bytes()
    again = generate_objectnav(3, 2, seed=5, journal=Journal(tmp_path / JOURNAL))
    assert again == whole  # two houses from the journal, one made (and added to it):
    assert (tmp_path / JOURNAL).read_bytes().startswith(kept) and len(Journal(tmp_path / JOURNAL).done) == 3


# --- readers compare counts -------------------------------------------------------------------------------------


def test_a_split_file_cut_to_nothing_is_named_not_skipped(tmp_path):
    """A kill during an older homesim's write left train.jsonl.gz empty while dataset.json counted its episodes."""
    from homesim.datasets.alfred.builtin import builtin_episodes

    episodes, scenes = builtin_episodes()
    write_dataset(tmp_path, {"train": episodes[:3], "valid_seen": episodes[3:]}, scenes, {})
    (tmp_path / "train.jsonl.gz").write_bytes(b"")
    with pytest.raises(DataError, match=r"train.jsonl.gz: \(file\): holds 0 episodes, dataset.json says 3"):
        read_dataset(tmp_path)
    (tmp_path / "train.jsonl.gz").write_bytes(gzip.compress(b'{"broken'))
    with pytest.raises(DataError, match="train.jsonl.gz"):
        read_dataset(tmp_path)
    manifest = json.loads((tmp_path / "dataset.json").read_text())
    (tmp_path / "dataset.json").write_text(json.dumps(manifest | {"splits": {"train": -5}}))
    with pytest.raises(DataError, match=r"splits.train: -5 is not a count"):
        read_dataset(tmp_path)
