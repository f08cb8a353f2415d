"""The index database: files, chunks, FTS5 rows, vectors and the embedding cache.

All SQL that touches the index lives in this package. :class:`Index` owns one connection; it is
safe to share between threads (calls are serialised by a lock) and between processes (SQLite WAL
for readers, :class:`~memdir.index.lock.WriterLock` for the single writer).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from memdir.chunking import Chunk, embed_input
from memdir.config import STATE_DIRNAME
from memdir.errors import StorageError
from memdir.index.backend import LINES_COMPLETE
from memdir.index.lock import WriterLock
from memdir.index.schema import (
    FTS_BODY,
    LINE_VECTORS_DDL,
    SCHEMA_VERSION,
    connect,
    create_date_index,
    create_schema,
    immediate,
)
from memdir.text import FTS_TOKENIZE
from memdir.text.scripts import script_lines
from memdir.workspace import Problem

__all__ = ["ChunkRow", "FileRow", "Index", "KeywordRow", "VectorState"]

log = logging.getLogger(__name__)

_SHAPE_KEY = "shape"
_FILL_KEY = "fill.progress"


@dataclass(frozen=True, slots=True)
class FileRow:
    path: str
    source: str
    hash: str
    size: int
    mtime_ns: int
    chunks: int
    indexed_ns: int


@dataclass(frozen=True, slots=True)
class ChunkRow:
    id: int
    path: str
    source: str
    start_line: int
    end_line: int
    text: str
    context: str = ""
    """The chunk's heading path (see :attr:`memdir.chunking.Chunk.context`)."""
    date: str | None = None
    """``YYYY-MM-DD``: the day the chunk speaks of, when one is known."""


_CHUNK_COLUMNS = "id, path, source, start_line, end_line, text, context, date"


SCRIPT_SAMPLE = 512
"""How many chunks :meth:`~memdir.index.backend.IndexBackend.script_lines` reads: each writing's share of a memory
is known to a few points from a few hundred chunks, read in milliseconds whatever the index's
size."""


