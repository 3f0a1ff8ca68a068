"""`homesim view`'s pages: the episode table of every run and dataset given (filters, each run's summary with
95% intervals and its result plots), and an episode's page, alone or beside the same episode in another run:
a step slider with play/pause, the egocentric picture at that step drawn on demand (RGB, depth, instance
segmentation, the next action's target mask), the map with the path so far and the goals, the actions with
each failure's message, the suite's figures over the steps, the sub-goal timeline, the text games' transcript
and the agent's own replies where its record keeps them (an LLM's). What is drawn, and how, is the suite's
(`Suite.replay`); nothing here names a suite.

Addresses: `/` (every episode), `/s/I` (source I), `/s/I/N` (its N-th episode, from 1; `?compare=J` adds
source J's), `/s/I/N/frame/STEP.png?image=rgb|depth|segmentation|mask`, `/s/I/N/map/STEP.png`,
`/s/I/plot/NAME.png`. An index or step out of range is a 404 page.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse

from homesim.evaluation.plots import breakdown_charts
from homesim.evaluation.records import NotPlayable
from homesim.evaluation.suite import Replay
from homesim.web.site import DrawingThread, new_site, page, png_response
from homesim.web.viewing import Replays, Row, Source, choices, filter_names, filtered, partners

ROWS_PER_PAGE = 100
CHART_WIDTH, CHART_HEIGHT = 300, 70  # the figures-over-steps charts, in SVG units
SEGMENT_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")


def _polyline(values: Sequence[float | None], steps: int, scale: tuple[float, float]) -> dict:
    """A series as SVG polyline pieces (gaps where a value is unknown), scaled to the chart's (low, high)."""
    known = [v for v in values if v is not None]
    low, high = scale
    pieces, piece = [], []
    for k, v in enumerate(values):
        if v is None:
            pieces, piece = pieces + ([piece] if piece else []), []
            continue
        x = CHART_WIDTH * k / max(steps - 1, 1)
        piece.append(f"{x:.1f},{CHART_HEIGHT - CHART_HEIGHT * (v - low) / (high - low):.1f}")
    pieces += [piece] if piece else []
    return {"pieces": [" ".join(p) for p in pieces], "low": low, "high": high, "last": known[-1] if known else None}


def timeline(replay: Replay) -> list[dict]:
    """The sub-goal segments as coloured bars: consecutive steps on one sub-goal make one bar."""
    bars: list[dict] = []
    for k, index in enumerate(replay.segments):
        if bars and bars[-1]["index"] == index:
            bars[-1]["steps"] += 1
            continue
        count = len(replay.segment_names)
        name = f"{index + 1}/{count} " + (replay.segment_names[index] if 0 <= index < count else "")
        bars.append({"index": index, "start": k, "steps": 1, "name": name,
                     "colour": SEGMENT_COLOURS[index % len(SEGMENT_COLOURS)]})  # fmt: skip
    total = max(len(replay.segments), 1)
    for bar in bars:
        bar["width"] = 100 * bar["steps"] / total
    return bars


def agent_replies(row: Row) -> list[tuple[int, str]]:
    """What the agent wrote for each action, where its record keeps it (`measures["agent"]["transcript"]`, the
    LLM agent's [reply, command or None, how]), each with the step its action led to (a last reply that ended
    the episode without an action: its last step)."""
    agent = row.record.measures.get("agent") if row.record is not None else None
    kept = agent.get("transcript") if isinstance(agent, dict) else None
    if not isinstance(kept, list):
        return []
    last = len(row.record.actions)
    return [
        (min(k + 1, last), f"{reply}\n-> {command} ({how})" if command else f"{reply}\n-> invalid: {how}")
        for k, (reply, command, how) in enumerate(kept)
    ]


