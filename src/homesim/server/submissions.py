"""Submissions: accepted within a phase's limits (enforced by the database), scored off the request path by
workers that claim them with a lease, and ranked.

A submission is an action file; a worker plays it through the suite's own evaluation (`evaluation.evaluate`
with the file as the agent), so its figures are those `homesim evaluate --agent FILE` gives on the same
episodes. A worker that dies mid-scoring leaves a lease that runs out: another worker claims the row and
scores it again; a result is stored only by the worker that holds the lease, so nothing is scored twice.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy import and_, delete, false, or_, select, true, union_all, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, defer, joinedload, sessionmaker

from homesim.agents.replay import ActionFile, parse_action_file
from homesim.errors import DataError
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import MASK_PREFIX, EpisodeRecord, read_records
from homesim.evaluation.suites import suite_named
from homesim.server.challenges import ChallengeError, challenge_episodes, episode_ids, phase_open, results_visible
from homesim.server.models import Phase, Quota, Submission, Team, now

LEASE = timedelta(minutes=10)
MAX_ATTEMPTS = 3  # a submission whose scoring killed its worker this often fails, with the reason
MAX_METHOD = 200


def _insert(session: Session):
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


def _take(session: Session, phase: Phase, team: Team, period: str, allowed: int) -> None:
    """One more of a limit, or ChallengeError when it is used up: one conditional UPDATE, which the database
    serialises, so concurrent submissions never pass the limit (the CHECK constraint is the backstop)."""
    row = {"phase_id": phase.id, "team_id": team.id, "period": period, "used": 0, "allowed": allowed}
    session.execute(_insert(session)(Quota).values(row).on_conflict_do_nothing())
    taken = session.execute(
        update(Quota)
        .where(Quota.phase_id == phase.id, Quota.team_id == team.id, Quota.period == period, Quota.used < Quota.allowed)
        .values(used=Quota.used + 1)
    )
    if taken.rowcount != 1:
        what = {"total": "in total", "concurrent": "at once"}.get(period, f"on {period} (UTC)")
        raise ChallengeError(f"limit reached: {allowed} submission(s) {what} for phase {phase.slug}")


def _give_back(session: Session, submission: Submission) -> None:
    """A finished or failed submission no longer counts against the limit of those scored at once."""
    session.execute(
        update(Quota)
        .where(
            Quota.phase_id == submission.phase_id,
            Quota.team_id == submission.team_id,
            Quota.period == "concurrent",
            Quota.used > 0,
        )
        .values(used=Quota.used - 1)
    )


def check_actions(session: Session, phase: Phase, data: object) -> tuple[ActionFile, str]:
    """The action file, checked against the phase's episodes; and a note of those it leaves out."""
    challenge = phase.challenge
    try:
        actions = parse_action_file(data, "the action file")
    except DataError as e:
        raise ChallengeError(str(e)) from None
    if actions.suite != challenge.suite:
        raise ChallengeError(f"the action file is for {actions.suite}; this challenge is {challenge.suite}")
    aims = suite_named(challenge.suite).interactions
    if actions.interaction not in aims:
        raise ChallengeError(f"the action file aims by {actions.interaction}; {challenge.suite} by {' or '.join(aims)}")
    known = episode_ids(session, challenge, phase.split)
    unknown = sorted({episode_id for episode_id, _ in actions.episodes} - known)
    if unknown:
        raise ChallengeError(f"{len(unknown)} unknown episode id(s), e.g. {unknown[0][:80]!r}")
    missing = len(known - {episode_id for episode_id, _ in actions.episodes})
    note = f"{missing} of {len(known)} episodes have no actions: scored as failures" if missing else ""
    return actions, note


