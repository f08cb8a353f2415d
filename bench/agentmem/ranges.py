"""Every three days in a row whose middle day has a daily log, asked about as a range (``9/1 到
9/3 做了什么？``, ``what did I do between Sep 1 and Sep 3?``, ``过去三天做了什么？``): does every
day of it with a log have a chunk among the first ten results of each mode?

    python bench/agentmem/ranges.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask what happened over a span of days ("summarise 9/1 to 9/5", 过去三天) as often as on
one day. The ranges are found here from the logs' file names (``memory/YYYY-MM-DD.md``), each
asked in four frames naming its first and last day, on the day after it, and in two counting
back from its last day (``过去三天``, ``这几天``, ``ここ数日``) and four naming its first as a start (``since Sep 1``, ``9月1日以来``,
``since Tuesday``),
asked on that last day (``过去三天`` there counts the days before it), and three naming it
loosely on the day after (``前两天做了什么？``, ``what did I do a couple of days ago?``). A
question is answered when each day of the range that has a log has a chunk among the first
:data:`TOP` (a question about three days wants all three). It uses no question of the bench,
so it is no test half. Then the beginning, middle and end of every month with two logs or more
in that part (days 1–10, 11–20, 21–31), in three frames each (``9月初做了什么？``, ``what did I
do in mid-September?``, ``9月末は何をした？``), on the day after the newest log: are the first
:data:`PART_TOP` results all of that part? So too its weeks (days 1–7, 8–14, 15–21, 22–28, the
last seven) and halves (1–15, the rest), in three frames each (``9月第一周做了什么？``, ``what did
I do in the last week of October?``, ``9월 둘째 주에 뭐 했어?``, ``9月の後半は何をした？``). Then the morning, afternoon and evening of every log
with timed entries in two of them or more (``9月3日上午做了什么？``, ``what did I do on the
afternoon of Sep 3?``, ``昨晚做了什么？`` the day after), and each hour from 8:00 to 21:00 it
holds one timed entry in, by the clock (``what was I doing at 3pm on Sep 3?``, ``9月3日下午3点在
做什么？``, ``9/3 の15時は…``): is the first result an entry of that day and part or hour? No score
floor. Writes
``bench/results/agentmem[-designer]-ranges.json``.
"""

from __future__ import annotations

import calendar
import re
import sys
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import results_name  # noqa: E402
from probes import Asked, daily_logs, indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR  # noqa: E402

