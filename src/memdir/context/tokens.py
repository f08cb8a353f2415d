"""Token accounting for working memory: ``tiktoken`` when it is installed and its encoding
loads, otherwise memdir's own estimate (about 4 characters, or one CJK character, a token: the
chunker's measure, :func:`memdir.text.weighted_length`).

Every count the store keeps (a message's, a summary's, the assembled context's) comes from one
:class:`TokenCounter`, so the budget the assembly keeps and the numbers ``lcm_describe``
reports agree. A message costs :data:`MESSAGE_OVERHEAD` tokens more than its text (the role and
framing chat APIs add).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

from memdir.text import weighted_length

__all__ = ["MESSAGE_OVERHEAD", "TokenCounter", "cut_to_tokens", "estimate_tokens"]

MESSAGE_OVERHEAD = 4
"""Tokens a chat API spends on one message besides its text (role, separators)."""


def estimate_tokens(text: str) -> int:
    """About 4 characters, or one CJK character, a token (the chunker's measure)."""
    return math.ceil(weighted_length(text) / 4)


@cache
def _tiktoken() -> Callable[[str], int] | None:
    """``cl100k_base`` from tiktoken, or ``None`` when it is not installed or cannot load its
    encoding (it downloads the file once; offline that fails, and the estimate is used)."""
    try:
        import tiktoken  # type: ignore[import-not-found]

        encoding = tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or no encoding file and no network
        return None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return count


class TokenCounter:
    """Counts tokens: ``tiktoken`` (``name`` ``"tiktoken/cl100k_base"``) when available, else
    the estimate (``"estimate"``). ``prefer_tiktoken=False`` forces the estimate."""

    def __init__(self, *, prefer_tiktoken: bool = True) -> None:
        counter = _tiktoken() if prefer_tiktoken else None
        self._count = counter or estimate_tokens
        self.name = "tiktoken/cl100k_base" if counter else "estimate"

    def count(self, text: str) -> int:
        """Tokens of ``text`` alone."""
        return self._count(text) if text else 0

    def message(self, text: str) -> int:
        """Tokens of a chat message holding ``text``: the text plus the framing."""
        return self.count(text) + MESSAGE_OVERHEAD


def cut_to_tokens(text: str, budget: int, count: Callable[[str], int]) -> str:
    """``text`` cut (at a line end when one is near) to at most ``budget`` tokens by ``count``."""
    if count(text) <= budget:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix within the budget
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    piece = text[:lo]
    line_end = piece.rfind("\n")
    if line_end > lo // 2:
        piece = piece[:line_end]
    return piece.rstrip()
