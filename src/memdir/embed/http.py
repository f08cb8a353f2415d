"""The one HTTP layer under every hosted embedding provider: POST JSON, retry, explain failures.

Retries (spec §5.3, with fixes)
    * 429, 5xx and connection errors are retried at most ``max_retries`` times (default 3), after
      ``base × factor**attempt`` seconds (0.5, 1, 2, …) with ±20 % jitter, capped at 8 s. A
      ``Retry-After`` / ``retry-after-ms`` header replaces the computed wait, still capped.
    * A timeout is retried once; a second timeout fails.
    * A 429 that says the quota is used up (``insufficient_quota``, "exceeded your current
      quota", …) fails at once: waiting seconds will not bring a quota back (upstream retried
      such 429s forever).

Time limits
    * Each request waits at most ``batch_timeout_s`` (documents) or ``timeout_s`` (a query).
    * A query takes at most ``timeout_s`` in all, retries and waits included: a search must
      not wait longer than that on its vector half.
    * Inside :func:`time_budget` (e.g. the few chunks a search embeds itself) no request or
      retry starts once the budget is spent; a request refused so raises ``OutOfTime``.

Failures
    * 401 / 403 → :class:`~memdir.errors.ProviderUnavailable` with a hint about the key.
    * Timeouts, connection errors, 429 and 5xx once retries run out, and a 2xx whose body is
      not JSON → :class:`~memdir.embed.breaker.ProviderFailure` (an
      :class:`~memdir.errors.EmbeddingError` that opens the provider's circuit breaker), naming
      the provider, the status and what it means, and the server's own error message.
    * Any other non-2xx → :class:`~memdir.errors.EmbeddingError` (the provider is up but refused
      the request).

Secrets never reach logs or messages: only the URL path and status are logged.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import httpx

from memdir.embed.breaker import OutOfTime, ProviderFailure
from memdir.errors import EmbeddingError, ProviderUnavailable
from memdir.httpwait import retry_after_s

__all__ = [
    "JsonClient",
    "RetryPolicy",
    "describe_status",
    "error_message",
    "is_quota_exhausted",
    "retry_delay",
    "time_budget",
]

logger = logging.getLogger(__name__)

_QUOTA_MARKERS = (
    "insufficient_quota",
    "exceeded your current quota",
    "quota exceeded",
    "quota_exceeded",
    "out of quota",
    "billing",
    "credit balance",
)
_MAX_MESSAGE_CHARS = 300
_STATUS_MEANING = {
    429: ("rate limited", "the provider is rate-limiting requests; try again later"),
    500: ("internal server error", "the provider failed on its side; try again later"),
    502: ("bad gateway", "a proxy in front of the provider got no valid answer from it"),
    503: ("service unavailable", "the provider is down or overloaded; try again later"),
    504: ("gateway timeout", "the provider is too slow to answer its proxy; try again later"),
}
_deadline: ContextVar[float | None] = ContextVar("memdir_embed_deadline", default=None)


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """No request or retry starts in this block more than ``seconds`` after entering it
    (nested budgets: the tighter wins); each request still gets its own timeout, so the block
    ends within ``seconds`` plus one timeout. A request refused raises
    :class:`~memdir.embed.breaker.OutOfTime`."""
    deadline = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _deadline.reset(token)


def describe_status(status: int) -> tuple[str, str]:
    """What a retryable HTTP status (429, 5xx) means from an embedding provider: (label, hint)."""
    if status in _STATUS_MEANING:
        return _STATUS_MEANING[status]
    return "server error", "the provider reported an error on its side; try again later"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How failed requests are retried; the defaults follow spec §5.3."""

    max_retries: int = 3
    base_delay_s: float = 0.5
    factor: float = 2.0
    max_delay_s: float = 8.0
    jitter: float = 0.2
    max_timeout_retries: int = 1


def retry_delay(base_s: float, rand: float, *, jitter: float = 0.2, cap_s: float = 8.0) -> float:
    """``base_s`` scaled by a jitter factor in ``[1 - jitter, 1 + jitter]``, capped at ``cap_s``.

    ``rand`` is a uniform draw in ``[0, 1)``: 0.5 gives exactly ``base_s``.
    """
    return min(base_s * (1.0 + jitter * (2.0 * rand - 1.0)), cap_s)


