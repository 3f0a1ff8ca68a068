"""Challenges, phases and teams: made by the host (`homesim challenge ...`), read by the pages.

A challenge holds one suite's test episodes (whole, hidden parts included) and scenes in the database;
participants get `public_split`: each episode as the suite lets an agent see it (`Suite.public`), the scenes,
and the rules. Phase presets follow the seeds: `objectnav-2020` is the ObjectNav challenge's three phases
(`objectnav-revisited.txt`, section 3.1: Minival 30 a day, Test Standard 10 a day, Test Challenge 5 in total
with results hidden until revealed and one submission chosen per team); `open` is one phase with no limits.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from homesim.evaluation.suite import Suite
from homesim.evaluation.suites import suite_named
from homesim.server.models import VISIBILITIES, Challenge, Episode, Phase, Scene, Team
from homesim.world.scene import Scene as WorldScene

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


class ChallengeError(ValueError):
    """A host's or a team's request that cannot be done, in one line (shown as it is)."""


@dataclass(frozen=True)
class PhaseRules:
    slug: str
    title: str
    per_day: int | None = None
    total: int | None = None
    concurrent: int | None = None
    visibility: str = "public"
    choose_one: bool = False


PRESETS: dict[str, tuple[PhaseRules, ...]] = {
    "open": (PhaseRules("test", "Test"),),
    "objectnav-2020": (
        PhaseRules("minival", "Minival", per_day=30),
        PhaseRules("test-standard", "Test Standard", per_day=10),
        PhaseRules("test-challenge", "Test Challenge", total=5, visibility="hidden", choose_one=True),
    ),
}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def dataset_digest(splits: Mapping[str, Sequence]) -> str:
    """The identity of a challenge's episodes: a digest of their files' contents, split by split."""
    digest = hashlib.sha256()
    for split in sorted(splits):
        for episode in splits[split]:
            digest.update(json.dumps([split, episode.to_dict()], sort_keys=True).encode())
    return digest.hexdigest()


def check_slug(slug: str, what: str) -> str:
    if not SLUG.match(slug):
        raise ChallengeError(f"{what} {slug!r}: lower-case letters, digits and dashes, at most 64")
    return slug


def create_challenge(
    session: Session,
    slug: str,
    title: str,
    suite: Suite,
    splits: Mapping[str, Sequence],
    scenes: Mapping[str, WorldScene],
    preset: str = "open",
    split: str | None = None,
    options: Mapping | None = None,
) -> Challenge:
    """A challenge on `splits` (every phase scores on `split`, by default the only or the first one), with
    the preset's phases; the episodes and the scenes they use are stored whole."""
    check_slug(slug, "challenge")
    if session.scalar(select(Challenge).where(Challenge.slug == slug)) is not None:
        raise ChallengeError(f"challenge {slug!r} exists already")
    if preset not in PRESETS:
        raise ChallengeError(f"unknown phase preset {preset!r}; known: {', '.join(PRESETS)}")
    split = split or sorted(splits)[0]
    if not splits.get(split):
        raise ChallengeError(f"no episodes in split {split!r}; the episodes have {', '.join(sorted(splits))}")
    challenge = Challenge(slug=slug, title=title, suite=suite.name, dataset_digest=dataset_digest(splits))
    session.add(challenge)
    session.flush()
    used = set()
    for name, episodes in sorted(splits.items()):
        for position, episode in enumerate(episodes):
            used.add(episode.scene_id)
            session.add(
                Episode(
                    challenge_id=challenge.id,
                    split=name,
                    position=position,
                    episode_id=suite.episode_id(episode),
                    data=episode.to_dict(),
                    public=suite.public(episode),
                )
            )
    for scene_id in sorted(s for s in used if s is not None):
        session.add(Scene(challenge_id=challenge.id, scene_id=scene_id, data=scenes[scene_id].to_dict()))
    for rules in PRESETS[preset]:
        add_phase(session, challenge, rules, split, options or {})
    return challenge



