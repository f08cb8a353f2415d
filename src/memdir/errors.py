"""Errors raised by memdir.

Every error memdir raises on purpose derives from :class:`MemdirError`, which carries an
``exit_code`` used by the CLI and an optional ``hint`` telling the user what to do next::

    MemdirError                 exit 1
    ├── UsageError              exit 2  bad argument to a command or API call
    ├── ConfigError             exit 3  bad configuration key or value
    ├── WorkspaceError          exit 4  workspace missing or unreadable
    │   └── PathError           exit 4  a path refused by the workspace rules
    ├── NotFoundError           exit 4  a file or record that does not exist
    ├── EmbeddingError          exit 5  an embedding provider failed
    │   └── ProviderUnavailable exit 5  a provider cannot be used at all (no key, no package)
    ├── LLMError                exit 5  a chat model (OpenAI-compatible, Anthropic) failed
    ├── StorageError            exit 6  the SQLite index failed
    │   └── IndexBusyError      exit 6  another process held the index too long
    └── SearchError             exit 1  a search could not run
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EmbeddingError",
    "IndexBusyError",
    "LLMError",
    "MemdirError",
    "NotFoundError",
    "PathError",
    "ProviderUnavailable",
    "SearchError",
    "StorageError",
    "UsageError",
    "WorkspaceError",
]


class MemdirError(Exception):
    """Root of every error memdir raises on purpose."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class UsageError(MemdirError):
    exit_code = 2


class ConfigError(MemdirError):
    exit_code = 3


class WorkspaceError(MemdirError):
    exit_code = 4


class PathError(WorkspaceError):
    """A path refused by the workspace rules; ``code`` names the rule that refused it."""

    def __init__(self, message: str, *, code: str, path: str = "", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.code = code
        self.path = path


class NotFoundError(MemdirError):
    exit_code = 4


class EmbeddingError(MemdirError):
    exit_code = 5


class ProviderUnavailable(EmbeddingError):
    """The provider cannot be used at all: no API key, package not installed, bad model."""


class LLMError(MemdirError):
    """A chat model request failed: HTTP status, timeout, unreachable server or malformed answer.

    ``provider`` and ``url`` say where it went, ``status`` is the last HTTP status (``None``
    when no answer came) and ``attempts`` how many requests were made. Never holds the API key.
    """

    exit_code = 5

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        url: str = "",
        status: int | None = None,
        attempts: int = 0,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.provider = provider
        self.url = url
        self.status = status
        self.attempts = attempts


class StorageError(MemdirError):
    exit_code = 6


class IndexBusyError(StorageError):
    """Another process held the index's writer lock for longer than the caller would wait."""


class SearchError(MemdirError):
    exit_code = 1
