"""How homesim writes files: each whole or not at all, and a command's outputs visible together, or not yet.

* `write_file(path, data)` writes a temporary file beside `path`, flushes it to disk and renames it over
  `path`: a reader sees the old file or the new one, never a part (a kill mid-write leaves the old one).
* A command's output folder (`open_output`) is made as `<out>.partial` and renamed to `<out>` when the
  command finishes, after its `manifest.json` (every file's size and SHA-256, written last). So `<out>`
  exists only whole; an interrupted command leaves `<out>.partial`, which the same command, run again,
  continues (`Output.resumed`); a finished output is replaced only when asked (`--overwrite`), and only by
  an output of its own kind, and it stays until the new one is complete; nothing is made inside another
  output, nor over files that are not homesim's. `check_manifest` is what readers call: a file changed or
  cut short since is named.
* Reading: `read_json` and `regular_file` refuse what is not a file (a device, a pipe) or is too large, and
  name the file; `validated` checks values against an input model (`homesim.datasets.formats`) and names
  the field.
* A `Journal` keeps the results of a command's finished chunks of work in its `.partial` folder, so that
  the command run again after a kill takes them instead of doing the work again (the same bytes as a run
  that was never interrupted: results are put together in their own order, not in the order they came).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import pickle
import re
import shutil
import stat
import struct
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from homesim.errors import DataError

MANIFEST = "manifest.json"  # an output folder's list of files, written last
STARTED = "started.json"  # in a `.partial` folder: the settings of the command making it
JOURNAL = ".journal"  # in a `.partial` folder: the command's finished chunks of work (`Journal`)
PARTIAL, OLD = ".partial", ".old"  # suffixes of the folder being made and of the one it replaces
MAX_JSON_BYTES = 1 << 30  # a JSON file homesim reads whole: larger is not one of its files


class OutputError(ValueError):
    """An output folder a command may not write (one line: what is there, and what to do)."""


def write_file(path: str | Path, data: bytes | str) -> Path:
    """Writes `data` to `path` whole or not at all (a temporary file beside it, renamed over it)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode() if isinstance(data, str) else data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def check_writable(path: str | Path) -> None:
    """An OutputError, in one line, unless a file can be written where `path` is to go."""
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        raise OutputError(f"cannot write in {folder}: {e.strerror or e}") from None


def write_json(path: str | Path, value: object, indent: int | None = 1) -> Path:
    """`value` as JSON (keys sorted, a final newline), written whole or not at all."""
    return write_file(path, json.dumps(value, indent=indent, sort_keys=True) + "\n")


def gzipped(data: bytes) -> bytes:
    """`data` gzip-compressed without a timestamp: the same data, the same bytes."""
    return gzip.compress(data, mtime=0)


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path with `path`'s suffix (for writers that choose a format by it, such as a video's),
    renamed over `path` when the block ends without an error, removed otherwise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        temporary.touch()  # a folder that cannot take it fails now, not in a writer's close (and again as it is collected)
        yield temporary
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def regular_file(path: str | Path, limit: int | None = None) -> Path:
    """`path` if it is a regular file (not a device, a pipe, a socket: `/dev/zero` would be read forever) of
    at most `limit` bytes; a DataError otherwise."""
    path = Path(path)
    try:
        facts = path.stat()
    except OSError as e:
        raise DataError(str(path), "(file)", f"unreadable: {e.strerror or e}") from e
    if not stat.S_ISREG(facts.st_mode):
        raise DataError(str(path), "(file)", "not a regular file (a device, a pipe or a socket)")
    if limit is not None and facts.st_size > limit:
        raise DataError(str(path), "(file)", f"{facts.st_size:,} bytes: more than the {limit:,} such a file may have")
    return path


