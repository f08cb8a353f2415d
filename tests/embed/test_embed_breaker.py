"""The circuit breaker that pauses a failed provider: its states, back-off and effect on calls."""

from __future__ import annotations

import pytest

from memdir.embed.breaker import CircuitBreaker, OutOfTime, ProviderFailure, ProviderPaused
from memdir.errors import EmbeddingError, UsageError

from .fakes import FakeServer, Hosted, Reply, openai_reply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _fail(breaker: CircuitBreaker, message: str = "timed out") -> None:
    with pytest.raises(ProviderFailure), breaker.guard():
        raise ProviderFailure(message)


def _ok(breaker: CircuitBreaker) -> None:
    with breaker.guard():
        pass


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def breaker(clock: Clock) -> CircuitBreaker:
    return CircuitBreaker("openai", base_s=30, cap_s=600, clock=clock, wall=lambda: 0.0)


def test_a_failure_opens_it_and_calls_are_refused_until_the_back_off_ends(
    breaker: CircuitBreaker, clock: Clock
) -> None:
    assert breaker.state == "closed" and not breaker.paused()
    _fail(breaker, "openai embeddings timed out after 5s")
    assert breaker.state == "open" and breaker.paused()
    with pytest.raises(ProviderPaused, match=r"openai is paused until 00:00:30 UTC") as info:
        _ok(breaker)
    assert "timed out after 5s" in str(info.value)
    assert breaker.to_dict() == {
        "state": "open",
        "failures": 1,
        "last_error": "openai embeddings timed out after 5s",
        "next_retry_at": "1970-01-01T00:00:30+00:00",
    }
    clock.now += 29.9
    assert breaker.paused()
    clock.now += 0.2
    assert breaker.state == "half-open" and not breaker.paused()
    _ok(breaker)  # the trial succeeds
    assert breaker.state == "closed"
    assert breaker.to_dict()["failures"] == 0
    assert breaker.to_dict()["next_retry_at"] is None


def test_back_off_doubles_up_to_the_cap(breaker: CircuitBreaker, clock: Clock) -> None:
    waits = []
    for _ in range(8):
        _fail(breaker)
        start = clock.now
        while breaker.paused():
            clock.now += 1
        waits.append(clock.now - start)
    assert waits == [30, 60, 120, 240, 480, 600, 600, 600]


def test_half_open_lets_one_trial_through(breaker: CircuitBreaker, clock: Clock) -> None:
    _fail(breaker)
    clock.now += 31
    with breaker.guard():  # the trial is running: a second caller is refused meanwhile
        assert breaker.paused()
        with pytest.raises(ProviderPaused):
            _ok(breaker)
    assert breaker.state == "closed"


def test_failures_of_calls_started_before_it_opened_add_no_back_off(
    breaker: CircuitBreaker, clock: Clock
) -> None:
    with pytest.raises(ProviderFailure), breaker.guard():
        _fail(breaker)  # another thread's call fails while this one is still waiting
        raise ProviderFailure("second")
    assert breaker.to_dict()["failures"] == 1
    assert breaker.to_dict()["last_error"] == "second"


@pytest.mark.parametrize(
    ("error", "state"),
    [
        (EmbeddingError("HTTP 400: bad input"), "closed"),  # the provider is up
        (OutOfTime("budget"), "half-open"),  # says nothing about the provider
        (UsageError("blank text"), "half-open"),
    ],
)
def test_other_outcomes_of_a_trial(
    breaker: CircuitBreaker, clock: Clock, error: Exception, state: str
) -> None:
    _fail(breaker)
    clock.now += 31
    with pytest.raises(type(error)), breaker.guard():
        raise error
    assert breaker.state == state


def test_a_provider_that_failed_is_not_called_again_until_its_back_off_ends(
    server: FakeServer, hosted: Hosted
) -> None:
    server.handler = lambda seen: Reply({"error": "down"}, status=503)
    embedder = hosted("openai", timeout_s=5.0)
    with pytest.raises(ProviderFailure, match="HTTP 503"):
        embedder.embed_documents(["hello"])
    calls = len(server.requests)
    with pytest.raises(ProviderPaused, match="openai is paused until"):
        embedder.embed_query("hello")
    with pytest.raises(ProviderPaused):
        embedder.embed_documents(["hello"])
    assert len(server.requests) == calls  # nothing was sent
    assert embedder.breaker.to_dict()["state"] == "open"


def test_a_malformed_answer_opens_it(server: FakeServer, hosted: Hosted) -> None:
    server.script(Reply({"data": "nope"}), openai_reply)
    embedder = hosted("openai")
    with pytest.raises(ProviderFailure, match="malformed response"):
        embedder.embed_query("hello")
    assert embedder.breaker.state == "open"


def test_a_refused_request_leaves_it_closed(server: FakeServer, hosted: Hosted) -> None:
    server.script(Reply({"error": "input too long"}, status=400), openai_reply)
    embedder = hosted("openai")
    with pytest.raises(EmbeddingError, match="HTTP 400"):
        embedder.embed_query("hello")
    assert embedder.breaker.state == "closed"
    assert embedder.embed_query("hello").shape == (4,)
