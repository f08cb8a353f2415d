"""Every camelCase and snake_case name a memory holds (``maxReplicas``, ``MaxAckPending``,
``ack_wait``, ``events_raw_v2``), asked as written in the other case and as plain words: is a
chunk naming it among the first three results?

    python bench/agentmem/casings.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

An agent or its user types a config key as it comes to hand: ``max_replicas`` or "max
replicas" for the notes' ``autoscaling.maxReplicas``, ``ackWait`` for their ``ack_wait``,
"events raw v2" for ``events_raw_v2``. To FTS5 ``maxReplicas`` is one token that neither
spelling holds, and "events raw v2" three loose words, of which ``v2`` is in every ledger
release. The names are the words of the notes' Markdown in camelCase (``maxReplicas``), in
PascalCase between backticks (`` `AckWait` ``, not GitHub or MacBook), or lower-case words joined
by underscores, each part of two characters or more; each is asked in the other case and as words in three frames. A hit is a chunk
naming it as the notes write it. It uses no question of the bench, so it is no test half. No
score floor. Writes ``bench/results/agentmem[-designer]-casings.json``.
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

from memdir.text import fts_query_terms  # noqa: E402

FRAMES = (
    "{name}",
    "{name} 是多少？",
    "what is {name} set to?",
)
TOP = 3
_CAMEL = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?:[A-Z][a-z]+)*[A-Z][a-z]+\d*(?![A-Za-z0-9_])")
_PASCAL = re.compile(r"(?<=`)(?:[A-Z][a-z]+){2,}\d*(?=`)")  # in a code span: not GitHub, MacBook
_SNAKE = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![A-Za-z0-9_])")
_PART = re.compile(r"[A-Z]?[a-z0-9]+")


def parts(name: str) -> list[str]:
    """The words of a camelCase or snake_case name, in lower case."""
    if "_" in name:
        return name.split("_")
    return [p.lower() for p in _PART.findall(name)]


def names_in(root: Path) -> list[str]:
    """The camelCase and snake_case names of the notes under ``root``, as they write them:
    each part two characters or more, and at least one part of letters alone."""
    found: set[str] = set()
    for text in note_texts(root):
        for m in [*_CAMEL.finditer(text), *_PASCAL.finditer(text), *_SNAKE.finditer(text)]:
            words = parts(m[0])
            if all(len(w) >= 2 for w in words) and any(w.isalpha() for w in words):
                found.add(m[0])
    return sorted(found)


def other_cases(name: str) -> list[str]:
    """``name`` in the other case and as words: ``max_replicas`` and "max replicas" for
    ``maxReplicas``, ``ackWait`` and "ack wait" for ``ack_wait``."""
    words = parts(name)
    if "_" in name:
        other = words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    else:
        other = "_".join(words)
    return [other, " ".join(words)]


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-casings-") as (root, mem):
        names = names_in(root)
        chunks = chunk_bodies(mem)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for name in names:
            naming = chunks_holding(chunks, fts_query_terms(name))
            if not naming:
                continue
            for typed in other_cases(name):
                asked.ask_frames(FRAMES, f"{name} as {typed}", naming, name=typed)
    asked.print(f"{len(names)} names")
    write_missed(args, "casings", asked, names=len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
