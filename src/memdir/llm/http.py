"""The HTTP exchange under both chat clients: POST JSON within a total time limit, retry what a
retry can fix, and explain what went wrong.

Time
    One call (``complete``) takes at most ``timeout_s`` in all: each attempt gets what is left
    (connecting at most 10 s of it) and no retry starts that could not finish waiting before
    the limit. The async path enforces the limit around the whole attempt; the sync path checks
    it between the chunks of the answer, so a server that trickles bytes is cut off by the next
    chunk after the limit.

Retries (at most ``max_retries`` after the first attempt)
    * 429, 5xx and connection errors (refused, reset, closed without an answer, a connect
      timeout with time left) are retried after ``0.5 s × 2**attempt`` with ±25 % jitter,
      capped at 8 s. A ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` header
      replaces the computed wait, capped the same way.
    * Any other status (400, 401, 403, 404, 3xx …) is final: a retry would get the same answer.

Failures are :class:`~memdir.errors.LLMError`, naming the provider, the URL, the HTTP status
and what it likely means, with the server's own message (or the start of its body) shortened to
300 characters. A 2xx whose body is not JSON, not an object, or larger than 8 MiB is an error
too. The API key is sent in a header and appears in no message or log line; only the URL,
status, timing and token counts are logged (INFO, ``memdir.llm.http``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import httpx

from memdir.errors import LLMError
from memdir.httpwait import retry_after_s

__all__ = [
    "Endpoint",
    "Malformed",
    "RetryPolicy",
    "apost_json",
    "backoff_s",
    "post_json",
    "retry_after_s",
]

logger = logging.getLogger(__name__)
T = TypeVar("T")

MAX_BODY_BYTES = 8 * 1024 * 1024
"""The largest answer read; a chat completion is a few kilobytes."""
_CONNECT_S = 10.0
_MAX_MESSAGE_CHARS = 300
_STATUS_MEANING = {
    400: ("bad request", "the server refused the request; its message says why"),
    401: ("unauthorized", "the API key is missing or wrong"),
    403: ("forbidden", "the API key may not use this model or endpoint"),
    404: ("not found", "check llm.model and llm.base_url"),
    408: ("request timeout", "the server gave up waiting; try again later"),
    413: ("request too large", "send less text"),
    429: ("rate limited", "the provider is rate-limiting requests; try again later"),
    500: ("internal server error", "the provider failed on its side; try again later"),
    502: ("bad gateway", "a proxy in front of the provider got no valid answer from it"),
    503: ("service unavailable", "the provider is down or overloaded; try again later"),
    504: ("gateway timeout", "the provider is too slow to answer its proxy; try again later"),
    529: ("overloaded", "the provider is overloaded; try again later"),
}


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How failed attempts are retried (see the module docstring)."""

    max_retries: int = 3
    base_delay_s: float = 0.5
    factor: float = 2.0
    max_delay_s: float = 8.0
    jitter: float = 0.25


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a client POSTs: the provider's name, the full URL, and the headers to send.

    ``key_env`` names the variable the key came from, for the hint of a 401/403.
    """

    provider: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    key_env: str = ""


def backoff_s(policy: RetryPolicy, attempt: int, rand: float) -> float:
    """The wait before retry ``attempt + 1``: ``base × factor**attempt``, scaled by a jitter
    factor in ``[1 - jitter, 1 + jitter]`` (``rand`` is a uniform draw in ``[0, 1)``; 0.5 gives
    the base exactly), capped at ``max_delay_s``."""
    base = policy.base_delay_s * policy.factor**attempt
    return min(base * (1.0 + policy.jitter * (2.0 * rand - 1.0)), policy.max_delay_s)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_MESSAGE_CHARS:
        text = text[: _MAX_MESSAGE_CHARS - 1] + "…"
    return text


def _server_message(body: bytes) -> str:
    """The server's own error text (``{"error": {"message": …}}`` and kin), else its body."""
    text = body.decode("utf-8", "replace")
    try:
        data: object = json.loads(text)
    except ValueError:
        data = None
    for _ in range(3):
        if not isinstance(data, dict):
            break
        inner = next((data[k] for k in ("error", "detail", "message") if k in data), None)
        if isinstance(inner, str) and inner.strip():
            return _shorten(inner)
        data = inner
    return _shorten(text) or "empty body"


def _retryable(status: int) -> bool:
    return status == 429 or 500 <= status < 600


