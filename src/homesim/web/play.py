"""`homesim play --web SUITE`'s pages: a person plays the suite's episodes in the browser as its suite says
(`Suite.person`: keys to move and turn, a click on the view for an aimed action, or commands typed with the
admissible ones offered), under the suite's own protocol. Each episode played becomes a record of a run folder
like any evaluation's (`run.json` with agent "human", `records.jsonl`, `summary.json`), so `homesim report` and
`homesim view` read the person's row as any agent's; a won episode whose suite makes demonstrations (ALFRED)
also joins the dataset folder `demonstrations/` there, which `homesim alfred frames` and `homesim annotate` read.

Addresses: `/` (the episodes, and the records so far), POST `/play/SPLIT/N` (start the N-th episode of a
split, from 1), `/game/ID` (its page), `/game/ID/view.png`, `/api/games/ID` (what the person sees, JSON), POST
`/api/games/ID/act` ({"action", "row", "column"}: an action, aimed at a pixel; a command for text games).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections import OrderedDict
from dataclasses import asdict
from pathlib import Path

from fastapi import Body, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from homesim.datasets.folder import is_dataset, read_dataset, write_dataset
from homesim.datasets.sources import Episodes
from homesim.errors import DataError
from homesim.evaluation.evaluate import EvaluationConfig, read_run, summary_of
from homesim.evaluation.records import EpisodeRecord, read_records
from homesim.evaluation.suite import Game, Suite
from homesim.web.site import DrawingThread, new_site, page, png_response
from homesim.web.viewing import episode_rows

PERSON = "human"  # a person's runs' agent, as `homesim report` and `homesim view` name the row
GAMES_KEPT = 4  # episodes being played at once (each keeps its env, and its OpenGL context)


def _write(path: Path, text: str) -> None:
    """Writes a file whole or not at all."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


class PersonRun:
    """The run folder a person's episodes go to. An existing one is continued (its records kept), if it is a
    person's run of the same suite; anything else there is a DataError before serving."""

    def __init__(self, out: Path, suite: Suite, source: Episodes) -> None:
        settings = dict(suite.person.settings) if suite.person else {}
        self.config = EvaluationConfig(
            agent=PERSON, suite=suite.name, interface=suite.interfaces[0], options=suite.options({}, {}),
            interaction=str(settings.get("interaction", "oracle")), pixels=tuple(settings.get("pixels", ())),
        )  # fmt: skip
        self.out, self.suite, self.lock = out, suite, threading.Lock()
        self.records: list[EpisodeRecord] = []
        if (out / "run.json").exists():
            try:
                found = read_run(out)
            except (OSError, json.JSONDecodeError, TypeError, ValueError) as e:
                raise DataError(str(out / "run.json"), "(file)", f"not a run's settings: {e}") from e
            if (found.agent, found.suite) != (PERSON, suite.name):
                raise DataError(str(out / "run.json"), "agent", f"a run of {found.agent} on {found.suite}, not of a"
                                f" person on {suite.name}: give another --out")  # fmt: skip
            if (out / "records.jsonl").exists():
                self.records = read_records(out / "records.jsonl")
        elif out.exists() and any(out.iterdir()):
            raise DataError(str(out), "--out", "holds files but no run.json: give an empty or new folder")
        self.demos, self.scenes = {}, dict(source.scenes)
        folder = out / "demonstrations"
        if is_dataset(folder):
            self.demos, scenes = read_dataset(folder, annotations=False)  # directives written there stay apart
            self.scenes |= scenes

    def add(self, record: EpisodeRecord, demonstration: object | None) -> int:
        """Keeps an episode played (and its demonstration): the record appended, the summary written anew.
        Returns the record's number in the run, from 1."""
        with self.lock:
            self.out.mkdir(parents=True, exist_ok=True)
            _write(self.out / "run.json", json.dumps(asdict(self.config), indent=1, sort_keys=True))
            with open(self.out / "records.jsonl", "a", encoding="utf-8") as sink:
                sink.write(record.to_json() + "\n")
            self.records.append(record)
            summary = summary_of(self.records, self.config)
            _write(self.out / "summary.json", json.dumps(summary, indent=1, sort_keys=True))
            if demonstration is not None:
                self.demos.setdefault(record.split, []).append(demonstration)
                source = {"played by": "people, in homesim play --web", "run": str(self.out)}
                write_dataset(self.out / "demonstrations", self.demos, self.scenes, source, self.suite.name)
            return len(self.records)


