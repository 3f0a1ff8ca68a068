"""The language-model agent (`--agent llm`): any suite with `Suite.text_play`, any OpenAI-compatible endpoint or
offline prompt files, the `act` or `react` preset (or a template of one's own) with example games written by
homesim's expert, a lenient parser, a response cache. Its settings are the evaluation's `agent_options`
(`LLMSettings`); it reports each episode's figures (`measures()`) into the record.

Each step it reads the observation as text (`Suite.observation_text`) and the commands possible now, asks the
model, maps the reply to a command (`parse.Parser`) and says it; a reply that maps to none is an invalid
action: the text goes to the game as said (which answers as it answers nonsense) and is counted. The episode
ends as the suite's protocol ends it, or when the agent gives up, saying the suite's stop command, with its
own finish reason: `context_limit` (the prompt no longer fits), `endpoint_error` (no answer after the
retries), `awaiting_answer` (offline: the prompt is written), `unparseable` (`max_invalid` invalid replies in
a row), `step_limit` (`max_steps` replies).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from homesim.agents.protocol import AgentAction, TaskSpec
from homesim.llm.cache import AnswerCache
from homesim.llm.endpoint import Answer, AwaitingAnswer, EndpointError, HttpEndpoint, OfflineEndpoint, request_key
from homesim.llm.examples import ExampleGame, example_games, examples_for
from homesim.llm.parse import Parser
from homesim.llm.prompts import PRESETS, Chat, Template, flattened

if TYPE_CHECKING:
    from homesim.evaluation.evaluate import EvaluationConfig
    from homesim.evaluation.suite import Suite

MODES = ("generate", "score")
KEPT_REPLY = 2000  # characters of each reply a record's transcript keeps


@dataclass(frozen=True)
class LLMSettings:
    """The LLM agent's settings (`EvaluationConfig.agent_options`; `--llm-*` on the command line). The key is
    never among them: only the name of the environment variable that holds it."""

    model: str = "default"
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str | None = None  # the environment variable holding the key
    offline: str | None = None  # a folder: prompts written to files, answers read from files
    cache: str | None = None  # the SQLite answer cache (None: none)
    preset: str = "react"  # act, react
    template: str | None = None  # a Jinja2 template file, in place of the preset
    mode: str = "generate"  # or "score": LoTa-Bench's choice by log-likelihood (a completions endpoint)
    examples: int = 1  # example games of the episode's task type in the prompt
    examples_from: str | None = None  # their episodes (a dataset, ALFRED trajectories, ...; None: built-in)
    layouts: str | None = None  # ALFRED's layout files, for trajectories
    context: int = 8192  # tokens the prompt and the reply may take together
    max_tokens: int = 256  # tokens of a reply
    temperature: float = 0.0
    max_invalid: int | None = None  # invalid replies in a row that end an episode (None: they do not)
    max_steps: int | None = None  # replies an episode may take (None: the suite's limits alone)
    retries: int = 6
    timeout: float = 120.0  # seconds a request may take

    @classmethod
    def of(cls, options: dict) -> LLMSettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown LLM agent setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        settings = cls(**{k: v for k, v in options.items() if v is not None})
        if settings.preset not in PRESETS:
            raise ValueError(f"--llm-preset {settings.preset!r}: one of {', '.join(PRESETS)}")
        if settings.mode not in MODES:
            raise ValueError(f"--llm-mode {settings.mode!r}: one of {', '.join(MODES)}")
        for name in ("context", "max_tokens", "retries"):
            if getattr(settings, name) < (0 if name == "retries" else 1):
                raise ValueError(f"--llm-{name.replace('_', '-')} {getattr(settings, name)}: too small")
        if settings.api_key_env and not os.environ.get(settings.api_key_env) and not settings.offline:
            raise ValueError(f"--llm-api-key-env {settings.api_key_env}: no such environment variable is set")
        return settings


class LLMAgent:
    """Plays one suite through a language model; made once per worker process, reset per episode."""

    def __init__(self, config: EvaluationConfig, suite: Suite) -> None:
        if suite.text_play is None:
            raise ValueError(f"{suite.title} has no text interface for a language model")
        self.config, self.suite, self.play = config, suite, suite.text_play
        self.settings = s = LLMSettings.of(config.agent_options)
        self.template = Template(s.template or s.preset)
        self.observations = self.play.pixels  # the images the suite's text rendering reads
        key = os.environ.get(s.api_key_env) if s.api_key_env else None
        self.endpoint = OfflineEndpoint(s.offline) if s.offline else HttpEndpoint(s.base_url, key, s.timeout, s.retries)
        self.cache = AnswerCache(s.cache, s.model) if s.cache else None
        self.parser = Parser()
        self._games: dict[str, list[ExampleGame]] | None = None
        self.reset(TaskSpec("", "", ()))

    def check(self) -> None:
        """Raises `EndpointError` (or `DataError` for a cache of another model) before a run, not in it. The
        endpoint first: a run that cannot start leaves no empty cache behind."""
        self.endpoint.check(self.settings.model)
        if self.cache is not None:
            len(self.cache)

    # --- the agent protocol ----------------------------------------------------------------------------

    def reset(self, task: TaskSpec) -> None:
        self.task, self.chat = task, None
        self.finish: str | None = None
        self.replies = self.invalid = self.invalid_run = self.failed = self.tokens_in = self.tokens_out = 0
        self.seconds, self.clipped, self.dropped = 0.0, 0, 0
        self.parsed = {"exact": 0, "normalised": 0, "unnumbered": 0}
        self.errors = {"unparseable": 0, "not_admissible": 0, "failed": 0}
        self.transcript: list[list] = []

    def act(self, observation: dict) -> AgentAction:
        text = self.suite.observation_text(observation)
        if self.transcript and self.transcript[-1][1] is not None and observation.get("last_action_success") is False:
            self.errors["failed"] += 1  # a command that was possible, and failed in the world
        if self.chat is None:
            self.chat = Chat(self.template.render("system", self._system_fields(observation)), [])
        s = self.settings
        if s.max_steps is not None and self.replies >= s.max_steps:
            return self._give_up("step_limit")
        commands = self.play.commands(observation)
        turn = self.template.render("turn", {"observation": text, "commands": commands, "step": self.replies})
        prompt = self.chat.messages(turn, s.context - s.max_tokens)
        if prompt is None:
            return self._give_up("context_limit")
        messages, dropped = prompt
        self.clipped += dropped > 0
        self.dropped = max(self.dropped, dropped)
        try:
            answer = self._ask(messages, commands)
        except AwaitingAnswer:
            return self._give_up("awaiting_answer")
        except EndpointError as e:
            self.transcript.append([f"(endpoint error: {e})", None, "endpoint_error"])
            return self._give_up("endpoint_error")
        self.replies += 1
        self.tokens_in, self.tokens_out = self.tokens_in + answer.tokens_in, self.tokens_out + answer.tokens_out
        self.seconds += answer.seconds
        parsed = self.parser.parse(answer.text, commands, self.play.stop)
        self.chat.steps.append((turn, answer.text[:KEPT_REPLY]))
        self.transcript.append([answer.text[:KEPT_REPLY], parsed.command, parsed.how])
        if parsed.command is None:
            self.invalid, self.invalid_run = self.invalid + 1, self.invalid_run + 1
            self.errors[parsed.how] += 1
            if s.max_invalid is not None and self.invalid_run >= s.max_invalid:
                return self._give_up("unparseable")
            return self._answer(parsed.said or answer.text[:KEPT_REPLY].strip() or "(nothing)")
        self.invalid_run = 0
        self.parsed[parsed.how] += 1
        return self._answer(parsed.command)

    def measures(self) -> dict:
        """The episode's figures, as LLM papers report them, and its transcript ([reply, command or None, how])."""
        return {
            "finish": self.finish,
            "replies": self.replies,
            "invalid": self.invalid,
            "errors": dict(self.errors),
            "parsed": dict(self.parsed),
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "model_seconds": round(self.seconds, 3),
            "clipped_prompts": self.clipped,
            "most_steps_left_out": self.dropped,
            "transcript": self.transcript,
        }

    # --- helpers -------------------------------------------------------------------------------------------

    def _answer(self, command: str) -> AgentAction:
        answer = self.play.action(command)
        return answer if isinstance(answer, AgentAction) else AgentAction(answer)

    def _give_up(self, reason: str) -> AgentAction:
        self.finish = reason
        return self._answer(self.play.stop)

    def _system_fields(self, observation: dict) -> dict:
        chosen = examples_for(self._examples(), self.task, self.settings.examples)
        return {
            "rules": self.play.rules(observation),
            "examples": [g.fields() for g in chosen],
            "task_type": self.task.task_type,
        }

    def _examples(self) -> dict[str, list[ExampleGame]]:
        """The example games, made at the first episode (in the process that plays)."""
        if self._games is None:
            self._games = {}
            if self.settings.examples > 0:
                from homesim.datasets.sources import read_episodes

                s = self.settings
                source = read_episodes(s.examples_from, s.layouts, None, self.suite.name)
                self._games = example_games(self.suite, source.splits, source.scenes, self.config, s.examples)
        return self._games

    def _ask(self, messages: list[dict], commands: list[str]) -> Answer:
        s = self.settings
        if s.mode == "score":
            request = {"kind": "score", "model": s.model, "prompt": flattened(messages), "candidates": commands}
        else:
            request = {"kind": "chat", "model": s.model, "messages": messages, "max_tokens": s.max_tokens,
                       "temperature": s.temperature}  # fmt: skip
        key = request_key(request)
        found = self.cache.get(key) if self.cache is not None else None
        if found is not None:
            return found
        answer = self.endpoint.ask(request, key)
        if self.cache is not None:
            self.cache.put(key, answer)
        return answer


def llm_agent(config: EvaluationConfig, suite: Suite) -> LLMAgent:
    """The `homesim.agents` entry point `llm`."""
    return LLMAgent(config, suite)
