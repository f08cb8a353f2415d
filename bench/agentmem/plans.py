"""Every day a daily log names ahead of itself (a plan: ``v1.13.3 下周二（9/15）上 prod``,
``9/19（土）10:00 で予約``) and no log is kept of, asked about from the log's day: is the chunk
naming it among the first three results of each mode?

    python bench/agentmem/plans.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "what's on Sept 15?" and "明天有什么安排？" of a memory whose plans are written in
the log of the day they were made, not of the day they are for; a day no log is kept of (a
weekend, a day still to come) is named only there. The days are found here with a pattern of
this probe's own (``9/15``, ``9月15日``, ``9月15号``: a month and a day, ahead of the log's day
by at most :data:`AHEAD` days, in the log's year; a weekend's Saturday and Sunday for 这个周末,
下周末, 今週末, this weekend, and for 周末 or 週末 alone in a log of a Wednesday to a Friday,
``周末再回她``), not with memdir's, and each is asked in
three frames, as 明天 when it is the next day, and as this weekend or next (这个周末, 下周末,
今週末, 来週末; 周末, 週末 alone for this one) when it is a Saturday or Sunday of the log's
calendar week or the next, on the
log's day (``Memory.search(today=…)``), and by its weekday alone (``what's on Tuesday?``,
``周二有什么安排？``) when it is two to six days ahead.
A hit is a result whose lines hold a line naming the day in that log or in one written before
it, or a result memdir dates that day (a project note's section ``2026-11-14（周六）23:00–01:00``
answers as well as the log planning it; until 2026-12-05 only that log's line was a hit). It
uses no question of the bench, so it is no test half. No score floor. Writes
``bench/results/agentmem[-designer]-plans.json``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import results_name  # noqa: E402
from probes import Asked, daily_logs, holds_line, indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR  # noqa: E402

FRAMES = (
    "{m}月{d}日有什么安排？",
    "what's on {mon} {d}?",
    "{m}/{d} の予定は？",
    "明天有什么安排？",
    "这个周末有什么安排？",
    "what's on this weekend?",
    "今週末の予定は？",
    "下周末有什么安排？",
    "来週末の予定は？",
    "周末有什么安排？",
    "週末の予定は？",
    "what's on {weekday}?",
    "周{zh_weekday}有什么安排？",
)
TOMORROW = "明天有什么安排？"
"""Asked only of a day that is the day after the log's."""
WEEKENDS = {
    "这个周末有什么安排？": 0,
    "what's on this weekend?": 0,
    "今週末の予定は？": 0,
    "下周末有什么安排？": 1,
    "来週末の予定は？": 1,
    "周末有什么安排？": 0,  # a weekend alone: the coming one
    "週末の予定は？": 0,
}
"""Asked only of a Saturday or Sunday of the log's calendar week (0) or of the next one (1)."""
WEEKDAYS = ("what's on {weekday}?", "周{zh_weekday}有什么安排？")
"""Asked only of a day two to six days after the log's: the next such weekday."""


def _asked(frame: str, written: date, day: date) -> bool:
    """Whether ``frame`` names ``day`` when asked on ``written``."""
    if frame == TOMORROW:
        return day == written + timedelta(days=1)
    if frame in WEEKDAYS:
        return 1 < (day - written).days < 7  # the next such weekday (tomorrow is 明天)
    if frame in WEEKENDS:
        weeks = (day - timedelta(days=day.weekday()) - written + timedelta(written.weekday())).days
        return day.weekday() >= 5 and weeks == 7 * WEEKENDS[frame]
    return True


AHEAD = 60
TOP = 3
_WRITTEN = re.compile(r"(?<![\d/.:])(\d{1,2})(?:/|\s*月\s*)(\d{1,2})(?:\s*[日号])?(?![\d/.:])")


_THIS_WEEKEND = re.compile(r"这个?周末|這個?週末|今週末|이번\s?주말|(?i:\bthis\s+weekend\b)")
_NEXT_WEEKEND = re.compile(r"下个?周末|下個?週末|来週末|다음\s?주말")
_WEEKEND = re.compile(
    r"(?<![上下这這个個每毎今来先])(?:周末|週末)|(?<![이번다음매지난]\s)(?<![이번다음매난])주말"
)
"""A weekend a log names alone: this probe takes it as the coming one in a log written on a
Wednesday to a Friday (on Monday or Tuesday a log as often means the one just gone)."""


def _weekend(written: date, weeks: int) -> list[date]:
    saturday = written + timedelta(days=5 - written.weekday() + 7 * weeks)
    return [saturday, saturday + timedelta(days=1)]


def planned(text: str, written: date, logged: set[date]) -> list[tuple[int, date]]:
    """``(line, day)`` of each day a log of ``written`` names ahead of it that no log is of:
    by its date (``9/15``, ``9月15日``), or as a weekend's Saturday and Sunday (这个周末, 下周末,
    今週末, this weekend; 周末 or 週末 alone in a log of a Wednesday to a Friday)."""
    found: list[tuple[int, date]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        days: list[date] = []
        for m in _WRITTEN.finditer(line):
            try:
                days.append(date(written.year, int(m[1]), int(m[2])))
            except ValueError:
                continue
        if _THIS_WEEKEND.search(line):
            days += _weekend(written, 0)
        if _NEXT_WEEKEND.search(line):
            days += _weekend(written, 1)
        if _WEEKEND.search(line) and 2 <= written.weekday() <= 4:
            days += _weekend(written, 0)
        for day in days:
            if written < day <= written + timedelta(days=AHEAD) and day not in logged:
                found.append((number, day))
    return list(dict.fromkeys(found))


def _answers(day: date, lines: list[tuple[str, int]]) -> Callable[[Any], bool]:
    """Whether a result answers a question about ``day``: it holds one of ``lines``, the lines
    of the logs written by the day it is asked on that name ``day``, or memdir dates it that
    day (a project note's ``## 窗口`` section, ``2026-11-14（周六）23:00–01:00``)."""
    held = [holds_line(path, line) for path, line in lines]
    return lambda h: h.date == day.isoformat() or any(test(h) for test in held)


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-plans-") as (root, mem):
        texts = daily_logs(root)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        plans = {w: planned(text, w, set(texts)) for w, text in texts.items()}
        naming: dict[date, list[tuple[date, str, int]]] = {}
        for w, found in plans.items():
            for line, day in found:
                naming.setdefault(day, []).append((w, f"memory/{w.isoformat()}.md", line))
        for written in texts:
            for line, day in plans[written]:
                for frame in FRAMES:
                    if not _asked(frame, written, day):
                        continue
                    question = frame.format(
                        m=day.month,
                        d=day.day,
                        mon=day.strftime("%b"),
                        weekday=day.strftime("%A"),
                        zh_weekday="一二三四五六日"[day.weekday()],
                    )
                    asked.ask(
                        frame,
                        question,
                        _answers(day, [(p, n) for w, p, n in naming[day] if w <= written]),
                        f"{written.isoformat()}:{line} → {day.isoformat()}",
                        written,
                    )
    asked.print(f"{len(texts)} daily logs, days planned ahead")
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'plans')}.json"
    write_probe(
        out,
        "agentmem-plans",
        args.memory,
        args.provider,
        {"questions": asked.asked, "top": TOP, "missed": asked.missed},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