def parse_json(text: str | bytes, where: str) -> object:
    """JSON text as values, or a DataError naming `where` (nesting too deep included: Python's parser
    recurses, and a file of 100,000 brackets would otherwise end in a RecursionError)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise DataError(where, "(file)", "not valid JSON: nested too deeply") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DataError(where, "(file)", f"not valid JSON: {e}") from None


def read_json(path: str | Path, limit: int = MAX_JSON_BYTES) -> object:
    """A JSON file's value (a regular file of at most `limit` bytes), or a DataError naming the file."""
    path = regular_file(path, limit)
    try:
        text = path.read_bytes()
    except OSError as e:
        raise DataError(str(path), "(file)", f"unreadable: {e.strerror or e}") from e
    return parse_json(text, str(path))


def _first_problem(error: ValidationError) -> tuple[str, str]:
    """The field and the problem of a validation error's first complaint (a check of a whole model names
    the field within it first: "objects.3.parent: ...")."""
    first = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"])
    problem = first["msg"].removeprefix("Value error, ")
    head, _, rest = problem.partition(": ")
    if first["type"] == "value_error" and rest and re.fullmatch(r"[\w.#-]+", head):
        field, problem = ".".join(filter(None, (field, head))), rest
    return field or "(record)", problem


@functools.cache
def _adapter(schema: type) -> TypeAdapter:
    return TypeAdapter(schema)


def validated(schema: type, data: object, where: str) -> object:
    """`data` checked against `schema` (a pydantic model, or a type pydantic checks, such as a dataclass)
    and made into it, or a DataError naming `where` and the field."""
    try:
        if hasattr(schema, "model_validate"):
            return schema.model_validate(data)
        return _adapter(schema).validate_python(data)
    except ValidationError as e:
        field, problem = _first_problem(e)
        raise DataError(where, field, problem) from None


# --- manifests --------------------------------------------------------------------------------------------


def digest_of(path: str | Path) -> str:
    """A file's SHA-256, as `sha256:<hex>`."""
    with open(path, "rb") as f:
        return "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()


