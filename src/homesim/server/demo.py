"""`homesim serve --demo`: a challenge per suite on episodes that need no data (ALFRED's and ObjectNav's
built-in episodes, a few generated HandMeThat episodes), a host, and the baselines' rows (expert and random,
each played locally into an action file and then scored by the server like any submission)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.handmethat.generate import generate
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import action_file_of, read_records
from homesim.evaluation.suites import SUITES
from homesim.server.challenges import add_team, create_challenge
from homesim.server.models import Challenge, Phase, Team
from homesim.server.submissions import submit

BASELINES = ("expert", "random")
HOST = "host"


def _episodes() -> dict[str, tuple[dict, dict]]:
    """Each suite's demo episodes (one split, "test") and scenes."""
    alfred, alfred_scenes = builtin_episodes()
    objectnav, objectnav_scenes = builtin_objectnav()
    handmethat, _ = generate(episodes=6, seed=0)
    return {
        "alfred": ({"test": alfred}, alfred_scenes),
        "objectnav": ({"test": objectnav}, objectnav_scenes),
        "handmethat": ({"test": [e for split in handmethat.values() for e in split]}, {}),
    }


def create_demo(sessions: sessionmaker[Session]) -> str | None:
    """The demo challenges, once (None when they exist); returns the host's token."""
    with sessions.begin() as session:
        if session.scalar(select(Challenge).where(Challenge.slug == "alfred-demo")) is not None:
            return None
        token = add_team(session, HOST, host=True)
        host = session.scalar(select(Team).where(Team.name == HOST))
        for name, (splits, scenes) in _episodes().items():
            suite = SUITES[name]
            challenge = create_challenge(session, f"{name}-demo", f"{suite.title} (demo)", suite, splits, scenes)
            phase = session.scalar(select(Phase).where(Phase.challenge_id == challenge.id))
            for agent in BASELINES:
                with tempfile.TemporaryDirectory(prefix="homesim-demo-") as folder:
                    config = EvaluationConfig(agent=agent, suite=name, options=dict(phase.options))
                    evaluate(splits, scenes, config, Path(folder))
                    actions = action_file_of(read_records(Path(folder) / "records.jsonl"), name, suite.stop_action)
                submit(session, phase, host, actions.to_dict(), f"{agent} (homesim)", baseline=True)
    return token
