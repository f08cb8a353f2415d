"""Every person a memory's people notes introduce and every project it keeps a note of, asked
what they have been doing lately: is the first result of each mode one of the newest entries
naming them?

    python bench/agentmem/lately.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "老王最近在忙什么？", "What has He Jia been up to lately?" and "relay 最近有什么进展？"
of memory whose daily logs name the same person or project dozens of times over months. The
answer is what the newest entries say, not the entry that names them most densely. The people
are the names ``people.py`` finds (each form: 何佳 and He Jia, a chunk naming either names the
person, as does a family name written apart: 佐々木 of 佐々木 美穂); the projects are the names
of the notes in ``memory/projects/`` (``relay.md``: relay, not ``relay-error-codes``). Each
person is asked in four frames, each project in eight (four asking how far it has come with no
word of time: ``{n} 进展如何？``, ``What's the status of {n}?``), on the day after the newest
log. A hit is a first result dated one of the :data:`NEWEST` newest days on which a chunk names
the subject (its text holds the name, any case; a day after the asking day does not count).
It uses no question of the bench, so it is no test half. No score floor. Writes
``bench/results/agentmem[-designer]-lately.json``.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import MEMORIES  # noqa: E402
from people import introduced  # noqa: E402
from probes import Asked, daily_logs, indexed_copy, probe_arguments, write_missed  # noqa: E402

PEOPLE = (
    "{n}最近在忙什么？",
    "What has {n} been up to lately?",
    "{n}さんは最近何をしていますか？",
    "{n}最近怎么样？",
)
PROJECTS = (
    "{n} 最近有什么进展？",
    "What's the latest on {n}?",
    "{n} の最近の状況は？",
    "Any updates on {n} lately?",
    # how far it has come, with no word of time
    "{n} 进展如何？",
    "What's the status of {n}?",
    "{n} の進捗は？",
    "How is {n} going?",
)
NEWEST = 3
TOP = 1
_PROJECT = re.compile(r"[a-z][a-z0-9]*")
_SPACED_HAN = re.compile(r"[\u3005\u4e00-\u9fff]+ ")


def subjects(root: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``name asked → (kind, every form naming the same subject)``: each person in each form
    the people notes give them, each project note's name."""
    forms: dict[tuple[str, int], list[str]] = defaultdict(list)
    for name, path, line in introduced(root):
        forms[(path, line)].append(name)
    found = {
        # a name written with a space between family and given name (佐々木 美穂) is named
        # by the family name too (佐々木さん)
        name: ("person", (*names, *(n.split(" ")[0] for n in names if _SPACED_HAN.match(n))))
        for names in forms.values()
        for name in names
    }
    for note in sorted((root / "memory" / "projects").glob("*.md")):
        if _PROJECT.fullmatch(note.stem):
            found[note.stem] = ("project", (note.stem,))
    return found


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-lately-") as (root, mem):
        today = max(daily_logs(root)) + timedelta(days=1)
        chunks = mem.index.read("SELECT date, text, context FROM chunks WHERE date IS NOT NULL")
        asked = Asked(mem, args.modes, [*PEOPLE, *PROJECTS], TOP)
        found = subjects(MEMORIES[args.memory][0])
        newest: dict[str, list[str]] = {}
        for name, (kind, names) in found.items():
            lowered = [n.lower() for n in names]
            days = sorted(
                {
                    day
                    for day, text, context in chunks
                    if day <= today.isoformat()
                    and any(n in f"{context}\n{text}".lower() for n in lowered)
                },
                reverse=True,
            )[:NEWEST]
            if not days:
                continue
            newest[name] = days
            for frame in PEOPLE if kind == "person" else PROJECTS:
                asked.ask(
                    frame,
                    frame.format(n=name),
                    lambda h, days=days: getattr(h, "date", None) in days,
                    f"{name} → {', '.join(days)}",
                    today,
                )
    asked.print(f"{len(newest)} people and projects")
    write_missed(args, "lately", asked, newest=newest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
