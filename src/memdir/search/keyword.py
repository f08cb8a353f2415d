"""Keyword search: FTS5 BM25 over the tokenised chunk text."""

from __future__ import annotations

import math

from memdir.index import Index, KeywordRow
from memdir.text import fts_query

__all__ = ["bm25_rank_to_score", "keyword_search"]


def bm25_rank_to_score(rank: float) -> float:
    """Map FTS5's bm25 rank (negative; lower is better) to a score in (0, 1], higher is better.

    ``r / (1 + r)`` for ``r = -rank``, as OpenClaw does (spec §6.3): monotonic in relevance,
    0.5 at ``r = 1``, about 0.99 at ``r = 100``. A non-finite rank scores 0.001.
    """
    if not math.isfinite(rank):
        return 1 / 1000
    if rank < 0:
        r = -rank
        return r / (1 + r)
    return 1 / (1 + rank)


def keyword_search(
    index: Index,
    query: str,
    limit: int,
    *,
    sources: list[str] | None = None,
    stopwords: frozenset[str] = frozenset(),
) -> list[tuple[KeywordRow, float]]:
    """Up to ``limit`` chunks matching any query term, best first, with their 0–1 scores."""
    match = fts_query(query, stopwords=stopwords)
    if match is None:
        return []
    return [
        (row, bm25_rank_to_score(row.rank)) for row in index.keyword(match, limit, sources=sources)
    ]