class _Attempts:
    """One call's retry state: the deadline, the attempts made, what to do after each one."""

    def __init__(
        self, endpoint: Endpoint, policy: RetryPolicy, timeout_s: float, rand: Callable[[], float]
    ) -> None:
        self.endpoint = endpoint
        self.policy = policy
        self.timeout_s = timeout_s
        self.rand = rand
        self.started = time.monotonic()
        self.deadline = self.started + timeout_s
        self.attempts = 0

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def timeout(self) -> httpx.Timeout:
        """The next attempt's limits: whatever time is left, at most 10 s of it to connect."""
        self.attempts += 1
        left = max(self.left(), 1e-3)
        return httpx.Timeout(left, connect=min(left, _CONNECT_S))

    def add_chunk(self, body: bytearray, chunk: bytes) -> None:
        """Append ``chunk``; raise when the answer is too large or the time is up."""
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise self._error(
                f"answer larger than {MAX_BODY_BYTES // (1024 * 1024)} MiB", status=None
            )
        if self.left() <= 0:
            raise self.timed_out()

    def after_status(self, status: int, headers: Mapping[str, str]) -> float | None:
        """The wait before retrying a retryable status, or ``None`` when this answer is final."""
        if not _retryable(status) or self.attempts > self.policy.max_retries:
            return None
        asked = retry_after_s(headers)
        wait = self._wait(asked)
        if wait >= self.left():
            return None
        self._log_retry(f"HTTP {status}", wait)
        return wait

    def after_transport(self, exc: httpx.TransportError) -> float:
        """The wait before retrying a connection error; raise when it cannot be retried."""
        if isinstance(exc, httpx.UnsupportedProtocol):
            raise self._error(
                f"cannot send to {self.endpoint.url}: {exc}",
                status=None,
                hint="llm.base_url must start with http:// or https://",
            ) from exc
        if isinstance(exc, httpx.TimeoutException) and (
            not isinstance(exc, httpx.ConnectTimeout) or self.left() <= 0
        ):
            raise self.timed_out() from exc
        wait = self._wait(None)
        if self.attempts > self.policy.max_retries or wait >= self.left():
            raise self._error(
                f"cannot reach {self.endpoint.provider} at {self.endpoint.url} after "
                f"{self.attempts} attempt(s): {type(exc).__name__}: {exc}",
                status=None,
                hint="check llm.base_url and that the server is running and reachable",
            ) from exc
        self._log_retry(type(exc).__name__, wait)
        return wait

    def decode(self, status: int, headers: Mapping[str, str], body: bytes) -> dict[str, object]:
        """The JSON object of a 2xx answer; :class:`LLMError` for any other answer."""
        elapsed = time.monotonic() - self.started
        logger.info(
            "%s POST %s: HTTP %d in %.2fs (%d attempt(s))",
            self.endpoint.provider,
            httpx.URL(self.endpoint.url).path,
            status,
            elapsed,
            self.attempts,
        )
        if not 200 <= status < 300:
            raise self._status_error(status, headers, body)
        try:
            data: object = json.loads(body)
        except (ValueError, RecursionError):
            snippet = _shorten(body.decode("utf-8", "replace")[:120]) or "empty body"
            raise self.malformed(f"the body is not JSON ({snippet!r})", status) from None
        if not isinstance(data, dict):
            raise self.malformed("the body is not a JSON object", status)
        return data

    def malformed(self, problem: str, status: int = 200) -> LLMError:
        return self._error(
            f"malformed answer from {self.endpoint.provider} at {self.endpoint.url} "
            f"(HTTP {status}): {problem}",
            status=status,
            hint="is llm.base_url an OpenAI-compatible or Anthropic endpoint?",
        )

    def timed_out(self) -> LLMError:
        return self._error(
            f"{self.endpoint.provider} at {self.endpoint.url} did not answer within "
            f"{self.timeout_s:g}s ({self.attempts} attempt(s))",
            status=None,
            hint="the server is slow or unreachable; raise llm.timeout_s or try later",
        )

    def _status_error(self, status: int, headers: Mapping[str, str], body: bytes) -> LLMError:
        label, hint = _STATUS_MEANING.get(status, ("", ""))
        if not label:
            label, hint = (
                ("server error", "the provider failed on its side; try again later")
                if status >= 500
                else ("refused", "the server refused the request; its message says why")
            )
        if status in (401, 403) and self.endpoint.key_env:
            hint = f"check the key in ${self.endpoint.key_env} ({hint})"
        if status == 404 and self.endpoint.provider == "openai":
            hint += " (an OpenAI-compatible base URL usually ends in /v1)"
        if 300 <= status < 400:
            label = "redirect"
            hint = f"check llm.base_url; the server points to {headers.get('location', '?')}"
        if status == 429 and (asked := retry_after_s(headers)) is not None:
            label += f", asked to wait {asked:g}s"
        return self._error(
            f"{self.endpoint.provider} request to {self.endpoint.url} failed with HTTP "
            f"{status} ({label}) after {self.attempts} attempt(s): {_server_message(body)}",
            status=status,
            hint=hint,
        )

    def _wait(self, asked: float | None) -> float:
        if asked is not None:
            return min(asked, self.policy.max_delay_s)
        return backoff_s(self.policy, self.attempts - 1, self.rand())

    def _log_retry(self, reason: str, wait: float) -> None:
        logger.info(
            "%s POST %s: %s; retry %d/%d in %.2fs",
            self.endpoint.provider,
            httpx.URL(self.endpoint.url).path,
            reason,
            self.attempts,
            self.policy.max_retries,
            wait,
        )

    def _error(self, message: str, *, status: int | None, hint: str | None = None) -> LLMError:
        return LLMError(
            message,
            provider=self.endpoint.provider,
            url=self.endpoint.url,
            status=status,
            attempts=self.attempts,
            hint=hint,
        )


