"""Prompts as data: a Jinja2 template with two blocks, `system` (the rules and the example games, once an
episode) and `turn` (one step: the observation and the commands possible now). The presets `act` and `react`
ship in `templates/`; a user's own file takes the same fields (`FIELDS`), and a field it names that does not
exist is a one-line error naming the file and line, found when the agent is made, not mid-run.

The chat sent each step: the system message, then each earlier step's turn and the model's reply, then this
step's turn. Past a token budget the oldest steps after the first (which holds the task) are left out, and
the first step kept after them says how many were; when even that does not fit, the episode ends (finish
reason `context_limit`). Tokens are estimated as characters / 4 (no tokenizer is downloaded).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path

import jinja2

from homesim.errors import DataError

PRESETS = ("act", "react")
BLOCKS = ("system", "turn")
FIELDS = {
    "system": (
        "rules",
        "examples",
        "task_type",
    ),  # examples: each {task_type, steps: [{observation, thought, command}]}
    "turn": ("observation", "commands", "step"),
}
CHARS_PER_TOKEN = 4
MESSAGE_TOKENS = 4  # a chat message's own overhead


def tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + MESSAGE_TOKENS


_SAMPLE = {
    "rules": "rules",
    "examples": [{"task_type": "t", "steps": [{"observation": "o", "thought": "t", "command": "c"}]}],
    "task_type": "t",
    "observation": "o",
    "commands": ["c"],
    "step": 0,
}


class Template:
    """A prompt template (a preset's name or a file), checked when made."""

    def __init__(self, source: str) -> None:
        environment = jinja2.Environment(
            undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False, auto_reload=False
        )
        if source in PRESETS:
            self.where = f"preset {source}"
            text = (Path(__file__).parent / "templates" / f"{source}.j2").read_text(encoding="utf-8")
        else:
            self.where = source
            try:
                text = Path(source).read_text(encoding="utf-8")
            except OSError as e:
                raise DataError(source, "(file)", f"cannot read the prompt template: {e.strerror or e}") from None
        try:
            self.template = environment.from_string(text)
        except jinja2.TemplateSyntaxError as e:
            raise DataError(f"{self.where}:{e.lineno}", "(template)", e.message or "syntax error") from None
        missing = [b for b in BLOCKS if b not in self.template.blocks]
        if missing:
            raise DataError(self.where, "blocks", "a prompt template needs {% block system %} and {% block turn %}")
        for block in BLOCKS:
            self.render(block, {k: _SAMPLE[k] for k in FIELDS[block]})

    def render(self, block: str, fields: dict) -> str:
        try:
            return "".join(self.template.blocks[block](self.template.new_context(fields))).strip()
        except jinja2.UndefinedError as e:
            frames = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == "<template>"]
            line = self.template.get_corresponding_lineno(frames[-1]) if frames else "?"  # the template's line
            known = ", ".join(FIELDS[block])
            raise DataError(f"{self.where}:{line}", f"block {block}", f"{e.message}; its fields: {known}") from None
        except jinja2.TemplateError as e:
            raise DataError(self.where, f"block {block}", str(e)) from None


@dataclass
class Chat:
    """One episode's conversation: its system message and (turn, reply) per step so far."""

    system: str
    steps: list[tuple[str, str]]

    def messages(self, turn: str, budget: int) -> tuple[list[dict], int] | None:
        """The messages for this step within `budget` tokens, and how many earlier steps were left out; None
        when even the system message, the first step and this one do not fit."""
        fixed = tokens(self.system) + tokens(turn)
        steps = self.steps
        kept_first = steps[:1]
        cost = fixed + sum(tokens(t) + tokens(r) for t, r in kept_first)
        if cost > budget:
            return None
        rest = steps[1:]
        room, kept = budget - cost, 0
        for t, r in reversed(rest):
            need = tokens(t) + tokens(r)
            if need > room:
                break
            room, kept = room - need, kept + 1
        dropped = len(rest) - kept
        chosen = kept_first + rest[len(rest) - kept :]
        messages = [{"role": "system", "content": self.system}]
        for i, (t, r) in enumerate(chosen):
            if dropped and i == len(kept_first):
                t = f"({dropped} earlier steps left out)\n{t}"
            messages += [{"role": "user", "content": t}, {"role": "assistant", "content": r}]
        messages.append({"role": "user", "content": turn})
        return messages, dropped


def flattened(messages: list[dict]) -> str:
    """A chat as one text (the scoring mode's prompt, for a completions endpoint): the model's replies after
    "> ", ending where the next command goes."""
    parts = [m["content"] if m["role"] != "assistant" else f"> {m['content']}" for m in messages]
    return "\n\n".join(parts) + "\n> "
