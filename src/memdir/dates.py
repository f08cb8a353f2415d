"""The days a note or a question names.

A note's days: ISO dates (``YYYY-MM-DD``) in file names and in dated markers such as
``- 2026-10-28: …``, and in headings and front matter also ``2026/10/28``, ``2026年10月28日``,
``Oct 28, 2026`` and dates without a year (``10/28``, ``10月28日``, ``Oct 28``), which
:func:`heading_date` places in the year nearest a reference day. A question's days
(:func:`named_days`, :func:`days_from`, :func:`weekends_from`) are read the ways people say
them in English, Chinese, Japanese and Korean: yesterday, 上周五, 先月の初め, 지난주, a range,
a part of a month, a holiday; and the part of a day it names (:func:`part_of_day`).
"""

from __future__ import annotations

import bisect
import calendar
import itertools
import re
from collections.abc import Iterable, Iterator
from datetime import date, timedelta
from typing import NamedTuple

from memdir.text.numerals import cjk_number

__all__ = [
    "PARTS_OF_DAY",
    "PartOfDay",
    "days_from",
    "entry_hours",
    "file_date",
    "first_date",
    "heading_date",
    "is_holiday",
    "marker_date",
    "named_days",
    "part_of_day",
    "weekends_from",
]

_DATE_TAIL = re.compile(r"-(\d\d)-(\d\d)(?!\d)")  # starts with a literal: scanned fast
_MARKER_LEAD = re.compile(
    # What comes before the date on its line, for a dated marker: nothing, or a list item
    # ("- 2026-10-28: …", "- [x] **2026-10-28** …"), or a word saying when ("Updated: …",
    # "Appended …", "as of …", "更新于 …").
    r"(?:^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?"
    r"|(?:(?ai:\b(?:last[ \t]+)?(?:updated|update|appended|added|created|edited|revised|modified"
    r"|logged|recorded|decided|as[ \t]+of|date|dated)\b)|更新于|更新|追加于|追加|添加于|记录于"
    r"|修改于|日期)[ \t]*(?:on[ \t]+)?[:：]?[ \t]*)[*_]*[(\[]?$"
)
_DATED_NAME = re.compile(
    r"(?:^|/)(\d{4})-(\d{2})-(\d{2})(?:[-_ .][^/]*)?\.(?:md|markdown)$", re.IGNORECASE
)


def _iso(year: str, month: str, day: str) -> str | None:
    try:
        return date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def file_date(path: str) -> str | None:
    """The date a file name starts with: ``memory/2026-10-28.md``, ``…/2026-10-28-slug.md``."""
    m = _DATED_NAME.search(path)
    return _iso(*m.groups()) if m else None