def submit(
    session: Session,
    phase: Phase,
    team: Team,
    data: object | None,
    method: str,
    paper_url: str = "",
    baseline: bool = False,
    remote: str = "",
) -> Submission:
    """A queued submission of an action file `data`, within the phase's dates and limits (the host's baselines
    are not counted); or, with `remote` (the run's name) and no data, a remote evaluation's row, running
    under that name until the run stores its result."""
    method = method.strip()
    if not 1 <= len(method) <= MAX_METHOD:
        raise ChallengeError(f"a method's name has 1 to {MAX_METHOD} characters")
    if paper_url and not paper_url.startswith(("https://", "http://")):
        raise ChallengeError("the paper link must start with https:// or http://")
    at = now()
    if not baseline and not phase_open(phase, at):
        raise ChallengeError(f"phase {phase.slug} is not open now")
    note = "" if remote else check_actions(session, phase, data)[1]
    if not baseline:
        for period, allowed in (("total", phase.total), (at.date().isoformat(), phase.per_day), ("concurrent", phase.concurrent)):
            if allowed is not None:
                _take(session, phase, team, period, allowed)
    submission = Submission(
        phase_id=phase.id,
        team_id=team.id,
        method=method,
        paper_url=paper_url,
        actions=data or {},
        reason=note,
        baseline=baseline,
        created=at,
        status="running" if remote else "queued",
        worker=remote,
    )
    session.add(submission)
    session.flush()
    return submission


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim(session: Session, worker: str, lease: timedelta = LEASE) -> int | None:
    """The id of a submission this worker now scores (queued, or running under a lease that ran out)."""
    at = now()
    claimable = or_(Submission.status == "queued", and_(Submission.status == "running", Submission.lease_until < at))
    query = select(Submission.id, Submission.status, Submission.attempts).where(claimable).order_by(Submission.id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    row = session.execute(query.limit(1)).first()
    if row is None:
        return None
    taken = session.execute(
        update(Submission)
        .where(Submission.id == row.id, Submission.status == row.status, Submission.attempts == row.attempts)
        .values(status="running", worker=worker, lease_until=at + lease, attempts=Submission.attempts + 1)
    )
    return row.id if taken.rowcount == 1 else None


@dataclass(frozen=True)
class Scored:
    summary: dict | None
    reason: str


def score(session: Session, submission_id: int) -> Scored:
    """Plays a submission's actions through the suite's evaluation; its summary, or why it failed."""
    submission = session.get(Submission, submission_id)
    phase = submission.phase
    suite = suite_named(phase.challenge.suite)
    if submission.attempts > MAX_ATTEMPTS:
        return Scored(None, f"scoring stopped its worker {MAX_ATTEMPTS} times")
    splits, scenes = challenge_episodes(session, phase.challenge, phase.split)
    with tempfile.TemporaryDirectory(prefix="homesim-score-") as folder:
        actions = Path(folder) / "actions.json"
        parsed = parse_action_file(submission.actions, "the action file")
        actions.write_text(parsed.to_json())
        config = EvaluationConfig(agent=str(actions), suite=suite.name, options=dict(phase.options), interaction=parsed.interaction)
        summary = evaluate(splits, scenes, config, Path(folder) / "run")
        unread = unreadable_masks(read_records(Path(folder) / "run" / "records.jsonl"))
    summary["config"]["agent"] = "submission"  # not the temporary file's name
    return Scored(summary, "; ".join(r for r in (submission.reason, unread) if r))


def unreadable_masks(records: Sequence[EpisodeRecord], shown: int = 10) -> str:
    """The steps whose mask could not be read (each a failed step that names no action), episode by episode, for
    the team: they say what was wrong with the file, and nothing of the scene (a mask that was read but hit
    nothing it could use is not told)."""
    found = [
        f"{r.episode_id} step {i + 1}: {dict(r.failures).get(i, '')}"
        for r in records
        for i, (name, target) in enumerate(r.actions)
        if name is None and isinstance(target, str) and target.startswith(MASK_PREFIX)
    ]
    if not found:
        return ""
    more = f"; and {len(found) - shown} more" if len(found) > shown else ""
    return f"{len(found)} mask(s) could not be read (each a failed step): " + "; ".join(found[:shown]) + more


def finish(session: Session, submission_id: int, worker: str, scored: Scored) -> bool:
    """Stores a result if this worker still holds the lease; False when another worker took the row over."""
    values = {"status": "failed" if scored.summary is None else "finished", "finished": now(), "lease_until": None}
    if scored.summary is not None:
        phase = session.get(Submission, submission_id).phase
        figures = figures_of(scored.summary, phase.split)
        values |= {"summary": scored.summary, "figures": figures, "score": (figures.get(phase.ranking) or {}).get("value")}
    done = session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.worker == worker, Submission.status == "running")
        .values(**values)
    )
    if done.rowcount != 1:
        return False
    submission = session.get(Submission, submission_id)
    if scored.reason:
        submission.reason = scored.reason
    _give_back(session, submission)
    return True


def work_once(sessions: sessionmaker[Session], worker: str, lease: timedelta = LEASE) -> int | None:
    """Claims and scores one submission; its id, or None when there was nothing to do."""
    with sessions.begin() as session:
        claimed = claim(session, worker, lease)
    if claimed is None:
        return None
    with sessions() as session:
        try:
            scored = score(session, claimed)
        except (ChallengeError, DataError, ValueError, KeyError) as e:  # a submission the suite cannot play
            scored = Scored(None, f"could not be scored: {e}")
    with sessions.begin() as session:
        finish(session, claimed, worker, scored)
    return claimed


def rescore(session: Session, submission: Submission) -> None:
    submission.status, submission.summary, submission.figures, submission.score = "queued", None, None, None
    submission.attempts, submission.worker = 0, ""


