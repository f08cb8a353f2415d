"""Weighted merge of vector and keyword candidates (spec §6.4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["Candidate", "merge", "normalise_weights"]


@dataclass(slots=True)
class Candidate:
    """A chunk found by either search, with whatever scores it has.

    ``score`` ranks. ``floor_score`` is what whether a search answers is judged by: the same
    fusion with the chunk's own vector where its best line scored higher (see
    :func:`merge`'s ``own_vectors``). Every later adjustment goes through :meth:`scale`, so
    the two stay the same function of the chunk but for that one input."""

    chunk_id: int
    vector_score: float = 0.0
    text_score: float = 0.0
    in_vector: bool = False
    in_keyword: bool = False
    score: float = 0.0
    floor_score: float = 0.0

    def scale(self, factor: float) -> None:
        """Multiply both scores by ``factor`` (a decay, a demotion)."""
        self.score *= factor
        self.floor_score *= factor


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
    own_vectors: Mapping[int, float] | None = None,
) -> list[Candidate]:
    """Union by chunk id; ``score = w_v · vector + w_t · text``; unsorted.

    ``floor_score`` is the same sum with ``own_vectors[chunk_id]`` as the vector score where
    given (a chunk's own vector when ``vector_hits`` scored it by its best line), else
    ``score``."""
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
        own = own_vectors.get(c.chunk_id) if own_vectors is not None else None
        c.floor_score = c.score if own is None else wv * own + wt * c.text_score
    return list(by_id.values())