def spread_ids(lo: int, hi: int) -> list[int]:
    """:data:`SCRIPT_SAMPLE` ids spread evenly from ``lo`` to ``hi``: each stands for the first
    chunk at or after it, so a sample of an index whose ids have gaps still spans all of it."""
    return [lo + i * (hi - lo + 1) // SCRIPT_SAMPLE for i in range(SCRIPT_SAMPLE)]


MAX_DATED_YEARS = 100
"""How many years back from the newest chunk's a day named without a year is looked up in."""


def dated_keys(days: Sequence[str], first: str | None, last: str | None) -> list[str]:
    """The dates that stand for ``days``: a ``YYYY-MM-DD`` as it is, a ``--MM-DD`` in each year
    from ``first``'s to ``last``'s (the oldest and newest chunk dates; none when no chunk is
    dated), at most :data:`MAX_DATED_YEARS` of them (a note dated 0001-01-01 asks no more)."""
    if not first or not last:
        return []
    newest = int(last[:4])
    years = range(max(int(first[:4]), newest - MAX_DATED_YEARS + 1), newest + 1)
    wanted: list[str] = []
    for day in days:
        if not day.startswith("--"):
            wanted.append(day)
            continue
        for year in years:
            try:
                wanted.append(date.fromisoformat(f"{year:04d}-{day[2:]}").isoformat())
            except ValueError:  # 29 February in a year without it
                continue
    return list(dict.fromkeys(wanted))


@dataclass(frozen=True, slots=True)
class VectorState:
    provider_key: str | None
    model: str | None
    dims: int | None
    generation: str
    vector_seq: int
    log_seq: int


@dataclass(frozen=True, slots=True)
class KeywordRow:
    chunk: ChunkRow
    rank: float


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """True for errors that mean the database file itself is damaged."""
    text = str(exc).lower()
    return any(
        s in text
        for s in ("not a database", "malformed", "corrupt", "file is encrypted", "disk image")
    )


@dataclass(slots=True)
class _Build:
    """A rebuild in progress: a temporary database beside the index."""

    path: Path
    conn: sqlite3.Connection


class Index:
    """One index database file. Open with :meth:`open`, which repairs a corrupt file.

    The SQLite implementation of :class:`memdir.index.backend.IndexBackend`."""

    kind = "sqlite"
    server_vectors = False
    errors: tuple[type[BaseException], ...] = (sqlite3.DatabaseError,)

    def __init__(self, path: Path, conn: sqlite3.Connection, *, lock: WriterLock) -> None:
        self.path = path
        self.conn = conn
        self.lock = lock
        self.fill_lock = WriterLock(path.with_name(path.name + ".fill.lock"))
        """Held by the one fill that embeds into this index (see ``memdir.embed.fill``)."""
        self._mutex = threading.RLock()
        self._writes = 0
        self._stats_for: tuple[int, int] | None = None
        self._df_cache: dict[str, int] = {}
        self._scripts: dict[str, int] | None = None
        self._total = 0
        self._scratch_ready = False
        self.recovered_from: str | None = None

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path) -> Index:
        """Open or create the index at ``path``; a corrupt or unreadable file is moved aside."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create index folder {path.parent}: {exc.strerror}") from exc
        if path.parent.name == STATE_DIRNAME:
            _write_gitignore(path.parent)
        lock = WriterLock(path.with_name(path.name + ".lock"))
        recovered = None
        try:
            conn = cls._open_checked(path)
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise StorageError(f"cannot open index {path}: {exc}") from exc
            recovered = _move_aside(path, lock)
            log.warning(
                "index %s was unreadable (%s); moved to %s and rebuilding from the files",
                path,
                exc,
                recovered,
            )
            conn = cls._open_checked(path)
        index = cls(path, conn, lock=lock)
        index.recovered_from = recovered
        index._remove_stale_temp_files()
        return index

    @staticmethod
    def _open_checked(path: Path) -> sqlite3.Connection:
        conn = connect(path)
        try:
            if (
                conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'meta'").fetchone()[0]
                == 0
            ):
                create_schema(conn)
            conn.execute("SELECT key FROM meta LIMIT 1").fetchall()
            if not conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE name = 'line_vectors'"
            ).fetchone()[0]:
                try:
                    conn.execute(LINE_VECTORS_DDL)  # an index written before line vectors
                    conn.execute("DELETE FROM meta WHERE key = ?", (LINES_COMPLETE,))
                except sqlite3.OperationalError as exc:  # busy or read-only: made when written
                    log.info("line_vectors table not created yet in %s: %s", path, exc)
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _remove_stale_temp_files(self) -> None:
        """Remove what a crashed rebuild left, and add the index on chunk dates that an index
        made before it lacks (one statement, once), when no other process is writing."""
        if not self.lock.acquire(timeout=0):
            return
        try:
            for stale in self.path.parent.glob(self.path.name + ".tmp-*"):
                with suppress(OSError):
                    stale.unlink()
            with suppress(sqlite3.Error):  # a read-only file is searched without it
                indexes = {row[1] for row in self.conn.execute("PRAGMA index_list(chunks)")}
                if "idx_chunks_date" not in indexes:
                    create_date_index(self.conn)
        finally:
            self.lock.release()

    @staticmethod
    def discard_corrupt(path: Path) -> str:
        """Move a damaged index (and its WAL files) aside; returns where it went."""
        return _move_aside(path, WriterLock(path.with_name(path.name + ".lock")))

    @property
    def location(self) -> str:
        return str(self.path)

    def is_corruption(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.DatabaseError) and is_corruption(exc)

    def reopened_after_corruption(self) -> Index:
        """Close this index, move the damaged file aside and open a new one in its place."""
        self.close()
        moved = Index.discard_corrupt(self.path)
        fresh = Index.open(self.path)
        fresh.recovered_from = moved
        return fresh

    def server_info(self) -> dict[str, object]:
        return {"backend": "sqlite", "path": str(self.path), "sqlite": sqlite3.sqlite_version}

    def nearest(self, query: Sequence[float], k: int) -> list[tuple[int, float]]:
        raise NotImplementedError("the SQLite index is searched by an in-memory matrix")

    def vector_scores(
        self, query: Sequence[float], chunk_ids: Sequence[int]
    ) -> list[tuple[int, float]]:
        raise NotImplementedError("the SQLite index is searched by an in-memory matrix")

    def shared_file(self, path: str) -> None:
        """A SQLite index holds only its own workspace's files."""
        return None

    def close(self) -> None:
        with self._mutex:
            try:
                self.conn.close()
            finally:
                self.lock.release()
                self.fill_lock.release()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception."""
        with self._mutex:
            with immediate(self.conn) as conn:
                yield conn
            self._writes += 1

    def _stats_key(self) -> tuple[int, int]:
        """Changes whenever any connection (this one or another process's) commits."""
        return (self._writes, int(self.conn.execute("PRAGMA data_version").fetchone()[0]))

    def _ensure_scratch(self) -> None:
        if not self._scratch_ready:
            self.conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.memdir_q USING fts5(body, tokenize='{FTS_TOKENIZE}')"
            )
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memdir_qi USING fts5vocab(temp, 'memdir_q', 'instance')"
            )
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memdir_dv USING fts5vocab(main, 'chunks_fts', 'row')"
            )
            self._scratch_ready = True

    def term_dfs(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """``(chunk count, {term: chunks that match it})`` for query terms as
        :func:`memdir.text.fts_query_terms` makes them: one FTS token (stemmed by FTS5 itself,
        then looked up in the vocabulary) or a phrase of several (counted with a MATCH).
        Cached until the index changes."""
        with self._mutex:
            key = self._stats_key()
            if key != self._stats_for:
                self._stats_for = key
                self._df_cache = {}
                self._scripts = None
                self._total = int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
            self._ensure_scratch()
            todo = [t for t in dict.fromkeys(terms) if t not in self._df_cache]
            words = [t for t in todo if " " not in t]
            if words:
                self.conn.execute("DELETE FROM temp.memdir_q")
                self.conn.executemany(
                    "INSERT INTO temp.memdir_q(rowid, body) VALUES (?, ?)",
                    [(i, w) for i, w in enumerate(words, start=1)],
                )
                tokens: dict[int, list[str]] = {}
                for doc, term in self.conn.execute("SELECT doc, term FROM temp.memdir_qi"):
                    tokens.setdefault(int(doc), []).append(term)
                # A word FTS5 cuts in two ("foo_bar") is counted as the phrase it searches as.
                stems = {doc: ts[0] for doc, ts in tokens.items() if len(ts) == 1}
                todo += [w for i, w in enumerate(words, start=1) if len(tokens.get(i, ())) > 1]
                wanted = sorted(set(stems.values()))
                marks = ",".join("?" * len(wanted))
                found = dict(
                    self.conn.execute(
                        f"SELECT term, doc FROM temp.memdir_dv WHERE term IN ({marks})", wanted
                    ).fetchall()
                )
                for i, w in enumerate(words, start=1):
                    if len(tokens.get(i, ())) <= 1:
                        stem = stems.get(i)
                        self._df_cache[w] = int(found.get(stem, 0)) if stem else 0
            for phrase in (t for t in todo if t not in self._df_cache):
                (count,) = self.conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                    ('"' + phrase.replace('"', '""') + '"',),
                ).fetchone()
                self._df_cache[phrase] = int(count)
            return self._total, {t: self._df_cache[t] for t in terms}

    def script_lines(self) -> dict[str, int]:
        """See :meth:`memdir.index.backend.IndexBackend.script_lines`: the chunks at evenly
        spaced ids, each found through the primary key."""
        self.term_dfs([])  # drops the cached counts when the index changed
        with self._mutex:
            if self._scripts is None:
                lo, hi = self.conn.execute("SELECT min(id), max(id) FROM chunks").fetchone()
                if lo is None or self._total <= SCRIPT_SAMPLE:
                    rows = self.conn.execute("SELECT text FROM chunks")
                else:
                    rows = self.conn.execute(
                        "SELECT text FROM chunks WHERE id IN (SELECT (SELECT id FROM chunks"
                        " WHERE id >= j.value ORDER BY id LIMIT 1) FROM json_each(?) AS j)",
                        (json.dumps(spread_ids(lo, hi)),),
                    )
                texts = [text for (text,) in rows]
                self._scripts = dict(script_lines(texts))
            return dict(self._scripts)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Run several reads against one consistent state of the database."""
        with self._mutex:
            if self.conn.in_transaction:
                yield
                return
            self.conn.execute("BEGIN")
            try:
                yield
            finally:
                if self.conn.in_transaction:
                    self.conn.execute("COMMIT")

    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:  # type: ignore[type-arg]
        with self._mutex:
            return self.conn.execute(sql, params).fetchall()

    # -- meta ----------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self.read("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str, conn: sqlite3.Connection | None = None) -> None:
        (conn or self.conn).execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def fill_record(self) -> dict[str, Any] | None:
        """The progress a fill last recorded (done, total, rate, pid, running, …), if any."""
        raw = self.get_meta(_FILL_KEY)
        try:
            record = json.loads(raw) if raw else None
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def set_fill_record(self, conn: sqlite3.Connection, record: Mapping[str, object]) -> None:
        self.set_meta(_FILL_KEY, json.dumps(record), conn)

    def shape(self) -> dict[str, object] | None:
        raw = self.get_meta(_SHAPE_KEY)
        return json.loads(raw) if raw else None

    def shape_mismatch(self, wanted: Mapping[str, object]) -> str | None:
        """Why the index must be rebuilt for ``wanted``, or ``None`` if it fits."""
        have = self.shape()
        if have is None:
            return "no index yet" if not self.file_count() else "index has no recorded shape"
        full = {"schema": SCHEMA_VERSION, **wanted}
        for key, value in full.items():
            if have.get(key) != value:
                return f"{key} changed from {have.get(key)!r} to {value!r}"
        return None

    def write_shape(
        self, wanted: Mapping[str, object], conn: sqlite3.Connection | None = None
    ) -> None:
        self.set_meta(
            _SHAPE_KEY, json.dumps({"schema": SCHEMA_VERSION, **wanted}, sort_keys=True), conn
        )

    # -- files and chunks ----------------------------------------------------------------
    def file_rows(self, paths: Iterable[str] | None = None) -> dict[str, FileRow]:
        """Every file row, or only those of ``paths``."""
        sql = "SELECT path, source, hash, size, mtime_ns, chunks, indexed_ns FROM files"
        if paths is None:
            return {r[0]: FileRow(*r) for r in self.read(sql)}
        out: dict[str, FileRow] = {}
        for path in paths:
            for r in self.read(sql + " WHERE path = ?", (path,)):
                out[r[0]] = FileRow(*r)
        return out

    def file_count(self) -> int:
        return int(self.read("SELECT count(*) FROM files")[0][0])

    def replace_file(
        self,
        conn: sqlite3.Connection,
        *,
        path: str,
        source: str,
        file_hash: str,
        size: int,
        mtime_ns: int,
        chunks: Sequence[Chunk],
    ) -> list[int]:
        """Replace every row of one file; call inside :meth:`transaction`. Returns new chunk ids."""
        self._delete_chunks(conn, path)
        ids: list[int] = []
        for chunk in chunks:
            cur = conn.execute(
                "INSERT INTO chunks(path, source, start_line, end_line, hash, text, context, date)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    path,
                    source,
                    chunk.start_line,
                    chunk.end_line,
                    chunk.hash,
                    chunk.text,
                    chunk.context,
                    chunk.date,
                ),
            )
            chunk_id = int(cur.lastrowid or 0)
            conn.execute(
                f"INSERT INTO chunks_fts(rowid, body) SELECT id, {FTS_BODY} FROM chunks WHERE id = ?",
                (chunk_id,),
            )
            ids.append(chunk_id)
        conn.execute(
            "INSERT INTO files(path, source, hash, size, mtime_ns, chunks, indexed_ns) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(path) DO UPDATE SET source=excluded.source, hash=excluded.hash, size=excluded.size,"
            " mtime_ns=excluded.mtime_ns, chunks=excluded.chunks, indexed_ns=excluded.indexed_ns",
            (path, source, file_hash, size, mtime_ns, len(chunks), time.time_ns()),
        )
        return ids

    def touch_file(self, conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> None:
        conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ?, indexed_ns = ? WHERE path = ?",
            (size, mtime_ns, time.time_ns(), path),
        )

    def remove_file(self, conn: sqlite3.Connection, path: str) -> None:
        self._delete_chunks(conn, path)
        conn.execute("DELETE FROM files WHERE path = ?", (path,))

    @staticmethod
    def _delete_chunks(conn: sqlite3.Connection, path: str) -> None:
        conn.execute(
            f"INSERT INTO chunks_fts(chunks_fts, rowid, body) SELECT 'delete', id, {FTS_BODY} FROM chunks WHERE path = ?",
            (path,),
        )
        conn.execute("DELETE FROM chunks WHERE path = ?", (path,))

    def set_problems(
        self,
        conn: sqlite3.Connection,
        problems: Iterable[Problem],
        *,
        only: Iterable[str] | None = None,
    ) -> None:
        """Replace the recorded problems: all of them, or only those of the paths ``only``."""
        if only is None:
            conn.execute("DELETE FROM problems")
        else:
            conn.executemany("DELETE FROM problems WHERE path = ?", [(p,) for p in only])
        conn.executemany(
            "INSERT OR REPLACE INTO problems(path, kind, message) VALUES (?, ?, ?)",
            [(p.path, p.kind, p.message) for p in problems],
        )

    def problems(self) -> list[Problem]:
        return [
            Problem(*r) for r in self.read("SELECT path, kind, message FROM problems ORDER BY path")
        ]

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            for r in self.read(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN ({marks})",
                part,
            ):
                out[r[0]] = ChunkRow(*r)
        return out

    def dated(
        self, days: Sequence[str], limit: int, *, sources: Sequence[str] | None = None
    ) -> tuple[int, list[KeywordRow]]:
        """See :meth:`memdir.index.backend.IndexBackend.dated`; a day without a year is looked
        up in each year from the oldest chunk's to the newest's (through ``idx_chunks_date``)."""
        (first, last) = self.read("SELECT min(date), max(date) FROM chunks")[0]
        wanted = dated_keys(days, first, last)
        if not wanted:
            return 0, []
        marks = ",".join("?" * len(wanted))
        where = f"date IN ({marks})"
        params: list[object] = list(wanted)
        if sources:
            where += f" AND source IN ({','.join('?' * len(sources))})"
            params += list(sources)
        (count,) = self.read(f"SELECT count(*) FROM chunks WHERE {where}", params)[0]
        rows = self.read(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE {where} ORDER BY date DESC, id LIMIT ?",
            [*params, limit],
        )
        return int(count), [KeywordRow(ChunkRow(*r), 0.0) for r in rows]

    def newest(
        self, match: str, limit: int, *, sources: Sequence[str] | None = None
    ) -> list[KeywordRow]:
        """See :meth:`memdir.index.backend.IndexBackend.newest`: every match is read (a name
        a memory writes a few thousand times at most) and sorted by its date."""
        where = "chunks_fts MATCH ? AND c.date IS NOT NULL"
        params: list[object] = [match]
        if sources:
            where += f" AND c.source IN ({','.join('?' * len(sources))})"
            params += list(sources)
        sql = (
            "SELECT c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.context, c.date, 0.0"
            f" FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE {where}"
            " ORDER BY c.date DESC, c.id LIMIT ?"
        )
        try:
            rows = self.read(sql, [*params, limit])
        except sqlite3.OperationalError as exc:
            raise StorageError(f"keyword search failed for {match!r}: {exc}") from exc
        return [KeywordRow(ChunkRow(*r[:8]), float(r[8])) for r in rows]

    # -- keyword search ------------------------------------------------------------------
    def keyword(
        self, match: str, limit: int, *, sources: Sequence[str] | None = None, ranked: bool = True
    ) -> list[KeywordRow]:
        """FTS5 BM25 search; ``rank`` is FTS5's bm25 (negative, lower is better). With
        ``ranked=False``, any ``limit`` chunks that match, unscored (``rank`` 0): FTS5 stops at
        the limit instead of scoring every match to sort them."""
        if not ranked and not sources:
            sql = (
                "SELECT c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.context, c.date, 0.0"
                " FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?) AS f"
                " JOIN chunks c ON c.id = f.rowid"
            )
            try:
                rows = self.read(sql, [match, limit])
            except sqlite3.OperationalError as exc:
                raise StorageError(f"keyword search failed for {match!r}: {exc}") from exc
            return [KeywordRow(ChunkRow(*r[:8]), float(r[8])) for r in rows]
        if sources:
            marks = ",".join("?" * len(sources))
            sql = (
                "SELECT c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.context, c.date,"
                " bm25(chunks_fts) AS r"
                " FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
                f" WHERE chunks_fts MATCH ? AND c.source IN ({marks}) ORDER BY r LIMIT ?"
            )
            params: list[object] = [match, *sources, limit]
        else:
            sql = (
                "SELECT c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.context, c.date, f.r"
                " FROM (SELECT rowid, bm25(chunks_fts) AS r FROM chunks_fts WHERE chunks_fts MATCH ?"
                " ORDER BY r LIMIT ?) AS f JOIN chunks c ON c.id = f.rowid ORDER BY f.r"
            )
            params = [match, limit]
        try:
            rows = self.read(sql, params)
        except sqlite3.OperationalError as exc:
            raise StorageError(f"keyword search failed for {match!r}: {exc}") from exc
        return [KeywordRow(ChunkRow(*r[:8]), float(r[8])) for r in rows]

    # -- vectors -------------------------------------------------------------------------
    def vector_state(self) -> VectorState:
        """Which embedder the stored vectors belong to, and how far they have been written."""
        meta = dict(self.read("SELECT key, value FROM meta WHERE key LIKE 'vectors.%'"))
        # max(seq) of an INTEGER PRIMARY KEY is one b-tree step: this runs before every
        # vector search, so it must not count rows (see vector_count for that).
        (vec_seq, log_seq) = self.read(
            "SELECT (SELECT coalesce(max(seq), 0) FROM vectors),"
            " (SELECT coalesce(max(seq), 0) FROM vector_log)"
        )[0]
        return VectorState(
            provider_key=meta.get("vectors.provider_key"),
            model=meta.get("vectors.model"),
            dims=int(meta["vectors.dims"]) if meta.get("vectors.dims") else None,
            generation=meta.get("vectors.generation", ""),
            vector_seq=int(vec_seq),
            log_seq=int(log_seq),
        )

    def vector_count(self) -> int:
        return int(self.read("SELECT count(*) FROM vectors")[0][0])

    def reset_vectors(self, *, provider_key: str, model: str, dims: int | None) -> None:
        """Drop every vector and record the embedder that the next ones will come from."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM vectors")
            conn.execute("DELETE FROM vector_log")
            conn.execute(LINE_VECTORS_DDL)
            conn.execute("DELETE FROM line_vectors")
            self.set_meta("vectors.provider_key", provider_key, conn)
            self.set_meta("vectors.model", model, conn)
            self.set_meta("vectors.dims", str(dims or ""), conn)
            self.set_meta("vectors.generation", uuid.uuid4().hex, conn)

    def chunks_missing_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        """``(chunk id, hash, text to embed)`` of chunks with no vector yet, newest first (the
        chunks a sync just wrote are found without reading the rest of the index); the text to
        embed is the chunk's context, a newline and its text
        (:func:`~memdir.chunking.embed_input`), which is what the hash covers."""
        return self._chunks_to_embed(
            "LEFT JOIN vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL", limit
        )

    def chunks_missing_line_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        """As :meth:`chunks_missing_vectors`, of chunks with a vector but no line vectors (an
        index written before them, or before ``embedding.line_vectors`` was on; every chunk
        with a vector while the table is not made yet: the fill's write makes it)."""
        lacking = (
            " LEFT JOIN line_vectors l ON l.chunk_id = c.id WHERE l.chunk_id IS NULL"
            if self._has_line_vectors()
            else ""
        )
        return self._chunks_to_embed("JOIN vectors v ON v.chunk_id = c.id" + lacking, limit)

    def _chunks_to_embed(self, joins: str, limit: int) -> list[tuple[int, str, str]]:
        """``(chunk id, hash, text to embed)`` of the chunks ``joins`` selects, newest first."""
        return [
            (int(r[0]), r[1], embed_input(r[3], r[2]))
            for r in self.read(
                f"SELECT c.id, c.hash, c.text, c.context FROM chunks c {joins}"
                " ORDER BY c.id DESC LIMIT ?",
                (limit,),
            )
        ]

    def count_missing_vectors(self) -> int:
        return int(
            self.read("SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM vectors)")[0][0]
        )

    def count_missing_line_vectors(self) -> int:
        if not self._has_line_vectors():
            return self.vector_count()
        return int(
            self.read(
                "SELECT count(*) FROM vectors v"
                " WHERE NOT EXISTS (SELECT 1 FROM line_vectors l WHERE l.chunk_id = v.chunk_id)"
            )[0][0]
        )

    def write_vectors(self, conn: sqlite3.Connection, rows: Iterable[tuple[int, bytes]]) -> int:
        """Insert vectors for chunks that still exist (a chunk deleted meanwhile is skipped)."""
        cur = conn.executemany(
            "INSERT OR REPLACE INTO vectors(chunk_id, embedding)"
            " SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
            [(cid, blob, cid) for cid, blob in rows],
        )
        return int(cur.rowcount)

    def write_line_vectors(
        self, conn: sqlite3.Connection, rows: Iterable[tuple[int, bytes]]
    ) -> None:
        """Store each chunk's line vectors (one blob of float32 vectors, one after another) for
        chunks that still exist."""
        conn.execute(LINE_VECTORS_DDL)  # an index opened busy or read-only has none yet
        conn.executemany(
            "INSERT OR REPLACE INTO line_vectors(chunk_id, embedding)"
            " SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
            [(cid, blob, cid) for cid, blob in rows],
        )

    def line_vectors(self, ids: Sequence[int]) -> dict[int, bytes]:
        """The line vectors of those of ``ids`` that have them (see :meth:`write_line_vectors`)."""
        out: dict[int, bytes] = {}
        if not self._has_line_vectors():
            return out
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            for cid, blob in self.read(
                f"SELECT chunk_id, embedding FROM line_vectors WHERE chunk_id IN ({marks})", part
            ):
                out[int(cid)] = blob
        return out

    def _has_line_vectors(self) -> bool:
        """Whether the table of line vectors exists yet (see :meth:`_open_checked`)."""
        return bool(
            self.read("SELECT count(*) FROM sqlite_master WHERE name = 'line_vectors'")[0][0]
        )

    def vectors_since(self, seq: int, limit: int = -1) -> list[tuple[int, int, bytes]]:
        """``(seq, chunk id, blob)`` written after ``seq``, oldest first, at most ``limit``."""
        return self.read(
            "SELECT seq, chunk_id, embedding FROM vectors WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )

    def vector_deletions_since(self, seq: int) -> list[tuple[int, int]]:
        return self.read("SELECT seq, chunk_id FROM vector_log WHERE seq > ? ORDER BY seq", (seq,))

    def compact_vector_log(self, keep_below: int = 100_000) -> None:
        """The deletion log only has to outlive readers; past a size, start a new generation."""
        if self.read("SELECT count(*) FROM vector_log")[0][0] <= keep_below:
            return
        with self.transaction() as conn:
            conn.execute("DELETE FROM vector_log")
            self.set_meta("vectors.generation", uuid.uuid4().hex, conn)

    # -- embedding cache -------------------------------------------------------------------
    def cache_get(self, provider_key: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Cached embeddings by content hash."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 400):
            part = unique[start : start + 400]
            marks = ",".join("?" * len(part))
            sql = f"SELECT hash, embedding FROM embedding_cache WHERE provider_key = ? AND hash IN ({marks})"
            for h, blob in self.read(sql, [provider_key, *part]):
                found[h] = blob
        return found

    def cache_touch(
        self, conn: sqlite3.Connection, provider_key: str, hashes: Iterable[str]
    ) -> None:
        """Mark cache entries as used now, for least-recently-used eviction."""
        now = time.time_ns()
        conn.executemany(
            "UPDATE embedding_cache SET used_at = ? WHERE provider_key = ? AND hash = ?",
            [(now, provider_key, h) for h in hashes],
        )

    def cache_put(
        self, conn: sqlite3.Connection, provider_key: str, rows: Iterable[tuple[str, int, bytes]]
    ) -> None:
        now = time.time_ns()
        conn.executemany(
            "INSERT OR REPLACE INTO embedding_cache(provider_key, hash, dims, embedding, used_at) VALUES (?, ?, ?, ?, ?)",
            [(provider_key, h, dims, blob, now) for h, dims, blob in rows],
        )

    def cache_size(self) -> int:
        return int(self.read("SELECT count(*) FROM embedding_cache")[0][0])

    def cache_evict(self, max_entries: int) -> int:
        """Delete the least recently used entries beyond ``max_entries``; returns how many."""
        excess = self.cache_size() - max_entries
        if excess <= 0:
            return 0
        with self.transaction() as conn:
            conn.execute(
                "DELETE FROM embedding_cache WHERE (provider_key, hash) IN"
                " (SELECT provider_key, hash FROM embedding_cache ORDER BY used_at LIMIT ?)",
                (excess,),
            )
        return excess

    # -- status --------------------------------------------------------------------------
    def counts(self) -> dict[str, dict[str, int]]:
        rows = self.read(
            "SELECT source, 'files', count(*) FROM files GROUP BY source"
            " UNION ALL SELECT source, 'chunks', count(*) FROM chunks GROUP BY source"
        )
        out: dict[str, dict[str, int]] = {}
        for source, what, n in rows:
            out.setdefault(source, {"files": 0, "chunks": 0})[what] = n
        return out

    # -- full rebuild --------------------------------------------------------------------
    def new_build(self) -> _Build:
        """A fresh temporary database beside the index, seeded with the embedding cache."""
        tmp = self.path.with_name(f"{self.path.name}.tmp-{uuid.uuid4().hex[:12]}")
        conn = connect(tmp, durable=False)
        create_schema(conn)
        conn.execute("ATTACH DATABASE ? AS live", (str(self.path),))
        conn.execute("INSERT INTO main.embedding_cache SELECT * FROM live.embedding_cache")
        conn.execute("INSERT INTO main.meta SELECT * FROM live.meta WHERE key LIKE 'vectors.%'")
        # Continue the chunk id sequence: an id is never reused, even across rebuilds, so an id
        # held by a reader from before the rebuild can never name a different chunk.
        conn.execute(
            "INSERT INTO main.sqlite_sequence(name, seq) SELECT name, seq FROM live.sqlite_sequence WHERE name = 'chunks'"
        )
        conn.execute("DETACH DATABASE live")
        self.set_meta("vectors.generation", uuid.uuid4().hex, conn)
        return _Build(tmp, conn)

    @contextmanager
    def build_transaction(self, build: _Build) -> Iterator[sqlite3.Connection]:
        """One transaction of the build database (committed on success)."""
        build.conn.execute("BEGIN")
        yield build.conn
        build.conn.execute("COMMIT")

    def install_build(self, build: _Build) -> None:
        """Copy a finished build into the live index in one transaction, then delete it.

        The build's FTS5 segments are merged first (one b-tree per level: keyword queries on a
        fresh 100k-chunk index get about 30% cheaper). The SQLite backup API writes every page
        under one write transaction of the live database: readers in other processes keep their
        snapshot until it commits, and a crash before the commit leaves the previous index
        exactly as it was. (Renaming a file over a WAL database that other processes have open
        is not safe, so it is not done.)
        """
        tmp, conn = build.path, build.conn
        try:
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
            with self._mutex:
                conn.backup(self.conn)
                # The copy went through the WAL; fold it back now rather than leave a WAL
                # as large as the database until the last connection closes.
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as exc:
            raise StorageError(f"cannot install rebuilt index into {self.path}: {exc}") from exc
        finally:
            conn.close()
            _unlink_quietly(tmp)

    @staticmethod
    def discard_build(build: _Build) -> None:
        build.conn.close()
        _unlink_quietly(build.path)


def _unlink_quietly(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


KEEP_CORRUPT_COPIES = 3
"""Damaged indexes moved aside (``<index>.corrupt-<time>``) that are kept; older ones go."""


def _move_aside(path: Path, lock: WriterLock) -> str:
    now = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now)) + f".{int(now % 1 * 1e6):06d}"
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    with lock:
        n = 1
        while target.exists():  # damaged twice within a microsecond: keep both
            n += 1
            target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(path) + suffix)
            if src.exists():
                os.replace(src, str(target) + suffix)
        _prune_corrupt(path)
    return str(target)


def _prune_corrupt(path: Path) -> None:
    """Delete all but the newest :data:`KEEP_CORRUPT_COPIES` copies (and their WAL files)."""

    def age(copy: Path) -> tuple[str, int]:
        stamp, _, n = copy.name.rpartition(".corrupt-")[2].partition("-")
        return stamp, int(n) if n.isdigit() else 1

    prefix = f"{path.name}.corrupt-"
    copies = [p for p in path.parent.glob(prefix + "*") if not p.name.endswith(("-wal", "-shm"))]
    for old in sorted(copies, key=age, reverse=True)[KEEP_CORRUPT_COPIES:]:
        for suffix in ("", "-wal", "-shm"):
            with suppress(OSError):
                os.unlink(str(old) + suffix)


def _write_gitignore(folder: Path) -> None:
    """Keep the derived index out of git when the workspace is a repository."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        with suppress(OSError):
            ignore.write_text(
                "# memdir's derived index: rebuilt from the Markdown files at any time\n*\n!config.toml\n!.gitignore\n"
            )
