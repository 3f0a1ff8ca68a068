"""The challenge server's web face: server-rendered pages (Jinja2, autoescaped, no JavaScript) and a JSON API
for everything the pages show. A team signs in with its token (a cookie for the pages, `Authorization:
Bearer` for the API). No page, response or error ever holds an episode's hidden part: the pages read
submissions' summaries and the phases' rules, never `Episode.data`.
"""

from __future__ import annotations

import json

from fastapi import Body, Depends, FastAPI, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from homesim.evaluation.suites import suite_named
from homesim.server import remote
from homesim.server.challenges import ChallengeError, phase_open, results_visible, team_of
from homesim.server.models import Challenge, Phase, Submission, Team, now
from homesim.server.submissions import as_dict, leaderboard, quota_left, remove, rescore, submit
from homesim.web.site import new_site

MAX_UPLOAD = 32 * 1024 * 1024  # bytes of an action file: far above any test set's actions
COOKIE = "homesim_token"


def create_app(sessions: sessionmaker[Session], patience: float = remote.PATIENCE) -> FastAPI:
    """The app over a database; `patience`: seconds a remote evaluation waits for an agent's action."""
    app, templates = new_site("homesim challenges", accounts=True)

    def session():
        with sessions() as s:
            yield s

    def viewer(request: Request, s: Session = Depends(session)) -> Team | None:
        return team_of(s, _token(request))

    def page(request: Request, name: str, team: Team | None, status: int = 200, **context) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"team": team, **context}, status_code=status)

    def find_phase(s: Session, slug: str, phase_slug: str) -> Phase:
        phase = s.scalar(select(Phase).join(Challenge).where(Challenge.slug == slug, Phase.slug == phase_slug))
        if phase is None:
            raise HTTPException(404, f"no phase {phase_slug!r} in challenge {slug!r}")
        return phase

    def visible_submission(s: Session, submission_id: int, team: Team | None) -> Submission:
        found = s.get(Submission, submission_id)
        own = team is not None and (team.is_host or (found is not None and found.team_id == team.id))
        if found is None or not (own or (not found.hidden and results_visible(found.phase, now()))):
            raise HTTPException(404, f"no submission {submission_id} you may see")
        return found

    # --- pages ---------------------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    def index(request: Request, s: Session = Depends(session), team: Team | None = Depends(viewer)):
        challenges = list(s.scalars(select(Challenge).order_by(Challenge.id)))
        titles = {c.suite: suite_named(c.suite).title for c in challenges}
        return page(request, "index.html", team, challenges=challenges, titles=titles)

    @app.get("/c/{slug}/{phase_slug}", response_class=HTMLResponse)
    def phase_page(
        request: Request,
        slug: str,
        phase_slug: str,
        sort: str | None = None,
        s: Session = Depends(session),
        team: Team | None = Depends(viewer),
    ):
        phase = find_phase(s, slug, phase_slug)
        suite = suite_named(phase.challenge.suite)
        return page(
            request,
            "leaderboard.html",
            team,
            phase=phase,
            suite=suite,
            rows=leaderboard(s, phase, team, sort),
            sort=sort if sort in suite.leaderboard else phase.ranking,
            open=phase_open(phase, now()),
            visible=results_visible(phase, now()),
            left=quota_left(s, phase, team) if team else None,
        )

    @app.get("/c/{slug}", response_class=HTMLResponse)
    def challenge_page(request: Request, slug: str, s: Session = Depends(session), team: Team | None = Depends(viewer)):
        challenge = s.scalar(select(Challenge).where(Challenge.slug == slug))
        if challenge is None:
            raise HTTPException(404, f"no challenge {slug!r}")
        return page(request, "challenge.html", team, challenge=challenge, suite=suite_named(challenge.suite))

    @app.post("/c/{slug}/{phase_slug}/submit")
    async def submit_page(
        request: Request,
        slug: str,
        phase_slug: str,
        file: UploadFile,
        method: str = Form(...),
        paper_url: str = Form(""),
        s: Session = Depends(session),
        team: Team | None = Depends(viewer),
    ):
        if team is None:
            raise HTTPException(401, "sign in with your team's token first")
        phase = find_phase(s, slug, phase_slug)
        raw = await file.read(MAX_UPLOAD + 1)
        try:
            submission = await run_in_threadpool(_submit, s, phase, team, raw, method, paper_url)
        except ChallengeError as e:
            s.rollback()
            return page(request, "error.html", team, status=400, message=str(e))
        return RedirectResponse(f"/s/{submission.id}", status_code=303)

    @app.get("/s/{submission_id}", response_class=HTMLResponse)
    def submission_page(
        request: Request, submission_id: int, s: Session = Depends(session), team: Team | None = Depends(viewer)
    ):
        found = visible_submission(s, submission_id, team)
        suite = suite_named(found.phase.challenge.suite)
        figures = (found.summary or {}).get("splits", {}).get(found.phase.split, {})
        return page(request, "submission.html", team, submission=found, suite=suite, figures=figures)

    @app.get("/t/{name}", response_class=HTMLResponse)
    def team_page(request: Request, name: str, s: Session = Depends(session), team: Team | None = Depends(viewer)):
        shown = s.scalar(select(Team).where(Team.name == name))
        if shown is None:
            raise HTTPException(404, f"no team {name!r}")
        own = team is not None and (team.is_host or team.id == shown.id)
        rows = s.scalars(select(Submission).where(Submission.team_id == shown.id).order_by(Submission.id.desc()))
        rows = [r for r in rows if own or (not r.hidden and r.status == "finished" and results_visible(r.phase, now()))]
        return page(request, "team.html", team, shown=shown, submissions=rows, own=own)

    @app.get("/login", response_class=HTMLResponse)
    def login_page(request: Request, team: Team | None = Depends(viewer)):
        return page(request, "login.html", team)

    @app.post("/login")
    def login(request: Request, token: str = Form(...), s: Session = Depends(session)):
        if team_of(s, token) is None:
            return page(request, "login.html", None, status=401, message="that token belongs to no team")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    @app.post("/logout")
    def logout():
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    # --- the JSON API ----------------------------------------------------------------------------------

    @app.get("/api/challenges")
    def api_challenges(s: Session = Depends(session)):
        return [_challenge(c) for c in s.scalars(select(Challenge).order_by(Challenge.id))]

    @app.get("/api/challenges/{slug}/{phase_slug}/leaderboard")
    def api_leaderboard(
        slug: str,
        phase_slug: str,
        sort: str | None = None,
        s: Session = Depends(session),
        team: Team | None = Depends(viewer),
    ):
        phase = find_phase(s, slug, phase_slug)
        rows = leaderboard(s, phase, team, sort)
        return _json([{"rank": r.rank, **_row(r.submission), "figures": r.figures} for r in rows])

    @app.post("/api/challenges/{slug}/{phase_slug}/submissions", status_code=201)
    async def api_submit(
        request: Request, slug: str, phase_slug: str, s: Session = Depends(session), team: Team | None = Depends(viewer)
    ):
        if team is None:
            raise HTTPException(401, "a team's token is needed: Authorization: Bearer TOKEN")
        phase = find_phase(s, slug, phase_slug)
        raw = await _body(request)
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ChallengeError("the body is a JSON object: {method, paper_url, actions}")
            actions = json.dumps(body.get("actions")).encode()
            method, paper_url = str(body.get("method", "")), str(body.get("paper_url", ""))
            submission = await run_in_threadpool(_submit, s, phase, team, actions, method, paper_url)
        except (ValueError, RecursionError) as e:  # json's and ours
            s.rollback()
            raise HTTPException(400, str(e) if isinstance(e, ChallengeError) else f"not JSON: {e}") from None
        return as_dict(submission)

    @app.post("/api/challenges/{slug}/{phase_slug}/remote", status_code=201)
    async def api_remote(slug: str, phase_slug: str, body: dict = Body(...), team: Team | None = Depends(viewer)):
        """Starts a remote evaluation of `batch` episodes at once (default 1): its episodes are loaded off the
        event loop, its hub runs on it (`server.remote`)."""
        if team is None:
            raise HTTPException(401, "a team's token is needed: Authorization: Bearer TOKEN")
        batch = body.get("batch", 1)

        def begin() -> tuple[remote.Run, str]:
            with sessions() as s:
                phase = find_phase(s, slug, phase_slug)
                return remote.start(sessions, phase, team, method, paper_url, patience, batch), phase.challenge.suite

        try:
            if not isinstance(batch, int) or isinstance(batch, bool):
                raise ChallengeError(f"batch {batch!r}: a whole number of episodes at once")
            method, paper_url = str(body.get("method", "")), str(body.get("paper_url", ""))
            run, suite = await run_in_threadpool(begin)
        except ChallengeError as e:
            raise HTTPException(400, str(e)) from None
        run.launch()
        return {"run": run.name, "submission": run.submission_id, "suite": suite, "batch": batch}

    @app.get("/api/remote/{name}/next")
    async def api_remote_next(request: Request, name: str, wait: float = 20.0):
        """The steps waiting for the agent's actions, one per live episode (long-polled, at most 60 s)."""
        try:
            run = remote.find(name, _token(request))
        except ChallengeError as e:
            raise HTTPException(404, str(e)) from None
        return Response(await run.next_steps(min(max(wait, 0.0), 60.0)), media_type="application/json")

    @app.post("/api/remote/{name}/act")
    async def api_remote_act(request: Request, name: str):
        """The agent's actions for steps, {answers: {slots, steps, actions, targets}, wait}; answers with the next
        steps (as /next does)."""
        try:
            run = remote.find(name, _token(request))
        except ChallengeError as e:
            raise HTTPException(404, str(e)) from None
        try:
            body = json.loads(await _body(request))
            if not isinstance(body, dict) or not isinstance(body.get("wait", 20.0), int | float):
                raise ChallengeError(f"send {{answers: {remote.ANSWERS}, wait: seconds}}")
            run.answer(body.get("answers"))
        except ChallengeError as e:
            raise HTTPException(400, str(e)) from None
        except (ValueError, RecursionError) as e:  # json's
            raise HTTPException(400, f"not JSON: {e}") from None
        state = await run.next_steps(min(max(float(body.get("wait", 20.0)), 0.0), 60.0))
        return Response(state, media_type="application/json")

    @app.get("/api/submissions/{submission_id}")
    def api_submission(submission_id: int, s: Session = Depends(session), team: Team | None = Depends(viewer)):
        return as_dict(visible_submission(s, submission_id, team))

    @app.get("/api/me")
    def api_me(s: Session = Depends(session), team: Team | None = Depends(viewer)):
        if team is None:
            raise HTTPException(401, "a team's token is needed")
        phases = s.scalars(select(Phase).order_by(Phase.id))
        left = {f"{p.challenge.slug}/{p.slug}": quota_left(s, p, team) for p in phases}
        mine = s.scalars(select(Submission).where(Submission.team_id == team.id).order_by(Submission.id))
        return {"team": team.name, "host": team.is_host, "left": left, "submissions": [as_dict(x) for x in mine]}

    @app.post("/api/submissions/{submission_id}/{verb}")
    def api_act(submission_id: int, verb: str, s: Session = Depends(session), team: Team | None = Depends(viewer)):
        found = s.get(Submission, submission_id)
        if found is None or team is None or not (team.is_host or (verb == "choose" and found.team_id == team.id)):
            raise HTTPException(404, f"no submission {submission_id} you may change")
        if verb == "hide":
            found.hidden = not found.hidden
        elif verb == "rescore":
            rescore(s, found)
        elif verb == "delete":
            remove(s, found)
        elif verb == "choose":
            for other in s.scalars(
                select(Submission).where(Submission.phase_id == found.phase_id, Submission.team_id == found.team_id)
            ):
                other.chosen = other.id == found.id
        else:
            raise HTTPException(404, f"unknown action {verb!r}: hide, rescore, delete or choose")
        s.commit()
        return {"ok": True}

    return app


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    return header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else request.cookies.get(COOKIE)


