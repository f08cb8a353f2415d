"""Every hyphenated name a memory holds (``relay-staging``, ``tw-hoshimi``, ``atlas-dagster``),
asked as the words a person types for it: is a chunk naming it among the first three results?

    python bench/agentmem/hyphens.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Notes write a service, a channel or a host with hyphens; a question says "relay staging" or
"tw hoshimi". To FTS5 both are the same two words, each of them also in every note about relay
or about staging, so the chunk naming the one thing is outranked by the chunks that say much
about either. The names are the lower-case words of the notes joined by hyphens, two to four
parts of two characters or more, one of them letters only, none an English stop word or a
prefix (not follow-up, day-to-day, re-run: prose, typed with their hyphen); each is asked with
spaces for its hyphens, in three frames. A hit is a chunk writing the name's words in a row,
with hyphens, spaces or underscores between (the chunks writing "error rate" answer as well as
those writing error-rate). It uses no question of the bench, so it is no test half. No score
floor. Writes
``bench/results/agentmem[-designer]-hyphens.json``.
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
    indexed_copy,
    note_texts,
    probe_arguments,
    write_missed,
)

from memdir.text.stopwords import ENGLISH  # noqa: E402

FRAMES = (
    "{name}",
    "what do my notes say about {name}?",
    "{name} 现在怎么样了？",
)
TOP = 3
_PREFIXES = frozenset({"re", "co", "pre", "non", "un", "sub", "multi", "self", "semi", "anti"})
_NAME = re.compile(r"(?<![A-Za-z0-9_\-.])[a-z][a-z0-9]*(?:-[a-z0-9]+){1,3}(?![A-Za-z0-9_\-])")


def names_in(root: Path) -> list[str]:
    """The hyphenated names of the notes under ``root``, as they write them: two to four
    parts of two characters or more, one of them letters only, none a stop word or a
    prefix."""
    found: set[str] = set()
    for text in note_texts(root):
        for m in _NAME.finditer(text):
            parts = m[0].split("-")
            prose = any(p in ENGLISH or p in _PREFIXES for p in parts)
            if all(len(p) >= 2 for p in parts) and any(p.isalpha() for p in parts) and not prose:
                found.add(m[0])
    return sorted(found)


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-hyphens-") as (root, mem):
        names = names_in(root)
        chunks = chunk_bodies(mem)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for name in names:
            words = r"[\s_\-]+".join(map(re.escape, name.split("-")))
            written = re.compile(rf"(?<![a-z0-9_\-]){words}(?![a-z0-9_\-])")
            naming = {key for key, body in chunks if written.search(body)}
            if not naming:
                continue
            typed = name.replace("-", " ")
            asked.ask_frames(FRAMES, f"{name} as {typed}", naming, name=typed)
    asked.print(f"{len(names)} names")
    write_missed(args, "hyphens", asked, names=len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