NAMED = (
    "{m1}/{d1} 到 {m2}/{d2} 做了什么？",
    "what did I do between {mon1} {d1} and {mon2} {d2}?",
    "{m1}月{d1}日至{m2}月{d2}日的工作",
    "{m1}/{d1}〜{m2}/{d2} は何をした？",
)
COUNTED = (
    "过去三天做了什么？",
    "what did I do in the past 3 days?",
    "这几天做了什么？",
    "ここ数日は何をした？",
)
COUPLE = (
    "前两天做了什么？",
    "what did I do a couple of days ago?",
    "两三天前做了什么？",
)
"""Asked on the day after the range: the couple of days before today."""
SINCE = (
    "what have I done since {mon1} {d1}?",
    "{m1}月{d1}日以来做了什么？",
    "{m1}/{d1} 以降は何をした？",
    "what have I done since {weekday1}?",
)
"""Asked on the range's last day, as COUNTED is."""
TOP = 10
PARTS = {  # the days of a month its beginning, middle and end name, and how they are asked
    (1, 10): ("{m}月初做了什么？", "what did I do in early {month}?", "{m}月上旬は何をした？"),
    (11, 20): ("{m}月中旬做了什么？", "what did I do in mid-{month}?", "{m}月中旬は何をした？"),
    (21, 31): ("{m}月底做了什么？", "what did I do at the end of {month}?", "{m}月末は何をした？"),
}
PART_TOP = 3
SECTIONS = {  # a week or a half of a month: its days (of a month of n days), and how it is asked
    "week 1": (lambda n: (1, 7), ("{m}月第一周做了什么？", "what did I do in the first week of {month}?", "{m}月の第1週は何をした？")),
    "week 2": (lambda n: (8, 14), ("{m}月的第二周做了什么？", "what did I do in the second week of {month}?", "{m}월 둘째 주에 뭐 했어?")),
    "week 3": (lambda n: (15, 21), ("{m}月第三个星期做了什么？", "what did I do in the third week of {month}?", "{m}月の第3週は何をした？")),
    "week 4": (lambda n: (22, 28), ("{m}月第四周做了什么？", "what did I do in the fourth week of {month}?", "{m}월 넷째 주에 뭐 했어?")),
    "last week": (lambda n: (n - 6, n), ("{m}月最后一周做了什么？", "what did I do in the last week of {month}?", "{m}月の最終週は何をした？")),
    "half 1": (lambda n: (1, 15), ("{m}月上半月做了什么？", "what did I do in the first half of {month}?", "{m}月の前半は何をした？")),
    "half 2": (lambda n: (16, n), ("{m}月下半月做了什么？", "what did I do in the second half of {month}?", "{m}月の後半は何をした？")),
}  # fmt: skip
"""Asked as the parts are, on the day after the newest log, of each month with two logs or
more in the section."""
DAY_PARTS = {  # the hours of a part of a day, and how it is asked
    (5, 12): (
        "{m}月{d}日上午做了什么？",
        "what did I do on the morning of {mon} {d}?",
        "{m}/{d} の午前は何をした？",
    ),
    (12, 18): (
        "{m}月{d}日下午做了什么？",
        "what did I do on the afternoon of {mon} {d}?",
        "{m}/{d} の午後は何をした？",
    ),
    (17, 24): (
        "{m}月{d}日晚上做了什么？",
        "what did I do on the evening of {mon} {d}?",
        "昨晚做了什么？",
    ),
}
"""昨晚 (last night) is asked the day after; the others on the day after the newest log."""
CLOCK = (
    "what was I doing at {h12}{ampm} on {mon} {d}?",
    "{m}月{d}日{zh_part}{h12}点在做什么？",
    "{m}/{d} の{h}時は何をしていた？",
)
"""An hour of a day with one timed entry in it, 8:00 to 21:00, asked by the clock."""
_TIMED = re.compile(r"^\s*(?:#{1,6}\s*|[-*+]\s+)?(\d{1,2}):[0-5]\d(?!\d)")


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-ranges-") as (root, mem):
        logs = daily_logs(root)
        asked = Asked(mem, args.modes, [*NAMED, *COUNTED, *SINCE, *COUPLE], TOP)
        ranges = 0
        for middle in logs:
            first, last = middle - timedelta(days=1), middle + timedelta(days=1)
            logged = [d for d in (first, middle, last) if d in logs]
            paths = {f"memory/{d.isoformat()}.md" for d in logged}
            ranges += 1

            def every_day(results: Sequence[Any], paths: set[str] = paths) -> bool:
                return paths <= {r.path for r in results}

            fields = {
                "m1": first.month,
                "d1": first.day,
                "m2": last.month,
                "d2": last.day,
                "mon1": first.strftime("%b"),
                "mon2": last.strftime("%b"),
                "weekday1": first.strftime("%A"),
            }
            key = f"{first.isoformat()}..{last.isoformat()} ({len(logged)} logs)"
            for frame in NAMED:
                asked.ask_all(
                    frame, frame.format(**fields), every_day, key, last + timedelta(days=1)
                )
            for frame in COUNTED:
                asked.ask_all(frame, frame, every_day, key, last)
            for frame in SINCE:
                asked.ask_all(frame, frame.format(**fields), every_day, key, last)
            for frame in COUPLE:
                asked.ask_all(frame, frame, every_day, key, last + timedelta(days=1))
        frames = [f for part in PARTS.values() for f in part]
        parted = Asked(mem, args.modes, frames, PART_TOP)
        today = max(logs) + timedelta(days=1)
        parts = 0
        for (year, month), (low, high) in sorted(
            {
                ((d.year, d.month), span)
                for d in logs
                for span in PARTS
                if span[0] <= d.day <= span[1]
            }
        ):
            if (
                sum(1 for d in logs if (d.year, d.month) == (year, month) and low <= d.day <= high)
                < 2
            ):
                continue
            parts += 1

            def within(
                results: Sequence[Any], y: int = year, mo: int = month, a: int = low, b: int = high
            ) -> bool:
                dated = [r.date for r in results if r.date]
                return bool(dated) and all(
                    (int(d[:4]), int(d[5:7])) == (y, mo) and a <= int(d[8:10]) <= b for d in dated
                )

            name = date(year, month, 1).strftime("%B")
            for frame in PARTS[(low, high)]:
                question = frame.format(m=month, month=name)
                parted.ask_all(frame, question, within, f"{year}-{month:02d} {low}–{high}", today)
        sectioned = Asked(mem, args.modes, [f for _, fs in SECTIONS.values() for f in fs], PART_TOP)
        sections = 0
        for year, month in sorted({(d.year, d.month) for d in logs}):
            length = calendar.monthrange(year, month)[1]
            for name, (span_of, section_frames) in SECTIONS.items():
                low, high = span_of(length)
                held = [
                    d for d in logs if (d.year, d.month) == (year, month) and low <= d.day <= high
                ]
                if len(held) < 2:
                    continue
                sections += 1

                def inside(
                    results: Sequence[Any],
                    y: int = year,
                    mo: int = month,
                    a: int = low,
                    b: int = high,
                ) -> bool:
                    dated = [r.date for r in results if r.date]
                    return bool(dated) and all(
                        (int(d[:4]), int(d[5:7])) == (y, mo) and a <= int(d[8:10]) <= b
                        for d in dated
                    )

                for frame in section_frames:
                    question = frame.format(m=month, month=date(year, month, 1).strftime("%B"))
                    sectioned.ask_all(frame, question, inside, f"{year}-{month:02d} {name}", today)
        day_frames = [*(f for part in DAY_PARTS.values() for f in part), *CLOCK]
        timed = Asked(mem, args.modes, day_frames, 1)
        days_asked = 0
        for day, text in logs.items():
            lines = text.splitlines()
            hours = [int(m[1]) for line in lines if (m := _TIMED.match(line))]
            parts = [span for span in DAY_PARTS if any(span[0] <= h < span[1] for h in hours)]
            if len(parts) < 2:
                continue  # a day of one part only: any of its entries answers
            days_asked += 1
            path = f"memory/{day.isoformat()}.md"

            def first_in(
                results: Sequence[Any],
                span: tuple[int, int],
                p: str = path,
                lines: list[str] = lines,
            ) -> bool:
                if not results or results[0].path != p:
                    return False
                top = results[0]
                held = [
                    int(m[1])
                    for line in lines[top.start_line - 1 : top.end_line]
                    if (m := _TIMED.match(line))
                ]
                return any(span[0] <= h < span[1] for h in held)

            for hour in sorted(set(hours)):
                if hours.count(hour) > 1 or not 8 <= hour <= 21:
                    continue  # two entries in one hour: either answers
                fields = {
                    "m": day.month,
                    "d": day.day,
                    "mon": day.strftime("%b"),
                    "h": hour,
                    "h12": hour % 12 or 12,
                    "ampm": "am" if hour < 12 else "pm",
                    "zh_part": "上午" if hour < 12 else "下午" if hour < 18 else "晚上",
                }
                for frame in CLOCK:
                    timed.ask_all(
                        frame,
                        frame.format(**fields),
                        lambda results, span=(hour, hour + 1): first_in(results, span),
                        f"{day.isoformat()} {hour}:00",
                        day + timedelta(days=1),
                    )
            for span in parts:
                for frame in DAY_PARTS[span]:
                    timed.ask_all(
                        frame,
                        frame.format(m=day.month, d=day.day, mon=day.strftime("%b")),
                        lambda results, span=span: first_in(results, span),
                        day.isoformat(),
                        day + timedelta(days=1),
                    )
    asked.print(f"{ranges} ranges of three days around a day with a log")
    parted.print(f"{parts} beginnings, middles and ends of months with two logs or more")
    sectioned.print(f"{sections} weeks and halves of months with two logs or more")
    timed.print(f"{days_asked} logs with timed entries in two parts of the day or more")
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'ranges')}.json"
    write_probe(
        out,
        "agentmem-ranges",
        args.memory,
        args.provider,
        {
            "ranges": ranges,
            "questions": asked.asked,
            "top": TOP,
            "missed": asked.missed,
            "parts": parts,
            "part_questions": parted.asked,
            "part_top": PART_TOP,
            "parts_missed": parted.missed,
            "sections": sections,
            "section_questions": sectioned.asked,
            "sections_missed": sectioned.missed,
            "timed_days": days_asked,
            "day_part_questions": timed.asked,
            "day_parts_missed": timed.missed,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
