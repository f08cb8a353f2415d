"""Every ticket-like code a memory holds (letters, then digits: ``BILL-421``, ``HNM-147``,
``MU523``) and every version (``v1.13.2``, ``1.7.4``), asked about spelled another way: is a
chunk naming it among the first three results of each mode?

    python bench/agentmem/spellings.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

People type a ticket as it comes to hand: ``bill421``, ``BILL 421``, ``hnm147``, and a flight
``MU 523`` that the notes write ``MU523``. To FTS5 ``BILL-421`` is the phrase ``bill 421`` and
``bill421`` one token no note holds, so the glued spelling finds nothing of the code. The codes
are those of ``codes.py`` shaped as two or more letters and two or more digits, with a hyphen,
an underscore or nothing between; each is asked in the spellings its notes do not write (glued
and lower-cased, with a space, lower-cased with a space, with a hyphen, with the non-breaking
hyphen language models write) in three frames; a version is asked without its v,
or with one when it has three parts or more (``relay 1.13.2`` for the notes' ``v1.13.2``). A hit is a chunk naming the code
as the notes write it. It uses no question of the bench, so it is no test half. No score floor.
Writes ``bench/results/agentmem[-designer]-spellings.json``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from codes import codes_in  # noqa: E402
from probes import (  # noqa: E402
    Asked,
    chunk_bodies,
    chunks_holding,
    indexed_copy,
    probe_arguments,
    write_missed,
)

from memdir.search.keyword import is_identifier_term  # noqa: E402
from memdir.text import fts_query_terms  # noqa: E402

FRAMES = (
    "{code}",
    "{code} 是什么问题？",
    "what happened with {code}?",
)
TOP = 3
_SHAPE = re.compile(r"([A-Za-z]{2,})([-_]?)(\d{2,})")


_VERSION = re.compile(r"(v?)(\d+(?:\.\d+){1,3})")


def spellings(code: str) -> list[str]:
    """The other ways ``code`` (letters, then digits) is typed: glued in lower case, with a
    space, with a hyphen; not the way the notes write it. A version (``v1.13.2``) without its
    v, and one of three parts or more (``1.7.4``) with one."""
    if v := _VERSION.fullmatch(code):
        if v[1]:
            return [v[2]]
        return [f"v{code}"] if code.count(".") >= 2 else []
    m = _SHAPE.fullmatch(code)
    if m is None:
        return []
    letters, sep, digits = m.groups()
    others = [
        f"{letters.lower()}{digits}",
        f"{letters} {digits}",
        f"{letters.lower()} {digits}",
        f"{letters}-{digits}",
        f"{letters}\u2011{digits}",  # a non-breaking hyphen, as language models write it
    ]
    others = list(dict.fromkeys(others))
    return [s for s in others if s != code and (sep or " " in s or "-" in s or "\u2011" in s)]


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-spellings-") as (root, mem):
        codes = [c for c in codes_in(root) if spellings(c)]
        chunks = chunk_bodies(mem)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for code in codes:
            naming = chunks_holding(
                chunks, [t for t in fts_query_terms(code) if is_identifier_term(t)]
            )
            if not naming:
                continue
            for spelled in spellings(code):
                asked.ask_frames(FRAMES, f"{code} as {spelled}", naming, code=spelled)
    asked.print(f"{len(codes)} codes")
    write_missed(args, "spellings", asked, codes=len(codes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