async def _body(request: Request) -> bytes:
    """The request's body, refused past MAX_UPLOAD bytes without reading it all."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_UPLOAD:
            raise HTTPException(413, f"larger than {MAX_UPLOAD // 2**20} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


def _json(value: object) -> Response:
    """A JSON answer made by `json` directly, for plain JSON values (a batch of observations, a leaderboard's
    rows): FastAPI's encoder walks every value first, which costs more than the answer's own work."""
    return Response(json.dumps(value), media_type="application/json")


def _submit(s: Session, phase: Phase, team: Team, raw: bytes, method: str, paper_url: str) -> Submission:
    if len(raw) > MAX_UPLOAD:
        raise ChallengeError(f"the action file is larger than {MAX_UPLOAD // 2**20} MiB")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ChallengeError(f"the action file is not JSON ({type(e).__name__})") from None
    submission = submit(s, phase, team, data, method, paper_url)
    s.commit()
    return submission


def _row(submission: Submission) -> dict:
    return {
        "submission": submission.id,
        "team": submission.team.name,
        "method": submission.method,
        "paper_url": submission.paper_url,
        "created": submission.created.isoformat(),
        "baseline": submission.baseline,
    }


def _challenge(challenge: Challenge) -> dict:
    return {
        "slug": challenge.slug,
        "title": challenge.title,
        "suite": challenge.suite,
        "dataset_digest": challenge.dataset_digest,
        "phases": [
            {
                "slug": p.slug,
                "title": p.title,
                "split": p.split,
                "per_day": p.per_day,
                "total": p.total,
                "concurrent": p.concurrent,
                "visibility": p.visibility,
                "ranking": p.ranking,
                "choose_one": p.choose_one,
            }
            for p in challenge.phases
        ],
    }
