"""The circuit breaker that pauses a failed provider: its states, back-off and effect on calls."""

from __future__ import annotations

import json
import logging
import threading
from contextlib import suppress
from pathlib import Path

import pytest

from memdir.embed.breaker import (
    STATE_FILENAME,
    CircuitBreaker,
    OutOfTime,
    ProviderFailure,
    ProviderPaused,
)
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


# -- across processes: the state file ---------------------------------------------------------
def _persisted(path: Path, clock: Clock, *, wall: float = 5000.0) -> CircuitBreaker:
    """A breaker of another process: its own monotonic clock, the same wall clock."""
    breaker = CircuitBreaker(
        "openai", key="openai m https://x/v1", base_s=30, clock=clock, wall=lambda: wall
    )
    breaker.persist(path)
    return breaker


def test_its_state_is_saved_on_every_transition_and_taken_by_the_next_process(
    tmp_path: Path,
) -> None:
    path = tmp_path / STATE_FILENAME
    first = _persisted(path, Clock())
    _ok(first)
    assert not path.exists()  # closed and nothing failed: nothing to remember
    _fail(first, "openai embeddings timed out after 5s")
    saved = json.loads(path.read_text())
    assert saved == {
        "openai m https://x/v1": {
            "state": "open",
            "failures": 1,
            "last_error": "openai embeddings timed out after 5s",
            "next_retry_epoch": 5030.0,
            "next_retry_at": "1970-01-01T01:23:50+00:00",
        }
    }
    assert not list(tmp_path.glob("*.tmp-*"))

    later = Clock()
    later.now = 7.0  # another process: another monotonic clock, 10 s later on the wall
    second = _persisted(path, later, wall=5010.0)
    assert second.paused() and second.to_dict()["failures"] == 1
    with pytest.raises(ProviderPaused, match=r"paused until 01:23:50 UTC .*timed out after 5s"):
        _ok(second)
    later.now += 20
    assert second.state == "half-open"
    with pytest.raises(ProviderFailure), second.guard():  # its one trial
        assert second.paused()
        raise ProviderFailure("still down")
    assert json.loads(path.read_text())["openai m https://x/v1"]["failures"] == 2
    later.now += 60
    _ok(second)
    assert json.loads(path.read_text())["openai m https://x/v1"]["state"] == "closed"
    assert _persisted(path, Clock()).to_dict()["state"] == "closed"


def test_other_providers_in_the_file_are_kept(tmp_path: Path) -> None:
    path = tmp_path / STATE_FILENAME
    other = CircuitBreaker("voyage", key="voyage v https://y", wall=lambda: 5000.0)
    other.persist(path)
    _fail(other)
    _fail(_persisted(path, Clock()))
    assert sorted(json.loads(path.read_text())) == ["openai m https://x/v1", "voyage v https://y"]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"openai m https://x/v1": "open"}',
        b'{"openai m https://x/v1": {"state": "open", "failures": "3"}}',
        b'{"openai m https://x/v1": {"state": "open", "failures": 1, "last_error": null,'
        b' "next_retry_epoch": "soon"}}',
    ],
)
def test_a_corrupt_file_is_ignored_and_replaced(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / STATE_FILENAME
    path.write_bytes(content)
    with caplog.at_level(logging.DEBUG, logger="memdir.embed.breaker"):
        breaker = _persisted(path, Clock())
    assert breaker.state == "closed"
    assert any("ignoring" in r.message and r.levelno == logging.DEBUG for r in caplog.records)
    _fail(breaker)
    assert json.loads(path.read_text())["openai m https://x/v1"]["state"] == "open"


def test_a_pause_saved_under_a_wall_clock_far_ahead_lasts_at_most_the_cap(tmp_path: Path) -> None:
    path = tmp_path / STATE_FILENAME
    _fail(_persisted(path, Clock(), wall=10**9))
    clock = Clock()
    breaker = _persisted(path, clock, wall=0.0)  # the clock was set back
    clock.now += 600
    assert breaker.state == "half-open"


def test_an_unwritable_state_folder_changes_nothing_but_the_memory(tmp_path: Path) -> None:
    breaker = _persisted(tmp_path / "missing" / STATE_FILENAME, Clock())
    _fail(breaker)
    assert breaker.state == "open"
    assert not (tmp_path / "missing").exists()


def test_a_reader_never_sees_a_torn_file_while_two_writers_race(tmp_path: Path) -> None:
    path = tmp_path / STATE_FILENAME
    writers = [
        CircuitBreaker(name, key=f"{name} m https://x", base_s=0, clock=Clock())
        for name in ("openai", "voyage")
    ]
    for breaker in writers:
        breaker.persist(path)
    done = threading.Event()
    seen: list[object] = []

    def flip(breaker: CircuitBreaker) -> None:
        for _ in range(40):
            _fail(breaker)  # base_s 0: the trial may run at once
            _ok(breaker)

    def read() -> None:
        while not done.is_set():
            with suppress(FileNotFoundError):
                seen.append(json.loads(path.read_text()))  # raises on a torn file

    reader = threading.Thread(target=read)
    reader.start()
    threads = [threading.Thread(target=flip, args=(b,)) for b in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    reader.join()
    assert seen and all(isinstance(s, dict) for s in seen)
    # Last writer wins: an entry may be stale, but the file is whole.
    assert json.loads(path.read_text()).keys() <= {"openai m https://x", "voyage m https://x"}
