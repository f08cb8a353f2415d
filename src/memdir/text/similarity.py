"""Lexical similarity between snippets, used by MMR re-ranking (spec §7).

MMR needs to know how much two candidate snippets repeat each other. Embeddings are not used:
each snippet becomes a set of tokens and two sets are compared with Jaccard similarity.

Tokens of a lowercased text (:func:`mmr_tokens`):

* every run of word characters that are not CJK-family characters (``hello_world``, ``123``);
* every CJK-family character as a unigram: hiragana, katakana, CJK Extension A, CJK unified
  ideographs, Hangul syllables and Hangul jamo;
* a bigram for each pair of CJK-family characters adjacent in the text, so ``"我a好"`` has no
  bigram.

Difference from OpenClaw: upstream keeps only ASCII runs ``[a-z0-9_]+`` besides CJK, so Arabic,
Cyrillic or accented words vanish (``"café"`` → ``caf``) and two different Arabic snippets
both tokenize to the empty set, which Jaccard scores as identical. Here any Unicode word run
counts; for ASCII text the result is the same as upstream.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

__all__ = ["jaccard", "mmr_tokens", "text_similarity"]

_CJK = "\u1100-\u11ff\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_WORD_RUN = re.compile(f"[^\\W{_CJK}]+")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_PAIR = re.compile(f"(?=([{_CJK}]{{2}}))")


def mmr_tokens(text: str) -> frozenset[str]:
    """Return the token set of ``text``: word runs, CJK unigrams and adjacent CJK bigrams."""
    lowered = text.lower()
    tokens = set(_WORD_RUN.findall(lowered))
    tokens.update(_CJK_CHAR.findall(lowered))
    tokens.update(_CJK_PAIR.findall(lowered))
    return frozenset(tokens)


def jaccard(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Return ``|a ∩ b| / |a ∪ b|``; 1.0 when both sets are empty, 0.0 when only one is."""
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def text_similarity(a: str, b: str) -> float:
    """Return the Jaccard similarity of the :func:`mmr_tokens` sets of two texts."""
    return jaccard(mmr_tokens(a), mmr_tokens(b))