def _dates(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, YYYY-MM-DD)`` of each valid ISO date in ``text`` (not part of a longer number)."""
    for m in _DATE_TAIL.finditer(text):
        at = m.start() - 4
        year = text[max(at, 0) : m.start()]
        if at < 0 or not year.isascii() or not year.isdigit():
            continue
        if at > 0 and (text[at - 1].isdigit() or text[at - 1] == "-"):
            continue
        found = _iso(year, m.group(1), m.group(2))
        if found:
            yield at, found


def first_date(text: str) -> str | None:
    """The first valid ISO date anywhere in ``text``."""
    return next((found for _, found in _dates(text)), None)


_CJK_WEEKDAY = r"\s*[(（]?\s*(?:周|週|星期)?[月火水木金土日一二三四五六天]"
_ZH_WEEK_WORD = "周|週|星期|礼拜|禮拜"
"""The words a Chinese weekday starts with (周五, 星期五, 礼拜五)."""
_EN_WEEKDAYS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
_EN_WEEKDAY = "|".join(_EN_WEEKDAYS)
"""An English weekday less its "day", as the patterns below write it (``(?:{_EN_WEEKDAY})day``)."""
"""A weekday after a date (``9/8（火）``, ``9/8 周二``): it makes a bare ``M/D`` a date."""
_YEARLESS = re.compile(
    # a date without a year, found from its separator (a literal: scanned fast): the day of
    # 11/05 or 9/8（火）, and of 11月14日; the month is read back from before it
    rf"/(\d{{1,2}})(?![\d/.])({_CJK_WEEKDAY})?"
    r"|月\s*(\d{1,2})\s*[日号號]"
)
_MONTH_BEFORE = re.compile(r"(?<![\d/.])(\d{1,2})\s*$")
_YEARLESS_LEAD = re.compile(
    # what comes before it on its line, for a marker: a list item ("- 11/05 砍掉 …",
    # "- **9/23** …") or a word saying when ("Updated: 11/26", "as of 11/26", "更新于 11月26日")
    r"(?:^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?"
    r"|(?:(?ai:\b(?:last[ \t]+)?(?:updated|appended|added|revised|modified|as[ \t]+of)\b)"
    r"|更新于|更新|追加于|追加|添加于|记录于|修改于)[ \t]*(?:on[ \t]+)?[:：]?[ \t]*)[*_]*[(\[]?$"
)


def marker_date(text: str, reference: str | None = None) -> str | None:
    """The newest date of the dated markers in ``text`` (list items and lines that start with
    a date, ``Updated: …``, ``Appended …``, ``更新于 …``), if any.

    With ``reference`` (the day a file without a date in its name was last modified), a list
    item that starts with a date without a year (``- 11/05 砍掉 …``, ``- 11月14日 完成``) is a
    marker too, and so is one after a word saying when (``Updated: 11/26``, ``as of 11/26``,
    ``更新于 11月26日``), placed in the year nearest it; a bare ``M/D`` of one digit each needs a
    weekday after it, as in headings (``- 3/4 done`` is no date)."""
    newest = None
    for at, found in _dates(text):
        lead = text[text.rfind("\n", 0, at) + 1 : at]
        if (newest is None or found > newest) and _MARKER_LEAD.search(lead):
            newest = found
    if reference is not None and ("/" in text or "月" in text):
        ref = date.fromisoformat(reference)
        for m in _YEARLESS.finditer(text):
            slash_day, weekday, cjk_day = m.groups()
            line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
            month = _MONTH_BEFORE.search(line[-4:] if slash_day else line[-6:])
            if month is None or (slash_day and not line.endswith(month.group(1))):
                continue  # 11 /05 is no date
            if not _YEARLESS_LEAD.search(line[: len(line) - len(month.group())]):
                continue
            day = (
                _slash_day(month.group(1), slash_day, bool(weekday))
                if slash_day
                else _month_and_day(month.group(1), cjk_day)
            )
            found = day and _in_nearest_year(day, ref)
            if found and (newest is None or found > newest):
                newest = found
    return newest


_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_MONTH_NAME = "|".join(sorted(_MONTHS, key=len, reverse=True))
_CJK_COUNTS = "一二三四五六七八九十"
_CJK_DAY = "[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九]"
"""A day of the month in Chinese numerals (三, 十五, 二十三, 三十一)."""
_WRITTEN_DATE = re.compile(
    # 2026/10/28, 2026年10月28日 (号), 2026년 10월 28일, 10/28, 10月28日, 10월 28일, Oct 28,
    # Oct 28, 2026, 28 Oct 2026: the forms people write in headings besides ISO. Not part of a
    # longer number, path or fraction.
    r"(?<![\d/.\-])(?:(?P<y1>\d{4})/(?P<m1>\d{1,2})/(?P<d1>\d{1,2})"
    r"|(?:(?P<y2>\d{4})\s*[年년]\s*)?(?P<m2>\d{1,2})\s*[月월]\s*(?P<d2>\d{1,2})\s*[日号號일]"
    rf"|(?P<m3>\d{{1,2}})/(?P<d3>\d{{1,2}})(?P<wd>{_CJK_WEEKDAY}"
    r"|\s*[(（]?\s*(?ai:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b))?)"
    r"(?![\d/.\-])"
    rf"|(?ai:\b(?P<mn>{_MONTH_NAME})\.?\s+(?P<d4>\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"(?:,?\s+(?P<y4>\d{4})\b)?)"
    rf"|(?ai:\b(?P<d5>\d{{1,2}})(?:(?:st|nd|rd|th)(?:\s+of)?)?\s+(?P<mn5>{_MONTH_NAME})\b\.?"
    r"(?:,?\s+(?P<y5>\d{4})\b)?)"
    # 九月三日, 十一月二十号: in Chinese numerals
    rf"|(?<![{_CJK_COUNTS}])(?P<m6>十[一二]?|[一二三四五六七八九])\s*月\s*(?P<d6>{_CJK_DAY})\s*[日号號]"
)


def _nearest_year(month: int, day: int, reference: date) -> str | None:
    """``month``/``day`` in the year that puts it nearest ``reference`` (a heading written on
    2026-12-03 that says 11/26 means 2026-11-26; one written on 2026-12-20 that says 1/5
    means 2027-01-05)."""
    best: date | None = None
    for year in (reference.year - 1, reference.year, reference.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if best is None or abs(candidate - reference) < abs(best - reference):
            best = candidate
    return best.isoformat() if best else None


def _in_nearest_year(day: str, reference: date) -> str | None:
    """A ``--MM-DD`` day in the year that puts it nearest ``reference`` (:func:`_nearest_year`)."""
    return _nearest_year(int(day[2:4]), int(day[5:7]), reference)


def _month_and_day(month: str, day: str) -> str | None:
    """``--MM-DD`` when ``month`` and ``day`` make a day of some year (2000 has a 29 February)."""
    iso = _iso("2000", month, day)
    return f"--{iso[5:]}" if iso else None


_WEEKDAY_BEFORE = re.compile(
    rf"(?:(?:{_ZH_WEEK_WORD})[一二三四五六日天]|[月火水木金土日]曜日?"
    r"|(?ai:\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?)\.?,?)"
    r"\s*[(（]?\s*$"
)
"""A weekday just before a date (``周五（9/4）``, ``金曜 9/4``, ``Fri 9/4``): like one after it,
it makes a bare ``M/D`` of one digit each a date."""


_DEADLINE_AFTER = re.compile(
    r"\s*(?:までに|まで|迄|之前|以前|为止|為止|截止|到期|前(?=[\s，。、！；,.!;)）]|$)"
    r"|(?ai:deadline|due)\b)"
)
_DEADLINE_BEFORE = re.compile(
    r"(?:截止|截至|期限|締め切り|締切|(?ai:\b(?:due|deadline|until|till|before|no\s+later\s+than)))"
    r"\s*[:：]?\s*$"
)
"""A deadline around a date (``9/5 までに``, ``9/5 之前``, ``截止 9/5``, ``due 9/5``, ``until
9/5``): like a weekday, it makes a bare ``M/D`` of one digit each a date. Not "by" or "on",
which a fraction follows as often (``reduced by 3/4``)."""


def _slash_day(month: str, day: str, weekday: bool) -> str | None:
    """A bare ``M/D`` as ``--MM-DD``; of one digit each it needs a weekday or a deadline next
    to it (``weekday``) to be a date (``9/8（火）``, ``9/5 までに``, not ``Phase 1/2`` or ``- 3/4
    done``)."""
    if len(month) == len(day) == 1 and not weekday:
        return None
    return _month_and_day(month, day)


_QUOTES = {"「": "」", "『": "』", "“": "”", '"': '"', "'": "'", "‘": "’", "《": "》"}
_SCORE_BEFORE = re.compile(r"(?ai:\ban?|\brated|\bscored)\s+$")
_SCORE_AFTER = re.compile(r"\s*(?:分(?![\u4e00-\u9fff])|分的|(?ai:stars?|points?)\b)")


def _is_a_score(m: re.Match[str]) -> bool:
    """Whether a bare ``M/D`` without a weekday is written as a score or a count rather than a
    day: quoted alone (``スタンプの「7/10」``, ``"8/10"``), after an article or a verb of rating
    (``a 7/10``, ``rated 9/10``), or before a word counting points (``7/10 分``,
    ``4/5 stars``; not ``7/10 分享会``). A day is never written so; ``7/10 上线`` stays July 10."""
    text, a, b = m.string, m.start(), m.end()
    closer = _QUOTES.get(text[a - 1 : a]) if a else None
    if closer is not None and text[b : b + 1] == closer:
        return True
    return bool(_SCORE_BEFORE.search(text[max(0, a - 8) : a]) or _SCORE_AFTER.match(text, b))


def _written_day(m: re.Match[str]) -> str | None:
    """The day a match of :data:`_WRITTEN_DATE` names: ``YYYY-MM-DD`` when it has a year,
    ``--MM-DD`` when not; ``None`` when it names no day (``Phase 1/2``, ``Sprint 3 may
    slip``: a verb, not a month; 2月30日)."""
    if m["y1"]:
        return _iso(m["y1"], m["m1"], m["d1"])
    if m["m2"]:
        return _iso(m["y2"], m["m2"], m["d2"]) if m["y2"] else _month_and_day(m["m2"], m["d2"])
    if m["m3"]:
        before = m.string[max(0, m.start() - 16) : m.start()]
        weekday = bool(
            m["wd"]
            or _WEEKDAY_BEFORE.search(before)
            or _DEADLINE_AFTER.match(m.string, m.end())
            or _DEADLINE_BEFORE.search(before)
        )
        if not weekday and _is_a_score(m):
            return None
        return _slash_day(m["m3"], m["d3"], weekday)
    if m["m6"]:
        month_number, day_number = cjk_number(m["m6"]), cjk_number(m["d6"])
        if month_number is None or day_number is None:
            return None
        return _month_and_day(str(month_number), str(day_number))
    if m["mn"] is None and not m["mn5"][0].isupper():
        return None
    name, day, year = (m["mn"], m["d4"], m["y4"]) if m["mn"] else (m["mn5"], m["d5"], m["y5"])
    month = str(_MONTHS[name.lower()])
    return _iso(year, month, day) if year else _month_and_day(month, day)


def heading_date(title: str, reference: str | None = None) -> str | None:
    """The first date a heading names (``YYYY-MM-DD``), in any of the forms people write.

    A date with its year is taken as it is: ``2026-11-26``, ``2026/11/26``,
    ``2026年11月26日``, ``2026년 11월 26일``, ``Nov 26, 2026``, ``26 November 2026``. One without
    (``11/26 時点``, ``11月26日``, ``11월 26일``, ``Nov 26``, ``26 Nov``) is placed in the year nearest ``reference`` (the file's own day, else the day it
    was last modified); without a reference it is no date. A bare ``M/D`` counts only when
    one of its numbers has two digits or a weekday follows or comes just before it (``9/11 金``,
    ``9/8（火）``, ``周五（9/4）``), so that ``Phase 1/2`` is no date.
    """
    iso = first_date(title)
    if iso:
        return iso
    ref = date.fromisoformat(reference) if reference else None
    for m in _WRITTEN_DATE.finditer(title):
        found = _written_day(m)
        if found and found.startswith("--"):
            found = ref and _in_nearest_year(found, ref)
        if found:
            return found
    return None


_WEEKDAY_NUMBER = {
    **{w: i for i, w in enumerate(_EN_WEEKDAYS)},
    **{w: i for i, w in enumerate("一二三四五六日")},
    "天": 6,
    **{w: i for i, w in enumerate("月火水木金土日")},
    **{w: i for i, w in enumerate("월화수목금토일")},
}
_ZH_LAST_WEEK = "上周|上週|上星期|上个星期|上個星期|上礼拜|上禮拜|上个礼拜|上個禮拜"
_ZH_THIS_WEEK = (
    "这周|這週|本周|本週|这星期|這星期|这个星期|這個星期|这礼拜|這禮拜|这个礼拜|這個禮拜"
)
_ZH_NEXT_WEEK = "下周|下週|下星期|下个星期|下個星期|下礼拜|下禮拜|下个礼拜|下個禮拜"
"""How Chinese names the week before this one, this week and the next: one list for a weekday
of them (上个星期五) and for the whole week (上个星期), so that no form is one and not the
other."""

_OF_A_MONTH = (
    r"\s+(?:of|in)\s+(?:the\s+)?(?:(?:last|this|next)\s+month\b"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
)
"""Of or in a month after "last week" or "last Friday": a week or a day of that month (the
last week of October), not the one before this."""
_RELATIVE_DAY = re.compile(
    # yesterday / 昨天 …, and a weekday of the week before (last Friday, 上周五, 先週の金曜日)
    r"(?ai:\b(?P<back2>the\s+day\s+before\s+yesterday)\b|\b(?P<back1>yesterday|last\s+night)\b"
    r"|\b(?P<back0>today|tonight|this\s+(?:morning|afternoon|evening))\b"
    r"|\b(?P<ahead2>the\s+day\s+after\s+tomorrow)\b"
    rf"|\b(?P<ahead1>tomorrow)\b|\blast\s+(?P<en>{_EN_WEEKDAY})day\b(?!{_OF_A_MONTH})"
    rf"|\bthis\s+(?P<en_this>{_EN_WEEKDAY})day\b)"
    r"|(?P<zh2>(?<!大)前天|一昨日|おととい|그저께|그제)|(?P<zh1>昨天|昨日|昨晚|昨夜|きのう|ゆうべ|어제|어젯밤)"
    r"|(?P<zh0>今天|今日|今早|今晚|今朝|今夜|今晩|きょう|오늘)"
    r"|(?P<zh_ahead2>后天|後天|明後日|あさって|모레)|(?P<zh_ahead1>明天|明日(?!香)|あした|あす|내일)"
    # a weekday of the week before last: 上上周五, 先々週の金曜日, 지지난주 금요일
    rf"|上(?:{_ZH_LAST_WEEK})(?P<zh_2w>[一二三四五六日天])"
    r"|先[々先]週の?(?P<ja_2w>[月火水木金土日])曜日?|지지난\s?주\s?(?P<ko_2w>[월화수목금토일])요일"
    rf"|(?<!上)(?:{_ZH_LAST_WEEK})(?P<zh>[一二三四五六日天])"
    r"|先週の?(?P<ja>[月火水木金土日])曜日?|(?<!지)지난\s?주\s?(?P<ko>[월화수목금토일])요일"
    # and of this week: this Friday, 这周五, 今週の金曜日, 이번 주 금요일
    rf"|(?:{_ZH_THIS_WEEK})(?P<zh_this>[一二三四五六日天])"
    r"|今週の?(?P<ja_this>[月火水木金土日])曜日?|이번\s?주\s?(?P<ko_this>[월화수목금토일])요일"
    # and of next week: 下周五, 来週の金曜日, 다음 주 금요일 (not "next Friday": English says
    # it of this week's Friday as often as of the next one's)
    rf"|(?:{_ZH_NEXT_WEEK})(?P<zh_next>[一二三四五六日天])"
    r"|来週の?(?P<ja_next>[月火水木金土日])曜日?|다음\s?주\s?(?P<ko_next>[월화수목금토일])요일"
)


_PART_OF_DAY = re.compile(
    # the morning, noon, afternoon or evening of a day a question names: 上午, 下午, 晚上,
    # 午前, 午後, 夜, 오전, 오후, 저녁, morning, afternoon, evening, last night
    r"(?ai:\b(?P<morning>mornings?)\b|\b(?P<noon>noon|lunchtime)\b|\b(?P<afternoon>afternoons?)\b"
    r"|\b(?P<evening>evenings?|tonight|(?:at|last|that|the)\s+night)\b)"
    r"|(?P<zh_morning>上午|早上|早晨|清晨|今早|午前|今朝|朝(?=[\u3040-\u309f])|아침|오전)"
    r"|(?P<zh_noon>中午|正午|昼|점심)|(?P<zh_afternoon>下午|午後|오후)"
    r"|(?P<zh_evening>晚上|傍晚|晚间|今晚|昨晚|夜里|夜间|夜|夕方|晩|저녁|밤)"
)
PARTS_OF_DAY = {"morning": (5, 12), "noon": (11, 14), "afternoon": (12, 18), "evening": (17, 24)}
"""The hours (from, to) a part of the day names, as a timed entry (``### 14:30 - …``) is."""


class PartOfDay(NamedTuple):
    hours: tuple[int, int]
    """From which hour to which (:data:`PARTS_OF_DAY`)."""
    spans: list[tuple[int, int]]
    """Where the text names it."""


_CLOCK = re.compile(
    # 3pm, 3:30 p.m., at 15:00; 下午3点, 十点半, 3点的会; 午後3時, 15時; 오후 3시
    r"(?ai:\b(?P<en>\d{1,2})(?::[0-5]\d)?\s*(?P<en_half>[ap])\.?m\b\.?"
    r"|\bat\s+(?P<en24>\d{1,2}):[0-5]\d\b)"
    r"|(?:(?P<zh_part>上午|早上|中午|下午|晚上|午前|午後|오전|오후)\s*)?"
    r"(?P<zh>\d{1,2}|[一二三四五六七八九十两兩]{1,3})\s*"
    r"(?:[点點](?P<zh_after>半|钟|鐘|\d{1,2}\s*分|[的开開左])?"
    r"|[時时](?:半|\d{1,2}\s*分)?|시(?:\s*반|\s*\d{1,2}\s*분)?)"
)
_LATER = ("下午", "晚上", "午後", "오후")


def _clock_hour(m: re.Match[str]) -> int | None:
    """The hour (0-23) a match of :data:`_CLOCK` names, or ``None`` for a count (三点意见)."""
    if m["en"]:
        hour = int(m["en"]) % 12
        return hour + 12 if m["en_half"].lower() == "p" else hour
    if m["en24"]:
        hour = int(m["en24"])
        return hour + 12 if 1 <= hour <= 6 else hour  # at 3:30: a working day's 15:30
    word = m["zh"]
    if m["zh_part"] is None and m.group().rstrip()[-1] in "点點" and not m["zh_after"]:
        return None  # 三点意见, 3点: a count as often as a time, without 下午 or 的会 after it
    hour = cjk_number(word)
    if hour is None or hour > 24:
        return None
    if (m["zh_part"] in _LATER or (m["zh_part"] is None and 1 <= hour <= 6)) and hour < 12:
        hour += 12  # 下午3点; 3点的会 is at 15:00 as a working day says it
    return hour % 24


def part_of_day(text: str) -> PartOfDay | None:
    """The one part of a day ``text`` names (:data:`PARTS_OF_DAY`: 上午, 下午, 晚上, 午後, 夜,
    the morning, last night), or the one hour it names by the clock (3pm, at 15:00, 下午3点,
    十点半, 午後3時, 오후 3시: that hour to the next); ``None`` when it names none or several."""
    clocks = [(m, h) for m in _CLOCK.finditer(text) if (h := _clock_hour(m)) is not None]
    if len({h for _, h in clocks}) == 1:
        return PartOfDay((clocks[0][1], clocks[0][1] + 1), [m.span() for m, _ in clocks])
    found = list(_PART_OF_DAY.finditer(text))
    parts = {(m.lastgroup or "").removeprefix("zh_") for m in found}
    if len(parts) != 1:
        return None
    return PartOfDay(PARTS_OF_DAY[parts.pop()], [m.span() for m in found])


_ENTRY_TIME = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*|[-*+][ \t]+(?:\[[ xX]\][ \t]*)?)?(\d{1,2}):([0-5]\d)(?!\d)", re.M
)


