"""HandMeThat's baselines on generated episodes beside the paper's Tables 2 and 3: success % per hardness level
(expert, random, heuristic; partially and fully observable), homesim's with its 95% bootstrap interval,
the paper's after it where it has one (the paper runs its heuristic fully observable only).

    python bench/handmethat_baselines.py [--episodes 400] [--seed 0] [--workers 2] [--json out.json]

Each run is `homesim evaluate --suite handmethat` on one generated dataset; the full tables (score,
success, moves) are `homesim report OUT/runs/* --table handmethat`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from homesim.datasets.handmethat import generate as generation
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.handmethat.report import LEVELS, OVERALL, PUBLISHED, level_figures
from homesim.evaluation.records import read_records
from homesim.parallel import Workers

AGENTS, SETTINGS = ("expert", "random", "heuristic"), ("partial", "full")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    console = Console()
    out = args.out or Path(tempfile.mkdtemp(prefix="hmt-baselines-"))
    splits, _ = generation.generate(args.episodes, args.seed, Workers(args.workers))
    table = Table(title=f"HandMeThat success % per level, {args.episodes} generated episodes (seed {args.seed})")
    for column in ("agent", "observability", *LEVELS, OVERALL):
        table.add_column(column, justify="left" if column in ("agent", "observability") else "right")
    results = {}
    for agent in AGENTS:
        for setting in SETTINGS:
            config = EvaluationConfig(agent=agent, suite="handmethat", options={"observability": setting})
            run = out / "runs" / f"{agent}-{setting}"
            evaluate(splits, {}, config, run, Workers(args.workers), overwrite=True)  # (the last run's, replaced)
            figures = level_figures(read_records(run / "records.jsonl"))
            results[f"{agent}/{setting}"] = figures
            paper = [success for _, success, _ in PUBLISHED[setting].get(agent.capitalize(), ())]  # Tables 2 and 3
            cells = []
            for i, column in enumerate((*LEVELS, OVERALL)):
                f = figures.get(column)
                if f is None:
                    cells.append("-")
                    continue
                low, high = f["success_rate"]["ci95"]
                cell = f"{100 * f['success_rate']['value']:.1f} [{100 * low:.0f}-{100 * high:.0f}] n={f['episodes']}"
                cells.append(cell + (f" (paper {paper[i]})" if paper and i < len(paper) else ""))
            table.add_row(agent, setting, *cells)
    console.print(table)
    console.print(f"runs in {out}/runs: homesim report {out}/runs/* --table handmethat")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
