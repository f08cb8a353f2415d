"""Every day a memory has a daily log of, asked about in a few question frames: is a chunk of
that day's log among the first three results of each mode?

    python bench/agentmem/days.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "what did I do on Aug 3?" and "8月3日的 standup 说了什么？" of a memory of daily logs
(``memory/YYYY-MM-DD.md``); the bench's graded questions name a day in words only a few times,
so this asks of every day in twenty-four frames: the day alone in several forms (``8/3 做了什么？``
as people write it too, ``8월 3일에 뭐 했어?``), the day with the topic of an entry most days
have (standup, 午饭; asked only of the days whose log holds that word), "yesterday" asked the
day after (``Memory.search(today=…)``) and "3 days ago" three days after, its weekday of last
week (``上个星期五做了什么？``, ``지난주 금요일에 뭐 했어?``) asked a week after, and "tomorrow" and
its weekday of next week (``下周五有什么安排？``) asked the day or the week before, as a replayed
conversation asks them; its weekday alone (``what did I do on Tuesday?``, ``周二做了什么？``) two
to five days after; and in Chinese with the English date word written straight before it, as
code-mixed questions are (``Sep 3的 standup 说了什么？``, ``yesterday做了什么？``); by the ordinal
of its month (``what did I do on the 3rd of September?``) and in Chinese numerals
(``九月三日做了什么？``); and as a day of the month alone two days after (``3号做了什么？``,
``what did I do on the 3rd?``) and of last month on the 5th of the next (``上个月3号做了什么？``).
Then every week with a log, in nine frames that name it from a day of
a later week, of the week before or of itself (``what did I do last week?``, ``上周做了什么？``,
``先週は何をした？`` asked on the next Wednesday, ``what did I do two weeks ago?`` and
``上上周做了什么？`` on the Wednesday after that, ``what did I do this week?`` and ``这周的 standup
说了什么？`` on its Friday, ``下周有什么安排？`` on the Wednesday before), and in three that name
it by its Wednesday (``what did I do the week of Sep 9?``, ``9月9日那周做了什么？``, ``9/9 の週は
何をした？`` asked the Wednesday after): is a chunk of that week, up to that day, among the first
three? Then every weekend with a log of its Saturday or
Sunday, in nine frames (``what did I do last weekend?``, ``上周末做了什么？``, ``先週末は何をした？``,
``지난 주말에 뭐 했어?`` asked on the next Wednesday, ``what did I do this weekend?`` and
``这个周末做了什么？`` on its Sunday, ``what did I do over the weekend?`` and ``周末做了什么？`` on
the Monday after, ``週末は何をした？`` on the Tuesday): is a chunk of one of its two days among
the first three?
Then every holiday a log falls in (国庆, Halloween, 双十一, Christmas; the Mid-Autumn Festival of
2026), in two or three frames asked the day after it (``国庆期间做了什么？``, ``what did I do on Halloween?``):
is a chunk of its days among the first three?
Then every month, in eleven frames (``9月做了什么？``,
``9월에 뭐 했어?``, ``last month``, ``两个月前做了什么？``, ``下个月有什么安排？`` …). It uses no question of the bench, so
it is no test half. No score floor.
Writes ``bench/results/agentmem[-designer]-days.json``.
"""

from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import results_name  # noqa: E402
from probes import Asked, daily_logs, indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR  # noqa: E402
from memdir.text.numerals import cjk_numeral  # noqa: E402

