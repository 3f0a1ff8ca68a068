"""Where a language model's answers come from, one protocol (`ask(request) -> Answer`): an OpenAI-compatible
HTTP endpoint (`HttpEndpoint`: chat completions, and for the scoring mode the completions endpoint's echoed
log-probabilities), or files (`OfflineEndpoint`: each prompt written to a file, each answer read from one).

A request is the JSON body the endpoint takes, with "kind": "chat" or "score" (the scoring mode's body is
`{"prompt": text, "candidates": [...]}`, sent as one completions request with a prompt per candidate). Rate
limits (429), server errors (5xx), timeouts and dropped connections are retried with exponential backoff (a
server's Retry-After is followed); whatever is left is an `EndpointError` with a one-line reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

MAX_RESPONSE = 4 << 20  # bytes: a response beyond this is an error, not read on
RETRIED = {408, 409, 429, 500, 502, 503, 504}
MAX_WAIT = 60.0  # seconds between two tries at most, whatever a server's Retry-After asks


@dataclass(frozen=True)
class Answer:
    """A model's answer: its text (the scoring mode: the best candidate), tokens in and out, and the seconds
    the endpoint took (as when it was asked: a cached answer keeps them, so a rerun writes the same records)."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    scores: tuple[float, ...] = ()  # the scoring mode: each candidate's log-likelihood

    def to_dict(self) -> dict:
        return {"text": self.text, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "seconds": self.seconds, "scores": list(self.scores)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict) -> Answer:
        return cls(data["text"], data["tokens_in"], data["tokens_out"], data["seconds"], tuple(data["scores"]))


class EndpointError(ValueError):
    """The endpoint gave no answer, after the retries: the message says why, in one line."""


class AwaitingAnswer(Exception):
    """Offline: the prompt is written, its answer is not there yet (run again once it is)."""


