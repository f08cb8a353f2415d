"""Tokenisation shared by indexing, query building, chunk sizing and MMR.

One tokenizer, this module's, decides what the words of a text are, for the index and for
queries alike: :func:`fts_document` writes a chunk's words, space-separated, into the FTS5
column, and :func:`fts_query` quotes the same words of a query. FTS5's ``unicode61`` tokenizer
then sees the same strings on both sides, and only folds case and common diacritics and stems
(porter). Left to split raw text itself, ``unicode61`` (Unicode 6.1 tables) disagreed with
Python's ``\\w`` (Unicode 14+) on about 10,000 code points, so words the index held could not be
found: "İstanbul", a name in bidi isolates, ``bot🤖``, an Arabic word before U+061C, ``замо́к``.

Both sides are normalised the same way first: format characters (Unicode ``Cf``: bidi controls,
zero-width joiners, soft hyphens, U+061C) are removed, except that a zero-width space separates
words; then NFKC (full-width ``ＡＢＣ１２３`` → ``ABC123``) and case folding. A word is a run of
letters, digits and underscores (Python's ``\\w``) that is not CJK, with any combining marks that
follow its characters kept in it (``замо́к``, or the dot that case folding leaves on ``İ``);
``unicode61`` strips the common diacritics among them. English irregular verb forms become their
base form (``chose`` → ``choose``, :mod:`memdir.text.irregular`).

CJK text has no spaces between words, and ``unicode61`` would index a whole run of Han characters
as one token, so a query for one word inside it would never match. Every CJK run (Han, kana,
Hangul) therefore becomes its single characters plus the overlapping bigrams, in documents and
queries alike. Measured on XQuAD-zh this scores nDCG@10 ≈ .97 against .12 for plain ``unicode61``
(see ``bench/``).

``TOKENIZER_VERSION`` is stored in the index meta: change anything here that alters the output of
:func:`fts_document` and bump it, so existing indexes are rebuilt rather than silently mismatched.
It includes the Unicode version of the running Python, whose tables decide what ``\\w`` matches.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from itertools import chain

from memdir.text.irregular import BASE_FORMS, base_form

__all__ = [
    "FTS_TOKENIZE",
    "SCRIPT_SAMPLE",
    "TOKENIZER_VERSION",
    "fts_document",
    "fts_query",
    "fts_query_terms",
    "is_cjk",
    "is_utf8_encodable",
    "replace_surrogates",
    "weighted_length",
    "word_tokens",
]

# v2: English irregular verb forms indexed as their base form; v3: the FTS column holds the words
# of this module's tokenizer, not the raw text.
TOKENIZER_VERSION = f"words-v3/unicode-{unicodedata.unidata_version}"
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

# Han (incl. Ext A, compatibility ideographs, Ext B+), kana, Hangul syllables and jamo, bopomofo.
_CJK_RANGES = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK Ext A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo Ext A
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xD7B0, 0xD7FF),  # Hangul Jamo Ext B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width katakana
    (0x20000, 0x3134F),  # CJK Ext B..G
)
_CJK_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _CJK_RANGES)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}ー]+")
_WORD_CHAR = f"[^\\W{_CJK_CLASS}ー]"  # a letter, digit or underscore that is not CJK
_ASCII_TOKEN = re.compile("[a-z0-9_]+")  # what _tokens() finds in lower-cased ASCII text


def _ranges(code_points: list[int]) -> str:
    """A regex character class body for the sorted ``code_points``."""
    spans: list[list[int]] = []
    for cp in code_points:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in spans)


@cache
def _tables() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The format characters to remove, and the token pattern: a CJK run, or a word with the
    combining marks that follow its characters.

    Built from :mod:`unicodedata` on first use (about 20 ms). Combining marks and format
    characters all lie below U+20000 or in plane 14 (tags, variation selectors).
    """
    marks: list[int] = []
    formats: list[int] = []
    for cp in chain(range(0x20000), range(0xE0000, 0xE1000)):
        category = unicodedata.category(chr(cp))
        if category[0] == "M":
            marks.append(cp)
        elif category == "Cf" and cp != 0x200B:  # a zero-width space separates words
            formats.append(cp)
    token = re.compile(f"[{_CJK_CLASS}ー]+|{_WORD_CHAR}+(?:[{_ranges(marks)}]+{_WORD_CHAR}*)*")
    return re.compile(f"[{_ranges(formats)}]"), token