FRAMES = (
    ("what happened on {iso}?", ""),
    ("what did I do on {mon} {day}?", ""),
    ("{month}月{day}日做了什么？", ""),
    ("{month}월 {day}일에 뭐 했어?", ""),
    ("{mon} {day}", ""),
    ("what was the standup about on {mon} {day}?", "standup"),
    ("{month}月{day}号和谁吃的午饭？", "午饭"),
    ("{month}/{day} 做了什么？", ""),
    ("what happened on {month}/{day}?", ""),
    ("what did I do yesterday?", ""),
    ("昨天做了什么？", ""),
    ("what did I do 3 days ago?", ""),
    ("三天前做了什么？", ""),
    ("上个星期{zh_weekday}做了什么？", ""),
    ("지난주 {ko_weekday}요일에 뭐 했어?", ""),
    ("what's the plan for tomorrow?", ""),
    ("明天有什么安排？", ""),
    ("下周{zh_weekday}有什么安排？", ""),
    ("what did I do on {en_weekday}?", ""),
    ("周{zh_weekday}做了什么？", ""),
    ("{ja_weekday}曜日に何をした？", ""),
    ("{ko_weekday}요일에 뭐 했어?", ""),
    ("{mon} {day}的 standup 说了什么？", "standup"),
    ("yesterday做了什么？", ""),
    ("what did I do on the {nth} of {month_name}?", ""),
    ("{zh_month}月{zh_day}日做了什么？", ""),
    ("what did I do on the {nth}?", ""),
    ("{day}号做了什么？", ""),
    ("上个月{day}号做了什么？", ""),
)
RELATIVE = {
    "what did I do yesterday?": 1,
    "昨天做了什么？": 1,
    "what did I do 3 days ago?": 3,
    "三天前做了什么？": 3,
    "上个星期{zh_weekday}做了什么？": 7,
    "지난주 {ko_weekday}요일에 뭐 했어?": 7,
    "what's the plan for tomorrow?": -1,
    "明天有什么安排？": -1,
    "下周{zh_weekday}有什么安排？": -7,
    "what did I do on {en_weekday}?": 3,
    "周{zh_weekday}做了什么？": 2,
    "{ja_weekday}曜日に何をした？": 4,
    "{ko_weekday}요일에 뭐 했어?": 5,
    "yesterday做了什么？": 1,
    "what did I do on the {nth}?": 2,
    "{day}号做了什么？": 2,
    "上个月{day}号做了什么？": "next month",
}
"""Asked this many days after (``today``; before, when negative): the next morning, the same
weekday a week on, the day before, a week before, or, for a weekday named alone (``what did I
do on Tuesday?``) or a day of the month alone (``3号做了什么？``), a few days after, within the
week that follows; ``"next month"``: on the 5th of the month after (``上个月3号``)."""


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


