"""memdir: local-first memory for LLM agents, as plain Markdown files with a SQLite index."""

import logging

from memdir.api import AsyncMemory, FileSlice, Memory
from memdir.config import Config, load_config
from memdir.errors import (
    ConfigError,
    EmbeddingError,
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

__version__ = "0.1.0"

logging.getLogger("memdir").addHandler(logging.NullHandler())

__all__ = [
    "AsyncMemory",
    "Config",
    "ConfigError",
    "EmbeddingError",
    "FileSlice",
    "MemdirError",
    "Memory",
    "NotFoundError",
    "PathError",
    "ProviderUnavailable",
    "SearchError",
    "SearchResponse",
    "SearchResult",
    "StorageError",
    "SyncReport",
    "UsageError",
    "WorkspaceError",
    "__version__",
    "load_config",
]
