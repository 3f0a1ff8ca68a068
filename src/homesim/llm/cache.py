"""The answers a model gave, kept in SQLite by request (`endpoint.request_key`, a digest of it), so that a rerun, or a run
resumed after a kill, asks nothing twice and writes the same records. One cache holds one model's answers: it
says so in its `meta` table, and a run of another model is refused in one line rather than mixed in. Worker
processes share the file (WAL journal; a writer waits for another)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from homesim.errors import DataError
from homesim.llm.endpoint import Answer

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL);
"""


class AnswerCache:
    """Answers by request, for `model`; opened in the process that uses it."""

    def __init__(self, path: str | Path, model: str) -> None:
        self.path, self.model = Path(path), model
        self._db: sqlite3.Connection | None = None
        self._keys: set[str] = set()  # the keys held when opened, and those put since: a miss costs no query

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.executescript(SCHEMA)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('model', ?)", (self.model,))
                (held,) = db.execute("SELECT value FROM meta WHERE name = 'model'").fetchone()
            except sqlite3.DatabaseError as e:
                raise DataError(str(self.path), "(file)", f"not an answer cache ({e})") from None
            if held != self.model:
                db.close()
                raise DataError(
                    str(self.path),
                    "meta.model",
                    f"holds answers of model {held!r}, not {self.model!r}: give another cache",
                )
            self._db = db
            self._keys = {key for (key,) in db.execute("SELECT key FROM answers")}
        return self._db

    def get(self, key: str) -> Answer | None:
        """The answer to the request of this key (`endpoint.request_key`), if it was asked before (in this run,
        or before it started: another worker's answer of this run may be asked again, never answered wrong)."""
        db = self.db
        if key not in self._keys:
            return None
        row = db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        return None if row is None else Answer.from_dict(json.loads(row[0]))

    def put(self, key: str, answer: Answer) -> None:
        self.db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?)", (key, json.dumps(answer.to_dict())))
        self._keys.add(key)

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