def _listed(folder: Path) -> list[str]:
    """The files a manifest lists: all but itself and the scratch files of the command making the folder
    (`started.json`, and names starting with a dot, such as a journal)."""
    names = (p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    return sorted(n for n in names if n not in (MANIFEST, STARTED) and not n.startswith("."))


def write_manifest(folder: str | Path, kind: str) -> dict:
    """Writes `folder/manifest.json`: what the folder is (`kind`) and each of its files' size and digest."""
    folder = Path(folder)
    files = {n: {"bytes": (folder / n).stat().st_size, "sha256": digest_of(folder / n)} for n in _listed(folder)}
    manifest = {"kind": kind, "files": files}
    write_json(folder / MANIFEST, manifest)
    return manifest


def read_manifest_of(folder: str | Path) -> dict | None:
    """A folder's manifest (None if it has none: a folder from before homesim wrote them), checked as JSON."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    manifest = read_json(path)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not isinstance(manifest.get("kind"), str):
        raise DataError(str(path), "files", "not a homesim manifest (a kind and a files object)")
    for name, entry in files.items():
        if not (
            isinstance(entry, dict) and isinstance(entry.get("bytes"), int) and isinstance(entry.get("sha256"), str)
        ):
            raise DataError(str(path), f"files.{name}", "expected bytes and sha256")
    return manifest


def check_manifest(folder: str | Path, names: Sequence[str] | None = None) -> dict | None:
    """The folder's manifest, with each file it lists (or only `names`) checked against the file as it is:
    a DataError names a file missing, cut short, grown or changed since the folder was made."""
    folder = Path(folder)
    manifest = read_manifest_of(folder)
    if manifest is None:
        return None
    for name in manifest["files"] if names is None else names:
        entry, path = manifest["files"].get(name), folder / name
        if entry is None:
            continue
        if not path.is_file():
            raise DataError(str(path), "(file)", f"missing: {folder / MANIFEST} lists it")
        size = path.stat().st_size
        if size != entry["bytes"]:
            raise DataError(
                str(path), "(file)", f"{size:,} bytes, but {entry['bytes']:,} when it was written: changed since"
            )
        if digest_of(path) != entry["sha256"]:
            raise DataError(str(path), "(file)", "its content changed since it was written (its SHA-256 differs)")
    return manifest


def _marked(folder: Path) -> str | None:
    """What homesim output a folder is, by its marker file alone (a folder above an --out: nothing is read,
    so a `manifest.json` of another program is no error)."""
    for marker, kind in (("dataset.json", "dataset"), ("run.json", "evaluation")):
        if (folder / marker).is_file():
            return kind
    return None


def kind_of_folder(folder: Path) -> str | None:
    """What homesim output a folder holds, by its manifest (or, for folders from before manifests, by the
    file that marks them: `dataset.json`, a dataset; `run.json`, an evaluation); None if it holds none."""
    manifest = read_manifest_of(folder)
    return manifest["kind"] if manifest is not None else _marked(folder)


# --- output folders ---------------------------------------------------------------------------------------


def partial_of(out: str | Path) -> Path:
    """Where an output folder is made (and where an interrupted command left it)."""
    out = Path(out)
    return out.with_name(out.name + PARTIAL)


@dataclass(frozen=True)
class Output:
    """An output folder being made: `work` (`<final>.partial`), renamed to `final` by `finish()`.
    `resumed`: `work` held an unfinished output of the same settings, which the command continues."""

    final: Path
    work: Path
    kind: str
    resumed: bool

    def finish(self) -> dict:
        """Writes the manifest last, then puts the folder in place (the one it replaces goes after it)."""
        (self.work / STARTED).unlink(missing_ok=True)
        for scratch in self.work.glob(".*"):
            scratch.unlink()
        manifest = write_manifest(self.work, self.kind)
        _swap(self.work, self.final)
        return manifest


def _swap(work: Path, final: Path) -> None:
    """`work` renamed to `final`; a `final` with files is moved aside first and removed after."""
    old = final.with_name(final.name + OLD)
    if final.exists() and any(final.iterdir()):
        shutil.rmtree(old, ignore_errors=True)
        os.rename(final, old)
    elif final.exists():
        final.rmdir()
    os.rename(work, final)
    shutil.rmtree(old, ignore_errors=True)


def _recover(out: Path) -> None:
    """Completes a swap that a kill cut short (the new folder was finished: its manifest is written), or
    puts back the folder it was replacing."""
    old, work = out.with_name(out.name + OLD), partial_of(out)
    if work.is_dir() and (work / MANIFEST).is_file() and not (work / STARTED).exists():
        _swap(work, out)
    elif old.exists() and not out.exists():
        os.rename(old, out)
    shutil.rmtree(old, ignore_errors=True)


def _first_difference(before: dict, now: dict) -> str:
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            return f"{key}: {before.get(key)!r} there, {now.get(key)!r} now"
    return "none"


def check_output(out: str | Path, kind: str, overwrite: bool = False) -> Path:
    """`out`, if a command may make its `kind` of output there (see `open_output`); an OutputError if not.
    Commands ask first, before their work, so that a refusal comes at once."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} is a file: give a folder as --out")
    inside = next((p for p in out.resolve().parents if _marked(p)), None)
    if inside is not None:
        raise OutputError(f"{out} is inside {inside}, a homesim {_marked(inside)}: give another --out")
    _recover(out)
    if out.is_dir() and any(out.iterdir()):
        found = kind_of_folder(out)
        if found is None:
            raise OutputError(f"{out} holds files that are not a homesim output: give another --out (or empty it)")
        if found != kind:
            article = "an" if kind[0] in "aeiou" else "a"
            raise OutputError(f"{out} holds a homesim {found}: {article} {kind} never goes there; give another --out")
        if not overwrite:
            raise OutputError(
                f"{out} holds a finished {kind}: give --overwrite to replace it (it stays until the new one is"
                " complete), or another --out"
            )
    return out


