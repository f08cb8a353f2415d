"""The SQLite index: schema, incremental sync, atomic rebuild and the file watcher."""

from memdir.index.lock import WriterLock
from memdir.index.store import ChunkRow, FileRow, Index, KeywordRow, VectorState
from memdir.index.sync import (
    Chunking,
    Progress,
    SessionDelta,
    SyncReport,
    index_shape,
    sync_index,
)

__all__ = [
    "ChunkRow",
    "Chunking",
    "FileRow",
    "Index",
    "KeywordRow",
    "Progress",
    "SessionDelta",
    "SyncReport",
    "VectorState",
    "WriterLock",
    "index_shape",
    "sync_index",
]
