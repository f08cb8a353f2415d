"""Every code a memory holds, asked about in a few question frames: is a chunk naming it among
the first three results of each mode?

    python bench/agentmem/codes.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

The bench's own questions name a few dozen codes; this asks about all of them, so that a rule
that fails for a shape of question (``{code} 的负责人是谁`` in keyword search, where short notes
about other things' 负责人 outranked the one naming the code) shows however few graded
questions have that shape. The codes are the words of the memory's notes that memdir reads as
one identifier and :func:`memdir.search.keyword.is_code` calls a code (``HNM-147``,
``0x80AB``, ``max_inflight``, ``v1.13.2``; quantities such as ``150ms`` are codes by that rule
too, and vector search rarely finds a note by them). It uses no question of the bench, so it
is no test half: what it counts is what each change did to every code. No score floor.
Writes ``bench/results/agentmem[-designer]-codes.json``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import (  # noqa: E402
    Asked,
    chunk_bodies,
    chunks_holding,
    indexed_copy,
    note_texts,
    probe_arguments,
    write_missed,
)

from memdir.search.keyword import is_code, is_identifier_term  # noqa: E402
from memdir.text import fts_query_terms  # noqa: E402

FRAMES = (
    "{code}",
    "{code} 是什么？",
    "what happened with {code}?",
    "{code} の担当は？",
    "{code} 现在的状态",
    "{code} 的负责人是谁",
    "what is the current status of {code}?",
)
TOP = 3
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/=:]*[A-Za-z0-9_]")


def codes_in(root: Path) -> list[str]:
    """The codes written in the Markdown notes under ``root``, each as a note writes it."""
    found: set[str] = set()
    for text in note_texts(root):
        for word in _WORD.findall(text):
            terms = [t for t in fts_query_terms(word) if is_identifier_term(t)]
            if len(terms) == 1 and is_code(word):
                found.add(word)
    return sorted(found)


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-codes-") as (root, mem):
        codes = codes_in(root)
        chunks = chunk_bodies(mem)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for code in codes:
            naming = chunks_holding(
                chunks, [t for t in fts_query_terms(code) if is_identifier_term(t)]
            )
            if naming:
                asked.ask_frames(FRAMES, code, naming, code=code)
    asked.print(f"{len(codes)} codes")
    write_missed(args, "codes", asked, codes=len(codes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
