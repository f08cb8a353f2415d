"""Search: keyword (FTS5 BM25), vector, hybrid merge, MMR and temporal decay."""

from memdir.search.engine import MAX_QUERY_CHARS, MODES, SearchSettings, VectorSearcher, run_search
from memdir.search.keyword import bm25_rank_to_score, keyword_search
from memdir.search.results import SearchResponse, SearchResult, citation_for, make_snippet

__all__ = [
    "MAX_QUERY_CHARS",
    "MODES",
    "SearchResponse",
    "SearchResult",
    "SearchSettings",
    "VectorSearcher",
    "bm25_rank_to_score",
    "citation_for",
    "keyword_search",
    "make_snippet",
    "run_search",
]
