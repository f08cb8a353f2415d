"""A name written in one case style and asked in another: ``maxReplicas``, ``max_replicas``,
``max-replicas`` and "max replicas" are one name.

FTS5 holds ``maxReplicas`` as one token (``maxreplicas``) and ``max_replicas`` as the phrase
``max replicas``, so each spelling finds only the notes written the same way. This module finds
the other spellings a query's words may stand for; search keeps those memory holds
(:func:`memdir.search.keyword.query_profile`).
"""

from __future__ import annotations

import re

__all__ = ["MAX_RUN", "camel_words", "word_runs"]

_CAMEL = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?![A-Za-z0-9_])")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")
_RUN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_RUN_GAP = re.compile(r" ?- ?| ")
MAX_RUN = 4
"""The most words typed apart that are read as one name (``max ack pending``)."""


def camel_words(text: str) -> list[tuple[str, str]]:
    """``(word, phrase)`` for each camelCase or PascalCase word of ``text`` (a lower-case letter
    straight before a capital): the word in lower case, as FTS5 holds it, and the phrase of its
    parts (``maxReplicas`` → ``("maxreplicas", "max replicas")``, ``XMLHttpRequest`` →
    ``("xmlhttprequest", "xml http request")``, ``eventsRawV2`` → ``events raw v2``)."""
    found = []
    for m in _CAMEL.finditer(text):
        word = m[0]
        if not re.search(r"[a-z][A-Z]", word):
            continue
        parts = _CAMEL_PART.findall(word)
        if len(parts) >= 2 and "".join(parts) == word:
            found.append((word.lower(), " ".join(p.lower() for p in parts)))
    return list(dict.fromkeys(found))


def word_runs(text: str) -> list[list[str]]:
    """Each run of two to :data:`MAX_RUN` Latin words in a row of ``text``, in lower case, with
    only a space or a hyphen between them (``max replicas``, ``max-ack-pending``): words that
    may be one name written joined (``maxReplicas``). Each word two characters or more, starting
    with a letter (not ``PG 16``: a word and a number are a code typed apart)."""
    words = [(m.start(), m.end(), m[0].lower()) for m in _RUN_WORD.finditer(text)]
    runs: list[list[str]] = []
    start = 0
    for i in range(1, len(words) + 1):
        if i == len(words) or not _RUN_GAP.fullmatch(text[words[i - 1][1] : words[i][0]]):
            seq = [w for _, _, w in words[start:i]]
            for size in range(2, MAX_RUN + 1):
                runs += [seq[j : j + size] for j in range(len(seq) - size + 1)]
            start = i
    return runs