def remove(session: Session, submission: Submission) -> None:
    if submission.status in ("queued", "running"):
        _give_back(session, submission)
    session.execute(delete(Submission).where(Submission.id == submission.id))


def quota_left(session: Session, phase: Phase, team: Team) -> dict[str, int | None]:
    """What a team may still submit to a phase: today, in total, at once (None: no limit)."""
    used = {
        q.period: q.used
        for q in session.scalars(select(Quota).where(Quota.phase_id == phase.id, Quota.team_id == team.id))
    }
    today = now().date().isoformat()
    limits = {"today": (today, phase.per_day), "total": ("total", phase.total), "at once": ("concurrent", phase.concurrent)}
    return {name: None if allowed is None else allowed - used.get(period, 0) for name, (period, allowed) in limits.items()}


def as_dict(submission: Submission) -> dict:
    """What the API says of a submission (never its actions, never an episode's hidden part)."""
    return {
        "id": submission.id,
        "phase": submission.phase.slug,
        "challenge": submission.phase.challenge.slug,
        "team": submission.team.name,
        "method": submission.method,
        "paper_url": submission.paper_url,
        "status": submission.status,
        "reason": submission.reason,
        "created": submission.created.isoformat(),
        "finished": submission.finished.isoformat() if submission.finished else None,
        "baseline": submission.baseline,
        "chosen": submission.chosen,
        "summary": submission.summary,
    }



@dataclass(frozen=True)
class Row:
    rank: int | None  # None: not ranked (a team's own unchosen rows in a choose-one phase)
    submission: Submission
    figures: dict[str, dict]  # metric -> {"value", "ci95"}


def figures_of(summary: dict | None, split: str) -> dict | None:
    """The split's figures over all its episodes, as a leaderboard reads them: {name: {"value", "ci95"}}."""
    if not summary:
        return None
    found = summary.get("splits", {}).get(split, {}).get("all", {})
    return {k: v if isinstance(v, dict) else {"value": v, "ci95": None} for k, v in found.items()}


def _value(s: Submission, metric: str) -> float | None:
    return ((s.figures or {}).get(metric) or {}).get("value")


def leaderboard(session: Session, phase: Phase, viewer: Team | None, sort: str | None = None) -> list[Row]:
    """The phase's leaderboard as the viewer may see it: each team's best row by the phase's ranking metric
    (in a choose-one phase, its chosen row), every baseline row, best first by `sort` (default: the ranking
    metric; higher is better). Hidden phases show a team its own rows only, until they are revealed; a team
    (and the host) also sees its unchosen rows of a choose-one phase, unranked. Best rows are picked in SQL,
    so a phase of thousands of submissions reads only the rows it shows."""
    suite = suite_named(phase.challenge.suite)
    sort = sort if sort in suite.leaderboard else phase.ranking
    host = viewer is not None and viewer.is_host
    seen = [Submission.phase_id == phase.id, Submission.status == "finished"]
    if not host:
        seen.append(Submission.hidden == false())
        if not results_visible(phase, now()):
            seen.append(Submission.team_id == (viewer.id if viewer is not None else -1))
    baselines = select(Submission.id).where(*seen, Submission.baseline == true())
    if phase.choose_one:
        best = select(Submission.id).where(*seen, Submission.baseline == false(), Submission.chosen == true())
    else:  # per team, one seek into the index `leaderboard` (in its order): the cost grows with the teams only
        order = (Submission.score.desc().nulls_last(), Submission.created, Submission.id)
        mine = Submission.team_id == Team.id
        first = select(Submission.id).where(*seen, Submission.baseline == false(), mine).order_by(*order).limit(1)
        best = select(first.correlate(Team).scalar_subquery().label("id")).select_from(Team)
    ranked_ids = union_all(best, baselines).subquery()
    light = (defer(Submission.summary), defer(Submission.actions), joinedload(Submission.team))
    ranked = list(session.scalars(select(Submission).options(*light).where(Submission.id.in_(select(ranked_ids.c.id)))))
    unranked = []
    if phase.choose_one and viewer is not None:
        own = [] if host else [Submission.team_id == viewer.id]
        query = select(Submission).options(*light).where(*seen, *own, ~Submission.chosen, ~Submission.baseline)
        unranked = list(session.scalars(query.order_by(Submission.created, Submission.id)))
    ranked.sort(key=lambda s: (_value(s, sort) is None, -(_value(s, sort) or 0), s.created, s.id))

    def shown(s: Submission) -> dict[str, dict]:
        return {m: (s.figures or {}).get(m) or {"value": None, "ci95": None} for m in suite.leaderboard}

    return [Row(i + 1, s, shown(s)) for i, s in enumerate(ranked)] + [Row(None, s, shown(s)) for s in unranked]
