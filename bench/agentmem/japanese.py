"""Every word of software work a memory writes in Japanese (本番, 障害, 切り戻し, 議事録) asked in
English and Chinese, and every English or Chinese one asked in Japanese: is a chunk writing it
as the notes do among the first three results?

    python bench/agentmem/japanese.py [--memory engineer|designer] [--modes ...]

Notes write ``本番の障害``, ``切り戻しは 5 分``; a question says "the production incident", 生产
环境的故障, or the other way round (the notes write "rollback", the question 切り戻し). The words
are those of :data:`memdir.text.glossary.JAPANESE` and the English and Chinese words
(:data:`memdir.text.glossary.GLOSSARY`) of theirs that some chunk writes; each is asked as each
of its words in the other languages no chunk writes, in three frames with the rarest other word
of the first chunk holding it, and a hit is a chunk holding both that word and the form as the
notes write it (as ``glossary.py``). It uses no question of the bench, so it is no test half. No
score floor. Writes ``bench/results/agentmem[-designer]-japanese.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import ask_other_forms  # noqa: E402

from memdir.text.glossary import GLOSSARY, JAPANESE  # noqa: E402


def _forms() -> dict[str, list[str]]:
    """Each Japanese word of the glossary and its English and Chinese words, and each of those
    and its Japanese words."""
    chinese: dict[str, list[str]] = {}
    for word, englishes in GLOSSARY:
        for english in englishes:
            chinese.setdefault(english, []).append(word)
    forms: dict[str, list[str]] = {}
    for japanese, englishes in JAPANESE:
        others = [*englishes, *(c for e in englishes for c in chinese.get(e, ()))]
        forms.setdefault(japanese, []).extend(o for o in others if o not in forms[japanese])
        for other in others:
            if japanese not in forms.setdefault(other, []):
                forms[other].append(japanese)
    return forms


if __name__ == "__main__":
    sys.exit(ask_other_forms(__doc__ or "", "japanese", _forms()))
