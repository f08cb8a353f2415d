"""The lossless context store: every message of every conversation, the summary DAG over them,
and the ordered context items a model currently sees. All SQL of :mod:`memdir.context` is here.

One SQLite file per workspace, ``lcm.sqlite`` beside the index (:func:`store_path`). Unlike the
index it is not derived from the Markdown files, so a damaged file is an error naming it, never
moved aside and rebuilt. The rules are the index's: WAL (any number of readers beside one
writer), ``busy_timeout``, every change in one ``BEGIN IMMEDIATE`` transaction, and a
cross-process :class:`~memdir.index.lock.WriterLock` (``lcm.sqlite.lock``) that one compaction
at a time holds for its whole run, so two processes never summarise the same messages.

Tables
    ``conversations`` (id = the session id), ``messages`` (conversation, ``seq`` from 1, role,
    content byte for byte, token count, time, the transcript's id of the message when imported),
    ``summaries`` (``sum_`` + 16 hex of a sha256; depth 0 is a *leaf* over a run of messages,
    depth ≥ 1 a *condensed* summary over a run of summaries; first/last ``seq`` and times
    covered, token counts, how it was made), the DAG's edges ``summary_messages`` (leaf → its
    messages) and ``summary_children`` (condensed → its summaries), and ``context_items``
    (conversation, ``ord``, a message or a summary): what assembly reads. Compaction replaces a
    run of items by one summary item that takes the first one's ``ord``; nothing is ever deleted
    from ``messages`` or ``summaries``, so any summary expands back to exactly its messages.
    (The edge and item tables are rowid tables: SQLite 3.40's ``PRAGMA integrity_check``
    reports false NOT NULL violations on such WITHOUT ROWID tables.) ``messages_fts`` and
    ``summaries_fts`` are contentless FTS5 tables over the words of
    :func:`memdir.text.fts_document` (CJK runs as characters plus bigrams, the index's
    tokenisation); ``meta`` holds the schema version and the tokenizer's, and the FTS tables are
    rebuilt from the stored text when the tokenizer changes.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memdir.config import Config
from memdir.errors import NotFoundError, StorageError, UsageError
from memdir.index.lock import WriterLock
from memdir.index.schema import connect, immediate
from memdir.text import FTS_TOKENIZE, TOKENIZER_VERSION, fts_document, fts_query_terms

__all__ = [
    "SCHEMA_VERSION",
    "STORE_FILENAME",
    "ContextItem",
    "ConversationRow",
    "GrepHit",
    "LcmStore",
    "MessageRow",
    "NewMessage",
    "SummaryRow",
    "iso_time",
    "parse_ref",
    "render_summary",
    "store_path",
]

SCHEMA_VERSION = 1
STORE_FILENAME = "lcm.sqlite"
REGEX_BUDGET_S = 5.0
"""A regex grep stops scanning after this long and says so (``matched`` ``regex-partial``)."""

_DDL = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
    id         TEXT PRIMARY KEY,
    source     TEXT NOT NULL DEFAULT '',
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation TEXT NOT NULL REFERENCES conversations(id),
    seq          INTEGER NOT NULL,
    role         TEXT NOT NULL,
    content      TEXT NOT NULL,
    tokens       INTEGER NOT NULL,
    created_ms   INTEGER NOT NULL,
    ext_id       TEXT NOT NULL DEFAULT '',
    extra        TEXT NOT NULL DEFAULT '',
    UNIQUE (conversation, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS idx_messages_ext
    ON messages(conversation, ext_id) WHERE ext_id != '';
CREATE TABLE IF NOT EXISTS summaries (
    rowid        INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    conversation TEXT NOT NULL REFERENCES conversations(id),
    depth        INTEGER NOT NULL,
    content      TEXT NOT NULL,
    tokens       INTEGER NOT NULL,
    item_tokens  INTEGER NOT NULL,
    source_tokens INTEGER NOT NULL,
    first_seq    INTEGER NOT NULL,
    last_seq     INTEGER NOT NULL,
    earliest_ms  INTEGER NOT NULL,
    latest_ms    INTEGER NOT NULL,
    messages     INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    model        TEXT NOT NULL DEFAULT '',
    created_ms   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_summaries_conv ON summaries(conversation, first_seq);
CREATE TABLE IF NOT EXISTS summary_messages (
    summary TEXT NOT NULL REFERENCES summaries(id),
    message INTEGER NOT NULL UNIQUE REFERENCES messages(id),
    ord     INTEGER NOT NULL,
    PRIMARY KEY (summary, ord)
);
CREATE TABLE IF NOT EXISTS summary_children (
    summary TEXT NOT NULL REFERENCES summaries(id),
    child   TEXT NOT NULL UNIQUE REFERENCES summaries(id),
    ord     INTEGER NOT NULL,
    PRIMARY KEY (summary, ord)
);
CREATE TABLE IF NOT EXISTS context_items (
    conversation TEXT NOT NULL REFERENCES conversations(id),
    ord          INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('message', 'summary')),
    ref          TEXT NOT NULL,
    PRIMARY KEY (conversation, ord)
);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(body, content='', tokenize='{FTS_TOKENIZE}');
CREATE VIRTUAL TABLE IF NOT EXISTS summaries_fts USING fts5(body, content='', tokenize='{FTS_TOKENIZE}');
"""


