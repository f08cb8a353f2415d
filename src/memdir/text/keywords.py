"""Keyword extraction from conversational queries, for the keyword-only search fallback.

``extract_keywords("that thing we discussed about the API")`` returns
``["discussed", "api"]``: the words worth searching for one at a time when no embedding
provider is available. The algorithm follows OpenClaw's query expansion (spec §9, default
tokenizer mode):

1. Fold full-width ASCII (``ＡＰＩ`` → ``API``), lowercase, and remove multi-word stop phrases
   such as ``por favor`` or ``من فضلك``.
2. Split on whitespace and Unicode punctuation (every ``P*`` category, so ``_`` and ``-`` too).
3. Tokenize each segment by script:

   * with kana (U+3040–U+30FF), Japanese: ASCII runs, katakana runs (with ``ー``), hiragana runs
     of two or more, and kanji runs, each kanji run as a whole plus its adjacent bigrams;
   * with CJK ideographs, Chinese: each ideograph run as unigrams plus adjacent bigrams, and
     each ASCII run as a word;
   * with Hangul, Korean: the word, and the word without one trailing particle (longest
     particle first) when that stem is useful;
   * otherwise the segment is one token.

4. Drop stop words (:data:`memdir.text.stopwords.STOP_WORDS`), ASCII-letter tokens shorter
   than 3, numbers, and tokens made only of punctuation or symbols; de-duplicate in order.

Deliberate differences from OpenClaw: multi-word stop phrases are honoured (upstream keeps
them in its lists, where they can never match a token); ASCII inside a Chinese segment is kept
as words (upstream drops ``python`` from ``用python写的脚本``) and bigrams never join two
ideographs that an ASCII run separates; ``々`` and CJK Extension A count as kanji.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

from memdir.text.stopwords import (
    KOREAN,
    KOREAN_PARTICLES,
    KOREAN_WORD_PARTICLES,
    STOP_PHRASES,
    STOP_WORDS,
)

__all__ = ["expand_query_for_fts", "extract_keywords"]

_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_KANA = re.compile("[\u3040-\u30ff]")
_HAN_CHAR = re.compile(f"[{_HAN}]")
_HANGUL = re.compile("[\uac00-\ud7af\u3131-\u318e]")
_HANGUL_SYLLABLE = re.compile("[\uac00-\ud7af]")
_ASCII_WORD = re.compile("[a-z0-9_]+")

_JAPANESE_RUN = re.compile(
    f"(?P<ascii>[a-z0-9_]+)"
    f"|(?P<katakana>[\u30a0-\u30ff]+)"
    f"|(?P<kanji>[{_HAN}\u3005]+)"
    f"|(?P<hiragana>[\u3040-\u309f]{{2,}})"
)
_CHINESE_RUN = re.compile(f"(?P<ascii>[a-z0-9_]+)|(?P<han>[{_HAN}]+)")

# Two-syllable particles come first, so "기능으로" loses "으로", not just "로".
_KOREAN_PARTICLES = (*KOREAN_WORD_PARTICLES, *KOREAN_PARTICLES)  # two syllables first

_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def _stop_phrase_regex(phrases: Iterable[str]) -> re.Pattern[str]:
    """Match any phrase as whole words, with any run of whitespace between its words."""
    alternatives = [
        r"\s+".join(map(re.escape, phrase.split()))
        for phrase in sorted(phrases, key=len, reverse=True)
    ]
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")


_STOP_PHRASE = _stop_phrase_regex(STOP_PHRASES)


def extract_keywords(query: str) -> list[str]:
    """Return the distinct keywords of ``query``, in order of first appearance.

    Empty or stop-word-only queries give ``[]``. See the module docstring for the rules.
    """
    text = _STOP_PHRASE.sub(" ", query.translate(_FULLWIDTH).lower())
    tokens = (token for segment in _segments(text) for token in _segment_tokens(segment))
    return list(dict.fromkeys(token for token in tokens if _is_keyword(token)))


def expand_query_for_fts(query: str) -> str:
    """Return ``query`` followed by ``" OR <keyword>"`` for each keyword, or ``query`` alone.

    Kept for parity with OpenClaw's ``expandQueryForFts``. The result is display text, not
    an escaped FTS5 expression: quote each term before using it in ``MATCH``.
    """
    keywords = extract_keywords(query)
    if not keywords:
        return query
    return " OR ".join([query, *keywords])


def _segments(text: str) -> Iterator[str]:
    """Split ``text`` on whitespace and Unicode punctuation, yielding non-empty pieces."""
    start = 0
    for index, char in enumerate(text):
        if char.isspace() or unicodedata.category(char).startswith("P"):
            if index > start:
                yield text[start:index]
            start = index + 1
    if start < len(text):
        yield text[start:]


def _segment_tokens(segment: str) -> list[str]:
    """Tokenize one segment according to the script it contains."""
    if _KANA.search(segment):
        return _japanese_tokens(segment)
    if _HAN_CHAR.search(segment):
        return _chinese_tokens(segment)
    if _HANGUL.search(segment):
        return _korean_tokens(segment)
    return [segment]


def _japanese_tokens(segment: str) -> list[str]:
    """ASCII, katakana and long-enough hiragana runs; kanji runs whole plus bigrams."""
    tokens: list[str] = []
    for match in _JAPANESE_RUN.finditer(segment):
        run = match.group()
        tokens.append(run)
        if match.lastgroup == "kanji":
            tokens.extend(_bigrams(run))
    return tokens


def _chinese_tokens(segment: str) -> list[str]:
    """ASCII runs as words; ideograph runs as unigrams followed by adjacent bigrams."""
    tokens: list[str] = []
    for match in _CHINESE_RUN.finditer(segment):
        run = match.group()
        if match.lastgroup == "ascii":
            tokens.append(run)
        else:
            tokens.extend(run)
            tokens.extend(_bigrams(run))
    return tokens


def _bigrams(run: str) -> list[str]:
    """Every pair of adjacent characters in ``run``."""
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _korean_tokens(word: str) -> list[str]:
    """The word unless it or its stem is a stop word, then the stem if it is useful."""
    stem = _strip_particle(word)
    tokens: list[str] = []
    if word not in KOREAN and stem not in KOREAN:
        tokens.append(word)
    if stem != word and stem not in KOREAN and _is_useful_stem(stem):
        tokens.append(stem)
    return tokens


def _strip_particle(word: str) -> str:
    """Remove one trailing particle, longest first, if the word is longer than it."""
    for particle in _KOREAN_PARTICLES:
        if len(word) > len(particle) and word.endswith(particle):
            return word[: -len(particle)]
    return word


def _is_useful_stem(stem: str) -> bool:
    """At least two Hangul syllables, or a plain ASCII word (``API를`` → ``api``)."""
    return len(_HANGUL_SYLLABLE.findall(stem)) >= 2 or _ASCII_WORD.fullmatch(stem) is not None


def _is_keyword(token: str) -> bool:
    """Apply the filters: stop words, short ASCII words, numbers, punctuation or symbols."""
    if token in STOP_WORDS:
        return False
    if token.isascii() and token.isalpha() and len(token) < 3:
        return False
    if token.isdecimal():
        return False
    return not all(unicodedata.category(char)[0] in "PS" for char in token)
