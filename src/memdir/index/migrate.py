"""Copy an index from one backend to another (``memdir migrate``), embeddings included.

Every file row, chunk, vector (and line vectors), the embedding cache, the recorded shape, the embedder the vectors
came from and the problems are copied as they are, so nothing is chunked or embedded again: the
target answers the same searches at once. The copy is one rebuild of the target
(:meth:`~memdir.index.backend.IndexBackend.new_build` … ``install_build``): readers of the
target see the old rows until it commits, and an error leaves them as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memdir.chunking import Chunk
from memdir.index.backend import LINES_COMPLETE, IndexBackend
from memdir.index.store import Index

__all__ = ["MigrateReport", "copy_index"]


@dataclass(slots=True)
class MigrateReport:
    files: int = 0
    chunks: int = 0
    vectors: int = 0
    cache_entries: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "files": self.files,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "cache_entries": self.cache_entries,
        }


def copy_index(
    source: Index,
    target: IndexBackend,
    *,
    progress: Callable[[str, int, int], None] | None = None,
    batch: int = 200,
) -> MigrateReport:
    """Copy the SQLite index ``source`` into ``target``; call with both writer locks held."""
    report = MigrateReport()
    show = progress or (lambda phase, done, total: None)
    state = source.vector_state()
    if state.provider_key is not None and target.vector_state().provider_key != state.provider_key:
        target.reset_vectors(
            provider_key=state.provider_key, model=state.model or "", dims=state.dims
        )
    cache = source.read("SELECT provider_key, hash, dims, embedding FROM embedding_cache")
    for start in range(0, len(cache), 1000):
        part = cache[start : start + 1000]
        with target.transaction() as txn:
            for key in {r[0] for r in part}:
                target.cache_put(txn, key, [(h, d, bytes(b)) for k, h, d, b in part if k == key])
        report.cache_entries += len(part)
        show("cache", report.cache_entries, len(cache))
    files = source.read("SELECT path, source, hash, size, mtime_ns FROM files ORDER BY path")
    build = target.new_build()
    try:
        with target.build_transaction(build) as txn:
            for n, (path, src, file_hash, size, mtime_ns) in enumerate(files, start=1):
                rows = source.read(
                    "SELECT c.id, c.start_line, c.end_line, c.text, c.hash, c.context, c.date,"
                    " v.embedding, l.embedding FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id"
                    " LEFT JOIN line_vectors l ON l.chunk_id = c.id"
                    " WHERE c.path = ? ORDER BY c.id",
                    (path,),
                )
                chunks = [Chunk(r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]
                ids = target.replace_file(
                    txn,
                    path=path,
                    source=src,
                    file_hash=file_hash,
                    size=size,
                    mtime_ns=mtime_ns,
                    chunks=chunks,
                )
                vectors = [(new, bytes(r[7])) for new, r in zip(ids, rows, strict=True) if r[7]]
                if vectors:
                    report.vectors += target.write_vectors(txn, vectors)
                lines = [
                    (new, bytes(r[8])) for new, r in zip(ids, rows, strict=True) if r[8] is not None
                ]
                if lines:
                    target.write_line_vectors(txn, lines)
                report.files += 1
                report.chunks += len(chunks)
                if n % batch == 0 or n == len(files):
                    show("copy", n, len(files))
            shape = source.shape()
            if shape is not None:
                shape = {k: v for k, v in shape.items() if k != "schema"}
                target.write_shape(shape, txn)
            target.set_problems(txn, source.problems())
            target.set_meta(LINES_COMPLETE, "0", txn)  # the next fill looks for chunks lacking them
            if state.dims:
                target.set_meta("vectors.dims", str(state.dims), txn)
    except BaseException:
        target.discard_build(build)
        raise
    target.install_build(build)
    return report
