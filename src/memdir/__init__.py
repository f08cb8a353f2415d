"""memdir: local-first memory for LLM agents, as plain Markdown files with a SQLite index.

The names below are imported on first use (PEP 562), so ``import memdir`` and
``memdir --version`` stay cheap; ``from memdir import Memory`` works as usual.
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

logging.getLogger("memdir").addHandler(logging.NullHandler())

_LAZY = {
    "AsyncMemory": "memdir.api",
    "FileSlice": "memdir.api",
    "Memory": "memdir.api",
    "Config": "memdir.config",
    "load_config": "memdir.config",
    "ConfigError": "memdir.errors",
    "EmbeddingError": "memdir.errors",
    "LLMError": "memdir.errors",
    "MemdirError": "memdir.errors",
    "NotFoundError": "memdir.errors",
    "PathError": "memdir.errors",
    "ProviderUnavailable": "memdir.errors",
    "SearchError": "memdir.errors",
    "StorageError": "memdir.errors",
    "UsageError": "memdir.errors",
    "WorkspaceError": "memdir.errors",
    "SyncReport": "memdir.index",
    "SearchResponse": "memdir.search",
    "SearchResult": "memdir.search",
    "AsyncSession": "memdir.sessions",
    "Session": "memdir.sessions",
}

__all__ = [
    "AsyncMemory",
    "AsyncSession",
    "Config",
    "ConfigError",
    "EmbeddingError",
    "FileSlice",
    "LLMError",
    "MemdirError",
    "Memory",
    "NotFoundError",
    "PathError",
    "ProviderUnavailable",
    "SearchError",
    "SearchResponse",
    "SearchResult",
    "Session",
    "StorageError",
    "SyncReport",
    "UsageError",
    "WorkspaceError",
    "__version__",
    "load_config",
]

if TYPE_CHECKING:
    from memdir.api import AsyncMemory, FileSlice, Memory
    from memdir.config import Config, load_config
    from memdir.errors import (
        ConfigError,
        EmbeddingError,
        LLMError,
        MemdirError,
        NotFoundError,
        PathError,
        ProviderUnavailable,
        SearchError,
        StorageError,
        UsageError,
        WorkspaceError,
    )
    from memdir.index import SyncReport
    from memdir.search import SearchResponse, SearchResult
    from memdir.sessions import AsyncSession, Session


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memdir' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