WEEK_FRAMES = (
    ("what did I do last week?", 9, ""),
    ("上周做了什么？", 9, ""),
    ("先週は何をした？", 9, ""),
    ("what did I do two weeks ago?", 16, ""),
    ("上上周做了什么？", 16, ""),
    ("what did I do this week?", 4, ""),
    ("这周的 standup 说了什么？", 4, "standup"),
    ("what's on next week?", -5, ""),
    ("下周有什么安排？", -5, ""),
    ("what did I do the week of {mon} {d}?", 9, ""),  # named by its Wednesday
    ("{m}月{d}日那周做了什么？", 9, ""),
    ("{m}/{d} の週は何をした？", 9, ""),
)
"""A question naming a week from today, the day it is asked (days after the week's Monday;
before it, when negative), and the word a log of the week must hold for it to be asked."""
WEEKEND_FRAMES = (
    ("what did I do last weekend?", 9),
    ("上周末做了什么？", 9),
    ("先週末は何をした？", 9),
    ("지난 주말에 뭐 했어?", 9),
    ("what did I do this weekend?", 6),
    ("这个周末做了什么？", 6),
    ("what did I do over the weekend?", 7),  # a weekend alone, asked the Monday after
    ("周末做了什么？", 7),
    ("週末は何をした？", 8),
)
"""A question naming a weekend from today, and the day it is asked (days after the week's
Monday: the next Wednesday, or the Sunday itself)."""
MONTH_FRAMES = (
    ("what did I do in {month}?", None),
    ("{m}月做了什么？", None),
    ("{m}월에 뭐 했어?", None),
    ("{m}月の standup で何を話した？", None),
    ("what did I do last month?", 40),
    ("上个月做了什么？", 40),
    ("what did I do two months ago?", 70),
    ("两个月前做了什么？", 70),
    ("这个月做了什么？", 19),
    ("下个月有什么安排？", -10),
    ("what's planned for next month?", -10),
)
"""A question naming a month, and the day it is asked (days after the month's first, or before
it when negative; ``None``:
any day, as a month named by name needs none)."""
HOLIDAY_FRAMES = {
    # a holiday of a fixed day (its first day, days), asked the day after it ends
    ((10, 1), 7): ("国庆期间做了什么？", "what did I do over the National Day holiday?", "十一假期去了哪？"),
    ((10, 31), 1): ("万圣节那天做了什么？", "what did I do on Halloween?", "ハロウィンに何をした？"),
    ((11, 11), 1): ("双十一那天做了什么？", "what did I do on Singles' Day?"),
    ((12, 24), 3): ("圣诞节做了什么？", "what did I do over Christmas?", "クリスマスは何をした？"),
    ((9, 24), 3): ("中秋节做了什么？", "what did I do over the Mid-Autumn Festival?", "추석에 뭐 했어?"),
}  # fmt: skip
"""… and in 2026 the Mid-Autumn Festival, 24–26 September (the 15th of the eighth lunar
month is 25 September that year; only that year is asked)."""
"""The holidays of a fixed day asked about in every year a log falls in them."""
TOP = 3


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-days-") as (root, mem):
        texts = daily_logs(root)
        days = Asked(mem, args.modes, [frame for frame, _ in FRAMES], TOP)
        for day, text in texts.items():
            path = f"memory/{day.isoformat()}.md"
            for frame, topic in FRAMES:
                if topic and topic not in text:
                    continue
                question = frame.format(
                    iso=day.isoformat(),
                    mon=day.strftime("%b"),
                    month=day.month,
                    day=day.day,
                    zh_weekday="一二三四五六日"[day.weekday()],
                    ko_weekday="월화수목금토일"[day.weekday()],
                    ja_weekday="月火水木金土日"[day.weekday()],
                    en_weekday=day.strftime("%A"),
                    nth=_ordinal(day.day),
                    month_name=day.strftime("%B"),
                    zh_month=cjk_numeral(day.month),
                    zh_day=cjk_numeral(day.day),
                )
                after = RELATIVE.get(frame)
                if after == "next month":
                    today = (day.replace(day=28) + timedelta(days=8)).replace(day=5)
                else:
                    today = day + timedelta(days=after) if isinstance(after, int) else None
                days.ask(frame, question, lambda h, p=path: h.path == p, day.isoformat(), today)
        weeks = Asked(mem, args.modes, [frame for frame, _, _ in WEEK_FRAMES], TOP)
        for monday in sorted({d - timedelta(days=d.weekday()) for d in texts}):
            for frame, after, topic in WEEK_FRAMES:
                span = 6 if after < 0 else min(after, 6)  # asked before it: all of it
                week = {(monday + timedelta(n)).isoformat() for n in range(span + 1)}
                logged = [texts[d] for d in map(date.fromisoformat, week) if d in texts]
                if not any(topic in text for text in logged):
                    continue
                today = monday + timedelta(days=after)
                wednesday = monday + timedelta(days=2)
                question = frame.format(
                    m=wednesday.month, d=wednesday.day, mon=wednesday.strftime("%b")
                )
                weeks.ask(frame, question, lambda h, w=week: h.date in w, monday.isoformat(), today)
        weekends = Asked(mem, args.modes, [frame for frame, _ in WEEKEND_FRAMES], TOP)
        for saturday in sorted(
            {d - timedelta(days=d.weekday() - 5) for d in texts if d.weekday() >= 5}
        ):
            weekend = {saturday.isoformat(), (saturday + timedelta(days=1)).isoformat()}
            for frame, after in WEEKEND_FRAMES:
                today = saturday + timedelta(days=after - 5)
                weekends.ask(
                    frame, frame, lambda h, w=weekend: h.date in w, saturday.isoformat(), today
                )
        months = Asked(mem, args.modes, [frame for frame, _ in MONTH_FRAMES], TOP)
        for first in sorted({d.replace(day=1) for d in texts}):
            month = first.isoformat()[:7]
            for frame, after in MONTH_FRAMES:
                # "last month" is asked in the month after, "this month" in the month itself
                today = first + timedelta(days=after) if after is not None else None
                question = frame.format(month=first.strftime("%B"), m=first.month)
                months.ask(
                    frame, question, lambda h, m=month: (h.date or "")[:7] == m, month, today
                )
        holidays = Asked(mem, args.modes, [f for fs in HOLIDAY_FRAMES.values() for f in fs], TOP)
        for ((month, first_day), length), frames in HOLIDAY_FRAMES.items():
            for year in sorted({d.year for d in texts}):
                if (month, first_day) == (9, 24) and year != 2026:
                    continue  # the Mid-Autumn Festival moves with the lunar calendar
                first = date(year, month, first_day)
                held = {(first + timedelta(n)).isoformat() for n in range(length)}
                if not any(d.isoformat() in held for d in texts):
                    continue
                today = first + timedelta(days=length)
                for frame in frames:
                    holidays.ask(
                        frame, frame, lambda h, w=held: h.date in w, first.isoformat(), today
                    )
    days.print(f"{len(texts)} daily logs")
    weeks.print("\nweeks")
    weekends.print("\nweekends")
    months.print("\nmonths")
    holidays.print("\nholidays")
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'days')}.json"
    write_probe(
        out,
        "agentmem-days",
        args.memory,
        args.provider,
        {
            "logs": len(texts),
            "questions": days.asked,
            "top": TOP,
            "missed": days.missed,
            "week_questions": weeks.asked,
            "weeks_missed": weeks.missed,
            "weekend_questions": weekends.asked,
            "weekends_missed": weekends.missed,
            "month_questions": months.asked,
            "months_missed": months.missed,
            "holiday_questions": holidays.asked,
            "holidays_missed": holidays.missed,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
