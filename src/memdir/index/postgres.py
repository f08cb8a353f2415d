"""The PostgreSQL + pgvector index: one shared database for many workspaces, agents and machines.

:class:`PgIndex` implements :class:`memdir.index.backend.IndexBackend`. The Markdown files stay
the source of truth; this is the same derived index as the SQLite one, rebuilt from the files
the same way, in tables that many ``memdir`` processes share.

**Schema.** Every row carries a ``namespace`` (the workspace id, ``index.namespace``, by default
derived from the workspace folder), so many workspaces share one database. Tables are created
and migrated under ``pg_advisory_lock`` and versioned in ``memdir_meta`` (namespace ``''``, key
``schema``). Files are upserted by ``(namespace, path)``; each file row also records its
``origin`` (host and workspace folder) so that several workspaces syncing into one namespace
each remove only the files *they* indexed and no longer have. Chunk ids come from one
``bigserial`` and are never reused.

**Keyword search** indexes exactly the tokens of the SQLite index: the chunk's
:func:`memdir.text.fts_document` text, cut by FTS5's own tokenizer (:mod:`memdir.index.fts`),
is written as a ``tsvector`` literal with token positions (no server-side parser or locale
touches it, which is what the ``'simple'`` configuration is for, only stricter), with a GIN
index. A query's terms (the same ``"…" OR "…"`` expression as on SQLite) become a ``tsquery``
(a term of several tokens, a phrase with ``<->``). Candidates come from the GIN index and each
is scored in SQL with FTS5's own bm25 (k1 1.2, b 0.75, the same IDF floor, in doubles and in
FTS5's order of operations): term frequencies from the tsvector positions (a phrase counts
where its tokens stand in a row), in one pass per candidate over its tsvector cut down to the
query's lexemes; document length from a stored token count; N and the average length from a
per-namespace ``memdir_stats`` row; and each word's document frequency from
``memdir_lexemes`` (a phrase's is counted through the GIN index), kept by every commit and
cached until any process changes the namespace. So the ``rank`` handed up is FTS5's bm25 to
float precision, and the keyword scores above are the same. The terms are scored rarest
first, one a stage, and a stage whose chunks could no longer reach the result is skipped
(:meth:`PgIndex.keyword`): the exact top, without reading the thousands of chunks a common
word of the query is in. The tsvector is kept in its row (``STORAGE MAIN``, compressed): a
TOAST fetch per candidate cost more than the scoring. (A tsvector keeps at most 256 positions
of one lexeme in a row: a word repeated more often within one chunk counts 256 times.)

**Vectors** live in ``vector`` columns with one HNSW index (cosine) per dimension count, made on
first use; :meth:`PgIndex.nearest` answers from it server-side (``hnsw.ef_search``
:data:`EF_SEARCH`; with pgvector 0.8+ iterative scans keep a namespace filter from starving
the result). The embedding cache, keyed by provider and content hash, is shared by every
namespace: an embedding of the same text is the same whoever wrote it.

**Many writers.** Each file is replaced in its own transaction that first upserts (and so
row-locks) its file row, so two processes replacing one file serialise instead of doubling its
chunks; counters are applied in one statement just before commit, and every commit sends
``NOTIFY memdir_changes`` with the namespace. The lexemes' document frequencies change in
one statement just before the commit too, in one order for every writer, so two writers of a
namespace wait for each other on a shared word for a moment and never deadlock. Each process
listens and drops its document-frequency cache on another writer's notice (its own commits drop
it at once, and the notices they sent are counted off when heard back: a sync of 22
transactions heard 22, and each dropped statistics a search had just cached), so a change made
anywhere is searched with exact statistics at once (and the rows themselves are read live). The writer lock is a
``pg_advisory_lock`` per (namespace, origin); the fill lock one per namespace.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import socket
import struct
import threading
import time
import uuid
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg_pool import ConnectionPool

from memdir.chunking import Chunk, embed_input
from memdir.errors import StorageError
from memdir.index.backend import SharedFile
from memdir.index.fts import Fts5Tokens
from memdir.index.schema import SCHEMA_VERSION as SHAPE_SCHEMA
from memdir.index.store import (
    SCRIPT_SAMPLE,
    ChunkRow,
    FileRow,
    KeywordRow,
    VectorState,
    dated_keys,
    spread_ids,
)
from memdir.text import fts_document
from memdir.text.scripts import script_lines
from memdir.workspace import Problem

if TYPE_CHECKING:
    from memdir.config import Config

__all__ = [
    "EF_SEARCH",
    "MIN_PGVECTOR",
    "PG_SCHEMA_VERSION",
    "PgIndex",
    "namespace_for",
    "origin_for",
    "redact_url",
]

log = logging.getLogger(__name__)

PG_SCHEMA_VERSION = 4
"""The version of the tables below, in ``memdir_meta`` (namespace ``''``, key ``schema``).
2 added ``memdir_lexemes`` (each lexeme's document frequency) and keeps each chunk's
``tsv`` in its row; migrating from 1 fills the one and rewrites the other. 3 added
``memdir_chunks_date``, through which the days a question names are looked up. 4 added
``memdir_line_vectors``, each chunk's line vectors (``embedding.line_vectors``;
:func:`memdir.chunking.line_inputs`)."""

MIN_PGVECTOR = (0, 5, 0)
"""HNSW indexes arrived in pgvector 0.5.0."""

EF_SEARCH = 100
"""``hnsw.ef_search`` for vector queries (raised to the number of results asked, if more)."""

CHANNEL = "memdir_changes"

MAX_STAGES = 6
"""Keyword search scores the candidates of its rarest terms first, one term a stage, and the
others' only if they could still make the result (see :meth:`PgIndex.keyword`); the terms
after the first five share the last stage."""

_K1, _B = 1.2, 0.75  # FTS5's bm25() parameters
_MAX_POSITIONS = 256  # a tsvector keeps at most this many positions of one lexeme
_MAX_POSITION = 16383
_SHAPE_KEY = "shape"
_FILL_KEY = "fill.progress"
_CHUNK_COLUMNS = "id, path, source, start_line, end_line, text, context, date"
_PREFETCH_ROWS = 4096  # chunk rows read by nearest() and not yet asked for, at most

_DDL = """
CREATE TABLE IF NOT EXISTS memdir_meta (
    namespace text NOT NULL,
    key       text NOT NULL,
    value     text NOT NULL,
    PRIMARY KEY (namespace, key)
);
CREATE TABLE IF NOT EXISTS memdir_files (
    namespace  text NOT NULL,
    path       text NOT NULL,
    origin     text NOT NULL,
    source     text NOT NULL,
    hash       text NOT NULL,
    size       bigint NOT NULL,
    mtime_ns   bigint NOT NULL,
    chunks     integer NOT NULL,
    indexed_ns bigint NOT NULL,
    PRIMARY KEY (namespace, path)
);
CREATE INDEX IF NOT EXISTS memdir_files_origin ON memdir_files (namespace, origin);
CREATE TABLE IF NOT EXISTS memdir_chunks (
    id         bigserial PRIMARY KEY,
    namespace  text NOT NULL,
    path       text NOT NULL,
    source     text NOT NULL,
    start_line integer NOT NULL,
    end_line   integer NOT NULL,
    hash       text NOT NULL,
    text       text NOT NULL,
    context    text NOT NULL DEFAULT '',
    date       text,
    ntok       integer NOT NULL,
    tsv        tsvector NOT NULL
);
-- the tsvector stays in the row (compressed), not in TOAST: keyword search reads it for every
-- candidate, and a TOAST fetch per candidate was three quarters of the search's time
ALTER TABLE memdir_chunks ALTER COLUMN tsv SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS memdir_chunks_path ON memdir_chunks (namespace, path);
CREATE INDEX IF NOT EXISTS memdir_chunks_date ON memdir_chunks (namespace, date);
CREATE INDEX IF NOT EXISTS memdir_chunks_tsv ON memdir_chunks USING gin (tsv);
CREATE TABLE IF NOT EXISTS memdir_vectors (
    chunk_id  bigint PRIMARY KEY REFERENCES memdir_chunks (id) ON DELETE CASCADE,
    namespace text NOT NULL,
    dims      integer NOT NULL,
    embedding vector NOT NULL
);
CREATE INDEX IF NOT EXISTS memdir_vectors_ns ON memdir_vectors (namespace);
CREATE TABLE IF NOT EXISTS memdir_line_vectors (
    chunk_id  bigint PRIMARY KEY REFERENCES memdir_chunks (id) ON DELETE CASCADE,
    namespace text NOT NULL,
    embedding bytea NOT NULL
);
CREATE INDEX IF NOT EXISTS memdir_line_vectors_ns ON memdir_line_vectors (namespace);
CREATE TABLE IF NOT EXISTS memdir_stats (
    namespace text PRIMARY KEY,
    chunks    bigint NOT NULL DEFAULT 0,
    tokens    bigint NOT NULL DEFAULT 0,
    vectors   bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS memdir_lexemes (
    namespace text NOT NULL,
    lexeme    text NOT NULL,
    df        bigint NOT NULL,
    PRIMARY KEY (namespace, lexeme)
);
CREATE TABLE IF NOT EXISTS memdir_embedding_cache (
    provider_key text NOT NULL,
    hash         text NOT NULL,
    dims         integer NOT NULL,
    embedding    bytea NOT NULL,
    used_at      bigint NOT NULL,
    PRIMARY KEY (provider_key, hash)
);
CREATE INDEX IF NOT EXISTS memdir_embedding_cache_used ON memdir_embedding_cache (used_at);
CREATE TABLE IF NOT EXISTS memdir_problems (
    namespace text NOT NULL,
    origin    text NOT NULL,
    path      text NOT NULL,
    kind      text NOT NULL,
    message   text NOT NULL,
    PRIMARY KEY (namespace, origin, path)
);
CREATE OR REPLACE FUNCTION memdir_pos(doc tsvector, lex text) RETURNS smallint[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT positions FROM unnest(doc) WHERE lexeme = lex $$;
"""

_MIGRATE_LOCK = 0x6D656D646972  # "memdir": schema creation and migration, database-wide


# -- names ---------------------------------------------------------------------------------------
def redact_url(url: str) -> str:
    """``url`` without its password (for messages and ``memdir status``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = parts.username or ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, ""))


def namespace_for(config: Config) -> str:
    """``index.namespace``, or the workspace folder's name and a hash of its absolute path."""
    configured = str(config["index.namespace"])
    if configured:
        return configured
    root = config.workspace.resolve()
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", root.name)[:48].strip("-") or "workspace"
    return f"{name}-{digest}"


def origin_for(config: Config) -> str:
    """Which copy of a workspace writes a file row: this host and the workspace folder."""
    return f"{socket.gethostname()}:{config.workspace.resolve()}"


def _lock_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for ``parts``."""
    raw = hashlib.sha256("\0".join(("memdir", *parts)).encode()).digest()[:8]
    return int.from_bytes(raw, "big", signed=True)


# -- vectors on the wire -------------------------------------------------------------------------
class _Vec:
    """A vector in pgvector's binary format (dims, 0, big-endian float32s)."""

    __slots__ = ("data", "dims")

    def __init__(self, values: np.ndarray) -> None:
        arr = np.asarray(values, dtype=">f4")
        self.dims = int(arr.shape[0])
        self.data = struct.pack(">HH", self.dims, 0) + arr.tobytes()


def _vec_dumper(oid: int) -> type[Dumper]:
    class VecDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: _Vec) -> bytes:
            return obj.data

    VecDumper.oid = oid
    return VecDumper


