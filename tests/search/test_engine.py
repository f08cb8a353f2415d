"""The search pipeline runs the vector half of a hybrid search beside the keyword half."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memdir.chunking import Chunk
from memdir.errors import EmbeddingError
from memdir.index import Index
from memdir.search import engine
from memdir.search.engine import SearchSettings, run_search


def _index(tmp_path: Path) -> tuple[Index, dict[str, int]]:
    index = Index.open(tmp_path / "index.sqlite")
    ids = {}
    for name, text in [("a.md", "the heron nests by the river"), ("b.md", "tea with lemon")]:
        with index.transaction() as conn:
            (ids[name],) = index.replace_file(
                conn,
                path=name,
                source="memory",
                file_hash=name,
                size=1,
                mtime_ns=1,
                chunks=[Chunk(1, 1, text, name)],
            )
    return index, ids


class _Waiting:
    """Answers only once keyword search has started, which a sequential pipeline never allows."""

    def __init__(self, keyword_started: threading.Event, hits: list[tuple[int, float]]) -> None:
        self.keyword_started = keyword_started
        self.hits = hits
        self.thread: threading.Thread | None = None
        self.overlapped = False

    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        self.thread = threading.current_thread()
        self.overlapped = self.keyword_started.wait(timeout=10)
        return self.hits


def test_hybrid_runs_vector_search_while_keyword_search_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index, ids = _index(tmp_path)
    started = threading.Event()
    real = engine.keyword_search

    def keyword_search(*args: object, **kwargs: object) -> object:
        started.set()
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "keyword_search", keyword_search)
    vectors = _Waiting(started, [(ids["b.md"], 0.9)])
    response = run_search(
        index, "heron", SearchSettings(min_score=0.0), workspace=tmp_path, vectors=vectors
    )
    assert vectors.overlapped
    assert vectors.thread is not threading.current_thread()
    assert response.mode == "hybrid"
    assert {r.path for r in response.results} == {"a.md", "b.md"}  # both halves merged
    index.close()


class _Failing:
    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        raise EmbeddingError("endpoint said 503")


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_a_failing_vector_half_degrades_to_keyword(tmp_path: Path, mode: str) -> None:
    index, _ = _index(tmp_path)
    response = run_search(
        index,
        "heron",
        SearchSettings(mode=mode, min_score=0.0),
        workspace=tmp_path,
        vectors=_Failing(),
    )
    assert response.mode == "keyword"
    assert [r.path for r in response.results] == ["a.md"]
    assert any("503" in w for w in response.warnings)
    index.close()
