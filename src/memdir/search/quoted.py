"""What a question writes between backticks, and the long options it writes outside them:
code, meant as written (`` `--check` ``, `` `nats://` ``, `` `relay-workers` ``, `` `main` ``,
``--dry-run``; :func:`memdir.text.literal_spans`).

FTS5 sees only the words of such a span: ``--check`` is the common word check, ``nats://`` is
nats, and `` `main` `` may even be bridged to 主要. So the chunks holding the span as written are
looked up (:func:`quoted_rows`) and, when memory holds it, the results that do not hold it
count less (:data:`memdir.search.engine.UNNAMED_CODE_FACTOR`, as for a code); a span no note
holds as written is named in ``not_in_memory``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memdir.index import ChunkRow, KeywordRow
from memdir.index.backend import IndexBackend
from memdir.text import fts_match, fts_query_terms, nfkc

__all__ = ["MAX_QUOTED", "QUOTED_PROBE", "holder", "quoted_rows", "quoted_text"]

QUOTED_PROBE = 500
"""How many chunks holding the words of a quoted span are read, unranked, at most, to find those
holding the span as written."""

MAX_QUOTED = 8
"""How many of a question's quoted spans are looked up, at most (the first): each costs a read
of up to :data:`QUOTED_PROBE` chunks."""


def quoted_text(chunk: ChunkRow) -> str:
    """The text a quoted span is looked for in: the chunk's heading path and lines, NFKC-
    normalised with ASCII hyphens (:func:`memdir.text.nfkc`) and case-folded."""
    text = f"{chunk.context}\n{chunk.text}" if chunk.context else chunk.text
    return text.casefold() if text.isascii() else nfkc(text).casefold()


def holder(span: str) -> Callable[[str], bool]:
    """Whether a :func:`quoted_text` holds ``span`` as written (case aside), not as part of a
    longer word: `` `main` `` is not held by "maintenance", `` `v1.2` `` not by "v1.23"."""
    want = nfkc(span).casefold()
    before = r"(?<![\w.])" if want[:1].isalnum() or want[:1] == "_" else ""
    after = r"(?![\w]|\.\w)" if want[-1:].isalnum() or want[-1:] == "_" else ""
    pattern = re.compile(before + re.escape(want) + after)
    return lambda text: pattern.search(text) is not None


def quoted_rows(
    index: IndexBackend,
    spans: Sequence[str],
    sources: Sequence[str] | None,
    path_filter: Callable[[str, str], bool] | None = None,
    limit: int = QUOTED_PROBE,
) -> tuple[list[KeywordRow], list[str]]:
    """Up to ``limit`` chunks holding one of ``spans`` as written (each span an equal share),
    among up to :data:`QUOTED_PROBE` holding the phrase of its words (read unranked), and the
    spans some such chunk holds; only the first :data:`MAX_QUOTED` spans, and only chunks
    that pass ``path_filter`` (``(path, source)`` → whether the caller may see it): a note
    the caller may not see changes nothing. A span held by few chunks (a flag, a service's
    name) gives them all; of one held by many (`` `main` ``), any of them are as good as
    others: the search scores every chunk given, so the list is kept as short as its
    candidate pool."""
    found: dict[int, KeywordRow] = {}
    held: list[str] = []
    looked_up = spans[:MAX_QUOTED]
    each = max(1, limit // max(1, len(looked_up)))  # each span its share of the list
    for span in looked_up:
        words = [w for term in fts_query_terms(span) for w in term.split()]
        match = fts_match([" ".join(words)]) if words else None
        if match is None:
            continue
        holds = holder(span)
        rows = index.keyword(
            match, QUOTED_PROBE, sources=list(sources) if sources else None, ranked=False
        )
        holding = 0
        for row in rows:
            if path_filter is not None and not path_filter(row.chunk.path, row.chunk.source):
                continue
            if holds(quoted_text(row.chunk)):
                found.setdefault(row.chunk.id, row)
                holding += 1
                if holding == each:
                    break
        if holding:
            held.append(span)
    return list(found.values()), held
