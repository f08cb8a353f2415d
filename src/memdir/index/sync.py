"""Bring the index up to date with the files: incremental sync and full rebuild.

Incremental sync trusts a file's size and modification time when both match what was indexed
(and the file was not modified within the same second it was indexed, when the clock could not
tell two writes apart); otherwise it hashes the content and re-chunks the file only if the hash
changed. Each file is replaced in its own transaction, so a crash leaves every file either wholly
old or wholly new. A full rebuild builds a new database beside the index and installs it in one
transaction (see :meth:`Index.install_build`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import PurePosixPath
from zoneinfo import ZoneInfo

from memdir.chunking import (
    SECTION_SLACK,
    STRATEGIES,
    Chunk,
    chunk_markdown,
    chunk_session,
    chunk_text,
    flatten_session,
)
from memdir.errors import ConfigError
from memdir.index.backend import Build, IndexBackend, Txn
from memdir.index.store import FileRow
from memdir.text import TOKENIZER_VERSION
from memdir.workspace import Problem, SourceFile, Workspace

__all__ = ["Chunking", "Progress", "SessionDelta", "SyncReport", "index_shape", "sync_index"]

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
"""Called as ``progress(phase, done, total)``; phases are ``scan``, ``index`` and ``embed``."""

_RACY_NS = 2_000_000_000  # a file modified this close to its indexing time is always re-hashed

TRANSCRIPTS = 2
"""How transcripts are flattened, part of the index shape. 2: Claude Code transcripts are read
too, and each chunk's context names the messages it holds."""

CHUNK_DATES = 7
"""How structure chunks are dated, part of the index shape (``structure`` strategy only), so
that an index written before a change is rebuilt with the new dates. 2: heading dates in the
forms people write (``2026/11/26``, ``2026年11月26日``, ``11/26 時点``, ``Nov 26``), a date
without a year placed in the year nearest the file's day or modification day; in a file
without a day in its name, list items that start with a date without a year (``- 11/05 …``).
3: a bare ``M/D`` of one digit each is a date with a weekday just before it too
(``周五（9/4）``), not only after it. 4: a score is no date (``「7/10」``, ``a 7/10``,
``4/5 stars``). 5: Korean dates (``12월 4일``, ``2026년 12월 4일``). 6: an English date word
ends at a Han or kana character too (``Sep 3的会``, ``Updated：``): ``\b`` took those for
letters. 7: a bare ``M/D`` of one digit each is a date beside a deadline too (``9/5 までに``,
``截止 9/5``, ``due 9/5``)."""


@dataclass(slots=True)
class SyncReport:
    """What one sync did."""

    files_total: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_deferred: int = 0
    """Transcripts that grew, but by less than the delta thresholds and too recently (see
    :class:`SessionDelta`): still indexed as they were; their paths are in ``deferred``."""
    chunks_written: int = 0
    full_rebuild: bool = False
    rebuild_reason: str | None = None
    seconds: float = 0.0
    problems: list[Problem] = field(default_factory=list)
    vectors: dict[str, object] | None = None
    deferred: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.files_indexed or self.files_removed or self.full_rebuild)

    def to_dict(self) -> dict[str, object]:
        return {
            "files_total": self.files_total,
            "files_indexed": self.files_indexed,
            "files_unchanged": self.files_unchanged,
            "files_removed": self.files_removed,
            "files_deferred": self.files_deferred,
            "chunks_written": self.chunks_written,
            "full_rebuild": self.full_rebuild,
            "rebuild_reason": self.rebuild_reason,
            "seconds": round(self.seconds, 4),
            "problems": [
                {"path": p.path, "kind": p.kind, "message": p.message} for p in self.problems
            ],
        }


def index_shape(
    tokens: int, overlap: int, strategy: str = "structure", timezone: str = ""
) -> dict[str, object]:
    """Everything that shapes the rows; a difference from the stored shape forces a rebuild.

    The time zone dates transcript chunks, so it counts only for the ``structure`` strategy.
    """
    shape: dict[str, object] = {
        "tokenizer": TOKENIZER_VERSION,
        "chunk_tokens": tokens,
        "chunk_overlap": overlap,
        "chunk_strategy": strategy,
        "transcripts": TRANSCRIPTS,
    }
    if strategy == "structure":
        shape["timezone"] = timezone
        shape["chunk_dates"] = CHUNK_DATES
        shape["section_slack"] = SECTION_SLACK
    return shape