def store_path(config: Config) -> Path:
    """Where a workspace's store lives: ``lcm.sqlite`` in the index's folder."""
    return config.index_path.parent / STORE_FILENAME


@dataclass(frozen=True, slots=True)
class NewMessage:
    """A message to append: ``role``, ``content`` (kept byte for byte), its time in ms since
    the epoch (0: now), and optionally the transcript's id for it (``ext_id``: appending the
    same one twice to a conversation stores it once) and extra JSON-ready data (tool calls)."""

    role: str
    content: str
    created_ms: int = 0
    ext_id: str = ""
    extra: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class MessageRow:
    id: int
    conversation: str
    seq: int
    role: str
    content: str
    tokens: int
    created_ms: int
    ext_id: str = ""
    extra: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "seq": self.seq,
            "role": self.role,
            "content": self.content,
            "tokens": self.tokens,
            "created_at": iso_time(self.created_ms),
        }
        if self.extra:
            out["extra"] = json.loads(self.extra)
        return out


@dataclass(frozen=True, slots=True)
class SummaryRow:
    id: str
    conversation: str
    depth: int
    content: str
    tokens: int
    item_tokens: int
    source_tokens: int
    first_seq: int
    last_seq: int
    earliest_ms: int
    latest_ms: int
    messages: int
    kind: str
    model: str
    created_ms: int

    def rendered(self) -> str:
        return render_summary(self)


_SUMMARY_COLUMNS = (
    "id, conversation, depth, content, tokens, item_tokens, source_tokens, first_seq, "
    "last_seq, earliest_ms, latest_ms, messages, kind, model, created_ms"
)
_MESSAGE_COLUMNS = "id, conversation, seq, role, content, tokens, created_ms, ext_id, extra"


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One entry of what the model sees: a raw message or a summary, with its token cost."""

    ord: int
    kind: str  # "message" or "summary"
    ref: str  # the message id (as text) or the summary id
    tokens: int
    depth: int = -1  # a summary's depth; -1 for a message

    @property
    def is_message(self) -> bool:
        return self.kind == "message"


@dataclass(frozen=True, slots=True)
class ConversationRow:
    id: str
    source: str
    created_ms: int
    updated_ms: int
    messages: int
    summaries: int


@dataclass(frozen=True, slots=True)
class GrepHit:
    kind: str  # "message" or "summary"
    id: int | str
    conversation: str
    role: str
    snippet: str
    created_ms: int
    seq: int
    depth: int = -1
    summary: str | None = None  # for a message: the leaf summary covering it, if any
    in_context: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "session": self.conversation,
            "snippet": self.snippet,
            "created_at": iso_time(self.created_ms),
            "in_context": self.in_context,
        }
        if self.kind == "message":
            out.update(role=self.role, seq=self.seq, summary=self.summary)
        else:
            out.update(depth=self.depth, first_seq=self.seq)
        return out


def render_summary(row: SummaryRow) -> str:
    """How a summary appears in the assembled context (and what its ``item_tokens`` count)."""
    return (
        f'<summary id="{row.id}" depth="{row.depth}" messages="{row.messages}" '
        f'from="{iso_time(row.earliest_ms)}" to="{iso_time(row.latest_ms)}">\n{row.content}\n</summary>'
    )


def iso_time(ms: int) -> str:
    """Milliseconds since the epoch as ``YYYY-MM-DDTHH:MM:SSZ`` (empty for 0)."""
    if not ms:
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def summary_id(conversation: str, depth: int, children: Sequence[str], content: str) -> str:
    """``sum_`` + 16 hex characters of the sha256 of what the summary is."""
    digest = hashlib.sha256(
        "\x1f".join([conversation, str(depth), ",".join(children), content]).encode()
    ).hexdigest()
    return "sum_" + digest[:16]


_SUMMARY_ID = re.compile(r"sum_[0-9a-f]{16}")


def parse_ref(value: object) -> tuple[str, int | str]:
    """``("summary", "sum_…")`` or ``("message", 12)`` from an id as a tool or the CLI gets it
    (``sum_…``, ``12``, ``"12"`` or ``msg_12``); :class:`UsageError` otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return "message", value
    if isinstance(value, str):
        text = value.strip()
        if _SUMMARY_ID.fullmatch(text):
            return "summary", text
        digits = text.removeprefix("msg_")
        if digits.isdigit() and int(digits) > 0:
            return "message", int(digits)
    raise UsageError(
        f"{value!r} is not a summary id (sum_ and 16 hex digits) or a message id (a number)"
    )


