"""Amounts of time, size and things, the ways people write them: ``30s``, 30 seconds, 30 秒,
三十秒, 30秒 (Japanese), 30초; ``2h``, two hours, 两个小时, 2時間; ``500ms``, 500 毫秒;
``48GB``, 48 GB; ``3x``, 3 倍; and counts, in thousands or in 万: ``168k``, ``168,000``,
16.8万; ``1.2M``, 1.2 million, 120万; ``5.31 亿``.

Notes write an amount in haste (``timeout 30s``, ``p99 800ms``, ``锁等了 13 分钟``), and a
question, by a person or an agent, another way ("which job has a 30 second timeout?", 超时设成
三十秒的是哪个任务？). FTS5 holds ``30s`` as one word and ``30 seconds`` as two, so the two
never meet. :func:`quantities` finds the amounts a text names, :func:`writings` gives the ways
the notes may write one, and search asks a question's amount the way memory writes it when it
never writes the question's (:func:`memdir.search.spellings.quantities_as_written`).

An amount keeps its number and unit: ``90 分钟`` is not searched as ``1.5h``; only a count
changes scale, as the languages count differently (English in thousands, Chinese in 万). Kept out, for
they name other things as often: a bare ``m`` (minutes, metres, millions), 分 after a number
(a clock's 3点15分, a score), 日 and 일 (a day of the month), "times" (retried 3 times), ``%``
(FTS5 holds ``30%`` as the number alone); a day counted (第二天, 第2天: the day after) or said
loosely (前两天, 这两天: a while ago, these days).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from memdir.text.numerals import cjk_number, cjk_numeral

__all__ = ["Quantity", "quantities", "writings"]

_UNITS: dict[str, tuple[str, ...]] = {
    # unit: the ways it is written after a number, each matched whole (lower case)
    "ms": ("ms", "msec", "msecs", "millisecond", "milliseconds", "毫秒", "ミリ秒", "밀리초"),
    "s": ("s", "sec", "secs", "second", "seconds", "秒", "秒钟", "秒鐘", "초"),
    "min": ("min", "mins", "minute", "minutes", "分钟", "分鐘", "分間", "분"),
    "h": ("h", "hr", "hrs", "hour", "hours", "小时", "小時", "个小时", "個小時", "時間", "시간"),
    "d": ("d", "day", "days", "天", "日間", "일간"),
    "kb": ("kb",),
    "mb": ("mb",),
    "gb": ("gb",),
    "tb": ("tb",),
    "x": ("x", "×", "倍"),
}
_UNIT_OF = {w: unit for unit, ws in _UNITS.items() for w in ws}

_WRITINGS: dict[str, tuple[str, ...]] = {
    # how notes write each unit after a number: glued, apart, in words, in Chinese (also with
    # a Chinese number, {z}: 十分钟, 两小时), Japanese, Korean (a form several languages share
    # is written once)
    "ms": ("{n}ms", "{n} ms", "{n} milliseconds", "{n}毫秒", "{n}ミリ秒"),
    "s": ("{n}s", "{n} s", "{n} sec", "{n} seconds", "{n}秒", "{z}秒", "{n}초"),
    "min": ("{n}min", "{n} min", "{n} minutes", "{n}分钟", "{z}分钟", "{n}分間", "{n}분"),
    "h": ("{n}h", "{n} h", "{n} hours", "{n}小时", "{z}小时", "{n}時間", "{n}시간"),
    "d": ("{n}d", "{n} days", "{n}天", "{z}天", "{n}日間"),
    "kb": ("{n}KB", "{n} KB"),
    "mb": ("{n}MB", "{n} MB"),
    "gb": ("{n}GB", "{n} GB"),
    "tb": ("{n}TB", "{n} TB"),
    "x": ("{n}x", "{n}倍"),
}

_EN_NUMBERS = {
    w: n
    for n, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90}
_LATIN_UNITS = "|".join(
    sorted((re.escape(w) for w in _UNIT_OF if w.isascii() and w != "x"), key=len, reverse=True)
)
_CJK_UNITS = "|".join(
    sorted((re.escape(w) for w in _UNIT_OF if not w.isascii()), key=len, reverse=True)
)
_ZH_NUMERALS = "零一二两兩三四五六七八九十百"
_ZH_NUMBER = f"[{_ZH_NUMERALS}]+"

_SCALE = {"k": 1000, "K": 1000, "M": 10**6, "千": 1000, "万": 10**4, "萬": 10**4, "亿": 10**8}
_SCALE |= {"億": 10**8, "thousand": 1000, "million": 10**6, "billion": 10**9}

_QUANTITY = re.compile(
    # a count: 50k, 1.2M, 12.1k msg/s, 5.31 亿, 100 万, 五万, 8,700, 2 million (not K8s, 4K60)
    r"(?<![\w.\-第])(?P<snum>\d+(?:\.\d+)?)(?:(?P<scale>[kKM])(?![\w.]*\d)(?!\w)"
    r"|\s?(?P<zscale>[千万萬亿億])|\s(?P<wscale>thousand|million|billion)\b)"
    r"|(?<![\w.,])(?P<grouped>\d{1,3}(?:,\d{3})+)(?![\d,]|\.\d)"
    rf"|(?<![{_ZH_NUMERALS}第万萬])(?P<zcount>{_ZH_NUMBER})(?P<zcscale>[万萬亿億])"
    # 30s, 1.8s, 500 ms, 30 seconds, 48GB, 3x (not v2s, 30sec-ish names, nor 3x3)
    rf"|(?<![\w.\-])(?P<num>\d+(?:\.\d+)?)\s?(?P<unit>(?i:{_LATIN_UNITS})|x|×)(?![\w.]*\d)(?!\w)"
    # 13 分钟, 30秒, 2時間, 3 倍, 30초 (not 4분기: a quarter)
    rf"|(?<![\w.第])(?P<cnum>\d+(?:\.\d+)?)\s?(?P<cunit>{_CJK_UNITS})(?!기)"
    # two hours, thirty seconds (not "one day" of "one day we…": a day in words is none)
    rf"|\b(?P<wnum>(?i:{'|'.join(_EN_NUMBERS)}))[\s-]+(?P<wunit>(?i:ms|milliseconds?|seconds?"
    r"|minutes?|hours?))\b"
    # 三十秒, 两个小时, 十五分钟, 三天 (not 一天: one day, nor 天天; not 第二天, the day after,
    # nor 前两天, 这两天, 过两天: a while ago, these days, in a while)
    rf"|(?<![{_ZH_NUMERALS}第前这這过過那近])(?P<znum>{_ZH_NUMBER})(?P<zunit>{_CJK_UNITS})"
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """An amount a text names at ``start:end``: its ``number`` as digits (``30``, ``1.8``) and
    its ``unit`` (``ms``, ``s``, ``min``, ``h``, ``d``, ``kb``, ``mb``, ``gb``, ``tb``,
    ``x``; ``n`` for a count of things, its number whole: ``50k`` is ``50000``)."""

    start: int
    end: int
    number: str
    unit: str


def quantities(text: str) -> list[Quantity]:
    """Each amount of time or size ``text`` names (:mod:`memdir.text.quantities`)."""
    found = []
    for m in _QUANTITY.finditer(text):
        if m["snum"] or m["grouped"] or m["zcount"]:
            if m["zcount"]:
                value = cjk_number(m["zcount"])
                if value is None:
                    continue
                count = Decimal(value) * _SCALE[m["zcscale"]]
            elif m["grouped"]:
                count = Decimal(m["grouped"].replace(",", ""))
            else:
                scale = m["scale"] or m["zscale"] or m["wscale"]
                count = Decimal(m["snum"]) * _SCALE[scale]
            if count != count.to_integral_value():
                continue  # 1.2345k: no count of things
            found.append(Quantity(m.start(), m.end(), str(int(count)), "n"))
            continue
        if m["num"]:
            word = m["unit"].lower()
            if word in ("s", "d", "h") and m["unit"] != word:
                continue  # 3D, 2H, 5S: a name, not an amount
            number, unit = m["num"], _UNIT_OF[word]
        elif m["cnum"]:
            number, unit = m["cnum"], _UNIT_OF[m["cunit"]]
        elif m["wnum"]:
            number = str(_EN_NUMBERS[m["wnum"].lower()])
            unit = _UNIT_OF[m["wunit"].lower()]
        else:
            value = cjk_number(m["znum"])
            unit = _UNIT_OF[m["zunit"]]
            if value is None or (value == 1 and unit == "d"):
                continue  # 一天: one day, said of any day
            number = str(value)
        found.append(Quantity(m.start(), m.end(), number, unit))
    return found


def writings(number: str, unit: str) -> list[str]:
    """The ways notes write ``number`` of ``unit`` (:func:`quantities`): ``30s``, 30 sec,
    30 seconds, 30秒, 30초 for ``("30", "s")``; a count (``n``) of a thousand or more as
    ``168k``, ``168,000``, ``16.8万``, of a million or more ``1.2M``, 1.2 million, ``120万``,
    ``1.2亿`` (a form needing more than two decimals is left out: 12,345 is no ``1.2345万``)."""
    if unit != "n":
        zh = _zh_writing(number)
        return [w.format(n=number, z=zh) for w in _WRITINGS[unit] if zh or "{z}" not in w]
    count = int(number)
    if count < 1000:
        return []
    found = [f"{count:,}"]
    for scale, form in (
        (1000, "{}k"),
        (10**6, "{}M"),
        (10**6, "{} million"),
        (10**4, "{}万"),
        (10**8, "{}亿"),
    ):
        below = {1000: 10**6, 10**4: 10**8}.get(scale)  # 1.2M, not 1200k; 5.31亿, not 53100万
        if count >= scale and (below is None or count < below) and (n := _scaled(count, scale)):
            found.append(form.format(n))
    return found


def _zh_writing(number: str) -> str | None:
    """``number`` in Chinese numerals, as notes write a small amount (十, 十五, 三十, 两 for 2;
    not 一, said of any one thing), or ``None`` past 99 or for a fraction."""
    if not number.isdigit() or not 2 <= int(number) <= 99:
        return None
    return "两" if number == "2" else cjk_numeral(int(number))


def _scaled(count: int, scale: int) -> str | None:
    """``count`` in ``scale``s with at most two decimals (``12100``, 1000: ``12.1``), or
    ``None``."""
    value = Decimal(count) / scale
    if value != value.quantize(Decimal("0.01")):
        return None
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text