def add_phase(session: Session, challenge: Challenge, rules: PhaseRules, split: str, options: Mapping) -> Phase:
    check_slug(rules.slug, "phase")
    if rules.visibility not in VISIBILITIES:
        raise ChallengeError(f"visibility {rules.visibility!r}: {' or '.join(VISIBILITIES)}")
    suite = suite_named(challenge.suite)
    phase = Phase(
        challenge_id=challenge.id,
        slug=rules.slug,
        title=rules.title,
        split=split,
        per_day=rules.per_day,
        total=rules.total,
        concurrent=rules.concurrent,
        visibility=rules.visibility,
        ranking=suite.leaderboard[0],
        choose_one=rules.choose_one,
        options=suite.options(options, {}),
    )
    session.add(phase)
    session.flush()
    return phase


def add_team(session: Session, name: str, host: bool = False) -> str:
    """A new team (or host); returns its token, which is shown once and kept only as a hash."""
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise ChallengeError("a team's name has 1 to 100 characters")
    if session.scalar(select(Team).where(Team.name == name)) is not None:
        raise ChallengeError(f"team {name!r} exists already")
    token = secrets.token_urlsafe(24)
    session.add(Team(name=name, token_hash=token_hash(token), is_host=host))
    return token


def team_of(session: Session, token: str | None) -> Team | None:
    if not token:
        return None
    return session.scalar(select(Team).where(Team.token_hash == token_hash(token)))


def challenge_episodes(session: Session, challenge: Challenge, split: str) -> tuple[dict, dict]:
    """The split's episodes, whole, and their scenes, as the suite's evaluation reads them."""
    suite = suite_named(challenge.suite)
    rows = session.scalars(
        select(Episode).where(Episode.challenge_id == challenge.id, Episode.split == split).order_by(Episode.position)
    )
    episodes = [suite.episode_type.from_dict(row.data) for row in rows]
    scene_rows = session.scalars(select(Scene).where(Scene.challenge_id == challenge.id))
    return {split: episodes}, {row.scene_id: WorldScene.from_dict(row.data) for row in scene_rows}


def episode_ids(session: Session, challenge: Challenge, split: str) -> set[str]:
    query = select(Episode.episode_id).where(Episode.challenge_id == challenge.id, Episode.split == split)
    return set(session.scalars(query))


def public_split(session: Session, challenge: Challenge, out: Path) -> int:
    """Writes what a participant gets: `challenge.json` (suite, phases, the action file format), one
    `<split>.jsonl` of public episodes per split, and `scenes/`. Returns the episodes written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenes").mkdir(exist_ok=True)
    rows = session.scalars(select(Episode).where(Episode.challenge_id == challenge.id).order_by(Episode.split, Episode.position))
    by_split: dict[str, list[str]] = {}
    for row in rows:
        by_split.setdefault(row.split, []).append(json.dumps(row.public, sort_keys=True))
    for split, lines in by_split.items():
        (out / f"{split}.jsonl").write_text("".join(line + "\n" for line in lines))
    for row in session.scalars(select(Scene).where(Scene.challenge_id == challenge.id)):
        (out / "scenes" / f"{row.scene_id}.json").write_text(json.dumps(row.data, sort_keys=True))
    rules = {
        "challenge": challenge.slug,
        "suite": challenge.suite,
        "splits": {split: len(lines) for split, lines in by_split.items()},
        "phases": [{"slug": p.slug, "title": p.title, "split": p.split} for p in challenge.phases],
        "submit": "an action file (homesim-actions, version 1): homesim challenge actions RUN --out FILE",
    }
    (out / "challenge.json").write_text(json.dumps(rules, indent=1, sort_keys=True))
    return sum(len(lines) for lines in by_split.values())


def phase_open(phase: Phase, at: datetime) -> bool:
    return (phase.start is None or phase.start <= at) and (phase.end is None or at < phase.end)


def results_visible(phase: Phase, at: datetime) -> bool:
    return phase.visibility == "public" or (phase.reveal_at is not None and phase.reveal_at <= at)
