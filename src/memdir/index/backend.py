"""The storage seam: what the layers above the index (sync, embedding fill, search, the API)
may ask of an index, whichever engine holds it.

Two implementations follow :class:`IndexBackend`: :class:`memdir.index.store.Index` (SQLite, a
file beside the Markdown; the default) and :class:`memdir.index.postgres.PgIndex` (a shared
PostgreSQL with pgvector). :func:`open_index` picks one from the ``index.*`` settings. Nothing
above this package names either engine: writes go through :meth:`IndexBackend.transaction`
and hand its opaque :data:`Txn` back to the write methods, a full rebuild goes through
:meth:`IndexBackend.new_build` / :meth:`IndexBackend.build_transaction` /
:meth:`IndexBackend.install_build`, and database errors are caught as
:attr:`IndexBackend.errors`.

Vectors are searched one of two ways. A backend with ``server_vectors`` false (SQLite) hands its
vectors out by sequence number (:class:`VectorLog`) for an in-memory matrix to follow
(:mod:`memdir.search.vector`); one with ``server_vectors`` true (Postgres, HNSW) answers
:meth:`IndexBackend.nearest` itself. Either way the search pipeline above is the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from memdir.chunking import Chunk
from memdir.workspace import Problem

if TYPE_CHECKING:
    from memdir.config import Config
    from memdir.index.store import ChunkRow, FileRow, KeywordRow, VectorState

__all__ = [
    "LINES_COMPLETE",
    "Build",
    "IndexBackend",
    "LockLike",
    "SharedFile",
    "Txn",
    "VectorLog",
    "open_index",
]

LINES_COMPLETE = "vectors.lines_complete"
"""The ``meta`` key saying (``"1"``) that every chunk with a vector has its line vectors, so a
fill need not look for chunks lacking them: at 100k chunks that look is a scan of 0.1–0.2 s,
which every fill (a search embedding one edited note included) paid at its end. A fill's line
pass sets it once it leaves none; a fill without line vectors, a migration and an index made
before them leave it unset, and the next fill with ``embedding.line_vectors`` looks again."""

Txn: TypeAlias = Any
"""A backend's open write transaction, as :meth:`IndexBackend.transaction` yields it: pass it
back to the write methods, never use it directly."""

Build: TypeAlias = Any
"""A full rebuild in progress, as :meth:`IndexBackend.new_build` returns it."""


@dataclass(frozen=True, slots=True)
class SharedFile:
    """Another workspace's memory file as a shared index holds it: its lines by number (those
    its chunks hold), how many it has, and who indexed it (``host:folder``)."""

    origin: str
    total_lines: int
    lines: Mapping[int, str]


class LockLike(Protocol):
    """The writer lock (and the fill lock): re-entrant within a process, exclusive across."""

    @property
    def path(self) -> Path | str: ...

    def acquire(self, timeout: float | None = None) -> bool: ...

    def release(self) -> None: ...

    @property
    def held(self) -> bool: ...


@runtime_checkable
class IndexBackend(Protocol):
    """One index: files, chunks, keyword search, vectors, embedding cache, meta, problems."""

    kind: str
    """``"sqlite"`` or ``"postgres"``."""
    path: Path
    """The local index path (``index.path``); beside it live the lock and breaker state files."""
    lock: LockLike
    fill_lock: LockLike
    recovered_from: str | None
    server_vectors: bool
    errors: tuple[type[BaseException], ...]
    """Exceptions of the engine that callers catch around index work."""

    @property
    def location(self) -> str:
        """Where the index is, for people: a file path, or a URL without its password."""
        ...

    def is_corruption(self, exc: BaseException) -> bool: ...

    def reopened_after_corruption(self) -> IndexBackend:
        """Close, move the damaged index aside, open a new empty one (SQLite only)."""
        ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[Txn]: ...

    def snapshot(self) -> AbstractContextManager[None]: ...

    def term_dfs(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]: ...

    def script_lines(self) -> dict[str, int]:
        """How many lines of each writing (:func:`memdir.text.scripts.line_script`) the
        chunks hold, counted in up to :data:`memdir.index.store.SCRIPT_SAMPLE` chunks spread
        evenly over the index (all of them in a smaller one); cached until it changes."""
        ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str, conn: Txn | None = None) -> None: ...

    def fill_record(self) -> dict[str, Any] | None: ...

    def set_fill_record(self, conn: Txn, record: Mapping[str, object]) -> None: ...

    def shape(self) -> dict[str, object] | None: ...

    def shape_mismatch(self, wanted: Mapping[str, object]) -> str | None: ...

    def write_shape(self, wanted: Mapping[str, object], conn: Txn | None = None) -> None: ...

    def file_rows(self, paths: Iterable[str] | None = None) -> dict[str, FileRow]: ...

    def file_count(self) -> int: ...

    def replace_file(
        self,
        conn: Txn,
        *,
        path: str,
        source: str,
        file_hash: str,
        size: int,
        mtime_ns: int,
        chunks: Sequence[Chunk],
    ) -> list[int]: ...

    def touch_file(self, conn: Txn, path: str, size: int, mtime_ns: int) -> None: ...

    def remove_file(self, conn: Txn, path: str) -> None: ...

    def set_problems(
        self, conn: Txn, problems: Iterable[Problem], *, only: Iterable[str] | None = None
    ) -> None: ...

    def problems(self) -> list[Problem]: ...

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, ChunkRow]: ...

    def shared_file(self, path: str) -> SharedFile | None:
        """The index's copy of a memory file that another workspace of a shared namespace
        indexed (PostgreSQL); ``None`` for any other path, and always on SQLite."""
        ...

    def keyword(
        self, match: str, limit: int, *, sources: Sequence[str] | None = None, ranked: bool = True
    ) -> list[KeywordRow]:
        """The best ``limit`` chunks matching ``match`` by BM25; ``ranked=False``: any
        ``limit`` of them, when that is cheaper (a sample to read, not an answer)."""
        ...

    def newest(
        self, match: str, limit: int, *, sources: Sequence[str] | None = None
    ) -> list[KeywordRow]:
        """The ``limit`` newest dated chunks matching ``match`` (``rank`` 0), newest first:
        what a question asking what is new about something is answered from."""
        ...

    def dated(
        self, days: Sequence[str], limit: int, *, sources: Sequence[str] | None = None
    ) -> tuple[int, list[KeywordRow]]:
        """How many chunks are dated one of ``days`` (``YYYY-MM-DD``, or ``--MM-DD``: that
        day of any year), and the newest ``limit`` of them (``rank`` 0)."""
        ...

    def nearest(self, query: Sequence[float], k: int) -> list[tuple[int, float]]:
        """``(chunk id, cosine)`` of the ``k`` nearest vectors (``server_vectors`` only)."""
        ...

    def vector_scores(
        self, query: Sequence[float], chunk_ids: Sequence[int]
    ) -> list[tuple[int, float]]:
        """``(chunk id, cosine)`` of those of ``chunk_ids`` that have a vector of the query's
        dimensions (``server_vectors`` only)."""
        ...

    def vector_state(self) -> VectorState: ...

    def vector_count(self) -> int: ...

    def reset_vectors(self, *, provider_key: str, model: str, dims: int | None) -> None: ...

    def chunks_missing_vectors(self, limit: int) -> list[tuple[int, str, str]]: ...

    def chunks_missing_line_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        """As :meth:`chunks_missing_vectors`, of chunks that have a vector but no line vectors."""
        ...

    def count_missing_vectors(self) -> int: ...

    def count_missing_line_vectors(self) -> int:
        """How many chunks have a vector but no line vectors yet (see
        :meth:`chunks_missing_line_vectors`): the work of a fill's line pass."""
        ...

    def write_vectors(self, conn: Txn, rows: Iterable[tuple[int, bytes]]) -> int: ...

    def write_line_vectors(self, conn: Txn, rows: Iterable[tuple[int, bytes]]) -> None:
        """Store each chunk's line vectors: one blob of little-endian float32 vectors, one
        after another, for chunks that still exist (deleted with the chunk, and by
        :meth:`reset_vectors`)."""
        ...

    def line_vectors(self, ids: Sequence[int]) -> dict[int, bytes]:
        """The line-vector blobs of those of ``ids`` that have them."""
        ...

    def compact_vector_log(self, keep_below: int = 100_000) -> None: ...

    def cache_get(self, provider_key: str, hashes: Sequence[str]) -> dict[str, bytes]: ...

    def cache_touch(self, conn: Txn, provider_key: str, hashes: Iterable[str]) -> None: ...

    def cache_put(
        self, conn: Txn, provider_key: str, rows: Iterable[tuple[str, int, bytes]]
    ) -> None: ...

    def cache_size(self) -> int: ...

    def cache_evict(self, max_entries: int) -> int: ...

    def counts(self) -> dict[str, dict[str, int]]: ...

    def server_info(self) -> dict[str, object]:
        """What ``memdir status`` shows of the engine (server, version, extensions, rows)."""
        ...

    def new_build(self) -> Build: ...

    def build_transaction(self, build: Build) -> AbstractContextManager[Txn]: ...

    def install_build(self, build: Build) -> None: ...

    def discard_build(self, build: Build) -> None: ...


class VectorLog(Protocol):
    """Vectors by sequence number, for an in-memory matrix (``server_vectors`` false)."""

    def snapshot(self) -> AbstractContextManager[None]: ...

    def vector_state(self) -> VectorState: ...

    def vector_count(self) -> int: ...

    def vectors_since(self, seq: int, limit: int = -1) -> list[tuple[int, int, bytes]]: ...

    def vector_deletions_since(self, seq: int) -> list[tuple[int, int]]: ...


def open_index(config: Config) -> IndexBackend:
    """The index the ``index.*`` settings name: SQLite at ``index.path`` (default), or the
    PostgreSQL at ``index.url`` under this workspace's namespace."""
    if config["index.backend"] == "postgres":
        from memdir.index.postgres import PgIndex, namespace_for, origin_for

        return PgIndex.open(
            config["index.url"],
            namespace=namespace_for(config),
            origin=origin_for(config),
            path=config.index_path,
        )
    from memdir.index.store import Index

    return Index.open(config.index_path)