class LcmStore:
    """One store file. Open with :meth:`open`; safe to share between threads."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self.lock = WriterLock(path.with_name(path.name + ".lock"))
        """Held by the one compaction running on this store (any process)."""
        self._mutex = threading.RLock()

    @classmethod
    def open(cls, path: str | Path) -> LcmStore:
        """Open or create the store at ``path``; :class:`StorageError` naming it if the file
        is damaged or of a newer schema."""
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create folder {path.parent}: {exc.strerror}") from exc
        conn = None
        try:
            conn = connect(path)
            store = cls(path, conn)
            store._migrate()
        except StorageError:
            conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            raise StorageError(
                f"cannot open the context store {path}: {exc}",
                hint="it holds the only copy of compacted conversations: restore it from a "
                "backup, or move it aside and run `memdir lcm import` again",
            ) from exc
        return store

    def _migrate(self) -> None:
        # Every statement is CREATE … IF NOT EXISTS; executescript commits on its own.
        self.conn.executescript(_DDL)
        with self.transaction() as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            version = int(meta.get("schema_version", SCHEMA_VERSION))
            if version > SCHEMA_VERSION:
                raise StorageError(
                    f"the context store {self.path} has schema {version}, newer than this "
                    f"memdir's {SCHEMA_VERSION}",
                    hint="upgrade memdir",
                )
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
            if meta.get("tokenizer") not in (None, TOKENIZER_VERSION):
                self._rebuild_fts(conn)
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', ?)",
                (TOKENIZER_VERSION,),
            )

    @staticmethod
    def _rebuild_fts(conn: sqlite3.Connection) -> None:
        """The tokenizer changed: the FTS rows are derived again from the stored text."""
        conn.execute("DELETE FROM messages_fts")
        conn.execute("DELETE FROM summaries_fts")
        conn.execute(
            "INSERT INTO messages_fts(rowid, body) SELECT id, memdir_fts(content) FROM messages"
        )
        conn.execute(
            "INSERT INTO summaries_fts(rowid, body) "
            "SELECT rowid, memdir_fts(content) FROM summaries"
        )

    def close(self) -> None:
        with self._mutex:
            self.conn.close()
            self.lock.release()

    def __enter__(self) -> LcmStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception."""
        with self._mutex, immediate(self.conn) as conn:
            yield conn

    # -- conversations ----------------------------------------------------------------------
    def conversations(self) -> list[ConversationRow]:
        """Every conversation, most recently updated first."""
        with self._mutex:
            rows = self.conn.execute(
                "SELECT c.id, c.source, c.created_ms, c.updated_ms, "
                "(SELECT count(*) FROM messages m WHERE m.conversation = c.id), "
                "(SELECT count(*) FROM summaries s WHERE s.conversation = c.id) "
                "FROM conversations c ORDER BY c.updated_ms DESC, c.rowid DESC"
            ).fetchall()
        return [ConversationRow(*r) for r in rows]

    def latest(self) -> str | None:
        """The most recently updated conversation's id, or ``None`` for an empty store."""
        with self._mutex:
            row = self.conn.execute(
                "SELECT id FROM conversations ORDER BY updated_ms DESC, rowid DESC LIMIT 1"
            ).fetchone()
        return row[0] if row else None

    def has_conversation(self, conversation: str) -> bool:
        with self._mutex:
            return (
                self.conn.execute(
                    "SELECT 1 FROM conversations WHERE id = ?", (conversation,)
                ).fetchone()
                is not None
            )

    # -- messages ---------------------------------------------------------------------------
    def append(
        self,
        conversation: str,
        messages: Sequence[NewMessage],
        *,
        count: Any,
        source: str = "",
        now_ms: int | None = None,
    ) -> list[int]:
        """Append ``messages`` to ``conversation`` (created if new) in one transaction: each
        gets the next ``seq``, an FTS row and a context item at the end. A message whose
        ``ext_id`` the conversation already holds is skipped. ``count(text)`` gives a
        message's tokens. Returns the ids of the messages stored."""
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        stored: list[int] = []
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO conversations(id, source, created_ms, updated_ms) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET updated_ms = excluded.updated_ms",
                (conversation, source, now, now),
            )
            seq = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM messages WHERE conversation = ?",
                (conversation,),
            ).fetchone()[0]
            ord_ = conn.execute(
                "SELECT coalesce(max(ord), 0) FROM context_items WHERE conversation = ?",
                (conversation,),
            ).fetchone()[0]
            for message in messages:
                if (
                    message.ext_id
                    and conn.execute(
                        # "ext_id != ''" lets SQLite use the partial index (else: a full scan)
                        "SELECT 1 FROM messages WHERE conversation = ? AND ext_id = ? AND ext_id != ''",
                        (conversation, message.ext_id),
                    ).fetchone()
                ):
                    continue
                seq += 1
                ord_ += 1
                cur = conn.execute(
                    "INSERT INTO messages(conversation, seq, role, content, tokens, created_ms, "
                    "ext_id, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation,
                        seq,
                        message.role,
                        message.content,
                        count(message.content),
                        message.created_ms or now,
                        message.ext_id,
                        json.dumps(message.extra, ensure_ascii=False) if message.extra else "",
                    ),
                )
                mid = int(cur.lastrowid or 0)
                conn.execute(
                    "INSERT INTO messages_fts(rowid, body) VALUES (?, ?)",
                    (mid, fts_document(message.content)),
                )
                conn.execute(
                    "INSERT INTO context_items(conversation, ord, kind, ref) VALUES (?, ?, 'message', ?)",
                    (conversation, ord_, str(mid)),
                )
                stored.append(mid)
        return stored

    def ext_ids(self, conversation: str) -> set[str]:
        """The transcript ids of the conversation's imported messages."""
        with self._mutex:
            rows = self.conn.execute(
                "SELECT ext_id FROM messages WHERE conversation = ? AND ext_id != ''",
                (conversation,),
            ).fetchall()
        return {r[0] for r in rows}

    def message(self, message_id: int) -> MessageRow:
        with self._mutex:
            row = self.conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no message {message_id} in {self.path}")
        return MessageRow(*row)

    def messages(self, conversation: str) -> list[MessageRow]:
        """Every message of ``conversation``, in order."""
        with self._mutex:
            rows = self.conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE conversation = ? ORDER BY seq",
                (conversation,),
            ).fetchall()
        return [MessageRow(*r) for r in rows]

    def messages_by_id(self, ids: Sequence[int]) -> dict[int, MessageRow]:
        out: dict[int, MessageRow] = {}
        with self._mutex:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                for row in self.conn.execute(
                    f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id IN ({marks})", part
                ):
                    out[row[0]] = MessageRow(*row)
        return out

    def message_page(
        self, conversation: str, first_seq: int, last_seq: int, max_tokens: int | None
    ) -> list[MessageRow]:
        """Messages ``first_seq``..``last_seq`` in order, stopping before the one that would
        take the page over ``max_tokens`` (at least one). A summary covers exactly the range
        from its first to its last seq (:meth:`check` verifies it against the DAG), so this
        is how a large summary is expanded page by page without walking all of it each time."""
        out: list[MessageRow] = []
        used = 0
        at = first_seq
        with self._mutex:
            while at <= last_seq:
                rows = self.conn.execute(
                    f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE conversation = ? "
                    "AND seq BETWEEN ? AND ? ORDER BY seq LIMIT 200",
                    (conversation, at, last_seq),
                ).fetchall()
                if not rows:
                    break
                for raw in rows:
                    row = MessageRow(*raw)
                    if max_tokens is not None and out and used + row.tokens > max_tokens:
                        return out
                    out.append(row)
                    used += row.tokens
                at = rows[-1][2] + 1
        return out

    def covering_leaf(self, message_id: int) -> str | None:
        """The leaf summary that covers a message, or ``None`` while it is raw."""
        with self._mutex:
            row = self.conn.execute(
                "SELECT summary FROM summary_messages WHERE message = ?", (message_id,)
            ).fetchone()
        return row[0] if row else None

    # -- summaries --------------------------------------------------------------------------
    def summary(self, sid: str) -> SummaryRow:
        with self._mutex:
            row = self.conn.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE id = ?", (sid,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no summary {sid} in {self.path}")
        return SummaryRow(*row)

    def summaries_by_id(self, ids: Sequence[str]) -> dict[str, SummaryRow]:
        out: dict[str, SummaryRow] = {}
        with self._mutex:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                for row in self.conn.execute(
                    f"SELECT {_SUMMARY_COLUMNS} FROM summaries WHERE id IN ({marks})", part
                ):
                    out[row[0]] = SummaryRow(*row)
        return out

    def parent(self, sid: str) -> str | None:
        """The condensed summary that covers ``sid``, if any."""
        with self._mutex:
            row = self.conn.execute(
                "SELECT summary FROM summary_children WHERE child = ?", (sid,)
            ).fetchone()
        return row[0] if row else None

    def children(self, sid: str) -> list[tuple[str, int | str]]:
        """What ``sid`` covers, in order: ``("summary", id)`` or ``("message", id)`` pairs."""
        with self._mutex:
            kids = self.conn.execute(
                "SELECT child FROM summary_children WHERE summary = ? ORDER BY ord", (sid,)
            ).fetchall()
            if kids:
                return [("summary", k[0]) for k in kids]
            rows = self.conn.execute(
                "SELECT message FROM summary_messages WHERE summary = ? ORDER BY ord", (sid,)
            ).fetchall()
        return [("message", int(r[0])) for r in rows]

    def covered_messages(self, sid: str) -> list[MessageRow]:
        """The original messages under ``sid``, recursively through the DAG, in order."""
        with self._mutex:
            rows = self.conn.execute(
                f"""
                WITH RECURSIVE tree(id) AS (
                    SELECT ?
                    UNION ALL
                    SELECT c.child FROM summary_children c JOIN tree ON c.summary = tree.id
                )
                SELECT {", ".join("m." + c.strip() for c in _MESSAGE_COLUMNS.split(","))}
                FROM tree JOIN summary_messages sm ON sm.summary = tree.id
                JOIN messages m ON m.id = sm.message
                ORDER BY m.seq
                """,
                (sid,),
            ).fetchall()
        return [MessageRow(*r) for r in rows]

    def top_summaries(self, conversation: str) -> list[SummaryRow]:
        """The summaries no other summary covers, in order: the DAG's roots."""
        with self._mutex:
            rows = self.conn.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM summaries s WHERE conversation = ? AND NOT "
                "EXISTS (SELECT 1 FROM summary_children c WHERE c.child = s.id) ORDER BY first_seq",
                (conversation,),
            ).fetchall()
        return [SummaryRow(*r) for r in rows]

    def depth_counts(self, conversation: str) -> dict[int, int]:
        with self._mutex:
            rows = self.conn.execute(
                "SELECT depth, count(*) FROM summaries WHERE conversation = ? GROUP BY depth",
                (conversation,),
            ).fetchall()
        return {int(d): int(n) for d, n in rows}

    # -- context items ----------------------------------------------------------------------
    def items(self, conversation: str) -> list[ContextItem]:
        """What the model currently sees of ``conversation``, in order, with token costs."""
        with self._mutex:
            rows = self.conn.execute(
                """
                SELECT ci.ord, ci.kind, ci.ref,
                       coalesce(m.tokens, s.item_tokens, 0),
                       coalesce(s.depth, -1)
                FROM context_items ci
                LEFT JOIN messages m ON ci.kind = 'message' AND m.id = CAST(ci.ref AS INTEGER)
                LEFT JOIN summaries s ON ci.kind = 'summary' AND s.id = ci.ref
                WHERE ci.conversation = ? ORDER BY ci.ord
                """,
                (conversation,),
            ).fetchall()
        return [ContextItem(int(o), k, r, int(t), int(d)) for o, k, r, t, d in rows]

    def replace_items(
        self,
        conversation: str,
        items: Sequence[ContextItem],
        *,
        content: str,
        depth: int,
        kind: str,
        model: str,
        count: Any,
        now_ms: int | None = None,
    ) -> SummaryRow:
        """Replace the run ``items`` (contiguous, in order) by one new summary of ``content``,
        in one transaction: the summary row, its FTS row, its DAG edges and the context item.
        :class:`StorageError` if the items changed since they were read (another writer)."""
        if not items:
            raise UsageError("nothing to summarise")
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        with self.transaction() as conn:
            current = conn.execute(
                "SELECT ord, kind, ref FROM context_items WHERE conversation = ? "
                "AND ord BETWEEN ? AND ? ORDER BY ord",
                (conversation, items[0].ord, items[-1].ord),
            ).fetchall()
            if [tuple(r) for r in current] != [(i.ord, i.kind, i.ref) for i in items]:
                raise StorageError(
                    f"the context of conversation {conversation} changed while it was compacted"
                )
            if items[0].is_message:
                ids = [int(i.ref) for i in items]
                marks = ",".join("?" * len(ids))
                first, last, earliest, latest, covered, source = conn.execute(
                    f"SELECT min(seq), max(seq), min(created_ms), max(created_ms), count(*), "
                    f"sum(tokens) FROM messages WHERE id IN ({marks})",
                    ids,
                ).fetchone()
            else:
                refs = [i.ref for i in items]
                marks = ",".join("?" * len(refs))
                first, last, earliest, latest, covered, source = conn.execute(
                    f"SELECT min(first_seq), max(last_seq), min(earliest_ms), max(latest_ms), "
                    f"sum(messages), sum(source_tokens) FROM summaries WHERE id IN ({marks})",
                    refs,
                ).fetchone()
            sid = summary_id(conversation, depth, [i.ref for i in items], content)
            draft = SummaryRow(
                sid,
                conversation,
                depth,
                content,
                count(content),
                0,
                int(source or 0),
                int(first),
                int(last),
                int(earliest),
                int(latest),
                int(covered),
                kind,
                model,
                now,
            )
            item_tokens = count(render_summary(draft)) + 4
            cur = conn.execute(
                f"INSERT INTO summaries({_SUMMARY_COLUMNS}) VALUES ({','.join('?' * 15)})",
                (
                    sid,
                    conversation,
                    depth,
                    content,
                    draft.tokens,
                    item_tokens,
                    draft.source_tokens,
                    draft.first_seq,
                    draft.last_seq,
                    draft.earliest_ms,
                    draft.latest_ms,
                    draft.messages,
                    kind,
                    model,
                    now,
                ),
            )
            conn.execute(
                "INSERT INTO summaries_fts(rowid, body) VALUES (?, ?)",
                (cur.lastrowid, fts_document(content)),
            )
            if items[0].is_message:
                conn.executemany(
                    "INSERT INTO summary_messages(summary, message, ord) VALUES (?, ?, ?)",
                    [(sid, int(i.ref), n) for n, i in enumerate(items)],
                )
            else:
                conn.executemany(
                    "INSERT INTO summary_children(summary, child, ord) VALUES (?, ?, ?)",
                    [(sid, i.ref, n) for n, i in enumerate(items)],
                )
            conn.execute(
                "DELETE FROM context_items WHERE conversation = ? AND ord BETWEEN ? AND ?",
                (conversation, items[0].ord, items[-1].ord),
            )
            conn.execute(
                "INSERT INTO context_items(conversation, ord, kind, ref) VALUES (?, ?, 'summary', ?)",
                (conversation, items[0].ord, sid),
            )
            conn.execute(
                "UPDATE conversations SET updated_ms = max(updated_ms, ?) WHERE id = ?",
                (now, conversation),
            )
        return replace(draft, item_tokens=item_tokens)

    # -- search -----------------------------------------------------------------------------
    def grep(
        self,
        pattern: str,
        *,
        conversation: str | None,
        mode: str = "text",
        scope: str = "both",
        sort: str = "recency",
        limit: int = 20,
    ) -> tuple[list[GrepHit], str]:
        """Messages and/or summaries matching ``pattern``: full text (the index's words, all of
        them, else any of them ranked by BM25) or a Python regular expression. Returns the hits
        and how they matched (``all``, ``any``, ``regex``, ``regex-partial`` when the scan ran
        out of time, or ``none``)."""
        if mode == "regex":
            try:
                regex = re.compile(pattern)
            except re.error as exc:
                raise UsageError(f"pattern is not a valid regular expression: {exc}") from None
            hits, complete = self._grep_regex(regex, conversation, scope, sort, limit)
            return hits, "regex" if complete else "regex-partial"
        terms = fts_query_terms(pattern)
        if not terms:
            return [], "none"
        quoted = ['"' + t.replace('"', '""') + '"' for t in terms]
        for how, expr in (("all", " AND ".join(quoted)), ("any", " OR ".join(quoted))):
            hits = self._grep_fts(expr, conversation, scope, sort, limit)
            if hits or len(quoted) == 1:
                return hits, how if hits else "none"
        return [], "none"

    def _grep_fts(
        self, expr: str, conversation: str | None, scope: str, sort: str, limit: int
    ) -> list[GrepHit]:
        where_conv = "AND m.conversation = ?" if conversation else ""
        args: list[Any] = [expr, *([conversation] if conversation else [])]
        found: list[tuple[float, int, GrepHit]] = []
        with self._mutex:
            if scope in ("messages", "both"):
                # Newest stored first: FTS5 walks its rowids backwards and stops at the limit,
                # where sorting by time would score every match first.
                order = "rank" if sort == "relevance" else "messages_fts.rowid DESC"
                rows = self.conn.execute(
                    f"SELECT m.id, m.conversation, m.role, m.content, m.created_ms, m.seq, "
                    f"bm25(messages_fts) AS rank FROM messages_fts JOIN messages m "
                    f"ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? {where_conv} "
                    f"ORDER BY {order} LIMIT ?",
                    [*args, limit],
                ).fetchall()
                for mid, conv, role, content, created, seq, rank in rows:
                    hit = GrepHit("message", mid, conv, role, _snippet(content, None), created, seq)
                    found.append((rank, created, hit))
            if scope in ("summaries", "both"):
                where_s = where_conv.replace("m.", "s.")
                order = "rank" if sort == "relevance" else "summaries_fts.rowid DESC"
                rows = self.conn.execute(
                    f"SELECT s.id, s.conversation, s.content, s.latest_ms, s.first_seq, s.depth, "
                    f"bm25(summaries_fts) AS rank FROM summaries_fts JOIN summaries s "
                    f"ON s.rowid = summaries_fts.rowid WHERE summaries_fts MATCH ? {where_s} "
                    f"ORDER BY {order} LIMIT ?",
                    [*args, limit],
                ).fetchall()
                for sid, conv, content, latest, first, depth, rank in rows:
                    hit = GrepHit(
                        "summary", sid, conv, "", _snippet(content, None), latest, first, depth
                    )
                    found.append((rank, latest, hit))
        if sort == "relevance":
            found.sort(key=lambda f: (f[0], -f[1]))
        else:
            found.sort(key=lambda f: -f[1])
        return self._annotate([h for _, _, h in found[:limit]])

    def _grep_regex(
        self, regex: re.Pattern[str], conversation: str | None, scope: str, sort: str, limit: int
    ) -> tuple[list[GrepHit], bool]:
        """Scan newest stored first (by recency: only until ``limit`` matches of each kind);
        the hits, and whether the scan finished within :data:`REGEX_BUDGET_S`."""
        where = "WHERE conversation = ?" if conversation else ""
        args = [conversation] if conversation else []
        found: list[tuple[int, int, GrepHit]] = []
        deadline = time.monotonic() + REGEX_BUDGET_S
        complete = True
        with self._mutex:
            for kind in ("messages", "summaries"):
                if scope not in (kind, "both") or not complete:
                    continue
                if kind == "messages":
                    sql = (
                        "SELECT id, conversation, role, content, created_ms, seq, -1 FROM "
                        f"messages {where} ORDER BY id DESC"
                    )
                else:
                    sql = (
                        "SELECT id, conversation, '', content, latest_ms, first_seq, depth FROM "
                        f"summaries {where} ORDER BY rowid DESC"
                    )
                matched = 0
                for n, (ref, conv, role, content, when, seq, depth) in enumerate(
                    self.conn.execute(sql, args)
                ):
                    if n % 256 == 255 and time.monotonic() > deadline:
                        complete = False
                        break
                    match = regex.search(content)
                    if match is None:
                        continue
                    count = 1 if sort == "recency" else len(regex.findall(content))
                    hit = GrepHit(
                        kind[:-1], ref, conv, role, _snippet(content, match), when, seq, depth
                    )
                    found.append((count, when, hit))
                    matched += 1
                    if sort == "recency" and matched >= limit:
                        break
        if sort == "relevance":
            found.sort(key=lambda f: (-f[0], -f[1]))
        else:
            found.sort(key=lambda f: -f[1])
        return self._annotate([h for _, _, h in found[:limit]]), complete

    def _annotate(self, hits: list[GrepHit]) -> list[GrepHit]:
        """Each hit with the leaf covering it (a message) and whether it is in context."""
        out = []
        with self._mutex:
            for hit in hits:
                if hit.kind == "message":
                    leaf = self.covering_leaf(int(hit.id))
                    hit = GrepHit(**{**_fields(hit), "summary": leaf, "in_context": leaf is None})
                else:
                    shown = self.conn.execute(
                        "SELECT 1 FROM context_items WHERE conversation = ? AND kind = 'summary' "
                        "AND ref = ?",
                        (hit.conversation, hit.id),
                    ).fetchone()
                    hit = GrepHit(**{**_fields(hit), "in_context": shown is not None})
                out.append(hit)
        return out

    # -- consistency ------------------------------------------------------------------------
    def check(self, conversation: str) -> list[str]:
        """What is wrong with a conversation's store, in words (empty when consistent): every
        message is covered exactly once by the context (raw, or under one summary item), in
        order, and every summary's range matches its messages."""
        problems: list[str] = []
        items = self.items(conversation)
        seqs: list[int] = []
        with self._mutex:
            seq_of = dict(
                self.conn.execute(
                    "SELECT id, seq FROM messages WHERE conversation = ?", (conversation,)
                ).fetchall()
            )
        for item in items:
            if item.is_message:
                if int(item.ref) not in seq_of:
                    problems.append(f"context item {item.ord} names missing message {item.ref}")
                    continue
                seqs.append(seq_of[int(item.ref)])
            else:
                covered = self.covered_messages(item.ref)
                if not covered:
                    problems.append(f"summary {item.ref} covers no message")
                    continue
                got = [m.seq for m in covered]
                row = self.summary(item.ref)
                if got != list(range(row.first_seq, row.last_seq + 1)):
                    problems.append(
                        f"summary {item.ref} does not cover seq {row.first_seq}–{row.last_seq}"
                    )
                seqs.extend(got)
        if seqs != list(range(1, len(seq_of) + 1)):
            problems.append(
                f"the context covers {len(seqs)} messages out of order or with gaps "
                f"({len(seq_of)} stored)"
            )
        return problems


def _fields(hit: GrepHit) -> dict[str, Any]:
    return {name: getattr(hit, name) for name in GrepHit.__slots__}


def _snippet(text: str, match: re.Match[str] | None, width: int = 240) -> str:
    """Up to ``width`` characters of ``text`` around the match (the start without one)."""
    if len(text) <= width:
        return text
    if match is None:
        return text[:width].rstrip() + "…"
    start = max(0, match.start() - width // 3)
    piece = text[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
