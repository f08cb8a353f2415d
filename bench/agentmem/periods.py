"""Every quarter and half of a year a memory names (``Q4``, ``H1``, 下半年, 四季度), asked as
written the other ways people write it: is a chunk naming it among the first three results?

    python bench/agentmem/periods.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Notes write a quarter as a label (``Q4 OKR``, ``明年 H1 做 provider 抽象层``); a question may say
第四季度, the fourth quarter, 上半年, 4분기 (:func:`memdir.text.periods.writings`). Each period
some chunk names is asked in each writing no chunk holds, in three frames; a hit is a chunk
naming that period in any writing. It uses no question of the bench, so it is no test half. No
score floor. Writes ``bench/results/agentmem[-designer]-periods.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import Asked, indexed_copy, probe_arguments, write_missed  # noqa: E402

from memdir.chunking import embed_input  # noqa: E402
from memdir.text.periods import periods, writings  # noqa: E402

FRAMES = (
    "{period}",
    "{period} 的计划是什么？",
    "what was planned for {period}?",
)
TOP = 3


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-periods-") as (_, mem):
        naming: dict[tuple[str, int], set[tuple[str, int]]] = {}
        written: dict[tuple[str, int], set[str]] = {}
        rows = mem.index.read("SELECT path, start_line, text, context FROM chunks", [])
        for path, start, text, context in rows:
            body = embed_input(context, text)
            for p in periods(body):
                naming.setdefault((p.kind, p.number), set()).add((path, start))
                written.setdefault((p.kind, p.number), set()).add(body[p.start : p.end].lower())
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for (kind, number), found in sorted(naming.items()):
            for period in writings(kind, number):
                if period.lower() not in written[(kind, number)]:
                    key = f"{kind}{number} as {period}"
                    asked.ask_frames(FRAMES, key, found, period=period)
    asked.print(f"{len(naming)} periods")
    write_missed(args, "periods", asked, periods=[f"{k}{n}" for k, n in sorted(naming)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
