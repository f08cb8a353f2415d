"""Every day a memory has a daily log of, asked about in a few question frames: is a chunk of
that day's log among the first three results of each mode?

    python bench/agentmem/days.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "what did I do on Aug 3?" and "8月3日的 standup 说了什么？" of a memory of daily logs
(``memory/YYYY-MM-DD.md``); the bench's graded questions name a day in words only a few times,
so this asks of every day in eight frames: the day alone in several forms, the day with the
topic of an entry most days have (standup, 午饭; asked only of the days whose log holds that
word), and "yesterday" asked the day after (``Memory.search(today=…)``). Then every week with a log, in five frames
that name it from a day of the next week or of itself (``what did I do last week?``,
``上周做了什么？``, ``先週は何をした？`` asked on the next Wednesday, ``what did I do this week?``
and ``这周的 standup 说了什么？`` on its Friday): is a chunk of that week, up to that day, among
the first three? It uses no question of the bench, so it is no test half. No score floor.
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
from probes import indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR, print_table  # noqa: E402

FRAMES = (
    ("what happened on {iso}?", ""),
    ("what did I do on {mon} {day}?", ""),
    ("{month}月{day}日做了什么？", ""),
    ("{mon} {day}", ""),
    ("what was the standup about on {mon} {day}?", "standup"),
    ("{month}月{day}号和谁吃的午饭？", "午饭"),
    ("what did I do yesterday?", ""),
    ("昨天做了什么？", ""),
)
RELATIVE = {"what did I do yesterday?", "昨天做了什么？"}
"""Asked the day after (``today``): what a session the next morning would ask."""
WEEK_FRAMES = (
    ("what did I do last week?", 9, ""),
    ("上周做了什么？", 9, ""),
    ("先週は何をした？", 9, ""),
    ("what did I do this week?", 4, ""),
    ("这周的 standup 说了什么？", 4, "standup"),
)
"""A question naming a week from today, the day it is asked (days after the week's Monday),
and the word a log of the week must hold for it to be asked."""
MONTH_FRAMES = (
    ("what did I do in {month}?", None),
    ("{m}月做了什么？", None),
    ("{m}月の standup で何を話した？", None),
    ("what did I do last month?", 40),
    ("上个月做了什么？", 40),
    ("这个月做了什么？", 19),
)
"""A question naming a month, and the day it is asked (days after the month's first; ``None``:
any day, as a month named by name needs none)."""
TOP = 3


def main() -> int:
    args = probe_arguments(__doc__)
    modes = args.modes
    asked = dict.fromkeys((frame for frame, _ in FRAMES), 0)
    missed: dict[str, dict[str, list[str]]] = {mode: {} for mode in modes}
    with indexed_copy(args.memory, args.provider, "memdir-days-") as (root, mem):
        logs = sorted(root.glob("memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md"))
        for log in logs:
            day = date.fromisoformat(log.stem)
            text = log.read_text(encoding="utf-8")
            for frame, topic in FRAMES:
                if topic and topic not in text:
                    continue
                question = frame.format(
                    iso=day.isoformat(), mon=day.strftime("%b"), month=day.month, day=day.day
                )
                asked[frame] += 1
                for mode in modes:
                    hits = mem.search(
                        question,
                        max_results=TOP,
                        min_score=0.0,
                        mode=mode,
                        refresh=False,
                        today=day + timedelta(days=1) if frame in RELATIVE else None,
                    ).results
                    if not any(h.path == f"memory/{log.name}" for h in hits):
                        missed[mode].setdefault(frame, []).append(log.stem)
        weeks_asked = dict.fromkeys((frame for frame, _, _ in WEEK_FRAMES), 0)
        weeks_missed: dict[str, dict[str, list[str]]] = {mode: {} for mode in modes}
        texts = {date.fromisoformat(log.stem): log.read_text(encoding="utf-8") for log in logs}
        for monday in sorted({d - timedelta(days=d.weekday()) for d in texts}):
            for frame, after, topic in WEEK_FRAMES:
                today = monday + timedelta(days=after)
                week = {monday + timedelta(n) for n in range(min(after, 6) + 1)}
                if not any(topic in texts[d] for d in week if d in texts):
                    continue
                weeks_asked[frame] += 1
                for mode in modes:
                    hits = mem.search(
                        frame,
                        max_results=TOP,
                        min_score=0.0,
                        mode=mode,
                        refresh=False,
                        today=today,
                    ).results
                    if not any(h.date and date.fromisoformat(h.date) in week for h in hits):
                        weeks_missed[mode].setdefault(frame, []).append(monday.isoformat())
        months_asked = dict.fromkeys((frame for frame, _ in MONTH_FRAMES), 0)
        months_missed: dict[str, dict[str, list[str]]] = {mode: {} for mode in modes}
        for first in sorted({d.replace(day=1) for d in texts}):
            for frame, after in MONTH_FRAMES:
                # "last month" is asked in the month after, "this month" in the month itself
                today = first + timedelta(days=after) if after is not None else None
                question = frame.format(month=first.strftime("%B"), m=first.month)
                months_asked[frame] += 1
                for mode in modes:
                    hits = mem.search(
                        question,
                        max_results=TOP,
                        min_score=0.0,
                        mode=mode,
                        refresh=False,
                        today=today,
                    ).results
                    if not any(h.date and h.date[:7] == first.isoformat()[:7] for h in hits):
                        months_missed[mode].setdefault(frame, []).append(first.isoformat()[:7])
    total = sum(asked.values())
    print(f"{len(logs)} daily logs, {total} questions ({len(FRAMES)} frames)")
    rows = [
        [mode, total, sum(len(v) for v in missed[mode].values())]
        + [f"{len(missed[mode].get(frame, ()))}/{asked[frame]}" for frame, _ in FRAMES]
        for mode in modes
    ]
    print_table(["mode", "questions", f"none in top {TOP}", *(f for f, _ in FRAMES)], rows)
    weeks_total = sum(weeks_asked.values())
    print(f"\n{weeks_total} questions naming a week ({len(WEEK_FRAMES)} frames)")
    rows = [
        [mode, weeks_total, sum(len(v) for v in weeks_missed[mode].values())]
        + [
            f"{len(weeks_missed[mode].get(frame, ()))}/{weeks_asked[frame]}"
            for frame, _, _ in WEEK_FRAMES
        ]
        for mode in modes
    ]
    print_table(["mode", "questions", f"none in top {TOP}", *(f for f, _, _ in WEEK_FRAMES)], rows)
    months_total = sum(months_asked.values())
    print(f"\n{months_total} questions naming a month ({len(MONTH_FRAMES)} frames)")
    rows = [
        [mode, months_total, sum(len(v) for v in months_missed[mode].values())]
        + [
            f"{len(months_missed[mode].get(frame, ()))}/{months_asked[frame]}"
            for frame, _ in MONTH_FRAMES
        ]
        for mode in modes
    ]
    print_table(["mode", "questions", f"none in top {TOP}", *(f for f, _ in MONTH_FRAMES)], rows)
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'days')}.json"
    write_probe(
        out,
        "agentmem-days",
        args.memory,
        args.provider,
        {
            "logs": len(logs),
            "questions": asked,
            "top": TOP,
            "missed": missed,
            "week_questions": weeks_asked,
            "weeks_missed": weeks_missed,
            "month_questions": months_asked,
            "months_missed": months_missed,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
