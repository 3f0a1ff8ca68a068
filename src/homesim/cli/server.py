"""`homesim serve`, `homesim challenge ...` and `homesim submit`: hosting a challenge and taking part in one.

homesim challenge create --slug alfred-2026 --title "..." --episodes DATASET --split test_seen --phases objectnav-2020
homesim challenge team --name "my lab"                  # prints the team's token, once
homesim challenge public-split --challenge alfred-2026 --out public/
homesim serve                                           # pages, API and a scoring worker on 127.0.0.1
homesim challenge actions out/eval --out actions.json   # what an evaluation's agent did, as a results file
homesim submit --server http://127.0.0.1:8000 --token T --challenge alfred-2026 --phase test --file actions.json --method "My agent"
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Annotated

import typer

from homesim.cli.common import app, console, group

challenge_app = group("challenge", "Host a challenge: create it, add teams, hand out the public split, score.")
DbOption = Annotated[
    str,
    typer.Option(
        "--db", show_default=False, help="the database's URL (default: the SQLite file homesim-server.db, here)"
    ),
]
DEFAULT_DB = "sqlite:///homesim-server.db"
ServerOption = Annotated[str, typer.Option(help="the challenge server's address, http://host:port")]
TokenOption = Annotated[str, typer.Option(envvar="HOMESIM_TOKEN", help="your team's token (or $HOMESIM_TOKEN)")]
MethodOption = Annotated[str, typer.Option(help="your method's name on the leaderboard")]
ChallengeOption = Annotated[str, typer.Option(help="the challenge's slug")]
PhaseOption = Annotated[str, typer.Option(help="the phase's slug")]


def _sessions(db: str):
    from homesim.server.db import connect, migrate, sessions

    engine = connect(db)
    migrate(engine)
    return sessions(engine)


@challenge_app.command("create")
def create(
    slug: Annotated[str, typer.Option(help="the challenge's name in addresses: lower case, digits, dashes")],
    title: Annotated[str, typer.Option(help="its title on the pages")],
    episodes: Annotated[
        Path, typer.Option(exists=True, help="the test episodes: a dataset folder, or what evaluate reads")
    ],
    split: Annotated[str | None, typer.Option(help="the split every phase scores on (default: the first)")] = None,
    layouts: Annotated[Path | None, typer.Option(exists=True, file_okay=False, help="ALFRED layout files")] = None,
    phases: Annotated[str, typer.Option(help="phase preset: open (one phase, no limits) or objectnav-2020")] = "open",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Create a challenge: its test episodes (hidden parts included) go into the database."""
    from homesim.datasets.sources import read_episodes
    from homesim.evaluation.suites import suite_named
    from homesim.server.challenges import create_challenge

    source = read_episodes(episodes, layouts, None)
    with _sessions(db).begin() as session:
        challenge = create_challenge(
            session, slug, title, suite_named(source.suite), source.splits, source.scenes, phases, split
        )
        names = ", ".join(p.slug for p in challenge.phases)
    console.print(f"challenge {slug} ({source.suite}) created with phases {names}")


def _when(text: str | None, option: str):
    from datetime import datetime

    if text is None:
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        raise ValueError(f"{option} {text!r}: a date and time, 2026-12-01T12:00 (UTC)") from None


