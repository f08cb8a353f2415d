"""Weighted merge of vector and keyword candidates (spec §6.4)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Candidate", "merge", "normalise_weights"]


@dataclass(slots=True)
class Candidate:
    """A chunk found by either search, with whatever scores it has."""

    chunk_id: int
    vector_score: float = 0.0
    text_score: float = 0.0
    in_vector: bool = False
    in_keyword: bool = False
    score: float = 0.0


def normalise_weights(vector_weight: float, text_weight: float) -> tuple[float, float]:
    """Clamp each to [0, 1] and scale the pair to sum to 1; both zero falls back to 0.7 / 0.3."""
    v = min(1.0, max(0.0, vector_weight))
    t = min(1.0, max(0.0, text_weight))
    total = v + t
    if total <= 0:
        return 0.7, 0.3
    return v / total, t / total


def merge(
    vector_hits: Iterable[tuple[int, float]],
    keyword_hits: Iterable[tuple[int, float]],
    *,
    vector_weight: float,
    text_weight: float,
) -> list[Candidate]:
    """Union by chunk id; ``score = w_v · vector + w_t · text``; unsorted."""
    wv, wt = normalise_weights(vector_weight, text_weight)
    by_id: dict[int, Candidate] = {}
    for chunk_id, score in vector_hits:
        c = by_id.setdefault(chunk_id, Candidate(chunk_id))
        c.vector_score = max(c.vector_score, score) if c.in_vector else score
        c.in_vector = True
    for chunk_id, score in keyword_hits:
        c = by_id.setdefault(chunk_id, Candidate(chunk_id))
        c.text_score = max(c.text_score, score) if c.in_keyword else score
        c.in_keyword = True
    for c in by_id.values():
        c.score = wv * c.vector_score + wt * c.text_score
    return list(by_id.values())
