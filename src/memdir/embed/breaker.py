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

After :meth:`CircuitBreaker.persist` the state outlives the process: every transition is
written to a small JSON file (:data:`STATE_FILENAME`, beside the index), keyed by the provider's
identity (provider, model and base URL; never a key), so the next ``memdir search`` does not wait
on a provider that just failed. The file is replaced atomically; last writer wins; a corrupt one
is ignored and deleting it is always safe. A half-open trial is still per process.
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memdir.errors import EmbeddingError

__all__ = ["STATE_FILENAME", "CircuitBreaker", "OutOfTime", "ProviderFailure", "ProviderPaused"]

log = logging.getLogger(__name__)

STATE_FILENAME = "breakers.json"
"""Where :meth:`CircuitBreaker.persist` keeps breaker states: beside the index file."""


class ProviderFailure(EmbeddingError):
    """The provider is down, slow or broken (timeout, connection, 5xx, 429, malformed answer)."""


class OutOfTime(EmbeddingError):
    """A caller's time budget ended a request early: says nothing about the provider's health."""


class ProviderPaused(EmbeddingError):
    """The provider failed recently and is not called again until its back-off has passed."""


class CircuitBreaker:
    """closed → open → half-open → closed, with exponential back-off; thread-safe.

    ``key`` names the provider's identity in the state file (default: ``provider``).
    ``clock`` (monotonic seconds) and ``wall`` (epoch seconds, for the times shown and stored)
    are injectable for tests.
    """

    def __init__(
        self,
        provider: str,
        *,
        key: str | None = None,
        base_s: float = 30.0,
        cap_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.provider = provider
        self.key = key or provider
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
        self._store: Path | None = None  # the state file, once persist() was called

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
            self._save()

    def _neutral(self, trial: bool) -> None:
        if trial:
            with self._lock:
                self._trial = False

    def _succeeded(self, trial: bool) -> None:
        with self._lock:
            if trial:
                self._trial = False
            changed = self._state != "closed" or self._failures != 0
            self._state = "closed"
            self._failures = 0
            if changed:
                self._save()

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

    # -- across processes --------------------------------------------------------------------
    def persist(self, path: Path) -> None:
        """Take the state saved in ``path`` under :attr:`key`, if any, and save every later
        transition there. An unreadable or malformed file is ignored (logged at debug level)."""
        with self._lock:
            self._store = path
            entry = _read_states(path).get(self.key)
            if entry is None:
                return
            try:
                state, failures = entry["state"], entry["failures"]
                retry, error = entry["next_retry_epoch"], entry["last_error"]
                if state not in ("open", "closed") or type(failures) is not int or failures < 0:
                    raise ValueError(f"state {state!r}, failures {failures!r}")
                if not isinstance(retry, int | float) or not math.isfinite(retry):
                    raise ValueError(f"next_retry_epoch {retry!r}")
                if error is not None and not isinstance(error, str):
                    raise ValueError(f"last_error {error!r}")
            except (KeyError, TypeError, ValueError) as exc:
                log.debug("ignoring breaker state of %s in %s: %s", self.key, path, exc)
                return
            self._last_error = error
            if state == "open" and failures > 0:
                self._state, self._failures = "open", failures
                # A wall clock set back must not pause the provider for longer than the cap.
                wait = min(max(retry - self._wall(), 0.0), self.cap_s)
                self._retry_at = self._clock() + wait

    def _save(self) -> None:
        """Write the state to the state file (caller holds the lock); failures are logged only."""
        if self._store is None:
            return
        retry = self._wall() + max(self._retry_at - self._clock(), 0.0)
        entry = {
            "state": self._state,
            "failures": self._failures,
            "last_error": self._last_error,
            "next_retry_epoch": round(retry, 3) if self._state == "open" else 0,
            "next_retry_at": (
                datetime.fromtimestamp(retry, UTC).isoformat(timespec="seconds")
                if self._state == "open"
                else None
            ),
        }
        states = _read_states(self._store)
        states[self.key] = entry
        tmp = self._store.with_name(f"{self._store.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            tmp.write_text(json.dumps(states, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(tmp, self._store)
        except OSError as exc:
            log.debug("cannot save breaker state to %s: %s", self._store, exc)
            with suppress(OSError):
                tmp.unlink()


def _read_states(path: Path) -> dict[str, Any]:
    """The saved breaker states by provider identity; ``{}`` if the file is absent or unusable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError included
        log.debug("ignoring unreadable breaker state file %s: %s", path, exc)
        return {}
    if not isinstance(data, dict):
        log.debug("ignoring breaker state file %s: not a JSON object", path)
        return {}
    return data
