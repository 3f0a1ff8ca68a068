"""The LLM agent's own overhead per step (the issue's bar: under 1 ms): the time in the agent's `act` (the
observation as text, the prompt rendered and clipped, the cache looked up and written, the reply parsed) less
the time the endpoint took to answer. The endpoint is the stand-in's expert model called in-process (no HTTP),
so the prompts, histories and replies are a real run's; its replay time is the endpoint's and is left out.

    python3 bench/llm_harness.py --episodes ../shared/data/alfred/samples/json_2.1.0 --layouts ../shared/data/alfred/layouts
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from llm_standin import expert_model  # noqa: E402

from homesim.datasets.sources import read_episodes  # noqa: E402
from homesim.evaluation.evaluate import EvaluationConfig  # noqa: E402
from homesim.evaluation.suites import suite_named  # noqa: E402
from homesim.llm.agent import LLMAgent  # noqa: E402
from homesim.llm.endpoint import Answer  # noqa: E402


class InProcess:
    """The expert model as an endpoint, timed."""

    def __init__(self, model) -> None:
        self.model, self.seconds, self.cpu = model, 0.0, 0.0

    def ask(self, request: dict, key: str | None = None) -> Answer:
        started, cpu = time.perf_counter(), time.process_time()
        text = self.model(request)
        self.seconds += time.perf_counter() - started
        self.cpu += time.process_time() - cpu
        return Answer(text, 10, 2, 0.0)


class Timed(LLMAgent):
    seconds = cpu = 0.0
    steps = 0

    def act(self, observation: dict):
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return super().act(observation)
        finally:
            Timed.seconds += time.perf_counter() - started
            Timed.cpu += time.process_time() - cpu
            Timed.steps += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="alfred")
    parser.add_argument("--episodes")
    parser.add_argument("--layouts")
    parser.add_argument("--interface", default="text")
    parser.add_argument("--items", type=int, default=200, help="work items played at most")
    parser.add_argument("--preset", default="react")
    parser.add_argument("--examples", type=int, default=1)
    args = parser.parse_args()
    source = read_episodes(args.episodes, args.layouts, None, args.suite)
    suite = suite_named(source.suite)
    model = expert_model(suite.name, args.episodes, args.layouts, args.interface, {})
    with tempfile.TemporaryDirectory() as folder:
        options = {"model": "bench", "cache": f"{folder}/cache.sqlite", "preset": args.preset, "examples": args.examples,
                   "examples_from": args.episodes, "layouts": args.layouts, "context": 100_000}  # fmt: skip
        config = EvaluationConfig(agent="llm", suite=suite.name, interface=args.interface, agent_options=options)
        agent = Timed(config, suite)
        endpoint = agent.endpoint = InProcess(model)
        runner = suite.runner(source.splits, source.scenes, config, agent)
        items = suite.work_items(source.splits, config)[: args.items]
        agent._examples()  # made once, before the clock
        won = sum(runner.run(item).goal_satisfied for item in items)
        steps = max(1, Timed.steps)
        overhead, cpu = (Timed.seconds - endpoint.seconds) / steps, (Timed.cpu - endpoint.cpu) / steps
        print(
            f"{len(items)} episodes ({won} won), {Timed.steps} steps, preset {args.preset}, {args.examples} example(s)"
        )
        print(
            f"harness CPU time per step: {1000 * cpu:.3f} ms (on a machine shared with others, wall time counts their work)"
        )
        print(
            f"harness overhead per step: {1000 * overhead:.3f} ms (act {1000 * Timed.seconds / max(1, Timed.steps):.3f} ms"
            f" less the endpoint's {1000 * endpoint.seconds / max(1, Timed.steps):.3f} ms); bar: 1 ms"
        )


if __name__ == "__main__":
    main()
