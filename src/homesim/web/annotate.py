"""`homesim annotate DATASET`'s pages: ALFRED's directive-writing interface (the paper's Figure F4) for a
dataset's demonstrations, generated, imported or played by people. A demonstration plays as a video (a step
slider and play/pause) with its sub-goal segments as coloured bars under it; the annotator writes a goal and
one instruction per segment; the annotation is checked (`datasets.annotations.check_annotation`) and saved into
the dataset folder with the annotator's id and the time, where every command that reads the dataset reads it.
Annotators working at once keep each other's work (each save appends one line under a lock).

Addresses: `/` (the demonstrations), `/a/SPLIT/N` (the N-th of a split, from 1; POST saves),
`/a/SPLIT/N/frame/STEP.png`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from homesim.datasets.annotations import MIN_WORDS, check_annotation, read_annotations, write_annotation
from homesim.datasets.sources import Episodes
from homesim.evaluation.suite import Replay, Suite
from homesim.web.site import DrawingThread, new_site, page, png_response
from homesim.web.viewer import timeline
from homesim.web.viewing import REPLAYS_KEPT, Row, episode_rows


def _clean(text: str) -> str:
    return " ".join(text.split())


def create_annotate(folder: Path, suite: Suite, source: Episodes, annotator: str) -> FastAPI:
    """The annotation app over a dataset folder's episodes (read without the directives written for them)."""
    if not suite.annotatable:
        raise ValueError(f"{suite.title}'s episodes have no directives to write")
    app, templates = new_site(f"homesim annotate: {folder.name}", [("demonstrations", "/")])
    drawing = DrawingThread()
    app.router.on_shutdown.append(drawing.close)
    rows = episode_rows(0, source, suite)
    numbered = [(row, sum(r.split == row.split for r in rows[: k + 1])) for k, row in enumerate(rows)]
    replays: OrderedDict[tuple[str, int], Replay] = OrderedDict()
    lock = threading.Lock()

    def row_at(split: str, number: int) -> Row:
        chosen = [r for r in rows if r.split == split]
        if not 1 <= number <= len(chosen):
            raise HTTPException(404, f"no demonstration {number} in split {split!r}: it has {len(chosen)}")
        return chosen[number - 1]

    def demonstration(split: str, number: int) -> Replay:
        """The demonstration played again, with none of its directives (annotators write their own)."""
        key = (split, number)
        with lock:
            if key in replays:
                replays.move_to_end(key)
                return replays[key]
        bare = replace(row_at(split, number).episode, annotations=())
        made = suite.replay(bare, source.scenes, None, {})
        with lock:
            replays[key] = made
            while len(replays) > REPLAYS_KEPT:
                replays.popitem(last=False)
        return made

    def written(split: str) -> dict[str, list[dict]]:
        found: dict[str, list[dict]] = {}
        for line in read_annotations(folder, split):
            found.setdefault(line["episode"], []).append(line)
        return found

    @app.get("/", response_class=HTMLResponse)
    def index(request: Request):
        by_split = {split: written(split) for split in source.splits}
        return page(templates, request, "annotate_index.html", folder=folder, numbered=numbered, written=by_split)

    def episode_page(request: Request, split: str, number: int, status: int = 200, **context) -> HTMLResponse:
        row, replay = row_at(split, number), demonstration(split, number)
        shown = {"source": None, "row": row, "replay": replay, "problem": "", "base": f"/a/{split}/{number}",
                 "timeline": timeline(replay), "series": {}}  # fmt: skip
        count = len(replay.segment_names)
        context = {"directives": [""] * count, "goal": "", "annotator": annotator, "problems": []} | context
        return page(
            templates, request, "annotate_episode.html", status, folder=folder, row=row, number=number, pane=shown,
            steps=replay.steps, step=0, images=["rgb"], written=written(split).get(row.episode_id, []),
            minimum=MIN_WORDS, own=row.episode.annotations, **context,
        )  # fmt: skip

    @app.get("/a/{split}/{number}", response_class=HTMLResponse)
    def annotate_page(request: Request, split: str, number: int, saved: int = 0):
        return episode_page(request, split, number, saved=saved)

    @app.post("/a/{split}/{number}")
    async def save(request: Request, split: str, number: int):
        row, replay = row_at(split, number), demonstration(split, number)
        form = await request.form()
        who, goal = _clean(str(form.get("annotator", ""))), _clean(str(form.get("goal", "")))
        directives = [_clean(str(d)) for d in form.getlist("directive")]
        problems = check_annotation(goal, directives, len(replay.segment_names), who)
        if problems:
            return episode_page(request, split, number, 400, problems=problems, goal=goal, directives=directives,
                                annotator=who)  # fmt: skip
        write_annotation(folder, split, row.episode_id, goal, directives, who)
        return RedirectResponse(f"/a/{split}/{number}?saved=1", status_code=303)

    @app.get("/a/{split}/{number}/frame/{step}.png")
    def frame(split: str, number: int, step: int, image: str = "rgb"):
        replay = demonstration(split, number)
        if not 0 <= step < replay.steps or image not in replay.images:
            raise HTTPException(
                404, f"no picture {image!r} at step {step}: the demonstration has steps 0 to {replay.steps - 1}"
            )
        return png_response(drawing.picture(replay, step, image))

    return app
