"""Each scored submission keeps its leaderboard figures (its split's figures over all episodes) and its score
(the phase's ranking metric) beside its summary, so that a leaderboard of thousands of submissions ranks in
SQL and reads small values, not whole summaries; rows scored before are filled from their summaries.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def figures_of(summary: dict | None, split: str) -> dict | None:
    """The split's figures over all its episodes: {name: {"value", "ci95"}} (counts as values)."""
    if not summary:
        return None
    found = summary.get("splits", {}).get(split, {}).get("all", {})
    return {k: v if isinstance(v, dict) else {"value": v, "ci95": None} for k, v in found.items()}


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("figures", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("score", sa.Float(), nullable=True))
        batch_op.create_index("leaderboard", ["phase_id", "status", "team_id", "score"], unique=False)
    submissions = sa.table(
        "submissions",
        sa.column("id"),
        sa.column("phase_id"),
        sa.column("summary", sa.JSON),
        sa.column("figures", sa.JSON),
        sa.column("score"),
    )
    phases = sa.table("phases", sa.column("id"), sa.column("split"), sa.column("ranking"))
    connection = op.get_bind()
    phase_of = {row.id: row for row in connection.execute(sa.select(phases.c.id, phases.c.split, phases.c.ranking))}
    scored = connection.execute(
        sa.select(submissions.c.id, submissions.c.phase_id, submissions.c.summary).where(
            submissions.c.summary.is_not(None)
        )
    )
    for row in scored.all():
        update = submissions.update().where(submissions.c.id == row.id)
        phase = phase_of[row.phase_id]
        figures = figures_of(row.summary, phase.split)
        connection.execute(update.values(figures=figures, score=(figures.get(phase.ranking) or {}).get("value")))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("leaderboard")
        batch_op.drop_column("score")
        batch_op.drop_column("figures")