@dataclass(frozen=True, slots=True)
class Chunking:
    """How files are cut into chunks (the ``chunking.*`` settings, and ``timezone``, which dates
    transcript chunks); every field is part of the index shape."""

    tokens: int = 400
    overlap: int = 80
    strategy: str = "structure"
    timezone: str = ""

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ConfigError(
                f"chunking.strategy = {self.strategy!r}: must be one of {', '.join(STRATEGIES)}"
            )

    def shape(self) -> dict[str, object]:
        return index_shape(self.tokens, self.overlap, self.strategy, self.timezone)

    def chunks(
        self, file: SourceFile, text: str, redact: Callable[[str], str] | None = None
    ) -> tuple[list[Chunk], Problem | None]:
        """The chunks of a file, and the lines of a transcript that were skipped, if any.
        Transcripts are redacted with ``redact`` as they are flattened.

        ``window`` chunks have no context or date, exactly as before structure-aware chunking.
        """
        tokens, overlap = self.tokens, self.overlap
        if file.source != "sessions":
            if self.strategy == "window":
                return chunk_text(text, tokens=tokens, overlap=overlap), None
            modified = datetime.fromtimestamp(file.mtime_ns / 1e9, self._zone()).date()
            return (
                chunk_markdown(
                    text,
                    path=file.path,
                    tokens=tokens,
                    overlap=overlap,
                    modified=modified.isoformat(),
                ),
                None,
            )
        session = flatten_session(text, redact=redact)
        if self.strategy == "window":
            windows = chunk_text(session.text, tokens=tokens, overlap=overlap)
            chunks = [session.remap(c) for c in windows]
        else:
            chunks = chunk_session(
                session,
                name=_session_name(file.path),
                tokens=tokens,
                overlap=overlap,
                zone=self._zone(),
            )
        return chunks, _bad_lines_problem(file.path, session.bad_lines)

    def _zone(self) -> tzinfo | None:
        return ZoneInfo(self.timezone) if self.timezone else None


def _session_name(path: str) -> str:
    """``sessions/abc.jsonl`` and its archives (``abc.jsonl.reset.<time>``) → ``abc``."""
    name = PurePosixPath(path).name
    return name.partition(".jsonl")[0] or name


def _bad_lines_problem(path: str, lines: tuple[int, ...]) -> Problem | None:
    """``sessions/a.jsonl: lines 2, 7 are not valid JSON; skipped`` (the first ten listed)."""
    if not lines:
        return None
    shown = ", ".join(map(str, lines[:10]))
    more = f" and {len(lines) - 10} more" if len(lines) > 10 else ""
    which = f"line {shown} is" if len(lines) == 1 else f"lines {shown}{more} are"
    return Problem(path, "bad-lines", f"{which} not valid JSON; skipped")


@dataclass(frozen=True, slots=True)
class SessionDelta:
    """When a transcript that is being appended to is indexed again (spec §4.5).

    A transcript already in the index that has grown since is re-indexed once it has grown by
    ``bytes`` or by ``messages`` JSONL lines since it was last indexed, or once it has been
    quiet (not modified) for ``debounce_ms``; until then it is left as it was indexed.
    ``bytes`` of 0 or less is reached by any growth; ``messages`` of 0 or less turns the
    message count off, as upstream. A transcript that shrank (rewritten or
    rotated) or kept its size, and one not in the index yet, are indexed as any file is. The
    decision needs only the size recorded in the ``files`` table when the transcript was
    indexed: the messages since are the newlines in the bytes past it, so it holds across
    restarts. Explicit syncs (``memdir index``, :meth:`memdir.Memory.sync`) pass no
    ``SessionDelta`` and index every change.
    """

    bytes: int = 100_000
    messages: int = 50
    debounce_ms: int = 5_000
    now_ns: int = 0
    """The current time (``time.time_ns()`` when 0)."""

    def defers(self, row: FileRow | None, file: SourceFile) -> bool:
        """Whether ``file`` (a transcript) is left as ``row`` says it was indexed."""
        if row is None or file.source != "sessions" or file.size <= row.size:
            return False
        now = self.now_ns or time.time_ns()
        if now - file.mtime_ns >= self.debounce_ms * 1_000_000:
            return False
        grown = file.size - row.size
        if _hit(grown, self.bytes):
            return False
        if self.messages <= 0:  # the message count is off: only bytes count
            return True
        return not _hit(_newlines(file, row.size, self.messages), self.messages)


