"""Shared data and helpers for the agent-tool tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memdir.tools import MemoryTools

FILES = {
    "MEMORY.md": "# Memory\n\nLong-term: we chose the quokka exporter.\n",
    "memory/2026-01-12.md": "# 2026-01-12\n\n- Met Bob about the quokka migration.\n",
    "memory/projects/billing.md": "# Billing\n\nInvoices use the quokka exporter.\nline 4\nline 5\n",
    "memory/private/diary.md": "quokka diary: a private worry\n",
    "memory/marked.md": "---\ntitle: Health\nprivate: true\n---\nquokka allergy notes\n",
    "memory/agents/alice/notes.md": "alice quokka notes\n",
    "memory/agents/alice/MEMORY.md": "alice long-term quokka fact\n",
    "memory/agents/alice/private/x.md": "alice private quokka\n",
    "memory/agents/bob/notes.md": "bob quokka notes\n",
}
"""Workspace-relative path → text."""

SHARED = {"memory/2026-01-12.md", "memory/projects/billing.md"}
LONG_TERM_AND_PRIVATE = {"MEMORY.md", "memory/private/diary.md", "memory/marked.md"}

Call = Callable[..., tuple[dict[str, Any], bool]]


def paths_found(tools: MemoryTools, query: str = "quokka", **context: Any) -> set[str]:
    """Every path a search for ``query`` returns to this caller."""
    result = tools.call(
        "memory_search", {"query": query, "minScore": 0, "maxResults": 50}, **context
    )
    assert not result.is_error, result.payload
    return {hit["path"] for hit in result.payload["results"]}