def open_output(out: str | Path, kind: str, settings: dict, overwrite: bool = False) -> Output:
    """The folder a command writes its `kind` of output into, made with `settings` (JSON values): a fresh
    `<out>.partial`, or the one an interrupted run of the same settings left (resumed). An OutputError if
    `out` holds a finished output and `overwrite` is not given, holds another kind of output or files
    that are not homesim's, or if `<out>.partial` holds an unfinished output of other settings (which
    `overwrite` discards)."""
    out = check_output(out, kind, overwrite)
    work = partial_of(out)
    if work.exists() and not work.is_dir():
        raise OutputError(f"{work} is a file: move it away (homesim makes {out} there)")
    started = work / STARTED
    if work.is_dir() and any(work.iterdir()):
        try:
            before = read_json(started) if started.is_file() else None
        except DataError:
            before = None
        if before == json.loads(json.dumps(settings)):
            return Output(out, work, kind, resumed=True)
        if not overwrite:
            what = f" of other settings ({_first_difference(before, settings)})" if isinstance(before, dict) else ""
            raise OutputError(
                f"{work} holds an unfinished {kind}{what}: run its command again to finish it, or give"
                " --overwrite to start over"
            )
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    write_json(started, settings)
    return Output(out, work, kind, resumed=False)


# --- journals of finished work ----------------------------------------------------------------------------

_HEADER = struct.Struct(">32sQ")  # a chunk's key (SHA-256 of the pickled chunk), the result's pickled length


def chunk_key(chunk: object) -> bytes:
    return hashlib.sha256(pickle.dumps(chunk, protocol=5)).digest()


class Journal:
    """Results of finished chunks of work, appended to a file as they come, by the chunk's content. Read
    back, an entry cut short by a kill is dropped (its chunk is done again). The file is the command's own
    (inside its `.partial` folder): its entries are pickles, so it is never read from anywhere else."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.done: dict[bytes, object] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        data = self.path.read_bytes()
        at = 0
        while at + _HEADER.size <= len(data):
            key, length = _HEADER.unpack_from(data, at)
            end = at + _HEADER.size + length
            if end > len(data):
                break
            try:
                self.done[key] = pickle.loads(data[at + _HEADER.size : end])
            except Exception:  # a damaged entry: its chunk is done again
                break
            at = end
        if at < len(data):
            with open(self.path, "r+b") as f:
                f.truncate(at)

    def add(self, key: bytes, result: object) -> None:
        payload = pickle.dumps(result, protocol=5)
        with open(self.path, "ab") as f:
            f.write(_HEADER.pack(key, len(payload)) + payload)
        self.done[key] = result

    def resumed(
        self,
        chunks: Sequence,
        run: Callable[[list], Iterator[tuple[int, object]]],
        keep: Callable[[object], bool] = lambda result: True,
    ) -> Iterator[tuple[int, object]]:
        """(index, result) for every chunk: those done before first, then `run(the others)`'s (indices into
        the list it was given), each kept as it comes if `keep(result)`."""
        keys = [chunk_key(c) for c in chunks]
        todo = [i for i, k in enumerate(keys) if k not in self.done]
        for i, k in enumerate(keys):
            if k in self.done:
                yield i, self.done[k]
        if not todo:
            return
        for j, result in run([chunks[i] for i in todo]):
            if keep(result):
                self.add(keys[todo[j]], result)
            yield todo[j], result


def journaled(
    journal: Journal | None,
    chunks: Sequence,
    run: Callable[[list], Iterator[tuple[int, object]]],
    keep: Callable[[object], bool] = lambda result: True,
) -> Iterator[tuple[int, object]]:
    """`run(chunks)`, through `journal` when there is one."""
    return run(list(chunks)) if journal is None else journal.resumed(chunks, run, keep)
