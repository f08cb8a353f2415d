"""Quarters and halves of a year, the ways people write them: ``Q4``, 第四季度, 四季度, the fourth
quarter, 第4四半期, 4분기; ``H1``, 上半年, the first half of the year, 上半期, 상반기.

A quarter counted from today (this / last / next quarter, 本季度, 上一季度, 지난 분기) is read as
no quarter: notes written in another quarter say "next quarter" of theirs, and as the label of
today's it made a question about what memory lacks ("What was the budget for the team offsite
this quarter?") look answered by the notes' ``Q4 OKR``. It is matched only so that 上一季度 is
not read as 一季度.

In notes a quarter is mostly a label (``Q4 OKR``, ``明年 H1 做 provider 抽象层``, ``计划放在
Q4``), written on any day, so search reads it as words, not as the days it spans: a question
that writes it another way than memory does (第四季度的 OKR, of notes writing ``Q4 OKR``) is
searched the way memory writes it (:func:`memdir.search.keyword.query_profile`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Period", "periods", "writings"]

_ZH_DIGITS = "一二三四"
_EN_ORDINALS = ("first", "second", "third", "fourth")
_EN_ORDINAL = {w: n for n, w in enumerate(_EN_ORDINALS, 1)} | {
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
_OF_A_YEAR = r"(?=\s+of\s+(?:(?:the|this|next|last)\s+year|(?:19|20)\d\d)\b|(?!\s+of\b))"
"""After "the first half" or "the third quarter": of a year, or of nothing (not of September,
of the month, of the game); the year stays words of the question."""

_PERIOD = re.compile(
    # Q4, H1 (not Q4s, HQ1, h1.5)
    r"(?<![A-Za-z0-9])(?:[Qq](?P<q>[1-4])|[Hh](?P<h>[12]))(?![A-Za-z0-9]|\.\d)"
    # the fourth quarter, 3rd-quarter, the first half (of the year, of 2026)
    r"|(?ai:\b(?P<q_en>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarters?\b"
    + _OF_A_YEAR
    + r"|\b(?P<h_en>first|second|1st|2nd)[\s-]+half\b"
    + _OF_A_YEAR
    # this / last / next quarter: matched, read as none
    + r"|\b(?:this|the\s+current|current|last|the\s+last|the\s+past|past|previous"
    r"|the\s+previous|next|the\s+next|the\s+coming|coming)\s+quarter\b)"
    # 本季度, 这个季度, 上个季度, 上一季度, 下季度 (before 一季度: the leftmost match is taken)
    r"|(?:本|这个|這個|这一|這一|这|這|当前|當前|上个|上個|上一个|上一個|上一|上|下个|下個|下一个"
    r"|下一個|下一|下)季度"
    # 第四季度, 四季度, 第4季度 (not 十一季度, nor 四季: the seasons)
    rf"|(?<![\d{_ZH_DIGITS}五六七八九十])第?(?P<q_zh>[1-4{_ZH_DIGITS}])\s*季度"
    # 第3四半期, 3四半期; 今四半期, 前四半期, 来四半期
    rf"|第?(?P<q_ja>[1-4{_ZH_DIGITS}])\s*四半期"
    r"|(?:今|前|来|次の)四半期"
    # 4분기, 이번 분기, 지난 분기, 다음 분기
    r"|(?<!\d)(?P<q_ko>[1-4])\s?분기"
    r"|(?:이번|지난|다음)\s?분기"
    # 上半年, 下半年, 上半期, 下半期, 상반기, 하반기 (not 上半月)
    r"|(?P<h_zh>[上下])半[年期]|(?P<h_ko>[상하])반기"
)


@dataclass(frozen=True, slots=True)
class Period:
    """A quarter (``kind`` ``"q"``, ``number`` 1–4) or half (``"h"``, 1–2) of a year a text
    names at ``start:end``."""

    start: int
    end: int
    kind: str
    number: int


def _number(digit: str) -> int:
    return _ZH_DIGITS.index(digit) + 1 if digit in _ZH_DIGITS else int(digit)


def periods(text: str) -> list[Period]:
    """Each quarter or half of a year ``text`` names (not one counted from today)."""
    found = []
    for m in _PERIOD.finditer(text):
        if digit := m["q"] or m["q_zh"] or m["q_ja"] or m["q_ko"]:
            kind, number = "q", _number(digit)
        elif m["q_en"]:
            kind, number = "q", _EN_ORDINAL[m["q_en"].lower()]
        elif m["h"]:
            kind, number = "h", int(m["h"])
        elif m["h_en"]:
            kind, number = "h", _EN_ORDINAL[m["h_en"].lower()]
        elif half := m["h_zh"] or m["h_ko"]:
            kind, number = "h", 1 if half in "上상" else 2
        else:  # this quarter, 上一季度: no quarter
            continue
        found.append(Period(m.start(), m.end(), kind, number))
    return found


def writings(kind: str, number: int) -> list[str]:
    """The ways notes write a quarter or half: ``Q4``, 四季度 (第四季度 holds it), the fourth
    quarter, 第4四半期, 4분기; ``H1``, 上半年, the first half, 上半期, 상반기."""
    if kind == "q":
        return [
            f"Q{number}",
            f"{_ZH_DIGITS[number - 1]}季度",
            f"{_EN_ORDINALS[number - 1]} quarter",
            f"第{number}四半期",
            f"{number}분기",
        ]
    top = number == 1
    return [
        f"H{number}",
        "上半年" if top else "下半年",
        f"{_EN_ORDINALS[number - 1]} half",
        "上半期" if top else "下半期",
        "상반기" if top else "하반기",
    ]
