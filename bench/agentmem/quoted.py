"""Every span a memory's notes write between backticks, asked about between backticks, in a few
question frames: is a chunk holding it as written among the first three results of each mode?

    python bench/agentmem/quoted.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Agents write code between backticks when they search (`` what does `--check` do? ``,
`` `relay-workers` 有几个副本？ ``). To FTS5 such a span is only its words: ``--check`` is the
common word check, ``nats://`` is nats, `` `main` `` may be bridged to 主要, and the hyphenated
``relay-workers`` is two loose words. This asks about each span as the notes write it (those
:func:`memdir.text.literal_spans` keeps, held by some chunk as written: the chunks counted are
those :func:`memdir.search.quoted.holder` says hold it), and asks a long option
(``--dry-run``) without backticks too, so what a change does to every such span shows. It
uses no question of the bench, so it is no test half. No score floor. Writes
``bench/results/agentmem[-designer]-quoted.json``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import Asked, indexed_copy, note_texts, probe_arguments, write_missed  # noqa: E402

from memdir.search.quoted import holder, quoted_text  # noqa: E402
from memdir.text import literal_spans  # noqa: E402

FRAMES = (
    "`{span}` 是干什么的？",
    "what is `{span}` for?",
    "`{span}` について教えて",
    "what does {span} do?",
)
QUOTED_FRAMES = FRAMES[:3]
"""The frames every span is asked in; a long option (``--dry-run``) is asked without
backticks too, in the last frame."""
TOP = 3
_QUOTED = re.compile(r"`[^`\n]+`")
_OPTION = re.compile(r"--[A-Za-z][\w-]*")


def spans_in(root: Path) -> list[str]:
    """The spans the Markdown notes under ``root`` write between backticks, as a question
    writing them so would be searched for."""
    found: set[str] = set()
    for text in note_texts(root):
        for quoted in _QUOTED.findall(text):
            found.update(literal_spans(quoted))
    return sorted(found)


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-quoted-") as (root, mem):
        ids = [cid for (cid,) in mem.index.read("SELECT id FROM chunks", [])]
        chunks = [
            (row.path, row.start_line, quoted_text(row))
            for row in mem.index.chunks_by_ids(ids).values()
        ]
        spans = spans_in(root)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for span in spans:
            holds = holder(span)
            holding = {(path, start) for path, start, text in chunks if holds(text)}
            option = _OPTION.fullmatch(span) is not None  # asked without backticks too
            if holding:
                asked.ask_frames(FRAMES if option else QUOTED_FRAMES, span, holding, span=span)
    asked.print(f"{len(spans)} spans")
    write_missed(args, "quoted", asked, spans=len(spans))
    return 0


if __name__ == "__main__":
    sys.exit(main())
