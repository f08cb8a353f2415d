"""Every person a memory declares in a role (``Manager: 周岚 (Zhou Lan)``, ``上司: 王蕾``,
``陈卓（Chen Zhuo）: PM``), asked about by the role: is a chunk naming the person among the
first three results?

    python bench/agentmem/roles.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Notes name a manager by name; a question says "my manager", 上司, 老板, "the PM". For each role
:func:`memdir.text.roles.declared_roles` reads in the memory's chunks, each chunk naming its
holder (but the declaration) gives the rarest word of four letters or more it holds beside the
name, and each word for the role in 3 languages is asked with it in 3 frames; a hit is a chunk
naming the person and the word. It uses no question of the bench, so it is no test half. No
score floor. Writes ``bench/results/agentmem[-designer]-roles.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import (  # noqa: E402
    Asked,
    chunk_bodies,
    indexed_copy,
    probe_arguments,
    rarest_word,
    word_counts,
    write_missed,
)

from memdir.text import term_matcher  # noqa: E402
from memdir.text.roles import declared_roles  # noqa: E402

ASKED_AS = {
    "manager": ("my manager", "我老板", "上司"),
    "pm": ("the PM", "产品经理", "the product manager"),
    "designer": ("the designer", "设计师", "our designer"),
}
FRAMES = (
    "what did {role} say about {word}?",
    "{role}对 {word} 怎么看？",
    "{role} {word}",
)
TOP = 3


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-roles-") as (_, mem):
        chunks = chunk_bodies(mem)
        counts = word_counts(chunks)
        declared: dict[str, list[str]] = {}
        for (text,) in mem.index.read("SELECT text FROM chunks", []):
            for role, names in declared_roles(text).items():
                held = declared.setdefault(role, [])
                held += [n for n in names if n not in held]
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        for role, names in sorted(declared.items()):
            for name in names:
                holds = term_matcher(name.lower())
                naming = [(k, b) for k, b in chunks if holds(b) and not declared_roles(b)]
                used: set[str] = set()
                for _, body in naming:
                    word = rarest_word(body, counts, used)
                    if word is None:
                        continue
                    used.add(word)
                    has = term_matcher(word)
                    found = {k for k, b in naming if has(b)}
                    for said in ASKED_AS[role]:
                        asked.ask_frames(
                            FRAMES, f"{name} as {said}: {word}", found, role=said, word=word
                        )
    asked.print(f"{sum(map(len, declared.values()))} people in roles")
    write_missed(args, "roles", asked, roles={r: ns for r, ns in declared.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
