"""The viewer's speed on a real run: the expert evaluated on ALFRED's valid_seen (251 trajectories x their
annotations = 820 records), then `homesim view`'s app served over HTTP on 127.0.0.1 and asked for the frame
at a step of episodes drawn at random: the first frame of an episode not seen yet (its record played again,
its scene perhaps uploaded), and then another step of the same episode, each picture and the map. Target:
a frame served in under 100 ms.

    python bench/viewer_speed.py [--trajectories PATH] [--layouts DIR] [--episodes 60] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from rich.console import Console
from rich.table import Table

from homesim.cli.browser import listening_socket
from homesim.datasets.alfred.importer import import_alfred
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.web.viewer import create_viewer
from homesim.web.viewing import load_sources

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "alfred"
TARGET_MS = 100.0


def serving(app) -> tuple[str, uvicorn.Server]:
    sock = listening_socket(None)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server


def timed(client: httpx.Client, url: str) -> float:
    begin = time.perf_counter()
    answer = client.get(url)
    answer.raise_for_status()
    return 1000 * (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trajectories", type=Path, default=SHARED / "trajectories" / "valid_seen.jsonl.gz")
    parser.add_argument("--layouts", type=Path, default=SHARED / "layouts")
    parser.add_argument("--episodes", type=int, default=60, help="episodes asked for (each: a first frame, then more)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    splits, scenes, _ = import_alfred(args.trajectories, args.layouts)
    with tempfile.TemporaryDirectory() as out:
        begin = time.perf_counter()
        evaluate(splits, scenes, EvaluationConfig(agent="expert"), out)
        evaluated = time.perf_counter() - begin
        begin = time.perf_counter()
        sources = load_sources([Path(out)], [args.trajectories], args.layouts)
        loaded = time.perf_counter() - begin
    rows = sources[0].rows
    base, server = serving(create_viewer(sources))
    rng = random.Random(0)
    times: dict[str, list[float]] = {"first frame of an episode": [], "another step's frame": [], "depth": [],
                                     "segmentation": [], "mask": [], "map": [], "episode page": []}  # fmt: skip
    with httpx.Client(timeout=60) as client:
        start_up = timed(client, f"{base}/s/0/1/frame/0.png")  # the renderer's context is made on first use
        for row in rng.sample(rows[1:], args.episodes):
            page = f"{base}/s/0/{row.number}"
            steps = len(row.record.actions) + 1
            step, other = rng.randrange(steps), rng.randrange(steps)
            times["first frame of an episode"].append(timed(client, f"{page}/frame/{step}.png"))
            times["another step's frame"].append(timed(client, f"{page}/frame/{other}.png"))
            for picture in ("depth", "segmentation", "mask"):
                times[picture].append(timed(client, f"{page}/frame/{other}.png?image={picture}"))
            times["map"].append(timed(client, f"{page}/map/{other}.png"))
            times["episode page"].append(timed(client, page))
    server.should_exit = True
    table = Table(
        title=f"homesim view on the expert's {len(rows)} valid_seen records: ms per request, {args.episodes} episodes"
    )
    for column in ("request", "median", "p90", "max", f"< {TARGET_MS:.0f} ms"):
        table.add_column(column, justify="left" if column == "request" else "right")
    figures = {"records": len(rows), "evaluate_s": evaluated, "load_s": loaded, "first_request_ms": start_up}
    for name, ms in times.items():
        ms.sort()
        p90 = ms[int(0.9 * (len(ms) - 1))]
        figures[name] = {"median": statistics.median(ms), "p90": p90, "max": ms[-1]}
        within = sum(m < TARGET_MS for m in ms)
        table.add_row(name, f"{statistics.median(ms):.1f}", f"{p90:.1f}", f"{ms[-1]:.1f}", f"{within}/{len(ms)}")
    console = Console()
    console.print(table)
    console.print(
        f"evaluation {evaluated:.1f} s; loading the run and its {len(splits['valid_seen'])} trajectories {loaded:.1f} s;"
        f" the very first frame (the OpenGL context made) {start_up:.0f} ms"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
