"""The leaderboard's index covers it: the columns it filters on (phase, status, hidden, baseline) and those it
ranks by within a team (score, best first, then date and id), so that each team's best row of a phase of
thousands is read from the index alone, in order.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = ["phase_id", "status", "hidden", "baseline", "team_id", sa.column("score").desc(), "created", "id"]


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("leaderboard")
        batch_op.create_index("leaderboard", COLUMNS, unique=False)


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("leaderboard")
        batch_op.create_index("leaderboard", ["phase_id", "status", "team_id", "score"], unique=False)
