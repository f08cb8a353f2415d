"""Every word of software work a memory writes in one language (连接池, 压测, 熔断; load test,
on-call), asked in the other: is a chunk writing it as the notes do among the first three
results?

    python bench/agentmem/glossary.py [--memory engineer|designer] [--modes ...]

Notes write ``9/2 的 staging 压测``; a question says "the load test on staging", or the other
way round. The words are those of :data:`memdir.text.glossary.GLOSSARY` that some chunk
writes; each is asked as each of its words in the other language no chunk writes, in three
frames with a word of a chunk holding it (the rarest other word of the first such chunk, so
that the question is about something), and a hit is a chunk holding both that word and the
form as the notes write it. It uses no question of the bench, so it is no test half. No score
floor. Writes ``bench/results/agentmem[-designer]-glossary.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import ask_other_forms  # noqa: E402

from memdir.text.glossary import GLOSSARY  # noqa: E402


def _forms() -> dict[str, list[str]]:
    """Each word of the glossary and its words in the other language."""
    forms: dict[str, list[str]] = {}
    for chinese, englishes in GLOSSARY:
        forms.setdefault(chinese, []).extend(englishes)
        for english in englishes:
            forms.setdefault(english, []).append(chinese)
    return forms


if __name__ == "__main__":
    sys.exit(ask_other_forms(__doc__ or "", "glossary", _forms()))
