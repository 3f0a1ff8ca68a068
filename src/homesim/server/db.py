"""The challenge database: an engine for a URL (SQLite by default: a file, no server; PostgreSQL for a
deployment, `postgresql+psycopg://...`), its schema brought to the newest Alembic migration, and sessions."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

DEFAULT_URL = "sqlite:///homesim-server.db"
MIGRATIONS = Path(__file__).parent / "migrations"


def _sqlite_settings(connection, _record) -> None:
    """WAL lets pages read while a worker writes; the busy timeout makes writers queue, not fail."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def connect(url: str = DEFAULT_URL) -> Engine:
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_settings)
    return engine


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Brings the schema to `revision` (the newest by default), from empty or from an older one."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def sessions(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
