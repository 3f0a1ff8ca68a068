"""A stand-in for an OpenAI-compatible endpoint, on 127.0.0.1, answering from a script: what the LLM agent's
tests and demonstrations talk to (no language model can be reached here). It serves `GET /v1/models`,
`POST /v1/chat/completions` and `POST /v1/completions` (echoed log-probabilities, for the scoring mode), keeps
every request it got, and stops after `max_requests` requests or `lifetime` seconds, whichever comes first.

A script is a function from the request's body to a `Reply` (or a text). `ExpertModel` is the script of a
model that answers the expert's command: it finds the episode by the conversation's first observation,
replays the commands said so far through the suite's own runner, and answers the expert's next command.

    python3 tests/llm_standin.py --suite alfred --episodes DATA [--layouts L] [--interface text] --port 8765
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TURN_END = "\n\nCommands you may say now:"  # where the presets' turn block puts the commands


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    headers: dict = field(default_factory=dict)
    raw: bytes | None = None  # sent as the body, as is


class StandIn:
    """The server, in a thread of its own; `url` is its base URL (`.../v1`)."""

    def __init__(
        self, script: Callable[[dict], Reply | str], model: str = "stand-in", max_requests: int = 100_000,
        lifetime: float = 1800.0, port: int = 0, score: Callable[[str], float] | None = None,
    ) -> None:  # fmt: skip
        self.script, self.model, self.max_requests, self.score = script, model, max_requests, score
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(Reply(json.dumps({"object": "list", "data": [{"id": standin.model}]})), raw=True)
                else:
                    self._send(Reply("not found", 404), raw=True)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                with standin.lock:
                    standin.requests.append(body | {"path": self.path})
                    if len(standin.requests) > standin.max_requests:
                        self._send(Reply("too many requests for this stand-in", 503), raw=True)
                        return
                    if self.path.endswith("/completions") and not self.path.endswith("/chat/completions"):
                        self._send(Reply(json.dumps(standin.completions(body))), raw=True)
                        return
                    reply = standin.script(body)
                self._send(reply if isinstance(reply, Reply) else Reply(reply))

            def _send(self, reply: Reply, raw: bool = False) -> None:
                if reply.raw is not None:
                    payload = reply.raw
                elif raw or reply.status != 200:
                    payload = reply.text.encode()
                else:
                    payload = json.dumps({
                        "id": "standin", "object": "chat.completion", "model": standin.model,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
                    }).encode()  # fmt: skip
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.deadline = threading.Timer(lifetime, self.server.shutdown)
        self.deadline.daemon = True

    def completions(self, body: dict) -> dict:
        """Echoed prompts, one "token" a character, each scored by `score(candidate)` spread over its characters."""
        choices = []
        for i, prompt in enumerate(body["prompt"]):
            cut = _common(body["prompt"])
            value = self.score(prompt[cut:]) if self.score else 0.0
            rest = max(1, len(prompt) - cut)
            logprobs = [None] + [0.0] * (cut - 1) + [value / rest] * (len(prompt) - cut)
            choices.append({"index": i, "text": prompt, "logprobs": {
                "tokens": list(prompt), "token_logprobs": logprobs[: len(prompt)], "text_offset": list(range(len(prompt)))}})  # fmt: skip
        return {"object": "text_completion", "choices": choices, "usage": {"prompt_tokens": 7, "completion_tokens": 0}}

    def __enter__(self) -> StandIn:
        self.thread.start()
        self.deadline.start()
        return self

    def __exit__(self, *exc) -> None:
        self.deadline.cancel()
        self.server.shutdown()
        self.server.server_close()


def _common(prompts: list[str]) -> int:
    """The length of the prompts' common prefix (the chat; each candidate follows it)."""
    first = prompts[0]
    n = len(first)
    for p in prompts[1:]:
        n = next((i for i, (a, b) in enumerate(zip(first[:n], p, strict=False)) if a != b), min(n, len(p)))
    return n


def chat_turns(body: dict) -> tuple[list[str], list[str]]:
    """The observations of a chat's turns (as the presets write them) and the commands said between them."""
    from homesim.llm.parse import action_text

    turns = [m["content"].split(TURN_END)[0] for m in body["messages"] if m["role"] == "user"]
    said = [action_text(m["content"]) for m in body["messages"] if m["role"] == "assistant"]
    return turns, said


class ExpertModel:
    """Answers the expert's next command in the conversation's episode (`Suite.text_play.expert`), as ReAct
    would write it ("Thought: ...", "Action: ..."); nonsense where no episode fits the conversation."""

    needs_expert_hints = True

    def __init__(self, suite, splits, scenes, config) -> None:
        self.suite, self.play = suite, suite.text_play
        self.observations = self.play.pixels
        self.runner = suite.runner(splits, scenes, config, self)
        self.firsts: dict[str, list] = {}
        for item in suite.work_items(splits, config):
            self._replay(item, [])
            self.firsts.setdefault(self.seen[0], []).append(item)

    def reset(self, task) -> None:
        pass

    def act(self, observation: dict):
        self.seen.append(self.suite.observation_text(observation))
        if len(self.seen) <= len(self.commands):
            return _agent_action(self.play.action(self.commands[len(self.seen) - 1]))
        self.next = self.play.expert(observation)
        return _agent_action(self.play.action(self.play.stop))

    def _replay(self, item, commands: list[str]) -> None:
        self.commands, self.seen, self.next = commands, [], None
        self.runner.run(item)

    def __call__(self, body: dict) -> str:
        turns, said = chat_turns(body)
        for item in self.firsts.get(turns[0], []):
            self._replay(item, said)
            if self.seen[: len(turns)] == turns and self.next is not None:
                command, subgoal = self.next
                return f"Thought: I need to {subgoal or command}.\nAction: {command}"
        return "I do not know this game."


def _agent_action(answer):
    from homesim.agents.protocol import AgentAction

    return answer if isinstance(answer, AgentAction) else AgentAction(answer)


def expert_model(
    suite_name: str,
    episodes: str | None,
    layouts: str | None,
    interface: str | None,
    given: dict,
    split: str | None = None,
) -> ExpertModel:
    from homesim.datasets.sources import read_episodes
    from homesim.evaluation.evaluate import EvaluationConfig
    from homesim.evaluation.suites import suite_named

    source = read_episodes(episodes, layouts, split, suite_name)
    suite = suite_named(source.suite)
    options = suite.options(given, {})
    config = EvaluationConfig(suite=suite.name, interface=interface or suite.interfaces[0], options=options)
    return ExpertModel(suite, source.splits, source.scenes, config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="alfred")
    parser.add_argument("--episodes")
    parser.add_argument("--layouts")
    parser.add_argument("--interface")
    parser.add_argument("--observability")
    parser.add_argument("--split")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--lifetime", type=float, default=3600)
    args = parser.parse_args()
    options = {"observability": args.observability}
    started = time.monotonic()
    model = expert_model(args.suite, args.episodes, args.layouts, args.interface, options, args.split)
    print(f"stand-in ready in {time.monotonic() - started:.1f} s", flush=True)
    with StandIn(model, max_requests=args.max_requests, lifetime=args.lifetime, port=args.port) as standin:
        print(f"serving {standin.url}", flush=True)
        standin.thread.join()


if __name__ == "__main__":
    main()