def create_viewer(sources: list[Source]) -> FastAPI:
    """The viewer's app over sources read beforehand (`web.viewing.load_sources`)."""
    app, templates = new_site("homesim view", [("episodes", "/")])
    replays = Replays(sources)
    drawing = DrawingThread()
    app.router.on_shutdown.append(drawing.close)
    charts: dict[int, dict] = {}
    charts_lock = threading.Lock()

    def source_at(index: int) -> Source:
        if not 0 <= index < len(sources):
            raise HTTPException(404, f"no source {index}: there are {len(sources)} (0 to {len(sources) - 1})")
        return sources[index]

    def row_at(source: Source, number: int) -> Row:
        if not 1 <= number <= len(source.rows):
            raise HTTPException(
                404, f"no episode {number} in {source.name}: it has {len(source.rows)} (1 to {len(source.rows)})"
            )
        return source.rows[number - 1]

    def replay_at(index: int, number: int, step: int) -> Replay:
        row = row_at(source_at(index), number)
        try:
            replay = replays.of(row)
        except NotPlayable as e:
            raise HTTPException(404, str(e)) from None
        if not 0 <= step < replay.steps:
            raise HTTPException(404, f"no step {step}: episode {number} has steps 0 to {replay.steps - 1}")
        return replay

    def table(request: Request, rows: list[Row], number: int) -> dict:
        chosen = {name: request.query_params.get(name, "") for name in filter_names(sources)}
        shown = filtered(sources, rows, chosen)
        pages = max(1, -(-len(shown) // ROWS_PER_PAGE))
        if not 1 <= number <= pages:
            raise HTTPException(404, f"no page {number}: the table has {pages}")
        start = (number - 1) * ROWS_PER_PAGE
        return {
            "rows": shown[start : start + ROWS_PER_PAGE],
            "matching": len(shown),
            "total": len(rows),
            "choices": choices(sources, rows),
            "chosen": chosen,
            "page_number": number,
            "pages": pages,
            "query": "&".join(f"{k}={v}" for k, v in chosen.items() if v),
        }

    @app.get("/", response_class=HTMLResponse)
    def index(request: Request, page_number: int = 1):
        rows = [row for source in sources for row in source.rows]
        return page(templates, request, "view_index.html", sources=sources, **table(request, rows, page_number))

    @app.get("/s/{index}", response_class=HTMLResponse)
    def source_page(request: Request, index: int, page_number: int = 1):
        source = source_at(index)
        shown = table(request, source.rows, page_number)
        return page(
            templates, request, "view_source.html", sources=sources, source=source, plots=list(_charts(source)), **shown
        )

    def _charts(source: Source) -> dict:
        with charts_lock:
            if source.index not in charts:
                made = {}
                if source.summary is not None:
                    breakdowns = list(source.suite.metrics.breakdowns)
                    made = breakdown_charts(source.summary["splits"], source.suite.success, breakdowns)
                charts[source.index] = made
            return charts[source.index]

    @app.get("/s/{index}/plot/{name}.png")
    def plot(index: int, name: str):
        made = _charts(source_at(index))
        if name not in made:
            raise HTTPException(404, f"no plot {name!r}; there are {', '.join(made) or 'none'}")
        return png_response(made[name])

    def pane(source: Source, row: Row) -> dict:
        try:
            replay, problem = replays.of(row), ""
        except NotPlayable as e:
            replay, problem = None, str(e)
        base = f"/s/{source.index}/{row.number}"
        return {"source": source, "row": row, "replay": replay, "problem": problem, "base": base,
                "replies": agent_replies(row)}  # fmt: skip

    def figures_over_steps(panes: list[dict]) -> None:
        """Each pane's figures over its steps, a figure on one scale in every pane (0 included)."""
        shown = [p for p in panes if p["replay"] is not None]
        scales: dict[str, tuple[float, float]] = {}
        for p in shown:
            for name, values in p["replay"].series.items():
                known = [v for v in values if v is not None] + [0.0]
                low, high = scales.get(name, (0.0, 0.0))
                scales[name] = (min(low, *known), max(high, *known))
        scales = {name: (low, high if high > low else low + 1.0) for name, (low, high) in scales.items()}
        for p in shown:
            replay = p["replay"]
            p["series"] = {n: _polyline(v, replay.steps, scales[n]) for n, v in replay.series.items()}
            p["timeline"] = timeline(replay)

    @app.get("/s/{index}/{number}", response_class=HTMLResponse)
    def episode_page(request: Request, index: int, number: int, compare: int | None = None, step: int = 0):
        source = source_at(index)
        row = row_at(source, number)
        others = partners(sources, row)
        panes = [pane(source, row)]
        if compare is not None:
            match = [r for r in others if r.source == compare]
            if not match:
                raise HTTPException(
                    404, f"source {compare} has no record of episode {row.episode_id} (split {row.split})"
                )
            panes.append(pane(sources[compare], match[0]))
        figures_over_steps(panes)
        steps = max([p["replay"].steps for p in panes if p["replay"] is not None] or [1])
        if not 0 <= step < steps:
            raise HTTPException(404, f"no step {step}: the episode has steps 0 to {steps - 1}")
        images = list(dict.fromkeys(i for p in panes if p["replay"] is not None for i in p["replay"].images))
        return page(
            templates, request, "view_episode.html", sources=sources, source=source, row=row, panes=panes,
            others=others, steps=steps, step=step, images=images, chart=(CHART_WIDTH, CHART_HEIGHT),
        )  # fmt: skip

    @app.get("/s/{index}/{number}/frame/{step}.png")
    def frame(index: int, number: int, step: int, image: str = "rgb"):
        replay = replay_at(index, number, step)
        if image not in replay.images:
            raise HTTPException(
                404, f"no picture {image!r} of this episode; it has {', '.join(replay.images) or 'none'}"
            )
        return png_response(drawing.picture(replay, step, image))

    @app.get("/s/{index}/{number}/map/{step}.png")
    def top_down(index: int, number: int, step: int):
        replay = replay_at(index, number, step)
        if replay.top_down is None:
            raise HTTPException(404, "this episode has no map")
        return png_response(replay.top_down(step))

    return app