def _hit(pending: int, threshold: int) -> bool:
    return pending > 0 if threshold <= 0 else pending >= threshold


def _newlines(file: SourceFile, start: int, enough: int) -> int:
    """The newlines in ``file`` from byte ``start`` on, counted up to ``enough``; a file that
    cannot be read counts as ``enough`` (so it is indexed, and the problem reported)."""
    count = 0
    try:
        with open(file.abs, "rb") as handle:
            handle.seek(start)
            while count < enough and (block := handle.read(65536)):
                count += block.count(b"\n")
    except OSError:
        return enough
    return count


def _unchanged_by_stat(row: FileRow | None, file: SourceFile) -> bool:
    if row is None or row.size != file.size or row.mtime_ns != file.mtime_ns:
        return False
    return row.indexed_ns - file.mtime_ns > _RACY_NS


class _Syncer:
    def __init__(
        self,
        workspace: Workspace,
        index: IndexBackend,
        chunking: Chunking,
        progress: Progress | None,
        redact: Callable[[str], str] | None = None,
        delta: SessionDelta | None = None,
    ) -> None:
        self.ws = workspace
        self.delta = delta
        self.index = index
        self.chunking = chunking
        self.redact = redact
        self.progress = progress or (lambda phase, done, total: None)
        self.report = SyncReport()
        # Files found unchanged, so not chunked again: the problems recorded when they were
        # (lines skipped in a transcript) still hold.
        self.unchanged: set[str] = set()

    def run(self, build: Build | None, rows: Mapping[str, FileRow], *, batch: int) -> None:
        """Sync into ``build`` (a rebuild) or, when ``None``, into the live index."""
        found = self.ws.discover()
        self.report.problems.extend(found.problems)
        self.report.files_total = len(found.files)
        self.progress("scan", len(found.files), len(found.files))
        present = {f.path for f in found.files}
        pending: list[tuple[SourceFile, str | None, list[Chunk] | None]] = []
        for n, file in enumerate(found.files, start=1):
            row = rows.get(file.path)
            if _unchanged_by_stat(row, file):
                self.report.files_unchanged += 1
                self.unchanged.add(file.path)
            elif self._defer(row, file):
                pass
            else:
                pending.append(self._prepare(file, row))
                if len(pending) >= batch:
                    self._write(build, pending)
                    pending = []
            self.progress("index", n, len(found.files))
        stale = [p for p in rows if p not in present]
        self._write(build, pending, stale=stale)

    def run_paths(self, paths: list[str]) -> set[str] | None:
        """Sync only ``paths`` into the live index; returns the relative paths looked at, or
        ``None`` when a full scan is needed instead."""
        found, gone, full = self.ws.discover_paths(paths)
        if full:
            return None
        touched = {f.path for f in found.files} | set(gone)
        rows = self.index.file_rows(touched)
        self.report.problems.extend(found.problems)
        self.report.files_total = self.index.file_count()
        pending = []
        for f in found.files:
            if _unchanged_by_stat(rows.get(f.path), f):
                self.unchanged.add(f.path)
                self.report.files_unchanged += 1
            elif not self._defer(rows.get(f.path), f):
                pending.append(self._prepare(f, rows.get(f.path)))
        self._write(None, pending, stale=[p for p in gone if p in rows])
        return touched | {p.path for p in found.problems}

    def _defer(self, row: FileRow | None, file: SourceFile) -> bool:
        """Leave a growing transcript as it was indexed (see :class:`SessionDelta`)."""
        if self.delta is None or not self.delta.defers(row, file):
            return False
        self.report.files_deferred += 1
        self.report.deferred.append(file.path)
        self.unchanged.add(file.path)  # the problems recorded when it was indexed still hold
        return True

    def _prepare(
        self, file: SourceFile, row: FileRow | None
    ) -> tuple[SourceFile, str | None, list[Chunk] | None]:
        """Read and chunk a file outside any transaction. ``None`` chunks mean 'only touch'."""
        read = self.ws.read(file)
        if read.problem is not None:
            self.report.problems.append(read.problem)
            log.warning("%s", read.problem)
        if read.text is None:
            return file, None, []  # skipped: drop whatever was indexed for it
        digest = hashlib.sha256(read.data).hexdigest()
        if row is not None and row.hash == digest:
            self.unchanged.add(file.path)
            return file, digest, None
        chunks, problem = self.chunking.chunks(file, read.text, self.redact)
        if problem is not None:
            self.report.problems.append(problem)
            log.warning("%s", problem)
        return file, digest, chunks

    def _write(
        self,
        build: Build | None,
        pending: list[tuple[SourceFile, str | None, list[Chunk] | None]],
        *,
        stale: list[str] | None = None,
    ) -> None:
        if build is None:
            for item in pending:
                with self.index.transaction() as live:
                    self._apply(live, *item)
            for path in stale or []:
                with self.index.transaction() as live:
                    self.index.remove_file(live, path)
                self.report.files_removed += 1
            return
        with self.index.build_transaction(build) as conn:
            for item in pending:
                self._apply(conn, *item)

    def _apply(
        self,
        conn: Txn,
        file: SourceFile,
        digest: str | None,
        chunks: list[Chunk] | None,
    ) -> None:
        if digest is None:
            self.index.remove_file(conn, file.path)
            return
        if chunks is None:
            self.index.touch_file(conn, file.path, file.size, file.mtime_ns)
            self.report.files_unchanged += 1
            return
        ids = self.index.replace_file(
            conn,
            path=file.path,
            source=file.source,
            file_hash=digest,
            size=file.size,
            mtime_ns=file.mtime_ns,
            chunks=chunks,
        )
        self.report.files_indexed += 1
        self.report.chunks_written += len(ids)


