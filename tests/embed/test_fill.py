"""`fill_vectors` beside other writers: the writer lock is free while a batch is embedded, one
fill runs per index, and its progress is recorded with every batch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from memdir import Memory
from memdir.embed.fill import fill_vectors
from memdir.index import Index
from memdir.index.lock import WriterLock

WriteFile = Callable[..., Path]


class _Probe:
    """A 2-dim embedder that, on every call, checks what another process could do meanwhile."""

    provider = "test"
    model = "probe-v1"
    max_input_bytes = 1000

    def __init__(self, index: Index) -> None:
        self.index = index
        self.writer_free: list[bool] = []
        self.records: list[dict] = []

    def identity(self) -> dict[str, str]:
        return {"provider": self.provider, "model": self.model}

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        other = WriterLock(self.index.lock.path)  # its own descriptor, like another process
        free = other.acquire(timeout=0)
        if free:
            other.release()
        self.writer_free.append(free)
        self.records.append(dict(self.index.fill_record() or {}))
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.array([float(len(text)), 1.0], dtype=np.float32)


def _index_of(
    tmp_path: Path, write: WriteFile, notes: int, text: str = "note number {i} about item{i}\n"
) -> Index:
    ws = tmp_path / "ws"
    for i in range(notes):
        write(ws, f"memory/n{i:02d}.md", text.format(i=i))
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        path = mem.index.path
    return Index.open(path)


def test_the_writer_lock_is_free_while_a_batch_is_embedded(
    tmp_path: Path, write: WriteFile
) -> None:
    index = _index_of(tmp_path, write, 25)
    try:
        probe = _Probe(index)
        report = fill_vectors(index, probe, batch_size=10)  # type: ignore[arg-type]
        assert report.error is None and report.embedded == 25
        assert probe.writer_free == [True, True, True]  # was held for the whole fill
        # Each batch found the progress of the ones before it recorded.
        assert [(r["running"], r["done"], r["total"]) for r in probe.records] == [
            (True, 0, 25),
            (True, 10, 25),
            (True, 20, 25),
        ]
        final = index.fill_record()
        assert final is not None
        assert (final["running"], final["done"], final["total"]) == (False, 25, 25)
        assert index.count_missing_vectors() == 0
    finally:
        index.close()


def test_one_fill_at_a_time_and_a_second_one_does_not_wait_if_told(
    tmp_path: Path, write: WriteFile
) -> None:
    index = _index_of(tmp_path, write, 5)
    other = WriterLock(index.fill_lock.path)  # another process's fill
    assert other.acquire(timeout=0)
    try:
        report = fill_vectors(index, _Probe(index), lock_timeout=0)  # type: ignore[arg-type]
        assert report.error == "another process is embedding into this index"
        assert report.embedded == 0 and report.remaining == 5
    finally:
        other.release()
        index.close()


class _Recorder:
    """A 2-dim embedder that records what it is asked to embed."""

    provider = "test"
    model = "recorder-v1"
    max_input_bytes = 1000

    def __init__(self) -> None:
        self.texts: list[str] = []

    def identity(self) -> dict[str, str]:
        return {"provider": self.provider, "model": self.model}

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.array([float(len(text)), 1.0], dtype=np.float32)


def test_a_chunk_is_embedded_with_its_heading_path_and_cached_by_both(
    tmp_path: Path, write: WriteFile
) -> None:
    note = write(tmp_path, "memory/relay.md", "# Relay\n\n## Broker\nNATS.\n")
    overrides = {"embedding.provider": "none"}
    with Memory(tmp_path, overrides=overrides) as mem:
        mem.sync()
        recorder = _Recorder()
        assert fill_vectors(mem.index, recorder).embedded == 1  # type: ignore[arg-type]
        assert recorder.texts == ["Relay\n## Broker\nNATS."]
        # Same text under another title: a new heading path, so embedded again.
        note.write_text("# Gateway\n\n## Broker\nNATS.\n", encoding="utf-8")
        mem.sync()
        report = fill_vectors(mem.index, recorder)  # type: ignore[arg-type]
        assert (report.embedded, report.from_cache) == (1, 0)
        assert recorder.texts[1:] == ["Gateway\n## Broker\nNATS."]
        # Back to the first title: that context + text is in the cache.
        note.write_text("# Relay\n\n## Broker\nNATS.\n", encoding="utf-8")
        mem.sync()
        report = fill_vectors(mem.index, recorder)  # type: ignore[arg-type]
        assert (report.embedded, report.from_cache) == (0, 1)


def test_an_index_written_before_line_vectors_gets_them(tmp_path: Path, write: WriteFile) -> None:
    """An index from before line vectors has no table for them: it is made when the index is
    opened, or, when that cannot be done then (another writer, a read-only moment), by the
    first fill that writes some; meanwhile searches read none and answer as before."""
    import sqlite3

    ws = tmp_path / "ws"
    write(ws, "memory/day.md", "# Day\n\n- tea with the team at ten\n- lunch by the river\n")
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        path = mem.index.path
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE line_vectors")
    conn.close()
    index = Index.open(path)
    assert index._has_line_vectors()  # made on open
    index.conn.execute("DROP TABLE line_vectors")  # as if it could not be made then
    assert index.line_vectors([1, 2, 3]) == {}
    report = fill_vectors(index, _Probe(index), lines=True)
    assert report.error is None and report.remaining == 0
    ids = [cid for (cid,) in index.read("SELECT id FROM chunks")]
    blobs = index.line_vectors(ids)
    assert len(blobs) == len(ids) == 1
    assert len(next(iter(blobs.values()))) == 2 * 2 * 4  # two items (not "# Day"), 2 floats each
    index.close()


class _Counting:
    """``index`` with a count of the scans a fill makes for chunks lacking vectors or lines."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.asked: list[str] = []

    def __getattr__(self, name: str) -> object:
        found = getattr(self.index, name)
        if name in ("chunks_missing_vectors", "chunks_missing_line_vectors"):

            def counted(limit: int) -> list[tuple[int, str, str]]:
                self.asked.append(name)
                return found(limit)

            return counted
        return found