def request_key(request: dict) -> str:
    """A request's identity (the cache's key, an offline prompt's file name): a digest of its JSON."""
    import hashlib

    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()[:32]


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class HttpEndpoint:
    """An OpenAI-compatible endpoint at `base_url` (e.g. `http://127.0.0.1:8000/v1`), the key sent as a bearer
    token when given. The HTTP client is made at the first request (in the process that asks)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        retries: int = 6,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url, self.api_key = base_url.rstrip("/"), api_key
        self.timeout, self.retries, self.backoff, self.sleep = timeout, retries, backoff, sleep
        self._client: httpx.Client | None = None

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.Client(timeout=self.timeout, headers=headers)
        return self._client

    def check(self, model: str) -> None:
        """Raises `EndpointError` if the endpoint cannot be reached, refuses the key, or lists its models and
        `model` is not among them (a server without a model list passes)."""
        try:
            response = self.client.get(f"{self.base_url}/models")
        except httpx.HTTPError as e:
            raise EndpointError(f"cannot reach {self.base_url}: {_one_line(e) or type(e).__name__}") from None
        if response.status_code in (401, 403):
            raise EndpointError(f"{self.base_url} refused the key ({response.status_code}): {_one_line(response.text)}")
        if response.status_code != 200:
            return
        try:
            served = [m["id"] for m in response.json()["data"]]
        except (ValueError, KeyError, TypeError):
            return
        if served and model not in served:
            raise EndpointError(f"{self.base_url} serves no model {model!r}; it serves {', '.join(served[:10])}")

    def ask(self, request: dict, key: str | None = None) -> Answer:
        body = {k: v for k, v in request.items() if k != "kind"}
        if request["kind"] == "score":
            return self._score(body)
        started = time.monotonic()
        data = self._post("chat/completions", body)
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise EndpointError(f"no answer in the endpoint's response: {_one_line(json.dumps(data))}") from None
        return Answer(str(text), *_usage(data), round(time.monotonic() - started, 3))

    def _score(self, body: dict) -> Answer:
        """LoTa-Bench's scoring: each candidate's log-likelihood after the prompt, the best one the answer."""
        started = time.monotonic()
        prompt, candidates = body.pop("prompt"), body.pop("candidates")
        sent = body | {"prompt": [prompt + c for c in candidates], "max_tokens": 0, "echo": True, "logprobs": 0}
        data = self._post("completions", sent)
        try:
            scores = [_continuation_logprob(choice["logprobs"], len(prompt)) for choice in data["choices"]]
        except (KeyError, TypeError, ValueError) as e:
            raise EndpointError(f"the endpoint returned no log-probabilities for the prompt ({e})") from None
        if len(scores) != len(candidates):
            raise EndpointError(f"{len(candidates)} candidates scored, {len(scores)} scores returned")
        best = max(range(len(candidates)), key=lambda i: (scores[i], -i))
        tokens_in = _usage(data)[0]
        return Answer(candidates[best], tokens_in, 0, round(time.monotonic() - started, 3), tuple(scores))

    def _post(self, path: str, body: dict) -> dict:
        url = f"{self.base_url}/{path}"
        for attempt in range(self.retries + 1):
            wait, problem = self.backoff * 2**attempt, ""
            try:
                with self.client.stream("POST", url, json=body) as response:
                    if response.status_code == 200:
                        return _json_of(response)
                    text = _read(response)[:2000].decode(errors="replace")
                    problem = f"{response.status_code} {_one_line(text)}"
                    if response.status_code in (401, 403):
                        raise EndpointError(f"{self.base_url} refused the key ({problem})")
                    if response.status_code not in RETRIED:
                        raise EndpointError(f"{url} answered {problem}")
                    wait = _retry_after(response, wait)
            except httpx.TimeoutException:
                problem = f"no answer within {self.timeout:g} s"
            except httpx.TransportError as e:
                problem = f"cannot reach {self.base_url}: {_one_line(e) or type(e).__name__}"
            if attempt < self.retries:
                self.sleep(min(wait, MAX_WAIT))
        raise EndpointError(f"{problem} (after {self.retries + 1} tries)")


def _read(response: httpx.Response) -> bytes:
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_RESPONSE:
            raise EndpointError(f"the endpoint's response is over {MAX_RESPONSE >> 20} MB")
    return bytes(body)


def _json_of(response: httpx.Response) -> dict:
    try:
        data = json.loads(_read(response))
    except ValueError:
        raise EndpointError("the endpoint's response is not JSON") from None
    if not isinstance(data, dict):
        raise EndpointError("the endpoint's response is not a JSON object")
    return data


def _retry_after(response: httpx.Response, default: float) -> float:
    try:
        return max(0.0, float(response.headers.get("retry-after", default)))
    except ValueError:
        return default


def _usage(data: dict) -> tuple[int, int]:
    usage = data.get("usage") or {}
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


def _continuation_logprob(logprobs: dict, start: int) -> float:
    """The sum of the log-probabilities of the echoed tokens from character `start` on (the candidate)."""
    pairs = zip(logprobs["token_logprobs"], logprobs["text_offset"], strict=True)
    return float(sum(lp for lp, offset in pairs if offset >= start and lp is not None))


class OfflineEndpoint:
    """Prompts to files, answers from files, for batch jobs and outputs scored elsewhere. Each prompt is written
    once to `prompts/<key>.json` as a line of OpenAI's batch input (custom_id, method, url, body); its answer is
    read from `answers/<key>.txt` (the text) or from any `answers/*.jsonl` of OpenAI's batch output (lines of
    custom_id and response.body). An episode whose next prompt has no answer yet ends there; run again once
    the answers are in, and it plays on through the answers it has to the next prompt."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self._batch: dict[str, dict] | None = None

    def check(self, model: str) -> None:
        (self.folder / "prompts").mkdir(parents=True, exist_ok=True)
        (self.folder / "answers").mkdir(parents=True, exist_ok=True)

    def ask(self, request: dict, key: str | None = None) -> Answer:
        key = key or request_key(request)
        text_file = self.folder / "answers" / f"{key}.txt"
        if text_file.exists():
            return Answer(text_file.read_text(encoding="utf-8"))
        found = self._batch_answers().get(key)
        if found is not None:
            try:
                return Answer(str(found["choices"][0]["message"].get("content") or ""), *_usage(found))
            except (KeyError, IndexError, TypeError, AttributeError):
                raise EndpointError(f"answers for {key}: no message in its batch output line") from None
        prompt = self.folder / "prompts" / f"{key}.json"
        if not prompt.exists():
            kind = "chat/completions" if request["kind"] == "chat" else "completions"
            line = {"custom_id": key, "method": "POST", "url": f"/v1/{kind}",
                    "body": {k: v for k, v in request.items() if k != "kind"}}  # fmt: skip
            self.check("")  # the folders, where the agent was not checked
            temporary = prompt.with_suffix(".tmp")
            temporary.write_text(json.dumps(line) + "\n", encoding="utf-8")
            temporary.replace(prompt)
        raise AwaitingAnswer(f"prompt {key} waits for its answer")

    def _batch_answers(self) -> dict[str, dict]:
        """Answers in OpenAI's batch output files, read once (by custom_id: the response's body)."""
        if self._batch is None:
            self._batch = {}
            for path in sorted((self.folder / "answers").glob("*.jsonl")):
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                    if not line.strip():
                        continue
                    try:
                        data = json.loads(line)
                        self._batch[data["custom_id"]] = data["response"]["body"]
                    except (ValueError, KeyError, TypeError):
                        raise EndpointError(f"{path}:{number}: not a line of OpenAI's batch output") from None
        return self._batch
