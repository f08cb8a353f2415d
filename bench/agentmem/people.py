"""Every person a memory's people notes introduce, asked about in a few question frames: is
the line introducing them among the first three results of each mode?

    python bench/agentmem/people.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents ask "何佳是谁？" and "What does Wang Tao do?" of a memory whose people notes hold a team
table (``| 何佳 He Jia | backend | …``) or a note per person headed with their name, while
daily entries name the same people in passing dozens of times. The names are the first cells
of the tables in ``memory/people/*.md`` (each form: 何佳 and He Jia), or, in a note without a
table, the names of its first heading; each is asked in eight frames (three asking what they
are responsible for: ``{n}负责什么？``, ``What is {n} responsible for?``, ``{n}さんの担当は？``).
A hit is a result of that file whose lines hold the row or heading. It uses no question of the bench, so it is no
test half. No score floor. Writes ``bench/results/agentmem[-designer]-people.json``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import MEMORIES, results_name  # noqa: E402
from probes import Asked, holds_line, indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR  # noqa: E402

FRAMES = (
    "{n}是谁？",
    "{n}是做什么的？",
    "Who is {n}?",
    "What does {n} do?",
    "{n}って誰？",
    # what they are responsible for
    "{n}负责什么？",
    "What is {n} responsible for?",
    "{n}さんの担当は？",
)
TOP = 3
_CJK_NAME = r"[\u3005\u3040-\u30ff\u4e00-\u9fff]{2,4}"
_LATIN_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)+"
_SPACED_CJK_NAME = r"[\u3005\u4e00-\u9fff]{1,3} [\u3005\u4e00-\u9fff]{1,3}"
_HEADER_CELLS = {"名字", "name", "名前", "候选人"}


def introduced(workspace: Path) -> list[tuple[str, str, int]]:
    """``(name, path, line)`` of each name the people notes introduce."""
    found: list[tuple[str, str, int]] = []
    for note in sorted((workspace / "memory" / "people").glob("*.md")):
        rel = note.relative_to(workspace).as_posix()
        lines = note.read_text(encoding="utf-8").splitlines()
        rows = []
        for number, line in enumerate(lines, start=1):
            cell = re.match(r"\|\s*([^|]+?)\s*\|", line)
            if cell and cell.group(1).strip("-: ") and cell.group(1).lower() not in _HEADER_CELLS:
                names = re.findall(f"{_CJK_NAME}|{_LATIN_NAME}", cell.group(1))
                rows += [(name, rel, number) for name in names]
        if not rows:
            heading = next(
                ((n, line) for n, line in enumerate(lines, 1) if line.startswith("# ")), None
            )
            if heading is not None:
                pattern = f"{_SPACED_CJK_NAME}|{_CJK_NAME}|{_LATIN_NAME}"
                rows = [(name, rel, heading[0]) for name in re.findall(pattern, heading[1][2:])]
        found += rows
    return found


def main() -> int:
    args = probe_arguments(__doc__)
    names = introduced(MEMORIES[args.memory][0])
    with indexed_copy(args.memory, args.provider, "memdir-people-") as (_, mem):
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for name, path, line in names:
            for frame in FRAMES:
                asked.ask(
                    frame,
                    frame.format(n=name),
                    holds_line(path, line),
                    name,
                )
    asked.print(f"{len(names)} names")
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'people')}.json"
    write_probe(
        out,
        "agentmem-people",
        args.memory,
        args.provider,
        {
            "names": [n for n, _, _ in names],
            "questions": asked.asked,
            "top": TOP,
            "missed": asked.missed,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
