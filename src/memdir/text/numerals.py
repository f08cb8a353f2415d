"""Numbers written in Chinese numerals, read and written: 十二, 二十五, 两百, 一百二十.

Dates (九月三日, 下午三点), amounts (三十秒, 两个小时, 五万) and the bench's questions all read or
write them; one reading serves them all (:func:`cjk_number`, :func:`cjk_numeral`).
"""

from __future__ import annotations

import re

__all__ = ["DIGITS", "cjk_number", "cjk_numeral"]

DIGITS = "一二三四五六七八九"
"""The digits one to nine in Chinese numerals."""

_NUMERAL = re.compile(f"(?:([{DIGITS}])百)?(?:([{DIGITS}])?(十))?([{DIGITS}])?")


def cjk_number(word: str) -> int | None:
    """A number written in digits, or in Chinese numerals from 一 to 九百九十九 (十 = 10, 十二 =
    12, 二十 = 20, 一百二十 = 120; 两 and 兩 for 二); ``None`` for what is no such number (十十,
    三二, 零)."""
    if word.isdigit():
        return int(word)
    m = _NUMERAL.fullmatch(word.replace("两", "二").replace("兩", "二"))
    if m is None:
        return None
    hundreds, tens, ten, ones = m.groups()
    value = (DIGITS.index(hundreds) + 1) * 100 if hundreds else 0
    if ten:
        value += (DIGITS.index(tens) + 1 if tens else 1) * 10
    if ones:
        value += DIGITS.index(ones) + 1
    return value or None


def cjk_numeral(number: int) -> str:
    """``number`` (1 to 99) in Chinese numerals, as a date writes it: 三, 十, 十二, 二十, 三十一."""
    tens, ones = divmod(number, 10)
    return (
        (DIGITS[tens - 1] if tens > 1 else "")
        + ("十" if tens else "")
        + (DIGITS[ones - 1] if ones else "")
    )
