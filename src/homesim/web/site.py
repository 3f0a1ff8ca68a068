"""What every web face of homesim shares (the challenge server, the viewer, play and annotation): one set of
Jinja2 templates (autoescaped) with one layout, the static files, the error page (JSON under /api/), PNG
responses, and the one thread that draws: an OpenGL context belongs to the thread that uses it, so every
picture a page asks for is drawn there, one after another."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader

from homesim.evaluation.suite import Replay
from homesim.render.context import RenderingUnavailable
from homesim.render.pictures import png

HERE = Path(__file__).parent
T = TypeVar("T")


def new_site(
    name: str, links: Sequence[tuple[str, str]] = (), accounts: bool = False
) -> tuple[FastAPI, Jinja2Templates]:
    """An app with the static files mounted and errors shown as the error page; its templates know the site's
    `name` and the `links` of its header (`accounts`: the challenge server's sign-in)."""
    app = FastAPI(title=name, docs_url="/api/docs" if accounts else None, redoc_url=None)
    environment = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True)
    environment.globals["site"] = {"name": name, "links": list(links), "accounts": accounts}
    templates = Jinja2Templates(env=environment)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.exception_handler(HTTPException)
    async def _error(request: Request, error: HTTPException):
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": error.detail}, status_code=error.status_code)
        context = {"message": error.detail, "team": None}
        return templates.TemplateResponse(request, "error.html", context, status_code=error.status_code)

    @app.exception_handler(RequestValidationError)
    async def _no_such_page(request: Request, error: RequestValidationError):
        """An address whose numbers are not numbers (`/s/x`) names no page."""
        wrong = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": wrong}, status_code=422)
        context = {"message": f"no such page ({wrong})", "team": None}
        return templates.TemplateResponse(request, "error.html", context, status_code=404)

    return app, templates


def page(templates: Jinja2Templates, request: Request, name: str, status: int = 200, **context) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status)


def png_response(picture: np.ndarray) -> Response:
    return Response(png(picture), media_type="image/png", headers={"Cache-Control": "max-age=3600"})


class DrawingThread:
    """The one thread that uses OpenGL: `run(f, ...)` calls f there and waits for its answer; `picture` draws a
    replay's step with a renderer of its camera, one made per camera and kept."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="homesim-drawing")
        self.renderers: dict[tuple, object] = {}  # by camera settings; made and used on the drawing thread only

    def run(self, function: Callable[..., T], *args: object) -> T:
        return self.pool.submit(function, *args).result()

    def picture(self, replay: Replay, step: int, image: str) -> np.ndarray:
        """The replay's `image` at `step`; a 503 page when no OpenGL context can be made here."""
        try:
            return self.run(lambda: replay.image(step, image, self._renderer(replay.camera)))
        except RenderingUnavailable as e:
            raise HTTPException(503, str(e)) from None

    def _renderer(self, camera: dict):
        from homesim.render.renderer import Renderer

        key = tuple(sorted(camera.items()))
        if key not in self.renderers:
            self.renderers[key] = Renderer(**camera)
        return self.renderers[key]

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