def _state(game: Game, recorded: dict) -> dict:
    seen = game.view()
    return {"text": seen.text, "commands": seen.commands, "step": seen.step, "message": seen.message,
            "over": game.over, "image": seen.image is not None} | recorded  # fmt: skip


def create_play(suite: Suite, source: Episodes, run: PersonRun) -> FastAPI:
    """The play app over the episodes read beforehand, writing to `run`."""
    if suite.person is None:
        raise ValueError(f"{suite.title} cannot be played in the browser")
    person = suite.person
    app, templates = new_site(f"homesim play: {suite.title}", [("episodes", "/")])
    drawing = DrawingThread()
    app.router.on_shutdown.append(drawing.close)
    rows = episode_rows(0, source, suite)
    numbered = [(row, sum(r.split == row.split for r in rows[: k + 1])) for k, row in enumerate(rows)]  # in its split
    games: OrderedDict[str, tuple[Game, dict]] = OrderedDict()  # id -> (game, what its record became)
    lock = threading.Lock()

    def game_of(game_id: str) -> tuple[Game, dict]:
        with lock:
            if game_id not in games:
                raise HTTPException(404, f"no episode being played under {game_id!r} (a new one starts from /)")
            return games[game_id]

    @app.get("/", response_class=HTMLResponse)
    def index(request: Request):
        return page(templates, request, "play_index.html", suite=suite, numbered=numbered, run=run)

    @app.post("/play/{split}/{number}")
    def start(split: str, number: int):
        chosen = [r for r in rows if r.split == split]
        if not 1 <= number <= len(chosen):
            raise HTTPException(404, f"no episode {number} in split {split!r}: it has {len(chosen)}")
        game = drawing.run(person.game, chosen[number - 1].episode, source.scenes, split, run.config.options)
        game_id = secrets.token_urlsafe(8)
        with lock:
            games[game_id] = (game, {})
            while len(games) > GAMES_KEPT:
                drawing.run(games.popitem(last=False)[1][0].close)
        return RedirectResponse(f"/game/{game_id}", status_code=303)

    @app.get("/game/{game_id}", response_class=HTMLResponse)
    def game_page(request: Request, game_id: str):
        game, _ = game_of(game_id)
        choose = {str(k + 1): action for k, action in enumerate(person.aimed)}  # number keys pick the aimed action
        return page(templates, request, "play_game.html", suite=suite, person=person, game_id=game_id,
                    episode=suite.episode_id(game.episode), choose=choose)  # fmt: skip

    @app.get("/game/{game_id}/view.png")
    def view(game_id: str):
        game, _ = game_of(game_id)
        image = drawing.run(lambda: game.view().image)
        if image is None:
            raise HTTPException(404, "this game is text: it has no view")
        answer = png_response(image)
        answer.headers["Cache-Control"] = "no-store"
        return answer

    @app.get("/api/games/{game_id}")
    def state(game_id: str):
        game, recorded = game_of(game_id)
        return drawing.run(_state, game, recorded)

    @app.post("/api/games/{game_id}/act")
    def act(game_id: str, body: dict = Body(...)):
        game, recorded = game_of(game_id)
        action, row, column = body.get("action"), body.get("row"), body.get("column")
        if not isinstance(action, str) or not action:
            raise HTTPException(400, 'give {"action": ...} (and "row", "column" for an aimed action)')
        pixel = (row, column) if isinstance(row, int) and isinstance(column, int) else None
        try:
            drawing.run(game.act, action, pixel)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        if game.over and not recorded:
            record = drawing.run(game.record)
            number = run.add(record, drawing.run(game.demonstration))
            recorded |= {"record": number, "success": record.goal_satisfied, "ending": record.end_reason,
                         "where": str(run.out / "records.jsonl")}  # fmt: skip
        return drawing.run(_state, game, recorded)

    return app
