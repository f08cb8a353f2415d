"""Fill in missing chunk vectors: embedding cache first, then the embedder, in batches.

Runs after the text index is up to date. Every chunk without a vector is looked up in the
embedding cache by ``(provider key, content hash)``; only the misses are sent to the embedder,
so unchanged text is never embedded twice — not after an edit elsewhere in the file, not after a
full rebuild. Each batch is embedded with no lock held and written in its own transaction under
the writer lock, so keyword search (and another process's text sync) keeps up while a large
backlog is embedded, nothing embedded is lost if the process is stopped, and whatever was not embedded (the
provider failed, ``max_chunks`` was reached, or ``stop`` was set) is picked up by the next fill.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from memdir.chunking import line_inputs, sha256_hex
from memdir.embed.base import Embedder, provider_key
from memdir.errors import EmbeddingError
from memdir.index.backend import LINES_COMPLETE, IndexBackend, Txn

__all__ = ["FillReport", "decode_vector", "encode_vector", "fill_vectors", "lines_missing"]

log = logging.getLogger(__name__)

_WRITE_WAIT_S = 2.0
"""The least a fill waits for the writer lock before writing a batch."""


def encode_vector(vec: np.ndarray) -> bytes:
    """Little-endian float32 bytes (4 × dims)."""
    return np.asarray(vec, dtype="<f4").tobytes()


def decode_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4")


@dataclass(slots=True)
class FillReport:
    """What one fill did; ``error`` says why it stopped early, ``remaining`` what is left."""

    provider: str = ""
    embedded: int = 0
    from_cache: int = 0
    remaining: int = 0
    reset_reason: str | None = None
    error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "embedded": self.embedded,
            "from_cache": self.from_cache,
            "remaining": self.remaining,
            "reset_reason": self.reset_reason,
            "error": self.error,
            "seconds": round(self.seconds, 3),
        }


def _ensure_owner(index: IndexBackend, embedder: Embedder, key: str) -> str | None:
    """Reset stored vectors if they came from another embedder; returns why, if reset."""
    state = index.vector_state()
    if state.provider_key == key:
        return None
    reason = (
        "no vectors yet"
        if state.provider_key is None
        else f"embedder changed to {embedder.provider}/{embedder.model}"
    )
    index.reset_vectors(provider_key=key, model=f"{embedder.provider}/{embedder.model}", dims=None)
    return reason


def fill_vectors(
    index: IndexBackend,
    embedder: Embedder,
    *,
    prepare: Callable[[list[str]], list[str]] = lambda texts: texts,
    batch_size: int = 64,
    max_chunks: int | None = None,
    lock_timeout: float = 30.0,
    progress: Callable[[str, int, int], None] | None = None,
    stop: threading.Event | None = None,
    lines: bool = False,
) -> FillReport:
    """Embed chunks that have no vector. ``prepare`` transforms texts before they are sent
    (e.g. secret redaction for hosted providers). A chunk is embedded as its context (heading
    path), a newline and its text; the cache is keyed by the chunk's hash of exactly that,
    before ``prepare``.
    ``stop``, once set, ends the fill after the batch in progress.

    With ``lines``, each chunk's lines worth a vector of their own
    (:func:`~memdir.chunking.line_inputs`) are embedded with it, through the same cache (keyed
    by the hash of each line's text to embed), and written in the same transaction, so a chunk
    with a vector always has its line vectors (an empty blob when it has none worth one).

    One fill runs at a time per index (``index.fill_lock``, waited on up to ``lock_timeout``
    seconds). The writer lock (waited on up to ``lock_timeout``, at least a moment) is held
    only while a batch is written, never while it is embedded, so another process's text sync (and with it a fresh keyword search) gets in
    between batches. Every batch also records the fill's progress in the index
    (:meth:`~memdir.index.backend.IndexBackend.fill_record`), which ``memdir status`` shows from any process.
    """
    started = time.perf_counter()
    report = FillReport(provider=f"{embedder.provider}/{embedder.model}")
    key = provider_key(embedder)
    if not index.fill_lock.acquire(timeout=lock_timeout):
        report.error = "another process is embedding into this index"
        report.remaining = index.count_missing_vectors()
        return report
    record: dict[str, Any] = {}
    write_wait = max(lock_timeout, _WRITE_WAIT_S)  # other writers hold it briefly, mostly
    try:
        if not index.lock.acquire(timeout=write_wait):
            report.error = "index is busy (another process is writing)"
            report.remaining = index.count_missing_vectors()
            return report
        try:
            report.reset_reason = _ensure_owner(index, embedder, key)
            lines_todo = _lines_todo(index, lines)
            missing = index.count_missing_vectors()
            total = _capped(missing + lines_todo, max_chunks)
            if total:  # recorded only when there is work, so a no-op keeps the last record
                record = {
                    "running": True,
                    "pid": os.getpid(),
                    "provider": report.provider,
                    "started_at": round(time.time(), 3),
                    "done": 0,
                    "total": total,
                    "rate": 0.0,
                }
                with index.transaction() as conn:
                    _put_record(index, conn, record)
        finally:
            index.lock.release()
        if progress is not None and record:
            progress("embed", 0, record["total"])  # the clock of chunks/s starts now
        done = 0
        selves_done = 0  # chunks given their own vector
        lines_done = 0  # chunks given their line vectors by the line pass
        lines_left = lines_todo > 0
        counted_at = 0  # report.embedded + from_cache when chunks lacking one were last counted
        remaining: int | None = None
        while max_chunks is None or done < max_chunks:
            if stop is not None and stop.is_set():
                break
            want = batch_size if max_chunks is None else min(batch_size, max_chunks - done)
            # Newest first, and no more than were counted: the chunks a sync just wrote are
            # found at once, where a look for more than lack a vector scans the whole index.
            ask = min(want, missing - selves_done)
            rows = index.chunks_missing_vectors(ask) if ask > 0 else []
            if len(rows) < ask:  # another fill embedded some meanwhile
                missing = selves_done + len(rows)
            own = bool(rows)  # else the lines of chunks embedded before theirs were
            complete = False  # once this batch is written, no chunk lacks its line vectors
            if not rows and lines_left:
                rows = index.chunks_missing_line_vectors(want)
                lines_left = len(rows) == want
                complete = not lines_left
            if not rows:
                if complete:
                    _mark_lines_complete(index, write_wait)
                remaining = index.count_missing_vectors()
                so_far = report.embedded + report.from_cache  # vectors written
                if remaining and so_far > counted_at:  # a sync wrote more meanwhile
                    missing, counted_at = selves_done + remaining, so_far
                    continue
                break
            if own:
                selves_done += len(rows)
            else:
                lines_done += len(rows)

            def account(
                conn: Txn,
                now_done: int = done + len(rows),
                left: int = max(0, missing - selves_done) + max(0, lines_todo - lines_done),
            ) -> None:
                """Within the batch's transaction: how far the fill has got."""
                if not record:
                    return
                elapsed = time.perf_counter() - started
                record.update(
                    done=now_done,
                    total=_capped(now_done + left, max_chunks),
                    rate=round(now_done / elapsed, 3) if elapsed > 0 else 0.0,
                )
                _put_record(index, conn, record)

            try:
                written, hits = _fill_batch(
                    index,
                    embedder,
                    key,
                    rows,
                    prepare,
                    write_wait,
                    account,
                    lines=lines,
                    own=own,
                    complete=complete,
                )
            except EmbeddingError as exc:
                report.error = str(exc)
                log.warning("embedding stopped after %d chunks: %s", done, exc)
                break
            report.embedded += written - hits
            report.from_cache += hits
            done += len(rows)
            if progress is not None:
                progress("embed", done, max(done, record.get("total", 0)))
        report.remaining = index.count_missing_vectors() if remaining is None else remaining
    finally:
        try:
            if record and index.lock.acquire(timeout=write_wait):
                try:
                    record.update(running=False, error=report.error)
                    with index.transaction() as conn:
                        _put_record(index, conn, record)
                finally:
                    index.lock.release()
        finally:
            index.fill_lock.release()
    report.seconds = time.perf_counter() - started
    return report


def lines_missing(index: IndexBackend) -> int:
    """How many chunks with a vector lack their line vectors (an index filled before they were
    on, or with them off): 0 without a look once the index says none do
    (:data:`LINES_COMPLETE`), as the look is a scan of the index."""
    if index.get_meta(LINES_COMPLETE) == "1":
        return 0
    return index.count_missing_line_vectors() if index.vector_count() else 0


def _lines_todo(index: IndexBackend, lines: bool) -> int:
    """:func:`lines_missing` with ``lines`` (0 without): the chunks the fill's line pass embeds
    after the chunks lacking their own, so that its progress counts both. When none lack them
    (an index with no vector yet among them), the index says so from now on: every vector a
    fill with ``lines`` writes comes with its lines. Called with the writer lock held."""
    if not lines:
        return 0
    todo = lines_missing(index)
    if not todo and index.get_meta(LINES_COMPLETE) != "1":
        with index.transaction() as conn:
            index.set_meta(LINES_COMPLETE, "1", conn)
    return todo


def _mark_lines_complete(index: IndexBackend, write_wait: float) -> None:
    """Record that no chunk lacks its line vectors (:data:`LINES_COMPLETE`); left for the
    next fill to find again when the index is busy."""
    if index.lock.acquire(timeout=write_wait):
        try:
            with index.transaction() as conn:
                index.set_meta(LINES_COMPLETE, "1", conn)
        finally:
            index.lock.release()


def _capped(count: int, limit: int | None) -> int:
    return count if limit is None else min(count, limit)


def _put_record(index: IndexBackend, conn: Txn, record: dict[str, Any]) -> None:
    record["updated_at"] = round(time.time(), 3)
    index.set_fill_record(conn, record)


def _fill_batch(
    index: IndexBackend,
    embedder: Embedder,
    key: str,
    rows: list[tuple[int, str, str]],
    prepare: Callable[[list[str]], list[str]],
    lock_timeout: float,
    account: Callable[[Txn], None],
    *,
    lines: bool = False,
    own: bool = True,
    complete: bool = False,
) -> tuple[int, int]:
    """Embed one batch (no lock held), then write it under the writer lock; without ``own``,
    only the chunks' line vectors (their own vectors are written already). With
    ``complete``, the batch holds the last chunks lacking line vectors (:data:`LINES_COMPLETE`
    is set with it); a batch written without ``lines`` unsets it."""
    line_texts: dict[int, list[tuple[str, str]]] = {}  # chunk id -> (hash, text) of its lines
    if lines:
        for cid, row in index.chunks_by_ids([cid for cid, _, _ in rows]).items():
            line_texts[cid] = [(sha256_hex(t), t) for t in line_inputs(row.context, row.text)]
    selves = rows if own else []  # the chunks whose own vectors are embedded
    wanted = [h for _, h, _ in selves] + [h for pairs in line_texts.values() for h, _ in pairs]
    cached = index.cache_get(key, wanted)
    misses = [(cid, h, text) for cid, h, text in selves if h not in cached]
    misses += [
        (cid, h, t) for cid, pairs in line_texts.items() for h, t in pairs if h not in cached
    ]
    vectors = None
    unique: list[tuple[str, str]] = []
    if misses:
        unique = list(dict.fromkeys((h, text) for _, h, text in misses))
        vectors = embedder.embed_documents(prepare([text for _, text in unique]))
        if vectors.ndim != 2 or vectors.shape[0] != len(unique):
            raise EmbeddingError(
                f"{embedder.provider} returned {vectors.shape[0]} vectors for {len(unique)} texts"
            )
    if not index.lock.acquire(timeout=lock_timeout):
        raise EmbeddingError("index is busy (another process is writing)")
    try:
        state = index.vector_state()
        if state.provider_key != key:  # another process switched embedders meanwhile
            raise EmbeddingError(
                f"another process reset the vectors for {state.model}; stopped embedding"
            )
        dims = state.dims
        fresh: dict[str, bytes] = {}
        if vectors is not None:
            if dims is not None and vectors.shape[1] != dims:
                raise EmbeddingError(
                    f"{embedder.provider}/{embedder.model} returned {vectors.shape[1]} dimensions, the index holds {dims}"
                )
            dims = int(vectors.shape[1])
            fresh = {h: encode_vector(v) for (h, _), v in zip(unique, vectors, strict=True)}
        if dims is None and cached:
            dims = len(next(iter(cached.values()))) // 4
        with index.transaction() as conn:
            if fresh:
                index.cache_put(conn, key, [(h, dims or 0, blob) for h, blob in fresh.items()])
            if dims is not None and index.get_meta("vectors.dims") != str(dims):
                index.set_meta("vectors.dims", str(dims), conn)
            if cached:
                index.cache_touch(conn, key, cached)
            written = index.write_vectors(
                conn, [(cid, cached.get(h) or fresh[h]) for cid, h, _ in selves]
            )
            if not lines and selves:
                index.set_meta(LINES_COMPLETE, "0", conn)  # these chunks have none
            elif complete:
                index.set_meta(LINES_COMPLETE, "1", conn)
            if lines:
                index.write_line_vectors(
                    conn,
                    [
                        (
                            cid,
                            b"".join(cached.get(h) or fresh[h] for h, _ in line_texts.get(cid, ())),
                        )
                        for cid, _, _ in rows
                    ],
                )
            account(conn)
    finally:
        index.lock.release()
    hits = sum(1 for _, h, _ in selves if h in cached)
    return written, hits
