"""Fixtures for the session tests: a keyword-only Memory in a temporary workspace, a fixed
clock, and sessions built on them (with the offline fallback unless a test gives a model)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from embed.fakes import FakeServer, Seen
from llm.conftest import QUICK, TEST_KEY
from memdir import Memory, Session
from memdir.llm import OpenAIChat

NOW = datetime(2026, 2, 16, 15, 0, tzinfo=UTC)
"""Monday 2026-02-16 10:00 in New York, the moment of spec §15 case 97."""

MakeMemory = Callable[..., Memory]
MakeSession = Callable[..., Session]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    return root


@pytest.fixture
def make_memory(ws: Path) -> Iterator[MakeMemory]:
    """``make_memory(**overrides)``: a keyword-only Memory on ``ws`` in America/New_York."""
    made: list[Memory] = []

    def make(**overrides: Any) -> Memory:
        settings = {"embedding.provider": "none", "timezone": "America/New_York", **overrides}
        memory = Memory(ws, overrides=settings)
        made.append(memory)
        return memory

    yield make
    for memory in made:
        memory.close()


@pytest.fixture
def mem(make_memory: MakeMemory) -> Memory:
    return make_memory()


@pytest.fixture
def make_session(mem: Memory) -> Iterator[MakeSession]:
    """``make_session(**kwargs)``: a Session on ``mem`` at :data:`NOW` (``memory=`` for another)."""
    made: list[Session] = []

    def make(**kwargs: Any) -> Session:
        memory = kwargs.pop("memory", mem)
        kwargs.setdefault("clock", lambda: NOW)
        session = Session(memory, **kwargs)
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()


def talk(session: Session, *pairs: tuple[str, str]) -> None:
    """Record user/assistant turns."""
    for user, assistant in pairs:
        session.add({"role": "user", "content": user})
        session.add({"role": "assistant", "content": assistant})


@pytest.fixture
def chat(server: FakeServer) -> Iterator[OpenAIChat]:
    """An OpenAI-compatible chat model aimed at the suite's scripted loopback server."""
    client = OpenAIChat(
        "gpt-test", base_url=server.url + "/v1", api_key=TEST_KEY, key_env="TEST_KEY", retry=QUICK
    )
    yield client
    client.close()


def prompt_of(seen: Seen) -> tuple[str, str]:
    """The system prompt and the user message of a chat request the server received."""
    assert isinstance(seen.body, dict)
    messages = seen.body["messages"]
    system = next(m["content"] for m in messages if m["role"] == "system")
    user = next(m["content"] for m in messages if m["role"] == "user")
    return system, user
