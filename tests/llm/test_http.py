"""The retry arithmetic of memdir.llm.http: jittered exponential back-off and Retry-After."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from memdir.llm.http import RetryPolicy, backoff_s, retry_after_s


def test_backoff_doubles_with_jitter_and_a_cap() -> None:
    policy = RetryPolicy(base_delay_s=0.5, factor=2.0, max_delay_s=8.0, jitter=0.25)
    assert [backoff_s(policy, n, 0.5) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff_s(policy, 1, 0.0) == pytest.approx(0.75)
    assert backoff_s(policy, 1, 0.999999) == pytest.approx(1.25, abs=1e-5)
    assert backoff_s(policy, 10, 0.0) == 8.0


def test_retry_after_in_seconds_milliseconds_and_dates() -> None:
    assert retry_after_s({"retry-after": "7"}) == 7.0
    assert retry_after_s({"retry-after": "1.5"}) == 1.5
    assert retry_after_s({"retry-after": "-3"}) == 0.0
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"retry-after-ms": "soon", "retry-after": "9"}) == 9.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (retry_after_s({"retry-after": later}) or 0) <= 30
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    assert retry_after_s({"retry-after": past}) == 0.0
    assert retry_after_s({"retry-after": "whenever"}) is None
    assert retry_after_s({}) is None
