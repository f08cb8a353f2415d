"""Fixtures for the agent tools: a workspace with shared, long-term, private and agent notes.

Every file mentions "quokka", so one search shows exactly what a caller may see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memdir.tools import MemoryTools

from .helpers import FILES, Call


@pytest.fixture(autouse=True)
def keyword_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No embedding model: keyword search is enough here and much faster."""
    monkeypatch.setenv("MEMDIR_EMBEDDING_PROVIDER", "none")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def open_tools(ws: Path) -> Iterator[Callable[..., MemoryTools]]:
    """``open_tools(scope=..., agent_id=..., overrides=...)``: tools on ``ws``, closed afterwards."""
    opened: list[MemoryTools] = []

    def make(**kwargs: Any) -> MemoryTools:
        tools = MemoryTools.open(ws, **kwargs)
        opened.append(tools)
        return tools

    yield make
    for tools in opened:
        tools.close()


@pytest.fixture
def tools(open_tools: Callable[..., MemoryTools]) -> MemoryTools:
    return open_tools()


@pytest.fixture
def call(tools: MemoryTools) -> Call:
    """``call(name, args, **context)`` → ``(payload, is_error)`` through the dispatcher."""

    def run(name: str, arguments: Any = None, **context: Any) -> tuple[dict[str, Any], bool]:
        result = tools.call(name, arguments, **context)
        return result.payload, result.is_error

    return run
