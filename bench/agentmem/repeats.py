"""Every kind of entry a memory's daily logs write more than once (the same heading title:
``### 16:30 - 牙医`` on two days, ``### 14:00 - 1:1 周岚`` every other week), asked about as the
last time and the first time it happened: is that entry the first result of each mode?

    python bench/agentmem/repeats.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "上次看牙是什么时候？" and "When was the first 1:1 with Zhou Lan?" of memory that
keeps every occurrence, written alike. The entries are found here with a pattern of this probe's
own (a ``###`` heading of a daily log, ``HH:MM - title``, its title compared lower-cased), and
each title written in two logs or more, in at most :data:`MOST` (a daily standup is asked once a
day, not about its first or last time), is asked in three frames for its latest entry and in
three for its earliest, on the day after the newest log. A hit is a first result of that entry's
log whose lines hold its heading. It uses no question of the bench, so it is no test half. No
score floor. Writes ``bench/results/agentmem[-designer]-repeats.json``.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import results_name  # noqa: E402
from probes import Asked, daily_logs, holds_line, indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR  # noqa: E402

LAST = ("上次{t}是什么时候？", "When was the last {t}?", "前回の{t}はいつ？")
FIRST = ("第一次{t}是什么时候？", "When was the first {t}?", "最初の{t}はいつ？")
MOST = 6
TOP = 1
_ENTRY = re.compile(r"^###\s+\d{1,2}:\d{2}\s*[-–—]\s*(?P<title>.+?)\s*$")


def entries(logs: dict[date, str]) -> dict[str, list[tuple[date, int]]]:
    """``title → [(day, heading line), …]`` in date order, for each title written in two
    logs or more and at most :data:`MOST`."""
    found: dict[str, list[tuple[date, int]]] = defaultdict(list)
    for day, text in logs.items():
        for number, line in enumerate(text.splitlines(), start=1):
            if m := _ENTRY.match(line):
                found[m["title"].lower()].append((day, number))
    return {
        title: places
        for title, places in found.items()
        if 2 <= len({day for day, _ in places}) <= MOST
    }


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-repeats-") as (root, mem):
        logs = daily_logs(root)
        today = max(logs) + timedelta(days=1)
        asked = Asked(mem, args.modes, [*LAST, *FIRST], TOP)
        titles = entries(logs)
        for title, places in titles.items():
            for frames, (day, line) in ((LAST, places[-1]), (FIRST, places[0])):
                path = f"memory/{day.isoformat()}.md"
                for frame in frames:
                    asked.ask(
                        frame,
                        frame.format(t=title),
                        holds_line(path, line),
                        f"{title} → {day.isoformat()}:{line}",
                        today,
                    )
    asked.print(f"{len(titles)} kinds of entry written on 2 to {MOST} days")
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'repeats')}.json"
    write_probe(
        out,
        "agentmem-repeats",
        args.memory,
        args.provider,
        {
            "titles": titles and {t: len(p) for t, p in titles.items()},
            "questions": asked.asked,
            "top": TOP,
            "missed": asked.missed,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