def _tsvector(tokens: Sequence[str]) -> str:
    """The tsvector literal of ``tokens`` with their positions (1-based, as FTS5 counts)."""
    positions: dict[str, list[int]] = {}
    for i, token in enumerate(tokens, start=1):
        at = positions.setdefault(token, [])
        if len(at) < _MAX_POSITIONS:
            at.append(min(i, _MAX_POSITION))
    parts = []
    for token, at in positions.items():
        quoted = token.replace("\\", "\\\\").replace("'", "''")
        parts.append(f"'{quoted}':{','.join(map(str, dict.fromkeys(at)))}")
    return " ".join(parts)


def _match_terms(match: str) -> list[str]:
    """The terms of an FTS5 MATCH expression (``"a" OR "b c"``: each quoted, ``""`` for a
    quote inside), as the SQLite index reads them."""
    terms = [t.replace('""', '"') for t in re.findall(r'"((?:[^"]|"")*)"', match)]
    if not terms:
        raise StorageError(f"keyword search failed for {match!r}: no quoted term")
    return terms


def _lexeme(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _fts5_idf(total: int, df: int) -> float:
    idf = math.log((total - df + 0.5) / (df + 0.5)) if total else 0.0
    return max(idf, 1e-6)


# -- locks ---------------------------------------------------------------------------------------
class _AdvisoryLock:
    """A session advisory lock held on a pooled connection; re-entrant within the process
    (shared by its threads), like :class:`~memdir.index.lock.WriterLock`."""

    def __init__(self, pool: ConnectionPool, key: int, label: str) -> None:
        self.pool = pool
        self.key = key
        self.path = label
        self._conn: psycopg.Connection[Any] | None = None
        self._depth = 0
        self._guard = threading.Lock()

    def acquire(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.005
        while True:
            with self._guard:
                if self._depth:
                    self._depth += 1
                    return True
                if self._conn is None:
                    self._conn = self.pool.getconn()
                got = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()
                if got and got[0]:
                    self._depth = 1
                    return True
                self.pool.putconn(self._conn)
                self._conn = None
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    def release(self) -> None:
        with self._guard:
            if not self._depth:
                return
            self._depth -= 1
            if self._depth == 0 and self._conn is not None:
                conn, self._conn = self._conn, None
                with suppress(psycopg.Error):  # the connection died, and the lock with it
                    conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
                self.pool.putconn(conn)

    @property
    def held(self) -> bool:
        return self._depth > 0

    def __enter__(self) -> _AdvisoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# -- transactions --------------------------------------------------------------------------------
@dataclass
class _Txn:
    """An open write transaction and the counter changes it will apply before committing."""

    conn: psycopg.Connection[Any]
    chunks: int = 0
    tokens: int = 0
    vectors: int = 0
    lexemes: Counter[str] = field(default_factory=Counter)
    """Each lexeme's change of document frequency, applied just before the commit."""
    changed: bool = False
    reset_vectors: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def execute(self, sql: str, params: Any = None) -> psycopg.Cursor[Any]:
        self.changed = True
        return self.conn.execute(sql, params)


@dataclass
class _PgBuild:
    txn: _Txn
    conn_cm: Any
    tx_cm: Any


class PgIndex:
    """The index of one namespace in a PostgreSQL database. Open with :meth:`open`."""

    kind = "postgres"
    server_vectors = True
    errors: tuple[type[BaseException], ...] = (psycopg.Error,)

    def __init__(
        self,
        url: str,
        pool: ConnectionPool,
        *,
        namespace: str,
        origin: str,
        path: Path,
        info: dict[str, Any],
    ) -> None:
        self.url = url
        self.pool = pool
        self.namespace = namespace
        self.origin = origin
        self.path = path
        self.info = info
        self.recovered_from: str | None = None
        where = f"{redact_url(url)} namespace {namespace}"
        self.lock = _AdvisoryLock(
            pool, _lock_key("writer", namespace, origin), f"writer lock of {where}"
        )
        self.fill_lock = _AdvisoryLock(pool, _lock_key("fill", namespace), f"fill lock of {where}")
        self._tok = Fts5Tokens()
        self._local = threading.local()
        self._version = 0  # bumped by every own commit and every other writer's notice
        self._version_lock = threading.Lock()
        # the change notices this index sent and has not heard back yet, by the connection's
        # backend: its own commit already bumped the version for each
        self._own_notices: Counter[int] = Counter()
        self._dfs: dict[str, int] = {}
        self._stats: tuple[int, int] | None = None
        self._scripts: dict[str, int] | None = None
        self._stats_for = -1
        self._hnsw: set[int] = set()
        self._prefetched: OrderedDict[int, ChunkRow] = OrderedDict()  # read by nearest()
        self._prefetch_lock = threading.Lock()
        self._closed = threading.Event()
        self._listener = threading.Thread(target=self._listen, name="memdir-pg-listen", daemon=True)
        self._listening = threading.Event()
        self._listener.start()
        self._listening.wait(5)

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def open(cls, url: str, *, namespace: str, origin: str, path: Path) -> PgIndex:
        """Connect, check PostgreSQL and pgvector, create or migrate the tables."""
        shown = redact_url(url)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                info = _check_server(conn, shown)
                _migrate(conn, shown)
        except psycopg.OperationalError as exc:
            raise StorageError(
                f"cannot reach PostgreSQL at {shown}: {str(exc).strip()}",
                hint="check index.url (or MEMDIR_INDEX_URL) and that the server is running",
            ) from exc
        except psycopg.Error as exc:
            raise StorageError(f"PostgreSQL at {shown}: {str(exc).strip()}") from exc
        oid = info.pop("vector_oid")

        def configure(conn: psycopg.Connection[Any]) -> None:
            conn.adapters.register_dumper(_Vec, _vec_dumper(oid))
            conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
            if info["pgvector_tuple"] >= (0, 8, 0):
                conn.execute("SET hnsw.iterative_scan = relaxed_order")

        pool = ConnectionPool(
            url,
            min_size=1,
            max_size=16,
            kwargs={"autocommit": True, "connect_timeout": 10},
            configure=configure,
            open=False,
            name="memdir",
        )
        try:
            pool.open(wait=True, timeout=15)
        except Exception as exc:
            pool.close()
            raise StorageError(f"cannot reach PostgreSQL at {shown}: {exc}") from exc
        with suppress(OSError):  # only the breaker's state file lives there
            path.parent.mkdir(parents=True, exist_ok=True)
        return cls(url, pool, namespace=namespace, origin=origin, path=path, info=info)

    @property
    def location(self) -> str:
        return f"{redact_url(self.url)} (namespace {self.namespace})"

    def is_corruption(self, exc: BaseException) -> bool:
        return False  # a server repairs its own storage; nothing to move aside

    def reopened_after_corruption(self) -> PgIndex:
        raise StorageError(f"index {self.location} cannot be rebuilt by moving it aside")

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self.lock.release()
        self.fill_lock.release()
        self._listener.join(2)
        self.pool.close()
        self._tok.close()

    # -- change notices ------------------------------------------------------------------------
    def _bump(self) -> None:
        with self._version_lock:
            self._version += 1

    def _heard_own(self, pid: int) -> bool:
        """Whether a notice from backend ``pid`` is one this index sent (and counted when it
        committed), counting it off: heard once, it is no other writer's change (under load one
        came after the next search had cached new statistics, and dropped them)."""
        with self._version_lock:
            if not self._own_notices[pid]:
                return False
            self._own_notices -= Counter((pid,))  # drops the backend at none
            return True

    def _unsent(self, txn: _Txn) -> None:
        """A transaction whose notice was written but not committed: none will be heard."""
        if (pid := txn.extra.pop("notice", None)) is not None:
            self._heard_own(pid)

    def _listen(self) -> None:
        """LISTEN for changes by any process; every notice for this namespace bumps the
        version, which drops the statistics cache. A lost connection bumps it too."""
        while not self._closed.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._bump()
                    self._listening.set()
                    while not self._closed.is_set():
                        for note in conn.notifies(timeout=0.5):
                            if note.payload == self.namespace and not self._heard_own(note.pid):
                                self._bump()
            except psycopg.Error as exc:
                self._bump()
                self._listening.set()
                log.debug("change listener reconnecting: %s", exc)
                self._closed.wait(1.0)

    # -- connections ---------------------------------------------------------------------------
    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        pinned = getattr(self._local, "conn", None)
        if pinned is not None:
            yield pinned
            return
        with self.pool.connection() as conn:
            yield conn

    def read(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        with self._conn() as conn:
            return conn.execute(sql, params).fetchall()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads on one connection. Chunk rows never change in place (a new version of
        a file gets new ids), so an id read here always names the text read with it."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self.pool.connection() as conn:
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    @contextmanager
    def transaction(self) -> Iterator[_Txn]:
        """One write transaction, committed on success with its counters and a change notice."""
        with self._conn() as conn:
            txn = _Txn(conn)
            try:
                with conn.transaction():
                    yield txn
                    self._finish(txn)
            except BaseException:
                self._unsent(txn)
                raise
        if txn.changed:
            self._bump()
        self._after_commit(txn)

    def _after_commit(self, txn: _Txn) -> None:
        for dims in sorted(txn.extra.get("hnsw", ())):
            self._ensure_hnsw(dims)

    def _finish(self, txn: _Txn) -> None:
        if not txn.changed:
            return
        deltas = sorted((x, d) for x, d in txn.lexemes.items() if d)
        if deltas:
            # One statement just before the commit, in one order for every writer (lexeme in
            # "C" order): two writers of one namespace wait for each other's commit on a
            # common lexeme's row for a moment, never hold it for a whole rebuild, never
            # deadlock. Rows down to no document are dropped.
            txn.conn.execute(
                "INSERT INTO memdir_lexemes AS l (namespace, lexeme, df)"
                " SELECT %(ns)s, x, d FROM unnest(%(x)s::text[], %(d)s::bigint[]) AS u(x, d)"
                ' ORDER BY x COLLATE "C" ON CONFLICT (namespace, lexeme) DO UPDATE'
                " SET df = l.df + excluded.df",
                {"ns": self.namespace, "x": [x for x, _ in deltas], "d": [d for _, d in deltas]},
            )
            fewer = [x for x, d in deltas if d < 0]
            if fewer:
                txn.conn.execute(
                    "DELETE FROM memdir_lexemes WHERE namespace = %s AND lexeme = ANY(%s)"
                    " AND df <= 0",
                    (self.namespace, fewer),
                )
            txn.lexemes.clear()
        if txn.chunks or txn.tokens or txn.vectors or txn.reset_vectors:
            txn.conn.execute(
                "INSERT INTO memdir_stats AS s (namespace, chunks, tokens, vectors)"
                " VALUES (%(ns)s, %(c)s, %(t)s, %(v)s) ON CONFLICT (namespace) DO UPDATE SET"
                " chunks = s.chunks + excluded.chunks, tokens = s.tokens + excluded.tokens,"
                " vectors = CASE WHEN %(reset)s THEN 0 ELSE s.vectors END + excluded.vectors",
                {
                    "ns": self.namespace,
                    "c": txn.chunks,
                    "t": txn.tokens,
                    "v": txn.vectors,
                    "reset": txn.reset_vectors,
                },
            )
        txn.conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.namespace))
        pid = txn.conn.info.backend_pid
        with self._version_lock:
            self._own_notices[pid] += 1
        txn.extra["notice"] = pid

    # -- meta ----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self.read(
            "SELECT value FROM memdir_meta WHERE namespace = %s AND key = %s", (self.namespace, key)
        )
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str, conn: _Txn | None = None) -> None:
        sql = (
            "INSERT INTO memdir_meta(namespace, key, value) VALUES (%s, %s, %s)"
            " ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value"
        )
        if conn is None:
            with self.transaction() as txn:
                txn.execute(sql, (self.namespace, key, value))
        else:
            conn.execute(sql, (self.namespace, key, value))

    def fill_record(self) -> dict[str, Any] | None:
        raw = self.get_meta(_FILL_KEY)
        try:
            record = json.loads(raw) if raw else None
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def set_fill_record(self, conn: _Txn, record: Mapping[str, object]) -> None:
        self.set_meta(_FILL_KEY, json.dumps(record), conn)

    def shape(self) -> dict[str, object] | None:
        raw = self.get_meta(_SHAPE_KEY)
        return json.loads(raw) if raw else None

    def shape_mismatch(self, wanted: Mapping[str, object]) -> str | None:
        have = self.shape()
        if have is None:
            return "no index yet" if not self.file_count() else "index has no recorded shape"
        full = {"schema": SHAPE_SCHEMA, **wanted}
        for key, value in full.items():
            if have.get(key) != value:
                return f"{key} changed from {have.get(key)!r} to {value!r}"
        return None

    def write_shape(self, wanted: Mapping[str, object], conn: _Txn | None = None) -> None:
        self.set_meta(
            _SHAPE_KEY, json.dumps({"schema": SHAPE_SCHEMA, **wanted}, sort_keys=True), conn
        )

    # -- files and chunks ----------------------------------------------------------------------
    def file_rows(self, paths: Iterable[str] | None = None) -> dict[str, FileRow]:
        """This origin's file rows (all, or those of ``paths``)."""
        sql = (
            "SELECT path, source, hash, size, mtime_ns, chunks, indexed_ns FROM memdir_files"
            " WHERE namespace = %s AND origin = %s"
        )
        params: list[Any] = [self.namespace, self.origin]
        if paths is not None:
            sql += " AND path = ANY(%s)"
            params.append(list(paths))
        return {r[0]: FileRow(*r) for r in self.read(sql, params)}

    def file_count(self) -> int:
        return int(
            self.read("SELECT count(*) FROM memdir_files WHERE namespace = %s", (self.namespace,))[
                0
            ][0]
        )

    def replace_file(
        self,
        conn: _Txn,
        *,
        path: str,
        source: str,
        file_hash: str,
        size: int,
        mtime_ns: int,
        chunks: Sequence[Chunk],
    ) -> list[int]:
        """Replace every row of one file. The file row is upserted first: its row lock makes a
        second writer of the same path wait, then see (and delete) this one's chunks."""
        conn.execute(
            "INSERT INTO memdir_files(namespace, path, origin, source, hash, size, mtime_ns,"
            " chunks, indexed_ns) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (namespace, path) DO UPDATE SET origin = excluded.origin,"
            " source = excluded.source, hash = excluded.hash, size = excluded.size,"
            " mtime_ns = excluded.mtime_ns, chunks = excluded.chunks,"
            " indexed_ns = excluded.indexed_ns",
            (
                self.namespace,
                path,
                self.origin,
                source,
                file_hash,
                size,
                mtime_ns,
                len(chunks),
                time.time_ns(),
            ),
        )
        self._delete_chunks(conn, [path])
        if not chunks:
            return []
        bodies = [fts_document(embed_input(c.context, c.text)) for c in chunks]
        tokens = self._tok.tokens(bodies)
        rows = conn.execute(
            "INSERT INTO memdir_chunks(namespace, path, source, start_line, end_line, hash, text,"
            " context, date, ntok, tsv)"
            " SELECT %s, %s, %s, s, e, h, t, c, d, n, v::tsvector"
            " FROM unnest(%s::int[], %s::int[], %s::text[], %s::text[], %s::text[], %s::text[],"
            " %s::int[], %s::text[]) WITH ORDINALITY AS u(s, e, h, t, c, d, n, v, i) ORDER BY i"
            " RETURNING id",
            (
                self.namespace,
                path,
                source,
                [c.start_line for c in chunks],
                [c.end_line for c in chunks],
                [c.hash for c in chunks],
                [c.text for c in chunks],
                [c.context for c in chunks],
                [c.date for c in chunks],
                [len(t) for t in tokens],
                [_tsvector(t) for t in tokens],
            ),
        ).fetchall()
        conn.chunks += len(chunks)
        conn.tokens += sum(len(t) for t in tokens)
        for t in tokens:
            conn.lexemes.update(set(t))  # the lexemes of its tsvector, each once
        return sorted(int(r[0]) for r in rows)

    def touch_file(self, conn: _Txn, path: str, size: int, mtime_ns: int) -> None:
        conn.execute(
            "UPDATE memdir_files SET size = %s, mtime_ns = %s, indexed_ns = %s"
            " WHERE namespace = %s AND path = %s",
            (size, mtime_ns, time.time_ns(), self.namespace, path),
        )

    def remove_file(self, conn: _Txn, path: str) -> None:
        conn.execute(
            "DELETE FROM memdir_files WHERE namespace = %s AND path = %s", (self.namespace, path)
        )
        self._delete_chunks(conn, [path])

    def _delete_chunks(self, conn: _Txn, paths: Sequence[str]) -> None:
        """Delete the chunks (and vectors) of ``paths``, counting what goes: chunks, tokens,
        vectors and each lexeme's documents (for :meth:`_finish`)."""
        if not paths:
            return
        row = conn.execute(
            "WITH v AS (DELETE FROM memdir_vectors WHERE chunk_id IN (SELECT id FROM"
            " memdir_chunks WHERE namespace = %(ns)s AND path = ANY(%(p)s)) RETURNING 1),"
            " c AS (DELETE FROM memdir_chunks WHERE namespace = %(ns)s AND path = ANY(%(p)s)"
            " RETURNING ntok, tsv),"
            " g AS (SELECT x, count(*) AS n FROM c, unnest(tsvector_to_array(c.tsv)) AS x"
            " GROUP BY x)"
            " SELECT (SELECT count(*) FROM v), (SELECT count(*) FROM c),"
            " (SELECT coalesce(sum(ntok), 0) FROM c),"
            " (SELECT array_agg(x ORDER BY x) FROM g), (SELECT array_agg(n ORDER BY x) FROM g)",
            {"ns": self.namespace, "p": list(paths)},
        ).fetchone()
        assert row is not None
        conn.vectors -= int(row[0])
        conn.chunks -= int(row[1])
        conn.tokens -= int(row[2])
        for lexeme, n in zip(row[3] or (), row[4] or (), strict=True):
            conn.lexemes[lexeme] -= int(n)

    def set_problems(
        self, conn: _Txn, problems: Iterable[Problem], *, only: Iterable[str] | None = None
    ) -> None:
        if only is None:
            conn.execute(
                "DELETE FROM memdir_problems WHERE namespace = %s AND origin = %s",
                (self.namespace, self.origin),
            )
        else:
            conn.execute(
                "DELETE FROM memdir_problems WHERE namespace = %s AND origin = %s"
                " AND path = ANY(%s)",
                (self.namespace, self.origin, list(only)),
            )
        rows = {p.path: p for p in problems}  # one per path, the last, as INSERT OR REPLACE
        if rows:
            conn.conn.cursor().executemany(
                "INSERT INTO memdir_problems(namespace, origin, path, kind, message)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (namespace, origin, path)"
                " DO UPDATE SET kind = excluded.kind, message = excluded.message",
                [(self.namespace, self.origin, p.path, p.kind, p.message) for p in rows.values()],
            )
            conn.changed = True

    def problems(self) -> list[Problem]:
        return [
            Problem(*r)
            for r in self.read(
                "SELECT path, kind, message FROM memdir_problems WHERE namespace = %s"
                " AND origin = %s ORDER BY path",
                (self.namespace, self.origin),
            )
        ]

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        """The rows of ``ids`` that exist; those :meth:`nearest` has just read are handed out
        (once) from there. A chunk row never changes under its id, so that row is the row."""
        if not ids:
            return {}
        out: dict[int, ChunkRow] = {}
        with self._prefetch_lock:
            for cid in ids:
                row = self._prefetched.pop(int(cid), None)
                if row is not None:
                    out[int(cid)] = row
        todo = [cid for cid in ids if int(cid) not in out]
        if todo:
            rows = self.read(
                f"SELECT {_CHUNK_COLUMNS} FROM memdir_chunks WHERE namespace = %s AND id = ANY(%s)",
                (self.namespace, list(todo)),
            )
            out.update({int(r[0]): ChunkRow(*r) for r in rows})
        return out

    def shared_file(self, path: str) -> SharedFile | None:
        """The lines of ``path`` as its chunks hold them, when another origin indexed it into
        this namespace (a memory file, not a transcript). A line cut into several chunks is
        joined again; lines between chunks are left out."""
        rows = self.read(
            "SELECT f.origin, c.start_line, c.end_line, c.text FROM memdir_files AS f"
            " LEFT JOIN memdir_chunks AS c ON c.namespace = f.namespace AND c.path = f.path"
            " WHERE f.namespace = %s AND f.path = %s AND f.origin <> %s AND f.source = 'memory'"
            " ORDER BY c.start_line, c.id",
            (self.namespace, path, self.origin),
        )
        if not rows:
            return None
        lines: dict[int, str] = {}
        pieces: dict[int, list[str]] = {}
        total = 0
        for _, start, end, text in rows:
            if text is None:
                continue
            total = max(total, int(end))
            parts = text.split("\n")
            if start == end and len(parts) == 1:  # one line, or a piece of a long one
                if text not in pieces.setdefault(start, []):
                    pieces[start].append(text)
                continue
            for n, line in enumerate(parts[: end - start + 1], start=start):
                lines.setdefault(n, line)
        for n, got in pieces.items():
            lines.setdefault(n, "".join(got))
        return SharedFile(origin=str(rows[0][0]), total_lines=total, lines=lines)

    # -- keyword search ------------------------------------------------------------------------
    def _term_queries(self, terms: Sequence[str]) -> dict[str, list[str]]:
        """Each term's FTS5 tokens (several: a phrase); a term with none matches nothing."""
        unique = list(dict.fromkeys(terms))
        return dict(zip(unique, self._tok.tokens(unique), strict=True))

    @staticmethod
    def _tsquery(tokens: Sequence[str]) -> str:
        return " <-> ".join(_lexeme(t) for t in tokens)

    def _fresh(self) -> None:
        """Drop the cached statistics if any process changed the namespace since."""
        with self._version_lock:
            version = self._version
        if version != self._stats_for:
            self._dfs = {}
            self._stats = None
            self._scripts = None
            self._stats_for = version

    def term_dfs(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """``(chunk count, {term: chunks that match it})``, as the SQLite index counts them:
        a term of one FTS5 token is looked up in ``memdir_lexemes``; one of several counts
        the chunks that hold it as a phrase (through the GIN index)."""
        self._fresh()
        todo = [t for t in dict.fromkeys(terms) if t not in self._dfs]
        queries = self._term_queries(todo)
        words = [t for t in todo if len(queries[t]) == 1]
        phrases = [t for t in todo if len(queries[t]) > 1]
        for t in todo:
            if not queries[t]:
                self._dfs[t] = 0
        if words or phrases or self._stats is None:
            row = self.read(
                "SELECT coalesce((SELECT chunks FROM memdir_stats WHERE namespace = %(ns)s), 0),"
                " coalesce((SELECT tokens FROM memdir_stats WHERE namespace = %(ns)s), 0),"
                " ARRAY(SELECT coalesce((SELECT df FROM memdir_lexemes WHERE namespace = %(ns)s"
                " AND lexeme = x), 0) FROM unnest(%(xs)s::text[]) WITH ORDINALITY AS u(x, i)"
                " ORDER BY i),"
                " ARRAY(SELECT (SELECT count(*) FROM memdir_chunks WHERE namespace = %(ns)s"
                " AND tsv @@ q::tsquery) FROM unnest(%(qs)s::text[]) WITH ORDINALITY AS u(q, i)"
                " ORDER BY i)",
                {
                    "ns": self.namespace,
                    "xs": [queries[t][0] for t in words],
                    "qs": [self._tsquery(queries[t]) for t in phrases],
                },
            )[0]
            self._stats = (int(row[0]), int(row[1]))
            for t, n in zip([*words, *phrases], [*row[2], *row[3]], strict=True):
                self._dfs[t] = int(n)
        total = self._stats[0] if self._stats else 0
        return total, {t: self._dfs[t] for t in terms}

    def script_lines(self) -> dict[str, int]:
        """See :meth:`memdir.index.backend.IndexBackend.script_lines`: the chunks of the
        namespace at evenly spaced ids, each found through the primary key."""
        total, _ = self.term_dfs([])
        scripts = self._scripts
        if scripts is None:
            lo, hi = self.read(
                "SELECT min(id), max(id) FROM memdir_chunks WHERE namespace = %s",
                (self.namespace,),
            )[0]
            if lo is None or total <= SCRIPT_SAMPLE:
                rows = self.read(
                    "SELECT text FROM memdir_chunks WHERE namespace = %s", (self.namespace,)
                )
            else:
                rows = self.read(
                    "SELECT DISTINCT ON (c.id) c.text FROM unnest(%(at)s::bigint[]) AS a(x)"
                    " CROSS JOIN LATERAL (SELECT id, text FROM memdir_chunks"
                    " WHERE namespace = %(ns)s AND id >= a.x ORDER BY id LIMIT 1) AS c",
                    {"ns": self.namespace, "at": spread_ids(lo, hi)},
                )
            scripts = self._scripts = dict(script_lines(text for (text,) in rows))
        return dict(scripts)

    def keyword(
        self, match: str, limit: int, *, sources: Sequence[str] | None = None, ranked: bool = True
    ) -> list[KeywordRow]:
        """FTS5's bm25 over the GIN candidates (see the module docstring); ``rank`` is negative,
        lower is better, as on SQLite. One statement. ``ranked=False`` is accepted and still
        ranks: the staged scan below is already bounded by ``limit``.

        The terms are taken rarest first, one a stage (:data:`MAX_STAGES`): a stage scores
        the chunks that hold its term and no earlier one. bm25 gives a term at most
        ``idf × (k1 + 1)``, so such a chunk scores under the sum of that bound over this and
        the later stages' terms; once the ``limit``-th best score so far is above it, no later
        chunk can make the result and the remaining stages are skipped (one-time filters in
        the same statement). A query's common words are so mostly never scanned, and the
        result is still the exact top ``limit`` by bm25.
        """
        terms = _match_terms(match)
        total, dfs = self.term_dfs(terms)
        queries = self._term_queries(terms)
        live = [t for t in dict.fromkeys(terms) if queries[t]]
        limit = int(limit)  # written into the statement (a generic plan must know it)
        if not live or not total or limit <= 0:
            return []
        assert self._stats is not None
        avgdl = max(self._stats[1], 1) / max(total, 1)
        idf = {t: _fts5_idf(total, dfs[t]) for t in live}
        # stages, rarest terms first: each stage scores the chunks of its term that hold no
        # earlier one, and runs only if what the later terms could add at most (idf × (k1+1)
        # each) can still reach the limit-th best score so far
        # (a term no chunk held when last counted goes last: it costs nothing and would only
        # take a stage from the others; its bound still counts)
        order = sorted(live, key=lambda t: (dfs[t] == 0, dfs[t], t))
        stages = [[t] for t in order[: MAX_STAGES - 1]]
        if order[MAX_STAGES - 1 :]:
            stages.append(order[MAX_STAGES - 1 :])
        params: dict[str, Any] = {
            "ns": self.namespace,
            "lex": sorted({tok for t in live for tok in queries[t]}),
        }
        # Each candidate's frequency of each term (i: its place in the query) comes from one
        # pass over its tsvector cut down to the query's lexemes (f): a lexeme's positions are
        # joined to the terms it is; a phrase counts the places where its tokens stand in a
        # row. The sum runs in the query's order, as FTS5's: idf * (tf * (k1 + 1)) / (tf + k).
        words_x: list[str] = []
        words_i: list[int] = []
        phrases = []
        for i, term in enumerate(terms):
            tokens = queries[term]
            if len(tokens) == 1:
                words_x.append(tokens[0])
                words_i.append(i)
            elif tokens:
                for j, tok in enumerate(tokens):
                    params[f"l{i}_{j}"] = tok

                def pos(j: int, i: int = i) -> str:
                    return f"(SELECT positions FROM unnest(m.f) WHERE lexeme = %(l{i}_{j})s)"

                tests = " AND ".join(
                    f"{pos(j)} @> ARRAY[(x + {j})::smallint]" for j in range(1, len(tokens))
                )
                phrases.append(
                    f" UNION ALL SELECT {i}, (SELECT count(*) FROM unnest({pos(0)}) AS p(x)"
                    f" WHERE {tests})::int"
                )
        params["wx"], params["wi"] = words_x, words_i
        params["idf"] = [idf.get(t, 0.0) for t in terms]
        where = "namespace = %(ns)s"
        if sources:
            where += " AND source = ANY(%(sources)s)"
            params["sources"] = list(sources)
        k = f"{_K1!r}::float8 * ({1 - _B!r}::float8 + {_B!r}::float8 * ntok / {avgdl!r}::float8)"

        def scored(n: int, earlier: Sequence[int]) -> str:
            """The best ``limit`` (id, rank) of stage ``n``; OFFSET 0 keeps f from being
            worked out again (a decompression each) wherever it is used."""
            having = ""
            if earlier:
                # a chunk holding an earlier term was scored in an earlier stage
                params[f"e{n}"] = list(earlier)
                having = f" HAVING NOT bool_or(x.i = ANY(%(e{n})s) AND x.tf > 0)"
            return (
                "SELECT m.id, -sum((%(idf)s::float8[])[x.i + 1] * (x.tf"
                f" * {_K1 + 1!r}::float8) / (x.tf + m.k) ORDER BY x.i) AS r FROM ("
                f"SELECT id, {k} AS k, ts_filter(setweight(tsv, 'A', %(lex)s::text[]), '{{a}}')"
                f" AS f FROM memdir_chunks WHERE {where} AND tsv @@ %(q{n})s::tsquery OFFSET 0)"
                " AS m CROSS JOIN LATERAL (SELECT w.i, cardinality(u.positions) AS tf"
                " FROM unnest(m.f) AS u JOIN unnest(%(wx)s::text[], %(wi)s::int[]) AS w(x, i)"
                f" ON w.x = u.lexeme{''.join(phrases)}) AS x"
                f" GROUP BY m.id{having} ORDER BY r, m.id LIMIT {limit}"
            )

        ctes = []
        for n, stage in enumerate(stages):
            params[f"q{n}"] = self._any_of(stage, queries)
            earlier = [i for done in stages[:n] for i, t in enumerate(terms) if t in done]
            if not n:
                ctes.append(f"a0 AS ({scored(n, earlier)})")
                continue
            params[f"u{n}"] = sum(
                idf[t] * (_K1 + 1) for later in stages[n:] for t in terms if t in later
            )
            ctes.append(
                f"a{n} AS (SELECT * FROM (SELECT * FROM a{n - 1} UNION ALL"
                f" SELECT * FROM ({scored(n, earlier)}) AS o WHERE (SELECT count(*)"
                f" < {limit} OR -max(r) <= %(u{n})s FROM a{n - 1})) AS c"
                f" ORDER BY r, id LIMIT {limit})"
            )
        sql = (
            f"WITH {', '.join(ctes)} SELECT {', '.join('c.' + c for c in _CHUNK_COLUMNS.split(', '))},"
            f" a.r FROM a{len(stages) - 1} AS a JOIN memdir_chunks AS c ON c.id = a.id"
            " ORDER BY a.r, a.id"
        )
        try:
            rows = self.read(sql, params)
        except psycopg.Error as exc:
            raise StorageError(f"keyword search failed for {match!r}: {exc}") from exc
        return [KeywordRow(ChunkRow(*r[:8]), float(r[8])) for r in rows]

    def dated(
        self, days: Sequence[str], limit: int, *, sources: Sequence[str] | None = None
    ) -> tuple[int, list[KeywordRow]]:
        """See :meth:`memdir.index.backend.IndexBackend.dated`; a day without a year is looked
        up in each year from the oldest chunk's to the newest's (``memdir_chunks_date``)."""
        (first, last) = self.read(
            "SELECT min(date), max(date) FROM memdir_chunks WHERE namespace = %s",
            (self.namespace,),
        )[0]
        wanted = dated_keys(days, first, last)
        if not wanted:
            return 0, []
        where = "namespace = %(ns)s AND date = ANY(%(days)s)"
        params: dict[str, Any] = {"ns": self.namespace, "days": wanted, "limit": int(limit)}
        if sources:
            where += " AND source = ANY(%(sources)s)"
            params["sources"] = list(sources)
        (count,) = self.read(f"SELECT count(*) FROM memdir_chunks WHERE {where}", params)[0]
        rows = self.read(
            f"SELECT {_CHUNK_COLUMNS} FROM memdir_chunks WHERE {where}"
            " ORDER BY date DESC, id LIMIT %(limit)s",
            params,
        )
        return int(count), [KeywordRow(ChunkRow(*r), 0.0) for r in rows]

    def newest(
        self, match: str, limit: int, *, sources: Sequence[str] | None = None
    ) -> list[KeywordRow]:
        """See :meth:`memdir.index.backend.IndexBackend.newest`: the GIN index's matches,
        sorted by their date."""
        terms = _match_terms(match)
        queries = self._term_queries(terms)
        live = [t for t in dict.fromkeys(terms) if queries[t]]
        if not live or limit <= 0:
            return []
        where = "namespace = %(ns)s AND date IS NOT NULL AND tsv @@ %(q)s::tsquery"
        params: dict[str, Any] = {
            "ns": self.namespace,
            "q": self._any_of(live, queries),
            "limit": int(limit),
        }
        if sources:
            where += " AND source = ANY(%(sources)s)"
            params["sources"] = list(sources)
        rows = self.read(
            f"SELECT {_CHUNK_COLUMNS} FROM memdir_chunks WHERE {where}"
            " ORDER BY date DESC, id LIMIT %(limit)s",
            params,
        )
        return [KeywordRow(ChunkRow(*r), 0.0) for r in rows]

    def _any_of(self, terms: Sequence[str], queries: Mapping[str, Sequence[str]]) -> str:
        """The tsquery matching any of ``terms`` (each a lexeme or a phrase)."""
        return " | ".join(f"({self._tsquery(queries[t])})" for t in terms)

    # -- vectors -------------------------------------------------------------------------------
    def _counters(self) -> tuple[int, int, int]:
        row = self.read(
            "SELECT chunks, tokens, vectors FROM memdir_stats WHERE namespace = %s",
            (self.namespace,),
        )
        return (int(row[0][0]), int(row[0][1]), int(row[0][2])) if row else (0, 0, 0)

    def vector_state(self) -> VectorState:
        rows = self.read(
            "SELECT key, value FROM memdir_meta WHERE namespace = %(ns)s AND key LIKE 'vectors.%%'"
            " UNION ALL SELECT '#vectors', vectors::text FROM memdir_stats WHERE namespace = %(ns)s",
            {"ns": self.namespace},
        )
        meta = dict(rows)
        return VectorState(
            provider_key=meta.get("vectors.provider_key"),
            model=meta.get("vectors.model"),
            dims=int(meta["vectors.dims"]) if meta.get("vectors.dims") else None,
            generation=meta.get("vectors.generation", ""),
            vector_seq=int(meta.get("#vectors", 0)),
            log_seq=0,
        )

    def vector_count(self) -> int:
        return self._counters()[2]

    def reset_vectors(self, *, provider_key: str, model: str, dims: int | None) -> None:
        with self.transaction() as txn:
            txn.execute("DELETE FROM memdir_vectors WHERE namespace = %s", (self.namespace,))
            txn.execute("DELETE FROM memdir_line_vectors WHERE namespace = %s", (self.namespace,))
            txn.reset_vectors = True
            self.set_meta("vectors.provider_key", provider_key, txn)
            self.set_meta("vectors.model", model, txn)
            self.set_meta("vectors.dims", str(dims or ""), txn)
            self.set_meta("vectors.generation", uuid.uuid4().hex, txn)

    def chunks_missing_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        return self._chunks_to_embed(
            "NOT EXISTS (SELECT 1 FROM memdir_vectors v WHERE v.chunk_id = c.id)", limit
        )

    def chunks_missing_line_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        return self._chunks_to_embed(
            "EXISTS (SELECT 1 FROM memdir_vectors v WHERE v.chunk_id = c.id)"
            " AND NOT EXISTS (SELECT 1 FROM memdir_line_vectors l WHERE l.chunk_id = c.id)",
            limit,
        )

    def _chunks_to_embed(self, condition: str, limit: int) -> list[tuple[int, str, str]]:
        """``(chunk id, hash, text to embed)`` of this namespace's chunks meeting
        ``condition``, newest first (see :meth:`memdir.index.store.Index.chunks_missing_vectors`)."""
        return [
            (int(r[0]), r[1], embed_input(r[3], r[2]))
            for r in self.read(
                "SELECT c.id, c.hash, c.text, c.context FROM memdir_chunks c"
                f" WHERE c.namespace = %s AND {condition} ORDER BY c.id DESC LIMIT %s",
                (self.namespace, limit),
            )
        ]

    def count_missing_vectors(self) -> int:
        chunks, _, vectors = self._counters()
        return max(0, chunks - vectors)

    def count_missing_line_vectors(self) -> int:
        return int(
            self.read(
                "SELECT count(*) FROM memdir_vectors v WHERE v.namespace = %s AND NOT EXISTS"
                " (SELECT 1 FROM memdir_line_vectors l WHERE l.chunk_id = v.chunk_id)",
                (self.namespace,),
            )[0][0]
        )

    def _ensure_hnsw(self, dims: int) -> None:
        """The HNSW index (cosine) over vectors of ``dims`` dimensions, made once."""
        if dims in self._hnsw:
            return
        name = f"memdir_vectors_hnsw_{dims}"
        with self.pool.connection() as conn:
            found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
        if found and found[0]:
            self._hnsw.add(dims)
            return
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON memdir_vectors USING hnsw"
                f" ((embedding::vector({dims})) vector_cosine_ops) WHERE dims = {dims}"
            )
        self._hnsw.add(dims)
        self._analyze("memdir_vectors")

    def write_vectors(self, conn: _Txn, rows: Iterable[tuple[int, bytes]]) -> int:
        """Insert vectors for chunks that still exist (a chunk deleted meanwhile is skipped):
        the chunks are key-share locked first, so none can vanish before the commit."""
        todo = {cid: blob for cid, blob in rows}
        if not todo:
            return 0
        alive = self._lock_alive(conn, todo)
        params = []
        for cid in sorted(alive):
            vec = np.frombuffer(todo[cid], dtype="<f4")
            params.append((cid, self.namespace, len(vec), _Vec(vec)))
        if not params:
            return 0
        # An HNSW index is made once the transaction is over: CREATE INDEX waits for every
        # open writer of the table, this one included.
        conn.extra.setdefault("hnsw", set()).update({p[2] for p in params} - self._hnsw)
        cur = conn.conn.cursor()
        cur.executemany(
            "INSERT INTO memdir_vectors(chunk_id, namespace, dims, embedding) VALUES (%s, %s, %s, %b)"
            " ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding, dims = excluded.dims"
            " RETURNING (xmax = 0)",
            params,
            returning=True,
        )
        inserted = 0
        while True:
            inserted += sum(1 for (fresh,) in cur.fetchall() if fresh)
            if not cur.nextset():
                break
        conn.vectors += inserted
        conn.changed = True
        return len(params)

    def _lock_alive(self, conn: _Txn, ids: Iterable[int]) -> set[int]:
        """Those of ``ids`` that are chunks of this namespace, key-share locked, so that none
        can vanish before the transaction commits."""
        return {
            int(r[0])
            for r in conn.execute(
                "SELECT id FROM memdir_chunks WHERE namespace = %s AND id = ANY(%s) FOR KEY SHARE",
                (self.namespace, list(ids)),
            ).fetchall()
        }

    def write_line_vectors(self, conn: _Txn, rows: Iterable[tuple[int, bytes]]) -> None:
        """Store each chunk's line vectors for chunks that still exist (key-share locked, as
        :meth:`write_vectors` does)."""
        todo = {cid: blob for cid, blob in rows}
        alive = self._lock_alive(conn, todo) if todo else set()
        if not alive:
            return
        conn.conn.cursor().executemany(
            "INSERT INTO memdir_line_vectors(chunk_id, namespace, embedding) VALUES (%s, %s, %s)"
            " ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding",
            [(cid, self.namespace, todo[cid]) for cid in sorted(alive)],
        )
        conn.changed = True

    def line_vectors(self, ids: Sequence[int]) -> dict[int, bytes]:
        if not ids:
            return {}
        rows = self.read(
            "SELECT chunk_id, embedding FROM memdir_line_vectors WHERE namespace = %s"
            " AND chunk_id = ANY(%s)",
            (self.namespace, [int(i) for i in ids]),
        )
        return {int(cid): bytes(blob) for cid, blob in rows}

    def nearest(self, query: Sequence[float], k: int) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks by cosine, from the HNSW index of the query's dimensions.

        The same statement reads their rows, which :meth:`chunks_by_ids` then hands out once
        without asking the server again (a search asks for them right after)."""
        vec = np.asarray(query, dtype=np.float32)
        dims = int(vec.shape[0])
        if k <= 0 or dims == 0:
            return []
        columns = ", ".join(f"c.{c}" for c in _CHUNK_COLUMNS.split(", "))
        # The rows are looked up for each of the k nearest (a lateral join kept apart with
        # OFFSET 0): a plain join let the planner, without statistics yet, scan and sort
        # every vector instead of asking the HNSW index. k is written into the statement
        # for the same reason (a prepared statement's generic plan does not know it).
        sql = (
            f"SELECT {columns}, 1 - n.d FROM (SELECT chunk_id,"
            f" embedding::vector({dims}) <=> %(q)b::vector({dims}) AS d FROM memdir_vectors"
            " WHERE namespace = %(ns)s AND dims = %(d)s"
            f" ORDER BY embedding::vector({dims}) <=> %(q)b::vector({dims}), chunk_id"
            f" LIMIT {int(k)}) AS n CROSS JOIN LATERAL (SELECT {_CHUNK_COLUMNS}"
            " FROM memdir_chunks WHERE id = n.chunk_id OFFSET 0) AS c"
            " ORDER BY n.d, n.chunk_id"
        )
        params = {"q": _Vec(vec), "ns": self.namespace, "d": dims}
        with self.pool.connection() as conn:
            if k > EF_SEARCH:
                with conn.transaction():
                    conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, k)}")
                    rows = conn.execute(sql, params).fetchall()
            else:
                rows = conn.execute(sql, params).fetchall()
        with self._prefetch_lock:
            for r in rows:
                self._prefetched[int(r[0])] = ChunkRow(*r[:8])
            while len(self._prefetched) > _PREFETCH_ROWS:
                self._prefetched.popitem(last=False)
        return [(int(r[0]), float(r[8])) for r in rows]

    def vector_scores(
        self, query: Sequence[float], chunk_ids: Sequence[int]
    ) -> list[tuple[int, float]]:
        """The cosine of each of ``chunk_ids`` that has a vector of the query's dimensions, in
        one statement (by primary key: no index scan of the vectors)."""
        vec = np.asarray(query, dtype=np.float32)
        dims = int(vec.shape[0])
        ids = sorted({int(c) for c in chunk_ids})
        if not ids or dims == 0:
            return []
        rows = self.read(
            f"SELECT chunk_id, 1 - (embedding::vector({dims}) <=> %(q)b::vector({dims}))"
            " FROM memdir_vectors WHERE chunk_id = ANY(%(ids)s) AND namespace = %(ns)s"
            " AND dims = %(d)s",
            {"q": _Vec(vec), "ids": ids, "ns": self.namespace, "d": dims},
        )
        return [(int(cid), float(cos)) for cid, cos in rows]

    def compact_vector_log(self, keep_below: int = 100_000) -> None:
        """Nothing to compact: no in-memory matrix follows this index."""

    # -- embedding cache -----------------------------------------------------------------------
    def cache_get(self, provider_key: str, hashes: Sequence[str]) -> dict[str, bytes]:
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return {}
        return {
            h: bytes(blob)
            for h, blob in self.read(
                "SELECT hash, embedding FROM memdir_embedding_cache WHERE provider_key = %s"
                " AND hash = ANY(%s)",
                (provider_key, unique),
            )
        }

    def cache_touch(self, conn: _Txn, provider_key: str, hashes: Iterable[str]) -> None:
        conn.execute(
            "UPDATE memdir_embedding_cache SET used_at = %s WHERE provider_key = %s"
            " AND hash = ANY(%s)",
            (time.time_ns(), provider_key, list(hashes)),
        )

    def cache_put(
        self, conn: _Txn, provider_key: str, rows: Iterable[tuple[str, int, bytes]]
    ) -> None:
        now = time.time_ns()
        conn.conn.cursor().executemany(
            "INSERT INTO memdir_embedding_cache(provider_key, hash, dims, embedding, used_at)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (provider_key, hash) DO UPDATE SET"
            " dims = excluded.dims, embedding = excluded.embedding, used_at = excluded.used_at",
            [(provider_key, h, dims, blob, now) for h, dims, blob in rows],
        )
        conn.changed = True

    def cache_size(self) -> int:
        return int(self.read("SELECT count(*) FROM memdir_embedding_cache")[0][0])

    def cache_evict(self, max_entries: int) -> int:
        excess = self.cache_size() - max_entries
        if excess <= 0:
            return 0
        with self.transaction() as txn:
            txn.execute(
                "DELETE FROM memdir_embedding_cache WHERE (provider_key, hash) IN"
                " (SELECT provider_key, hash FROM memdir_embedding_cache ORDER BY used_at LIMIT %s)",
                (excess,),
            )
        return excess

    # -- status --------------------------------------------------------------------------------
    def counts(self) -> dict[str, dict[str, int]]:
        rows = self.read(
            "SELECT source, 'files', count(*) FROM memdir_files WHERE namespace = %(ns)s"
            " GROUP BY source UNION ALL SELECT source, 'chunks', count(*) FROM memdir_chunks"
            " WHERE namespace = %(ns)s GROUP BY source",
            {"ns": self.namespace},
        )
        out: dict[str, dict[str, int]] = {}
        for source, what, n in rows:
            out.setdefault(source, {"files": 0, "chunks": 0})[what] = int(n)
        return out

    def server_info(self) -> dict[str, object]:
        chunks, _, vectors = self._counters()
        rows = self.read(
            "SELECT (SELECT count(*) FROM memdir_files WHERE namespace = %(ns)s),"
            " (SELECT count(DISTINCT namespace) FROM memdir_stats),"
            " (SELECT coalesce(sum(chunks), 0) FROM memdir_stats),"
            " ARRAY(SELECT extname || ' ' || extversion FROM pg_extension ORDER BY extname),"
            " current_database()",
            {"ns": self.namespace},
        )[0]
        return {
            "backend": "postgres",
            "url": redact_url(self.url),
            "database": rows[4],
            "server": self.info["server"],
            "server_version": self.info["server_version"],
            "pgvector": self.info["pgvector"],
            "extensions": list(rows[3]),
            "schema": PG_SCHEMA_VERSION,
            "namespace": self.namespace,
            "origin": self.origin,
            "rows": {"files": int(rows[0]), "chunks": chunks, "vectors": vectors},
            "database_rows": {"namespaces": int(rows[1]), "chunks": int(rows[2])},
        }

    # -- full rebuild --------------------------------------------------------------------------
    def new_build(self) -> _PgBuild:
        """One transaction that replaces this origin's rows: readers keep the old ones until it
        commits (:meth:`install_build`), and a crash or error rolls it back whole."""
        conn_cm = self.pool.connection()
        conn = conn_cm.__enter__()
        tx_cm = conn.transaction()
        tx_cm.__enter__()
        txn = _Txn(conn)
        try:
            paths = [
                r[0]
                for r in conn.execute(
                    "DELETE FROM memdir_files WHERE namespace = %s AND origin = %s RETURNING path",
                    (self.namespace, self.origin),
                ).fetchall()
            ]
            self._delete_chunks(txn, paths)
            txn.changed = True
        except BaseException as exc:
            tx_cm.__exit__(type(exc), exc, exc.__traceback__)
            conn_cm.__exit__(type(exc), exc, exc.__traceback__)
            raise
        return _PgBuild(txn, conn_cm, tx_cm)

    @contextmanager
    def build_transaction(self, build: _PgBuild) -> Iterator[_Txn]:
        yield build.txn

    def install_build(self, build: _PgBuild) -> None:
        try:
            self._finish(build.txn)
        except BaseException as exc:
            self.discard_build(build, exc)
            raise
        try:
            build.tx_cm.__exit__(None, None, None)
        except BaseException:
            self._unsent(build.txn)
            raise
        build.conn_cm.__exit__(None, None, None)
        self._bump()
        self._after_commit(build.txn)
        self._analyze("memdir_chunks", "memdir_lexemes", "memdir_files")

    def _analyze(self, *tables: str) -> None:
        """After a rebuild or a new HNSW index: the GIN index's pending entries merged and the
        planner's statistics taken now, not whenever autovacuum comes (the first searches
        after a load otherwise ran on plans made without them)."""
        with suppress(psycopg.Error), self.pool.connection() as conn:
            if "memdir_chunks" in tables:
                conn.execute("SELECT gin_clean_pending_list('memdir_chunks_tsv'::regclass)")
            conn.execute(f"ANALYZE {', '.join(tables)}")

    def discard_build(self, build: _PgBuild, exc: BaseException | None = None) -> None:
        error = exc or StorageError("rebuild discarded")
        self._unsent(build.txn)
        try:
            build.tx_cm.__exit__(type(error), error, None)
        finally:
            build.conn_cm.__exit__(type(error), error, None)


# -- server checks and schema --------------------------------------------------------------------
def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def _check_server(conn: psycopg.Connection[Any], shown: str) -> dict[str, Any]:
    """PostgreSQL's version and pgvector's, creating the extension when it is only available.
    Raises :class:`StorageError` naming what is missing."""
    row = conn.execute(
        "SELECT version(), current_setting('server_version'),"
        " current_setting('server_version_num')::int,"
        " (SELECT extversion FROM pg_extension WHERE extname = 'vector'),"
        " (SELECT default_version FROM pg_available_extensions WHERE name = 'vector')"
    ).fetchone()
    assert row is not None
    server, version, version_num, installed, available = row
    if version_num < 130000:
        raise StorageError(f"PostgreSQL at {shown} is {version}; memdir needs 13 or newer")
    if installed is None:
        if available is None:
            raise StorageError(
                f"PostgreSQL at {shown} ({version}) has no pgvector extension",
                hint="install pgvector 0.5.0 or newer on the server (packages, managed services"
                " and the pgvector image ship it)",
            )
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise StorageError(
                f"pgvector {available} is available at {shown} but not installed in this"
                f" database, and CREATE EXTENSION vector failed: {str(exc).strip()}",
                hint="ask the database owner to run CREATE EXTENSION vector",
            ) from exc
        installed = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()[0]  # type: ignore[index]
    if _version_tuple(installed) < MIN_PGVECTOR:
        raise StorageError(
            f"pgvector {installed} at {shown} is too old; memdir needs"
            f" {'.'.join(map(str, MIN_PGVECTOR))} or newer (HNSW indexes)",
            hint="run ALTER EXTENSION vector UPDATE after upgrading pgvector on the server",
        )
    oid = conn.execute("SELECT 'vector'::regtype::oid").fetchone()[0]  # type: ignore[index]
    return {
        "server": server,
        "server_version": version,
        "pgvector": installed,
        "pgvector_tuple": _version_tuple(installed),
        "vector_oid": int(oid),
    }


def _migrate(conn: psycopg.Connection[Any], shown: str) -> None:
    """Create or migrate the tables, under a database-wide advisory lock."""
    conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATE_LOCK,))
    try:
        exists = conn.execute("SELECT to_regclass('memdir_meta') IS NOT NULL").fetchone()
        version = None
        if exists and exists[0]:
            row = conn.execute(
                "SELECT value FROM memdir_meta WHERE namespace = '' AND key = 'schema'"
            ).fetchone()
            version = int(row[0]) if row else None
        if version is not None and version > PG_SCHEMA_VERSION:
            raise StorageError(
                f"the memdir tables at {shown} have schema {version}, newer than this memdir"
                f" ({PG_SCHEMA_VERSION})",
                hint="upgrade memdir",
            )
        if version == PG_SCHEMA_VERSION:
            return
        with conn.transaction():
            conn.execute(_DDL)
            if version == 1:
                # 1 → 2: each lexeme's document frequency, counted from the chunks as they
                # are (writers of the old schema wait: they would not count theirs), and the
                # tsvectors rewritten into their rows
                conn.execute("LOCK TABLE memdir_chunks IN SHARE ROW EXCLUSIVE MODE")
                conn.execute("UPDATE memdir_chunks SET tsv = tsv || ''::tsvector")
                conn.execute(
                    "INSERT INTO memdir_lexemes(namespace, lexeme, df) SELECT namespace, x,"
                    " count(*) FROM memdir_chunks, unnest(tsvector_to_array(tsv)) AS x"
                    " GROUP BY namespace, x ON CONFLICT (namespace, lexeme) DO UPDATE"
                    " SET df = excluded.df"
                )
            conn.execute(
                "INSERT INTO memdir_meta(namespace, key, value) VALUES ('', 'schema', %s)"
                " ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value",
                (str(PG_SCHEMA_VERSION),),
            )
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATE_LOCK,))