@challenge_app.command("phase")
def phase(
    challenge: ChallengeOption,
    slug: Annotated[str, typer.Option(help="the phase's slug: a new one is added, an existing one changed")],
    title: Annotated[str | None, typer.Option(help="its title (a new phase: the slug)")] = None,
    split: Annotated[
        str | None, typer.Option(help="the split it scores on (a new phase: the challenge's first)")
    ] = None,
    start: Annotated[str | None, typer.Option(help="opens at, UTC: 2026-12-01T00:00")] = None,
    end: Annotated[str | None, typer.Option(help="closes at, UTC")] = None,
    per_day: Annotated[int | None, typer.Option(min=0, help="submissions per team per UTC day")] = None,
    total: Annotated[int | None, typer.Option(min=0, help="submissions per team in all")] = None,
    concurrent: Annotated[int | None, typer.Option(min=0, help="submissions per team being scored at once")] = None,
    visibility: Annotated[str | None, typer.Option(help="public, or hidden until --reveal-at")] = None,
    reveal_at: Annotated[str | None, typer.Option(help="a hidden phase's results are shown from, UTC")] = None,
    choose_one: Annotated[bool | None, typer.Option(help="each team's chosen row alone is ranked")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add a phase to a challenge, or change one: dates, limits, visibility, the reveal."""
    from sqlalchemy import select

    from homesim.server.challenges import ChallengeError, PhaseRules, add_phase
    from homesim.server.models import VISIBILITIES, Challenge, Episode, Phase

    if visibility is not None and visibility not in VISIBILITIES:
        raise ValueError(f"--visibility {visibility!r}: {' or '.join(VISIBILITIES)}")
    dates = {"start": _when(start, "--start"), "end": _when(end, "--end"), "reveal_at": _when(reveal_at, "--reveal-at")}
    with _sessions(db).begin() as session:
        found = session.scalar(select(Challenge).where(Challenge.slug == challenge))
        if found is None:
            raise ChallengeError(f"no challenge {challenge!r}")
        existing = session.scalar(select(Phase).where(Phase.challenge_id == found.id, Phase.slug == slug))
        if existing is None:
            first = session.scalar(
                select(Episode.split).where(Episode.challenge_id == found.id).order_by(Episode.split)
            )
            rules = PhaseRules(
                slug, title or slug, per_day, total, concurrent, visibility or "public", bool(choose_one)
            )
            existing = add_phase(session, found, rules, split or first, {})
        changes = {"title": title, "per_day": per_day, "total": total, "concurrent": concurrent,
                   "visibility": visibility, "choose_one": choose_one} | dates  # fmt: skip
        if split is not None:
            if (
                session.scalar(select(Episode.id).where(Episode.challenge_id == found.id, Episode.split == split))
                is None
            ):
                raise ChallengeError(f"challenge {challenge} has no split {split!r}")
            changes["split"] = split
        for name, value in changes.items():
            if value is not None:
                setattr(existing, name, value)
        said = f"{existing.slug}: split {existing.split}, per day {existing.per_day}, total {existing.total}, at once {existing.concurrent}, {existing.visibility}"
    console.print(f"phase {said}", highlight=False)


@challenge_app.command("baseline")
def baseline(
    challenge: ChallengeOption,
    phase: PhaseOption,
    agent: Annotated[
        str, typer.Option(help="an agent homesim evaluate takes: expert, random, a checkpoint, module:Class")
    ],
    method: Annotated[str | None, typer.Option(help="its name on the leaderboard (default: the agent's)")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Enter a baseline row: the host plays the agent on the phase's hidden episodes and submits its actions
    (scored by the workers like any submission; not counted against any limit)."""
    import tempfile

    from sqlalchemy import select

    from homesim.evaluation.evaluate import EvaluationConfig, evaluate
    from homesim.evaluation.records import action_file_of, read_records
    from homesim.evaluation.suites import suite_named
    from homesim.server.challenges import ChallengeError, challenge_episodes
    from homesim.server.models import Challenge, Phase, Team
    from homesim.server.submissions import submit

    made = _sessions(db)
    with made.begin() as session:
        found = session.scalar(select(Phase).join(Challenge).where(Challenge.slug == challenge, Phase.slug == phase))
        host = session.scalar(select(Team).where(Team.is_host).order_by(Team.id))
        if found is None or host is None:
            raise ChallengeError(
                f"no phase {phase!r} in challenge {challenge!r}"
                if found is None
                else "no host yet: challenge team --host"
            )
        suite = suite_named(found.challenge.suite)
        splits, scenes = challenge_episodes(session, found.challenge, found.split)
        with tempfile.TemporaryDirectory(prefix="homesim-baseline-") as folder:
            config = EvaluationConfig(agent=agent, suite=suite.name, options=dict(found.options))
            evaluate(splits, scenes, config, Path(folder))
            actions = action_file_of(read_records(Path(folder) / "records.jsonl"), suite.name, suite.stop_action)
        made_row = submit(session, found, host, actions.to_dict(), method or agent, baseline=True)
        number = made_row.id
    console.print(f"baseline {method or agent}: submission {number}, queued for scoring")


@challenge_app.command("team")
def team(
    name: Annotated[str, typer.Option(help="the team's name")],
    host: Annotated[bool, typer.Option("--host", help="a host: sees everything, may hide, rescore, delete")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add a team (or a host) and print its token: it is shown this once and kept only as a hash."""
    from homesim.server.challenges import add_team

    with _sessions(db).begin() as session:
        token = add_team(session, name, host)
    console.print(f"{'host' if host else 'team'} {name}: token {token}", highlight=False)


@challenge_app.command("public-split")
def public_split(
    challenge: ChallengeOption,
    out: Annotated[Path, typer.Option(help="the folder to write")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write what a participant gets: each episode as an agent may see it, the scenes, the rules."""
    from sqlalchemy import select

    from homesim.server.challenges import ChallengeError
    from homesim.server.challenges import public_split as write_public
    from homesim.server.models import Challenge

    with _sessions(db)() as session:
        found = session.scalar(select(Challenge).where(Challenge.slug == challenge))
        if found is None:
            raise ChallengeError(f"no challenge {challenge!r}")
        count = write_public(session, found, out)
    console.print(f"{count} public episodes of {challenge} written to {out}/")


@challenge_app.command("actions")
def actions(
    run: Annotated[Path, typer.Argument(exists=True, help="an evaluation's folder (records.jsonl, run.json)")],
    out: Annotated[Path, typer.Option(help="the action file to write")],
) -> None:
    """What an evaluation's agent did in each episode, as an action file (a challenge's results file); a run
    evaluated with --interaction mask gives the mask form (each interaction's mask, as ALFRED's runs)."""
    from homesim.evaluation.evaluate import read_run
    from homesim.evaluation.records import action_file_of, read_records
    from homesim.evaluation.suites import suite_named

    folder = run if run.is_dir() else run.parent
    config = read_run(folder)
    suite = suite_named(config.suite)
    records = read_records(folder / "records.jsonl")
    action_file = action_file_of(records, suite.name, suite.stop_action, config.interaction)
    out.write_text(action_file.to_json())
    form = " (the mask form)" if action_file.interaction == "mask" else ""
    console.print(f"the actions of {len(action_file.episodes)} episodes written to {out}{form}")


def _score_forever(sessions, stop: threading.Event, poll: float, lease: float | None = None) -> None:
    from datetime import timedelta

    from homesim.server.submissions import LEASE, work_once, worker_name

    name = f"{worker_name()}:{threading.get_ident()}"
    held = LEASE if lease is None else timedelta(seconds=lease)
    while not stop.is_set():
        if work_once(sessions, name, held) is None:
            stop.wait(poll)


@challenge_app.command("worker")
def worker(
    db: DbOption = DEFAULT_DB,
    poll: Annotated[float, typer.Option(min=0.05, help="seconds between looks for work when there is none")] = 1.0,
    lease: Annotated[
        float, typer.Option(min=1.0, help="seconds a claim lasts: a worker that dies is replaced after this")
    ] = 600.0,
) -> None:
    """Score submissions as they come (run as many as you like, on any machine that reaches the database)."""
    console.print(f"scoring submissions from {db}; Ctrl-C stops", highlight=False)
    try:
        _score_forever(_sessions(db), threading.Event(), poll, lease)
    except KeyboardInterrupt:
        console.print("stopped; a submission being scored goes back to the queue when its lease runs out")


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _preload(sessions) -> None:
    """The open phases' episodes loaded for remote evaluation while the server starts (`remote.preload`)."""
    from homesim.server.remote import preload

    begin = time.perf_counter()
    try:
        loaded = preload(sessions)
    except Exception as e:  # noqa: BLE001  (the runs load their split themselves then)
        console.print(f"remote evaluation: loading the open phases' episodes failed ({e}); each run loads its own")
        return
    said = f"{len(loaded)} open phase(s) loaded for remote evaluation in {time.perf_counter() - begin:.2f} s"
    console.print(f"{said}: {', '.join(loaded)}" if loaded else said, highlight=False)


@app.command("serve")
def serve(
    db: DbOption = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="the port (0: a free one)")] = 0,
    demo: Annotated[bool, typer.Option("--demo", help="add a demo challenge per suite, with baselines")] = False,
    scorers: Annotated[int, typer.Option(min=0, help="scoring workers in this process")] = 1,
    patience: Annotated[
        float, typer.Option(min=0.1, help="seconds a remote evaluation waits for an action before it ends")
    ] = 300.0,
) -> None:
    """Serve the challenges' pages and API, with scoring workers; prints the address."""
    import uvicorn

    from homesim.server.demo import create_demo
    from homesim.web.app import create_app

    sessions = _sessions(db)
    from homesim.server.remote import stale

    with sessions.begin() as session:
        if failed := stale(session):
            console.print(f"{failed} remote evaluation(s) left running when the server stopped: marked failed")
    if demo:
        token = create_demo(sessions)
        if token:
            console.print(f"demo challenges created; the host's token: {token}", highlight=False)
    stop = threading.Event()
    threads = [threading.Thread(target=_score_forever, args=(sessions, stop, 0.5), daemon=True) for _ in range(scorers)]
    threads.append(threading.Thread(target=_preload, args=(sessions,), daemon=True))
    for thread in threads:
        thread.start()
    port = port or _free_port(host)
    console.print(f"homesim challenges at http://{host}:{port}/ (Ctrl-C stops)", highlight=False)
    try:
        uvicorn.run(create_app(sessions, patience), host=host, port=port, log_level="warning")
    finally:
        stop.set()


@challenge_app.command("run")
def run_remote(
    server: ServerOption,
    token: TokenOption,
    challenge: ChallengeOption,
    phase: PhaseOption,
    agent: Annotated[str, typer.Option(help="your agent: module.path:ClassName, a checkpoint, or a built-in name")],
    method: MethodOption,
    seed: Annotated[int, typer.Option(help="the agent's seed")] = 0,
    batch: Annotated[
        int, typer.Option(min=1, max=1024, help="episodes played at once, each by its own copy of the agent")
    ] = 64,
) -> None:
    """Remote evaluation: play your agent, on this machine, in the server's env, which it never sees."""
    import httpx

    from homesim.evaluation.suites import load_agent
    from homesim.server.remote import play_remote

    try:
        challenges = {c["slug"]: c for c in httpx.get(f"{server.rstrip('/')}/api/challenges", timeout=30).json()}
    except httpx.HTTPError as e:
        raise ValueError(f"{server}: {e}") from None
    if challenge not in challenges:
        raise ValueError(f"{server} hosts no challenge {challenge!r}; it has {', '.join(challenges) or 'none'}")
    suite = challenges[challenge]["suite"]
    load_agent(agent, seed, suite)  # a wrong agent is said before the run starts

    def said(finished: int, episodes: int) -> None:
        status.update(f"playing remotely: {finished} of {episodes} episodes done")

    with console.status("playing remotely") as status:
        submission = play_remote(server, token, challenge, phase, lambda: load_agent(agent, seed, suite), method,
                                 batch=batch, progress=said)  # fmt: skip
    console.print(f"done: submission {submission}, {server.rstrip('/')}/s/{submission}", highlight=False)


@app.command("submit")
def submit_command(
    server: ServerOption,
    token: TokenOption,
    challenge: ChallengeOption,
    phase: PhaseOption,
    file: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="the action file")],
    method: MethodOption,
    paper_url: Annotated[str, typer.Option(help="a link to the paper")] = "",
) -> None:
    """Submit an action file to a challenge's phase and print the submission's address."""
    import httpx

    try:
        actions = json.loads(file.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{file}: not JSON ({e})") from None
    body = {"method": method, "paper_url": paper_url, "actions": actions}
    url = f"{server.rstrip('/')}/api/challenges/{challenge}/{phase}/submissions"
    try:
        answer = httpx.post(url, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=120)
    except httpx.HTTPError as e:
        raise ValueError(f"{server}: {e}") from None
    if answer.status_code != 201:
        raise ValueError(f"refused ({answer.status_code}): {answer.json().get('error', answer.text)}")
    made = answer.json()
    console.print(f"submission {made['id']} {made['status']}: {server.rstrip('/')}/s/{made['id']}", highlight=False)
    if made["reason"]:
        console.print(made["reason"])
