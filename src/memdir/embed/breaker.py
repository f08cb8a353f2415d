"""A circuit breaker per hosted provider: a provider that failed is left alone for a while.

States
    ``closed``: calls go through. A :class:`ProviderFailure` (timeout, connection error, HTTP 5xx,
    rate limit or quota after the retries, malformed answer) opens the breaker.
    ``open``: calls fail at once with :class:`ProviderPaused` until the back-off has passed, so a
    search answers from keyword search immediately instead of waiting on a dead provider.
    ``half-open``: the back-off has passed; one call is let through as a trial. Success closes the
    breaker; failure opens it again with twice the back-off (30 s, 60 s, … capped at 10 min).

Any other answer (a 400 or 401, which shows the provider is up) closes the breaker too;
:class:`OutOfTime` (the caller's budget ran out, not the provider's timeout) changes nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from memdir.errors import EmbeddingError

__all__ = ["CircuitBreaker", "OutOfTime", "ProviderFailure", "ProviderPaused"]


class ProviderFailure(EmbeddingError):
    """The provider is down, slow or broken (timeout, connection, 5xx, 429, malformed answer)."""


class OutOfTime(EmbeddingError):
    """A caller's time budget ended a request early: says nothing about the provider's health."""


class ProviderPaused(EmbeddingError):
    """The provider failed recently and is not called again until its back-off has passed."""


class CircuitBreaker:
    """closed → open → half-open → closed, with exponential back-off; thread-safe.

    ``clock`` (monotonic seconds) and ``wall`` (epoch seconds, for the times shown) are
    injectable for tests.
    """

    def __init__(
        self,
        provider: str,
        *,
        base_s: float = 30.0,
        cap_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.provider = provider
        self.base_s = base_s
        self.cap_s = cap_s
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._state = "closed"
        self._failures = 0  # consecutive failures that opened (or re-opened) the breaker
        self._last_error: str | None = None
        self._retry_at = 0.0  # clock time at which the next trial may run
        self._trial = False  # a half-open trial call is running

    @property
    def state(self) -> str:
        """``closed``, ``open`` or ``half-open`` (an open breaker past its back-off)."""
        with self._lock:
            return self._current()

    def _current(self) -> str:
        if self._state == "open" and self._clock() >= self._retry_at and not self._trial:
            return "half-open"
        return self._state

    def paused(self) -> bool:
        """True while calls would be refused (open, and the back-off has not passed)."""
        with self._lock:
            return self._state == "open" and (self._trial or self._clock() < self._retry_at)

    def describe(self) -> str:
        """Why calls are refused, and until when, e.g. for a search warning."""
        with self._lock:
            return self._describe()

    def _describe(self) -> str:
        until = datetime.fromtimestamp(self._wall() + max(self._retry_at - self._clock(), 0), UTC)
        return (
            f"embedding provider {self.provider} is paused until {until:%H:%M:%S} UTC after "
            f"{self._failures} failure(s): {self._last_error}"
        )

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Run one provider call under the breaker; raises :class:`ProviderPaused` while open."""
        with self._lock:
            trial = False
            if self._state == "open":
                if self._trial or self._clock() < self._retry_at:
                    raise ProviderPaused(self._describe(), hint="keyword search answers meanwhile")
                self._trial = trial = True
        try:
            yield
        except ProviderFailure as exc:
            self._failed(exc, trial)
            raise
        except (OutOfTime, ProviderPaused):
            self._neutral(trial)
            raise
        except EmbeddingError:  # the provider answered (400, 401, …): it is up
            self._succeeded(trial)
            raise
        except BaseException:  # not the provider's doing: leave the state as it was
            self._neutral(trial)
            raise
        else:
            self._succeeded(trial)

    def _failed(self, exc: ProviderFailure, trial: bool) -> None:
        with self._lock:
            self._last_error = exc.message
            if trial:
                self._trial = False
            elif self._state == "open":
                return  # a call that started before the breaker opened: no extra back-off
            self._failures += 1
            backoff = min(self.base_s * 2 ** (self._failures - 1), self.cap_s)
            self._state = "open"
            self._retry_at = self._clock() + backoff

    def _neutral(self, trial: bool) -> None:
        if trial:
            with self._lock:
                self._trial = False

    def _succeeded(self, trial: bool) -> None:
        with self._lock:
            if trial:
                self._trial = False
            self._state = "closed"
            self._failures = 0

    def to_dict(self) -> dict[str, object]:
        """State, consecutive failures, last error and next retry time (ISO 8601 UTC or None)."""
        with self._lock:
            state = self._current()
            retry = None
            if self._state == "open":
                wait = max(self._retry_at - self._clock(), 0.0)
                retry = datetime.fromtimestamp(self._wall() + wait, UTC).isoformat(
                    timespec="seconds"
                )
            return {
                "state": state,
                "failures": self._failures,
                "last_error": self._last_error,
                "next_retry_at": retry,
            }
