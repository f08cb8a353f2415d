"""Which writing a line or a query term is in: Latin script, Chinese, Japanese or Korean.

Memory is often written in several languages at once (an engineer's notes in English and
Chinese, a designer's mostly in Japanese). How much of it each language holds says how much a
word of the question that memory lacks tells: an English word no note uses is evidence that
memory does not hold the fact when memory is written in English, and next to none when it is
written in Japanese, where the same fact would be in Japanese words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["SCRIPTS", "line_script", "script_lines", "term_writings"]

SCRIPTS = ("latin", "zh", "ja", "ko")

_KANA = re.compile("[\u3041-\u309f\u30a1-\u30fa\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")


def line_script(line: str) -> str | None:
    """The writing of one line: ``ja`` when it holds kana, ``ko`` when it holds Hangul,
    ``zh`` when it holds Han characters, ``latin`` when it holds a word of two Latin
    letters or more, else ``None`` (a rule, a table border, numbers). A Chinese line naming
    ``OPS-1234`` is Chinese: its English is names, not the language it is written in."""
    if _KANA.search(line):
        return "ja"
    if _HANGUL.search(line):
        return "ko"
    if _HAN.search(line):
        return "zh"
    if _LATIN_WORD.search(line):
        return "latin"
    return None


def script_lines(texts: Iterable[str]) -> Counter[str]:
    """How many lines of ``texts`` each writing holds (:func:`line_script`)."""
    counts: Counter[str] = Counter()
    for text in texts:
        for line in text.splitlines():
            script = line_script(line)
            if script is not None:
                counts[script] += 1
    return counts


def term_writings(term: str) -> tuple[str, ...]:
    """The writings whose lines may hold a query term: ``ja`` for kana, ``ko`` for Hangul,
    ``zh`` and ``ja`` for Han characters (Japanese writes its words of Chinese origin in them:
    予约, 年末, 设计 once folded), ``latin`` for a word of Latin letters; none for digits and
    symbols, which every writing uses."""
    if _KANA.search(term):
        return ("ja",)
    if _HANGUL.search(term):
        return ("ko",)
    if _HAN.search(term):
        return ("zh", "ja")
    if any(c.isalpha() for c in term):
        return ("latin",)
    return ()