def sync_index(
    workspace: Workspace,
    index: IndexBackend,
    *,
    chunking: Chunking,
    force: bool = False,
    progress: Progress | None = None,
    paths: list[str] | None = None,
    redact: Callable[[str], str] | None = None,
    delta: SessionDelta | None = None,
) -> SyncReport:
    """Bring ``index`` up to date with the files of ``workspace``. Call with the writer lock held.

    ``paths`` (changed files a watcher reported) limits the work to those files; a full scan is
    done anyway when one of them is a folder or the index needs a rebuild. ``redact`` masks
    secrets in session transcripts as they are flattened. ``delta`` leaves a transcript that
    grew by less than its thresholds as it was indexed (never on a rebuild); without it every
    change is indexed.
    """
    started = time.perf_counter()
    shape = chunking.shape()
    reason = "forced" if force else index.shape_mismatch(shape)
    syncer = _Syncer(workspace, index, chunking, progress, redact, None if reason else delta)
    touched = syncer.run_paths(paths) if reason is None and paths is not None else None
    if touched is not None:
        with index.transaction() as conn:
            index.set_problems(conn, syncer.report.problems, only=touched - syncer.unchanged)
        syncer.report.seconds = time.perf_counter() - started
        return syncer.report
    if reason is None:
        syncer.run(None, index.file_rows(), batch=1)
        with index.transaction() as conn:
            kept = [p for p in index.problems() if p.path in syncer.unchanged]
            index.set_problems(conn, kept + syncer.report.problems)
    else:
        log.info("full rebuild of %s: %s", index.location, reason)
        build = index.new_build()
        try:
            syncer.run(build, {}, batch=256)
            with index.build_transaction(build) as conn:
                index.write_shape(shape, conn)
                index.set_problems(conn, syncer.report.problems)
        except BaseException:
            index.discard_build(build)
            raise
        index.install_build(build)
        syncer.report.full_rebuild = True
        syncer.report.rebuild_reason = reason
    syncer.report.seconds = time.perf_counter() - started
    return syncer.report
