"""FTS5's own tokens, for an index that is not SQLite.

The SQLite index stores :func:`memdir.text.fts_document` text in an FTS5 table whose tokenizer
(:data:`memdir.text.FTS_TOKENIZE`: porter stemming, ``unicode61`` folding and diacritics) makes
the final tokens. Another backend must index exactly those tokens, or the same query would
match other chunks and score otherwise. Rather than reimplement the porter stemmer and the
``unicode61`` tables, :class:`Fts5Tokens` asks SQLite: it writes texts into an in-memory FTS5
table and reads every token back, with its position, from an ``fts5vocab`` ``instance`` table.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from memdir.text import FTS_TOKENIZE

__all__ = ["Fts5Tokens"]


class Fts5Tokens:
    """Tokenise with SQLite's FTS5 (``FTS_TOKENIZE``); safe to share between threads."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{FTS_TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab('t', 'instance')")
        self._lock = threading.Lock()

    def tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's FTS5 tokens in order (an FTS5 phrase of them is what FTS5 searches)."""
        out: list[list[str]] = [[] for _ in texts]
        if not texts:
            return out
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.executemany(
                    "INSERT INTO t(rowid, body) VALUES (?, ?)",
                    [(i, text) for i, text in enumerate(texts, start=1)],
                )
                found = conn.execute("SELECT doc, offset, term FROM v").fetchall()
                conn.execute("DELETE FROM t")
            finally:
                conn.execute("COMMIT")
        found.sort()
        for doc, _, term in found:
            out[doc - 1].append(term)
        return out

    def close(self) -> None:
        self._conn.close()
