"""Alembic's environment for the challenge database: run through `homesim.server.db.migrate`, which hands
over its connection (`config.attributes["connection"]`)."""

from alembic import context

from homesim.server.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