def test_a_fill_scans_for_chunks_lacking_line_vectors_until_none_do(
    tmp_path: Path, write: WriteFile
) -> None:
    """Looking for chunks that lack line vectors is a scan of the index (0.1-0.2 s at 100k
    chunks), which every fill made at its end, a search embedding one edited note included.
    Once a line pass leaves none, the index says so (``LINES_COMPLETE``) and fills stop
    looking; a fill without line vectors unsets it, and the next one with them looks again.
    Nor does a fill look for more chunks lacking their own vector than it counted (a look
    that finds fewer than it asks for scans the whole index): the newest, which a sync just
    wrote, are found at once."""
    from memdir.index.backend import LINES_COMPLETE

    index = _index_of(tmp_path, write, 5, "- tea number {i} at ten\n- lunch number {i} by noon\n")
    counting = _Counting(index)
    plain = fill_vectors(counting, _Probe(index), batch_size=4)  # type: ignore[arg-type]
    assert plain.embedded == 5 and index.get_meta(LINES_COMPLETE) == "0"
    # 4, then the 1 left of the 5 counted; no third look
    assert counting.asked == ["chunks_missing_vectors"] * 2
    assert index.count_missing_line_vectors() == 5

    counting.asked.clear()
    steps: list[tuple[int, int]] = []
    upgrade = fill_vectors(
        counting,  # type: ignore[arg-type]
        _Probe(index),
        batch_size=4,
        lines=True,
        progress=lambda _, done, total: steps.append((done, total)),
    )
    assert upgrade.error is None and upgrade.embedded == 0  # the chunks' own were there
    assert counting.asked == ["chunks_missing_line_vectors"] * 2  # none lacked a vector
    assert steps == [(0, 5), (4, 5), (5, 5)]  # the line pass is the fill's work
    assert index.count_missing_line_vectors() == 0
    assert index.get_meta(LINES_COMPLETE) == "1"

    counting.asked.clear()
    write(tmp_path / "ws", "memory/new.md", "- a new note at one\n- and its second line\n")
    with Memory(tmp_path / "ws", overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
    again = fill_vectors(counting, _Probe(index), batch_size=4, lines=True)  # type: ignore[arg-type]
    assert again.embedded == 1 and index.count_missing_line_vectors() == 0
    assert counting.asked == ["chunks_missing_vectors"]  # its lines came with it
    assert index.get_meta(LINES_COMPLETE) == "1"
    index.close()


class _Meanwhile(_Probe):
    """A :class:`_Probe` that, while its first batch is embedded, lets another writer add a
    note, as a sync in another process would."""

    def __init__(self, index: Index, ws: Path, write: WriteFile) -> None:
        super().__init__(index)
        self.ws, self.write = ws, write

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not self.records:
            self.write(self.ws, "memory/later.md", "written while the fill ran\n")
            with Memory(self.ws, overrides={"embedding.provider": "none"}) as mem:
                mem.sync()
        return super().embed_documents(texts)


def test_a_fill_embeds_the_chunks_a_sync_wrote_while_it_ran(
    tmp_path: Path, write: WriteFile
) -> None:
    """A fill asks for no more chunks lacking a vector than it counted, newest first; once
    it has embedded those, it counts again, and embeds what a sync wrote meanwhile."""
    index = _index_of(tmp_path, write, 3)
    probe = _Meanwhile(index, tmp_path / "ws", write)
    report = fill_vectors(index, probe, batch_size=2)  # type: ignore[arg-type]
    assert report.error is None and report.embedded == 4 and report.remaining == 0
    assert index.count_missing_vectors() == 0
    (later,) = index.read("SELECT c.id FROM chunks c WHERE c.path = 'memory/later.md'")
    assert index.read("SELECT count(*) FROM vectors WHERE chunk_id = ?", later)[0][0] == 1
    index.close()