def entry_hours(text: str) -> list[int]:
    """The hours of the timed entries in ``text``: a heading or a list item that starts with
    a time (``### 14:30 - deploy``, ``- 09:30 standup``)."""
    return [int(m[1]) for m in _ENTRY_TIME.finditer(text) if int(m[1]) < 24]


_RELATIVE_WEEK = re.compile(
    # last / this / next week, 上周 / 这周 / 下周, 先週 / 今週 / 来週, 지난주 / 이번 주 / 다음 주
    # (not 上周五: a day); the week before last, 上上周, 先々週, 지지난주
    r"(?ai:\b(?P<before_last>the\s+week\s+before\s+last)\b"
    r"|\b(?:(?P<last>last)|this|(?P<next>next))\s+week\b"
    rf"(?!{_OF_A_MONTH}))"
    rf"|(?:(?P<zh_before_last>上(?:{_ZH_LAST_WEEK})|先[々先]週|지지난\s?주)"
    rf"|(?P<zh_last>(?<!上)(?:{_ZH_LAST_WEEK})|先週|(?<!지)지난\s?주)|{_ZH_THIS_WEEK}|今週|이번\s?주"
    rf"|(?P<zh_next>{_ZH_NEXT_WEEK}|来週|다음\s?주))"
    r"(?!\s*[一二三四五六日天]|の?[月火水木金土日]曜|\s?[월화수목금토일]요일)"
)


_COUNT_GROUPS = ("count_en", "count_cjk", "count_ko", "count_ko_word")


def _shift(m: re.Match[str]) -> int | None:
    """How many weeks, months or years from this one a match of :data:`_RELATIVE_WEEK`,
    :data:`_RELATIVE_WEEKEND`, :data:`_RELATIVE_MONTH` or :data:`_YEAR` names: −2 for the one
    before last, −1 for the last, 1 for the next, minus a count back (two months ago: −2; 0
    for "0 months ago"); ``None`` for this one. Its groups say which, whichever it has."""
    group = m.groupdict()
    if group.get("before_last") or group.get("zh_before_last"):
        return -2
    if group.get("last") or group.get("zh_last"):
        return -1
    if group.get("next") or group.get("zh_next"):
        return 1
    count = next((group[k] for k in _COUNT_GROUPS if group.get(k)), None)
    return -_count(count) if count else None


def _relative_week(m: re.Match[str], today: date) -> list[date]:
    """The days a match of :data:`_RELATIVE_WEEK` names, seen from ``today``: Monday to
    Sunday of the week before this one, of the one before that or of the next, or this week's
    Monday to today."""
    monday = today - timedelta(days=today.weekday())
    shift = _shift(m)
    if shift is None:
        return [monday + timedelta(days=n) for n in range(today.weekday() + 1)]
    return [monday + timedelta(days=7 * shift + n) for n in range(7)]


_RELATIVE_WEEKEND = re.compile(
    # last / this weekend, 上周末, 这个周末, 下周末, 先週末, 今週末, 来週末, 지난 주말, 이번 주말,
    # 다음 주말; the weekend before last, 上上周末, 先々週末 (not "next weekend": English says it
    # of this week's weekend as often as of the next one's, as it does "next Friday")
    r"(?ai:\b(?P<before_last>the\s+weekend\s+before\s+last)\b"
    r"|\b(?:(?P<last>last|(?:this\s+|the\s+)?past)|this)\s+weekend\b)"
    rf"|(?P<zh_before_last>上(?:{_ZH_LAST_WEEK})末|先[々先]週末|지지난\s?주말)"
    rf"|(?P<zh_last>(?<!上)(?:{_ZH_LAST_WEEK}|上个周|上個週|上個周)末|先週末|(?<!지)지난\s?주말)"
    rf"|(?P<zh_next>(?:{_ZH_NEXT_WEEK}|下个周|下個週|下個周)末|[来來]週末|다음\s?주말)"
    rf"|(?:{_ZH_THIS_WEEK}|这个周|這個週|這個周|这个週)末|今週末|이번\s?주말"
)


def _relative_weekend(m: re.Match[str], today: date) -> list[date]:
    """The Saturday and Sunday a match of :data:`_RELATIVE_WEEKEND` names, seen from ``today``:
    those of the calendar week (Monday to Sunday) before this one, of this one, of the next or
    of the week before last, as :func:`_relative_week` counts weeks."""
    return _weekend_of(today + timedelta(days=7 * (_shift(m) or 0)))


_NEXT_WEEKEND = re.compile(r"(?ai:\bnext\s+weekend\b)")
"""Next weekend in a note: the coming one or the one after, both (:func:`weekends_from`)."""
_BARE_WEEKEND = re.compile(
    # a weekend a note names alone: 周末再回她, 週末は美咲が来る, 주말에, over the weekend (not
    # every weekend, 每个周末, 毎週末, 매주 주말, weekends; nor 周末 of 上周末: _RELATIVE_WEEKEND)
    r"(?ai:(?<!every\s)(?<!each\s)\bthe\s+weekend\b)"
    r"|(?<![每毎个個])(?<!每个)(?<!每個)(?:周末|週末)"
    r"|(?<!매주\s)(?<!매)주말"
)


