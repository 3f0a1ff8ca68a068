"""The challenge database's tables (SQLAlchemy 2 ORM). What a phase allows is data (EvalAI's lesson): its
dates, its limits, its leaderboard's visibility; the limits are enforced by the database itself through
`Quota` rows whose `used` may never pass `allowed` (a CHECK constraint, raised by one conditional UPDATE),
so that 40 submissions arriving at once cannot make a 31st. The hidden parts of test episodes live only in
`Episode.data`; what participants get is `Episode.public`."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

STATUSES = ("queued", "running", "finished", "failed")
VISIBILITIES = ("public", "hidden")  # hidden: only the host (and each team, its own rows) until `reveal_at`


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)  # stored naive, in UTC, the same on SQLite and PostgreSQL


class Base(DeclarativeBase):
    pass


class Challenge(Base):
    __tablename__ = "challenges"
    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    suite: Mapped[str] = mapped_column(String(32))
    description: Mapped[str] = mapped_column(Text, default="")
    dataset_digest: Mapped[str] = mapped_column(String(64))  # of the episodes, as `homesim evaluate` reads them
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    phases: Mapped[list[Phase]] = relationship(back_populates="challenge", order_by="Phase.id")


class Phase(Base):
    __tablename__ = "phases"
    __table_args__ = (UniqueConstraint("challenge_id", "slug"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id"))
    slug: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(200))
    split: Mapped[str] = mapped_column(String(64))  # the episodes it scores on
    start: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    end: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    per_day: Mapped[int | None] = mapped_column(Integer, nullable=True)  # submissions per team per UTC day
    total: Mapped[int | None] = mapped_column(Integer, nullable=True)  # per team, ever
    concurrent: Mapped[int | None] = mapped_column(Integer, nullable=True)  # per team, queued or running at once
    visibility: Mapped[str] = mapped_column(String(16), default="public")
    reveal_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    ranking: Mapped[str] = mapped_column(String(64))  # the metric that ranks the leaderboard
    options: Mapped[dict] = mapped_column(JSON, default=dict)  # the suite's evaluation settings (observability...)
    choose_one: Mapped[bool] = mapped_column(Boolean, default=False)  # a team's chosen row alone is ranked
    challenge: Mapped[Challenge] = relationship(back_populates="phases")


class Episode(Base):
    """A test episode: `data` is the whole episode (hidden: goals, plans, view points...), `public` what an
    agent may see (the suite's `public(episode)`)."""

    __tablename__ = "episodes"
    __table_args__ = (UniqueConstraint("challenge_id", "split", "position"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id"))
    split: Mapped[str] = mapped_column(String(64))
    position: Mapped[int] = mapped_column(Integer)
    episode_id: Mapped[str] = mapped_column(String(300))
    data: Mapped[dict] = mapped_column(JSON)
    public: Mapped[dict] = mapped_column(JSON)


class Scene(Base):
    __tablename__ = "scenes"
    __table_args__ = (UniqueConstraint("challenge_id", "scene_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id"))
    scene_id: Mapped[str] = mapped_column(String(200))
    data: Mapped[dict] = mapped_column(JSON)


class Team(Base):
    __tablename__ = "teams"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the token; the token is never kept
    is_host: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)


class Quota(Base):
    """Submissions a team has used of a phase's limit in one period ("total", "concurrent" or a UTC day)."""

    __tablename__ = "quotas"
    __table_args__ = (
        UniqueConstraint("phase_id", "team_id", "period"),
        CheckConstraint("used >= 0 AND used <= allowed", name="within_limit"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phases.id"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id"))
    period: Mapped[str] = mapped_column(String(16))
    used: Mapped[int] = mapped_column(Integer, default=0)
    allowed: Mapped[int] = mapped_column(Integer)


class Submission(Base):
    __tablename__ = "submissions"
    id: Mapped[int] = mapped_column(primary_key=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phases.id"))
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id"))
    method: Mapped[str] = mapped_column(String(200))
    paper_url: Mapped[str] = mapped_column(String(500), default="")
    actions: Mapped[dict] = mapped_column(JSON)  # the action file as sent, checked
    status: Mapped[str] = mapped_column(String(16), default="queued")
    reason: Mapped[str] = mapped_column(Text, default="")  # why it failed, or what was missing, for the team
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    finished: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    worker: Mapped[str] = mapped_column(String(100), default="")
    lease_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    summary: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    figures: Mapped[dict | None] = mapped_column(JSON, nullable=True)  # the leaderboard's, from the summary
    score: Mapped[float | None] = mapped_column(Float, nullable=True)  # the phase's ranking metric: ranks in SQL
    chosen: Mapped[bool] = mapped_column(Boolean, default=False)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)  # by the host
    baseline: Mapped[bool] = mapped_column(Boolean, default=False)  # entered by the host
    team: Mapped[Team] = relationship()
    phase: Mapped[Phase] = relationship()


# The leaderboard's index covers what it filters on and what it ranks by, in its order (a team's best row is the
# first of its team's run): each team's best row of 10,000 is one seek into the index, never a row read (a row
# holds its summary, whose overflow pages SQLite would walk to reach the columns after it).
Index(
    "leaderboard",
    Submission.phase_id,
    Submission.status,
    Submission.hidden,
    Submission.baseline,
    Submission.team_id,
    Submission.score.desc(),
    Submission.created,
    Submission.id,
)