def error_message(response: httpx.Response) -> str:
    """The server's own error text from an error response, or the start of its raw body.

    Understands ``{"error": {"message": …}}`` (OpenAI, Gemini, Mistral), ``{"error": "…"}``
    (Ollama), ``{"detail": …}`` (Voyage, FastAPI) and ``{"message": …}``.
    """
    try:
        body: object = response.json()
    except ValueError:
        body = None
    found = _message_from(body) if body is not None else None
    text = found if found else response.text.strip()
    text = " ".join(text.split())
    if len(text) > _MAX_MESSAGE_CHARS:
        text = text[: _MAX_MESSAGE_CHARS - 1] + "…"
    return text or response.reason_phrase or "no error message"


def _message_from(body: object) -> str | None:
    if isinstance(body, list) and body:
        return _message_from(body[0])
    if not isinstance(body, dict):
        return None
    for key in ("error", "detail", "message", "msg"):
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict | list):
            nested = _message_from(value)
            if nested:
                return nested
    return None


def is_quota_exhausted(response: httpx.Response) -> bool:
    """True for a 429 whose body says the account's quota or credit is used up."""
    if response.status_code != 429:
        return False
    body = response.text.lower()
    return any(marker in body for marker in _QUOTA_MARKERS)


class JsonClient:
    """POSTs JSON to one provider's endpoint with timeouts, retries and clear errors.

    ``sleep`` and ``rand`` are injectable so tests can record the waits instead of sleeping.
    The client owns an :class:`httpx.Client`; call :meth:`close` (or use ``with``) when done.
    ``batch_timeout_s`` defaults to ``timeout_s``.
    """

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        timeout_s: float = 60.0,
        batch_timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rand: Callable[[], float] = random.random,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.batch_timeout_s = timeout_s if batch_timeout_s is None else batch_timeout_s
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rand = rand
        self._client = httpx.Client(
            headers=dict(headers), follow_redirects=False, transport=transport
        )

    def __enter__(self) -> JsonClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying connection pool."""
        self._client.close()

    def url(self, path: str) -> str:
        """``path`` joined under the base URL (requests never leave its host)."""
        return f"{self.base_url}/{path.lstrip('/')}"

    def post_json(self, path: str, payload: Mapping[str, object], *, batch: bool) -> object:
        """POST ``payload`` to ``path`` and return the decoded JSON body of a 2xx answer.

        ``batch`` picks the batch timeout instead of the query timeout. Raises
        :class:`ProviderUnavailable` for 401/403 and :class:`EmbeddingError` otherwise.
        """
        response = self.send(path, payload, batch=batch)
        self.raise_for_status(response)
        return self.decode(response)

    def send(self, path: str, payload: Mapping[str, object], *, batch: bool) -> httpx.Response:
        """POST with retries; return the final response, whatever its status.

        Raises :class:`~memdir.embed.breaker.ProviderFailure` when retries or timeouts run out,
        or on exhausted quota, and :class:`~memdir.embed.breaker.OutOfTime` when the
        :func:`time_budget` is spent before the request starts.
        """
        url = self.url(path)
        timeout = self.batch_timeout_s if batch else self.timeout_s
        budget = _deadline.get()
        # A query's own limit is total: one timeout_s for all attempts and waits.
        own = None if batch else time.monotonic() + self.timeout_s
        if budget is not None and time.monotonic() >= budget:
            raise self._out_of_time(path)
        attempt = timeouts = 0
        while True:
            limit = timeout if own is None else max(own - time.monotonic(), 1e-3)
            try:
                response = self._client.post(url, json=payload, timeout=limit)
            except httpx.TimeoutException as exc:
                timeouts += 1
                wait = self._wait_s(attempt, None)
                if (
                    attempt >= self.retry.max_retries
                    or timeouts > self.retry.max_timeout_retries
                    or self._past(wait, own, budget)
                ):
                    raise self._timeout_error(path, timeout, timeouts) from exc
                reason = f"timed out after {limit:g}s"
            except httpx.TransportError as exc:
                wait = self._wait_s(attempt, None)
                if attempt >= self.retry.max_retries or self._past(wait, own, budget):
                    raise self._transport_error(exc, attempt) from exc
                reason = f"{type(exc).__name__}: {exc}"
            else:
                retryable = _is_retryable(response)
                if retryable and is_quota_exhausted(response):
                    raise self._quota_error(response)
                if not retryable:
                    return response
                wait = self._wait_s(attempt, retry_after_s(response.headers))
                if attempt >= self.retry.max_retries or self._past(wait, own, budget):
                    response.extensions["memdir_attempts"] = attempt + 1
                    return response
                reason = f"HTTP {response.status_code}"
            self._pause(path, reason, attempt, wait)
            attempt += 1

    @staticmethod
    def _past(wait: float, own: float | None, budget: float | None) -> bool:
        """Would a retry after ``wait`` seconds start too late?"""
        later = time.monotonic() + wait
        return any(end is not None and later >= end for end in (own, budget))

    def raise_for_status(self, response: httpx.Response) -> None:
        """Raise the memdir error matching a non-2xx ``response``; do nothing for 2xx."""
        status = response.status_code
        if 200 <= status < 300:
            return
        message = error_message(response)
        if status in (401, 403):
            raise ProviderUnavailable(
                f"{self.provider} refused the API key (HTTP {status}): {message}",
                hint=f"check the {self.provider} API key and that it may use this model",
            )
        if _is_retryable(response):
            label, hint = describe_status(status)
            raise ProviderFailure(
                f"{self.provider} embeddings failed with HTTP {status} ({label}) after "
                f"{response.extensions.get('memdir_attempts', 1)} attempts: {message}",
                hint=hint,
            )
        raise EmbeddingError(f"{self.provider} embeddings failed with HTTP {status}: {message}")

    def decode(self, response: httpx.Response) -> object:
        """The JSON body of ``response``, or :class:`EmbeddingError` if it is not JSON."""
        try:
            body: object = json.loads(response.content)
        except ValueError as exc:
            snippet = " ".join(response.text[:80].split())
            raise ProviderFailure(
                f"malformed response from {self.provider}: body is not JSON ({snippet!r})"
            ) from exc
        return body

    def _wait_s(self, attempt: int, retry_after: float | None) -> float:
        policy = self.retry
        if retry_after is not None:
            return min(retry_after, policy.max_delay_s)
        base = policy.base_delay_s * policy.factor**attempt
        return retry_delay(base, self._rand(), jitter=policy.jitter, cap_s=policy.max_delay_s)

    def _pause(self, path: str, reason: str, attempt: int, wait: float) -> None:
        logger.info(
            "%s %s: %s; retry %d/%d in %.2fs",
            self.provider,
            path,
            reason,
            attempt + 1,
            self.retry.max_retries,
            wait,
        )
        self._sleep(wait)

    def _timeout_error(self, path: str, timeout: float, count: int) -> ProviderFailure:
        return ProviderFailure(
            f"{self.provider} embeddings timed out after {timeout:g}s ({count} attempt(s), {path})",
            hint="the provider is slow or unreachable; raise the embedding timeout or try later",
        )

    def _transport_error(self, exc: httpx.TransportError, retries: int) -> ProviderFailure:
        return ProviderFailure(
            f"cannot reach {self.provider} at {self.base_url} after {retries + 1} attempt(s): "
            f"{type(exc).__name__}: {exc}",
            hint="check the base URL and that the server is running and reachable",
        )

    def _quota_error(self, response: httpx.Response) -> ProviderFailure:
        return ProviderFailure(
            f"{self.provider} quota exhausted (HTTP 429): {error_message(response)}",
            hint=f"check the plan and billing of the {self.provider} account; not retried",
        )

    def _out_of_time(self, path: str) -> OutOfTime:
        return OutOfTime(
            f"{self.provider} embedding request ({path}) not sent: its time budget is spent",
            hint="the rest is embedded later, in the background or by `memdir index`",
        )


def _is_retryable(response: httpx.Response) -> bool:
    status = response.status_code
    return status == 429 or 500 <= status < 600
