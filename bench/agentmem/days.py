"""Every day a memory has a daily log of, asked about in a few question frames: is a chunk of
that day's log among the first three results of each mode?

    python bench/agentmem/days.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "what did I do on Aug 3?" and "8月3日的 standup 说了什么？" of a memory of daily logs
(``memory/YYYY-MM-DD.md``); the bench's graded questions name a day in words only a few times,
so this asks of every day in eight frames: the day alone in several forms, the day with the
topic of an entry most days have (standup, 午饭; asked only of the days whose log holds that
word), and "yesterday" asked the day after (``Memory.search(today=…)``). It uses no question of the bench, so it is no test half. No score floor. Writes
``bench/results/agentmem[-designer]-days.json``.
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
    total = sum(asked.values())
    print(f"{len(logs)} daily logs, {total} questions ({len(FRAMES)} frames)")
    rows = [
        [mode, total, sum(len(v) for v in missed[mode].values())]
        + [f"{len(missed[mode].get(frame, ()))}/{asked[frame]}" for frame, _ in FRAMES]
        for mode in modes
    ]
    print_table(["mode", "questions", f"none in top {TOP}", *(f for f, _ in FRAMES)], rows)
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'days')}.json"
    write_probe(
        out,
        "agentmem-days",
        args.memory,
        args.provider,
        {"logs": len(logs), "questions": asked, "top": TOP, "missed": missed},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
