"""Latest state first: for a question about the present, the newest statement of a fact wins.

Memory keeps every version of a fact: the August entry that chose one broker and the October
one that finished the move to another, a ``MEMORY.md`` line and the ``Appended`` line that
supersedes it. Both match "which broker does relay use now?" about equally well, and the older
one often better (it says more). When a question asks about the present (:func:`asks_about_now`),
the results that match about as well as the best one are put in date order, newest first, with
the date of each chunk as the index records it (the entry's dated marker, heading or file name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["CLOSE_MATCH", "asks_about_now", "latest_first"]

_NOW = re.compile(
    r"\b(?:now|currently|current|these\s+days|nowadays|at\s+the\s+moment|at\s+present|"
    r"right\s+now|as\s+of\s+today|today|latest|still|anymore|any\s+more)\b"
    r"|现在|目前|最近|如今|当前|眼下|现阶段|这阵子|近来|最新|还在|仍然|"
    r"今は|今の|今も|現在|最近|最新|いま|"
    r"지금|현재|요즘|최근",
    re.IGNORECASE,
)

CLOSE_MATCH = 0.8
"""A result is a rival of the best one when its score is at least this share of the best's."""

MAX_RIVALS = 5
"""How many of the first results may be put in date order."""

T = TypeVar("T")


def asks_about_now(query: str) -> bool:
    """Whether ``query`` asks about the present state of something ("which X do we use now",
    "目前用什么", "今は何を使っていますか")."""
    return _NOW.search(query) is not None


def latest_first(
    ranked: Sequence[T],
    score: Callable[[T], float],
    date: Callable[[T], str | None],
    *,
    close: float = CLOSE_MATCH,
    rivals: int = MAX_RIVALS,
) -> list[T]:
    """``ranked`` (best first) with the close rivals of the best result in date order.

    The rivals are the first ``rivals`` results scoring at least ``close`` × the best score;
    among them dated ones come newest first, ahead of undated ones (a curated note with no
    date says nothing about when it was true), each group keeping its order otherwise.
    """
    items = list(ranked)
    if len(items) < 2:
        return items
    best = score(items[0])
    if best <= 0:
        return items
    n = 0
    while n < min(rivals, len(items)) and score(items[n]) >= close * best:
        n += 1
    if n < 2:
        return items
    head = items[:n]
    dated = [(date(x) or "", i, x) for i, x in enumerate(head)]
    dated.sort(key=lambda t: (t[0] == "", _neg(t[0]), t[1]))
    return [x for _, _, x in dated] + items[n:]


def _neg(day: str) -> tuple[int, ...]:
    """A sort key that puts later ISO dates first."""
    return tuple(-ord(c) for c in day)
