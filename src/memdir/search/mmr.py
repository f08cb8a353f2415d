"""Maximal marginal relevance (spec §7): re-order candidates so near-duplicates do not crowd out
other relevant chunks. Similarity is the Jaccard similarity of CJK-aware token sets (so Chinese
text is compared by characters and bigrams, not as one token per run)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memdir.search.hybrid import Candidate
from memdir.text.similarity import jaccard, mmr_tokens

__all__ = ["mmr_order", "mmr_rerank", "mmr_score"]


def mmr_score(relevance: float, max_similarity: float, lam: float) -> float:
    """``λ·relevance − (1−λ)·max similarity to what is already selected``."""
    return lam * relevance - (1 - lam) * max_similarity


def mmr_order(
    scores: Sequence[float], similarity: Callable[[int, int], float], lam: float
) -> list[int]:
    """Greedy MMR over items ``0..n-1``; returns the new order as indexes.

    Relevance is min-max normalised (all equal → 1). λ is clamped to [0, 1]; λ = 1 is a plain
    sort by score. Ties go to the higher original score.
    """
    n = len(scores)
    lam = min(1.0, max(0.0, lam))
    by_score = sorted(range(n), key=lambda i: -scores[i])
    if n <= 1 or lam == 1.0:
        return by_score
    lo, hi = min(scores), max(scores)
    rel = [1.0 if hi == lo else (s - lo) / (hi - lo) for s in scores]
    selected: list[int] = []
    max_sim = [0.0] * n
    remaining = set(range(n))
    while remaining:
        best = max(remaining, key=lambda i: (mmr_score(rel[i], max_sim[i], lam), scores[i], -i))
        selected.append(best)
        remaining.discard(best)
        for i in remaining:
            max_sim[i] = max(max_sim[i], similarity(i, best))
    return selected


def mmr_rerank(candidates: list[Candidate], rows: dict[int, Any], lam: float) -> list[Candidate]:
    """Re-order hybrid candidates by MMR over their chunk text; scores are left unchanged."""
    tokens = [
        mmr_tokens(rows[c.chunk_id].text) if c.chunk_id in rows else frozenset() for c in candidates
    ]
    order = mmr_order(
        [c.score for c in candidates], lambda i, j: jaccard(tokens[i], tokens[j]), lam
    )
    return [candidates[i] for i in order]