class Malformed(Exception):
    """Raised by a ``parse`` function when an answer lacks a field it needs; the message says
    which. :func:`post_json` turns it into an :class:`LLMError` naming the endpoint."""


def post_json(
    client: httpx.Client,
    endpoint: Endpoint,
    payload: Mapping[str, object],
    parse: Callable[[dict[str, object]], T],
    *,
    policy: RetryPolicy,
    timeout_s: float,
    rand: Callable[[], float] = random.random,
) -> T:
    """POST ``payload`` with retries and return ``parse`` of the 2xx answer's JSON object.

    Raises :class:`LLMError` for every failure, including a :class:`Malformed` from ``parse``.
    """
    tries = _Attempts(endpoint, policy, timeout_s, rand)
    while True:
        try:
            status, headers, body = _send(client, endpoint, payload, tries)
        except httpx.DecodingError as exc:
            raise tries.malformed(f"the body cannot be decoded ({exc})") from exc
        except httpx.TransportError as exc:
            time.sleep(tries.after_transport(exc))
            continue
        wait = tries.after_status(status, headers)
        if wait is None:
            return _parsed(tries, parse, tries.decode(status, headers, body))
        time.sleep(wait)


def _parsed(
    tries: _Attempts, parse: Callable[[dict[str, object]], T], data: dict[str, object]
) -> T:
    try:
        return parse(data)
    except Malformed as exc:
        raise tries.malformed(str(exc)) from None


def _send(
    client: httpx.Client, endpoint: Endpoint, payload: Mapping[str, object], tries: _Attempts
) -> tuple[int, httpx.Headers, bytes]:
    with client.stream(
        "POST", endpoint.url, json=payload, headers=endpoint.headers, timeout=tries.timeout()
    ) as response:
        body = bytearray()
        for chunk in response.iter_bytes():
            tries.add_chunk(body, chunk)
        return response.status_code, response.headers, bytes(body)


async def apost_json(
    endpoint: Endpoint,
    payload: Mapping[str, object],
    parse: Callable[[dict[str, object]], T],
    *,
    policy: RetryPolicy,
    timeout_s: float,
    rand: Callable[[], float] = random.random,
) -> T:
    """:func:`post_json`, awaited, on a client of its own (so any event loop may call it); the
    time limit is enforced around each whole attempt."""
    tries = _Attempts(endpoint, policy, timeout_s, rand)
    async with httpx.AsyncClient(follow_redirects=False) as client:
        while True:
            try:
                async with asyncio.timeout(max(tries.left(), 1e-3)):
                    status, headers, body = await _asend(client, endpoint, payload, tries)
            except TimeoutError as exc:
                raise tries.timed_out() from exc
            except httpx.DecodingError as exc:
                raise tries.malformed(f"the body cannot be decoded ({exc})") from exc
            except httpx.TransportError as exc:
                await asyncio.sleep(tries.after_transport(exc))
                continue
            wait = tries.after_status(status, headers)
            if wait is None:
                return _parsed(tries, parse, tries.decode(status, headers, body))
            await asyncio.sleep(wait)


async def _asend(
    client: httpx.AsyncClient,
    endpoint: Endpoint,
    payload: Mapping[str, object],
    tries: _Attempts,
) -> tuple[int, httpx.Headers, bytes]:
    async with client.stream(
        "POST", endpoint.url, json=payload, headers=endpoint.headers, timeout=tries.timeout()
    ) as response:
        body = bytearray()
        async for chunk in response.aiter_bytes():
            tries.add_chunk(body, chunk)
        return response.status_code, response.headers, bytes(body)
