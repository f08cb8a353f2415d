"""The SQLite schema of the index, and how a connection is opened.

The index is derived data: every row can be rebuilt from the Markdown files. ``meta`` records
everything that shapes the rows (schema version, tokenizer, chunking); when any of it differs
from the running configuration the index is rebuilt rather than read with the wrong assumptions.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memdir.text import FTS_TOKENIZE, fts_document

__all__ = ["FTS_BODY", "SCHEMA_VERSION", "connect", "create_date_index", "create_schema"]

SCHEMA_VERSION = 2
"""2: chunks gained ``context`` (the heading path) and ``date``; the FTS body holds the context."""

FTS_BODY = "memdir_fts(CASE WHEN context = '' THEN text ELSE context || char(10) || text END)"
"""The FTS5 body of a ``chunks`` row, as SQL: the tokenised :func:`memdir.chunking.embed_input`.
Inserts and deletes both derive it from the row with this expression, so they always agree."""

_DDL = f"""
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
    path       TEXT PRIMARY KEY,
    source     TEXT NOT NULL,
    hash       TEXT NOT NULL,
    size       INTEGER NOT NULL,
    mtime_ns   INTEGER NOT NULL,
    chunks     INTEGER NOT NULL,
    indexed_ns INTEGER NOT NULL
);
-- AUTOINCREMENT: chunk ids are never reused, so an in-memory vector matrix can follow changes.
CREATE TABLE IF NOT EXISTS chunks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    path       TEXT NOT NULL,
    source     TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    hash       TEXT NOT NULL,
    text       TEXT NOT NULL,
    context    TEXT NOT NULL DEFAULT '',
    date       TEXT
);
CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS idx_chunks_hash ON chunks(hash);
-- Contentless: the tokenised body (CJK runs expanded to unigrams + bigrams) is not stored twice.
-- The body is the chunk's context and text (FTS_BODY); rows are deleted with the FTS5 'delete'
-- command, re-deriving the body from the chunks row the same way.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    body, content='', tokenize='{FTS_TOKENIZE}'
);
-- One little-endian float32 vector per chunk, for the embedder recorded in meta
-- ('vectors.provider_key'). `seq` grows with every write and `vector_log` records deletions,
-- so a process holding the vectors in memory can catch up by reading only what is new.
CREATE TABLE IF NOT EXISTS vectors (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id  INTEGER NOT NULL UNIQUE REFERENCES chunks(id) ON DELETE CASCADE,
    embedding BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS vector_log (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS vectors_deleted AFTER DELETE ON vectors BEGIN
    INSERT INTO vector_log(chunk_id) VALUES (old.chunk_id);
END;
-- The vectors of a chunk's lines (little-endian float32, one after another, for the embedder
-- of `vectors`), when it has two lines or more worth one: a chunk is scored by the better of
-- its own vector and its best line's (memdir.search.engine._with_best_lines).
CREATE TABLE IF NOT EXISTS line_vectors (
    chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    embedding BLOB NOT NULL
);
-- Embeddings by content hash, so unchanged text is never embedded twice, across rebuilds too.
CREATE TABLE IF NOT EXISTS embedding_cache (
    provider_key TEXT NOT NULL,
    hash         TEXT NOT NULL,
    dims         INTEGER NOT NULL,
    embedding    BLOB NOT NULL,
    used_at      INTEGER NOT NULL,
    PRIMARY KEY (provider_key, hash)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_embedding_cache_used ON embedding_cache(used_at);
-- Files skipped or read with defects during the last sync, for `memdir status`.
CREATE TABLE IF NOT EXISTS problems (
    path    TEXT PRIMARY KEY,
    kind    TEXT NOT NULL,
    message TEXT NOT NULL
);
"""


def connect(path: Path, *, durable: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) an index database in autocommit mode.

    ``durable=False`` is for a temporary rebuild database, which is worthless until it is
    complete, so it skips the journal and fsyncs.
    """
    conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 10000")
    if durable:
        wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
    else:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.create_function("memdir_fts", 1, fts_document, deterministic=True)
    return conn


WAL_WAIT = 10.0
"""How long opening an index waits for another process switching the same new file to WAL."""


def wal(conn: sqlite3.Connection, wait: float = WAL_WAIT) -> None:
    """``PRAGMA journal_mode = WAL`` on ``conn``, tried again while another process holds the
    file: two processes opening a new index at once (an agent's session hook and its MCP
    server) both switch it, and SQLite answers the second "database is locked" at once,
    whatever its busy timeout (3 of 120 processes, four at a time, before this)."""
    deadline = time.monotonic() + wait
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` on an autocommit connection from :func:`connect`,
    rolled back on any exception (the caller holds whatever mutex guards ``conn``)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(_DDL)
    create_date_index(conn)


LINE_VECTORS_DDL = _DDL[_DDL.index("CREATE TABLE IF NOT EXISTS line_vectors") :].split(";")[0] + ";"
"""The table of line vectors alone: an index written before it had none gets it when opened."""


def create_date_index(conn: sqlite3.Connection) -> None:
    """The index on chunk dates, through which the days a question names are looked up; an
    index of schema 1 has no date column until it is rebuilt, and gets none."""
    if any(row[1] == "date" for row in conn.execute("PRAGMA table_info(chunks)")):
        conn.execute("CREATE INDEX IF NOT EXISTS idx_chunks_date ON chunks(date)")
