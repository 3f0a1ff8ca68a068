"""The client's connection for a remote evaluation's exchanges: one kept-alive HTTP connection (made anew after
a drop), through the standard library's client. The exchanges are small and many (a run of 256 ObjectNav
episodes makes a thousand): httpx spends about four times its CPU on each, and sends a request's head and body
in two packets, which the server then reads in two turns of its event loop; `http.client` sends them in one."""

from __future__ import annotations

import http.client
import json
import socket
import time
from urllib.parse import urlencode, urlsplit

from homesim.server.challenges import ChallengeError


class Link:
    """Requests to `server` (http:// or https://, with a path prefix if it has one) with the team's token; a
    request whose connection fails is sent again on a new one, at most `retries` times in a row (waiting a
    little longer each time), so it must be one the server takes twice as once."""

    def __init__(self, server: str, token: str, timeout: float, retries: int) -> None:
        self.server, self.timeout, self.retries = server.rstrip("/"), timeout, retries
        parts = urlsplit(self.server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ChallengeError(f"{server}: expected the server's address, http://HOST[:PORT] or https://...")
        self.kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self.host, self.port, self.prefix = parts.hostname, parts.port, parts.path
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.connection: http.client.HTTPConnection | None = None

    def _connect(self) -> http.client.HTTPConnection:
        connection = self.kind(self.host, self.port, timeout=self.timeout)
        connection.connect()
        # without Nagle's algorithm: a request would wait for the server's (delayed) acknowledgement of the last
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def call(self, method: str, path: str, body: object = None, **params: object) -> dict:
        """The server's JSON answer; an error status raises `ChallengeError` with the server's reason."""
        target = self.prefix + path + (f"?{urlencode(params)}" if params else "")
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(self.retries + 1):
            try:
                if self.connection is None:
                    self.connection = self._connect()
                self.connection.request(method, target, data, self.headers)
                answer = self.connection.getresponse()
                raw = answer.read()
            except (OSError, http.client.HTTPException) as e:
                self.close()
                if attempt == self.retries:
                    raise ChallengeError(f"{self.server}: no answer after {attempt + 1} tries ({e})") from None
                time.sleep(min(0.2 * 2**attempt, 10))
                continue
            if answer.status >= 400:
                try:
                    said = json.loads(raw).get("error", raw.decode(errors="replace"))
                except (ValueError, AttributeError):
                    said = raw.decode(errors="replace")
                raise ChallengeError(f"{path}: {said}")
            return json.loads(raw)
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
