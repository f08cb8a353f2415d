"""Search results, in the one shape the API, the CLI's ``--json`` and the agent tools all return."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["SearchResponse", "SearchResult", "citation_for", "make_snippet"]


def citation_for(path: str, start_line: int, end_line: int) -> str:
    """``path#L5`` for one line, ``path#L5-L7`` for a range."""
    return (
        f"{path}#L{start_line}" if start_line == end_line else f"{path}#L{start_line}-L{end_line}"
    )


def make_snippet(text: str, limit: int) -> str:
    """At most ``limit`` characters of a chunk, never cutting a surrogate pair."""
    return text if len(text) <= limit else text[:limit]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit: a chunk of a file, lines ``start_line``..``end_line`` (1-based, inclusive)."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str
    citation: str
    vector_score: float | None = None
    text_score: float | None = None
    heading: str = ""
    """The chunk's heading path (``2026-08-04 › 14:05 - relay``); empty for window chunks."""
    date: str | None = None
    """``YYYY-MM-DD``: the day the chunk speaks of, when one is known."""

    def to_dict(self) -> dict[str, object]:
        """The documented result shape: spec §6.5's seven keys (``path`` … ``citation``) plus
        ``heading`` and ``date``, exactly these nine keys, in every mode.

        ``vector_score`` and ``text_score`` stay attributes; they are left out so the JSON
        shape does not change with the search mode.
        """
        return {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "score": round(self.score, 6),
            "snippet": self.snippet,
            "source": self.source,
            "citation": self.citation,
            "heading": self.heading,
            "date": self.date,
        }


@dataclass(frozen=True, slots=True)
class SearchResponse:
    """Results plus how they were found. Iterates, indexes and ``len()``s like its result list."""

    query: str
    results: tuple[SearchResult, ...]
    mode: str
    requested_mode: str
    warnings: tuple[str, ...] = field(default_factory=tuple)
    elapsed_ms: float = 0.0
    not_in_memory: tuple[str, ...] = field(default_factory=tuple)
    """Words of the query that no note holds, not even in the other language (``PayPal``,
    ``OPS-9999``), and spans it quotes that no note holds as written (``--verify``), as the
    query writes them: with no results, a sign that memory knows nothing of them; with
    results, what they do not say. Behind a path filter or ``sources`` only the notes that
    pass count."""
    best_score: float = 0.0
    """The score whether to answer was judged by: the best candidate's, counting each chunk's
    own vector and not its best line's (``embedding.line_vectors``), after every factor. The
    search answers when it reaches ``search.min_score``; run with ``min_score`` 0 to see how
    far a question falls short of the floor, or to choose a floor for a memory."""
    floor_share: float = 1.0
    """The share of ``search.min_score`` that :attr:`best_score` had to reach: less than 1 in
    keyword search when memory holds every word of the question
    (:data:`memdir.search.engine.HELD_FLOOR_SHARE`), where a question of many words scores
    low however much memory knows of it."""

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i: int) -> SearchResult:
        return self.results[i]

    def to_dict(self) -> dict[str, object]:
        return {
            "query": self.query,
            "mode": self.mode,
            "requested_mode": self.requested_mode,
            "warnings": list(self.warnings),
            "elapsed_ms": round(self.elapsed_ms, 3),
            "not_in_memory": list(self.not_in_memory),
            "best_score": round(self.best_score, 6),
            "floor_share": self.floor_share,
            "results": [r.to_dict() for r in self.results],
        }
