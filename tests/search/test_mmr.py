"""MMR conformance (spec §7, cases 17–23)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memdir.search import SearchSettings
from memdir.search.hybrid import Candidate
from memdir.search.mmr import mmr_order, mmr_rerank, mmr_score
from memdir.text.similarity import jaccard, mmr_tokens


@dataclass
class _Row:
    text: str


def _rerank(items: list[tuple[str, float]], lam: float) -> list[int]:
    cands = [Candidate(chunk_id=i + 1, score=s) for i, (_, s) in enumerate(items)]
    rows = {i + 1: _Row(t) for i, (t, _) in enumerate(items)}
    return [c.chunk_id for c in mmr_rerank(cands, rows, lam)]


def test_case_17_mmr_score() -> None:
    assert mmr_score(0.8, 0.5, 1) == pytest.approx(0.8)
    assert mmr_score(0.8, 0.5, 0) == pytest.approx(-0.5)
    assert mmr_score(0.8, 0.6, 0.5) == pytest.approx(0.1)
    assert mmr_score(1.0, 0.5, 0.7) == pytest.approx(0.55)


def test_case_18_empty_and_single() -> None:
    assert mmr_order([], lambda i, j: 0.0, 0.7) == []
    assert mmr_order([0.4], lambda i, j: 0.0, 0.7) == [0]


def test_case_19_lambda_zero_picks_diverse_second() -> None:
    items = [
        ("apple banana cherry", 1.0),
        ("apple banana date", 0.9),
        ("elderberry fig grape", 0.8),
    ]
    assert _rerank(items, 0.0)[:2] == [1, 3]
    assert _rerank(items, -0.5)[:2] == [1, 3]  # clamped to 0
    assert _rerank(items, 1.5) == [1, 2, 3]  # clamped to 1: plain sort


def test_case_20_machine_learning_items() -> None:
    items = [
        ("machine learning neural networks", 1.0),
        ("machine learning deep learning", 0.95),
        ("database systems sql queries", 0.9),
        ("machine learning algorithms", 0.85),
    ]
    assert _rerank(items, 0.5)[:2] == [1, 3]


def test_case_21_duplicates_and_edge_scores() -> None:
    assert _rerank(
        [("identical content", 1.0), ("identical content", 0.9), ("different stuff", 0.8)], 0.5
    )[:2] == [1, 3]
    assert sorted(_rerank([("same", 1.0), ("same", 0.9), ("same", 0.8)], 0.5)) == [1, 2, 3]
    assert sorted(_rerank([("a b", 0.5), ("c d", 0.5), ("e f", 0.5)], 0.5)) == [1, 2, 3]
    assert _rerank([("x y", -1.0), ("z w", -0.5)], 0.7)[0] == 2


def test_case_22_function_names_diversified() -> None:
    items = [
        ("function add numbers together", 1.0),
        ("function add values together", 0.95),
        ("database connection pool", 0.9),
    ]
    assert _rerank(items, 0.5)[:2] == [1, 3]


def test_case_22_scores_unchanged() -> None:
    cands = [Candidate(chunk_id=1, score=0.9), Candidate(chunk_id=2, score=0.8)]
    out = mmr_rerank(cands, {1: _Row("a"), 2: _Row("b")}, 0.5)
    assert {c.chunk_id: c.score for c in out} == {1: 0.9, 2: 0.8}


def test_case_23_defaults() -> None:
    settings = SearchSettings()
    assert settings.mmr_enabled is False
    assert settings.mmr_lambda == 0.7


def test_cjk_similarity_is_partial() -> None:
    a, b = mmr_tokens("今天我们讨论了数据库方案"), mmr_tokens("明天继续讨论数据库迁移")
    assert 0 < jaccard(a, b) < 1