# Ranges that count as 4 chars-per-token when sizing chunks (OpenClaw's weighting, spec §2.1).
_WIDE = re.compile("[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")


def weighted_length(text: str) -> int:
    """Length used for chunk sizing: code points, with each CJK character counted as 4.

    One CJK character is roughly one token, while Latin text is roughly four characters a token,
    so this keeps chunks of either script near the same token budget.
    """
    return len(text) + 3 * len(_WIDE.findall(text))


_SURROGATE = re.compile("[\ud800-\udfff]")


def is_utf8_encodable(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (a file name decoded with ``surrogateescape``
    from bytes that are not UTF-8, say), so that it can be stored and shown as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def replace_surrogates(text: str) -> str:
    """``text`` with lone surrogates (which JSON escapes such as ``"\\ud800"`` can produce, and
    UTF-8 cannot encode) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _cjk_grams(run: str) -> Iterator[str]:
    """Unigrams and overlapping bigrams of a CJK run, in reading order."""
    for i, ch in enumerate(run):
        yield ch
        if i + 1 < len(run):
            yield run[i : i + 2]


def _normalise(text: str) -> str:
    """Format characters removed, NFKC (full-width Latin and digits, half-width kana folded to
    their usual forms), then case folding; the same for documents and queries."""
    formats, _ = _tables()
    if formats.search(text):
        text = formats.sub("", text)
    return unicodedata.normalize("NFKC", text).casefold()


def _tokens(text: str) -> list[str]:
    """The words of ``text`` (normalised), each CJK run as unigrams plus bigrams."""
    if text.isascii():
        # What the general path gives for ASCII (NFKC and case folding change nothing more
        # than lower-casing there), several times faster.
        return _ASCII_TOKEN.findall(text.lower())
    found = _tables()[1].findall(_normalise(text))
    if not _CJK_RUN.search(text):
        return found
    out: list[str] = []
    for token in found:
        if token.isascii() or not _CJK_RUN.match(token):
            out.append(token)
        else:
            out.extend(_cjk_grams(token))
    return out


def fts_document(text: str) -> str:
    """The FTS5 column for ``text``: its words, space-separated, as :func:`word_tokens` finds
    them, with English irregular verb forms as their base form (chose → choose)."""
    tokens = _tokens(text)
    return " ".join(map(BASE_FORMS.get, tokens, tokens))


def word_tokens(text: str) -> list[str]:
    """Normalised word tokens: words whole, CJK runs as unigrams plus bigrams."""
    return _tokens(text)


def fts_query_terms(query: str, *, stopwords: frozenset[str] = frozenset()) -> list[str]:
    """Distinct query terms in order, with stop words dropped unless nothing else would remain."""
    terms = list(dict.fromkeys(base_form(t) for t in word_tokens(query)))
    kept = [t for t in terms if t not in stopwords]
    return kept or terms


def fts_query(query: str, *, stopwords: frozenset[str] = frozenset()) -> str | None:
    """Build a safe FTS5 MATCH expression: every term quoted, joined with OR.

    Quoting neutralises FTS5 syntax (``AND``, ``NEAR``, ``*``, ``-``, ``:``). Terms are OR-ed and
    left to BM25 to rank, so a question phrased in full still finds the lines that share its
    important words. Returns ``None`` when the query has no searchable term.
    """
    terms = fts_query_terms(query, stopwords=stopwords)
    if not terms:
        return None
    return " OR ".join('"' + t + '"' for t in terms)


_WORD = re.compile(f"[^\\W\\d_{_CJK_CLASS}ー]+")
SCRIPT_SAMPLE = 800  # characters read to judge a text's script (see is_cjk)


def is_cjk(text: str) -> bool:
    """Whether ``text`` is mostly Chinese, Japanese or Korean, counting one CJK character as a
    quarter of a Latin-script word's letters (about a word each): "周五部署" and a Chinese
    paragraph with a few English names are CJK, an English note with one Chinese line is not.

    Embedding models put the two kinds on different cosine scales, so vector scores are
    calibrated per pair of (query, chunk) kinds (``memdir.search.vector``). Judged on the
    first 800 characters, which is plenty for a chunk and keeps loading 100k of them fast.
    """
    sample = text[:SCRIPT_SAMPLE]
    if sample.isascii():
        return False
    cjk = sum(len(run) for run in _CJK_RUN.findall(sample))
    if not cjk:
        return False
    letters = sum(len(word) for word in _WORD.findall(sample))
    return 4 * cjk >= letters