def weekends_from(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the Saturday and Sunday of each weekend a note written on
    ``today`` names: this, last or next weekend as a question's (:data:`_RELATIVE_WEEKEND`);
    "next weekend", which a question's days leave out, as both the coming one and the one
    after; and a weekend the note names alone (``周末再回她``, ``週末は美咲が上海に来る``, ``over
    the weekend``): the one it is written on; else, on a weekday, the one before when its
    clause says what was (``周末 DAG fail 了 5 次``, ``周末已经迁完``, :data:`_WAS`), the one
    after when it says what will be (``周末再回她``, :data:`_WILL`), and both when it says
    neither (``周末还是我 on-call``). A note names a weekend for the plans made for it; a day no
    log is kept of."""
    found = [
        (m.start(), m.end(), day.isoformat())
        for m in _RELATIVE_WEEKEND.finditer(text)
        for day in _relative_weekend(m, today)
    ]
    for m in _NEXT_WEEKEND.finditer(text):
        found += [
            (m.start(), m.end(), day.isoformat())
            for week in (today, today + timedelta(days=7))
            for day in _weekend_of(week)
        ]
    named = list(found)  # weekends named with a word for the week: 这个周末, next weekend
    stops = [m.span() for m in _CLAUSE_END.finditer(text)]
    weeks_of: dict[tuple[int, int], list[date]] = {}  # by clause: read once
    for m in _BARE_WEEKEND.finditer(text):
        if _overlaps(m.start(), m.end(), named):
            continue
        if today.weekday() >= 5:
            weeks = [today]
        else:
            clause = _clause(stops, m.start(), m.end(), len(text))
            if clause not in weeks_of:
                weeks_of[clause] = _weeks_by_tense(text[clause[0] : clause[1]], today)
            weeks = weeks_of[clause]
        found += [
            (m.start(), m.end(), day.isoformat()) for week in weeks for day in _weekend_of(week)
        ]
    return sorted(found)


def _weeks_by_tense(clause: str, today: date) -> list[date]:
    """A day of each week whose weekend a clause written on the weekday ``today`` names alone:
    the one after when it says what will be, the one before when it says what was, else both."""
    if _WILL.search(clause):
        return [today]
    if _WAS.search(clause):
        return [today - timedelta(days=7)]
    return [today - timedelta(days=7), today]


_CLAUSE_END = re.compile(r"[。！？!?；;，、\n]|[.,](?:\s|$)")


def _clause(stops: list[tuple[int, int]], start: int, end: int, size: int) -> tuple[int, int]:
    """Where the clause holding ``start``–``end`` begins and ends, given the ``stops`` of a text
    of ``size`` characters (:data:`_CLAUSE_END`'s spans, in order): from the last stop before
    it to the first after it."""
    at = bisect.bisect_left(stops, (start, start))
    begin = stops[at - 1][1] if at else 0
    after = bisect.bisect_left(stops, (end, end))
    return begin, stops[after][0] if after < len(stops) else size


_WAS = re.compile(
    r"(?ai:\b(?:was|were|did|had|went|got|spent|\w{3,}ed)\b)"
    r"|(?<![除为為])了|已经|已經|已|完(?![成善整全美])|过了|過了|した|った|ました|でした|だった"
    r"|했|었|았|였"
)
"""A clause about what was: a note's weekend alone is the one before it."""
_WILL = re.compile(
    r"(?ai:\b(?:will|going\s+to|plan(?:ned)?|scheduled|coming|due)\b|'ll\b)"
    r"|要|再|打算|准备|準備|计划|計劃|安排|预定|預定|予定|つもり|来る|行く|する|예정|계획|할\s?거"
)
"""A clause about what will be: a note's weekend alone is the one after it (read before
:data:`_WAS`, as "planned" or "scheduled" end in -ed)."""


def _weekend_of(day: date) -> list[date]:
    """The Saturday and Sunday of the calendar week (Monday to Sunday) holding ``day``."""
    saturday = day + timedelta(days=5 - day.weekday())
    return [saturday, saturday + timedelta(days=1)]


_BARE_WEEKDAY = re.compile(
    # on Tuesday; 周二, 星期二, 礼拜二, 火曜日, 화요일 with no word naming its week before it (上周二,
    # this Friday: _RELATIVE_DAY), nor one making it a span's end or a habit (从周一改到周二,
    # every Tuesday, 每周二, 毎週火曜, 매주 화요일), nor a plural (on Tuesdays), nor a count (一周二次)
    rf"(?ai:(?<!every\s)(?<!each\s)(?:\bon\s+|(?<=\bsince\s))(?P<en>{_EN_WEEKDAY})day\b"
    r"(?!s\b|\s*(?:and|or|to|through|till|until)\b|\s*[-–]))"
    r"|(?<![每从從到至和或上下这這本个個今来來先、A-Za-z0-9一二三四五六七八九十两兩几幾])"
    rf"(?:{_ZH_WEEK_WORD})(?P<zh>[一二三四五六日天])(?![到至和或、次十年]|\s*[-–~〜])"
    r"|(?<![毎每週今来來先、A-Za-z0-9終の1-4１-４])(?P<ja>[月火水木金土日])曜日?(?![日からまでと、]|\s*[-–~〜])"
    r"|(?<!매주)(?<!매주\s)(?P<ko>[월화수목금토일])요일(?!부터|까지|과|와|이나)"
)
"""A weekday a question names alone. Which one it means is read from the question's tense
(:data:`_AHEAD`): the latest before today, or the next from today."""
_AHEAD = re.compile(
    r"(?ai:\b(?:will|going\s+to|plan(?:ned)?|scheduled|upcoming|coming|due)\b"
    r"|\bwhat(?:'s|\s+is)\s+on\b)"
    r"|安排|计划|計劃|打算|预定|預定|要做|会做|會做|予定|つもり|예정|계획|할\s?거"
)
"""A question about what is planned: a weekday it names alone is the next one."""
_PAST = re.compile(
    r"(?ai:\b(?:did|was|were|had|happened|went|said|met|ate|made|took)\b|\b\w{3,}ed\b)"
    r"|了|过|過|した|った|んだ|いた|ました|でした|だった|했|었|았|였"
)
"""A question about what was: a weekday it names alone is the latest before today. One with
neither tense asks about a habit as often (``周二的例会几点开始？``, ``what time is the standup
on Tuesday?``) and names no day."""
_ANY_WEEKDAY = re.compile(
    rf"(?ai:\b({_EN_WEEKDAY})days?\b)"
    rf"|(?:{_ZH_WEEK_WORD})([一二三四五六日天])|([月火水木金土日])曜|([월화수목금토일])요일"
)


_HABIT = re.compile(
    r"一般|通常|平时|平時|每年|往年|毎年|いつも|매년|보통"
    r"|(?ai:\b(?:usually|typically|normally|generally|every\s+year)\b)"
)
"""A question about what is done as a rule (周末一般怎么过, 中秋一般怎么过, what do I usually do
on Tuesday?): no one weekend, weekday, day or holiday, whatever tense its verb seems to have
(过 of 怎么过 reads as past)."""


def _bare_weekday(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` of the one weekday a question names alone (``what did I do on
    Tuesday?``, ``周二做了什么？``, ``火曜日に何をした？``, ``화요일에 뭐 했어?``): the latest
    before today, or, in a question about plans (``what's on Friday?``, ``周五有什么安排？``),
    the next from today. None when it names two weekdays or more (a change from one to the
    other, a range), or when the question has neither tense (:data:`_PAST`)."""
    m = _BARE_WEEKDAY.search(text)
    if m is None or _HABIT.search(text):
        return []
    named = {
        _WEEKDAY_NUMBER[next(w for w in n.groups() if w).lower()]
        for n in _ANY_WEEKDAY.finditer(text)
    }
    since = _SINCE_BEFORE.search(text, 0, m.start()) is not None  # since Monday: the past
    ahead = _AHEAD.search(text) is not None and not since
    if len(named) != 1 or not (ahead or since or _PAST.search(text)):
        return []
    number = named.pop()
    if ahead:
        day = today + timedelta(days=(number - today.weekday()) % 7)
    else:
        day = today - timedelta(days=(today.weekday() - number) % 7 or 7)
    return [(m.start(), m.end(), day.isoformat())]


def _asked_weekend(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the Saturday and Sunday of the weekend a question names alone
    (``what did I do over the weekend?``, ``周末做了什么？``, ``週末は何をした？``, ``周末有什么安排？``):
    by its tense (:data:`_PAST`, :data:`_AHEAD`), the latest up to today, or the next from
    today; none when it has neither (``周末一般几点起？``: a habit)."""
    m = _BARE_WEEKEND.search(text)
    if m is None or _HABIT.search(text):
        return []
    ahead = _AHEAD.search(text) is not None
    if ahead:
        days = [d for d in _weekend_of(today) if d >= today]
    elif _PAST.search(text):
        days = [d for d in _weekend_of(today) if d <= today] or _weekend_of(
            today - timedelta(days=7)
        )
    else:
        return []
    return [(m.start(), m.end(), day.isoformat()) for day in days]


_HOLIDAYS = (
    # (how it is written, its first day, how many days)
    (
        r"国庆|國慶|十一(?:假期|长假|長假|黄金周|黃金週)|(?ai:\bnational\s+day\s+(?:holiday|break)s?\b)",
        (10, 1),
        7,
    ),
    (
        r"五一(?:假期|长假|長假|劳动节|勞動節)?(?![路街号號广廣场場中小大公])|劳动节|勞動節|\bMay\s+Day\b",
        (5, 1),
        5,
    ),
    (r"元旦|元日|(?ai:\bnew\s+year'?s\s+day\b)", (1, 1), 1),
    (r"跨年|大晦日|(?ai:\bnew\s+year'?s\s+eve\b)", (12, 31), 1),
    (r"平安夜|クリスマスイブ|(?ai:\bchristmas\s+eve\b)|크리스마스\s?이브", (12, 24), 1),
    (
        r"(?:圣诞|聖誕)(?!老人|树|樹|卡)|クリスマス(?!イブ|ツリー|カード)|크리스마스(?!\s?이브|\s?트리)"
        r"|(?ai:\b(?:christmas|xmas)\b(?!\s+(?:eve|tree|card|list|market|lights)))",
        (12, 24),
        3,
    ),
    (
        r"(?<!白色)(?<!七夕)(?:情人节|情人節)|バレンタイン|발렌타인|(?ai:\bvalentine'?s\b)",
        (2, 14),
        1,
    ),
    (r"万圣节|萬聖節|ハロウィン|핼러윈|할로윈|(?ai:\bhalloween\b)", (10, 31), 1),
    (r"双十一|雙十一|双11|雙11|(?ai:\bsingles'?\s+day\b)", (11, 11), 1),
    (r"ゴールデンウィーク", (4, 29), 7),
    (r"お盆", (8, 13), 4),
    # the lunar ones, by :data:`_LUNAR`: New Year's Eve to the sixth day of the year, the eve;
    # the day before to the day after
    (
        r"春节|春節|过年|過年|(?ai:\b(?:chinese|lunar)\s+new\s+year\b|\bspring\s+festival\b)|旧正月",
        ("new_year", -1),
        8,
    ),
    (r"除夕|大年三十|年三十", ("new_year", -1), 1),
    (r"설날|설\s?연휴", ("new_year", -1), 3),
    (r"中秋|(?ai:\bmid[\s-]autumn\b)|추석", ("mid_autumn", -1), 3),
    (r"端午|(?ai:\bdragon\s+boat\b)", ("dragon_boat", -1), 3),
)
"""The holidays a question may name, by the day they begin and how many days they last: 国庆 is
1–7 October, 五一 1–5 May, Christmas 24–26 December, ゴールデンウィーク 29 April – 5 May, お盆
13–16 August; 春节 New Year's Eve to the sixth day of the lunar year, 中秋, 추석 and 端午 the day
before to the day after (:data:`_LUNAR`, 2020–2035; none in other years)."""
_LUNAR = {
    # year: (lunar new year, Dragon Boat Festival 5/5, Mid-Autumn Festival 8/15), Gregorian;
    # read from the lunar calendar (the lunardate package) once, not computed here
    2020: ("2020-01-25", "2020-06-25", "2020-10-01"),
    2021: ("2021-02-12", "2021-06-14", "2021-09-21"),
    2022: ("2022-02-01", "2022-06-03", "2022-09-10"),
    2023: ("2023-01-22", "2023-06-22", "2023-09-29"),
    2024: ("2024-02-10", "2024-06-10", "2024-09-17"),
    2025: ("2025-01-29", "2025-05-31", "2025-10-06"),
    2026: ("2026-02-17", "2026-06-19", "2026-09-25"),
    2027: ("2027-02-06", "2027-06-09", "2027-09-15"),
    2028: ("2028-01-26", "2028-05-28", "2028-10-03"),
    2029: ("2029-02-13", "2029-06-16", "2029-09-22"),
    2030: ("2030-02-03", "2030-06-05", "2030-09-12"),
    2031: ("2031-01-23", "2031-06-24", "2031-10-01"),
    2032: ("2032-02-11", "2032-06-12", "2032-09-19"),
    2033: ("2033-01-31", "2033-06-01", "2033-09-08"),
    2034: ("2034-02-19", "2034-06-20", "2034-09-27"),
    2035: ("2035-02-08", "2035-06-10", "2035-09-16"),
}
_LUNAR_DAYS = ("new_year", "dragon_boat", "mid_autumn")
_HOLIDAY = re.compile(
    "|".join(f"(?P<h{i}>{pattern})" for i, (pattern, _, _) in enumerate(_HOLIDAYS))
)


def is_holiday(text: str) -> bool:
    """Whether ``text`` is the name of a holiday of :data:`_HOLIDAYS` (国庆, Christmas): a word
    notes write too, unlike yesterday or 9/3, so a question keeps it as a term as well."""
    return _HOLIDAY.fullmatch(text) is not None


def _asked_holiday(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the days of each holiday a question names (:data:`_HOLIDAYS`),
    by its tense as a weekend alone (:func:`_asked_weekend`): the latest to have begun by
    today, or the next not yet over; none when it has neither tense or asks about every year
    (``国庆一般去哪？``, ``中秋一般怎么过``)."""
    ahead = _AHEAD.search(text) is not None
    if (not ahead and _PAST.search(text) is None) or _HABIT.search(text):
        return []
    found = []
    for m in _HOLIDAY.finditer(text):
        _, when, length = _HOLIDAYS[int((m.lastgroup or "h0")[1:])]
        first = _holiday_in(when, today.year)
        if first is not None and ahead and first + timedelta(days=length - 1) < today:
            first = _holiday_in(when, today.year + 1)
        elif first is not None and not ahead and first > today:
            first = _holiday_in(when, today.year - 1)
        if first is None:
            continue  # a lunar holiday of a year the table does not hold
        found += [
            (m.start(), m.end(), (first + timedelta(days=n)).isoformat()) for n in range(length)
        ]
    return found


def _holiday_in(when: tuple[int, int] | tuple[str, int], year: int) -> date | None:
    """The first day of a holiday of :data:`_HOLIDAYS` in ``year``: a fixed ``(month, day)``,
    or a day of :data:`_LUNAR` and how many days before or after it the holiday begins."""
    if isinstance(when[0], int):
        return date(year, when[0], when[1])
    if year not in _LUNAR:
        return None
    day = date.fromisoformat(_LUNAR[year][_LUNAR_DAYS.index(when[0])])
    return day + timedelta(days=when[1])


_EN_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNTS = {
    **{w: n for n, w in enumerate(_EN_COUNTS, 1)},
    "a": 1,
    "an": 1,
    **{w: n for n, w in enumerate(_CJK_COUNTS, 1)},
    "两": 2,
    "兩": 2,
    **{w: n for n, w in enumerate(("한", "두", "세", "네", "다섯", "여섯"), 1)},  # 두 달 전
}
"""Numbers written as words in a count back from today (two weeks ago, 三天前, 두 달 전)."""
_EN_COUNT = r"\d{1,2}|an?|" + "|".join(_EN_COUNTS)
_CJK_COUNT = rf"\d{{1,2}}|[{_CJK_COUNTS}两兩]"
_NOT_AFTER_COUNT = rf"(?<![\d{_CJK_COUNTS}两兩])"  # 十一天前 is no 一天前


def _count(word: str) -> int:
    """The number a count of :data:`_EN_COUNT`, :data:`_CJK_COUNT` or :data:`_COUNTS` writes."""
    return int(word) if word.isdigit() else _COUNTS.get(word.lower(), 0)


_RELATIVE_MONTH = re.compile(
    # last / this / next month, 上个月 / 这个月 / 下个月, 先月 / 今月 / 来月, 지난달 / 이번 달 / 다음 달;
    # so many months back: two months ago, 两个月前, 2か月前, 2개월 전, 두 달 전, and the month
    # before last, 上上个月, 先々月, 지지난달
    rf"(?ai:\b(?P<count_en>{_EN_COUNT})\s+"
    r"months?\s+ago\b|\b(?P<before_last>the\s+month\s+before\s+last)\b"
    r"|\b(?:(?P<last>last)|this|(?P<next>next))\s+month\b)"
    rf"|{_NOT_AFTER_COUNT}(?P<count_cjk>{_CJK_COUNT})\s*"
    r"(?:[个個]月|[かカヶケ箇]月)(?:之|以)?前"
    r"|(?P<count_ko>\d{1,2})\s*개월\s*전|(?P<count_ko_word>한|두|세|네|다섯|여섯)\s?달\s*전"
    r"|(?P<zh_before_last>上上[个個]?月|先[々先]月|지지난\s?달)"
    r"|(?P<zh_last>(?<!上)(?:上个月|上個月|上月)|先月|(?<!지)지난\s?달)|这个月|這個月|本月|今月"
    r"|이번\s?달|(?P<zh_next>下个月|下個月|下月|来月|다음\s?달)"
)


_MONTH_WORD = re.compile(
    # in September, during Sept 2026: an English month only after a word that makes it one
    rf"(?ai:\b(?:in|during|since|until|through|throughout|early|late|mid|of)\s+|\bmid-)"
    rf"(?P<name>(?i:{_MONTH_NAME}))(?![A-Za-z0-9])\.?(?:,?\s+(?P<year>\d{{4}})(?!\d))?(?!\s*\d)"
    # 9月, 9月份, 2026年9月, 9월, 2026년 9월: a month and no day
    r"|(?<![\d/.\-])(?:(?P<cjk_year>\d{4})\s*[年년]\s*)?(?P<cjk>\d{1,2})\s*[月월](?:份)?(?!\s*\d|曜)"
    # 九月, 十一月份: in Chinese numerals (not 一个月, 九月三日)
    rf"|(?<![{_CJK_COUNTS}\d第])(?P<cjk_word>十[一二]?|[一二三四五六七八九])月(?:份)?"
    rf"(?![{_CJK_COUNTS}\d日号號曜天怀懷与與])"  # not 五月天, 十月怀胎, 七月与安生
)


def _days_of_month(year: int | None, month: int, until: date | None = None) -> list[str]:
    """Each day of a month, ``YYYY-MM-DD`` or, without a year, ``--MM-DD`` (29 February
    included), up to ``until``."""
    first = date(year or 2000, month, 1)
    days = []
    day = first
    while day.month == month and (until is None or day <= until):
        days.append(day.isoformat() if year else f"--{day.month:02d}-{day.day:02d}")
        day += timedelta(days=1)
    return days


def _named_months(text: str, today: date | None) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for each day of each month ``text`` names (see
    :func:`named_days`)."""
    found: list[tuple[int, int, str]] = []
    for m in _MONTH_WORD.finditer(text):
        if m["name"]:
            month, year = _MONTHS[m["name"].lower()], m["year"]
            start = m.start("name")
        elif m["cjk_word"]:
            month, year = cjk_number(m["cjk_word"]) or 0, None
            start = m.start()
        else:
            month, year = int(m["cjk"]), m["cjk_year"]
            start = m.start()
        if 1 <= month <= 12:
            days = _days_of_month(int(year) if year else None, month)
            found += _part_of_month(text, start, m.end(), days, today)
    if today is not None:
        for m in _RELATIVE_MONTH.finditer(text):
            shift = _shift(m)
            if shift == 0:
                continue  # 0 months ago
            until = None
            if shift is None:  # this month: up to today, but its end is its end
                year, month, until = today.year, today.month - 1, today
                days = _days_of_month(today.year, today.month)
            else:
                year, month = divmod(today.year * 12 + today.month - 1 + shift, 12)
                days = _days_of_month(year, month + 1)
            if day := _day_of_the_month(text, m.start(), m.end()):
                start, end, number = day
                if number <= calendar.monthrange(year, month + 1)[1]:
                    found.append((start, end, date(year, month + 1, number).isoformat()))
                continue
            found += _part_of_month(text, m.start(), m.end(), days, today, until)
    return found


_DAY_AFTER_MONTH = re.compile(
    rf"\s*[的の]?\s*(?P<d>\d{{1,2}}|{_CJK_DAY})\s*(?:[号號]|日(?![游遊间間内內])|일(?!간|동안))(?!\d)"
    r"|(?ai:\s+on\s+the\s+(?P<nth>\d{1,2})(?:st|nd|rd|th)\b)"
)
_RANGE_ON = re.compile(r"\s*(?:到|至|~|〜|-|–|から|부터|(?ai:to|until|through)\b)")
_RANGE_BACK = re.compile(r"(?ai:\b(?:to|until|through|and)\s+|[-–~〜]\s*)$")
_NTH_OF = re.compile(r"(?ai:\bthe\s+(?P<d>\d{1,2})(?:st|nd|rd|th)\s+of\s+(?:the\s+)?)$")


def _day_of_the_month(text: str, start: int, end: int) -> tuple[int, int, int] | None:
    """``(start, end, day of the month)`` when a month named from today at ``start``–``end``
    is followed by a day of it (上个月3号, 这个月的十五号, 지난달 3일) or preceded by one (the 3rd
    of last month); ``None`` when not."""
    after = _DAY_AFTER_MONTH.match(text, end)
    before = _NTH_OF.search(text[max(0, start - 24) : start])
    if (after is not None and _RANGE_ON.match(text, after.end())) or (
        before is not None and _RANGE_BACK.search(text, 0, start - len(before.group()))
    ):
        return None  # 上个月3号到5号, from the 1st to the 5th of last month: the month
    if after is not None:
        number, end = after["d"] or after["nth"], after.end()
    elif before is not None:
        number, start = before["d"], start - len(before.group())
    else:
        return None
    day = cjk_number(number)
    return (start, end, day) if day and 1 <= day <= 31 else None


_BARE_DAY = re.compile(
    rf"(?<![\d月/.\-{_CJK_COUNTS}])(?P<d>\d{{1,2}}|{_CJK_DAY})\s*[号號]"
    r"(?=那一?天|当天|當天|这天|這天|做|干|幹|有|在|去|见|見|跟|和|的|上午|下午|早上|中午|晚上"
    r"|[？?，,。！!\s]|$)"
    r"|(?ai:\bon\s+the\s+(?P<nth>\d{1,2})(?:st|nd|rd|th))(?=\s*(?:[?.,!;]|$))"
)
"""A day of the month named alone in a question: 3号做了什么？, 十五号那天, what did I do on the
3rd? (not 3号线, 3号楼, on the 3rd floor)."""


def _bare_day(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the days of the month a question names alone
    (:data:`_BARE_DAY`): by its tense (:data:`_AHEAD`), the next such day from ``today`` or
    else the latest up to it, in the nearest month that has it (31号 asked on 15 October:
    31 August)."""
    if _HABIT.search(text):
        return []  # 每月15号一般做什么: no one month's
    ahead = _AHEAD.search(text) is not None
    found = []
    for m in _BARE_DAY.finditer(text):
        number = m["nth"] or m["d"]
        day = cjk_number(number)
        if not day or not 1 <= day <= 31:
            continue
        step = 1 if ahead else -1
        months = today.year * 12 + today.month - 1
        if (day < today.day) if ahead else (day > today.day):
            months += step
        for _ in range(3):  # a month without that day: the one after or before it
            year, month = divmod(months, 12)
            if day <= calendar.monthrange(year, month + 1)[1]:
                found.append((m.start(), m.end(), date(year, month + 1, day).isoformat()))
                break
            months += step
    return found


_PART_AFTER = re.compile(
    # 9月初, 9月上旬, 9月初め, 9월 초; 9月中旬, 9월 중순; 9月底, 9月末, 9月下旬, 9월 말, 上个月底
    r"\s*(?:(?P<early>初め|初(?![一二三四五六七八九十])|上旬|はじめ|頭|초순|초(?![가-힣])|초(?=에|의|부터|까지))"
    r"|(?P<mid>中旬|중순)|(?P<late>底|末|下旬|말(?![가-힣])|말(?=에|의|부터|까지)|하순))"
)
_PART_BEFORE = re.compile(
    # early September, mid-Sept, late September, the beginning / middle / end of September,
    # the end of last month
    r"(?ai:\b(?:(?P<early>early|beginning\s+of|start\s+of)|(?P<mid>mid|middle\s+of)"
    r"|(?P<late>late|end\s+of))[\s-]*(?:(?:in|of|during)\s+)?)$"
)
_PARTS = {"early": (1, 10), "mid": (11, 20), "late": (21, 31)}
"""The days of a month its beginning, middle and end name (上旬, 中旬, 下旬)."""


_ORDINAL_WORDS = {
    **dict.fromkeys(("first", "1st", "一", "1", "１", "첫째", "첫"), 1),
    **dict.fromkeys(("second", "2nd", "二", "2", "２", "둘째"), 2),
    **dict.fromkeys(("third", "3rd", "三", "3", "３", "셋째"), 3),
    **dict.fromkeys(("fourth", "4th", "四", "4", "４", "넷째"), 4),
}
_SECTION_AFTER = re.compile(
    # 9月第一周, 9月的第2个星期, 9月の第1週, 9월 첫째 주; 10月最后一周, 10月の最終週, 10월 마지막 주;
    # 9月第一个周一, 9月の第1月曜日; 10月最后一个周五, 10月の最終金曜日, 10月最後の金曜日;
    # 9月上半月 / 下半月, 9月の前半 / 後半; 8月最后一天, 8月の最終日 / 末日, 8월 마지막 날, 9月第一天
    rf"\s*(?:的|の)?\s*(?:第\s*(?P<n>[一二三四1-4１-４])\s*[个個]?"
    rf"(?:(?:{_ZH_WEEK_WORD})(?!末)(?P<n_wd>[一二三四五六日天])?|(?P<n_ja_wd>[月火水木金土日])曜日?|週(?!末))"
    rf"|(?:最后一?[个個]?|最後の?|最終)(?:(?:{_ZH_WEEK_WORD})(?P<last_wd>[一二三四五六日天])?"
    r"|(?P<last_ja_wd>[月火水木金土日])曜日?|週|(?P<last_day>一?天|日))"
    r"|(?P<first_day>第一天|初日|最初の日)|(?P<end_day>末日)"
    r"|(?P<first_half>上半月|前半)|(?P<second_half>下半月|後半)"
    r"|(?P<ko_n>첫째|첫|둘째|셋째|넷째)\s?주(?!말)|(?P<ko_last>마지막)\s?주(?!말)"
    r"|(?P<ko_first_day>첫\s?날)|(?P<ko_last_day>마지막\s?날))"
)
_SECTION_BEFORE = re.compile(
    # the first week of September, the last week of last month, the second half of October,
    # the last day of August, the first Monday of September, (the) last Friday of October
    r"(?ai:(?:\bthe\s+|\b(?=last\s))(?:(?P<n>first|second|third|fourth|1st|2nd|3rd|4th)"
    r"|(?P<last>last))\s+(?:(?P<week>week)|(?P<half>half)|(?P<day>day)"
    rf"|(?P<wd>{_EN_WEEKDAY})day)\s+(?:of|in)\s+(?:the\s+)?)$"
)


def _section(text: str, start: int, end: int) -> tuple[int, int, str, int] | None:
    """``(start, end, kind, n)`` when words just after or before a month at ``start``–``end``
    name a week of it (kind ``week``, n 1–4 or −1 for the last), a half (``half``, 1 or 2),
    its first or last day (``day``, 1 or −1) or the nth or last of a weekday in it (``weekday``,
    n·10 + the weekday's number); the span taking them in."""
    if m := _SECTION_AFTER.match(text, end):
        g = m.groupdict()
        end = m.end()
        if g["n"]:
            n = _ORDINAL_WORDS[g["n"]]
            if wd := g["n_wd"] or g["n_ja_wd"]:
                return start, end, "weekday", n * 10 + _WEEKDAY_NUMBER[wd]
            return start, end, "week", n
        if g["last_wd"] or g["last_ja_wd"]:
            return start, end, "weekday", -10 + _WEEKDAY_NUMBER[g["last_wd"] or g["last_ja_wd"]]
        if g["last_day"] or g["end_day"] or g["ko_last_day"]:
            return start, end, "day", -1
        if g["first_day"] or g["ko_first_day"]:
            return start, end, "day", 1
        if g["first_half"] or g["second_half"]:
            return start, end, "half", 1 if g["first_half"] else 2
        if g["ko_n"]:
            return start, end, "week", _ORDINAL_WORDS[g["ko_n"]]
        return start, end, "week", -1  # 最后一周, 最終週, 마지막 주
    if m := _SECTION_BEFORE.search(text, max(0, start - 32), start):
        n = -1 if m["last"] else _ORDINAL_WORDS[m["n"].lower()]
        start = m.start()
        if m["week"]:
            return start, end, "week", n
        if m["half"]:
            return start, end, "half", 2 if n in (-1, 2) else 1
        if m["day"]:
            return start, end, "day", n
        return start, end, "weekday", n * 10 + _WEEKDAY_NUMBER[m["wd"].lower()]
    return None


def _days_of_section(days: list[str], kind: str, n: int, today: date | None) -> list[str]:
    """The ``days`` of a month (in order) that a :func:`_section` names: days 1–7, 8–14,
    15–21, 22–28 or the last seven for a week, 1–15 or the rest for a half; the nth or last
    of a weekday only when the month's year is known (or is the latest such month up to
    ``today``), else all of them."""
    if kind == "week":
        return days[-7:] if n < 0 else days[(n - 1) * 7 : n * 7]
    if kind == "half":
        return days[:15] if n == 1 else days[15:]
    if kind == "day":
        return days[-1:] if n < 0 else days[n - 1 : n]
    first = days[0]
    if first.startswith("--"):
        if today is None:
            return days
        first = _latest_by(first, today)
    year = int(first[:4])
    weekday = n % 10 if n > 0 else n + 10
    length = calendar.monthrange(year, int(first[5:7]))[1]  # no 29 February in 2026
    matching = [
        day
        for day in days
        if int(day[-2:]) <= length
        and date(year, int(day[-5:-3]), int(day[-2:])).weekday() == weekday
    ]
    picked = matching[-1:] if n < 0 else matching[n // 10 - 1 : n // 10]
    return [f"{year}{day[-6:]}" if day.startswith("--") else day for day in picked]


def _part_of_month(
    text: str,
    start: int,
    end: int,
    days: list[str],
    today: date | None = None,
    until: date | None = None,
) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the ``days`` of a month ``text`` names at ``start``–``end``,
    or of the part of it a word just after or before the month names (9月初, 9月底, early
    September, the end of last month: :data:`_PARTS`; the first week of September, 9月第一周,
    10月最后一周, the second half of October, 8月最后一天, the last Friday of October:
    :func:`_section`), the span taking that word in."""
    if section := _section(text, start, end):
        start, end, kind, n = section
        return [(start, end, day) for day in _days_of_section(days, kind, n, today)]
    part = None
    if after := _PART_AFTER.match(text, end):
        part, end = after.lastgroup, after.end()
    elif before := _PART_BEFORE.search(text, max(0, start - 24), start):
        part, start = before.lastgroup, before.start()
    if part is not None:
        low, high = _PARTS[part]
        days = [day for day in days if low <= int(day[-2:]) <= high]
    elif until is not None:  # the month alone (this month): its days up to today
        days = [day for day in days if day <= until.isoformat()]
    return [(start, end, day) for day in days]


_YEAR = re.compile(
    # last year, 去年, 昨年, 작년, 지난해; the year before last, 前年, 一昨年, 재작년; so many years
    # back: two years ago, 两年前, 2年前, 2년 전 (from today); and a year named: in 2025, 2025年,
    # 2025년 (not this year, 今年: most of a memory, whose own words answer better)
    rf"(?ai:\b(?P<count_en>{_EN_COUNT})\s+years?\s+ago\b"
    r"|\b(?P<before_last>the\s+year\s+before\s+last)\b|\b(?P<last>last)\s+year\b"
    r"|\b(?:in|during|throughout|of)\s+(?P<named>(?:19|20)\d\d)\b(?!\s*[-/.:]\s*\d))"
    rf"|{_NOT_AFTER_COUNT}(?P<count_cjk>{_CJK_COUNT})\s*年(?:之|以)?前|(?P<count_ko>\d{{1,2}})\s*년\s*전"
    r"|(?P<zh_before_last>(?<!一)前年(?!比|度)|一昨年|재작년|지지난\s?해)"
    r"|(?P<zh_last>去年|昨年(?!比|度)|작년|(?<!지)지난\s?해)"
    r"|(?<![\d/.\-])(?P<named_cjk>(?:19|20)\d\d)\s*[年년](?!\s*\d|度)"
)


def _named_years(text: str, today: date | None) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for each day of each year ``text`` names (see
    :func:`named_days`): a year named, or counted back from ``today``."""
    found: list[tuple[int, int, str]] = []
    for m in _YEAR.finditer(text):
        named = m["named"] or m["named_cjk"]
        if named:
            year = int(named)
        elif today is None or not (shift := _shift(m)):
            continue  # counted from no day, or 0 years ago
        else:
            year = today.year + shift
        first = date(year, 1, 1)
        found += [
            (m.start(), m.end(), (first + timedelta(days=n)).isoformat())
            for n in range((date(year + 1, 1, 1) - first).days)
        ]
    return found


def _relative_day(m: re.Match[str], today: date) -> date:
    """The day a match of :data:`_RELATIVE_DAY` names, seen from ``today``."""
    for back in (2, 1, 0):
        if m[f"back{back}"] or m[f"zh{back}"]:
            return today - timedelta(days=back)
    for ahead in (1, 2):
        if m[f"ahead{ahead}"] or m[f"zh_ahead{ahead}"]:
            return today + timedelta(days=ahead)
    if m["en"]:  # last Friday: the latest Friday before today
        ago = (today.weekday() - _WEEKDAY_NUMBER[m["en"].lower()]) % 7
        return today - timedelta(days=ago or 7)
    this = m["en_this"] or m["zh_this"] or m["ja_this"] or m["ko_this"]
    if this:  # this Friday, 这周五, 今週の金曜日: that weekday of this calendar week
        monday = today - timedelta(days=today.weekday())
        return monday + timedelta(days=_WEEKDAY_NUMBER[this.lower()])
    following = m["zh_next"] or m["ja_next"] or m["ko_next"]
    if following:  # 下周五, 来週の金曜日: that weekday of the calendar week after this one
        monday = today - timedelta(days=today.weekday() - 7)
        return monday + timedelta(days=_WEEKDAY_NUMBER[following])
    before_last = m["zh_2w"] or m["ja_2w"] or m["ko_2w"]
    if before_last:  # 上上周五: that weekday of the calendar week before last
        monday = today - timedelta(days=today.weekday() + 14)
        return monday + timedelta(days=_WEEKDAY_NUMBER[before_last])
    # 上周五, 先週の金曜日: that weekday of the calendar week before this one
    monday = today - timedelta(days=today.weekday() + 7)
    return monday + timedelta(days=_WEEKDAY_NUMBER[m["zh"] or m["ja"] or m["ko"]])


_KO_BACK = {"이틀": (2, True), "사흘": (3, True), "나흘": (4, True), "일주일": (1, False)}
"""Korean words for a count back: (count, of days rather than weeks)."""
_AGO = re.compile(
    # 3 days ago, two weeks ago, 三天前, 两周前, 3日前, 2週間前, 3일 전, 2주 전, 이틀 전, 大前天
    rf"(?ai:\b(?P<en>{_EN_COUNT})\s+"
    r"(?:(?P<en_days>days?)|weeks?)\s+ago\b)"
    rf"|{_NOT_AFTER_COUNT}(?P<cjk>{_CJK_COUNT})\s*[个個]?\s*"
    r"(?:(?P<cjk_days>天|日)|周|週間|週|星期|礼拜|禮拜)(?:之|以)?前"
    r"|(?P<ko>\d{1,2})\s*(?:(?P<ko_days>일)|주)\s*전|(?P<ko_word>이틀|사흘|나흘|일주일)\s*전"
    r"|(?P<zh_3>大前天)"
)
"""A count of days or weeks back from today. ``12日前`` is "before the 12th" as often (Chinese
and Japanese both say so): a count of 日 only up to ten."""


def _ago(m: re.Match[str], today: date) -> list[date]:
    """The days a match of :data:`_AGO` names: the day so many days back, or the calendar
    week (Monday to Sunday) holding the day so many weeks back; ``[]`` for none."""
    if m["zh_3"]:
        count, days = 3, True
    elif m["ko_word"]:
        count, days = _KO_BACK[m["ko_word"]]
    else:
        count = _count(m["en"] or m["cjk"] or m["ko"])
        days = bool(m["en_days"] or m["cjk_days"] or m["ko_days"])
        if m["cjk_days"] == "日" and count > 10:
            return []
    if not count:
        return []
    if days:
        return [today - timedelta(days=count)]
    back = today - timedelta(days=7 * count)
    monday = back - timedelta(days=back.weekday())
    return [monday + timedelta(days=n) for n in range(7)]


def _free(
    new: Iterable[tuple[int, int, str]], found: Iterable[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """Those of ``new`` whose span overlaps no span of ``found``: by bisection over the distinct
    spans (a question of 2,000 characters naming a few days many times took seconds checking
    each against each)."""
    spans = sorted({(a, b) for a, b, _ in found})
    if not spans:
        return list(new)
    starts = [a for a, _ in spans]
    reach = list(itertools.accumulate((b for _, b in spans), max))
    out = []
    for day in new:
        i = bisect.bisect_left(starts, day[1])  # the spans starting before it ends
        if not (i and reach[i - 1] > day[0]):
            out.append(day)
    return out


def _overlaps(start: int, end: int, found: Iterable[tuple[int, int, str]]) -> bool:
    """Whether ``start``–``end`` overlaps a span of ``found`` (``(start, end, day)``)."""
    return any(a < end and start < b for a, b, _ in found)


def days_from(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` of each day ``text`` names one by one counted from ``today``
    (yesterday, 明天, 上周五, 下周二, 今週の金曜日, 3 days ago, 三天前 …; see :func:`named_days`),
    not by date."""
    found = [
        (m.start(), m.end(), _relative_day(m, today).isoformat())
        for m in _RELATIVE_DAY.finditer(text)
    ]
    for m in _AGO.finditer(text):
        days = _ago(m, today)
        if len(days) == 1 and not _overlaps(m.start(), m.end(), found):
            found.append((m.start(), m.end(), days[0].isoformat()))
    return sorted(found)


def _weeks_ago(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for each day of each week ``text`` names as so many weeks back
    (two weeks ago, 两周前, 2週間前, 2주 전)."""
    return [
        (m.start(), m.end(), day.isoformat())
        for m in _AGO.finditer(text)
        if len(days := _ago(m, today)) > 1
        for day in days
    ]


_ASKED_SLASH_WORD = re.compile(
    r"(?ai:\b(?:on|since|until|till|before|after|by|from|to|at|of|for|and|or|between)\s+)$"
)
"""A word that puts a day after it (``what happened on 9/5``, ``between 9/1 and 9/5``)."""
_WORD_BEFORE = re.compile(r"[A-Za-z0-9_]\s*$")


def _asked_slash_day(m: re.Match[str], text: str) -> str | None:
    """A bare ``M/D`` of one digit each, read as a day in a question (see :func:`named_days`):
    after nothing, a mark, a CJK character or a word that puts a day after it (on, since …),
    never after another Latin word or a number (``Phase 1/2``, ``v1/2``, ``step 3/4``)."""
    if not m["m3"] or m["wd"] or len(m["m3"]) != 1 or len(m["d3"]) != 1:
        return None
    before = text[: m.start()]
    if _WORD_BEFORE.search(before) and not _ASKED_SLASH_WORD.search(before):
        return None
    if before.endswith("第") or _is_a_score(m):
        return None  # 第1/2期: a part, not a day; 「4/5」, 4/5 stars: a score
    if text[m.end() : m.end() + 1] == "%":
        return None
    return _month_and_day(m["m3"], m["d3"])


_TO = r"\s*(?:到|至|~|〜|～|-|–|—|から|부터|(?ai:to|through|thru|until|till)\b)\s*"
_RANGE_GAP = re.compile(_TO)
"""What joins the two days of a range: 9/1 到 9/5, Sep 1 to Sep 5, 9/1〜9/5, 9월 1일부터 9월 5일."""
_BETWEEN = re.compile(r"(?ai:\bbetween\s*)$")
_AND = re.compile(r"(?ai:\s*and\s*)")
_RANGE_END = re.compile(
    # the end of a range written after its first day: 9月1日到5日, Sep 1–5; 上周一到周三
    rf"{_TO}(?:(?P<day>\d{{1,2}})(?:\s*[日号號]|(?![\d/:.月월時时点點]))"
    rf"|(?:{_ZH_WEEK_WORD})(?P<zh>[一二三四五六日天])|(?P<ja>[月火水木金土日])曜日?"
    rf"|(?ai:(?P<en>{_EN_WEEKDAY})day\b))"
)
MAX_RANGE = 31
"""The most days a range may span to be read as its days (a month's)."""


_SINCE_BEFORE = re.compile(r"(?ai:\bsince\s*|自\s*)$")
_SINCE_AFTER = re.compile(r"\s*(?:以来|以後|以降|起(?!床)|开始|開始|이후|부터(?!.{0,12}까지))")


def _since(text: str, found: list[tuple[int, int, str]], today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for each day from one a question names as a start to ``today``
    (``since Nov 27``, ``自11月27日以来``, ``11/27 以降``, ``从周一开始``, ``11월 27일 이후``), at
    most :data:`MAX_RANGE` days; a day without a year is the latest such day up to today."""
    out: list[tuple[int, int, str]] = []
    for start, end, named in _single_days(found):
        after = _SINCE_AFTER.match(text, end)
        if not (_SINCE_BEFORE.search(text, 0, start) or after):
            continue
        first = _latest_by(named, today)
        stop = after.end() if after else end
        out += [(start, stop, d) for d in _days_from_to(first, today.isoformat()) if d != named]
    return out


def _latest_by(day: str, today: date) -> str:
    """``day``, and a day without a year (``--MM-DD``) in the year that makes it the latest
    such day up to ``today``."""
    if not day.startswith("--"):
        return day
    this_year = f"{today.year}{day[1:]}"
    return this_year if this_year <= today.isoformat() else f"{today.year - 1}{day[1:]}"


_WEEK_OF_BEFORE = re.compile(r"(?ai:\bthe\s+week\s+of\s*)$")
_WEEK_OF_AFTER = re.compile(
    r"\s*(?:那一?周|那一?週|那个星期|那個星期|那一?个?礼拜|の週|주(?:에|의|간)?(?![가-힣]))"
)


def _week_of(
    text: str, found: list[tuple[int, int, str]], today: date | None
) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the other days of the calendar week (Monday to Sunday) of a
    day a question names as its week (``the week of Sep 7``, ``9月7日那周``, ``9/7 の週``,
    ``9월 7일 주에``); a day without a year is the latest such day up to ``today``."""
    out: list[tuple[int, int, str]] = []
    for start, end, named in _single_days(found):
        after = _WEEK_OF_AFTER.match(text, end)
        if not (after or _WEEK_OF_BEFORE.search(text, 0, start)):
            continue
        if named.startswith("--") and today is None:
            continue  # which year's, so which week?
        try:
            day = date.fromisoformat(_latest_by(named, today) if today else named)
        except ValueError:
            continue  # 29 February of a year without one
        monday = day - timedelta(days=day.weekday())
        stop = after.end() if after else end
        week = [(monday + timedelta(days=n)).isoformat() for n in range(7)]
        out += [(start, stop, d) for d in week if d != named]
    return out


def _single_days(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spans of ``found`` that name one day (not a week's or a month's), in text order."""
    spans: dict[tuple[int, int], list[str]] = {}
    for start, end, day in found:
        spans.setdefault((start, end), []).append(day)
    return sorted((a, b, days[0]) for (a, b), days in spans.items() if len(days) == 1)


def _ranges(text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for each day inside a range a question writes between two days it
    names one by one (``9/1 到 9/5``, ``between Sep 1 and Sep 5``, ``9月1日至9月5日``,
    ``9/1〜9/5``), or from one to a day of the same month or a weekday of the same week
    (``9月1日到5日``, ``Sep 1–5``, ``上周一到周三``): at most :data:`MAX_RANGE` days."""
    single = _single_days(found)
    out: list[tuple[int, int, str]] = []
    for i, (start, end, first) in enumerate(single):
        last: str | None = None
        stop = end
        after = single[i + 1] if i + 1 < len(single) else None
        gap = text[end : after[0]] if after else ""
        joined = after is not None and (
            _RANGE_GAP.fullmatch(gap) is not None
            or (_AND.fullmatch(gap) is not None and _BETWEEN.search(text, 0, start) is not None)
        )
        if after is not None and joined:
            last, stop = after[2], after[1]
        elif m := _RANGE_END.match(text, end):
            last, stop = _range_end(first, m), m.end()
        if last is None or first[:2] != last[:2]:  # both with a year, or both without
            continue
        named = {first, last} if joined else {first}  # the days found already
        out += [(start, stop, day) for day in _days_from_to(first, last) if day not in named]
    return out


def _range_end(first: str, m: re.Match[str]) -> str | None:
    """The last day of a range :data:`_RANGE_END` matched after its first day, ``first``."""
    if m["day"]:
        return f"{first[:-2]}{int(m['day']):02d}" if int(m["day"]) <= 31 else None
    if first.startswith("--"):
        return None  # a weekday of which week?
    weekday = _WEEKDAY_NUMBER[(m["zh"] or m["ja"] or m["en"]).lower()]
    day = date.fromisoformat(first)
    return (day + timedelta(days=(weekday - day.weekday()) % 7)).isoformat()


def _days_from_to(first: str, last: str) -> list[str]:
    """The days from ``first`` to ``last`` (``YYYY-MM-DD``, or ``--MM-DD`` in a leap year's
    calendar, into the next year if need be), when they span at most :data:`MAX_RANGE`."""
    bare = first.startswith("--")
    try:
        a = date.fromisoformat(f"2000{first[1:]}" if bare else first)
        b = date.fromisoformat(f"2000{last[1:]}" if bare else last)
    except ValueError:
        return []
    if bare and b < a:
        if (b.month, b.day) == (2, 29):
            return []  # into a year with no 29 February: and over a month long anyway
        b = b.replace(year=2001)
    if not 0 < (b - a).days <= MAX_RANGE:
        return []
    days = [a + timedelta(days=n) for n in range((b - a).days + 1)]
    return [f"--{d:%m-%d}" if bare else d.isoformat() for d in days]


_PAST_DAYS = re.compile(
    # the past 3 days, the last two weeks, the past week, past few days; 过去三天, 最近一周,
    # 近7天, 过去几天, 这几天, 这两天; ここ3日, ここ数日, 過去1週間; 지난 3일, 최근 2주 (not "last
    # week": the calendar week)
    rf"(?ai:\b(?:the\s+)?(?:(?:past|last|previous)\s+(?P<en>{_EN_COUNT}|few)"
    r"|past)\s+(?P<en_unit>days?|weeks?)\b)"
    rf"|(?:过去|過去|最近|近|这|這)的?(?P<cjk>{_CJK_COUNT}|几|幾)\s*[个個]?\s*"
    r"(?P<cjk_unit>天|日|周|週|星期|礼拜|禮拜)"
    rf"|(?:ここ|過去|この)(?P<ja>{_CJK_COUNT}|数|數)\s*(?P<ja_unit>日間?|週間)"
    r"|(?:지난|최근)\s*(?P<ko>\d{1,2})\s*(?P<ko_unit>일|주)"
)


def _past_days(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for each day of the days or weeks a question counts back from
    ``today`` (:data:`_PAST_DAYS`): ``today`` and the days before it, at most
    :data:`MAX_RANGE`."""
    out: list[tuple[int, int, str]] = []
    for m in _PAST_DAYS.finditer(text):
        word = m["en"] or m["cjk"] or m["ja"] or m["ko"]
        few = word is not None and word.lower() in ("few", "几", "幾", "数", "數")
        count = 1 if word is None else 3 if few else _count(word)  # 这几天, ここ数日: three
        unit = m["en_unit"] or m["cjk_unit"] or m["ja_unit"] or m["ko_unit"]
        days = count * (7 if unit[0] in "wW周週星礼禮주" else 1)
        if not 0 < days <= MAX_RANGE or (m.group()[0] in "这這" and days == 1):
            continue  # 这一天: that very day, not today and yesterday
        out += [
            (m.start(), m.end(), (today - timedelta(days=n)).isoformat()) for n in range(days + 1)
        ]
    return out


_SOME_DAYS_AGO = re.compile(
    # a couple of days ago, 前两天, 两三天前; a few days ago, the other day, 前几天, 几天前, 前些天,
    # 数日前, 며칠 전 (前两天 only where a sentence or its subject ends before it: 上线前两天 is
    # the two days before the launch)
    r"(?ai:\b(?P<en_couple>a\s+couple\s+(?:of\s+)?days\s+(?:ago|back))\b"
    r"|\b(?P<en_few>a\s+few\s+days\s+(?:ago|back)|the\s+other\s+day)\b)"
    r"|(?<![^\s，,。！？?!：:、；;我你他她们們咱])前(?:(?P<zh_couple>两|兩)|几|幾|些)天"
    r"|(?P<zh_couple_ago>两三|兩三|二三)天前|(?<![\d一二三四五六七八九十])(?:几|幾)天前|数日前|數日前"
    r"|며칠\s*전"
)
_COUPLE, _FEW = 3, 7
"""How far back a couple of days (1–3 days before today) and a few days or the other day (1–7)
reach."""


def _some_days_ago(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the days before ``today`` a question names loosely
    (:data:`_SOME_DAYS_AGO`): a couple of days ago, the other day."""
    out = []
    for m in _SOME_DAYS_AGO.finditer(text):
        couple = m["en_couple"] or m["zh_couple"] or m["zh_couple_ago"]
        back = _COUPLE if couple else _FEW
        out += [
            (m.start(), m.end(), (today - timedelta(days=n)).isoformat())
            for n in range(1, back + 1)
        ]
    return out


_A_YEAR_BACK = re.compile(
    # 去年的今天, a year ago today, this day last year: that day; this time last year, 去年这个时候,
    # 去年此时, 去年の今頃, 작년 이맘때: a week either side of it
    r"(?P<day>去年的?今天|(?ai:\ba\s+year\s+ago\s+today\b|\bthis\s+day\s+last\s+year\b)"
    r"|去年の今日|작년\s*오늘)"
    r"|(?P<time>去年的?(?:这个时候|這個時候|这时候|這時候|此时|此時|这会儿|這會兒)"
    r"|(?ai:\b(?:this|around\s+this)\s+time\s+last\s+year\b)|去年の今頃|작년\s*이맘때)"
)


def _a_year_back(text: str, today: date) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` for the day a year before ``today`` a question names (去年的今天),
    or the week either side of it (this time last year; :data:`_A_YEAR_BACK`)."""
    out = []
    for m in _A_YEAR_BACK.finditer(text):
        try:
            day = today.replace(year=today.year - 1)
        except ValueError:  # 29 February
            day = today.replace(year=today.year - 1, day=28)
        spread = 0 if m["day"] else 7
        out += [
            (m.start(), m.end(), (day + timedelta(days=n)).isoformat())
            for n in range(-spread, spread + 1)
        ]
    return out


def named_days(
    text: str, today: date | None = None, *, single: bool = False, question: bool = False
) -> list[tuple[int, int, str]]:
    """``(start, end, day)`` of each date ``text`` names, in any of the forms
    :func:`heading_date` reads: ``day`` is ``YYYY-MM-DD``, or ``--MM-DD`` (ISO 8601's month and
    day without a year) for ``8/3（周一）``, ``8月3日``, ``8월 3일``, ``Aug 3``, ``3 August``, which name that
    day of any year. A bare ``M/D`` of one digit each needs a weekday just after or before it,
    as in headings (``9/8（火）``, ``周五（9/4）``), or a deadline (``9/5 までに``, ``截止 9/5``),
    except in a ``question`` (``9/5 做了什么？``, ``what happened on 9/5?``), where people write
    days that way and notes rarely answer a fraction: there only a word before it other than
    one that puts a day after it (on, since, before …) makes it no day (``Phase 1/2``);
    lower-case "may" after a number is no month. With ``today``, also the days named from it:
    yesterday, the day before yesterday, today, tomorrow, the day after tomorrow, last Friday
    (the latest Friday before today), and in Chinese, Japanese and Korean 昨天, 前天, 今天,
    明天, 后天, 昨日, 一昨日, 明日, 明後日, 어제, 오늘, 내일, 모레, 그저께; so many days back (3 days
    ago, 三天前, 大前天, 3日前 up to ten days, 3일 전, 이틀 전); 上周五, 上个星期五,
    先週の金曜日, 지난주 금요일 (that weekday of the week before this one, weeks starting on
    Monday; 上上周五, 先々週の金曜日, 지지난주 금요일 of the week before that); this Friday, 这周五,
    今週の金曜日, 이번 주 금요일 (that weekday of this week);
    下周五, 来週の金曜日, 다음 주 금요일 (that weekday of next week; not "next Friday", which
    English says of this week's Friday as often). A week named from today (last, this or next
    week, 上周, 这周, 下周, 先週, 今週, 来週, 지난주, 이번 주, 다음 주; the week before last, 上上周,
    先々週, 지지난주; two weeks ago, 两周前, 2週間前, 2주 전, the calendar week holding that day)
    names each of its days
    (this week's up to today) with the same span; so does a weekend, the Saturday and Sunday
    of such a week (last or this weekend, the weekend before last, 上周末, 这个周末, 下周末,
    上上周末, 先週末, 今週末, 来週末, 지난 주말, 이번 주말, 다음 주말; not "next weekend"; in a
    question a weekend alone by its tense, as a weekday alone: 周末做了什么？, 周末有什么安排？); and
    a month (two months ago, 两个月前, 2か月前, 2개월 전, the month before last, 上上个月,
    先々月, 지지난달 too): named (in September,
    during Sept 2026, 9月, 9月份, 2026年9月, 9월; an English month only after such a word, as
    "May I" is none), or from today (last month, this month up to today, next month, 上个月,
    这个月, 下个月, 先月, 今月, 来月, 지난달, 이번 달, 다음 달); and a year (in 2025, 2025年,
    2025년; last year, 去年, 昨年, 작년, the year before last, 前年, 一昨年, two years ago, 两年前,
    2年前, 2년 전; not this year or 今年, most of a memory); and a range: the days from one
    named day to another (9/1 到 9/5, between Sep 1 and Sep 5, 9月1日至9月5日, 9/1〜9/5,
    9월 1일부터 9월 5일까지, 9月1日到5日, Sep 1–5, 上周一到周三), counted back from today (the
    past 3 days, past week, 过去三天, 最近一周, ここ3日, 지난 3일: today and that many days
    before it) or from a day named as a start to today (since Nov 27, 11月27日以来, 11/27 以降,
    从周一开始, 11월 27일 이후), at most :data:`MAX_RANGE` days; and the week of a day (the
    week of Sep 7, 9月7日那周, 9/7 の週: Monday to Sunday). Also a day in other words (the 3rd
    of September, 九月三日, 上个月3号, the 3rd of last month, and in a question 3号 or on the
    3rd alone, by its tense), a week, half or day of a month (the first week of September,
    9月最后一周, 9月下半月, the last day of August, the last Friday of October:
    :func:`_section`), a month in Chinese numerals (九月), a holiday of a fixed day by the
    question's tense (国庆, Christmas: :data:`_HOLIDAYS`), days named loosely (前两天, a few days
    ago, the other day: :data:`_SOME_DAYS_AGO`) and a year back (去年的今天, this time last
    year: :data:`_A_YEAR_BACK`). With ``single`` (a note's days),
    only the days named one by one and the weekends a note names, alone too
    (:func:`weekends_from`), no week's, month's or year's."""
    found: list[tuple[int, int, str]] = [(at, at + 10, iso) for at, iso in _dates(text)]
    if today is not None:
        if not single:  # 去年的今天, a few days ago: before 今天 and "days ago" are read
            found += _a_year_back(text, today) + _some_days_ago(text, today)
        found += _free(days_from(text, today), found)
        if single:  # a note's: the weekends it names, alone too (weekends_from)
            found += weekends_from(text, today)
        else:
            weekends = [
                (m.start(), m.end(), day.isoformat())
                for m in _RELATIVE_WEEKEND.finditer(text)
                for day in _relative_weekend(m, today)
            ]
            found += weekends
            found += [
                (m.start(), m.end(), day.isoformat())
                for m in _RELATIVE_WEEK.finditer(text)
                if not _overlaps(m.start(), m.end(), weekends)  # 上周末
                for day in _relative_week(m, today)
            ]
            found += _weeks_ago(text, today)
    written = []  # the matches do not overlap each other: each is checked against the others
    for m in _WRITTEN_DATE.finditer(text):
        if day := _written_day(m) or (_asked_slash_day(m, text) if question else None):
            written.append((m.start(), m.end(), day))
    found += _free(written, found)  # not inside an ISO date
    if question and today is not None and not found:
        found += _bare_weekday(text, today) or _asked_weekend(text, today)
    if single:
        return sorted(found)
    found += _ranges(text, found) + _week_of(text, found, today)
    if today is not None:
        found += _free(_past_days(text, today), found)
        found += _since(text, found, today)
    # 9月3日 is a day, not September; 2025年9月 a month, not 2025
    found += _free(_named_months(text, today), found)
    found += _free(_named_years(text, today), found)
    if question and today is not None:
        found += _free(_asked_holiday(text, today), found)
        if not found:
            found += _bare_day(
                text, today
            )  # 3号, on the 3rd: after 上个月3号, the 3rd of last month
    return sorted(found)
